//! PDF documents: from the bytes of a PDF to text a reader can use.
//!
//! The parser is third-party (`pdf-extract` on `lopdf`, chosen by measurement: see
//! docs/reference.md, "PDF documents"). This module owns everything around it:
//! - detection ([`is_pdf`]) and the one entry point, [`extract_pdf`];
//! - bounds: a page limit, a cap on the text produced, a budget for decompressed streams
//!   (checked before the parser inflates anything it would keep), a check for page trees
//!   and form XObjects that refer to themselves (the parser would recurse until the stack
//!   overflows, which no `catch_unwind` can stop), and a cancel flag polled while text is
//!   produced, so a lookup that gave up stops the work too;
//! - the layout: characters become lines and paragraphs, pages are joined by
//!   `--- page N ---`, ligatures are expanded and words hyphenated at a line end are
//!   joined;
//! - the document title, from the info dictionary or else the XMP metadata.
//!
//! It must never panic and never print: a panic inside the parser is caught, reported as
//! [`PdfFailure::Malformed`], and kept off stderr (see `silence_parser_panics`).

use std::cell::Cell;
use std::collections::HashSet;
use std::io::Read;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Once;

use lopdf::{Dictionary, Document, Object, ObjectId};
use pdf_extract::{MediaBox, OutputDev, OutputError, Transform};

use crate::model::failure::FailureKind;
use crate::model::receipt::Outcome;

/// Bounds on the work one document may cost.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PdfLimits {
    /// Pages read at most (`[lookup] max_pdf_pages`); later pages are dropped and the
    /// result is marked `truncated`.
    pub max_pages: usize,
    /// Bytes all Flate streams may inflate to, together, before the document is refused.
    pub max_inflated_bytes: u64,
    /// Bytes of text produced at most; the rest is dropped and the result is `truncated`.
    pub max_text_bytes: usize,
    /// Form XObjects nested deeper than this are refused.
    pub max_form_depth: usize,
}

impl Default for PdfLimits {
    fn default() -> Self {
        PdfLimits {
            max_pages: 200,
            max_inflated_bytes: 256 * 1024 * 1024,
            max_text_bytes: 16 * 1024 * 1024,
            max_form_depth: 16,
        }
    }
}

/// The text of a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PdfText {
    /// Pages in order, joined by blank lines around `--- page N ---`.
    pub text: String,
    /// The document title from its metadata, if it has a non-empty one.
    pub title: Option<String>,
    /// Pages in the document.
    pub pages: usize,
    /// Pages or text were dropped (page limit, text cap).
    pub truncated: bool,
}

/// Why a document gave no text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PdfFailure {
    /// It needs a password.
    Encrypted,
    /// It parsed, but no page has any text (a scan without OCR, or only drawings).
    NoTextLayer,
    /// It does not parse, or it is hostile (loops, bombs). Holds a short detail.
    Malformed(String),
    /// The caller gave up (the attempt deadline passed).
    Cancelled,
}

impl PdfFailure {
    /// The attempt failure this is. `cut_at` is the body's length when the body was cut
    /// at the body cap (it prefixes a malformed document's detail).
    pub fn kind(&self, cut_at: Option<usize>) -> FailureKind {
        match self {
            PdfFailure::Encrypted => FailureKind::EncryptedPdf,
            PdfFailure::NoTextLayer => FailureKind::NoTextLayer,
            PdfFailure::Malformed(d) => FailureKind::MalformedPdf {
                detail: d.clone(),
                cut_at,
            },
            PdfFailure::Cancelled => FailureKind::PdfCancelled,
        }
    }

    /// The attempt outcome this failure is reported as.
    pub fn outcome(&self) -> Outcome {
        self.kind(None).outcome()
    }

    /// The attempt detail (in the documented wording), for a body that was not cut.
    pub fn detail(&self) -> String {
        self.kind(None).to_string()
    }
}

/// Media types that say nothing about the body, so the bytes decide.
fn is_generic_type(media: &str) -> bool {
    matches!(
        media,
        "" | "application/octet-stream" | "binary/octet-stream" | "application/x-download"
    )
}

