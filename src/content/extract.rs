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
//! 2. **Select** the main content with [`dom_smoothie`] (a port of Mozilla's Readability),
//!    and keep the page's own `<h1>` as the heading on top
//!    ([`crate::content::headline`]). When readability
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
//! recursive runs ([`MAX_DEPTH`]), and the inputs that make html5ever quadratic
//! (deep nesting, long runs of sibling inline elements) are defused first: every step is
//! linear in the size of the page.
//!
//! `dom_smoothie`'s `Readability` and `Article` are not `Send`: everything here is
//! synchronous and keeps them local. [`extract`] is CPU-bound (tens of milliseconds per
//! MB of HTML), so async callers should run it in `tokio::task::spawn_blocking`.

use std::panic::{catch_unwind, AssertUnwindSafe};

use dom_query::{Document, NodeData, NodeRef, Selection};
use dom_smoothie::{Config, ParsePolicy, Readability, TextMode};

use crate::redact::Redactor;

use crate::model::kinds::{BodyKind, ExtractMode};

/// The result of [`extract`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Extracted {
    /// The content handed to the caller.
    pub text: String,
    /// The page's `<title>`, whitespace-collapsed and trimmed; `None` when absent or empty
    /// (always `None` for JSON and other text).
    pub title: Option<String>,
    /// All the text a person sees on the page ([`visible_text`]), measured on the tree
    /// parsed for extraction. Only from [`extract_redacted`], only for HTML pages of up
    /// to [`SPARE_TREE_MAX_BYTES`] whose `text` is short (fewer than
    /// [`JUDGE_SHORT_TEXT`] + 1 visible characters, the case where the judge needs it);
    /// otherwise `None`, and a caller that needs it calls [`visible_text`].
    pub visible: Option<String>,
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

/// Pages up to this size keep a copy of their prepared tree for the whole-body fallback
/// (see [`extract`]); larger ones are parsed again in the rare case they need it.
pub const SPARE_TREE_MAX_BYTES: usize = 256 * 1024;

thread_local! {
    /// The cancellation flag of the work running on this thread (see [`with_cancel`]).
    static CANCEL: std::cell::RefCell<Option<std::sync::Arc<std::sync::atomic::AtomicBool>>> =
        const { std::cell::RefCell::new(None) };
}

/// Run `f` with `flag` as this thread's cancellation flag. The long walks of extraction
/// check it and stop early once it is set (the attempt's deadline passed, or its lookup
/// was dropped), so abandoned work on a blocking thread stops burning CPU and does not
/// keep the process alive; what they return then is discarded by the caller.
pub fn with_cancel<T>(
    flag: std::sync::Arc<std::sync::atomic::AtomicBool>,
    f: impl FnOnce() -> T,
) -> T {
    CANCEL.with(|c| *c.borrow_mut() = Some(flag));
    let out = f();
    CANCEL.with(|c| *c.borrow_mut() = None);
    out
}

/// Whether this thread's work was cancelled (see [`with_cancel`]).
pub fn cancelled() -> bool {
    CANCEL.with(|c| {
        c.borrow()
            .as_ref()
            .is_some_and(|f| f.load(std::sync::atomic::Ordering::Relaxed))
    })
}

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
            }
        }
        BodyKind::OtherText => Extracted {
            text: body.to_owned(),
            title: None,
            visible: None,
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

// ---------------------------------------------------------------------------------------
// HTML
// ---------------------------------------------------------------------------------------

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
        let title =
            guarded(|| page_title(&Document::from(&*cap_nesting(head, MAX_DEPTH)))).flatten();
        return Extracted {
            text: body.to_owned(),
            title,
            visible: None,
        };
    }
    let text_mode = mode == ExtractMode::Text;
    let base = base_url.and_then(absolute_http_url);

    // Parsing and preparing the document: html5ever is robust, but guard it anyway.
    // What a person sees is measured on a copy taken before redaction and preparation
    // (exactly what `visible_text` would parse), when the page is small enough for the
    // copy to be cheap; it is only read if the extracted text turns out short.
    let keep_seen = want_visible && body.len() <= SPARE_TREE_MAX_BYTES;
    let Some(Prepared {
        doc,
        title,
        seen,
        shape,
    }) = guarded(|| parse_prepared_seen(body, redactor, keep_seen))
    else {
        // Nothing we could parse: return the body as it came (still trimmed and tidied).
        return Extracted {
            text: tidy_text(body),
            title: None,
            visible: None,
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
        let whole = guarded(move || whole_body(doc, base, text_mode));
        let text = whole.unwrap_or_else(|| last_resort_text(body));
        return Extracted {
            text,
            title,
            visible: None,
        };
    }

    // dom_smoothie is a large heuristic code base; a panic in it on odd markup must not
    // take the process down, so it runs under catch_unwind and we fall back.
    let base = base.as_ref();
    // Readability consumes (and mutates) the tree. Small pages are the ones that most
    // often need the whole-body fallback, and copying a tree costs a fraction of parsing,
    // preparing and redacting it again: keep a copy of theirs.
    let spare = (body.len() <= SPARE_TREE_MAX_BYTES).then(|| doc.clone());
    // Readability's full run needs the prepared tree again (see `readable`): a copy of the
    // spare, or for a large page a second parse (the same tree: every step is
    // deterministic).
    let again = || match &spare {
        Some(spare) => spare.clone(),
        None => parse_prepared(body, redactor).0,
    };
    let article = guarded(|| readable(doc, base, text_mode, shape, again)).flatten();
    if cancelled() {
        return Extracted::default();
    }
    if let Some(found) = &article {
        if has_visible_chars(found, MIN_ARTICLE_CHARS) {
            let visible = seen_if_short(seen, found);
            return Extracted {
                text: found.clone(),
                title,
                visible,
            };
        }
    }

    // Fallback: the whole body, minus boilerplate, from the spare tree (a large page's
    // was not kept: parse it again; this path is rare for those).
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
    let visible = seen_if_short(seen, &text);
    Extracted {
        text,
        title,
        visible,
    }
}

/// The visible text of the kept copy, when the extracted `text` is short enough for the
/// judge to need it.
fn seen_if_short(seen: Option<Document>, text: &str) -> Option<String> {
    let seen = seen.filter(|_| !has_visible_chars(text, JUDGE_SHORT_TEXT + 1))?;
    guarded(|| seen_text(&seen))
}

/// When both converters panicked: html5ever's text of the body, or the body itself.
fn last_resort_text(body: &str) -> String {
    guarded(|| {
        let doc = Document::from(&*cap_nesting(body, MAX_DEPTH));
        tidy_text(&doc.select("body").text())
    })
    .unwrap_or_else(|| tidy_text(body))
}

/// Run `f`, turning a panic into `None`. Used around every call into the HTML crates.
fn guarded<T>(f: impl FnOnce() -> T) -> Option<T> {
    catch_unwind(AssertUnwindSafe(f)).ok()
}

/// Readability's selection rendered in the requested form; `None` when it finds nothing.
///
/// `again` gives the same prepared tree as `doc` once more, for the rare page that needs
/// readability's full run (see [`readability_article`]).
fn readable(
    doc: Document,
    base: Option<&url::Url>,
    text_mode: bool,
    shape: Shape,
    again: impl FnOnce() -> Document,
) -> Option<String> {
    // Read before readability renames it to <h2> (see `content::headline`).
    let page_h1 = crate::content::headline::page_h1(&doc);
    let Selected {
        readability,
        article,
        root,
        ..
    } = readability_article(doc, base, shape, again)?;
    if !has_visible_chars(&article.text_content, 1) {
        return None;
    }
    // The article is a subtree of readability's own document: write it from there
    // (`article.content` is the same subtree serialised, which would need a second parse).
    let doc = &readability.doc;
    crate::content::boilerplate::remove_marked(doc);
    let root = Selection::from(NodeRef::new(root, &doc.tree));
    let body = if text_mode {
        selection_text(&root, doc)
    } else {
        html_to_markdown(&root)
    };
    Some(crate::content::headline::headline_on_top(
        body,
        &article.title,
        page_h1.as_deref(),
        text_mode,
        // Escaped the way the writer escapes the body text.
        |h| tidy_markdown(&crate::content::markdown::heading(h, 1)),
    ))
}

