//! PDF documents: from the bytes of a PDF to text a reader can use.
//!
//! The reader is vetch's own (chosen by measurement: see docs/reference.md, "PDF
//! documents"), so that every cost is bounded from the inside:
//! - [`syntax`]: the lexer and objects (nesting bounded, nothing sized from the file);
//! - [`file`]: cross-reference tables and streams, object streams, repair by scanning
//!   for objects, and [`crypt`] for documents that open with the empty user password;
//! - [`filter`]: the stream filters, each stage's output counted against the budget;
//! - [`font`]: encodings, `/ToUnicode` and CID fonts, widths;
//! - [`page`]: the page tree and the content stream interpreter (operators and
//!   characters per page capped, forms bounded), giving positioned characters;
//! - [`layout`]: characters → lines → boxes → reading order (pdfminer.six's rules, so
//!   two columns read column by column);
//! - this module: the one entry point [`extract_pdf`], the [`Budget`], repeated headers
//!   and footers, paragraphs, hyphens and ligatures, and the document title.
//!
//! It must never panic and never print; `catch_unwind` stays as the last line, and the
//! cancel flag (the attempt deadline) is polled inside every loop that reads the file.

mod cid;
mod crypt;
mod file;
mod filter;
mod font;
mod layout;
mod page;
mod syntax;
mod tables;
mod truetype;

use std::cell::Cell;
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Once;

use crate::model::failure::FailureKind;
use crate::model::receipt::Outcome;

use file::{File, OpenError};
use syntax::{Dict, Obj};

/// Bounds on the work one document may cost.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PdfLimits {
    /// Pages read at most (`[lookup] max_pdf_pages`); later pages are dropped and the
    /// result is marked `truncated`.
    pub max_pages: usize,
    /// Bytes all stream decoding may produce in the whole document, every filter stage
    /// counted, before the document is refused as a compression bomb.
    pub max_decoded_bytes: u64,
    /// Bytes one stream may decode to (each stage of its filter chain).
    pub max_stream_bytes: usize,
    /// Bytes of text produced at most; the rest is dropped and the result is `truncated`.
    pub max_text_bytes: usize,
    /// Objects parsed at most (indirect objects and object stream members).
    pub max_objects: u64,
    /// Content stream operators run at most, all pages together (one page stops at
    /// 1,000,000).
    pub max_operators: u64,
}

impl Default for PdfLimits {
    fn default() -> Self {
        PdfLimits {
            max_pages: 200,
            max_decoded_bytes: 256 * 1024 * 1024,
            max_stream_bytes: 32 * 1024 * 1024,
            max_text_bytes: 16 * 1024 * 1024,
            max_objects: 500_000,
            max_operators: 20_000_000,
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
    /// Pages found in the page tree (counting stops one past `max_pages`).
    pub pages: usize,
    /// Pages or text were dropped (page limit, text cap, a page past its operator or
    /// character cap, the decode budget spent).
    pub truncated: bool,
}

/// Why a document gave no text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PdfFailure {
    /// It needs a password.
    Encrypted,
    /// It parsed, but no page has text operators (a scan without OCR, or only drawings).
    NoTextLayer,
    /// Its pages show text, but no font maps its codes to characters.
    UndecodableText,
    /// It does not parse, or it is hostile (bombs, floods). Holds a short detail.
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
            PdfFailure::UndecodableText => FailureKind::UndecodablePdfText,
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
    /// Set while this thread reads a PDF.
    static IN_PARSER: Cell<bool> = const { Cell::new(false) };
}

/// Wrap the process's panic hook once so that a panic raised while reading a PDF prints
/// nothing: it is caught and reported as `malformed_response`, and its message could
/// hold document text. Panics anywhere else still reach the previous hook.
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

/// Why the budget stopped the work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// The cancel flag was set (the attempt deadline, a dropped call).
    Cancelled,
    /// Stream decoding spent the document's budget.
    Decoded,
    /// More objects than `max_objects`.
    Objects,
    /// More operators than `max_operators`.
    Operators,
}

/// What one document may still cost, shared by every part of the reader. A spent
/// budget records why ([`Budget::stopped`]) and every loop that reads checks it.
struct Budget<'a> {
    cancel: &'a AtomicBool,
    decoded_left: Cell<u64>,
    stream_cap: usize,
    objects_left: Cell<u64>,
    ops_left: Cell<u64>,
    stop: Cell<Option<Stop>>,
    /// Streams refused for decoding past the per-stream cap.
    bombs: Cell<u32>,
}