/// A body is a PDF when it says so (`application/pdf`, `application/x-pdf`), or when its
/// type is missing or generic and it starts with `%PDF-`.
pub fn is_pdf(media_type: Option<&str>, body: &[u8]) -> bool {
    match media_type {
        Some("application/pdf" | "application/x-pdf") => true,
        Some(m) if !is_generic_type(m) => false,
        _ => body.starts_with(b"%PDF-"),
    }
}

thread_local! {
    /// Set while this thread runs the third-party parser.
    static IN_PARSER: Cell<bool> = const { Cell::new(false) };
}

/// Wrap the process's panic hook once so that a panic raised inside the parser prints
/// nothing: it is caught and reported as `malformed_response`, and its message could hold
/// document text. Panics anywhere else still reach the previous hook.
fn silence_parser_panics() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !IN_PARSER.with(Cell::get) {
                previous(info);
            }
        }));
    });
}

/// Extract the text of a PDF. Never panics; `cancel` is polled while text is produced.
pub fn extract_pdf(
    bytes: &[u8],
    limits: &PdfLimits,
    cancel: &AtomicBool,
) -> Result<PdfText, PdfFailure> {
    silence_parser_panics();
    IN_PARSER.with(|f| f.set(true));
    let result = catch_unwind(AssertUnwindSafe(|| extract_inner(bytes, limits, cancel)));
    IN_PARSER.with(|f| f.set(false));
    match result {
        Ok(r) => r,
        Err(_) => Err(PdfFailure::Malformed(
            "the parser failed on this document".into(),
        )),
    }
}

fn short(e: impl std::fmt::Display) -> String {
    crate::model::receipt::clip_chars(&e.to_string(), 120)
}

fn extract_inner(
    bytes: &[u8],
    limits: &PdfLimits,
    cancel: &AtomicBool,
) -> Result<PdfText, PdfFailure> {
    // Readers accept a header anywhere in the first 1024 bytes (after a BOM or junk that a
    // server put first), and so does the parser.
    if find(&bytes[..bytes.len().min(1024)], b"%PDF-").is_none() {
        return Err(PdfFailure::Malformed(
            "no %PDF- header in the first 1024 bytes".into(),
        ));
    }
    check_inflation(bytes, limits.max_inflated_bytes)?;
    let mut doc = match Document::load_mem(bytes) {
        Ok(d) => d,
        Err(lopdf::Error::Decryption(_) | lopdf::Error::InvalidPassword) => {
            return Err(PdfFailure::Encrypted)
        }
        Err(e) => return Err(PdfFailure::Malformed(short(e))),
    };
    if doc.is_encrypted() {
        // An owner password alone restricts editing, not reading: viewers open such a file
        // with the empty user password, and so do we.
        if doc.decrypt("").is_err() {
            return Err(PdfFailure::Encrypted);
        }
    }
    let pages: Vec<(u32, ObjectId)> = doc.get_pages().into_iter().collect();
    if pages.is_empty() {
        return Err(PdfFailure::Malformed("the document has no pages".into()));
    }
    let title = title(&doc);
    let mut text = String::new();
    let mut truncated = pages.len() > limits.max_pages;
    let mut any_text = false;
    let mut first_error: Option<String> = None;
    let mut pages_read = 0usize;
    for (i, (num, id)) in pages.iter().take(limits.max_pages).enumerate() {
        if cancel.load(Ordering::Relaxed) {
            return Err(PdfFailure::Cancelled);
        }
        check_page(&doc, *id, limits.max_form_depth)?;
        let mut sink = PageSink::new(cancel, limits.max_text_bytes.saturating_sub(text.len()));
        let r = pdf_extract::output_doc_page(&doc, &mut sink, *num);
        if sink.cancelled {
            return Err(PdfFailure::Cancelled);
        }
        if let Err(e) = r {
            if !sink.full {
                first_error.get_or_insert_with(|| short(e));
            }
        }
        pages_read += 1;
        let page = tidy_page(&sink.out);
        if i > 0 {
            text.push_str(&format!("\n\n--- page {} ---\n\n", i + 1));
        }
        any_text |= page.chars().any(|c| !c.is_whitespace());
        text.push_str(&page);
        if sink.full {
            truncated = true;
            break;
        }
    }
    if !any_text {
        return Err(match first_error {
            Some(e) if pages_read > 0 => PdfFailure::Malformed(e),
            _ => PdfFailure::NoTextLayer,
        });
    }
    Ok(PdfText {
        text,
        title,
        pages: pages.len(),
        truncated,
    })
}

