//! Content extraction: turn a decoded response body into what the caller receives.
//!
//! HTML goes through three steps:
//!
//! 1. **Parse and prepare** ([`dom_query`], html5ever underneath). The `<title>` is read.
//!    Cookie/consent banners are dropped. Every `<pre>` gets one `<code>` carrying a
//!    `language-X` class when the page names the language in one of the usual ways
//!    (`language-X`, `lang-X`, `highlight-source-X`, Sphinx `highlight-X`, `brush: X`,
//!    `data-lang`, GitHub's `<pre lang>`). Data tables are reshaped so that the writer keeps
//!    every cell (first row as header, row headers kept, `colspan` padded). Link noise
//!    goes: tooltips, permalink markers (`¶`), self-links wrapped around headings.
//!    Boilerplate blocks are pruned ([`crate::content::boilerplate`]).
//! 2. **Select** the main content with [`crate::content::readability`] (dom_smoothie's port of
//!    Mozilla's Readability, in the tree),
//!    and keep the page's own `<h1>` as the heading on top of Markdown
//!    ([`crate::content::headline`]; plain text is the body, its title is the receipt's). When readability
//!    fails, finds fewer than [`MIN_ARTICLE_CHARS`] visible characters, or the page is
//!    larger than [`READABILITY_MAX_BYTES`], the whole `<body>` is used instead, minus
//!    scripts, styles, navigation, page headers/footers, sidebars, dialogs and form controls.
//! 3. **Render** the selection, on the same tree (no serialising and parsing again), as
//!    Markdown with [`crate::content::markdown`] (ATX headings, `-` lists, inline links,
//!    fenced code blocks with their language, compact pipe tables) or as plain text
//!    (paragraph breaks kept, list items prefixed with `- ` / `N. `, table cells separated
//!    by ` | `). Outside code blocks, runs of blank lines collapse to one; ends are trimmed.
//!
//! JSON is re-indented (two spaces) without being re-encoded, so numbers, key order and
//! duplicate keys survive exactly. Other text is returned as it is.
//!
//! # Robustness
//!
//! Nothing here may panic on any input. The HTML crates are not written against hostile
//! markup, so every call into them runs under [`std::panic::catch_unwind`] and a panic
//! falls back to the next cheaper strategy (whole body, then the body's plain text, then
//! the body as it came). This relies on `panic = "unwind"`, which the release profile
//! keeps. A stack overflow cannot be caught, so nesting is bounded before anything
//! recursive runs ([`crate::content::parse::MAX_DEPTH`]), and the inputs that make html5ever quadratic
//! (deep nesting, long runs of sibling inline elements) are defused first: every step is
//! linear in the size of the page.
//!
//! `dom_smoothie`'s `Readability` and `Article` are not `Send`: everything here is
//! synchronous and keeps them local. [`extract`] is CPU-bound (tens of milliseconds per
//! MB of HTML), so async callers should run it in `tokio::task::spawn_blocking`.

mod answers;
mod json;
mod kinds;
#[cfg(test)]
mod kinds_tests;
mod posts;
mod prepare;
mod product;
mod render;
mod repeats;
mod tabs;
#[cfg(test)]
mod tests;

use dom_query::{Document, NodeRef, Selection};

use crate::content::boilerplate::{Comments, Root, ROOT_MARK};
use crate::content::cancel::cancelled;
use crate::content::parse::{guarded, parse};
use crate::content::readability::{
    has_text, normalized_chars_reach, Article, Config, ParsePolicy, Readability,
};
use crate::content::tidy::{has_visible_chars, tidy_markdown, tidy_text, visible_chars};
use crate::content::visible::{remove_unseen, seen_text};
use crate::model::kinds::{BodyKind, ExtractMode};
use crate::redact::Redactor;

use json::pretty_json;
pub use json::{max_pretty_len, MAX_JSON_DEPTH};
use prepare::{page_title, prepare, Shape};
use render::{absolutize_links, html_to_markdown, selection_text, strip_boilerplate};