impl<'a> Budget<'a> {
    fn new(cancel: &'a AtomicBool, decoded: u64, stream_cap: usize) -> Budget<'a> {
        Budget {
            cancel,
            decoded_left: Cell::new(decoded),
            stream_cap,
            objects_left: Cell::new(500_000),
            ops_left: Cell::new(20_000_000),
            stop: Cell::new(None),
            bombs: Cell::new(0),
        }
    }

    fn from_limits(cancel: &'a AtomicBool, l: &PdfLimits) -> Budget<'a> {
        let b = Budget::new(cancel, l.max_decoded_bytes, l.max_stream_bytes);
        b.objects_left.set(l.max_objects);
        b.ops_left.set(l.max_operators);
        b
    }

    fn halt(&self, why: Stop) {
        if self.stop.get().is_none() {
            self.stop.set(Some(why));
        }
    }

    /// Why the work must stop, if it must (the cancel flag is read here).
    fn stopped(&self) -> Option<Stop> {
        if self.cancel.load(Ordering::Relaxed) {
            self.halt(Stop::Cancelled);
        }
        self.stop.get()
    }

    fn cancelled(&self) -> bool {
        self.stopped().is_some()
    }

    /// Bytes the next decoding stage may produce.
    fn stream_cap(&self) -> usize {
        self.stream_cap
            .min(usize::try_from(self.decoded_left.get()).unwrap_or(usize::MAX))
    }

    /// Count a stage's output.
    fn charge(&self, n: usize) -> Result<(), filter::DecodeError> {
        let left = self.decoded_left.get().saturating_sub(n as u64);
        self.decoded_left.set(left);
        Ok(())
    }

    /// A stage hit its cap: the document's budget (stop everything) or the stream's
    /// (this stream is a bomb; the rest of the document may still read).
    fn note_too_large(&self) {
        if (self.decoded_left.get() as u128) <= self.stream_cap as u128 {
            self.decoded_left.set(0);
            self.halt(Stop::Decoded);
        } else {
            self.bombs.set(self.bombs.get().saturating_add(1));
        }
    }

    /// Count one object parsed; false when the budget is spent.
    fn count_object(&self) -> bool {
        if self.stopped().is_some() {
            return false;
        }
        match self.objects_left.get().checked_sub(1) {
            Some(n) => {
                self.objects_left.set(n);
                true
            }
            None => {
                self.halt(Stop::Objects);
                false
            }
        }
    }

    /// Count `n` operators run (and poll the cancel flag); false when spent.
    fn count_ops(&self, n: u64) -> bool {
        if self.stopped().is_some() {
            return false;
        }
        match self.ops_left.get().checked_sub(n) {
            Some(left) => {
                self.ops_left.set(left);
                true
            }
            None => {
                self.halt(Stop::Operators);
                false
            }
        }
    }
}

/// Extract the text of a PDF. Never panics; `cancel` is polled throughout.
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
            "the reader failed on this document".into(),
        )),
    }
}

fn stop_failure(stop: Stop, limits: &PdfLimits) -> PdfFailure {
    match stop {
        Stop::Cancelled => PdfFailure::Cancelled,
        Stop::Decoded => PdfFailure::Malformed(format!(
            "streams decode to more than {} MiB (a compression bomb?)",
            limits.max_decoded_bytes / (1024 * 1024)
        )),
        Stop::Objects => PdfFailure::Malformed(format!("more than {} objects", limits.max_objects)),
        Stop::Operators => PdfFailure::Malformed(format!(
            "more than {} content operators",
            limits.max_operators
        )),
    }
}

/// One page's text boxes, as read.
struct PageBoxes {
    boxes: Vec<layout::TextBox>,
    height: (f64, f64),
}