/// Refuse a document whose Flate streams would inflate past `budget` bytes together.
///
/// `lopdf` inflates a stream whole, without a limit, when it reads it, and it reads object
/// streams while it loads the file. So this runs on the raw bytes, before the parser: each
/// `stream ... endstream` body that is zlib data is inflated into a counter (never into
/// memory), in bounded reads.
fn check_inflation(bytes: &[u8], budget: u64) -> Result<(), PdfFailure> {
    let mut total: u64 = 0;
    let mut rest = bytes;
    while let Some(i) = find(rest, b"stream") {
        let is_end = i >= 3 && &rest[i - 3..i] == b"end";
        let after = &rest[i + b"stream".len()..];
        let body = after
            .strip_prefix(b"\r\n")
            .or_else(|| after.strip_prefix(b"\n"))
            .or_else(|| after.strip_prefix(b"\r"));
        let (Some(body), false) = (body, is_end) else {
            rest = after;
            continue;
        };
        let end = find(body, b"endstream").unwrap_or(body.len());
        let left = budget.saturating_sub(total);
        let mut dec = flate2::read::ZlibDecoder::new(&body[..end]).take(left + 1);
        let mut sink = CountingSink(0);
        let _ = std::io::copy(&mut dec, &mut sink);
        total = total.saturating_add(sink.0);
        if total > budget {
            return Err(PdfFailure::Malformed(format!(
                "streams inflate to more than {} MiB (a compression bomb?)",
                budget / (1024 * 1024)
            )));
        }
        rest = &body[end..];
    }
    Ok(())
}

/// Counts what is written, keeps nothing (a failed inflate still counts what came out).
struct CountingSink(u64);

impl std::io::Write for CountingSink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 = self.0.saturating_add(buf.len() as u64);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Refuse a page the parser would recurse on forever: a `Parent` chain that loops, or
/// form XObjects that draw themselves (directly or through others) or nest too deep.
fn check_page(doc: &Document, page: ObjectId, max_depth: usize) -> Result<(), PdfFailure> {
    let mut seen = HashSet::new();
    let mut node = page;
    loop {
        if !seen.insert(node) || seen.len() > 64 {
            return Err(PdfFailure::Malformed("the page tree loops".into()));
        }
        let Ok(dict) = doc.get_dictionary(node) else {
            break;
        };
        match dict.get(b"Parent").and_then(Object::as_reference) {
            Ok(parent) => node = parent,
            Err(_) => break,
        }
    }
    let resources = inherited_resources(doc, page);
    let content = doc.get_page_content(page).unwrap_or_default();
    let mut stack = Vec::new();
    check_forms(doc, &content, resources, &mut stack, max_depth)
}

/// The page's `/Resources`, looked up the parent chain as the parser does.
fn inherited_resources(doc: &Document, page: ObjectId) -> Option<&Dictionary> {
    let mut node = doc.get_dictionary(page).ok()?;
    for _ in 0..64 {
        if let Ok(r) = node.get(b"Resources") {
            return deref_dict(doc, r);
        }
        let parent = node.get(b"Parent").and_then(Object::as_reference).ok()?;
        node = doc.get_dictionary(parent).ok()?;
    }
    None
}

fn deref_dict<'a>(doc: &'a Document, o: &'a Object) -> Option<&'a Dictionary> {
    match o {
        Object::Dictionary(d) => Some(d),
        Object::Reference(id) => doc.get_dictionary(*id).ok(),
        _ => None,
    }
}

