//! The one writer. Every byte vetch prints leaves through a [`Printer`], which runs it
//! through the redactor first: stdout (tool results, receipts, text, NDJSON lines) and
//! stderr (diagnostics, errors). Values are already redacted where they are made
//! (`lookup`); this is the choke point that catches whatever was not.
//!
//! A closed stdout (`vetch ... | head -1`) ends the program quietly; it is not an error.

use std::io::{self, IsTerminal, Write};
use std::sync::{Arc, Mutex};

use serde::Serialize;

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
        let v = match serde_json::to_value(value) {
            Ok(mut v) => {
                self.redactor.redact_json_value(&mut v);
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

    /// Print text (redacted) followed by a newline if it lacks one.
    pub fn text(&self, text: &str) -> Result<(), Closed> {
        let s = self.redactor.redact_text(text);
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
        let s = self.redactor.redact_text(msg);
        let _ = writeln!(io::stderr().lock(), "{s}");
    }

    /// One diagnostic line on stderr, redacted. Errors writing stderr are ignored.
    pub fn diag(&self, msg: &str) {
        let s = self.redactor.redact_text(msg);
        let _ = writeln!(io::stderr().lock(), "vetch: {s}");
    }
}
