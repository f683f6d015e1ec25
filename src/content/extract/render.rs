//! Writing the selection: the whole-body fallback's removals, links made absolute, and the
//! two writers: Markdown ([`crate::content::markdown`]) and plain text (dom_query's text
//! with list markers, cell separators, sub- and superscript marks and code blocks kept
//! byte for byte).

use dom_query::{Document, NodeRef, Selection};

use crate::content::cancel::cancelled;
use crate::content::tidy::{tidy_markdown, tidy_text, VERBATIM_CLOSE, VERBATIM_OPEN};

/// Whole-body fallback: remove what is never content (scripts, embeds, navigation,
/// page footers, form controls, dialogs, hidden elements), and page headers and sidebars
/// unless they sit inside an `<article>` or `<main>`.
pub(crate) fn strip_boilerplate(doc: &Document) {
    let mut doomed: Vec<NodeRef> = Vec::new();
    // (node, inside article/main)
    let mut stack: Vec<(NodeRef, bool)> = vec![(doc.root(), false)];
    while let Some((node, in_content)) = stack.pop() {
        if cancelled() {
            return;
        }
        for child in node.children_it(false) {
            if !child.is_element() {
                continue;
            }
            match stripped(&child, in_content) {
                Strip::Keep(in_content) => stack.push((child, in_content)),
                Strip::Always | Strip::Outside => doomed.push(child),
            }
        }
    }
    for node in doomed {
        node.remove_from_parent();
    }
}

/// What [`strip_boilerplate`] does with one element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Strip {
    /// Never content, wherever it stands: a footer, a navigation block, a control, a dialog,
    /// a hidden element.
    Always,
    /// A page header or sidebar outside an `<article>` or `<main>`.
    Outside,
    /// Kept; its children are (`true`) or are not inside an `<article>` or `<main>`.
    Keep(bool),
}

/// What [`strip_boilerplate`] does with the element `node`, whose ancestors are kept and
/// are (`in_content`) or are not inside an `<article>` or `<main>`.
fn stripped(node: &NodeRef, in_content: bool) -> Strip {
    let (always, outside_content, content) = node
        .qual_name_ref()
        .map(|name| match &*name.local {
            "script" | "style" | "noscript" | "template" | "svg" | "canvas" | "iframe"
            | "object" | "embed" | "video" | "audio" | "nav" | "footer" | "dialog" | "button"
            | "select" | "input" | "textarea" => (true, false, false),
            "header" | "aside" => (false, true, false),
            "article" | "main" => (false, false, true),
            _ => (false, false, false),
        })
        .unwrap_or_default();
    let role = node.attr("role");
    let role = role.as_deref().map(str::trim).unwrap_or("");
    let doomed_role = matches!(
        role,
        "navigation" | "contentinfo" | "search" | "dialog" | "alertdialog" | "menu" | "menubar"
    );
    let side_role = matches!(role, "banner" | "complementary");
    if always || doomed_role || node.has_attr("hidden") {
        Strip::Always
    } else if (outside_content || side_role) && !in_content {
        Strip::Outside
    } else {
        Strip::Keep(in_content || content || role == "main")
    }
}

/// Whether [`strip_boilerplate`] removes the element `node` where it is not inside an
/// `<article>` or `<main>`: never content, or a page header or sidebar.
pub(crate) fn stripped_outside_content(node: &NodeRef) -> bool {
    !matches!(stripped(node, false), Strip::Keep(_))
}

/// The outermost element around `node` that [`strip_boilerplate`] removes wherever it
/// stands: a page footer, a navigation block, a dialog. Readability, given a page whose
/// content is too short for it (a "page not found" notice), tries again without its
/// filter of unlikely blocks and may pick the footer's one paragraph (a newsletter
/// sign-up); such a pick is not the page. A page header or sidebar does not count: an
/// unclosed `<header>` may hold the whole page.
pub(crate) fn stripped_block<'a>(node: &NodeRef<'a>) -> Option<NodeRef<'a>> {
    node.ancestors_it(None)
        .filter(|a| a.is_element() && stripped(a, true) == Strip::Always)
        .last()
}

/// Make `a[href]` and `img[src]` absolute (readability does this itself on its path).
pub(crate) fn absolutize_links(doc: &Document, base: &url::Url) {
    // One walk in document order finds the first `<base href>` and the links and images
    // (three `select`s did, one walk each).
    let mut base_href: Option<String> = None;
    let mut targets: Vec<(NodeRef, &str)> = Vec::new();
    for node in doc.root().descendants_it() {
        let attr = match node.qual_name_ref().as_deref().map(|n| &*n.local) {
            Some("a") => "href",
            Some("img") => "src",
            Some("base") => {
                if base_href.is_none() {
                    base_href = node.attr("href").map(|h| h.to_string());
                }
                continue;
            }
            _ => continue,
        };
        if node.has_attr(attr) {
            targets.push((node, attr));
        }
    }
    let base = base_href
        .and_then(|href| base.join(href.trim()).ok())
        .unwrap_or_else(|| base.clone());
    // Pages repeat links (navigation, share buttons): each distinct one is resolved once.
    let mut resolved: std::collections::HashMap<String, Option<String>> =
        std::collections::HashMap::new();
    for (node, attr) in targets {
        let Some(value) = node.attr(attr) else {
            continue;
        };
        let value = value.trim();
        if value.starts_with('#') || value.is_empty() {
            continue;
        }
        let lower = value.to_ascii_lowercase();
        if lower.starts_with("javascript:") || lower.starts_with("data:") {
            continue;
        }
        let abs = match resolved.get(value) {
            Some(abs) => abs.clone(),
            None => {
                let abs = base.join(value).ok().map(String::from);
                resolved.insert(value.to_owned(), abs.clone());
                abs
            }
        };
        if let Some(abs) = abs {
            node.set_attr(attr, &abs);
        }
    }
}