/// Walk the form XObjects `content` invokes with `Do`, as the parser will.
fn check_forms(
    doc: &Document,
    content: &[u8],
    resources: Option<&Dictionary>,
    stack: &mut Vec<ObjectId>,
    max_depth: usize,
) -> Result<(), PdfFailure> {
    let Some(xobjects) = resources
        .and_then(|r| r.get(b"XObject").ok())
        .and_then(|x| deref_dict(doc, x))
    else {
        return Ok(());
    };
    let Ok(ops) = lopdf::content::Content::decode(content) else {
        return Ok(());
    };
    let mut done = HashSet::new();
    for op in ops.operations.iter().filter(|op| op.operator == "Do") {
        let Some(Ok(name)) = op.operands.first().map(Object::as_name) else {
            continue;
        };
        let Ok(id) = xobjects.get(name).and_then(Object::as_reference) else {
            continue;
        };
        if !done.insert(id) {
            continue;
        }
        if stack.contains(&id) {
            return Err(PdfFailure::Malformed("a form XObject draws itself".into()));
        }
        if stack.len() >= max_depth {
            return Err(PdfFailure::Malformed("form XObjects nest too deep".into()));
        }
        let Ok(Object::Stream(s)) = doc.get_object(id) else {
            continue;
        };
        let is_form = s
            .dict
            .get(b"Subtype")
            .and_then(Object::as_name)
            .is_ok_and(|n| n == b"Form");
        if !is_form {
            continue;
        }
        let inner = s
            .decompressed_content()
            .unwrap_or_else(|_| s.content.clone());
        let own = s
            .dict
            .get(b"Resources")
            .ok()
            .and_then(|r| deref_dict(doc, r));
        stack.push(id);
        check_forms(doc, &inner, own.or(resources), stack, max_depth)?;
        stack.pop();
    }
    Ok(())
}

/// The title from the info dictionary, else the XMP `dc:title`; trimmed, None when empty.
fn title(doc: &Document) -> Option<String> {
    let from_info = doc
        .trailer
        .get(b"Info")
        .ok()
        .and_then(|o| deref_dict(doc, o))
        .and_then(|info| info.get(b"Title").ok())
        .and_then(|t| match t {
            Object::Reference(id) => doc.get_object(*id).ok(),
            other => Some(other),
        })
        .and_then(|t| lopdf::decode_text_string(t).ok());
    let title = from_info.or_else(|| xmp_title(doc))?;
    let title = title.split_whitespace().collect::<Vec<_>>().join(" ");
    let title: String = title.chars().filter(|c| !c.is_control()).collect();
    (!title.is_empty()).then_some(title)
}

fn xmp_title(doc: &Document) -> Option<String> {
    let id = doc
        .catalog()
        .ok()?
        .get(b"Metadata")
        .ok()?
        .as_reference()
        .ok()?;
    let Object::Stream(s) = doc.get_object(id).ok()? else {
        return None;
    };
    let xml = s
        .decompressed_content()
        .unwrap_or_else(|_| s.content.clone());
    let xml = String::from_utf8_lossy(&xml[..xml.len().min(1 << 20)]);
    let start = xml.find("<dc:title")?;
    let rest = &xml[start..];
    let li = rest.find("<rdf:li")?;
    let rest = &rest[li..];
    let open_end = rest.find('>')? + 1;
    let close = rest.find("</rdf:li>")?;
    (open_end <= close).then(|| unescape_xml(&rest[open_end..close]))
}

fn unescape_xml(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

/// Receives the characters of one page from the parser and lays them out as lines, with
/// an empty line where the vertical gap is wider than a line's.
struct PageSink<'a> {
    out: String,
    cancel: &'a AtomicBool,
    max_bytes: usize,
    page_height: f64,
    last_end: f64,
    last_y: f64,
    /// The text size of the last character: a line in another size starts a paragraph
    /// (a heading and the text under it).
    last_size: f64,
    new_word: bool,
    calls: u32,
    cancelled: bool,
    full: bool,
}

