//! Content extraction: turn a decoded response body into what the caller receives.
//!
//! HTML goes through three steps:
//!
//! 1. **Parse and prepare** ([`dom_query`], html5ever underneath): the `<title>` is read,
//!    cookie/consent banners are dropped, and code blocks are normalised so that every
//!    `<pre>` holds a `<code>` carrying a `language-X` class when the page names the
//!    language in one of the usual ways (`language-X`, `lang-X`, `highlight-source-X`,
//!    Sphinx `highlight-X`, `brush: X`, `data-lang`, GitHub's `<pre lang>`).
//! 2. **Select** the main content with [`dom_smoothie`] (a port of Mozilla's Readability).
//!    When it fails, finds fewer than [`MIN_ARTICLE_CHARS`] visible characters, or the
//!    page is larger than [`READABILITY_MAX_BYTES`], the whole `<body>` is used instead,
//!    minus scripts, styles, navigation, page headers/footers, sidebars and form controls.
//! 3. **Render** the selection as Markdown with [`htmd`] (headings, lists, links, fenced
//!    code blocks with their language, pipe tables) or as plain text (paragraph breaks
//!    kept, list items prefixed with `- ` / `N. `, table cells separated by ` | `).
//!
//! JSON is re-indented (two spaces) without being re-encoded, so numbers, key order and
//! duplicate keys survive exactly. Other text is returned as it is.
//!
//! Nothing here may panic on any input. The HTML crates are not written against hostile
//! markup, so every call into them runs under [`std::panic::catch_unwind`] and a panic
//! falls back to the next cheaper strategy (whole body, then plain text, then the body as
//! it came). This relies on `panic = "unwind"`, which the release profile keeps.
//!
//! `dom_smoothie`'s `Readability` and `Article` are not `Send`: everything here is
//! synchronous and keeps them local, so async callers should run [`extract`] inside
//! `tokio::task::spawn_blocking` (or just call it: it is CPU-bound and fast).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::OnceLock;

use dom_query::{Document, NodeRef, Selection};
use dom_smoothie::{Config, Readability, TextMode};
use htmd::element_handler::Handlers;
use htmd::options::{BulletListMarker, Options};
use htmd::{Element, HtmlToMarkdown};

/// How a body is turned into the text the caller receives.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize, serde::Serialize, clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum ExtractMode {
    /// HTML: main content as Markdown; JSON: pretty-printed; other text: as is.
    #[default]
    Auto,
    /// Same as `auto` (Markdown for HTML), named for operators who want to be explicit.
    Markdown,
    /// HTML: main content as plain text, without Markdown syntax; JSON and other text as in `auto`.
    Text,
    /// The decoded body, untouched.
    Raw,
}

impl ExtractMode {
    /// The lowercase name used on the command line and in the config file.
    pub fn as_str(self) -> &'static str {
        match self {
            ExtractMode::Auto => "auto",
            ExtractMode::Markdown => "markdown",
            ExtractMode::Text => "text",
            ExtractMode::Raw => "raw",
        }
    }
}

impl std::fmt::Display for ExtractMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What kind of body this is; decided by the caller from the content type or by sniffing
/// (see [`looks_like_html`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyKind {
    Html,
    Json,
    OtherText,
}

/// The result of [`extract`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Extracted {
    /// The content handed to the caller.
    pub text: String,
    /// The page's `<title>`, whitespace-collapsed and trimmed; `None` when absent or empty
    /// (always `None` for JSON and other text).
    pub title: Option<String>,
}

/// When readability's selection has fewer visible characters than this, the whole body
/// is converted instead.
pub const MIN_ARTICLE_CHARS: usize = 200;

