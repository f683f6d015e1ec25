//! What a person sees on a page: hidden elements (`<template>`, `hidden`,
//! `aria-hidden="true"`, inline `display:none` / `visibility:hidden`; not the segments a
//! React page streams, which its script shows at once, nor the main content behind a
//! modal dialog, hidden from assistive technology only) are removed before
//! extraction, and [`visible_text`] is all the text a person sees, for the judge's measure.
//! A hidden element that holds a large block of text is kept for extraction (a page that
//! hides its article until a script has run) but marked, so that the judge's measure
//! leaves it out all the same.
//!
//! Whole elements only: visible text is never cut (DESIGN §12).

use std::sync::LazyLock;

use dom_query::{Document, NodeRef};
use regex::Regex;

use crate::content::parse::{guarded, parse};
use crate::content::tidy::tidy_text;

/// A hidden element holding this many readable characters or more stays: a page that
/// hides its whole article until a script has run (against a flash of unstyled content)
/// shows it to every reader with JavaScript.
pub(crate) const HIDDEN_KEEP: usize = 2000;

/// Remove what a person does not see, before extraction and before the judge measures
/// the page: `<template>`, and elements with the `hidden` attribute, `aria-hidden="true"`
/// or an inline `display:none` / `visibility:hidden` (unless they hold [`HIDDEN_KEEP`]
/// readable characters). Whole elements only: visible text is never cut (DESIGN §12).
/// Symbol runs (obfuscated JavaScript, base64) stay in the text; the judge discounts them
/// when it measures the page ([`crate::content::measure::readable_len`]).
///
/// A hidden element kept for its text is marked ([`HIDDEN_MARK`]), so that what a person
/// sees without running the page's scripts ([`seen_text`]) leaves it out; returns whether
/// there was one.
pub(crate) fn remove_unseen(doc: &Document) -> bool {
    let mut doomed: Vec<NodeRef> = Vec::new();
    let mut kept: Vec<NodeRef> = Vec::new();
    // Shown once the attribute that hides them goes (see `Hidden::Unhide`).
    let mut unhidden: Vec<(NodeRef, &str)> = Vec::new();
    let mut stack: Vec<NodeRef> = vec![doc.root()];
    while let Some(node) = stack.pop() {
        for child in node.children_it(false) {
            if !child.is_element() {
                continue;
            }
            let hidden = child
                .qual_name_ref()
                .map(|name| match &*name.local {
                    "html" | "body" => Hidden::No,
                    "template" => Hidden::Remove,
                    "div" if is_streamed_segment(&child) => Hidden::Unhide("hidden"),
                    _ => is_hidden(&child),
                })
                .unwrap_or(Hidden::No);
            match hidden {
                Hidden::Remove => doomed.push(child),
                Hidden::Keep => kept.push(child),
                Hidden::No => stack.push(child),
                Hidden::Unhide(attr) => {
                    unhidden.push((child, attr));
                    stack.push(child);
                }
            }
        }
    }
    for node in doomed {
        node.remove_from_parent();
    }
    for node in &kept {
        node.set_attr(HIDDEN_MARK, "");
    }
    for (node, attr) in &unhidden {
        node.remove_attr(attr);
    }
    !kept.is_empty()
}

/// The page's main content (`<main>` or `role="main"`), which `aria-hidden="true"` alone
/// hides from assistive technology only: the inert background of a modal dialog (eBay's
/// item page behind its consent dialog), which a person sees. Nothing else marked
/// `aria-hidden` is shown: on the 2026 corpus every other block of 2,000 characters under
/// it was a dialog, a menu or a carousel's copy.
fn is_main_content(node: &NodeRef) -> bool {
    (node.has_name("main")
        || node.attr("role").is_some_and(|r| {
            r.split_ascii_whitespace()
                .any(|r| r.eq_ignore_ascii_case("main"))
        }))
        && !node.has_attr("inert")
}