impl<'a> PageSink<'a> {
    fn new(cancel: &'a AtomicBool, max_bytes: usize) -> PageSink<'a> {
        PageSink {
            out: String::new(),
            cancel,
            max_bytes,
            page_height: 0.0,
            last_end: f64::MAX,
            last_y: 0.0,
            last_size: 0.0,
            new_word: false,
            calls: 0,
            cancelled: false,
            full: false,
        }
    }

    fn stop(&mut self, why: &str) -> OutputError {
        OutputError::IoError(std::io::Error::other(why.to_string()))
    }
}

impl OutputDev for PageSink<'_> {
    fn begin_page(
        &mut self,
        _page_num: u32,
        media_box: &MediaBox,
        _art_box: Option<(f64, f64, f64, f64)>,
    ) -> Result<(), OutputError> {
        self.page_height = media_box.ury - media_box.lly;
        Ok(())
    }

    fn end_page(&mut self) -> Result<(), OutputError> {
        Ok(())
    }

    fn output_character(
        &mut self,
        trm: &Transform,
        width: f64,
        _spacing: f64,
        font_size: f64,
        ch: &str,
    ) -> Result<(), OutputError> {
        self.calls = self.calls.wrapping_add(1);
        if self.calls % 512 == 0 && self.cancel.load(Ordering::Relaxed) {
            self.cancelled = true;
            return Err(self.stop("cancelled"));
        }
        if self.out.len() + ch.len() > self.max_bytes {
            self.full = true;
            return Err(self.stop("text cap reached"));
        }
        // Device space has y growing downwards, as a reader scans a page.
        let x = trm.m31;
        let y = self.page_height - trm.m32;
        let vx = font_size * trm.m11 + font_size * trm.m21;
        let vy = font_size * trm.m12 + font_size * trm.m22;
        let size = (vx * vy).abs().sqrt();
        let size = if size.is_finite() && size > 0.0 {
            size
        } else {
            1.0
        };
        if self.new_word && !self.out.is_empty() {
            let dy = (y - self.last_y).abs();
            let resized = (size - self.last_size).abs() > 0.05 * size.max(self.last_size);
            if dy > size * 1.5 {
                self.out.push_str("\n\n");
            } else if x < self.last_end && dy > size * 0.5 {
                self.out.push_str(if resized { "\n\n" } else { "\n" });
            } else if x > self.last_end + size * 0.1 {
                self.out.push(' ');
            }
        }
        self.out.push_str(ch);
        self.new_word = false;
        self.last_y = y;
        self.last_size = size;
        self.last_end = x + width * size;
        Ok(())
    }

    fn begin_word(&mut self) -> Result<(), OutputError> {
        self.new_word = true;
        Ok(())
    }

    fn end_word(&mut self) -> Result<(), OutputError> {
        Ok(())
    }

    fn end_line(&mut self) -> Result<(), OutputError> {
        Ok(())
    }
}

/// Expand the Latin ligatures of Unicode's Alphabetic Presentation Forms block.
fn expand_ligatures(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.chars().any(|c| ('\u{FB00}'..='\u{FB06}').contains(&c)) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\u{FB00}' => out.push_str("ff"),
            '\u{FB01}' => out.push_str("fi"),
            '\u{FB02}' => out.push_str("fl"),
            '\u{FB03}' => out.push_str("ffi"),
            '\u{FB04}' => out.push_str("ffl"),
            '\u{FB05}' | '\u{FB06}' => out.push_str("st"),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Lay one page's raw text out as paragraphs: lines of a paragraph are joined with a
/// space, a word split by a hyphen at a line end is rejoined (`extrac-` + `tion`), and
/// paragraphs are separated by one blank line. Ligatures are expanded.
fn tidy_page(raw: &str) -> String {
    let raw = expand_ligatures(raw);
    let mut paragraphs: Vec<String> = Vec::new();
    let mut current = String::new();
    for line in raw.lines() {
        let line = line
            .split(|c: char| c.is_whitespace())
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        if line.is_empty() {
            if !current.is_empty() {
                paragraphs.push(std::mem::take(&mut current));
            }
            continue;
        }
        if current.is_empty() {
            current = line;
        } else if starts_list_item(&line) {
            paragraphs.push(std::mem::take(&mut current));
            current = line;
        } else if ends_with_split_word(&current) && line.starts_with(|c: char| c.is_lowercase()) {
            current.pop();
            current.push_str(&line);
        } else {
            // Chinese and Japanese put no space where a line wraps.
            let tight = current.chars().next_back().is_some_and(is_cjk)
                && line.chars().next().is_some_and(is_cjk);
            if !tight {
                current.push(' ');
            }
            current.push_str(&line);
        }
    }
    if !current.is_empty() {
        paragraphs.push(current);
    }
    paragraphs.join("\n\n")
}

/// Han, kana, CJK punctuation and full-width forms: scripts written without spaces.
fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{3000}'..='\u{30FF}' | '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}'
        | '\u{F900}'..='\u{FAFF}' | '\u{FF00}'..='\u{FFEF}' | '\u{20000}'..='\u{2FFFF}')
}