fn extract_inner(
    bytes: &[u8],
    limits: &PdfLimits,
    cancel: &AtomicBool,
) -> Result<PdfText, PdfFailure> {
    // Readers accept a header anywhere in the first 1024 bytes (after a BOM or junk that a
    // server put first).
    if file::find(&bytes[..bytes.len().min(1024)], b"%PDF-").is_none() {
        return Err(PdfFailure::Malformed(
            "no %PDF- header in the first 1024 bytes".into(),
        ));
    }
    let budget = Budget::from_limits(cancel, limits);
    let file = match File::open(bytes, &budget) {
        Ok(f) => f,
        Err(OpenError::Encrypted) => return Err(PdfFailure::Encrypted),
        Err(OpenError::Malformed(d)) => return Err(PdfFailure::Malformed(d)),
        Err(OpenError::Stopped(s)) => return Err(stop_failure(s, limits)),
    };
    let pages = page::pages(&file, limits.max_pages);
    if let Some(s) = budget.stopped() {
        return Err(stop_failure(s, limits));
    }
    if pages.is_empty() {
        return Err(PdfFailure::Malformed("the document has no pages".into()));
    }
    let title = title(&file);
    let mut truncated = pages.len() > limits.max_pages;
    let (mut glyphs, mut undecoded) = (0u64, 0u64);
    let mut missing = false;
    let mut read: Vec<PageBoxes> = Vec::new();
    let mut text_bytes = 0usize;
    for p in pages.iter().take(limits.max_pages) {
        if budget.stopped().is_some() {
            break;
        }
        let pt = page::read_page(&file, p);
        glyphs += pt.glyphs;
        undecoded += pt.undecoded;
        truncated |= pt.cut;
        missing |= pt.missing;
        let boxes = layout::layout(&pt);
        text_bytes += boxes
            .iter()
            .flat_map(|b| &b.lines)
            .map(String::len)
            .sum::<usize>();
        read.push(PageBoxes {
            boxes,
            // Device space after the page's rotation starts at 0 (see `page::read_page`).
            height: (
                0.0,
                if p.rotate % 180 == 90 {
                    p.media_box[2] - p.media_box[0]
                } else {
                    p.media_box[3] - p.media_box[1]
                },
            ),
        });
        if text_bytes > limits.max_text_bytes {
            truncated = true;
            break;
        }
    }
    match budget.stopped() {
        Some(Stop::Cancelled) => return Err(PdfFailure::Cancelled),
        Some(s) if read.iter().all(|p| p.boxes.is_empty()) => return Err(stop_failure(s, limits)),
        Some(_) => truncated = true,
        None => {}
    }
    // A stream skipped as a bomb is text the reader may have missed: the cut is said.
    truncated |= budget.bombs.get() > 0;
    drop_repeated_margins(&mut read);
    let mut text = String::new();
    let mut any_text = false;
    for (i, p) in read.iter().enumerate() {
        let raw: Vec<String> = p.boxes.iter().map(layout::TextBox::text).collect();
        let page = tidy_page(&raw.join("\n\n"));
        if i > 0 {
            text.push_str(&format!("\n\n--- page {} ---\n\n", i + 1));
        }
        any_text |= page.chars().any(|c| !c.is_whitespace());
        text.push_str(&page);
    }
    if text.len() > limits.max_text_bytes {
        let mut cut = limits.max_text_bytes;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        truncated = true;
    }
    if !any_text {
        return Err(if budget.bombs.get() > 0 {
            PdfFailure::Malformed(format!(
                "a stream decodes to more than {} MiB (a compression bomb?)",
                limits.max_stream_bytes / (1024 * 1024)
            ))
        } else if missing && glyphs == 0 {
            PdfFailure::Malformed(
                "the pages' content is not in the file (a truncated or damaged file?)".into(),
            )
        } else if glyphs > 0 && undecoded * 10 >= glyphs * 9 {
            PdfFailure::UndecodableText
        } else {
            PdfFailure::NoTextLayer
        });
    }
    Ok(PdfText {
        text,
        title,
        pages: pages.len(),
        truncated,
    })
}

/// Headers and footers said once: a short box in the top or bottom tenth of the page
/// whose text (digits aside) comes back on at least three pages and on half the pages
/// read is kept where it first appears and dropped from the pages after.
fn drop_repeated_margins(pages: &mut [PageBoxes]) {
    if pages.len() < 3 {
        return;
    }
    let key = |b: &layout::TextBox| -> String {
        b.lines
            .join(" ")
            .chars()
            .map(|c| if c.is_ascii_digit() { '#' } else { c })
            .filter(|c| !c.is_whitespace())
            .collect()
    };
    // A page whose only text is the repeated block keeps it: dropping it would empty the
    // page, and that is not a header any more.
    let in_margin = |b: &layout::TextBox, (lo, hi): (f64, f64)| {
        let band = (hi - lo).abs() * 0.1;
        b.lines.len() <= 2
            && b.lines.iter().map(String::len).sum::<usize>() <= 200
            && (b.y0 >= hi - band || b.y1 <= lo + band)
    };
    let mut seen: HashMap<String, usize> = HashMap::new();
    for p in pages.iter() {
        let mut keys: Vec<String> = p
            .boxes
            .iter()
            .filter(|b| in_margin(b, p.height))
            .map(key)
            .collect();
        keys.sort();
        keys.dedup();
        for k in keys {
            *seen.entry(k).or_default() += 1;
        }
    }
    let need = (pages.len() / 2).max(3);
    let repeated: std::collections::HashSet<String> = seen
        .into_iter()
        .filter(|(k, n)| *n >= need && !k.is_empty())
        .map(|(k, _)| k)
        .collect();
    if repeated.is_empty() {
        return;
    }
    let mut said: std::collections::HashSet<String> = std::collections::HashSet::new();
    for p in pages.iter_mut() {
        let h = p.height;
        let mut keep = Vec::with_capacity(p.boxes.len());
        let mut said_here = Vec::new();
        let alone = p.boxes.len() == 1;
        for b in p.boxes.drain(..) {
            if in_margin(&b, h) && !alone {
                let k = key(&b);
                if repeated.contains(&k) {
                    if said.contains(&k) {
                        continue;
                    }
                    said_here.push(k);
                }
            }
            keep.push(b);
        }
        said.extend(said_here);
        p.boxes = keep;
    }
}