/// Bodies larger than this skip readability and convert the whole body directly, which
/// keeps extraction time linear and bounded on very large pages.
pub const READABILITY_MAX_BYTES: usize = 3 * 1024 * 1024;

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
        BodyKind::Html => extract_html(body, mode, base_url, readability_max_bytes),
        BodyKind::Json => {
            let text = match mode {
                ExtractMode::Raw => body.to_owned(),
                _ => pretty_json(body).unwrap_or_else(|| body.to_owned()),
            };
            Extracted { text, title: None }
        }
        BodyKind::OtherText => Extracted {
            text: body.to_owned(),
            title: None,
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
) -> Extracted {
    if mode == ExtractMode::Raw {
        // The title only needs the head: parse up to the end of it, not the whole page.
        let head = head_prefix(body);
        let title = guarded(|| page_title(&Document::from(head))).flatten();
        return Extracted {
            text: body.to_owned(),
            title,
        };
    }
    let text_mode = mode == ExtractMode::Text;
    let base = base_url.and_then(absolute_http_url);

    // Parsing and preparing the document: html5ever is robust, but guard it anyway.
    let Some((doc, title)) = guarded(|| {
        let doc = parse_prepared(body);
        let title = page_title(&doc);
        (doc, title)
    }) else {
        // Nothing we could parse: return the body as it came (still trimmed and tidied).
        return Extracted {
            text: tidy_text(body),
            title: None,
        };
    };

    let mut article: Option<String> = None;
    if body.len() <= readability_max_bytes {
        // dom_smoothie is a large heuristic code base; a panic in it on odd markup must
        // not take the process down, so it runs under catch_unwind and we fall back.
        article = guarded(|| readable(doc, base.as_ref(), text_mode)).flatten();
    } else {
        drop(doc);
    }

    if let Some(found) = &article {
        if visible_chars(found) >= MIN_ARTICLE_CHARS {
            return Extracted {
                text: found.clone(),
                title,
            };
        }
    }

    // Fallback: the whole body, minus boilerplate. `doc` was consumed by readability (it
    // mutates the tree), so parse again; this path is taken for small or odd pages, and
    // for large ones where readability is skipped the first parse is dropped above.
    let whole = guarded(|| whole_body(body, base.as_ref(), text_mode)).flatten();
    let text = match (whole, article) {
        (Some(w), Some(a)) => {
            if visible_chars(&w) >= visible_chars(&a) {
                w
            } else {
                a
            }
        }
        (Some(w), None) => w,
        (None, Some(a)) => a,
        // Both converters panicked: the last resort is html5ever's text of the body.
        (None, None) => guarded(|| {
            let doc = Document::from(body);
            tidy_text(&doc.select("body").text())
        })
        .unwrap_or_default(),
    };
    Extracted { text, title }
}

/// Run `f`, turning a panic into `None`. Used around every call into the HTML crates.
fn guarded<T>(f: impl FnOnce() -> T) -> Option<T> {
    catch_unwind(AssertUnwindSafe(f)).ok()
}

/// Readability's selection rendered in the requested form; `None` when it finds nothing.
fn readable(doc: Document, base: Option<&url::Url>, text_mode: bool) -> Option<String> {
    let cfg = Config {
        // Keep classes so that `language-X` on code blocks reaches htmd.
        keep_classes: true,
        // The text is only used to measure the selection; Raw is the cheapest.
        text_mode: TextMode::Raw,
        ..Config::default()
    };
    let mut readability = Readability::with_document(doc, base.map(url::Url::as_str), Some(cfg))
        .or_else(|_| Readability::with_document(Document::from(""), None, None))
        .ok()?;
    let article = readability.parse().ok()?;
    if visible_chars(&article.text_content) == 0 {
        return None;
    }
    let out = if text_mode {
        let frag = Document::fragment(article.content);
        selection_text(&frag.select("html"), &frag)
    } else {
        html_to_markdown(&article.content)
    };
    Some(out)
}

