//! The one writer. Every byte vetch prints leaves through a [`Printer`], which runs it
//! through the redactor first: stdout (tool results, receipts, text, NDJSON lines) and
//! stderr (diagnostics, errors). Values are already redacted where they are made
//! (`lookup`); this is the choke point that catches whatever was not. One exception: the
//! content window of a successful lookup, which the lookup redacted in the context of its
//! whole content, is not judged again out of that context (its cut ends could then read
//! as a token, and the window would differ from its slice of the hashed content).
//!
//! Nothing a page or a server sends may drive the reader's terminal or smuggle invisible
//! instructions to a model: [`strip_controls`] removes C0/C1 control characters (all but
//! newline and tab) and whole terminal escape sequences from every string written, in
//! every mode, whether or not stdout is a terminal.
//!
//! A closed stdout (`vetch ... | head -1`) ends the program quietly; it is not an error.

use std::io::{self, IsTerminal, Write};
use std::sync::{Arc, Mutex};

use serde::Serialize;

use crate::model::receipt::ToolResult;
use crate::redact::controls::{strip_controls, strip_controls_json};
use crate::redact::Redactor;

/// How JSON is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    Pretty,
    Compact,
}

impl Layout {
    /// `--pretty` / `--compact`, else pretty on a terminal and one line when piped.
    pub fn choose(pretty: bool, compact: bool) -> Layout {
        if compact {
            Layout::Compact
        } else if pretty || io::stdout().is_terminal() {
            Layout::Pretty
        } else {
            Layout::Compact
        }
    }
}

/// Writes redacted output to stdout and stderr.
#[derive(Clone)]
pub struct Printer {
    redactor: Arc<Redactor>,
    layout: Layout,
    stdout: Arc<Mutex<io::Stdout>>,
}

/// Stdout was closed by the reader; stop writing.
#[derive(Debug)]
pub struct Closed;

/// One output line already serialized and redacted by a [`Printer`], with its newline:
/// the only kind of string [`Printer::write_prepared`] writes.
#[derive(Debug, Clone)]
pub struct PreparedLine(String);

impl PreparedLine {
    /// The line of `json` (one line, no newline yet).
    fn new(mut json: String) -> PreparedLine {
        json.push('\n');
        PreparedLine(json)
    }
}

impl Printer {
    pub fn new(redactor: Arc<Redactor>, layout: Layout) -> Printer {
        Printer {
            redactor,
            layout,
            stdout: Arc::new(Mutex::new(io::stdout())),
        }
    }

    pub fn redactor(&self) -> &Arc<Redactor> {
        &self.redactor
    }

    /// Serialize `value` (pretty or compact), redacting every string in it (keys too).
    /// Redaction runs on the values, not on the serialized text, so a replacement can never
    /// cut a JSON escape sequence in half.
    pub fn json_string<T: Serialize>(&self, value: &T, layout: Layout) -> String {
        self.json_string_keeping(value, layout, None)
    }

    /// [`json_string`](Self::json_string), leaving a string equal to `window` unredacted
    /// (see [`Printer::tool_result`]).
    fn json_string_keeping<T: Serialize>(
        &self,
        value: &T,
        layout: Layout,
        window: Option<&str>,
    ) -> String {
        let v = match serde_json::to_value(value) {
            Ok(mut v) => {
                self.redactor.redact_json_value_keeping(&mut v, window);
                strip_controls_json(&mut v);
                v
            }
            Err(e) => serde_json::json!({"error": format!("serialization failed: {e}")}),
        };
        match layout {
            Layout::Pretty => serde_json::to_string_pretty(&v).unwrap_or_default(),
            Layout::Compact => {
                // Room for the content window (most of a line) with its escapes, the rest
                // of the receipt and the newline, so that the line is not copied as it grows.
                let room = window.map_or(512, |w| w.len() + w.len() / 8 + 1024);
                let mut out = String::with_capacity(room);
                write_compact(&v, &mut out);
                out
            }
        }
    }