/// The result of [`extract`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Extracted {
    /// The content handed to the caller.
    pub text: String,
    /// The page's `<title>`, whitespace-collapsed and trimmed; `None` when absent or empty
    /// (always `None` for JSON and other text).
    pub title: Option<String>,
    /// All the text a person sees on the page ([`crate::content::visible::visible_text`]), measured on the tree
    /// parsed for extraction. Only from [`extract_redacted`], only for HTML pages of up
    /// to [`SEEN_TREE_MAX_BYTES`] whose `text` is short (fewer than
    /// [`JUDGE_SHORT_TEXT`] + 1 visible characters, the case where the judge needs it);
    /// otherwise `None`, and a caller that needs it calls [`crate::content::visible::visible_text`].
    pub visible: Option<String>,
    /// Some element hidden by markup was kept as content because it holds a large block
    /// of text (a page that hides its article until a script has run, see
    /// `crate::content::visible`). `visible` never holds that text: the judge then needs the
    /// page's visible text whatever the length of `text`, since hidden prose must not make
    /// a challenge page look like an article.
    pub hidden_content: bool,
}

/// The judge weighs interstitial markers against all the visible text of a page only
/// when the extracted text has at most this many non-whitespace characters.
pub const JUDGE_SHORT_TEXT: usize = 4000;

/// When readability's selection has fewer visible characters than this, the whole body
/// is converted instead.
pub const MIN_ARTICLE_CHARS: usize = 200;

/// Bodies larger than this skip readability and convert the whole body directly.
/// Readability is linear too, but costs about 60% more than the conversion itself
/// (5 MB: ~330 ms with it, ~200 ms without, release build on 2 cores), and pages this
/// large are rarely single articles.
pub const READABILITY_MAX_BYTES: usize = 3 * 1024 * 1024;

/// Pages up to this size keep a copy of their tree as parsed (before redaction and
/// preparation) to measure what a person sees ([`Extracted::visible`]); for larger ones a
/// caller that needs it parses the page again.
pub const SEEN_TREE_MAX_BYTES: usize = 256 * 1024;

/// Turn a decoded body into what the caller receives.
///
/// - `Auto`/`Markdown` on HTML: readability-style main content converted to Markdown
///   (headings, lists, links, fenced code blocks with their language, tables); the whole
///   `<body>` (minus boilerplate) when readability finds too little or fails.
/// - `Text` on HTML: the same selection as plain text (paragraph breaks kept).
/// - JSON in any mode but `Raw`: pretty-printed if it parses, else as is.
/// - `Raw`: the body untouched (the title is still extracted for HTML).
/// - Other text: as is.
///
/// `base_url` (absolute http/https) is used to make relative links and image sources
/// absolute; anything else is ignored.
pub fn extract(body: &str, kind: BodyKind, mode: ExtractMode, base_url: Option<&str>) -> Extracted {
    extract_with_limit(body, kind, mode, base_url, READABILITY_MAX_BYTES)
}

/// [`extract`], with every text run and printable attribute value of an HTML page redacted
/// on the parsed tree before Markdown or text is written (see [`crate::content::dom_redact`]), so
/// no escape or markup the writers add can split a token. The caller still redacts the
/// result (raw bodies, JSON and other text are not touched here).
pub fn extract_redacted(
    body: &str,
    kind: BodyKind,
    mode: ExtractMode,
    base_url: Option<&str>,
    redactor: &Redactor,
) -> Extracted {
    match kind {
        BodyKind::Html => {
            let limit = READABILITY_MAX_BYTES;
            extract_html(body, mode, base_url, limit, Some(redactor), true)
        }
        _ => extract(body, kind, mode, base_url),
    }
}

/// [`extract`] with a different size limit for readability (for benchmarks and tests).
#[doc(hidden)]
pub fn extract_with_limit(
    body: &str,
    kind: BodyKind,
    mode: ExtractMode,
    base_url: Option<&str>,
    readability_max_bytes: usize,
) -> Extracted {
    match kind {
        BodyKind::Html => extract_html(body, mode, base_url, readability_max_bytes, None, false),
        BodyKind::Json => {
            let text = match mode {
                ExtractMode::Raw => body.to_owned(),
                _ => pretty_json(body).unwrap_or_else(|| body.to_owned()),
            };
            Extracted {
                text,
                title: None,
                visible: None,
                hidden_content: false,
            }
        }
        BodyKind::OtherText => Extracted {
            text: body.to_owned(),
            title: None,
            visible: None,
            hidden_content: false,
        },
    }
}