/// `sel`'s first node written as Markdown ([`crate::content::markdown`]), tidied.
pub(crate) fn html_to_markdown(sel: &Selection) -> String {
    match sel.nodes().first() {
        Some(node) => tidy_markdown(&crate::content::markdown::to_markdown(node)),
        None => String::new(),
    }
}

/// Plain text of `sel`: list items get `- ` / `N. ` markers and table cells ` | `
/// separators before dom_query's formatted text (which keeps paragraph breaks).
pub(crate) fn selection_text(sel: &Selection, doc: &Document) -> String {
    // The elements below `sel` each step works on, found in one walk (a `select` per step
    // was a walk each, with selector matching at every element).
    let mut skipped: Vec<NodeRef> = Vec::new();
    let mut blocks: Vec<NodeRef> = Vec::new();
    let mut lists: Vec<NodeRef> = Vec::new();
    let mut items: Vec<NodeRef> = Vec::new();
    let mut cells: Vec<NodeRef> = Vec::new();
    let mut scripts: Vec<NodeRef> = Vec::new();
    let mut pres: Vec<NodeRef> = Vec::new();
    let nodes = sel.nodes();
    // A root inside another root would be walked twice (`select` counts it once).
    let mut stack: Vec<NodeRef> = nodes
        .iter()
        .filter(|n| {
            !n.ancestors_it(None)
                .any(|a| nodes.iter().any(|other| other.id == a.id))
        })
        .copied()
        .collect();
    while let Some(node) = stack.pop() {
        for child in node.children_it(false) {
            if !child.is_element() {
                continue;
            }
            let name = child.qual_name_ref().map(|n| n.local.clone());
            match name.as_deref() {
                // What the Markdown converter skips is skipped here too: not walked.
                Some(
                    "script" | "style" | "noscript" | "template" | "svg" | "canvas" | "iframe"
                    | "object" | "embed" | "video" | "audio" | "nav" | "button" | "select"
                    | "input" | "textarea" | "dialog",
                ) => {
                    skipped.push(child);
                    continue;
                }
                // dom_query breaks lines after a fixed set of block elements; the other
                // block-level containers are made to behave the same.
                Some(
                    "figure" | "figcaption" | "main" | "header" | "footer" | "aside" | "address"
                    | "details" | "summary" | "fieldset" | "legend" | "hgroup" | "dl" | "dt" | "dd"
                    | "center" | "form" | "caption",
                ) => blocks.push(child),
                Some("ol") => lists.push(child),
                Some("li") => items.push(child),
                Some("td" | "th") => cells.push(child),
                Some("sup" | "sub") => scripts.push(child),
                Some("pre") => pres.push(child),
                _ => {}
            }
            stack.push(child);
        }
    }
    for node in skipped {
        node.remove_from_parent();
    }
    mark_scripts(doc, &scripts);
    mark_code_blocks(doc, &pres);
    for node in blocks {
        node.rename("div");
    }
    for list in lists {
        let mut number = list
            .attr("start")
            .and_then(|s| s.trim().parse::<i64>().ok())
            .unwrap_or(1);
        for li in list.element_children().iter().filter(|c| c.has_name("li")) {
            li.prepend_child(&doc.tree.new_text(format!("{number}. ")));
            number = number.saturating_add(1);
        }
    }
    for li in items {
        if !li.parent().is_some_and(|p| p.has_name("ol")) {
            li.prepend_child(&doc.tree.new_text("- "));
        }
    }
    for cell in cells {
        let has_next = cell
            .next_element_sibling()
            .is_some_and(|s| s.has_name("td") || s.has_name("th"));
        if has_next {
            cell.append_child(&doc.tree.new_text(" |"));
        }
    }
    tidy_text(&sel.formatted_text())
}

/// Superscripts and subscripts marked in the tree for the text writer, as the Markdown
/// writer marks them ([`crate::content::markdown::script_affixes`]): `mc^2`, `H_2O`.
/// Skipped ones (a `sup` inside a removed element) are marked harmlessly.
pub(crate) fn mark_scripts(doc: &Document, scripts: &[NodeRef]) {
    // Every mark is decided on the text as it was, so nesting cannot change a decision.
    let marks: Vec<_> = scripts
        .iter()
        .map(|node| {
            let text = node.text();
            let before = node
                .prev_sibling()
                .filter(NodeRef::is_text)
                .and_then(|t| t.text().chars().next_back());
            crate::content::markdown::script_affixes(text.trim(), node.has_name("sup"), before)
        })
        .collect();
    for (node, mark) in scripts.iter().zip(marks) {
        let Some((open, close)) = mark.filter(|(open, _)| !open.is_empty()) else {
            continue;
        };
        node.prepend_child(&doc.tree.new_text(open));
        if !close.is_empty() {
            node.append_child(&doc.tree.new_text(close));
        }
    }
}

/// The text of each `<pre>` put between [`VERBATIM_OPEN`] and [`VERBATIM_CLOSE`], so that
/// the tidying after the text writer leaves code blocks byte for byte.
pub(crate) fn mark_code_blocks(doc: &Document, pres: &[NodeRef]) {
    // A `<pre>` inside another is part of the outer block's text.
    for pre in pres
        .iter()
        .filter(|p| !p.ancestors_it(None).any(|a| a.has_name("pre")))
    {
        pre.prepend_child(&doc.tree.new_text(VERBATIM_OPEN.to_string()));
        pre.append_child(&doc.tree.new_text(VERBATIM_CLOSE.to_string()));
    }
}
