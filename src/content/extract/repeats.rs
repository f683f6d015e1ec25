//! Blocks the page repeats word for word: a shop renders its description once for wide
//! screens and once for narrow ones, a forum's "best answer" stands above the thread and
//! again in it, a theme writes a product's summary in a tab and again in an accordion. A
//! reader sees one of them; the writers would give both. The second copy of a block of
//! [`REPEAT_MIN_CHARS`] characters or more that appears exactly twice is removed whole
//! (DESIGN §12: whole blocks, never words).
//!
//! A block here is an element that holds text and no other block (a paragraph, a list
//! item, a heading, a `<div>` of inline text). Never looked into: code blocks (kept byte
//! for byte), tables (their rows may repeat by design) and quotes (a reply quotes the post
//! it answers). Three or more copies all stay: that is a line every card of a list
//! carries (an author's blurb under each story), not a second rendering.
//!
//! Used where a block wider than Readability's pick is written, and on a product page's
//! pick (see `crate::content::extract`).

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use dom_query::NodeRef;

use crate::content::inline::is_block_element;
use crate::content::tidy::collapse_whitespace;

/// Blocks shorter than this (whitespace collapsed) are never taken for a repeat: a label,
/// a price, a "Read more" line repeats on a page and each copy may stand where it belongs.
pub const REPEAT_MIN_CHARS: usize = 80;

/// Remove, below `root`, the second of two blocks with the same text (whitespace
/// collapsed) of [`REPEAT_MIN_CHARS`] characters or more. Returns how many were removed.
pub(crate) fn remove_repeated_blocks(root: &NodeRef) -> usize {
    let blocks: Vec<(NodeRef, String)> = leaf_blocks(root)
        .into_iter()
        .map(|b| {
            let text = collapse_whitespace(&b.text());
            (b, text)
        })
        .filter(|(_, text)| text.chars().count() >= REPEAT_MIN_CHARS)
        .collect();
    let mut count: HashMap<&str, usize> = HashMap::default();
    for (_, text) in &blocks {
        *count.entry(text.as_str()).or_default() += 1;
    }
    let mut seen: HashSet<&str> = HashSet::default();
    let mut doomed: Vec<NodeRef> = Vec::new();
    for (block, text) in &blocks {
        if count.get(text.as_str()) == Some(&2) && !seen.insert(text.as_str()) {
            doomed.push(*block);
        }
    }
    let removed = doomed.len();
    for node in doomed {
        node.remove_from_parent();
    }
    removed
}

/// The block elements below `root` (in document order) that hold no other block element,
/// outside code blocks, tables, quotes and the elements no writer prints.
fn leaf_blocks<'a>(root: &NodeRef<'a>) -> Vec<NodeRef<'a>> {
    let mut out = Vec::new();
    collect(root, &mut out);
    out
}

/// Whether `node` holds a block element; pushes the leaf blocks below it onto `out` in
/// document order. Iterative over siblings, recursive over depth (bounded by the parser,
/// see `content::parse::MAX_DEPTH`).
fn collect<'a>(node: &NodeRef<'a>, out: &mut Vec<NodeRef<'a>>) -> bool {
    let mut holds_block = false;
    for child in node.children_it(false) {
        if !child.is_element() {
            continue;
        }
        let Some(name) = child.qual_name_ref().map(|n| n.local.clone()) else {
            continue;
        };
        match &*name {
            // Never touched, never looked into: kept byte for byte or not written at all.
            "pre" | "table" | "blockquote" | "script" | "style" | "template" | "svg" | "math"
            | "textarea" => {
                holds_block |= is_block_element(&name);
                continue;
            }
            _ => {}
        }
        let block = is_block_element(&name);
        let inner = collect(&child, out);
        if block && !inner {
            // A leaf block: no block below it, so nothing below it was pushed.
            out.push(child);
        }
        holds_block |= block || inner;
    }
    holds_block
}

#[cfg(test)]
mod tests {
    use super::*;
    use dom_query::Document;

    const PARA: &str = "The Classic II keeps the hex hands and the unibody case of the first \
                        watch, in brushed and polished steel.";

    /// The body's text after [`remove_repeated_blocks`], and how many blocks went.
    fn deduped(body: &str) -> (String, usize) {
        let doc = Document::from(format!("<html><body>{body}</body></html>").as_str());
        let sel = doc.select("body");
        let removed = remove_repeated_blocks(sel.nodes().first().expect("a body"));
        let text = sel
            .formatted_text()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        (text, removed)
    }

    #[test]
    fn a_block_written_for_two_screens_is_written_once() {
        let body = format!(
            "<div class=desktop><h2>Description</h2><p>{PARA}</p></div>\
             <div class=mobile><details><summary>Description</summary>\
             <div>{PARA}</div></details></div><p>Free shipping over $75.</p>"
        );
        let (text, removed) = deduped(&body);
        assert_eq!(removed, 1, "{text}");
        assert_eq!(text.matches("hex hands").count(), 1, "{text}");
        // The first copy stays where it stood, and short repeated lines stay.
        assert!(text.starts_with("Description The Classic II"), "{text}");
        assert_eq!(text.matches("Description").count(), 2, "{text}");
        assert!(text.ends_with("Free shipping over $75."), "{text}");
    }

    #[test]
    fn repeats_that_are_the_page_stay() {
        // Three or more copies: a template's line in each card of a list.
        let cards = format!("<ul><li><h3>A</h3><p>{PARA}</p></li><li><h3>B</h3><p>{PARA}</p></li><li><h3>C</h3><p>{PARA}</p></li></ul>");
        assert_eq!(deduped(&cards).1, 0);
        // A quote of an earlier post, code, and a table's cells.
        for twice in [
            format!("<p>{PARA}</p><blockquote><p>{PARA}</p></blockquote>"),
            format!("<pre><code>{PARA}</code></pre><pre><code>{PARA}</code></pre>"),
            format!("<table><tr><td>{PARA}</td></tr><tr><td>{PARA}</td></tr></table>"),
            // Shorter than a block worth comparing.
            "<p>Only a few left in stock, order soon.</p><p>Only a few left in stock, order soon.</p>".to_owned(),
        ] {
            let (text, removed) = deduped(&twice);
            assert_eq!(removed, 0, "{twice}: {text}");
        }
        // A block holding another block is not compared whole: its paragraphs are.
        let nested = format!("<div><p>{PARA}</p>tail one</div><div><p>{PARA}</p>tail two</div>");
        let (text, removed) = deduped(&nested);
        assert_eq!(removed, 1, "{text}");
        assert!(
            text.contains("tail one") && text.contains("tail two"),
            "{text}"
        );
    }
}