/// The readability configuration: the defaults, but classes are kept (so that
/// `language-X` on code blocks reaches the writer) and the text measured is `Raw` (it is
/// only used to check that the selection is not empty; Raw is the cheapest).
fn readability_config() -> Config {
    Config {
        keep_classes: true,
        text_mode: TextMode::Raw,
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
    let cfg = readability_config();
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
    article: dom_smoothie::Article,
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

/// Whether `node`'s text has at least `n` characters once every run of whitespace counts
/// as one and leading and trailing whitespace as none: whether
/// `NodeRef::normalized_char_count` (the measure readability applies) reaches `n`,
/// computed the same way (text nodes in document order; an empty text node breaks a run
/// of whitespace, as there) but stopping as soon as the answer is known and copying no
/// text.
fn normalized_chars_reach(node: &NodeRef, n: usize) -> bool {
    let mut count = 0usize;
    let mut last_ws = true;
    for d in std::iter::once(*node).chain(node.descendants_it()) {
        let reached = d.query_or(false, |t| {
            let NodeData::Text { contents } = &t.data else {
                return false;
            };
            for c in contents.chars() {
                let ws = c.is_whitespace();
                if !(last_ws && ws) {
                    count += 1;
                }
                last_ws = ws;
                // A trailing run of whitespace is taken back at the end: one more.
                if count > n {
                    return true;
                }
            }
            last_ws = contents.ends_with(char::is_whitespace);
            false
        });
        if reached {
            return true;
        }
    }
    if last_ws && count > 0 {
        count -= 1;
    }
    count >= n
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
}

/// What the preparation learnt about the prepared tree, for [`readability_article`].
#[derive(Clone, Copy, Default)]
struct Shape {
    /// At least as many `<td>` elements as the tree has (`<th>` too).
    cells: usize,
    /// Some element has the id readability gives its article (any letter case).
    page_id: bool,
}

/// [`parse_prepared`], and when `keep_seen`, a copy of the tree as [`visible_text`] sees
/// it (hidden elements removed; redacted when a redactor is given, not prepared).
///
/// The [`Shape`] is taken by [`prepare`]; the boilerplate pruning after it only removes
/// elements, so the count of cells stays an upper bound and no id appears.
fn parse_prepared_seen(body: &str, redactor: Option<&Redactor>, keep_seen: bool) -> Prepared {
    let doc = Document::from(&*cap_nesting(body, MAX_DEPTH));
    // Redaction reads the page as served, before anything is cut from it: a token split
    // into two text nodes (`…<wbr>…`) is judged whole, while the symbol-run cut below,
    // which looks at one text node at a time, could otherwise remove its long first half
    // and leave the rest of it to be read.
    if let Some(r) = redactor {
        crate::content::dom_redact::redact_document(&doc, r);
    }
    remove_unseen(&doc);
    let seen = keep_seen.then(|| doc.clone());
    let (title, shape) = prepare(&doc);
    crate::content::boilerplate::prune(&doc);
    Prepared {
        doc,
        title,
        seen,
        shape,
    }
}

// --- what a person sees (issue 18) -----------------------------------------------------

/// Symbol runs at least this long are cut from text outside code before conversion.
/// Longer than the judge's measure ([`crate::content::interstitial::SYMBOL_RUN`]): removing
/// content needs more certainty than not counting it.
const SYMBOL_RUN_CUT: usize = 80;

/// A hidden element holding this many readable characters or more stays: a page that
/// hides its whole article until a script has run (against a flash of unstyled content)
/// shows it to every reader with JavaScript.
const HIDDEN_KEEP: usize = 2000;

/// Remove what a person does not see, before extraction and before the judge measures
/// the page: `<template>`, elements with the `hidden` attribute, `aria-hidden="true"` or
/// an inline `display:none` / `visibility:hidden` (unless they hold [`HIDDEN_KEEP`]
/// readable characters), and symbol runs (obfuscated JavaScript, base64, minified CSS) in
/// text outside `<pre>`, `<code>`, `<kbd>`, `<samp>` and `<textarea>`.
fn remove_unseen(doc: &Document) {
    let mut doomed: Vec<NodeRef> = Vec::new();
    let mut texts: Vec<NodeRef> = Vec::new();
    // (node, inside code)
    let mut stack: Vec<(NodeRef, bool)> = vec![(doc.root(), false)];
    while let Some((node, in_code)) = stack.pop() {
        for child in node.children_it(false) {
            if child.is_text() {
                if !in_code {
                    texts.push(child);
                }
                continue;
            }
            if !child.is_element() {
                continue;
            }
            let (hidden, code) = child
                .qual_name_ref()
                .map(|name| match &*name.local {
                    "html" | "body" => (false, false),
                    "template" => (true, false),
                    "pre" | "code" | "kbd" | "samp" | "textarea" | "script" | "style" => {
                        (is_hidden(&child), true)
                    }
                    _ => (is_hidden(&child), false),
                })
                .unwrap_or_default();
            if hidden {
                doomed.push(child);
            } else {
                stack.push((child, in_code || code));
            }
        }
    }
    for node in doomed {
        node.remove_from_parent();
    }
    for node in texts {
        // Read in place: most text nodes are short or plain prose, and copying each one
        // out of the tree cost more than looking at it.
        let clean = node.query_or(None, |n| match &n.data {
            NodeData::Text { contents } if contents.len() >= SYMBOL_RUN_CUT => {
                crate::content::interstitial::strip_symbol_runs(contents, SYMBOL_RUN_CUT)
            }
            _ => None,
        });
        if let Some(clean) = clean {
            node.set_text(clean);
        }
    }
}

/// Hidden by markup (see [`remove_unseen`]), and not a large block of readable text.
fn is_hidden(node: &NodeRef) -> bool {
    let marked = node.has_attr("hidden")
        || node
            .attr("aria-hidden")
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
        || node.attr("style").is_some_and(|style| {
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
        });
    marked && !holds_readable_text(node, HIDDEN_KEEP)
}

/// Does `node` hold `n` readable characters? Looks at no more than [`HIDDEN_PEEK`] bytes
/// of its text, so that nested hidden elements cost a bounded amount each.
fn holds_readable_text(node: &NodeRef, n: usize) -> bool {
    let mut sample = String::new();
    for d in node.descendants_it() {
        if d.is_text() {
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
    crate::content::interstitial::readable_len(&sample, n) >= n
}

/// How much of a hidden element's text [`holds_readable_text`] looks at.
const HIDDEN_PEEK: usize = 64 * 1024;

/// All the text a person sees on an HTML page, for the judge's measure: the body without
/// `<head>`, scripts, styles and hidden elements (as in extraction). `<noscript>` text is
/// kept, as a reader without JavaScript sees it. `None` when the parser failed.
pub fn visible_text(html: &str) -> Option<String> {
    guarded(|| {
        let doc = Document::from(&*cap_nesting(html, MAX_DEPTH));
        remove_unseen(&doc);
        seen_text(&doc)
    })
}

/// [`visible_text`] of a tree parsed and cleared of hidden elements (changes the tree).
fn seen_text(doc: &Document) -> String {
    doc.select("head, script, style, template").remove();
    let body = doc.select("body");
    let sel = if body.exists() {
        body
    } else {
        doc.select("html")
    };
    tidy_text(&sel.formatted_text())
}

#[cfg(test)]
mod unseen_tests {
    use super::*;

    fn md(html: &str) -> String {
        extract(html, BodyKind::Html, ExtractMode::Auto, None).text
    }

    const PROSE: &str = "The river rose overnight and the ferry stayed in port until noon, \
                         when the harbour master judged the current safe again.";

    #[test]
    fn hidden_elements_are_not_content() {
        let jschl = "+((!+[]+(!![])+!![]+!![]+[])+(+!![]))/+((!+[]+!![]+[])+(!+[]+!![]))";
        for hidden in [
            "<div hidden>SECRET-A</div>",
            "<div aria-hidden=\"true\">SECRET-A</div>",
            "<div style=\"color:red; DISPLAY : none !important\">SECRET-A</div>",
            "<span style=\"visibility:hidden\">SECRET-A</span>",
            "<template><p>SECRET-A</p></template>",
        ] {
            let html = format!("<html><body><p>{PROSE}</p>{hidden}<p>{PROSE}</p></body></html>");
            let text = md(&html);
            assert!(!text.contains("SECRET-A"), "{hidden}: {text}");
            assert!(text.contains("harbour master"), "{hidden}: {text}");
            let seen = visible_text(&html).unwrap_or_default();
            assert!(!seen.contains("SECRET-A"), "{hidden}: {seen}");
        }
        let html = format!(
            "<html><body><p>{PROSE}</p><div style=\"display:none\">{}</div></body></html>",
            jschl.repeat(40)
        );
        assert!(!md(&html).contains("!!"), "{}", md(&html));
    }

    #[test]
    fn a_large_hidden_article_is_kept() {
        // Pages that hide their article until a script has run show it to every reader
        // with JavaScript.
        let html = format!(
            "<html><body><div id=\"content\" style=\"display:none\"><p>{}</p></div></body></html>",
            PROSE.repeat(20)
        );
        assert!(md(&html).contains("harbour master"));
    }

    #[test]
    fn symbol_runs_are_cut_outside_code_only() {
        let run = "+((!+[]+(!![])+!![]+[])+(+!![]))".repeat(5);
        let base64 =
            "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ejAxMjM0NTY3ODk=";
        let html = format!(
            "<html><body><p>{PROSE}</p><p>{run}</p><p>Blob: {base64}</p>\
             <pre><code>{run}</code></pre><p>Inline <code>{run}</code> code.</p><p>{PROSE}</p></body></html>"
        );
        let text = md(&html);
        // Once in the code block, once in the inline code: never as prose.
        assert_eq!(text.matches(&run).count(), 2, "{text}");
        assert!(!text.contains(base64), "{text}");
        assert!(text.contains("Blob:"), "{text}");
        let plain = extract(&html, BodyKind::Html, ExtractMode::Text, None).text;
        assert_eq!(plain.matches(&run).count(), 2, "{plain}");
    }

    #[test]
    fn nested_hidden_elements_cost_linear_time() {
        // 200 nested hidden containers around 2 MB of text: each is measured on a
        // bounded sample, not on all the text below it.
        let depth = 200;
        let html = format!(
            "<html><body>{}<p>{}</p>{}</body></html>",
            "<div style=\"display:none\">".repeat(depth),
            PROSE.repeat(2 * 1024 * 1024 / PROSE.len()),
            "</div>".repeat(depth)
        );
        let start = std::time::Instant::now();
        let seen = visible_text(&html).unwrap_or_default();
        assert!(seen.contains("harbour master"));
        // Generous for unoptimised builds; quadratic behaviour would take minutes.
        assert!(start.elapsed() < std::time::Duration::from_secs(30));
    }

    #[test]
    fn the_judges_measure_comes_from_the_extraction_parse_when_text_is_short() {
        let r = Redactor::new();
        let html = format!(
            "<html><head><title>T</title><script>var x=1;</script></head><body>\
             <div class=\"cookie-banner\">We use cookies.</div><nav>Menu</nav>\
             <p>{PROSE}</p><div hidden>SECRET-A</div></body></html>"
        );
        for mode in [ExtractMode::Auto, ExtractMode::Text] {
            let out = extract_redacted(&html, BodyKind::Html, mode, None, &r);
            // Exactly what a separate parse measures: banners and navigation included.
            assert_eq!(out.visible, visible_text(&html), "{mode}");
            assert!(out.visible.is_some_and(|v| v.contains("We use cookies")));
        }
        // Long text: the judge does not need the measure, so it is not taken.
        let long = format!("<html><body><p>{}</p></body></html>", PROSE.repeat(80));
        let out = extract_redacted(&long, BodyKind::Html, ExtractMode::Auto, None, &r);
        assert_eq!(out.visible, None);
        // Only the lookup's path takes it.
        assert_eq!(
            extract(&html, BodyKind::Html, ExtractMode::Auto, None).visible,
            None
        );
    }

    #[test]
    fn visible_text_keeps_noscript_and_drops_head_and_scripts() {
        let html = "<html><head><title>T</title><style>p{color:red}</style></head><body>\
                    <noscript>Please enable JavaScript.</noscript><script>var x=1;</script>\
                    <p>Shown.</p></body></html>";
        let seen = visible_text(html).unwrap_or_default();
        assert_eq!(seen, "Please enable JavaScript.\nShown.");
    }
}

#[cfg(test)]
mod single_attempt_tests {
    use super::*;

    const PROSE: &str = "The river rose overnight and the ferry stayed in port until noon, \
                         when the harbour master judged the current safe again. ";

    /// Readability's run as `readable` makes it, and `Readability::parse` on the same
    /// prepared page: the same tree, article and root.
    fn both(html: &str) -> (Selected, Selected) {
        let base = absolute_http_url("https://news.example/2024/story");
        let prepared = parse_prepared_seen(html, None, false);
        let spare = prepared.doc.clone();
        let other = prepared.doc.clone();
        let ours = readability_article(prepared.doc, base.as_ref(), prepared.shape, || {
            spare.clone()
        })
        .expect("readability finds an article");
        let url = base.as_ref().map(url::Url::as_str);
        let full = full_parse(other, url, readability_config()).expect("parse finds one");
        let (a, b) = (&ours, &full);
        assert_eq!(a.readability.doc.html(), b.readability.doc.html());
        assert_eq!(a.root, b.root);
        assert_eq!(a.article.title, b.article.title);
        assert_eq!(a.article.text_content, b.article.text_content);
        assert_eq!(a.article.content, b.article.content);
        assert_eq!(a.article.excerpt, b.article.excerpt);
        (ours, full)
    }

    fn page(body: &str) -> String {
        format!(
            "<html><head><title>Story | News</title></head><body><nav><a href=\"/\">Home</a>\
             <a href=\"/world\">World</a></nav>{body}<footer>© News</footer></body></html>"
        )
    }

    #[test]
    fn one_attempt_when_the_first_attempt_is_long_enough() {
        let html = page(&format!(
            "<article><h1>Story</h1><p>{}</p><p>{}</p></article>",
            PROSE.repeat(4),
            PROSE.repeat(4)
        ));
        let (ours, _) = both(&html);
        assert!(!ours.full_run);
    }

    #[test]
    fn the_full_parse_when_the_first_attempt_is_short() {
        // About 130 characters: under the 500 of the first attempt, so `parse` tries all
        // four and keeps the longest.
        let html = page(&format!("<article><p>{PROSE}</p></article>"));
        let (ours, _) = both(&html);
        assert!(ours.full_run);
    }

    #[test]
    fn the_full_parse_when_the_page_uses_readabilitys_id() {
        let html = page(&format!(
            "<div id=\"READABILITY-page-1\">x</div><article><p>{}</p></article>",
            PROSE.repeat(8)
        ));
        let (ours, _) = both(&html);
        assert!(ours.full_run);
    }

    #[test]
    fn table_layouts_keep_a_margin_per_cell() {
        // A layout table whose row readability takes as the article: cells move in
        // post-processing, so the single attempt needs 5 more characters per cell.
        let cells: String = (0..4)
            .map(|i| format!("<td>{i} {}</td> ", PROSE.repeat(2)))
            .collect();
        let html = page(&format!("<table><tr>{cells}</tr></table>"));
        let (ours, _) = both(&html);
        assert!(!ours.full_run);
        let short: String = (0..3).map(|i| format!("<td>{i} {PROSE}</td> ")).collect();
        let html = page(&format!("<table><tr>{short}</tr></table>"));
        both(&html);
    }

    #[test]
    fn the_same_article_on_every_fixture() {
        let mut seen = 0;
        for (path, html) in fixture_files() {
            let base = absolute_http_url("https://news.example/2024/story");
            let prepared = parse_prepared_seen(&html, None, false);
            let spare = prepared.doc.clone();
            let other = prepared.doc.clone();
            let ours = readability_article(prepared.doc, base.as_ref(), prepared.shape, || {
                spare.clone()
            });
            let url = base.as_ref().map(url::Url::as_str);
            let full = full_parse(other, url, readability_config());
            match (ours, full) {
                (Some(a), Some(b)) => {
                    assert_eq!(
                        a.readability.doc.html(),
                        b.readability.doc.html(),
                        "{}",
                        path.display()
                    );
                    assert_eq!(a.article.title, b.article.title);
                    assert_eq!(a.article.text_content, b.article.text_content);
                }
                (None, None) => {}
                (a, b) => {
                    panic!("{}: {:?} vs {:?}", path.display(), a.is_some(), b.is_some())
                }
            }
            seen += 1;
        }
        assert!(seen >= 40, "{seen} fixtures");
    }

    fn count_matches(doc: &Document) {
        for node in std::iter::once(doc.root()).chain(doc.root().descendants_it()) {
            let count = node.normalized_char_count();
            for n in 0..count + 3 {
                assert_eq!(
                    normalized_chars_reach(&node, n),
                    count >= n,
                    "{n} of {count}"
                );
            }
        }
    }

    #[test]
    fn normalized_chars_reach_is_dom_querys_count() {
        for html in [
            "<div></div>",
            "<div> </div>",
            "<div>  a  b  </div>",
            "<div>a<span> </span> <b>b </b> c\n\n</div>",
            "<div>\u{a0}é ü\t<p>x</p>  </div>",
        ] {
            count_matches(&Document::from(html));
        }
        // An empty text node breaks a run of whitespace in dom_query's count.
        let doc = Document::from("<div><p>a </p><p>x</p><p> b</p></div>");
        for p in doc.select("p").nodes() {
            if p.text().as_ref() == "x" {
                p.set_text("");
            }
        }
        count_matches(&doc);
    }

    /// The selector-based versions the one-walk ones replaced, to check they agree.
    fn selection_text_by_selectors(sel: &Selection, doc: &Document) -> String {
        sel.select(
            "script, style, noscript, template, svg, canvas, iframe, object, embed, nav, button, \
             select, input, textarea, dialog",
        )
        .remove();
        sel.select(
            "figure, figcaption, main, header, footer, aside, address, details, summary, \
             fieldset, legend, hgroup, dl, dt, dd, center, form, caption",
        )
        .rename("div");
        for list in sel.select("ol").nodes() {
            let mut number = list
                .attr("start")
                .and_then(|s| s.trim().parse::<i64>().ok())
                .unwrap_or(1);
            for li in list.element_children().iter().filter(|c| c.has_name("li")) {
                li.prepend_child(&doc.tree.new_text(format!("{number}. ")));
                number = number.saturating_add(1);
            }
        }
        for li in sel.select("li").nodes() {
            if !li.parent().is_some_and(|p| p.has_name("ol")) {
                li.prepend_child(&doc.tree.new_text("- "));
            }
        }
        for cell in sel.select("td, th").nodes() {
            let has_next = cell
                .next_element_sibling()
                .is_some_and(|s| s.has_name("td") || s.has_name("th"));
            if has_next {
                cell.append_child(&doc.tree.new_text(" |"));
            }
        }
        tidy_text(&sel.formatted_text())
    }

    fn absolutize_by_selectors(doc: &Document, base: &url::Url) {
        let base = doc
            .select("base[href]")
            .attr("href")
            .and_then(|href| base.join(href.trim()).ok())
            .unwrap_or_else(|| base.clone());
        for (selector, attr) in [("a[href]", "href"), ("img[src]", "src")] {
            for node in doc.select(selector).nodes() {
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
                if let Ok(abs) = base.join(value) {
                    node.set_attr(attr, abs.as_str());
                }
            }
        }
    }

    /// Every `.html` file under tests/fixtures, with its path.
    fn fixture_files() -> Vec<(std::path::PathBuf, String)> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        walkdir::WalkDir::new(dir)
            .into_iter()
            .filter_map(Result::ok)
            .map(walkdir::DirEntry::into_path)
            .filter(|path| path.extension().is_some_and(|e| e == "html"))
            .map(|path| {
                let bytes = std::fs::read(&path).unwrap_or_default();
                let text = String::from_utf8_lossy(&bytes).into_owned();
                (path, text)
            })
            .collect()
    }

    fn fixture_pages() -> Vec<String> {
        let mut pages: Vec<String> = fixture_files().into_iter().map(|(_, t)| t).collect();
        pages.push(
            "<html><head><base href=\"/docs/\"><base href=\"/other/\"></head><body><main>\
             <ol start=\"3\"><li>a</li><li>b<ul><li>c</li></ul></li></ol>\
             <dl><dt>t</dt><dd>d</dd></dl><figure><img src=\"x.png\" alt=\"x\">\
             <figcaption>cap</figcaption></figure><nav><li>gone</li></nav>\
             <table><caption>c</caption><tr><th>h</th><td>1</td><td>2</td></tr></table>\
             <a href=\" rel \">r</a><a href=\"rel\">again</a><a href=\"#f\">f</a>\
             <a href=\"JavaScript:x\">j</a><img src=\"data:x\"><svg><a href=\"s\">s</a></svg>\
             <form><select><option>o</option></select><label>l</label></form></main></body></html>"
                .to_owned(),
        );
        pages
    }

    #[test]
    fn one_walk_text_and_links_match_the_selector_versions() {
        let base = absolute_http_url("https://news.example/2024/story").expect("a base");
        let mut seen = 0;
        for html in fixture_pages() {
            for root in ["body", "html", "main"] {
                let a = Document::from(html.as_str());
                let b = Document::from(html.as_str());
                absolutize_links(&a, &base);
                absolutize_by_selectors(&b, &base);
                assert_eq!(a.html(), b.html());
                let (sa, sb) = (a.select(root), b.select(root));
                assert_eq!(
                    selection_text(&sa, &a),
                    selection_text_by_selectors(&sb, &b)
                );
                assert_eq!(a.html(), b.html());
            }
            seen += 1;
        }
        assert!(seen > 40, "{seen} pages");
    }
}

/// The elements the preparation works on, found in one walk over the tree (each
/// `select` is a walk of its own, and the page is walked enough by readability).
#[derive(Default)]
struct Found<'a> {
    title: Option<NodeRef<'a>>,
    too_deep: Vec<NodeRef<'a>>,
    consent: Vec<NodeRef<'a>>,
    pres: Vec<NodeRef<'a>>,
    tables: Vec<NodeRef<'a>>,
    fragment_links: Vec<NodeRef<'a>>,
    /// Links and images, whose `title` tooltips repeat their text.
    titled: Vec<NodeRef<'a>>,
    headings: Vec<NodeRef<'a>>,
    /// Elements with many child elements (see [`merge_inline_runs`]).
    crowded: Vec<NodeRef<'a>>,
    /// Long text nodes dense in characters the serializer escapes (see [`split_text`]).
    dense_texts: Vec<NodeRef<'a>>,
    /// Elements with an attribute value too costly to serialize (see [`escape_cost`]).
    heavy_attrs: Vec<NodeRef<'a>>,
}

/// A parent with at least this many child elements gets [`merge_inline_runs`].
const CROWDED: usize = 32;

#[derive(Clone, Copy)]
enum Kind {
    Title,
    Svg,
    Pre,
    Table,
    Img,
    Link,
    Heading,
    Cell,
    Container,
    Other,
}

/// Prepare a parsed page (see the module docs) and return its title, and its [`Shape`].
fn prepare(doc: &Document) -> (Option<String>, Shape) {
    let mut found = Found::default();
    let mut shape = Shape::default();
    // (node, depth, inside <svg>)
    let mut stack: Vec<(NodeRef, usize, bool)> = vec![(doc.root(), 0, false)];
    let mut names = String::new();
    while let Some((node, depth, in_svg)) = stack.pop() {
        if cancelled() {
            return (None, shape);
        }
        let mut elements = 0usize;
        for child in node.children_it(true) {
            if !child.is_element() {
                let dense = child.query_or(false, |n| match &n.data {
                    NodeData::Text { contents } => needs_split(contents),
                    _ => false,
                });
                if dense {
                    found.dense_texts.push(child);
                }
                continue;
            }
            elements += 1;
            let (heavy, page_id) = child.query_or((false, false), |n| {
                n.as_element().map_or((false, false), |e| {
                    let heavy = e
                        .attrs
                        .iter()
                        .any(|a| escape_cost(&a.value) > MAX_ESCAPE_COST);
                    let page_id = e.attrs.iter().any(|a| {
                        &*a.name.local == "id" && a.value.eq_ignore_ascii_case("readability-page-1")
                    });
                    (heavy, page_id)
                })
            });
            if heavy {
                found.heavy_attrs.push(child);
            }
            shape.page_id |= page_id;
            if elements == CROWDED {
                found.crowded.push(node);
            }
            let depth = depth + 1;
            if depth > MAX_DEPTH {
                found.too_deep.push(child);
            }
            let mut child_in_svg = in_svg;
            // Classify first: the name borrows the tree, which the arms below modify.
            let kind = child.qual_name_ref().map(|name| match &*name.local {
                "title" => Kind::Title,
                "svg" => Kind::Svg,
                "pre" => Kind::Pre,
                "table" => Kind::Table,
                "img" => Kind::Img,
                "a" => Kind::Link,
                "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => Kind::Heading,
                "td" | "th" => Kind::Cell,
                "div" | "section" | "aside" | "dialog" | "form" | "footer" | "header" | "p"
                | "span" | "ins" => Kind::Container,
                _ => Kind::Other,
            });
            if let Some(kind) = kind {
                match kind {
                    Kind::Title if !in_svg && found.title.is_none() => found.title = Some(child),
                    Kind::Svg => child_in_svg = true,
                    Kind::Pre => found.pres.push(child),
                    Kind::Table => found.tables.push(child),
                    Kind::Img => found.titled.push(child),
                    Kind::Heading => found.headings.push(child),
                    Kind::Cell => shape.cells += 1,
                    Kind::Link => {
                        found.titled.push(child);
                        if child.attr("href").is_some_and(|h| h.starts_with('#')) {
                            found.fragment_links.push(child);
                        }
                    }
                    Kind::Container => {
                        names.clear();
                        for attr in ["id", "class"] {
                            if let Some(value) = child.attr(attr) {
                                names.push_str(&value);
                                names.push(' ');
                            }
                        }
                        names.make_ascii_lowercase();
                        if names_consent_banner(&names) {
                            found.consent.push(child);
                        }
                    }
                    Kind::Title | Kind::Other => {}
                }
            }
            stack.push((child, depth, child_in_svg));
        }
    }
    let title = found
        .title
        .map(|t| collapse_whitespace(&t.text()))
        .filter(|t| !t.is_empty());
    // The walk only reads (its iterators borrow the tree); all changes happen here.
    for node in found.titled {
        node.remove_attr("title");
    }
    // Readability drops any element whose class or id looks like boilerplate ("header",
    // "meta", "comment", ...), headings included: rustdoc's `<h4 class="code-header">`
    // holds every method signature. Headings need neither for Markdown.
    for node in found.headings {
        node.remove_attrs(&["class", "id"]);
    }
    for node in found.too_deep {
        unwrap_element(&node);
    }
    for node in found.crowded {
        merge_inline_runs(&node);
    }
    for node in found.dense_texts {
        split_text(doc, &node);
    }
    for node in found.heavy_attrs {
        node.update(|n| {
            if let Some(e) = n.as_element_mut() {
                e.attrs.retain(|a| escape_cost(&a.value) <= MAX_ESCAPE_COST);
            }
        });
    }
    remove_consent_banners(&found.consent);
    normalize_code_blocks(doc, &found.pres);
    shape.cells += normalize_tables(doc, &found.tables);
    tidy_fragment_links(&found.fragment_links);
    (title, shape)
}

/// The most bytes that making links absolute may add (links times base length); past it
/// links stay as the page wrote them.
const LINK_BUDGET: usize = 8 * 1024 * 1024;

/// Text nodes are split into pieces of about this many bytes by [`split_text`].
const TEXT_PIECE: usize = 512;

/// Whether a text node is long and dense in `&` and U+0080..U+00BF (the characters
/// html5ever's serializer escapes or inspects).
fn needs_split(text: &str) -> bool {
    text.len() > 2 * TEXT_PIECE
        && text
            .bytes()
            .filter(|b| *b == b'&' || *b == 0xC2)
            .nth(TEXT_PIECE / 8)
            .is_some()
}

/// Attribute values costlier than this to serialize are dropped (see [`escape_cost`]).
const MAX_ESCAPE_COST: usize = 1 << 20;

/// What serializing an attribute value costs html5ever 0.40 (bytes rescanned): its length
/// times its `&` and 0xC2 bytes, as for text (see [`split_text`]). An attribute cannot be
/// split, so a value over [`MAX_ESCAPE_COST`] (1 KiB of `&amp;`s, or 64 KiB with 16 of
/// them) is dropped; real values are far below it.
fn escape_cost(value: &str) -> usize {
    if value.len() < 1024 {
        return 0;
    }
    let specials = value.bytes().filter(|b| *b == b'&' || *b == 0xC2).count();
    specials.saturating_mul(value.len())
}

/// Replace a text node by adjacent text nodes of about [`TEXT_PIECE`] bytes (same text).
///
/// html5ever 0.40's serializer, which both readability and the whole-body path use,
/// rescans the rest of a text node for `<`/`>` at every `&` it escapes: quadratic in
/// the node's length. 5 MB of `a &amp; b ` took 9.4 s; in pieces each rescan is short.
fn split_text(doc: &Document, node: &NodeRef) {
    let text = node.text();
    let mut rest: &str = &text;
    while !rest.is_empty() {
        let mut cut = rest.len().min(TEXT_PIECE);
        while !rest.is_char_boundary(cut) {
            cut += 1;
        }
        node.insert_before(&doc.tree.new_text(&rest[..cut]));
        rest = &rest[cut..];
    }
    node.remove_from_parent();
}

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
        !(tag == "a" || tag == "template" || crate::content::markdown::is_block_element(tag))
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
fn unwrap_element(node: &NodeRef) {
    if let Some(first) = node.first_child() {
        node.insert_siblings_before(&first);
    }
    node.remove_from_parent();
}

/// Shape tables so that the writer renders every cell. It makes a pipe table only when the
/// table has `<th>` cells, takes its header from one row only, and silently drops `<th>`
/// cells in body rows (row headers such as "Born" in an infobox). So, for each data
/// table (two or more columns, no nested table): the first row becomes the header, `th`
/// elsewhere becomes `td`, extra header rows move into the body, and `colspan` is padded
/// with empty cells so columns stay aligned. Layout tables (nested, or one column) lose
/// their `th` so the writer renders their cells as blocks.
///
/// Returns how many cells it added.
fn normalize_tables(doc: &Document, tables: &[NodeRef]) -> usize {
    let mut added = 0usize;
    for table in tables {
        let rows = table_rows(table);
        let width = rows.iter().map(|r| row_cells(r).len()).max().unwrap_or(0);
        let nested = table.descendants_it().any(|d| d.has_name("table"));
        let Some((header, body_rows)) = rows.split_first() else {
            continue;
        };
        if nested || width < 2 {
            for cell in rows.iter().flat_map(row_cells) {
                if cell.has_name("th") {
                    cell.rename("td");
                }
            }
            continue;
        }
        for cell in row_cells(header) {
            if cell.has_name("td") {
                cell.rename("th");
            }
        }
        for cell in body_rows.iter().flat_map(row_cells) {
            if cell.has_name("th") {
                cell.rename("td");
            }
        }
        // The writer reads only the first row of a <thead>: move the others into the body.
        if let Some(thead) = header.parent().filter(|p| p.has_name("thead")) {
            let extra: Vec<NodeRef> = body_rows
                .iter()
                .filter(|r| r.parent().is_some_and(|p| p.id == thead.id))
                .copied()
                .collect();
            if !extra.is_empty() {
                let tbody = table
                    .element_children()
                    .into_iter()
                    .find(|c| c.has_name("tbody"))
                    .unwrap_or_else(|| {
                        let tbody = doc.tree.new_element("tbody");
                        thead.insert_after(&tbody);
                        tbody
                    });
                for row in extra.iter().rev() {
                    tbody.prepend_child(row);
                }
            }
        }
        // Pad each row up to the table's width at most, and never add more cells than
        // the table had: a hostile colspan cannot multiply the document.
        let mut budget: usize = rows.iter().map(|r| row_cells(r).len()).sum();
        for row in &rows {
            let cells = row_cells(row);
            let mut room = width.saturating_sub(cells.len());
            for cell in cells {
                let span = cell
                    .attr("colspan")
                    .and_then(|v| v.trim().parse::<usize>().ok())
                    .unwrap_or(1);
                let pad = span.saturating_sub(1).min(room).min(budget);
                room -= pad;
                budget -= pad;
                let tag = if cell.has_name("th") { "th" } else { "td" };
                for _ in 0..pad {
                    cell.insert_after(&doc.tree.new_element(tag));
                }
                added += pad;
                cell.remove_attr("colspan");
            }
        }
    }
    added
}

/// The rows of `table` itself (not of tables nested in it), in document order.
fn table_rows<'a>(table: &NodeRef<'a>) -> Vec<NodeRef<'a>> {
    let mut rows = Vec::new();
    for child in table.element_children() {
        if child.has_name("tr") {
            rows.push(child);
        } else if matches!(
            child.node_name().as_deref(),
            Some("thead" | "tbody" | "tfoot")
        ) {
            rows.extend(
                child
                    .element_children()
                    .into_iter()
                    .filter(|r| r.has_name("tr")),
            );
        }
    }
    rows
}