/// Cheap sniff: does this text look like HTML?
///
/// True when the text (after a BOM and leading whitespace) starts with `<` and one of
/// `<!doctype html`, `<html`, `<head` or `<body` appears in its first 1024 bytes, in any
/// letter case.
pub fn looks_like_html(body: &str) -> bool {
    let start = body.trim_start_matches('\u{feff}').trim_start();
    if !start.starts_with('<') {
        return false;
    }
    let bytes = start.as_bytes();
    let prefix = bytes[..bytes.len().min(1024)].to_ascii_lowercase();
    ["<!doctype html", "<html", "<head", "<body"]
        .iter()
        .any(|marker| contains_tag(&prefix, marker.as_bytes()))
}

/// `marker` occurs in `hay` followed by a tag-name boundary (whitespace, `>`, `/` or the end).
fn contains_tag(hay: &[u8], marker: &[u8]) -> bool {
    hay.windows(marker.len())
        .enumerate()
        .filter(|(_, w)| *w == marker)
        .any(|(i, _)| match hay.get(i + marker.len()) {
            None => true,
            Some(b) => b.is_ascii_whitespace() || *b == b'>' || *b == b'/',
        })
}

fn extract_html(
    body: &str,
    mode: ExtractMode,
    base_url: Option<&str>,
    readability_max_bytes: usize,
    redactor: Option<&Redactor>,
    want_visible: bool,
) -> Extracted {
    if mode == ExtractMode::Raw {
        // The title only needs the head: parse up to the end of it, not the whole page.
        let head = head_prefix(body);
        let title = guarded(|| page_title(&parse(head))).flatten();
        return Extracted {
            text: body.to_owned(),
            title,
            visible: None,
            hidden_content: false,
        };
    }
    let text_mode = mode == ExtractMode::Text;
    let base = base_url.and_then(absolute_http_url);

    // Parsing and preparing the document: html5ever is robust, but guard it anyway.
    // What a person sees is measured on a copy taken before redaction and preparation
    // (exactly what `visible_text` would parse), when the page is small enough for the
    // copy to be cheap; it is only read if the extracted text turns out short.
    let keep_seen = want_visible && body.len() <= SEEN_TREE_MAX_BYTES;
    let Some(Prepared {
        doc,
        title,
        seen,
        shape,
        hidden_content,
        root,
    }) = guarded(|| parse_prepared_seen(body, redactor, keep_seen))
    else {
        // Nothing we could parse: return the body as it came (still trimmed and tidied).
        return Extracted {
            text: tidy_text(body),
            title: None,
            visible: None,
            hidden_content: false,
        };
    };
    if cancelled() {
        return Extracted::default();
    }

    // Making links absolute copies the base into every link: with a long base and many
    // short links (`<a href=a>b</a>`) the output would grow far past the body.
    let base = base.filter(|b| {
        b.as_str().len() <= 256
            || doc
                .select("a[href], img[src]")
                .length()
                .saturating_mul(b.as_str().len())
                <= LINK_BUDGET
    });

    if body.len() > readability_max_bytes {
        // Too large for readability: convert the whole body of the document in hand.
        let base = base.as_ref();
        if shape.product {
            keep_declared_description(&doc);
        }
        let whole = guarded(move || whole_body(doc, base, text_mode));
        let text = whole.unwrap_or_else(|| last_resort_text(body));
        return Extracted {
            text,
            title,
            visible: None,
            hidden_content,
        };
    }

    // dom_smoothie is a large heuristic code base; a panic in it on odd markup must not
    // take the process down, so it runs under catch_unwind and we fall back.
    let base = base.as_ref();
    // Readability consumes (and mutates) the tree. Every page keeps a copy of its prepared
    // tree: the rules that widen readability's pick read it (a thread's posts, a tab group,
    // a product's body, the content root: see `wider_root`), and so does the whole-body
    // fallback. The copy costs a fraction of parsing (about 1% of a page's extraction).
    // It used to be kept only for pages up to 256 KB (and a shop's or a Q&A page), so
    // 43% of the 2026 corpus's pages were never widened, and a large page that needed
    // Readability's full run or the fallback was parsed again.
    let spare = doc.clone();
    if shape.product {
        keep_declared_description(&spare);
    }
    // Readability's full run needs the prepared tree again (see `readable`): a copy of the
    // spare.
    let again = || spare.clone();
    // Plain text is the page's body: its title is the receipt's `title`, so the headline
    // goes on top only in Markdown, or when the page has no title (see `with_headline`).
    let top = Top {
        text_mode,
        headline: !text_mode || title.is_none(),
    };
    let mut article = guarded(|| readable(doc, base, top, shape, again)).flatten();
    let mut spare = Some(spare);
    if cancelled() {
        return Extracted::default();
    }
    let mut in_boilerplate = false;
    if let Some(found) = article.as_mut() {
        if has_visible_chars(&found.text, MIN_ARTICLE_CHARS) {
            // A pick in a block the whole-body fallback removes (a page footer) is not the
            // page: unless a rule below widens it, the whole body is written instead, from
            // a copy of the tree taken before those rules change it.
            in_boilerplate = picked_in_boilerplate(spare.as_ref(), found);
            let fallback = in_boilerplate.then(|| spare.clone()).flatten();
            let wider = spare
                .take()
                .and_then(|spare| guarded(|| wider_root(spare, root, shape, found, base, top)))
                .flatten();
            if wider.is_some() || !in_boilerplate {
                // The pick's text itself, not a copy (a page's worth of text).
                let text = wider.unwrap_or_else(|| std::mem::take(&mut found.text));
                let visible = seen_if_needed(seen, &text, hidden_content);
                return Extracted {
                    text,
                    title,
                    visible,
                    hidden_content,
                };
            }
            spare = fallback;
        }
    }
    let article = article.filter(|_| !in_boilerplate).map(|a| a.text);

    // Fallback: the whole body, minus boilerplate, from the spare tree (every path above
    // leaves it in place; the page is parsed again only if one did not).
    let whole = guarded(|| {
        let doc = spare.unwrap_or_else(|| parse_prepared(body, redactor).0);
        whole_body(doc, base, text_mode)
    });
    let text = match (whole, article) {
        // Readability's pick was too small to trust; the whole body wins unless stripping
        // the boilerplate left it with less than half of that.
        (Some(w), Some(a)) => {
            if visible_chars(&w) * 2 >= visible_chars(&a) {
                w
            } else {
                a
            }
        }
        (Some(w), None) => w,
        (None, Some(a)) => a,
        (None, None) => last_resort_text(body),
    };
    let visible = seen_if_needed(seen, &text, hidden_content);
    Extracted {
        text,
        title,
        visible,
        hidden_content,
    }
}