/// The whole `<body>` minus boilerplate, rendered in the requested form.
fn whole_body(body: &str, base: Option<&url::Url>, text_mode: bool) -> Option<String> {
    let doc = parse_prepared(body);
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
    let out = if text_mode {
        selection_text(&sel, &doc)
    } else {
        html_to_markdown(&sel.html())
    };
    Some(out)
}

/// Parse the page and apply the preparation shared by both paths.
fn parse_prepared(body: &str) -> Document {
    let doc = Document::from(body);
    remove_consent_banners(&doc);
    normalize_code_blocks(&doc);
    doc
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

/// Drop cookie/consent banners: elements whose id or class names one, that are short and
/// do not wrap the page's main content.
fn remove_consent_banners(doc: &Document) {
    let candidates = doc.select(
        r#"[id*="cookie" i], [class*="cookie" i], [id*="consent" i], [class*="consent" i],
           [id*="gdpr" i], [class*="gdpr" i], [id*="onetrust" i], [class*="cc-" i],
           [class*="cmp-" i], [id*="cmp-" i]"#,
    );
    for node in candidates.nodes() {
        if matches!(
            node.node_name().as_deref(),
            Some("html" | "body" | "main" | "article")
        ) {
            continue;
        }
        let mut names = String::new();
        if let Some(id) = node.id_attr() {
            names.push_str(&id);
        }
        names.push(' ');
        if let Some(class) = node.class() {
            names.push_str(&class);
        }
        let names = names.to_ascii_lowercase();
        if !CONSENT_MARKERS.iter().any(|m| names.contains(m)) {
            continue;
        }
        let wraps_content = node
            .descendants_it()
            .any(|d| d.has_name("article") || d.has_name("main") || d.has_name("h1"));
        if !wraps_content && node.normalized_char_count() < 3000 {
            node.remove_from_parent();
        }
    }
}

/// Make every `<pre>` hold one `<code>` (so htmd fences it) and put the language, when
/// the page names it, on that `<code>` as `language-X` (which htmd reads).
fn normalize_code_blocks(doc: &Document) {
    for pre in doc.select("pre").nodes() {
        let lang = code_language(pre);
        let children = pre.element_children();
        let code = match children.as_slice() {
            [only] if only.has_name("code") && !has_direct_text(pre) => only.clone(),
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
    if let Some(code) = pre.element_children().into_iter().find(|c| c.has_name("code")) {
        nodes.push(code);
    }
    nodes.push(pre.clone());
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
            if let Some(lang) = tokens.peek().and_then(|t| clean_language(t.trim_end_matches(';'))) {
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
            if let Some(lang) = token.get(prefix.len()..).filter(|_| lower.starts_with(prefix)) {
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

/// Whole-body fallback: remove what is never content.
fn strip_boilerplate(doc: &Document) {
    doc.select(
        "script, style, noscript, template, svg, canvas, iframe, object, embed, nav, footer, \
         dialog, button, select, input, textarea, [hidden], [role=navigation], \
         [role=contentinfo], [role=search], [role=dialog], [role=alertdialog], [role=menu], \
         [role=menubar]",
    )
    .remove();
    // Page headers, banners and sidebars go; those inside an article or main keep their
    // headings and asides.
    for node in doc.select("header, aside, [role=banner], [role=complementary]").nodes() {
        let in_content = node
            .ancestors_it(None)
            .any(|a| a.has_name("article") || a.has_name("main"));
        if !in_content {
            node.remove_from_parent();
        }
    }
}

/// Make `a[href]` and `img[src]` absolute (readability does this itself on its path).
fn absolutize_links(doc: &Document, base: &url::Url) {
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

// --- rendering --------------------------------------------------------------------------

fn converter() -> &'static HtmlToMarkdown {
    static CONVERTER: OnceLock<HtmlToMarkdown> = OnceLock::new();
    CONVERTER.get_or_init(|| {
        HtmlToMarkdown::builder()
            .options(Options {
                bullet_list_marker: BulletListMarker::Dash,
                ul_bullet_spacing: 1,
                ol_number_spacing: 1,
                ..Options::default()
            })
            .skip_tags(vec![
                "head", "script", "style", "noscript", "template", "svg", "canvas", "iframe",
                "object", "embed", "nav", "button", "select", "input", "textarea", "dialog",
            ])
            // Inline images (data: URIs) are kilobytes of base64 noise: keep their alt text.
            .add_handler(vec!["img"], |handlers: &dyn Handlers, element: Element| {
                let src = attr_value(&element, "src");
                if src.is_some_and(|s| s.trim_start().to_ascii_lowercase().starts_with("data:")) {
                    let alt = attr_value(&element, "alt").map(collapse_whitespace);
                    return Some(alt.unwrap_or_default().into());
                }
                handlers.fallback(element)
            })
            // `javascript:` links lead nowhere: keep the link text only.
            .add_handler(vec!["a"], |handlers: &dyn Handlers, element: Element| {
                let href = attr_value(&element, "href");
                if href.is_some_and(|h| h.trim_start().to_ascii_lowercase().starts_with("javascript:"))
                {
                    return Some(handlers.walk_children(element.node));
                }
                handlers.fallback(element)
            })
            .build()
    })
}

fn attr_value<'a>(element: &'a Element, name: &str) -> Option<&'a str> {
    element
        .attrs
        .iter()
        .find(|a| &*a.name.local == name)
        .map(|a| &*a.value)
}

fn html_to_markdown(html: &str) -> String {
    // htmd only fails on I/O errors of its in-memory parser; treat one as "no content".
    let md = converter().convert(html).unwrap_or_default();
    tidy_markdown(&md)
}

/// Plain text of `sel`: list items get `- ` / `N. ` markers and table cells ` | `
/// separators before dom_query's formatted text (which keeps paragraph breaks).
fn selection_text(sel: &Selection, doc: &Document) -> String {
    for li in sel.select("li").nodes() {
        let marker = match li.parent() {
            Some(parent) if parent.has_name("ol") => {
                let start = parent
                    .attr("start")
                    .and_then(|s| s.trim().parse::<i64>().ok())
                    .unwrap_or(1);
                let index = li
                    .parent()
                    .map(|p| p.element_children())
                    .unwrap_or_default()
                    .iter()
                    .take_while(|c| c.id != li.id)
                    .filter(|c| c.has_name("li"))
                    .count();
                format!("{}. ", start.saturating_add(i64::try_from(index).unwrap_or(0)))
            }
            _ => "- ".to_owned(),
        };
        li.prepend_child(&doc.tree.new_text(marker));
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

// --- text tidying -----------------------------------------------------------------------

/// Characters that are not whitespace, a cheap measure of how much text there is.
fn visible_chars(s: &str) -> usize {
    s.chars().filter(|c| !c.is_whitespace()).count()
}

fn collapse_whitespace(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Markdown: outside fenced code blocks, whitespace-only lines become empty and runs of
/// blank lines collapse to one; fenced blocks are kept byte for byte. Ends are trimmed.
fn tidy_markdown(md: &str) -> String {
    let mut out = String::with_capacity(md.len());
    let mut fence: Option<(char, usize)> = None;
    let mut blank_run = 0usize;
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
                    blank_run += 1;
                    if blank_run == 1 {
                        out.push('\n');
                    }
                    continue;
                }
                blank_run = 0;
                fence = opens_fence(line);
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    trim_in_place(out)
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
        out.push_str(line);
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

/// Re-indent valid JSON with two spaces. The tokens are copied as they are (no number or
/// string re-encoding), so big integers, `1.0`, key order and duplicate keys survive.
fn pretty_json(body: &str) -> Option<String> {
    let src = body.trim_start_matches('\u{feff}');
    serde_json::from_str::<serde::de::IgnoredAny>(src).ok()?;
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
            }
            ':' => out.push_str(": "),
            ' ' | '\t' | '\n' | '\r' => {}
            _ => out.push(c),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ARTICLE: &str = include_str!("../tests/fixtures/extract/article.html");
    const DOCS: &str = include_str!("../tests/fixtures/extract/docs.html");
    const CP1252: &[u8] = include_bytes!("../tests/fixtures/extract/windows-1252.html");
    const SPA: &str = include_str!("../tests/fixtures/extract/spa.html");

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
        assert!(out.text.contains("# How Cities Are Rethinking Urban Heat"), "{}", out.text);
        assert!(out.text.contains("Phoenix recorded 113 consecutive days"));
        assert!(out.text.contains("## Cool roofs and shade"));
        assert!(out.text.contains("- Reflective roof coatings"));
        assert!(out.text.contains("> Shade is infrastructure"));
        assert!(out
            .text
            .contains("[heat action plan](https://news.example.com/2024/05/heat-plan)"));
        assert!(out.text.contains("closing paragraph of the article"));
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
        assert!(out
            .text
            .contains("```toml\n[lookup]\nmax_chars = 20000\n```"), "{}", out.text);
        // A bare <pre> in a Sphinx-style wrapper: wrapped and labelled.
        assert!(out
            .text
            .contains("```shell\n$ cargo add vetch\n$ vetch lookup https://example.com\n```"), "{}", out.text);
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
        assert!(out.text.contains("Le café coûte 3,50 € au comptoir"), "{}", out.text);
        assert!(out.text.contains("“le meilleur de la ville”"), "{}", out.text);
        assert!(out.text.contains("œuvre"));
    }

    #[test]
    fn js_heavy_page_gives_little_and_no_script() {
        let out = md(SPA);
        assert!(out.text.contains("Loading dashboard"), "{}", out.text);
        assert!(visible_chars(&out.text) < 200, "{}", out.text);
        for junk in ["function", "__NEXT_DATA__", "window.", "enable JavaScript", "webpack"] {
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
        assert!(docs.text.contains("max_attempts | integer | 3"), "{}", docs.text);
        assert!(docs.text.contains("    let mut counts"), "{}", docs.text);
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
        assert_eq!(extract(json, BodyKind::Json, ExtractMode::Raw, None).text, json);
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
        assert_eq!(extract(bad, BodyKind::Json, ExtractMode::Auto, None).text, bad);
        assert_eq!(extract("\u{feff}[1]", BodyKind::Json, ExtractMode::Auto, None).text, "[\n  1\n]");
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
        let out = extract(html, BodyKind::Html, ExtractMode::Auto, Some("https://tiny.example/a/"));
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
    fn sniffs_html() {
        assert!(looks_like_html("<!DOCTYPE html><html><body>x</body></html>"));
        assert!(looks_like_html("\u{feff}\n  <HTML lang=\"en\">"));
        assert!(looks_like_html("<?xml version=\"1.0\"?>\n<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0 Strict//EN\">"));
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
            "<div>".repeat(5000),
        ];
        inputs.push(format!("<p>{}</p>", "é".repeat(10_000)));
        for input in &inputs {
            for mode in [ExtractMode::Auto, ExtractMode::Text, ExtractMode::Raw] {
                let _ = extract(input, BodyKind::Html, mode, Some("not a url"));
                let _ = extract(input, BodyKind::Json, mode, None);
            }
        }
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
        let out = extract(html, BodyKind::Html, ExtractMode::Auto, Some("https://x.example/"));
        assert_eq!(out.text, "Look: a chart and ![photo](https://x.example/p.png) menu");
    }

    #[test]
    fn mode_names() {
        assert_eq!(ExtractMode::default(), ExtractMode::Auto);
        assert_eq!(ExtractMode::Text.to_string(), "text");
        let parsed: ExtractMode = serde_json::from_str("\"markdown\"").unwrap_or_default();
        assert_eq!(parsed, ExtractMode::Markdown);
    }
}