fn row_cells<'a>(row: &NodeRef<'a>) -> Vec<NodeRef<'a>> {
    row.element_children()
        .into_iter()
        .filter(|c| c.has_name("td") || c.has_name("th"))
        .collect()
}

/// Link noise: tooltips repeat the link text, heading self-links wrap the heading, and
/// permalink markers (`¶`, `#`, `§`, `🔗`) are not content.
fn tidy_fragment_links(links: &[NodeRef]) {
    for link in links {
        let text = link.text();
        let text = text.trim();
        let has_media = link.descendants_it().any(|d| d.has_name("img"));
        if !has_media && matches!(text, "" | "¶" | "#" | "§" | "🔗" | "⁋") {
            link.remove_from_parent();
        } else if link.ancestors_it(Some(4)).any(|a| {
            matches!(
                a.node_name().as_deref(),
                Some("h1" | "h2" | "h3" | "h4" | "h5" | "h6")
            )
        }) {
            unwrap_element(link);
        }
    }
}

/// Elements nested deeper than this are unwrapped (their content kept, the elements
/// dropped). The Markdown writer and dom_smoothie recurse once per level, and a stack
/// overflow aborts the process (`catch_unwind` cannot catch it): the writer needs less
/// than 4 KB of stack per level in a debug build (a test pins it), so 256 levels stay well
/// inside a 2 MB thread stack (the default for spawned and `spawn_blocking` threads). Real
/// pages rarely pass 60.
pub const MAX_DEPTH: usize = 256;