/// A text string (PDF 32000 7.9.2.2): UTF-16BE or UTF-8 with a BOM, else PDFDocEncoding.
fn text_string(b: &[u8]) -> String {
    if let Some(rest) = b.strip_prefix(&[0xFE, 0xFF]) {
        let units: Vec<u16> = rest
            .chunks_exact(2)
            .map(|c| u16::from(c[0]) << 8 | u16::from(c[1]))
            .collect();
        return String::from_utf16_lossy(&units);
    }
    if let Some(rest) = b.strip_prefix(&[0xEF, 0xBB, 0xBF]) {
        return String::from_utf8_lossy(rest).into_owned();
    }
    b.iter().map(|&c| pdf_doc_char(c)).collect()
}

fn pdf_doc_char(c: u8) -> char {
    const HIGH: [char; 33] = [
        '•', '†', '‡', '…', '—', '–', 'ƒ', '⁄', '‹', '›', '−', '‰', '„', '“', '”', '‘', '’', '‚',
        '™', 'ﬁ', 'ﬂ', 'Ł', 'Œ', 'Š', 'Ÿ', 'Ž', 'ı', 'ł', 'œ', 'š', 'ž', '\u{FFFD}', '€',
    ];
    const LOW: [char; 8] = ['˘', 'ˇ', 'ˆ', '˙', '˝', '˛', '˚', '˜'];
    match c {
        0x18..=0x1F => LOW[usize::from(c - 0x18)],
        0x80..=0xA0 => HIGH[usize::from(c - 0x80)],
        _ => char::from(c),
    }
}

/// The title from the info dictionary, else the XMP `dc:title`; trimmed, None when empty.
fn title(file: &File<'_>) -> Option<String> {
    let info = file.get_in(&file.trailer, b"Info");
    let from_info = info
        .as_dict()
        .map(|d| file.get_in(d, b"Title"))
        .and_then(|t| t.as_str().map(text_string));
    let title = from_info
        .filter(|t| !t.trim().is_empty())
        .or_else(|| xmp_title(file))?;
    let title = title.split_whitespace().collect::<Vec<_>>().join(" ");
    let title: String = title.chars().filter(|c| !c.is_control()).collect();
    (!title.is_empty()).then_some(title)
}

fn xmp_title(file: &File<'_>) -> Option<String> {
    let root = file.get_in(&file.trailer, b"Root");
    let cat: &Dict = root.as_dict()?;
    let meta = file.get_in(cat, b"Metadata");
    let Obj::Stream(s) = &*meta else { return None };
    let xml = file.decode_stream(s).ok()?;
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

#[cfg(test)]
mod debug {
    use super::*;

    /// `PDF_DEBUG=FILE cargo test --lib pdf::debug -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn dump() {
        let Ok(path) = std::env::var("PDF_DEBUG") else {
            return;
        };
        let bytes = std::fs::read(path).unwrap_or_default();
        let cancel = AtomicBool::new(false);
        let limits = PdfLimits::default();
        let budget = Budget::from_limits(&cancel, &limits);
        let f = File::open(&bytes, &budget);
        let Ok(f) = f else {
            println!("open: {:?}", f.err());
            return;
        };
        println!("repaired {} trailer {:?}", f.repaired.get(), f.trailer);
        let pages = page::pages(&f, 10);
        println!("{} pages", pages.len());
        for p in pages.iter().take(2) {
            println!(
                "page {:?}\nres {:?}",
                p.dict,
                p.resources.as_ref().map(|r| f.resolve(r).clone())
            );
            let pt = page::read_page(&f, p);
            println!(
                "glyphs {} undecoded {} chars {} text {:?}",
                pt.glyphs,
                pt.undecoded,
                pt.chars.len(),
                &pt.text[..pt.text.len().min(200)]
            );
        }
    }
}
