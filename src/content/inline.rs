//! Inline and block elements: which elements are blocks (`is_block_element`, CommonMark's
//! list, used by the writers and the DOM redaction), and runs of adjacent inline siblings
//! that read as one (`<b>x</b><b>y</b>`), merged in place: the preparation does it for
//! crowded parents (a linear defence against html5ever's quadratic serializer), the
//! Markdown writer before it walks.

use dom_query::NodeRef;

/// Merge runs of adjacent inline siblings that read as one (same tag, same attributes, one
/// text child each: `<b>x</b><b>y</b>` is `**xy**`), on dom_query's linked tree: linear.
/// (htmd, the converter before the writer, merged them in a `Vec` of siblings, which was
/// quadratic: 200 000 sibling `<b>`s took 3.4 s.) Used by the preparation for crowded
/// parents and by the Markdown writer before it walks.
pub(crate) fn merge_inline_runs(parent: &NodeRef) {
    let children = parent.children();
    let mut run: Option<(NodeRef, String)> = None;
    for child in children {
        if let Some((first, text)) = run.as_mut() {
            if mergeable(first, &child) {
                text.push_str(&child.text());
                child.remove_from_parent();
                continue;
            }
        }
        if let Some((first, text)) = run.take() {
            first.set_text(text);
        }
        if single_text_inline(&child) {
            let text = child.text().to_string();
            run = Some((child, text));
        }
    }
    if let Some((first, text)) = run {
        first.set_text(text);
    }
}

/// An inline element (not a block, not a link) whose only child is text.
pub(crate) fn single_text_inline(node: &NodeRef) -> bool {
    let inline = node.qual_name_ref().is_some_and(|name| {
        let tag = &*name.local;
        !(tag == "a" || tag == "template" || is_block_element(tag))
    });
    inline
        && node
            .first_child()
            .is_some_and(|c| c.is_text() && c.next_sibling().is_none())
}

/// The rule for merging two adjacent inline siblings (htmd's, kept by the writer).
pub(crate) fn mergeable(first: &NodeRef, next: &NodeRef) -> bool {
    if !single_text_inline(next) {
        return false;
    }
    let same_tag = match (first.qual_name_ref(), next.qual_name_ref()) {
        (Some(a), Some(b)) => {
            a.local == b.local
                || matches!(
                    (&*a.local, &*b.local),
                    ("i", "em") | ("em", "i") | ("b", "strong") | ("strong", "b")
                )
        }
        _ => false,
    };
    same_tag && first.attrs() == next.attrs()
}

/// Replace an element by its children.
pub(crate) fn unwrap_element(node: &NodeRef) {
    if let Some(first) = node.first_child() {
        node.insert_siblings_before(&first);
    }
    node.remove_from_parent();
}

/// The CommonMark block elements (what htmd treats as blocks).
pub(crate) fn is_block_element(tag: &str) -> bool {
    matches!(
        tag,
        "address"
            | "article"
            | "aside"
            | "base"
            | "basefont"
            | "blockquote"
            | "body"
            | "caption"
            | "center"
            | "col"
            | "colgroup"
            | "dd"
            | "details"
            | "dialog"
            | "dir"
            | "div"
            | "dl"
            | "dt"
            | "fieldset"
            | "figcaption"
            | "figure"
            | "footer"
            | "form"
            | "frame"
            | "frameset"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "head"
            | "header"
            | "hr"
            | "html"
            | "iframe"
            | "legend"
            | "li"
            | "link"
            | "main"
            | "menu"
            | "menuitem"
            | "nav"
            | "noframes"
            | "ol"
            | "optgroup"
            | "option"
            | "p"
            | "param"
            | "pre"
            | "script"
            | "search"
            | "section"
            | "style"
            | "summary"
            | "table"
            | "tbody"
            | "td"
            | "textarea"
            | "tfoot"
            | "th"
            | "thead"
            | "title"
            | "tr"
            | "track"
            | "ul"
    )
}