/// How the nesting pre-pass treats a tag name.
#[derive(Clone, Copy, PartialEq, Eq)]
enum TagClass {
    /// Void elements and those whose end tag is optional: they never count as depth.
    Flat,
    /// Raw-text elements: nothing inside them is a tag.
    RawText,
    /// Everything else nests.
    Nesting,
}

fn tag_class(name: &[u8]) -> TagClass {
    let mut buf = [0u8; 16];
    let Some(lower) = buf.get_mut(..name.len()) else {
        return TagClass::Nesting; // Longer than any name below.
    };
    lower.copy_from_slice(name);
    lower.make_ascii_lowercase();
    match &*lower {
        b"area" | b"base" | b"br" | b"col" | b"embed" | b"hr" | b"img" | b"input" | b"link"
        | b"meta" | b"source" | b"track" | b"wbr" | b"param" | b"keygen" | b"frame"
        | b"basefont" | b"bgsound" | b"p" | b"li" | b"dt" | b"dd" | b"tr" | b"td" | b"th"
        | b"option" | b"optgroup" | b"tbody" | b"thead" | b"tfoot" | b"colgroup" | b"caption"
        | b"rb" | b"rt" | b"rp" | b"html" | b"head" | b"body" => TagClass::Flat,
        b"script" | b"style" | b"textarea" | b"title" | b"xmp" | b"iframe" | b"noembed"
        | b"noframes" | b"plaintext" => TagClass::RawText,
        _ => TagClass::Nesting,
    }
}

/// Drop start and end tags nested deeper than `max_depth`, keeping everything else
/// (text, entities, shallower markup) byte for byte.
///
/// html5ever checks element scopes by walking the stack of open elements, so parsing is
/// quadratic in nesting depth: 1 MB of nested `<div>`s takes about 40 s in a release
/// build, 5 MB about 20 minutes. This linear pre-pass (an approximate tokenizer that
/// knows comments, quoted attributes, raw-text elements, void elements and optional end
/// tags) keeps hostile pages cheap. Real pages are far shallower and come back borrowed,
/// untouched. [`prepare`] then enforces the exact bound on the parsed tree.
fn cap_nesting(html: &str, max_depth: usize) -> std::borrow::Cow<'_, str> {
    let bytes = html.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0usize;
    let mut depth = 0usize;
    let mut elements = 0usize;
    let mut i = 0usize;
    while let Some(offset) = html.get(i..).and_then(|rest| rest.find('<')) {
        let start = i + offset;
        if elements % 1024 == 0 && cancelled() {
            break;
        }
        let rest = &bytes[start..];
        if rest.starts_with(b"<!--") {
            i = find_from(bytes, start + 4, b"-->").map_or(bytes.len(), |p| p + 3);
            continue;
        }
        let closing = rest.get(1) == Some(&b'/');
        let name_start = start + 1 + usize::from(closing);
        if !bytes.get(name_start).is_some_and(u8::is_ascii_alphabetic) {
            i = start + 1;
            continue;
        }
        let name_end = bytes[name_start..]
            .iter()
            .position(|b| !(b.is_ascii_alphanumeric() || *b == b'-' || *b == b':'))
            .map_or(bytes.len(), |p| name_start + p);
        let name = &bytes[name_start..name_end];
        let end = tag_end(bytes, name_end);
        let self_closing = bytes[..end].ends_with(b"/>");
        let class = tag_class(name);
        let mut drop_tag = false;
        if !closing {
            elements += 1;
        }
        if elements > MAX_ELEMENTS {
            // Past the element budget markup is dropped and text kept; a raw-text element
            // (script, style) goes whole, as its content was never text.
            let until = if class == TagClass::RawText && !closing {
                let mut close = Vec::with_capacity(name.len() + 2);
                close.extend_from_slice(b"</");
                close.extend_from_slice(name);
                find_from_ascii_ci(bytes, end, &close)
                    .map_or(bytes.len(), |p| tag_end(bytes, p + close.len()))
            } else {
                end
            };
            let buf = out.get_or_insert_with(|| String::with_capacity(html.len()));
            buf.push_str(html.get(copied..start).unwrap_or(""));
            copied = until;
            i = until;
            continue;
        }
        if closing {
            if class != TagClass::Flat && depth > 0 {
                drop_tag = depth > max_depth;
                depth -= 1;
            }
            i = end;
        } else if class == TagClass::RawText {
            // Skip to the matching end tag; raw text is a leaf.
            let mut close = Vec::with_capacity(name.len() + 2);
            close.extend_from_slice(b"</");
            close.extend_from_slice(name);
            i = find_from_ascii_ci(bytes, end, &close).unwrap_or(bytes.len());
        } else {
            if class == TagClass::Nesting && !self_closing {
                depth += 1;
                drop_tag = depth > max_depth;
            }
            i = end;
        }
        if drop_tag {
            let buf = out.get_or_insert_with(|| String::with_capacity(html.len()));
            // `<` and `>` are ASCII, so these are char boundaries; `get` keeps it panic-free.
            buf.push_str(html.get(copied..start).unwrap_or(""));
            copied = end;
        } else if !closing && end.saturating_sub(name_end) > MAX_ATTRIBUTES {
            // Every attribute takes at least one byte: a shorter tag cannot have too many.
            if let Some(cut) = attributes_cut(bytes, name_end, end, MAX_ATTRIBUTES) {
                // Keep the first MAX_ATTRIBUTES attributes and the tag's end (`>`). The cut
                // is at an attribute's first byte, an ASCII boundary after whitespace.
                let keep_from = if bytes[..end].ends_with(b">") {
                    end - 1
                } else {
                    end
                };
                let buf = out.get_or_insert_with(|| String::with_capacity(html.len()));
                buf.push_str(html.get(copied..cut).unwrap_or(""));
                copied = keep_from;
            }
        }
    }
    match out {
        None => std::borrow::Cow::Borrowed(html),
        Some(mut buf) => {
            buf.push_str(html.get(copied..).unwrap_or(""));
            std::borrow::Cow::Owned(buf)
        }
    }
}