    /// Print one JSON value, followed by a newline, in the chosen layout.
    pub fn json<T: Serialize>(&self, value: &T) -> Result<(), Closed> {
        let s = self.json_string(value, self.layout);
        self.raw_line(&s)
    }

    /// Print one JSON value on exactly one line (NDJSON, MCP).
    pub fn json_line<T: Serialize>(&self, value: &T) -> Result<(), Closed> {
        let s = self.json_string(value, Layout::Compact);
        self.raw_line(&s)
    }

    /// One JSON value made into its line (redacted, compact) now, to be written later with
    /// [`Printer::write_prepared`], e.g. on a blocking thread while the async ones go on.
    pub fn prepare_json_line<T: Serialize>(&self, value: &T) -> PreparedLine {
        PreparedLine::new(self.json_string(value, Layout::Compact))
    }

    /// Write a line made by [`Printer::prepare_json_line`] or
    /// [`Printer::prepare_tool_result_line`].
    pub fn write_prepared(&self, line: &PreparedLine) -> Result<(), Closed> {
        self.raw_line(&line.0)
    }

    /// Write prepared lines in order, together: one system call for all of them when the
    /// pipe takes them, not one each. The lines are not copied into one buffer first.
    pub fn write_prepared_all(&self, lines: &[PreparedLine]) -> Result<(), Closed> {
        let out = match self.stdout.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        let mut w = out.lock();
        let mut slices: Vec<io::IoSlice> = lines
            .iter()
            .map(|l| io::IoSlice::new(l.0.as_bytes()))
            .collect();
        let mut rest = &mut slices[..];
        while !rest.is_empty() {
            match w.write_vectored(rest) {
                Ok(0) => return Err(Closed),
                Ok(n) => io::IoSlice::advance_slices(&mut rest, n),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return Err(Closed),
            }
        }
        w.flush().map_err(|_| Closed)
    }

    /// End the process now with `code` (a second Ctrl-C). A line being written to stdout is
    /// let finish first, and stdout is held so that no new line starts: every line written
    /// is whole. A writer stuck on a full pipe (nobody reading) is waited for a quarter of
    /// a second at most; its line may then be cut, but not the ones before it.
    pub fn exit_now(&self, code: u8) -> ! {
        let until = std::time::Instant::now() + std::time::Duration::from_millis(250);
        let _held = loop {
            match self.stdout.try_lock() {
                Ok(g) => break Some(g),
                Err(std::sync::TryLockError::Poisoned(p)) => break Some(p.into_inner()),
                Err(std::sync::TryLockError::WouldBlock) if std::time::Instant::now() < until => {
                    std::thread::sleep(std::time::Duration::from_millis(5));
                }
                Err(std::sync::TryLockError::WouldBlock) => break None,
            }
        };
        std::process::exit(i32::from(code))
    }

    /// A tool result made into its line now (see [`Printer::tool_result`]), to be written
    /// later with [`Printer::write_prepared`] (a batch writes on a blocking thread).
    pub fn prepare_tool_result_line(&self, result: &ToolResult) -> PreparedLine {
        let window = result.is_success().then(|| result.text());
        PreparedLine::new(self.json_string_keeping(result, Layout::Compact, window))
    }

    /// Print a tool result (`value` is the result, or an envelope around it), every string
    /// redacted except the content window of a success: the lookup redacted that in the
    /// context of the whole content, and judging it again alone could change its cut ends
    /// (see [`Redactor::redact_json_value_keeping`]), so that it would no longer be the
    /// slice of the content that `content_sha256` describes. `compact` forces one line.
    pub fn tool_result<T: Serialize>(
        &self,
        value: &T,
        result: &ToolResult,
        compact: bool,
    ) -> Result<(), Closed> {
        let layout = if compact {
            Layout::Compact
        } else {
            self.layout
        };
        let window = result.is_success().then(|| result.text());
        let s = self.json_string_keeping(value, layout, window);
        self.raw_line(&s)
    }