/// An inline `display:none` or `visibility:hidden`/`collapse`.
fn hidden_by_style(node: &NodeRef) -> bool {
    node.attr("style").is_some_and(|style| {
        style.split(';').any(|decl| {
            let Some((prop, value)) = decl.split_once(':') else {
                return false;
            };
            let prop = prop.trim().to_ascii_lowercase();
            let value = value.trim().to_ascii_lowercase();
            (prop == "display" && value.starts_with("none"))
                || (prop == "visibility"
                    && (value.starts_with("hidden") || value.starts_with("collapse")))
        })
    })
}

/// A segment of a page that React streams from the server: `<div hidden id="S:0">`, which
/// its script moves into the page at once, in place of `<template id="B:0">`. Every reader
/// with JavaScript sees it: it is shown (not hidden, not marked), and loses its `hidden`
/// attribute (see [`Hidden::Unhide`]).
fn is_streamed_segment(node: &NodeRef) -> bool {
    node.has_attr("hidden")
        && node.attr("id").is_some_and(|id| {
            id.strip_prefix("S:")
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_alphanumeric()))
        })
}

/// The attribute that marks a hidden element kept for its text (see [`remove_unseen`]).
pub(crate) const HIDDEN_MARK: &str = "data-vetch-hidden";

/// What [`remove_unseen`] does with an element.
pub(crate) enum Hidden {
    /// Shown: walk into it.
    No,
    /// Hidden: removed.
    Remove,
    /// Hidden, but holding a large block of text: kept as content, and marked.
    Keep,
    /// Hidden by this attribute, yet shown to every reader (a React streamed segment, the
    /// main content behind a modal dialog): shown, walked into, and the attribute dropped,
    /// or readability (which skips hidden elements as Readability.js does) would drop the
    /// page's content.
    Unhide(&'static str),
}

/// Hidden by markup (see [`remove_unseen`]): removed, or kept when it holds a large block
/// of readable text; shown when only `aria-hidden` hides the page's main content (see
/// [`is_main_content`]).
pub(crate) fn is_hidden(node: &NodeRef) -> Hidden {
    let by_aria = node
        .attr("aria-hidden")
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
    let by_markup = node.has_attr("hidden") || hidden_by_style(node);
    let marked = by_markup || by_aria;
    if by_aria && !by_markup && is_main_content(node) {
        Hidden::Unhide("aria-hidden")
    } else if !marked {
        Hidden::No
    } else if holds_readable_text(node, HIDDEN_KEEP) {
        Hidden::Keep
    } else {
        Hidden::Remove
    }
}

/// Does `node` hold `n` readable characters? Looks at no more than [`HIDDEN_PEEK`] bytes
/// of its text, so that nested hidden elements cost a bounded amount each. The text of
/// scripts and styles is no text a person reads, and is not looked at: React streams a
/// server-rendered page as `<div hidden id="S:0">` segments that its script moves into
/// place, and a segment's first 64 KiB can be the page data it carries as script.
pub(crate) fn holds_readable_text(node: &NodeRef, n: usize) -> bool {
    let mut sample = String::new();
    for d in node.descendants_it() {
        if d.is_text() && !d.parent().is_some_and(|p| is_unread(&p)) {
            let text = d.text();
            let mut end = text.len().min(HIDDEN_PEEK.saturating_sub(sample.len()));
            while end > 0 && !text.is_char_boundary(end) {
                end -= 1;
            }
            sample.push_str(text.get(..end).unwrap_or(""));
            sample.push(' ');
            if sample.len() >= HIDDEN_PEEK {
                break;
            }
        }
    }
    crate::content::measure::readable_len(&sample, n) >= n
}

/// An element whose text no reader sees as text: a script, a style, a template.
fn is_unread(node: &NodeRef) -> bool {
    node.qual_name_ref()
        .is_some_and(|name| matches!(&*name.local, "script" | "style" | "template" | "noscript"))
}

/// How much of a hidden element's text [`holds_readable_text`] looks at.
pub(crate) const HIDDEN_PEEK: usize = 64 * 1024;

/// [`visible_text`], and whether the page holds text hidden by markup that extraction
/// keeps as content ([`crate::content::extract::Extracted::hidden_content`]).
pub fn page_view(html: &str) -> Option<(String, bool)> {
    guarded(|| {
        let doc = parse(html);
        let hidden_content = remove_unseen(&doc);
        (seen_text(&doc), hidden_content)
    })
}

/// [`visible_text`] of a tree parsed and cleared of hidden elements (changes the tree).
pub(crate) fn seen_text(doc: &Document) -> String {
    use crate::content::find;
    let unseen = ["head", "script", "style", "template"];
    for node in find::named_any_or_attr(doc, &unseen, HIDDEN_MARK) {
        node.remove_from_parent();
    }
    let mut body: Vec<NodeRef> = find::named(doc, "body").collect();
    if body.is_empty() {
        body = find::named(doc, "html").collect();
    }
    tidy_text(&crate::content::formatted::formatted_text(&body))
}

/// All the text a person sees on an HTML page: the body parsed ([`page_view`]),
/// without `<head>`, scripts, styles, templates and hidden elements (`hidden`,
/// `aria-hidden="true"`, inline `display:none` / `visibility:hidden`); `<noscript>` text
/// is kept, as a no-JS reader sees it.
///
/// This is a measure for the detector (how much text does the page show?), not the
/// caller's content. Extraction may drop exactly the wall or challenge widget the detector
/// looks for, so the judge weighs markers against this whole-page text.
pub fn visible_text(html: &str) -> String {
    page_view(html)
        .map(|(text, _)| text)
        .unwrap_or_else(|| visible_text_by_regex(html))
}

/// [`visible_text`] without a parser, for when the parser failed: drops `<head>`,
/// scripts, styles and comments, turns block tags into line breaks and other tags into
/// spaces, and decodes the common entities. Hidden elements are not recognised.
fn visible_text_by_regex(html: &str) -> String {
    // Literal patterns: `fallback_patterns_compile` pins that each one does.
    static DROP: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(
            r"(?is)<head\b.*?</head\s*>|<script\b.*?</script\s*>|<style\b.*?</style\s*>|<template\b.*?</template\s*>|<!--.*?-->",
        )
        .ok()
    });
    static BLOCK: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(r"(?i)</?(?:p|div|h[1-6]|li|tr|br|section|article|header|footer|main|nav|ul|ol|table|form|button|pre|blockquote|noscript)\b[^>]*>")
            .ok()
    });
    static TAG: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"(?s)<[^>]*>").ok());
    static NUMERIC: LazyLock<Option<Regex>> =
        LazyLock::new(|| Regex::new(r"&#(x[0-9a-fA-F]+|[0-9]+);").ok());
    let (Some(drop), Some(block), Some(tag), Some(numeric)) = (&*DROP, &*BLOCK, &*TAG, &*NUMERIC)
    else {
        return String::new();
    };
    let s = drop.replace_all(html, " ");
    let s = block.replace_all(&s, "\n");
    let s = tag.replace_all(&s, " ");
    let s = numeric.replace_all(&s, |c: &regex::Captures| {
        let n = &c[1];
        let code = match n.strip_prefix('x') {
            Some(hex) => u32::from_str_radix(hex, 16).ok(),
            None => n.parse().ok(),
        };
        code.and_then(char::from_u32)
            .map(String::from)
            .unwrap_or_default()
    });
    let s = s
        .replace("&nbsp;", " ")
        .replace("&hellip;", "…")
        .replace("&bull;", "•")
        .replace("&copy;", "©")
        .replace("&ldquo;", "“")
        .replace("&rdquo;", "”")
        .replace("&rsquo;", "’")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&amp;", "&");
    s.lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fallback_patterns_compile_and_read_a_page() {
        let text = visible_text_by_regex(
            "<html><head><title>t</title></head><body><p>One &#65;</p><script>x</script>\
             <div>Two</div></body></html>",
        );
        assert_eq!(text, "One A\nTwo");
    }
}