/// Attributes kept per element; the rest are dropped before parsing. html5ever checks each
/// new attribute against all earlier ones of its element (to drop duplicates), which is
/// quadratic: one `<div a0 … a99999>` (1.2 MB) took 12.5 s. Real elements have a few dozen.
pub const MAX_ATTRIBUTES: usize = 256;

/// Start tags kept per page; past them tags are dropped (text kept, `<script>` and
/// `<style>` elements dropped whole). Bounds the tree's size, hence memory and every walk
/// over it: a 5 MiB body of `<b>`s would otherwise be 1.3 million nodes.
pub const MAX_ELEMENTS: usize = 100_000;

/// Where the `(max+1)`-th attribute of a start tag begins (its name ends at `from`, the tag
/// at `end`), or `None` when it has at most `max`. Attributes are read as the HTML
/// tokenizer reads them: a name, then optionally `=` and a quoted or unquoted value.
fn attributes_cut(bytes: &[u8], from: usize, end: usize, max: usize) -> Option<usize> {
    let mut k = from;
    let mut count = 0usize;
    let stop = end.min(bytes.len());
    loop {
        while k < stop && (bytes[k].is_ascii_whitespace() || bytes[k] == b'/') {
            k += 1;
        }
        if k >= stop || bytes[k] == b'>' {
            return None;
        }
        count += 1;
        if count > max {
            return Some(k);
        }
        // The name (a leading `=` belongs to it).
        k += 1;
        while k < stop && !matches!(bytes[k], b'=' | b'>' | b'/') && !bytes[k].is_ascii_whitespace()
        {
            k += 1;
        }
        let mut v = k;
        while v < stop && bytes[v].is_ascii_whitespace() {
            v += 1;
        }
        if v < stop && bytes[v] == b'=' {
            v += 1;
            while v < stop && bytes[v].is_ascii_whitespace() {
                v += 1;
            }
            match bytes.get(v) {
                Some(&q @ (b'"' | b'\'')) => {
                    v += 1;
                    while v < stop && bytes[v] != q {
                        v += 1;
                    }
                    v += 1;
                }
                _ => {
                    while v < stop && bytes[v] != b'>' && !bytes[v].is_ascii_whitespace() {
                        v += 1;
                    }
                }
            }
            k = v;
        }
    }
}

/// The index just past the `>` that ends a tag whose name ends at `from`, honouring
/// quoted attribute values.
fn tag_end(bytes: &[u8], from: usize) -> usize {
    let mut quote: Option<u8> = None;
    let mut after_equals = false;
    for (k, &b) in bytes.iter().enumerate().skip(from) {
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            // A quote opens a value only right after `=` (spaces allowed in between).
            None if after_equals && (b == b'"' || b == b'\'') => quote = Some(b),
            None if b == b'>' => return k + 1,
            None => {}
        }
        if !b.is_ascii_whitespace() {
            after_equals = quote.is_none() && b == b'=';
        }
    }
    bytes.len()
}

fn find_from(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    bytes
        .get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| from + p)
}

fn find_from_ascii_ci(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    bytes
        .get(from..)?
        .windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle))
        .map(|p| from + p)
}

/// The page's `<title>` (not an SVG one), whitespace-collapsed; `None` when empty.
fn page_title(doc: &Document) -> Option<String> {
    let titles = doc.select("title");
    let node = titles
        .nodes()
        .iter()
        .find(|n| !n.ancestors_it(None).any(|a| a.has_name("svg")))?;
    let collapsed = collapse_whitespace(&node.text());
    (!collapsed.is_empty()).then_some(collapsed)
}

/// The start of the page up to the end of its head (or all of it when no end is found).
fn head_prefix(body: &str) -> &str {
    let lower = body.as_bytes().to_ascii_lowercase();
    for marker in [&b"</head"[..], b"<body"] {
        if let Some(pos) = lower.windows(marker.len()).position(|w| w == marker) {
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

// --- preparation ------------------------------------------------------------------------

/// id/class fragments of cookie and consent banners (lowercase).
const CONSENT_MARKERS: &[&str] = &[
    "gdpr",
    "onetrust",
    "cookiebot",
    "cookieconsent",
    "cookie-consent",
    "cookie_consent",
    "cookiebanner",
    "cookie-banner",
    "cookie_banner",
    "cookienotice",
    "cookie-notice",
    "cookie_notice",
    "cookiebar",
    "cookie-bar",
    "cookie-popup",
    "cookie-law",
    "cookie-wall",
    "cookie-modal",
    "cookie-dialog",
    "cookie-message",
    "consent-banner",
    "consent_banner",
    "consent-manager",
    "consent-popup",
    "cc-window",
    "cc-banner",
    "cmp-banner",
    "qc-cmp",
];

/// Whether lowercase id/class names contain one of [`CONSENT_MARKERS`]. Every marker
/// starts with `c`, `g`, `o` or `q`, so only those positions are tried (most class names
/// never get past the first byte).
fn names_consent_banner(names: &str) -> bool {
    names
        .match_indices(['c', 'g', 'o', 'q'])
        .any(|(i, _)| CONSENT_MARKERS.iter().any(|m| names[i..].starts_with(m)))
}

/// Drop cookie/consent banners: elements whose id or class names one, that are short and
/// do not wrap the page's main content.
fn remove_consent_banners(candidates: &[NodeRef]) {
    for node in candidates {
        let wraps_content = node
            .descendants_it()
            .any(|d| d.has_name("article") || d.has_name("main") || d.has_name("h1"));
        if !wraps_content && node.normalized_char_count() < 3000 {
            node.remove_from_parent();
        }
    }
}

/// Make every `<pre>` hold one `<code>` (so the writer fences it) and put the language, when
/// the page names it, on that `<code>` as `language-X` (which the writer reads).
fn normalize_code_blocks(doc: &Document, pres: &[NodeRef]) {
    for pre in pres {
        let lang = code_language(pre);
        let children = pre.element_children();
        let code = match children.as_slice() {
            [only] if only.has_name("code") && !has_direct_text(pre) => *only,
            _ => {
                // Wrap the whole content of the <pre> in a new <code>.
                let code = doc.tree.new_element("code");
                if let Some(first) = pre.first_child() {
                    code.append_children(&first);
                }
                pre.append_child(&code);
                code
            }
        };
        if let Some(lang) = lang {
            let has_lang = code
                .class()
                .is_some_and(|c| c.split_whitespace().any(|t| t.starts_with("language-")));
            if !has_lang {
                code.add_class(&format!("language-{lang}"));
            }
        }
    }
}

/// Non-whitespace text directly inside `node` (outside its child elements).
fn has_direct_text(node: &NodeRef) -> bool {
    node.children_it(false)
        .any(|c| c.is_text() && !c.text().trim().is_empty())
}

/// The language a code block declares, from the `<pre>`, its `<code>` child, or the two
/// nearest ancestors (highlighters put it on a wrapper `<div>`).
fn code_language(pre: &NodeRef) -> Option<String> {
    let mut nodes: Vec<NodeRef> = Vec::new();
    if let Some(code) = pre
        .element_children()
        .into_iter()
        .find(|c| c.has_name("code"))
    {
        nodes.push(code);
    }
    nodes.push(*pre);
    for node in &nodes {
        for attr in ["data-lang", "data-language"] {
            if let Some(lang) = node.attr(attr).and_then(|v| clean_language(&v)) {
                return Some(lang);
            }
        }
    }
    if let Some(lang) = pre.attr("lang").and_then(|v| clean_language(&v)) {
        return Some(lang);
    }
    nodes.extend(pre.ancestors_it(Some(2)));
    nodes
        .iter()
        .filter_map(|n| n.class())
        .find_map(|class| language_from_class(&class))
}

fn language_from_class(class: &str) -> Option<String> {
    let mut tokens = class.split_whitespace().peekable();
    while let Some(token) = tokens.next() {
        let lower = token.to_ascii_lowercase();
        if lower == "brush:" {
            if let Some(lang) = tokens
                .peek()
                .and_then(|t| clean_language(t.trim_end_matches(';')))
            {
                return Some(lang);
            }
            continue;
        }
        if let Some(rest) = lower.strip_prefix("brush:") {
            if let Some(lang) = clean_language(rest.trim_end_matches(';')) {
                return Some(lang);
            }
        }
        for prefix in ["language-", "lang-", "highlight-source-", "highlight-"] {
            if let Some(lang) = token
                .get(prefix.len()..)
                .filter(|_| lower.starts_with(prefix))
            {
                if let Some(lang) = clean_language(lang) {
                    return Some(lang);
                }
            }
        }
    }
    None
}

/// A plausible language name, or `None` for empty, odd or "no language" values.
fn clean_language(raw: &str) -> Option<String> {
    let lang = raw.trim();
    let plausible = !lang.is_empty()
        && lang.len() <= 32
        && lang
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '_' | '.' | '#'));
    let meaningless = matches!(
        lang.to_ascii_lowercase().as_str(),
        "default" | "none" | "notranslate" | "plain" | "nohighlight"
    );
    (plausible && !meaningless).then(|| lang.to_owned())
}

/// Whole-body fallback: remove what is never content (scripts, embeds, navigation,
/// page footers, form controls, dialogs, hidden elements), and page headers and sidebars
/// unless they sit inside an `<article>` or `<main>`.
fn strip_boilerplate(doc: &Document) {
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
            let (always, outside_content, content) = child
                .qual_name_ref()
                .map(|name| match &*name.local {
                    "script" | "style" | "noscript" | "template" | "svg" | "canvas" | "iframe"
                    | "object" | "embed" | "nav" | "footer" | "dialog" | "button" | "select"
                    | "input" | "textarea" => (true, false, false),
                    "header" | "aside" => (false, true, false),
                    "article" | "main" => (false, false, true),
                    _ => (false, false, false),
                })
                .unwrap_or_default();
            let role = child.attr("role");
            let role = role.as_deref().map(str::trim).unwrap_or("");
            let doomed_role = matches!(
                role,
                "navigation"
                    | "contentinfo"
                    | "search"
                    | "dialog"
                    | "alertdialog"
                    | "menu"
                    | "menubar"
            );
            let side_role = matches!(role, "banner" | "complementary");
            if always
                || doomed_role
                || child.has_attr("hidden")
                || ((outside_content || side_role) && !in_content)
            {
                doomed.push(child);
            } else {
                stack.push((child, in_content || content || role == "main"));
            }
        }
    }
    for node in doomed {
        node.remove_from_parent();
    }
}