/// On a product page, the blocks around the description its JSON-LD declares are made
/// ordinary blocks of the tree that the body is written from (see
/// [`product::unhide_description`]): a drawer that holds it is not boilerplate.
fn keep_declared_description(doc: &Document) {
    if let Some(description) = product::declared_description(doc) {
        product::unhide_description(doc, &description, |n| {
            render::stripped_outside_content(n)
                || crate::content::boilerplate::is_aside(n)
                || n.has_attr(crate::content::boilerplate::MARK)
        });
    }
}

/// Whether readability's pick lies in a block that [`strip_boilerplate`] removes wherever
/// it stands (see [`render::stripped_block`]): the block holding the pick's first text in
/// the kept copy of the tree holds at least as much text as the pick (a pick that only
/// begins there is wider than it). `false` when no copy was kept (a large page) or the
/// text is not found.
fn picked_in_boilerplate(spare: Option<&Document>, found: &Readable) -> bool {
    let (Some(spare), Some(anchor)) = (spare, found.anchor.as_deref()) else {
        return false;
    };
    tabs::anchor_text(spare, anchor)
        .and_then(|text| render::stripped_block(&text))
        .is_some_and(|block| kinds::text_chars(&block) >= found.picked)
}

/// The visible text of the kept copy, when the judge needs it: the extracted `text` is
/// short, or holds text hidden by markup (see [`Extracted::hidden_content`]).
fn seen_if_needed(seen: Option<Document>, text: &str, hidden_content: bool) -> Option<String> {
    let seen = seen.filter(|_| hidden_content || !has_visible_chars(text, JUDGE_SHORT_TEXT + 1))?;
    guarded(|| seen_text(&seen))
}

/// When both converters panicked: html5ever's text of the body, or the body itself.
fn last_resort_text(body: &str) -> String {
    guarded(|| {
        let doc = parse(body);
        tidy_text(&doc.select("body").text())
    })
    .unwrap_or_else(|| tidy_text(body))
}