    /// Print the content window of a successful lookup (`-o text`): not redacted again,
    /// for the reason given at [`Printer::tool_result`] (the lookup redacted it in the
    /// context of the whole content); control characters are still removed.
    pub fn content_window(&self, window: &str) -> Result<(), Closed> {
        self.raw_line(&strip_controls(window))
    }

    /// Print text vetch composed itself, with its own colour codes, redacted but not
    /// stripped of escape sequences (`-o human`). Every piece of it that came from a page
    /// or a server must already have gone through [`strip_controls`].
    pub fn styled_text(&self, text: &str) -> Result<(), Closed> {
        let s = self.redactor.redact_text(text);
        self.raw_line(&s)
    }

    /// Print text (redacted) followed by a newline if it lacks one.
    pub fn text(&self, text: &str) -> Result<(), Closed> {
        let s = self.redactor.redact_text(&strip_controls(text));
        self.raw_line(&s)
    }

    fn raw_line(&self, s: &str) -> Result<(), Closed> {
        let out = match self.stdout.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        let mut w = out.lock();
        let r = w
            .write_all(s.as_bytes())
            .and_then(|_| {
                if s.ends_with('\n') {
                    Ok(())
                } else {
                    w.write_all(b"\n")
                }
            })
            .and_then(|_| w.flush());
        r.map_err(|_| Closed)
    }

    /// One line on stderr as it is (redacted), without the `vetch:` prefix.
    pub fn err_line(&self, msg: &str) {
        let s = self.redactor.redact_text(&strip_controls(msg));
        let _ = writeln!(io::stderr().lock(), "{s}");
    }

    /// One diagnostic line on stderr, redacted. Errors writing stderr are ignored.
    pub fn diag(&self, msg: &str) {
        let s = self.redactor.redact_text(&strip_controls(msg));
        let _ = writeln!(io::stderr().lock(), "vetch: {s}");
    }
}

/// Colour for `-o human`: only when stdout is a terminal and `NO_COLOR` is unset or empty
/// (<https://no-color.org>).
pub fn use_color(stdout_is_terminal: bool, no_color: Option<&std::ffi::OsStr>) -> bool {
    stdout_is_terminal && no_color.is_none_or(|v| v.is_empty())
}

/// One field of the `-o human` summary, kept on its line: CR, LF and tab are shown as `\r`,
/// `\n` and `\t` (a requested URL may carry them, and a line break would let it forge a
/// line such as `success via direct`), and every other control character and escape
/// sequence is removed ([`strip_controls`]; a provider name from the config may hold one).
fn field(s: &str) -> String {
    let mut shown = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\r' => shown.push_str("\\r"),
            '\n' => shown.push_str("\\n"),
            '\t' => shown.push_str("\\t"),
            c => shown.push(c),
        }
    }
    strip_controls(&shown).into_owned()
}