/// Make `a[href]` and `img[src]` absolute (readability does this itself on its path).
fn absolutize_links(doc: &Document, base: &url::Url) {
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

// --- rendering --------------------------------------------------------------------------

/// `sel`'s first node written as Markdown ([`crate::content::markdown`]), tidied.
fn html_to_markdown(sel: &Selection) -> String {
    match sel.nodes().first() {
        Some(node) => tidy_markdown(&crate::content::markdown::to_markdown(node)),
        None => String::new(),
    }
}

/// Plain text of `sel`: list items get `- ` / `N. ` markers and table cells ` | `
/// separators before dom_query's formatted text (which keeps paragraph breaks).
fn selection_text(sel: &Selection, doc: &Document) -> String {
    // The elements below `sel` each step works on, found in one walk (a `select` per step
    // was a walk each, with selector matching at every element).
    let mut skipped: Vec<NodeRef> = Vec::new();
    let mut blocks: Vec<NodeRef> = Vec::new();
    let mut lists: Vec<NodeRef> = Vec::new();
    let mut items: Vec<NodeRef> = Vec::new();
    let mut cells: Vec<NodeRef> = Vec::new();
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
                    | "object" | "embed" | "nav" | "button" | "select" | "input" | "textarea"
                    | "dialog",
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
                _ => {}
            }
            stack.push(child);
        }
    }
    for node in skipped {
        node.remove_from_parent();
    }
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

// --- text tidying -----------------------------------------------------------------------

/// Characters that are not whitespace, a cheap measure of how much text there is.
fn visible_chars(s: &str) -> usize {
    s.chars().filter(|c| !c.is_whitespace()).count()
}

/// `visible_chars(s) >= n`, stopping as soon as it is known.
fn has_visible_chars(s: &str, n: usize) -> bool {
    n == 0
        || s.chars()
            .filter(|c| !c.is_whitespace())
            .nth(n - 1)
            .is_some()
}

fn collapse_whitespace(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Markdown: outside fenced code blocks, whitespace-only lines become empty and runs of
/// blank lines collapse to one; fenced blocks are kept byte for byte. Ends are trimmed.
/// The redaction marker, put into the page before conversion, comes out of the converter
/// as `\[REDACTED\]`. It reads the same, but the backslashes are noise for a model reading
/// the Markdown as text: undo them, except where the bare brackets could start a link
/// (`[REDACTED](…)`, `[REDACTED][…]`, `[REDACTED]:`).
fn unescape_markers(md: &str) -> std::borrow::Cow<'_, str> {
    const ESCAPED: &str = "\\[REDACTED\\]";
    if !md.contains(ESCAPED) {
        return std::borrow::Cow::Borrowed(md);
    }
    let mut out = String::with_capacity(md.len());
    let mut rest = md;
    while let Some(i) = rest.find(ESCAPED) {
        out.push_str(&rest[..i]);
        let after = &rest[i + ESCAPED.len()..];
        if after.starts_with(['(', '[', ':']) {
            out.push_str(ESCAPED);
        } else {
            out.push_str("[REDACTED]");
        }
        rest = after;
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

fn tidy_markdown(md: &str) -> String {
    let md = &*unescape_markers(md);
    let mut out = String::with_capacity(md.len());
    let mut fence: Option<(char, usize)> = None;
    let mut blank_run = 0usize;
    let mut table_row = 0usize;
    for line in md.split('\n') {
        match fence {
            Some((ch, len)) => {
                out.push_str(line);
                out.push('\n');
                if closes_fence(line, ch, len) {
                    fence = None;
                }
            }
            None => {
                if line.trim().is_empty() {
                    table_row = 0;
                    blank_run += 1;
                    if blank_run == 1 {
                        out.push('\n');
                    }
                    continue;
                }
                blank_run = 0;
                fence = opens_fence(line);
                if fence.is_none() && line.starts_with('|') {
                    push_compact_table_row(&mut out, line, table_row == 1);
                    table_row += 1;
                } else {
                    out.push_str(line);
                    table_row = 0;
                }
                out.push('\n');
            }
        }
    }
    trim_in_place(out)
}

/// Table rows: padding inside cells (from a converter that pads to the column width, or
/// from the page) costs a reader tokens on wide tables: one space is kept before each `|`,
/// and delimiter dashes are shortened to three.
fn push_compact_table_row(out: &mut String, line: &str, second_row: bool) {
    let line = line.trim_end();
    let is_delimiter = second_row
        && line.contains('-')
        && line.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '));
    if is_delimiter {
        let inner = line.strip_prefix('|').unwrap_or(line);
        let inner = inner.strip_suffix('|').unwrap_or(inner);
        out.push('|');
        for cell in inner.split('|') {
            let cell = cell.trim();
            out.push_str(
                match (cell.starts_with(':'), cell.ends_with(':') && cell.len() > 1) {
                    (true, true) => " :---: |",
                    (true, false) => " :--- |",
                    (false, true) => " ---: |",
                    (false, false) => " --- |",
                },
            );
        }
        return;
    }
    let mut pending_spaces = 0usize;
    for c in line.chars() {
        if c == ' ' {
            pending_spaces += 1;
            continue;
        }
        if pending_spaces > 0 {
            // Cells are single lines of prose: one space is enough anywhere.
            out.push(' ');
            pending_spaces = 0;
        }
        out.push(c);
    }
    // A `|` inside a cell written as `&#124;` (htmd did): GFM's escape reads better.
    if line.contains("&#124;") {
        let start = out.rfind('\n').map_or(0, |p| p + 1);
        let row = out.split_off(start).replace("&#124;", "\\|");
        out.push_str(&row);
    }
}

/// An opening code fence: up to 3 spaces, then 3+ backticks or tildes.
fn opens_fence(line: &str) -> Option<(char, usize)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let ch = rest.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = rest.len() - rest.trim_start_matches(ch).len();
    // A backtick fence's info string may not contain backticks.
    let info_ok = ch == '~' || !rest[len..].contains('`');
    (len >= 3 && info_ok).then_some((ch, len))
}

fn closes_fence(line: &str, ch: char, len: usize) -> bool {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return false;
    }
    let rest = &line[indent..];
    let run = rest.len() - rest.trim_start_matches(ch).len();
    run >= len && rest[run..].trim().is_empty()
}

/// Plain text: whitespace-only lines become empty, runs of blank lines collapse to one,
/// ends are trimmed.
fn tidy_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank_run = 0usize;
    for line in text.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() {
            blank_run += 1;
            if blank_run == 1 {
                out.push('\n');
            }
            continue;
        }
        blank_run = 0;
        out.push_str(line.trim_end());
        out.push('\n');
    }
    trim_in_place(out)
}

fn trim_in_place(mut s: String) -> String {
    let end = s.trim_end().len();
    s.truncate(end);
    let start = s.len() - s.trim_start().len();
    s.drain(..start);
    s
}

// ---------------------------------------------------------------------------------------
// JSON
// ---------------------------------------------------------------------------------------

/// JSON nested deeper than this is returned as it is (serde_json's own recursion limit).
pub const MAX_JSON_DEPTH: usize = 128;

/// Re-indent valid JSON with two spaces. The tokens are copied as they are (no number or
/// string re-encoding), so big integers, `1.0`, key order and duplicate keys survive.
///
/// `None` (the caller returns the body as it is) when the JSON does not parse, nests
/// deeper than [`MAX_JSON_DEPTH`], or would grow past [`max_pretty_len`]: indentation
/// costs two bytes per level per line, so hostile nesting (`[[[[…]]]]`) would otherwise
/// turn 40 KB into 800 MB.
fn pretty_json(body: &str) -> Option<String> {
    let src = body.trim_start_matches('\u{feff}');
    // `IgnoredAny` skips values without serde_json's recursion limit, so depth is
    // checked below while re-indenting.
    serde_json::from_str::<serde::de::IgnoredAny>(src).ok()?;
    let limit = max_pretty_len(src.len());
    let mut out = String::with_capacity(src.len() + src.len() / 2);
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let mut chars = src.chars().peekable();
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        for _ in 0..depth {
            out.push_str("  ");
        }
    };
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '{' | '[' => {
                let close = if c == '{' { '}' } else { ']' };
                while chars.peek().is_some_and(|n| n.is_ascii_whitespace()) {
                    chars.next();
                }
                out.push(c);
                if chars.peek() == Some(&close) {
                    chars.next();
                    out.push(close);
                } else {
                    depth += 1;
                    if depth > MAX_JSON_DEPTH {
                        return None;
                    }
                    newline(&mut out, depth);
                }
            }
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(c);
            }
            ',' => {
                out.push(',');
                newline(&mut out, depth);
                if out.len() > limit {
                    return None;
                }
            }
            ':' => out.push_str(": "),
            ' ' | '\t' | '\n' | '\r' => {}
            _ => out.push(c),
        }
    }
    (out.len() <= limit).then_some(out)
}