/// Readability's selection rendered in the requested form; `None` when it finds nothing.
///
/// `again` gives the same prepared tree as `doc` once more, for the rare page that needs
/// readability's full run (see [`readability_article`]). The pick is measured for
/// [`wider_root`] ([`Readable::picked`], [`Readable::anchor`]).
fn readable(
    doc: Document,
    base: Option<&url::Url>,
    top: Top,
    shape: Shape,
    again: impl FnOnce() -> Document,
) -> Option<Readable> {
    // Read before readability renames it to <h2> (see `content::headline`).
    let page_h1 = crate::content::headline::page_h1(&doc);
    let Selected {
        readability,
        article,
        root,
        ..
    } = readability_article(doc, base, shape, again)?;
    // The article is a subtree of readability's own document: it is read and written from
    // there (readability no longer serialises it).
    let doc = &readability.doc;
    let root_node = NodeRef::new(root, &doc.tree);
    if !has_text(&root_node) {
        return None;
    }
    crate::content::boilerplate::remove_marked(doc);
    // Measured on the tree, not on what is written: the same in every mode (Markdown's
    // link targets and syntax made a pick look larger than in plain text).
    let picked = kinds::text_chars(&root_node);
    let anchor = tabs::anchor_of(&root_node, ANCHOR_CHARS);
    // A shop writes blocks twice, for wide and narrow screens, in the pick as well (see
    // `repeats`); on other pages the pick is written as it stands.
    if shape.product {
        repeats::remove_repeated_blocks(&root_node);
    }
    let root = Selection::from(root_node);
    let body = if top.text_mode {
        selection_text(&root, doc)
    } else {
        html_to_markdown(&root)
    };
    let text = with_headline(body, &article.title, page_h1.as_deref(), top);
    Some(Readable {
        text,
        title: article.title,
        page_h1,
        picked,
        anchor,
    })
}

/// Readability's pick beside a list root ([`Root::list`]) is the list's introduction when
/// it has fewer visible characters than this (Readability's own threshold for an
/// article); else it stands.
pub const LIST_INTRO: usize = 500;

/// Readability's pick stands when it holds this share (in percent) of the content root's
/// weight (see [`wider_root`]).
pub const WIDER_SHARE: usize = 60;

/// What [`readable`] wrote, and what [`wider_root`] needs to know of it.
struct Readable {
    text: String,
    title: String,
    page_h1: Option<String>,
    /// Visible characters of readability's pick, counted on the tree (for [`wider_root`]).
    picked: usize,
    /// The pick's first text of [`ANCHOR_CHARS`] visible characters or more, whitespace
    /// collapsed (see [`tabs::mark_group_of`],
    /// [`posts::mark_thread_of`], and [`wider_root`] on a product page).
    anchor: Option<String>,
}

/// The length of the text that finds Readability's pick in the copy of the tree (see
/// [`Readable::anchor`]): a sentence, not a label that a page repeats.
const ANCHOR_CHARS: usize = 40;

/// How a selection is written and topped (see [`with_headline`]).
#[derive(Debug, Clone, Copy)]
struct Top {
    /// Plain text, else Markdown.
    text_mode: bool,
    /// Put the headline on top: always in Markdown (the document's `# Headline`); in plain
    /// text only when the page has no `<title>`. Plain text is the page's body, as both
    /// reference corpora and trafilatura define it: the title is the receipt's `title`.
    headline: bool,
}

/// The page's `<h1>` on top of `body` (see [`crate::content::headline`]), when `top` asks
/// for it; else `body` as readability left it (its own `<h1>` kept where it stands).
fn with_headline(body: String, title: &str, page_h1: Option<&str>, top: Top) -> String {
    if !top.headline {
        return body;
    }
    crate::content::headline::headline_on_top(
        body,
        title,
        page_h1,
        top.text_mode,
        // Escaped the way the writer escapes the body text.
        |h| tidy_markdown(&crate::content::markdown::heading(h, 1)),
    )
}

