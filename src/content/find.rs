//! The few simple selectors the pipeline asks for on every page, as plain walks over the
//! tree: each finds exactly what `Document::select` finds with the selector it names, in
//! the same (document) order.
//!
//! Why: `select` matches every node of the page against a compiled CSS selector (about
//! 150 instructions a node in callgrind); a walk that compares a tag name or looks for one
//! attribute costs a fraction of that, and these run on every page (issue 27).
//!
//! Must never: find anything `select` would not, or miss anything it would; panic.

use dom_query::{Document, Element, LocalName, NodeRef};

/// The elements named `name` (any namespace, as a type selector matches), in document
/// order: `doc.select(name)`.
pub(crate) fn named<'a>(doc: &'a Document, name: &'a str) -> impl Iterator<Item = NodeRef<'a>> {
    nodes(doc).filter(move |n| n.has_name(name))
}

/// Whether `node` is an element named one of `names`, in one look at the node. The names
/// are interned (`local_name!`), so each test is an integer comparison where `has_name`
/// compares strings: for the tests that run on every node of a page.
pub(crate) fn is_any(node: &NodeRef, names: &[LocalName]) -> bool {
    node.query_or(false, |t| {
        t.as_element()
            .is_some_and(|e| names.contains(&e.name.local))
    })
}

/// Whether `node` is an element carrying an attribute named one of `names`, in one look
/// at the node (a `has_attr` for each name is a borrow of the tree and a search of the
/// attributes each).
pub(crate) fn has_any_attr(node: &NodeRef, names: &[&str]) -> bool {
    node.query_or(false, |t| {
        t.as_element().is_some_and(|e| {
            e.attrs
                .iter()
                .any(|a| names.contains(&a.name.local.as_ref()))
        })
    })
}

/// The value of the first attribute of `e` named `name`, as `NodeRef::attr` finds it, for
/// tests that read several attributes in one look at the element.
pub(crate) fn first_attr<'e>(e: &'e Element, name: &str) -> Option<&'e str> {
    e.attrs
        .iter()
        .find(|a| &*a.name.local == name)
        .map(|a| &*a.value)
}

/// Every node under the document's root, in document order (what `select` walks).
fn nodes(doc: &Document) -> impl Iterator<Item = NodeRef<'_>> {
    let tree = &doc.tree;
    tree.descendant_ids_of_it(&doc.root().id)
        .map(move |id| NodeRef::new(id, tree))
}

/// The elements named `name` with an ancestor named `within`, in document order:
/// `doc.select("within name")`.
pub(crate) fn named_within<'a>(
    doc: &'a Document,
    within: &'a str,
    name: &'a str,
) -> impl Iterator<Item = NodeRef<'a>> {
    named(doc, name).filter(move |n| n.ancestors_it(None).any(|a| a.has_name(within)))
}

/// The elements that carry the attribute `attr`, in document order:
/// `doc.select("[attr]")`. (Only the attributes of foreign content that HTML names, such
/// as `xlink:href`, have a namespace, so the selector's "no namespace" never tells them
/// apart from a name test.)
pub(crate) fn with_attr<'a>(doc: &'a Document, attr: &str) -> Vec<NodeRef<'a>> {
    nodes(doc).filter(|n| n.has_attr(attr)).collect()
}

/// The elements named one of `names` or carrying the attribute `attr`, in document order:
/// `doc.select("name1, name2, …, [attr]")` (a selector list finds each node once, in
/// document order).
pub(crate) fn named_any_or_attr<'a>(
    doc: &'a Document,
    names: &[&str],
    attr: &str,
) -> Vec<NodeRef<'a>> {
    nodes(doc)
        .filter(|n| {
            n.qual_name_ref()
                .is_some_and(|q| names.contains(&&*q.local))
                || n.has_attr(attr)
        })
        .collect()
}

/// `<script type="application/ld+json">`, the type trimmed and in any letter case: every
/// element that readability's `script[type="application/ld+json"]` matches, and a few it
/// may not (so a page without one surely has none for it).
pub(crate) fn is_json_ld(node: &NodeRef) -> bool {
    node.has_name("script")
        && node
            .attr("type")
            .is_some_and(|t| t.trim().eq_ignore_ascii_case("application/ld+json"))
}

/// Whether `doc` may hold JSON-LD for readability (see [`is_json_ld`]).
pub(crate) fn has_json_ld(doc: &Document) -> bool {
    named(doc, "script").any(|s| is_json_ld(&s))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(nodes: impl IntoIterator<Item = NodeRef<'static>>) -> Vec<dom_query::NodeId> {
        nodes.into_iter().map(|n| n.id).collect()
    }

    /// Each walk finds what the selector it stands for finds, in the same order, on a page
    /// with the odd corners: elements outside `<body>`, nesting, foreign content, a
    /// `<template>`, attributes on any element and with an empty value.
    #[test]
    fn walks_agree_with_select() {
        let page = "<!doctype html><html><head><title>T</title><h1 x>in head</h1>\
            <template><h1>tpl</h1><title>tt</title></template></head><body x=''>\
            <div><h1 class=a>one</h1><section x><h1>two<h1>three</h1></h1></section></div>\
            <svg><title>svg title</title><h1>breaks out</h1></svg>\
            <math><mi x>m</mi></math><title>late</title><p x=1>p</p></body></html>";
        let doc: &'static Document = Box::leak(Box::new(Document::from(page)));
        for name in ["h1", "title", "body", "head", "mi"] {
            assert_eq!(
                ids(named(doc, name)),
                ids(doc.select(name).nodes().to_vec()),
                "{name}"
            );
        }
        for (within, name) in [("body", "h1"), ("head", "title"), ("section", "h1")] {
            assert_eq!(
                ids(named_within(doc, within, name)),
                ids(doc.select(&format!("{within} {name}")).nodes().to_vec()),
                "{within} {name}"
            );
        }
        assert_eq!(
            ids(with_attr(doc, "x")),
            ids(doc.select("[x]").nodes().to_vec())
        );
        assert!(!with_attr(doc, "x").is_empty());
        assert_eq!(
            ids(named_any_or_attr(doc, &["head", "title", "mi"], "x")),
            ids(doc.select("head, title, mi, [x]").nodes().to_vec())
        );
    }

    /// What readability reads as JSON-LD is always seen: its selector finds nothing on a
    /// page where [`has_json_ld`] is false.
    #[test]
    fn json_ld_is_seen_whatever_its_spelling() {
        for (page, has) in [
            (r#"<script type="application/ld+json">{}</script>"#, true),
            (
                r#"<body><script type=" Application/LD+JSON ">{}</script>"#,
                true,
            ),
            (
                r#"<svg><script type="application/ld+json">{}</script></svg>"#,
                true,
            ),
            (r#"<script type="application/json">{}</script>"#, false),
            (
                r#"<script>{}</script><p type="application/ld+json">x</p>"#,
                false,
            ),
        ] {
            let doc = Document::from(page);
            assert_eq!(has_json_ld(&doc), has, "{page}");
            if !has {
                assert!(doc
                    .select(r#"script[type="application/ld+json"]"#)
                    .is_empty());
            }
        }
    }
}