/// `extrac-`: a letter, then a hyphen, at the end of a line.
fn ends_with_split_word(line: &str) -> bool {
    let mut it = line.chars().rev();
    matches!(it.next(), Some('-' | '\u{00AD}')) && it.next().is_some_and(char::is_alphabetic)
}

/// A line that starts a list item (`•`, `-`, `1.`, `2)`) begins a paragraph of its own.
fn starts_list_item(line: &str) -> bool {
    let mut it = line.chars();
    match it.next() {
        Some('•' | '◦' | '▪' | '–' | '*') => true,
        Some('-') => it.next() == Some(' '),
        Some(c) if c.is_ascii_digit() => {
            let rest = line.trim_start_matches(|c: char| c.is_ascii_digit());
            (rest.starts_with(". ") || rest.starts_with(") ")) && line.len() - rest.len() <= 3
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detection_table() {
        let pdf = b"%PDF-1.7\n...";
        let cases: [(Option<&str>, &[u8], bool); 8] = [
            (Some("application/pdf"), b"garbage", true),
            (Some("application/x-pdf"), pdf, true),
            (None, pdf, true),
            (Some("application/octet-stream"), pdf, true),
            (Some("binary/octet-stream"), pdf, true),
            (Some("text/plain"), pdf, false),
            (Some("application/octet-stream"), b"PK\x03\x04", false),
            (None, b"<html>", false),
        ];
        for (ct, body, want) in cases {
            assert_eq!(is_pdf(ct, body), want, "{ct:?}");
        }
    }

    #[test]
    fn tidy_joins_lines_and_hyphens() {
        let raw = "First line of a para-\ngraph that goes on\nand ends.\n\n\nSecond \u{FB01}ne one.\n• item one\n• item two\nwell-\nKnown";
        assert_eq!(
            tidy_page(raw),
            "First line of a paragraph that goes on and ends.\n\nSecond fine one.\n\n• item one\n\n• item two well- Known"
        );
    }

    #[test]
    fn cjk_lines_join_without_a_space() {
        assert_eq!(
            tidy_page("内容。\n日本語\nLatin\nwords"),
            "内容。日本語 Latin words"
        );
    }

    #[test]
    fn ligatures_expand() {
        assert_eq!(
            expand_ligatures("e\u{FB03}cient \u{FB02}ow"),
            "efficient flow"
        );
        assert!(matches!(
            expand_ligatures("plain"),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    #[test]
    fn not_a_pdf_is_malformed_not_a_panic() {
        let cancel = AtomicBool::new(false);
        for body in [
            &b""[..],
            b"%PDF-",
            b"%PDF-1.4\n1 0 obj << /Type /Catalog >>",
            b"<html>not a pdf</html>",
            b"hello",
        ] {
            let r = extract_pdf(body, &PdfLimits::default(), &cancel);
            assert!(matches!(r, Err(PdfFailure::Malformed(_))), "{r:?}");
        }
    }

    #[test]
    fn failures_map_to_outcomes() {
        assert_eq!(PdfFailure::Encrypted.detail(), "encrypted PDF");
        assert_eq!(
            PdfFailure::NoTextLayer.detail(),
            "no text layer (scanned PDF?)"
        );
        assert_eq!(PdfFailure::Encrypted.outcome(), Outcome::UnusableContent);
        assert_eq!(
            PdfFailure::Malformed("x".into()).outcome(),
            Outcome::MalformedResponse
        );
    }
}