/// The page's content root ([`crate::content::boilerplate`] marks it: the deepest element
/// holding 80% of the page's content weight) written instead of readability's pick, when
/// the pick holds less than [`WIDER_SHARE`] percent of the root's weight: readability scores
/// containers one by one, and on a page split into sibling sections, page-builder widgets,
/// or a category's text beside its product grid, the best container is one part; and it
/// drops whole blocks whose names merely contain `widget` (every Elementor widget).
/// The root is written like the whole-body fallback, and without the blocks that are never
/// content ([`crate::content::boilerplate::is_aside`]); `None` when the pick stands.
/// Before that, a pick that is one panel of a tab group ([`tabs`]) becomes the group; and
/// then, on a product page, a pick with less than [`product::PRODUCT_SHARE`] percent of
/// the body (without its boilerplate) becomes the body ([`product`]).
fn wider_root(
    spare: Document,
    root: Option<Root>,
    shape: Shape,
    found: &Readable,
    base: Option<&url::Url>,
    top: Top,
) -> Option<String> {
    // A pick in one panel of a tab group: the group (see `tabs`).
    let group = |group: Option<NodeRef>, mark: &str| {
        // A form in a panel or under posts is where a reader writes a review or a reply.
        Selection::from(group?).select("form").remove();
        write_marked(&spare, mark, found.picked, found, base, top)
    };
    // Only a page whose preparation marked tab panels has a group (a search of the whole
    // tree for the marks found none on the others).
    if let Some(anchor) = found.anchor.as_ref().filter(|_| shape.tabs) {
        let tab_group = tabs::mark_group_of(&spare, anchor, found.picked);
        if let Some(text) = group(tab_group, tabs::GROUP_MARK) {
            return Some(text);
        }
    }
    if shape.product {
        if let Some(body) = spare.select_single("body").nodes().first() {
            body.set_attr(product::PRODUCT_MARK, "");
            let least = found.picked.saturating_mul(100) / product::PRODUCT_SHARE;
            // The body without its boilerplate must still hold the pick: a shop may name
            // the block of its description tabs a "menu".
            let written = write_marked(&spare, product::PRODUCT_MARK, least, found, base, top)
                .filter(|_| {
                    found
                        .anchor
                        .as_ref()
                        .is_none_or(|a| tabs::holds_anchor(body, a))
                });
            if let Some(text) = written {
                return Some(text);
            }
            // A pick large against the body, in the reviews (one shop's page is mostly its
            // reviews): the body without them (see `product::reviews_holding`).
            let reviews = found
                .anchor
                .as_ref()
                .and_then(|a| product::reviews_holding(&spare, a, found.picked));
            if let Some(reviews) = reviews {
                reviews.remove_from_parent();
                let least = MIN_ARTICLE_CHARS;
                let mark = product::PRODUCT_MARK;
                if let Some(text) = write_marked(&spare, mark, least, found, base, top) {
                    return Some(text);
                }
            }
        }
    }
    // A pick in a question that has answers, or in one of its answers: the question with
    // its answers (see `answers`).
    if let Some(anchor) = found.anchor.as_ref().filter(|_| shape.question) {
        let question = answers::mark_question_of(&spare, anchor, found.picked);
        if let Some(text) = group(question, answers::QUESTION_MARK) {
            return Some(text);
        }
    }
    // A pick in one post of a thread: the thread (see `posts`).
    if let Some(anchor) = &found.anchor {
        let thread = posts::mark_thread_of(&spare, anchor, found.picked);
        if let Some(text) = group(thread, posts::THREAD_MARK) {
            return Some(text);
        }
    }
    let Root { weight, list } = root?;
    let picked = found.picked;
    if picked.saturating_mul(100) >= weight.saturating_mul(WIDER_SHARE) {
        return None;
    }
    // Beside a list, only a short text is its introduction; a longer one is an article
    // with a list of other stories under it ("Read more", "Most read").
    if list && picked >= LIST_INTRO {
        return None;
    }
    if found
        .anchor
        .as_ref()
        .is_some_and(|a| !root_holds_pick(&spare, a))
    {
        return None;
    }
    write_marked(&spare, ROOT_MARK, picked, found, base, top)
}

/// Whether the content root of `spare` ([`ROOT_MARK`]) is around Readability's pick,
/// found by its first sentence `anchor` (see [`Readable::anchor`]). Wider means around
/// the pick: a root beside it is another block (a gallery of 50 captioned slides next to
/// the article). A pick whose sentence is nowhere in the body (Readability read it where
/// the copy of the tree has nothing, or changed its spacing) cannot be placed, and the
/// root stands, as it did before this check.
fn root_holds_pick(spare: &Document, anchor: &str) -> bool {
    let holds = |sel: &str| {
        let found = spare.select_single(sel);
        found
            .nodes()
            .first()
            .is_some_and(|n| tabs::holds_anchor(n, anchor))
    };
    holds(&format!("[{ROOT_MARK}]")) || !holds("body")
}