/// `-o human`: a summary for a person (status, provider, the attempts as a table), then the
/// text on success. Plain text unless `color`; the caller prints it through the redactor.
/// `window` is the `-o text` cut line when the text is one window of a longer content.
/// Every field of the summary is one line ([`field`]); the page text keeps its lines.
pub fn human(
    r: &crate::model::receipt::Receipt,
    text: &str,
    failure: &str,
    window: Option<&str>,
    color: bool,
) -> String {
    // What came from outside loses its control characters here, so that the only escape
    // sequences in the result are the colours added below, and the only line breaks above
    // the text are the summary's own.
    let text = &*strip_controls(text);
    let failure = &field(failure);
    let paint = |code: &str, s: &str| {
        if color {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    };
    let mut out = String::new();
    let plural = if r.attempts == 1 { "" } else { "s" };
    if r.ok {
        out.push_str(&format!(
            "{} via {} ({} attempt{plural}, {} ms)\n",
            paint("1;32", "success"),
            field(r.provider_used.as_deref().unwrap_or("?")),
            r.attempts,
            r.elapsed_ms
        ));
    } else {
        out.push_str(&format!("{}: {failure}\n", paint("1;31", "error")));
    }
    out.push_str(&format!("url: {}\n", field(&r.url)));
    if let Some(t) = &r.title {
        out.push_str(&format!("title: {}\n", field(t)));
    }
    if r.ok {
        match window {
            Some(w) => out.push_str(&field(w)),
            None => out.push_str(&format!("characters: {}", r.content_chars)),
        }
        out.push_str(&format!(
            " (sha256 {})",
            r.content_sha256
                .as_deref()
                .map_or("-", |h| &h[..h.len().min(12)])
        ));
        if r.truncated {
            out.push_str("; body cut at the size cap");
        }
        out.push('\n');
    }
    if let Some(at) = &r.fetched_at {
        out.push_str(&format!("fetched: {}", field(at)));
        if let Some(f) = r.final_url.as_deref().filter(|f| *f != r.url) {
            out.push_str(&format!(" from {}", field(f)));
        }
        out.push('\n');
    }
    if let Some(id) = &r.warc_record_id {
        out.push_str(&format!("warc: {}\n", field(id)));
    }
    if !r.attempts_log.is_empty() {
        let rows: Vec<[String; 6]> = r
            .attempts_log
            .iter()
            .enumerate()
            .map(|(i, a)| {
                [
                    (i + 1).to_string(),
                    field(&a.provider),
                    a.outcome.as_str().to_string(),
                    a.http_status.map_or("-".into(), |s| s.to_string()),
                    a.elapsed_ms.to_string(),
                    field(&a.detail),
                ]
            })
            .collect();
        let header = ["#", "PROVIDER", "OUTCOME", "HTTP", "MS", "DETAIL"].map(String::from);
        let mut w = [0usize; 5];
        for row in std::iter::once(&header).chain(rows.iter()) {
            for (w, cell) in w.iter_mut().zip(row.iter()) {
                *w = (*w).max(cell.chars().count());
            }
        }
        out.push('\n');
        for (n, row) in std::iter::once(&header).chain(rows.iter()).enumerate() {
            let line = format!(
                "{:>w0$}  {:w1$}  {:w2$}  {:>w3$}  {:>w4$}  {}",
                row[0],
                row[1],
                row[2],
                row[3],
                row[4],
                row[5],
                w0 = w[0],
                w1 = w[1],
                w2 = w[2],
                w3 = w[3],
                w4 = w[4]
            );
            let line = if n == 0 { paint("2", &line) } else { line };
            out.push_str(line.trim_end());
            out.push('\n');
        }
    }
    if r.ok {
        out.push('\n');
        out.push_str(text);
    }
    out
}

/// `value` as `serde_json::to_string` writes it (compact), byte for byte, with strings
/// escaped a chunk at a time: a page's text is mostly bytes that need no escape, and
/// serde_json looks each one up in its table.
fn write_compact(value: &serde_json::Value, out: &mut String) {
    use serde_json::Value;
    match value {
        Value::String(s) => write_json_str(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_compact(v, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (k, v)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json_str(k, out);
                out.push(':');
                write_compact(v, out);
            }
            out.push('}');
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {
            out.push_str(&serde_json::to_string(value).unwrap_or_default());
        }
    }
}

/// A JSON string literal, escaped as serde_json escapes it: `"` and `\\`, the short forms
/// `\b \t \n \f \r`, every other control below U+0020 as `\u00xx`; nothing else.
///
/// Eight bytes are tested at a time, as one `u64` ([`escape_mask`]); the text between two
/// bytes that need an escape is copied whole.
fn write_json_str(s: &str, out: &mut String) {
    const WORD: usize = 8;
    let b = s.as_bytes();
    out.reserve(s.len() + 2);
    out.push('"');
    let mut copied = 0;
    let mut at = 0;
    while at < b.len() {
        let escape = match b.get(at..at + WORD) {
            Some(word) => {
                let word = u64::from_le_bytes(word.try_into().unwrap_or([0; WORD]));
                let mask = escape_mask(word);
                if mask == 0 {
                    at += WORD;
                    continue;
                }
                // The lowest flagged byte is exact (see `escape_mask`).
                at + (mask.trailing_zeros() / 8) as usize
            }
            None => match b
                .get(at..)
                .and_then(|rest| rest.iter().position(|&c| needs_escape(c)))
            {
                Some(i) => at + i,
                None => break,
            },
        };
        let c = b.get(escape).copied().unwrap_or(b' ');
        // Every byte that needs an escape is ASCII, so `copied..escape` ends on a boundary.
        out.push_str(s.get(copied..escape).unwrap_or(""));
        match c {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            0x08 => out.push_str("\\b"),
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            0x0C => out.push_str("\\f"),
            b'\r' => out.push_str("\\r"),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.push_str("\\u00");
                out.push(char::from(HEX[usize::from(c >> 4)]));
                out.push(char::from(HEX[usize::from(c & 0xF)]));
            }
        }
        copied = escape + 1;
        at = escape + 1;
    }
    out.push_str(s.get(copied..).unwrap_or(""));
    out.push('"');
}

/// A byte JSON escapes: a control below U+0020, `"` or `\\`.
fn needs_escape(c: u8) -> bool {
    c < 0x20 || c == b'"' || c == b'\\'
}

/// The high bit of each byte of `word` (little-endian) that [`needs_escape`], and maybe of
/// some bytes above the lowest one that does (a borrow runs upwards), never of a byte
/// below it: the lowest set bit is exact, and 0 means no byte needs an escape. The
/// classic "has a byte less than n" and "has a zero byte" tests: a byte below 0x20, or
/// equal to `"` or `\\` (zero once xor-ed with it). Bytes of 0x80 and above (all of a
/// multi-byte character's) are never flagged.
fn escape_mask(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let below = |w: u64, n: u64| w.wrapping_sub(ONES * n) & !w & HIGH;
    below(word, 0x20)
        | below(word ^ (ONES * u64::from(b'"')), 1)
        | below(word ^ (ONES * u64::from(b'\\')), 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The compact writer is serde_json's, byte for byte: every control, quote and
    /// backslash, at every place around the 32-byte chunks, other text, numbers, nesting.
    #[test]
    fn compact_writer_is_serde_json() {
        let mut strings: Vec<String> = vec![
            String::new(),
            "plain".into(),
            "é日\u{1F600}\u{7F}\u{85}".into(),
        ];
        let base = "a".repeat(70);
        for c in (0u8..0x20).chain([b'"', b'\\', b'/', 0x7F]) {
            for at in [0, 1, 7, 8, 9, 15, 16, 31, 32, 33, 63, 64, 69, 70] {
                let mut t = base.clone();
                t.insert(at, char::from(c));
                strings.push(t);
            }
        }
        strings.push("日本".repeat(40) + "\"q\\\n\u{1}" + &"é".repeat(33));
        let value = serde_json::json!({
            "strings": strings,
            "numbers": [0, -1, 1.5, 1e300, u64::MAX, i64::MIN, 0.1],
            "flags": [true, false, null],
            "nested": {"a\"b": {"": [[], {}]}, "k\u{1}": "v"},
        });
        for v in [
            value.clone(),
            serde_json::json!("x"),
            serde_json::json!(null),
            serde_json::json!([]),
        ] {
            let mut out = String::new();
            write_compact(&v, &mut out);
            assert_eq!(out, serde_json::to_string(&v).expect("json"));
        }
    }

    proptest::proptest! {
        /// Any string, escapes anywhere around the 8-byte words: serde_json's bytes.
        #[test]
        fn any_string_is_written_as_serde_json(
            s in "(?s)[a\\x00-\\x1f\"\\\\/\\x7fé日\u{1F600}\u{2028} ]{0,80}"
        ) {
            let mut out = String::new();
            write_json_str(&s, &mut out);
            proptest::prop_assert_eq!(out, serde_json::to_string(&s).expect("json"));
        }
    }

    #[test]
    fn color_only_on_a_terminal_without_no_color() {
        use std::ffi::OsStr;
        assert!(use_color(true, None));
        assert!(use_color(true, Some(OsStr::new(""))));
        assert!(!use_color(true, Some(OsStr::new("1"))));
        assert!(!use_color(false, None));
    }

    #[test]
    fn human_view_is_plain_without_color() {
        let mut r = crate::model::receipt::sample_receipt(true);
        r.attempts_log.push(crate::model::receipt::AttemptRecord {
            provider: "direct".into(),
            outcome: crate::model::receipt::Outcome::Ok,
            http_status: Some(200),
            detail: "usable content".into(),
            elapsed_ms: 12,
        });
        let plain = human(&r, "page text", "", None, false);
        assert!(!plain.contains('\x1b'), "{plain}");
        assert!(plain.starts_with("success via direct"), "{plain}");
        assert!(
            plain.contains("PROVIDER") && plain.ends_with("page text"),
            "{plain}"
        );
        let colored = human(
            &r,
            "page text",
            "",
            Some("characters 0-9 of 20; next: --start-index 9"),
            true,
        );
        assert!(colored.contains("\x1b[1;32msuccess"), "{colored}");
        assert!(colored.contains("characters 0-9 of 20; next: --start-index 9 (sha256"));
        let f = crate::model::receipt::sample_receipt(false);
        let failed = human(&f, "", "no usable content (x)", None, false);
        assert!(
            failed.starts_with("error: no usable content (x)"),
            "{failed}"
        );
    }

    #[test]
    fn human_fields_stay_on_their_lines_without_escapes() {
        let mut r = crate::model::receipt::sample_receipt(true);
        r.url = "https://a.example/\r\nsuccess via forged\tx".into();
        r.title = Some("Title\nerror: forged".into());
        r.provider_used = Some("dir\x1b[31mect\x07".into());
        r.attempts_log.push(crate::model::receipt::AttemptRecord {
            provider: "dir\x1b]0;title\x07ect\nforged".into(),
            outcome: crate::model::receipt::Outcome::Ok,
            http_status: Some(200),
            detail: "usable\rcontent\x1b[2K".into(),
            elapsed_ms: 1,
        });
        let out = human(&r, "line one\nline two", "", None, false);
        assert!(!out.contains('\x1b') && !out.contains('\x07') && !out.contains('\r'));
        let lines: Vec<&str> = out.lines().collect();
        assert!(lines[0].starts_with("success via direct ("), "{out}");
        assert!(
            lines.contains(&"url: https://a.example/\\r\\nsuccess via forged\\tx"),
            "{out}"
        );
        assert!(lines.contains(&"title: Title\\nerror: forged"), "{out}");
        assert!(
            lines
                .iter()
                .any(|l| l.contains("direct\\nforged") && l.ends_with("usable\\rcontent")),
            "{out}"
        );
        assert!(!lines
            .iter()
            .any(|l| l.starts_with("error:") || l.starts_with("success via forged")));
        // The page text keeps its own lines.
        assert!(out.ends_with("line one\nline two"), "{out}");
        let failed = crate::model::receipt::sample_receipt(false);
        let out = human(&failed, "", "invalid input: x\nsuccess via y", None, false);
        assert_eq!(
            out.lines().next(),
            Some("error: invalid input: x\\nsuccess via y")
        );
    }
}
