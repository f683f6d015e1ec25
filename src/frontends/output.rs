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
            Layout::Pretty => serde_json::to_string_pretty(&v),
            Layout::Compact => serde_json::to_string(&v),
        }
        .unwrap_or_default()
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

/// `-o human`: a summary for a person (status, provider, the attempts as a table), then the
/// text on success. Plain text unless `color`; the caller prints it through the redactor.
/// `window` is the `-o text` cut line when the text is one window of a longer content.
pub fn human(
    r: &crate::model::receipt::Receipt,
    text: &str,
    failure: &str,
    window: Option<&str>,
    color: bool,
) -> String {
    // What came from outside loses its control characters here, so that the only escape
    // sequences in the result are the colours added below.
    let text = &*strip_controls(text);
    let failure = &*strip_controls(failure);
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
            r.provider_used.as_deref().unwrap_or("?"),
            r.attempts,
            r.elapsed_ms
        ));
    } else {
        out.push_str(&format!("{}: {failure}\n", paint("1;31", "error")));
    }
    out.push_str(&format!("url: {}\n", strip_controls(&r.url)));
    if let Some(t) = &r.title {
        out.push_str(&format!("title: {}\n", strip_controls(t)));
    }
    if r.ok {
        match window {
            Some(w) => out.push_str(w),
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
    if !r.attempts_log.is_empty() {
        let rows: Vec<[String; 6]> = r
            .attempts_log
            .iter()
            .enumerate()
            .map(|(i, a)| {
                [
                    (i + 1).to_string(),
                    a.provider.clone(),
                    a.outcome.as_str().to_string(),
                    a.http_status.map_or("-".into(), |s| s.to_string()),
                    a.elapsed_ms.to_string(),
                    strip_controls(&a.detail).into_owned(),
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