/// The element of `spare` marked `mark`, written like the whole-body fallback, without the
/// blocks that are never content ([`crate::content::boilerplate::is_aside`]); `None` when
/// it is missing or holds no more than `least` visible characters (counted on the tree,
/// as readability's pick is). The steps before writing can be repeated: a second call on
/// the same tree finds nothing more to remove, and absolute links stay as they are.
fn write_marked(
    spare: &Document,
    mark: &str,
    least: usize,
    found: &Readable,
    base: Option<&url::Url>,
    top: Top,
) -> Option<String> {
    crate::content::boilerplate::remove_marked(spare);
    strip_boilerplate(spare);
    if let Some(base) = base {
        absolutize_links(spare, base);
    }
    let root = spare.select_single(&format!("[{mark}]"));
    let node = root.nodes().first()?;
    // A shop's reviews named as comments are the product's (see `product`).
    let comments = if mark == product::PRODUCT_MARK {
        Comments::Reviews
    } else {
        Comments::Aside
    };
    crate::content::boilerplate::remove_asides(node, comments);
    if kinds::text_chars(node) <= least {
        return None;
    }
    repeats::remove_repeated_blocks(node);
    let body = if top.text_mode {
        selection_text(&root, spare)
    } else {
        html_to_markdown(&root)
    };
    Some(with_headline(
        body,
        &found.title,
        found.page_h1.as_deref(),
        top,
    ))
}

/// The readability configuration: the defaults, but classes are kept (so that
/// `language-X` on code blocks reaches the writer) and the text measured is `Raw` (it is
/// only used to check that the selection is not empty; Raw is the cheapest).
fn readability_config() -> Config {
    Config {
        keep_classes: true,
        ..Config::default()
    }
}

/// Readability's article, exactly as `Readability::parse` finds it, with the readability
/// (whose tree holds the article) and the article's root node (`#readability-page-1`).
///
/// `parse` makes up to four attempts, each on a fresh copy of the tree: it copies the
/// tree before the first one, and keeps the first attempt whose article (then, before
/// post-processing) has `char_threshold` (500) normalized characters or more. Most pages
/// pass at the first attempt, so the copy is wasted, and the measure is one more walk
/// over the article's text. `parse_with_policy(Strict)` makes that same first attempt
/// (same flags, same tree, same metadata) without the copy and then does the same
/// post-processing; what is left is to know whether the first attempt passed, on the
/// post-processed article. Post-processing only deletes text (unwrapping a `<div>` drops
/// its other children; removing empty links and elements), which cannot raise the
/// normalized count, except when it moves a `<td>`'s content to the end of its parent
/// (a `<td>` whose row readability renamed), which changes at most five whitespace
/// boundaries (three joins, the start, the end): at most +5 per cell, and readability
/// creates no cells. So when the post-processed article has `char_threshold + 5 × cells`
/// characters, the first attempt passed and `parse` would have returned this very
/// article; otherwise (and when the page names an element `readability-page-1` itself,
/// which would make the article's root ambiguous) the full `parse` runs on `again()`.
fn readability_article(
    doc: Document,
    base: Option<&url::Url>,
    shape: Shape,
    again: impl FnOnce() -> Document,
) -> Option<Selected> {
    // `base` is an absolute http(s) URL, which is all dom_smoothie checks for.
    let url = base.map(url::Url::as_str);
    let mut cfg = readability_config();
    // Readability looks for JSON-LD (its metadata, the title) by matching every node of
    // the page against `script[type="application/ld+json"]`, and finds nothing on most
    // pages: when none of the page's scripts can match (`again()` is the same tree), the
    // search is skipped, and readability does what it does when it finds none.
    cfg.disable_json_ld = !crate::content::find::has_json_ld(&doc);
    if !shape.page_id {
        let threshold = cfg
            .char_threshold
            .saturating_add(shape.cells.saturating_mul(5));
        let mut readability = Readability::with_document(doc, url, Some(cfg.clone())).ok()?;
        if let Ok(article) = readability.parse_with_policy(ParsePolicy::Strict) {
            let root = readability
                .doc
                .select_single("#readability-page-1")
                .nodes()
                .first()
                .map(|n| n.id);
            if let Some(root) = root {
                if normalized_chars_reach(&NodeRef::new(root, &readability.doc.tree), threshold) {
                    return Some(Selected {
                        readability,
                        article,
                        root,
                        full_run: false,
                    });
                }
            }
        }
        if cancelled() {
            return None;
        }
        return full_parse(again(), url, cfg);
    }
    full_parse(doc, url, cfg)
}