/// The longest pretty-printed JSON returned for a body of `len` bytes: four times the
/// body plus 64 KiB. Larger results (very many tiny values deep down) are returned as is.
pub fn max_pretty_len(len: usize) -> usize {
    len.saturating_mul(4).saturating_add(64 * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redaction_markers_lose_the_converters_escapes_unless_they_could_start_a_link() {
        assert_eq!(
            unescape_markers("key \\[REDACTED\\] and \\[REDACTED\\](x) \\[REDACTED\\]:"),
            "key [REDACTED] and \\[REDACTED\\](x) \\[REDACTED\\]:"
        );
        assert_eq!(unescape_markers("plain \\[x\\]"), "plain \\[x\\]");
    }

    const ARTICLE: &str = include_str!("../../tests/fixtures/extract/article.html");
    const DOCS: &str = include_str!("../../tests/fixtures/extract/docs.html");
    const CP1252: &[u8] = include_bytes!("../../tests/fixtures/extract/windows-1252.html");
    const SPA: &str = include_str!("../../tests/fixtures/extract/spa.html");
    const BLOG: &str = include_str!("../../tests/fixtures/extract/blog-h1.html");

    fn md(html: &str) -> Extracted {
        extract(
            html,
            BodyKind::Html,
            ExtractMode::Auto,
            Some("https://news.example.com/2024/05/urban-heat"),
        )
    }

    #[test]
    fn article_keeps_main_text() {
        let out = md(ARTICLE);
        assert!(
            out.text.contains("# How Cities Are Rethinking Urban Heat"),
            "{}",
            out.text
        );
        assert!(out.text.contains("Phoenix recorded 113 consecutive days"));
        assert!(out.text.contains("## Cool roofs and shade"));
        assert!(out.text.contains("- Reflective roof coatings"));
        assert!(out.text.contains("> Shade is infrastructure"));
        assert!(out
            .text
            .contains("[heat action plan](https://news.example.com/2024/05/heat-plan)"));
        assert!(out.text.contains("closing paragraph of the article"));
    }

    /// The page's own `<h1>` is the heading, not the `<title>` with the site's name (which
    /// goes to the receipt's `title`), and it is not demoted to `##`; share bar, caption and
    /// photo credit, newsletter box and related posts are gone. Snapshot:
    /// `tests/fixtures/extract/blog-h1.md` (`UPDATE_SNAPSHOTS=1` rewrites it).
    #[test]
    fn blog_keeps_its_h1_and_drops_boilerplate() {
        let out = extract(
            BLOG,
            BodyKind::Html,
            ExtractMode::Auto,
            Some("https://blog.example/2025/release-2"),
        );
        let snap = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/extract/blog-h1.md"
        );
        if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
            std::fs::write(snap, format!("{}\n", out.text)).expect("write the snapshot");
        }
        let want = std::fs::read_to_string(snap).unwrap_or_default();
        assert_eq!(out.text, want.trim_end(), "snapshot {snap}");
        assert!(out.text.starts_with("# Release 2.0\n\n"), "{}", out.text);
        assert!(!out.text.contains("## Release 2.0"), "{}", out.text);
        assert_eq!(out.title.as_deref(), Some("Release 2.0 | Dev Blog"));
        let text = extract(BLOG, BodyKind::Html, ExtractMode::Text, None).text;
        assert!(text.starts_with("Release 2.0\n\nVersion 2.0"), "{text}");
        for out in [&out.text, &text] {
            assert!(!out.contains("Dev Blog"), "{out}");
            assert!(out.contains("Thanks to everyone who tested"), "{out}");
            assert!(out.contains("p.feed(chunk);"), "{out}");
            for junk in [
                "Share on",
                "Photo: Jane Doe",
                "Get the next release notes",
                "You may also like",
                "Release 1.9",
            ] {
                assert!(!out.contains(junk), "found {junk:?} in:\n{out}");
            }
        }
    }

    #[test]
    fn article_drops_boilerplate() {
        let out = md(ARTICLE);
        for junk in [
            "We use cookies",
            "Accept all",
            "Subscribe for $1",
            "Trending now",
            "All rights reserved",
            "Privacy policy",
            "Sports",
            "gtag(",
        ] {
            assert!(!out.text.contains(junk), "found {junk:?} in:\n{}", out.text);
        }
    }

    #[test]
    fn title_is_extracted_and_collapsed() {
        let out = md(ARTICLE);
        assert_eq!(
            out.title.as_deref(),
            Some("How Cities Are Rethinking Urban Heat | The Daily Example")
        );
        let tiny = extract(
            "<html><head><title>\n  A   spaced\ttitle </title></head><body>x</body></html>",
            BodyKind::Html,
            ExtractMode::Auto,
            None,
        );
        assert_eq!(tiny.title.as_deref(), Some("A spaced title"));
        let none = extract("<p>no title</p>", BodyKind::Html, ExtractMode::Auto, None);
        assert_eq!(none.title, None);
        let empty = extract(
            "<title>  </title><p>x</p>",
            BodyKind::Html,
            ExtractMode::Auto,
            None,
        );
        assert_eq!(empty.title, None);
    }

    #[test]
    fn docs_code_block_is_fenced_and_exact() {
        let out = md(DOCS);
        let rust = "```rust\nuse std::collections::HashMap;\n\nfn main() {\n    let mut counts: HashMap<&str, Vec<u8>> = HashMap::new();\n    if 1 < 2 && 3 > 2 {\n        counts.entry(\"a\").or_default().push(b'x');\n    }\n\n\n\n    // `three` blank lines above are kept *as is* [x](y)\n    println!(\"{counts:?}\");\n}\n```";
        assert!(out.text.contains(rust), "{}", out.text);
        assert!(
            out.text
                .contains("```toml\n[lookup]\nmax_chars = 20000\n```"),
            "{}",
            out.text
        );
        // A bare <pre> in a Sphinx-style wrapper: wrapped and labelled.
        assert!(
            out.text
                .contains("```shell\n$ cargo add vetch\n$ vetch lookup https://example.com\n```"),
            "{}",
            out.text
        );
    }

    #[test]
    fn docs_table_is_a_markdown_table() {
        let out = md(DOCS);
        let lines: Vec<&str> = out.text.lines().collect();
        let header = lines
            .iter()
            .position(|l| l.starts_with("| Option") && l.contains("| Default"))
            .unwrap_or_else(|| panic!("no table header in:\n{}", out.text));
        assert!(lines[header + 1].starts_with("| ---"));
        assert!(lines[header + 2].contains("`max_attempts`") && lines[header + 2].contains("| 3"));
        assert!(lines[header + 3].contains("`max_chars`"));
        assert!(!out.text.contains("On this page"), "{}", out.text);
    }

    #[test]
    fn windows_1252_page() {
        let (decoded, _, had_errors) = encoding_rs::WINDOWS_1252.decode(CP1252);
        assert!(!had_errors);
        let out = md(&decoded);
        assert_eq!(out.title.as_deref(), Some("Café crème – prix en €"));
        assert!(
            out.text.contains("Le café coûte 3,50 € au comptoir"),
            "{}",
            out.text
        );
        assert!(
            out.text.contains("“le meilleur de la ville”"),
            "{}",
            out.text
        );
        assert!(out.text.contains("œuvre"));
    }

    #[test]
    fn js_heavy_page_gives_little_and_no_script() {
        let out = md(SPA);
        assert!(out.text.contains("Loading dashboard"), "{}", out.text);
        assert!(visible_chars(&out.text) < 200, "{}", out.text);
        for junk in [
            "function",
            "__NEXT_DATA__",
            "window.",
            "enable JavaScript",
            "webpack",
        ] {
            assert!(!out.text.contains(junk), "found {junk:?} in:\n{}", out.text);
        }
        assert_eq!(out.title.as_deref(), Some("Acme Analytics"));
    }

    #[test]
    fn text_mode_has_no_markdown_syntax() {
        let out = extract(
            ARTICLE,
            BodyKind::Html,
            ExtractMode::Text,
            Some("https://news.example.com/"),
        );
        assert!(out.text.contains("How Cities Are Rethinking Urban Heat"));
        assert!(out.text.contains("Phoenix recorded 113 consecutive days"));
        assert!(out.text.contains("\n\n"), "paragraph breaks kept");
        assert!(out.text.contains("- Reflective roof coatings"));
        assert!(!out.text.contains('#'), "{}", out.text);
        assert!(!out.text.contains("**"), "{}", out.text);
        assert!(!out.text.contains("]("), "{}", out.text);
        assert!(!out.text.contains("We use cookies"));
        let docs = extract(DOCS, BodyKind::Html, ExtractMode::Text, None);
        assert!(!docs.text.contains("```"), "{}", docs.text);
        assert!(
            docs.text.contains("max_attempts | integer | 3"),
            "{}",
            docs.text
        );
        assert!(docs.text.contains("    let mut counts"), "{}", docs.text);
    }

    #[test]
    fn text_mode_lists_and_tables() {
        let html = "<body><h2>Steps</h2><ol start=\"3\"><li>mix</li><li>bake <b>hot</b></li></ol>\
                    <ul><li>salt</li></ul><table><tr><th>k</th><th>v</th></tr>\
                    <tr><td>a</td><td>1</td></tr></table><figure>fig</figure><p>end</p></body>";
        let out = extract(html, BodyKind::Html, ExtractMode::Text, None);
        assert_eq!(
            out.text,
            "Steps\n\n3. mix\n4. bake hot\n\n- salt\n\nk | v\na | 1\n\nfig\n\nend"
        );
    }

    #[test]
    fn raw_is_untouched() {
        for body in [ARTICLE, SPA, "  <p>odd\r\n\n\n\nspacing</p>  "] {
            let out = extract(body, BodyKind::Html, ExtractMode::Raw, None);
            assert_eq!(out.text, body);
        }
        let out = extract(ARTICLE, BodyKind::Html, ExtractMode::Raw, None);
        assert_eq!(
            out.title.as_deref(),
            Some("How Cities Are Rethinking Urban Heat | The Daily Example")
        );
        let json = "{\"a\":1}";
        assert_eq!(
            extract(json, BodyKind::Json, ExtractMode::Raw, None).text,
            json
        );
    }

    #[test]
    fn json_is_pretty_printed_exactly() {
        let body = r#"{"b":[1,2,{"c":null}],"a":"x\"y,{z}:","big":12345678901234567890123,"f":1.0,"e":{},"l":[ ],"b":true}"#;
        let expected = "{\n  \"b\": [\n    1,\n    2,\n    {\n      \"c\": null\n    }\n  ],\n  \"a\": \"x\\\"y,{z}:\",\n  \"big\": 12345678901234567890123,\n  \"f\": 1.0,\n  \"e\": {},\n  \"l\": [],\n  \"b\": true\n}";
        for mode in [ExtractMode::Auto, ExtractMode::Markdown, ExtractMode::Text] {
            let out = extract(body, BodyKind::Json, mode, None);
            assert_eq!(out.text, expected);
            assert_eq!(out.title, None);
        }
        let bad = "{\"a\": 1,}";
        assert_eq!(
            extract(bad, BodyKind::Json, ExtractMode::Auto, None).text,
            bad
        );
        assert_eq!(
            extract("\u{feff}[1]", BodyKind::Json, ExtractMode::Auto, None).text,
            "[\n  1\n]"
        );
    }

    #[test]
    fn deeply_nested_json_is_returned_as_is_not_blown_up() {
        // 20 000 levels: re-indenting made 800 million characters.
        let deep = format!("{}{}", "[".repeat(20_000), "]".repeat(20_000));
        assert_eq!(
            extract(&deep, BodyKind::Json, ExtractMode::Auto, None).text,
            deep
        );
        let at_limit = format!("{}1{}", "[".repeat(128), "]".repeat(128));
        let out = extract(&at_limit, BodyKind::Json, ExtractMode::Auto, None).text;
        assert_ne!(out, at_limit);
        let over = format!("{}1{}", "[".repeat(129), "]".repeat(129));
        assert_eq!(
            extract(&over, BodyKind::Json, ExtractMode::Auto, None).text,
            over
        );
        // Many values deep down: the output stays within a small multiple of the body.
        let wide = format!(
            "{}{}1{}",
            "[".repeat(120),
            "1,".repeat(100_000),
            "]".repeat(120)
        );
        let out = extract(&wide, BodyKind::Json, ExtractMode::Auto, None).text;
        assert!(out.len() <= max_pretty_len(wide.len()), "{}", out.len());
    }

    #[test]
    fn many_attributes_are_cut_before_parsing_not_quadratic() {
        let attrs: String = (0..5000).map(|i| format!(" a{i}=\"v\"")).collect();
        let html = format!("<html><body><div{attrs} id=last>kept text</div></body></html>");
        let capped = cap_nesting(&html, MAX_DEPTH);
        assert_eq!(capped.matches("=\"v\"").count(), MAX_ATTRIBUTES);
        assert!(!capped.contains("id=last"));
        assert!(capped.contains(">kept text</div>"));
        let out = extract(&html, BodyKind::Html, ExtractMode::Auto, None);
        assert_eq!(out.text, "kept text");
        // Quoted values may hold spaces and `>`; unquoted ones end at a space.
        let one = "<p a=\"x > y\" b='1 2' c=3 d>t</p>";
        assert_eq!(
            attributes_cut(one.as_bytes(), 2, one.find(">t").unwrap() + 1, 4),
            None
        );
        assert_eq!(
            attributes_cut(one.as_bytes(), 2, one.find(">t").unwrap() + 1, 3),
            Some(one.find(" d>").unwrap() + 1)
        );
    }

    #[test]
    fn elements_past_the_budget_lose_their_markup() {
        let mut html = "<b>x</b>".repeat(MAX_ELEMENTS);
        html.push_str("<i>tail</i><script>var secret = 1;</script><b>end</b>");
        let capped = cap_nesting(&html, MAX_DEPTH);
        assert_eq!(capped.matches("<b>").count(), MAX_ELEMENTS);
        assert!(
            capped.ends_with("x</b>tailend"),
            "{}",
            &capped[capped.len() - 40..]
        );
    }

    #[test]
    fn entity_dense_text_converts_exactly() {
        let n = 3000;
        let html = format!(
            "<html><body><p>{}</p></body></html>",
            "a &amp; b ".repeat(n)
        );
        let want = "a & b ".repeat(n);
        for mode in [ExtractMode::Auto, ExtractMode::Text] {
            assert_eq!(extract(&html, BodyKind::Html, mode, None).text, want.trim());
        }
    }

    #[test]
    fn attribute_values_too_costly_to_serialize_are_dropped() {
        let dense = "a &amp; b ".repeat(20_000);
        let html = format!(
            "<html><body><div data-x=\"{dense}\" data-y=\"?a=1&amp;b=2\">x</div></body></html>"
        );
        let (doc, _) = parse_prepared(&html, None);
        let div = doc.select("div");
        assert_eq!(div.attr("data-x"), None);
        assert_eq!(div.attr("data-y").as_deref(), Some("?a=1&b=2"));
        assert_eq!(escape_cost("&".repeat(1023).as_str()), 0);
        assert!(escape_cost("&".repeat(1024).as_str()) > MAX_ESCAPE_COST - 1);
    }

    #[test]
    fn many_links_with_a_long_base_stay_relative() {
        let long_base = format!("https://a.example/{}/", "p".repeat(2000));
        let page = format!(
            "<html><body><p>{}</p></body></html>",
            "<a href=a>b</a> ".repeat(5000)
        );
        let out = extract(&page, BodyKind::Html, ExtractMode::Auto, Some(&long_base));
        assert!(out.text.len() < page.len(), "{}", out.text.len());
        let few = "<html><body><p><a href=a>b</a> and enough words to be a page</p></body></html>";
        let out = extract(few, BodyKind::Html, ExtractMode::Auto, Some(&long_base));
        assert!(out.text.contains(&long_base[..100]), "{}", out.text);
    }

    #[test]
    fn other_text_is_as_is() {
        let body = "plain\n\n\n\ntext  ";
        for mode in [ExtractMode::Auto, ExtractMode::Text, ExtractMode::Markdown] {
            assert_eq!(extract(body, BodyKind::OtherText, mode, None).text, body);
        }
    }

    #[test]
    fn tiny_page_falls_back_to_body() {
        let html = "<html><head><title>Tiny</title></head><body><nav><a href=\"/\">Home</a></nav>\
                    <p>Hello <b>world</b>, see <a href=\"/docs\">the docs</a>.</p>\
                    <footer>(c) Tiny</footer></body></html>";
        let out = extract(
            html,
            BodyKind::Html,
            ExtractMode::Auto,
            Some("https://tiny.example/a/"),
        );
        assert_eq!(
            out.text,
            "Hello **world**, see [the docs](https://tiny.example/docs)."
        );
        assert_eq!(out.title.as_deref(), Some("Tiny"));
        let text = extract(html, BodyKind::Html, ExtractMode::Text, None);
        assert_eq!(text.text, "Hello world, see the docs.");
    }

    #[test]
    fn blank_lines_collapse_outside_fences() {
        let md = "a\n\n\n\nb\n  \n\t\nc\n```\nx\n\n\n\ny\n```\n\n\n\nd\n";
        assert_eq!(tidy_markdown(md), "a\n\nb\n\nc\n```\nx\n\n\n\ny\n```\n\nd");
        assert_eq!(tidy_text("\n\n a\n\n\n\nb \n\n"), "a\n\nb");
    }

    #[test]
    fn tables_are_compact() {
        let md =
            "| a    | bb |\n| :--- | -: |\n| x  y | z  |\n| -    | -  |\n```\n| keep    |\n```";
        assert_eq!(
            tidy_markdown(md),
            "| a | bb |\n| :--- | ---: |\n| x y | z |\n| - | - |\n```\n| keep    |\n```"
        );
    }

    #[test]
    fn tables_keep_every_cell() {
        let md = |html: &str| extract(html, BodyKind::Html, ExtractMode::Auto, None).text;
        assert_eq!(
            md("<table><tr><th>Born</th><td>1971</td></tr><tr><th>Died</th><td>-</td></tr></table>"),
            "| Born | 1971 |\n| --- | --- |\n| Died | - |"
        );
        assert_eq!(
            md("<table><thead><tr><th>a</th><th>b</th></tr><tr><th>c</th><th>d</th></tr></thead>\
                <tbody><tr><td colspan=2>wide</td></tr><tr><td>1|2</td><td>3</td></tr></tbody></table>"),
            "| a | b |\n| --- | --- |\n| c | d |\n| wide | |\n| 1\\|2 | 3 |"
        );
        assert_eq!(
            md("<table><tr><td>A</td><td>B</td></tr><tr><td>C</td><td>D</td></tr></table>"),
            "| A | B |\n| --- | --- |\n| C | D |"
        );
        // A layout table (one column, or nesting another table) becomes blocks.
        assert_eq!(
            md("<table><tr><th>Menu</th></tr><tr><td>Body text</td></tr></table>"),
            "Menu\n\nBody text"
        );
    }

    #[test]
    fn consent_markers() {
        assert!(CONSENT_MARKERS
            .iter()
            .all(|m| m.starts_with(['c', 'g', 'o', 'q']) && *m == m.to_ascii_lowercase()));
        assert!(names_consent_banner("banner cookie-banner "));
        assert!(names_consent_banner("onetrust-consent-sdk "));
        assert!(!names_consent_banner("cookie-recipe card "));
        assert!(!names_consent_banner("content container "));
    }

    #[test]
    fn inline_runs_merge_before_writing() {
        let html = "<p>Say <b>he</b><strong>llo</strong><b class=\"x\">!</b> <i>a</i><em>b</em> \
                    <code>x</code><code>y</code><a href=\"/1\">1</a><a href=\"/2\">2</a></p>";
        // The preparation's merge (for crowded parents) and the writer's own agree.
        let direct = html_to_markdown(&Document::from(html).select("body"));
        let doc = Document::from(html);
        for p in doc.select("p").nodes() {
            merge_inline_runs(p);
        }
        let merged = html_to_markdown(&doc.select("body"));
        assert_eq!(merged, direct);
        assert_eq!(direct, "Say **hello****!** *ab* `xy`[1](/1)[2](/2)");
        // Many siblings stay linear (htmd, the converter before, was quadratic here).
        let many = format!("<p>{}</p>", "<b>x</b>".repeat(100_000));
        let start = std::time::Instant::now();
        let out = extract(&many, BodyKind::Html, ExtractMode::Auto, None);
        assert_eq!(out.text.len(), 100_004);
        assert!(start.elapsed() < std::time::Duration::from_secs(20));
    }

    #[test]
    fn headings_survive_boilerplate_classes() {
        let para = "<p>Returns true if the option is a Some value, and false otherwise. \
                    This is a long enough paragraph to make a real article body.</p>";
        let html = format!(
            "<html><body><nav><a href=\"/\">Home</a></nav><main><h1>Option</h1>{}\
             <section class=\"method\"><h4 class=\"code-header\">pub fn is_some(&amp;self) -&gt; bool</h4>{}</section>\
             </main></body></html>",
            para.repeat(3),
            para
        );
        let out = extract(&html, BodyKind::Html, ExtractMode::Auto, None);
        assert!(
            out.text.contains("#### pub fn is\\_some(&self) -> bool"),
            "{}",
            out.text
        );
    }

    #[test]
    fn link_noise_is_dropped() {
        let html = "<article><h2 id=\"s\"><a href=\"#s\">Setup</a><a class=\"headerlink\" href=\"#s\">¶</a></h2>\
                    <p><a href=\"/vote\"><span class=\"icon\"></span></a>Read the \
                    <a href=\"/guide\" title=\"The guide\">guide</a> first.</p></article>";
        let out = extract(
            html,
            BodyKind::Html,
            ExtractMode::Auto,
            Some("https://d.example/"),
        );
        assert_eq!(
            out.text,
            "## Setup\n\nRead the [guide](https://d.example/guide) first."
        );
    }

    #[test]
    fn sniffs_html() {
        assert!(looks_like_html(
            "<!DOCTYPE html><html><body>x</body></html>"
        ));
        assert!(looks_like_html("\u{feff}\n  <HTML lang=\"en\">"));
        assert!(looks_like_html(
            "<?xml version=\"1.0\"?>\n<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0 Strict//EN\">"
        ));
        assert!(looks_like_html("<!-- hi --><head><title>x</title></head>"));
        assert!(looks_like_html("<body>"));
        assert!(!looks_like_html("{\"html\": \"<html><body>\"}"));
        assert!(!looks_like_html("plain text mentioning <html> tags"));
        assert!(!looks_like_html("<htmlfoo>"));
        assert!(!looks_like_html(""));
    }

    #[test]
    fn odd_input_never_panics() {
        let mut inputs: Vec<String> = vec![
            String::new(),
            "<".into(),
            "<<<>>>".into(),
            "<pre>".into(),
            "<pre><code class=\"language-\">x".into(),
            "<table><tr><td><table><th>x</table>".into(),
            "<a href=\"javascript:alert(1)\">x</a><img src=\"data:image/png;base64,AAAA\" alt=\"pic\">".into(),
            "<svg><title>s</title></svg><math><mi>x</mi></math>".into(),
            "\u{0}\u{feff}<html>\u{202e}</html>".into(),
            "<ol start=\"-9223372036854775808\"><li>a</li><li>b</li></ol>".into(),
            "<ol start=\"9223372036854775807\"><li>a</li><li>b</li></ol>".into(),
        ];
        for (open, close) in [
            ("<div>", "</div>"),
            ("<ul><li>", "</li></ul>"),
            ("<ol><li>", "</li></ol>"),
            ("<table><tr><td>", "</td></tr></table>"),
            ("<blockquote>", "</blockquote>"),
            ("<b><i>", "</i></b>"),
            ("<a href=\"/x\">", "</a>"),
            ("<span>", "</span>"),
            ("<section><h2>h</h2><p>", "</p></section>"),
        ] {
            inputs.push(format!(
                "<html><body>{}deep text{}</body></html>",
                open.repeat(1000),
                close.repeat(1000)
            ));
        }
        inputs.push(format!("<p>{}</p>", "é".repeat(10_000)));
        for input in &inputs {
            for mode in [ExtractMode::Auto, ExtractMode::Text, ExtractMode::Raw] {
                let _ = extract(input, BodyKind::Html, mode, Some("not a url"));
                let _ = extract(input, BodyKind::Json, mode, None);
            }
        }
    }

    #[test]
    fn nesting_cap_keeps_text_and_shallow_markup() {
        let shallow = "<div><p>a<br>b</p><ul><li>x<li>y</ul><script>if (a<b) {}</script></div>";
        assert!(matches!(
            cap_nesting(shallow, 3),
            std::borrow::Cow::Borrowed(_)
        ));
        let deep = format!(
            "<div title='a>b'>{}t&amp;u<!-- <div> -->{}</div>",
            "<div>".repeat(5),
            "</div>".repeat(5)
        );
        let capped = cap_nesting(&deep, 3);
        assert_eq!(
            capped,
            "<div title='a>b'><div><div>t&amp;u<!-- <div> --></div></div></div>"
        );
        // A quote inside an unquoted value does not open a quoted string.
        assert_eq!(
            cap_nesting("<p class=it's><div><div><DIV><div>x", 2),
            "<p class=it's><div><div>x"
        );
        // Raw text is skipped whatever its letter case.
        assert_eq!(
            cap_nesting("<div><SCRIPT>'<div><div>'</script><div>y", 2),
            "<div><SCRIPT>'<div><div>'</script><div>y"
        );
        // Parsing hostile nesting stays fast (quadratic in html5ever without the cap).
        let hostile = format!("<body>{}x", "<div><span>".repeat(100_000));
        let start = std::time::Instant::now();
        let out = extract(&hostile, BodyKind::Html, ExtractMode::Auto, None);
        assert_eq!(out.text, "x");
        assert!(start.elapsed() < std::time::Duration::from_secs(20));
    }

    #[test]
    fn base_url_validation() {
        assert!(absolute_http_url("https://a.example/x").is_some());
        assert!(absolute_http_url("ftp://a.example/x").is_none());
        assert!(absolute_http_url("/relative").is_none());
    }

    #[test]
    fn inline_images_keep_alt_only() {
        let html = "<p>Look: <img src=\"data:image/png;base64,AAAA\" alt=\"a chart\"> and \
                    <img src=\"/p.png\" alt=\"photo\"> <a href=\"javascript:void(0)\">menu</a></p>";
        let out = extract(
            html,
            BodyKind::Html,
            ExtractMode::Auto,
            Some("https://x.example/"),
        );
        assert_eq!(
            out.text,
            "Look: a chart and ![photo](https://x.example/p.png) menu"
        );
    }

    #[test]
    fn mode_names() {
        assert_eq!(ExtractMode::default(), ExtractMode::Auto);
        assert_eq!(ExtractMode::Text.to_string(), "text");
        let parsed: ExtractMode = serde_json::from_str("\"markdown\"").unwrap_or_default();
        assert_eq!(parsed, ExtractMode::Markdown);
    }
}