/// What [`readability_article`] found.
struct Selected {
    /// Its tree holds the article.
    readability: Readability,
    article: Article,
    /// The article's root (`#readability-page-1`).
    root: dom_query::NodeId,
    /// Whether the full `parse` ran (else the single attempt was enough).
    #[cfg_attr(not(test), allow(dead_code))]
    full_run: bool,
}

/// `Readability::parse` on `doc` (see [`readability_article`]).
fn full_parse(doc: Document, url: Option<&str>, cfg: Config) -> Option<Selected> {
    let mut readability = Readability::with_document(doc, url, Some(cfg)).ok()?;
    let article = readability.parse().ok()?;
    let root = readability
        .doc
        .select_single("#readability-page-1")
        .nodes()
        .first()
        .map(|n| n.id)?;
    Some(Selected {
        readability,
        article,
        root,
        full_run: true,
    })
}

/// The whole `<body>` minus boilerplate, rendered in the requested form.
fn whole_body(doc: Document, base: Option<&url::Url>, text_mode: bool) -> String {
    crate::content::boilerplate::remove_marked(&doc);
    strip_boilerplate(&doc);
    if let Some(base) = base {
        absolutize_links(&doc, base);
    }
    let body_sel = doc.select("body");
    let sel = if body_sel.exists() {
        body_sel
    } else {
        doc.select("html")
    };
    if let Some(node) = sel.nodes().first() {
        repeats::remove_repeated_blocks(node);
    }
    if text_mode {
        selection_text(&sel, &doc)
    } else {
        html_to_markdown(&sel)
    }
}

/// Parse the page, redact it when asked, and apply the preparation shared by both paths.
fn parse_prepared(body: &str, redactor: Option<&Redactor>) -> (Document, Option<String>) {
    let prepared = parse_prepared_seen(body, redactor, false);
    (prepared.doc, prepared.title)
}

/// A parsed and prepared page (see [`parse_prepared_seen`]).
struct Prepared {
    doc: Document,
    title: Option<String>,
    /// A copy of the tree as [`visible_text`] sees it, when asked for.
    seen: Option<Document>,
    shape: Shape,
    /// A hidden element was kept as content ([`remove_unseen`]).
    hidden_content: bool,
    /// The content weight of the page's content root, when it has one ([`ROOT_MARK`]).
    root: Option<Root>,
}

/// [`parse_prepared`], and when `keep_seen`, a copy of the tree as [`visible_text`] sees
/// it (hidden elements removed; redacted when a redactor is given, not prepared).
///
/// The [`Shape`] is taken by [`prepare`]; the boilerplate pruning after it only removes
/// elements, so the count of cells stays an upper bound and no id appears.
fn parse_prepared_seen(body: &str, redactor: Option<&Redactor>, keep_seen: bool) -> Prepared {
    let doc = parse(body);
    // Redaction reads the page as served, before anything is removed from it: a token split
    // into two text nodes (`…<wbr>…`) is judged whole.
    if let Some(r) = redactor {
        crate::content::dom_redact::redact_document(&doc, r);
    }
    let hidden_content = remove_unseen(&doc);
    let seen = keep_seen.then(|| doc.clone());
    let (title, shape) = prepare(&doc);
    let root = crate::content::boilerplate::prune(&doc);
    Prepared {
        doc,
        title,
        seen,
        shape,
        hidden_content,
        root,
    }
}

/// The most bytes that making links absolute may add (links times base length); past it
/// links stay as the page wrote them.
const LINK_BUDGET: usize = 8 * 1024 * 1024;

/// The start of the page up to the end of its head (or all of it when no end is found).
fn head_prefix(body: &str) -> &str {
    for marker in [&b"</head"[..], b"<body"] {
        if let Some(pos) = crate::content::parse::find_from_ascii_ci(body.as_bytes(), 0, marker) {
            // `<` is ASCII, so `pos` is a char boundary; `get` keeps this panic-free anyway.
            return body.get(..pos).unwrap_or(body);
        }
    }
    body
}

fn absolute_http_url(raw: &str) -> Option<url::Url> {
    let url = url::Url::parse(raw.trim()).ok()?;
    matches!(url.scheme(), "http" | "https")
        .then_some(url)
        .filter(url::Url::has_host)
}
