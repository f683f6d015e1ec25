//! Fidelity (DESIGN §12, issue 23): the text is what the page says. Extraction removes whole
//! blocks, never a word, URL, path, e-mail address, identifier or number out of a sentence,
//! a list item or a table cell.
//!
//! The fixtures under `tests/fixtures/fidelity/` are pages of our own, each with a `.expect`
//! file: the page's visible strings, one a line, in the order the page shows them. Every
//! string must be found, in order, in every mode: the default Markdown (with its escapes
//! undone, as a reader reads it) from `lookup`, `batch` and `mcp`, and `--extract text`,
//! except the headline, which plain text leaves to the receipt's `title`.
//! `--extract raw` must hand the body back byte for byte.
//!
//! The property test builds article pages of random "words" and checks that every word of
//! every paragraph that extraction keeps is in the text, except words the redactor
//! replaces (the one sanctioned change).

use std::io::Write;
use std::process::Stdio;

use proptest::prelude::*;
use serde_json::{json, Value};
use vetch::content::extract::extract_redacted;
use vetch::model::kinds::{BodyKind, ExtractMode};
use vetch::redact::Redactor;
use wiremock::matchers::path;
use wiremock::{Mock, MockServer};

use crate::common::{config_file, html, http_providers, md_unescape, pages_with_expect, vetch};

/// Which outputs an expected string must be found in.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Holds {
    /// Every mode, raw HTML included (as its text).
    Everywhere,
    /// Markdown and text (a rendering such as `mc^2`).
    Converted,
    /// Markdown only (a link target).
    Markdown,
    /// The page's headline: the Markdown's `# Headline`; in plain text, the receipt's
    /// `title` (plain text is the page's body).
    Headline,
}

/// One fixture: its name, its bytes, and its expected strings.
struct Fixture {
    name: String,
    body: String,
    expect: Vec<(Holds, String)>,
}

fn fixtures() -> Vec<Fixture> {
    let mut out = Vec::new();
    for (stem, bytes, expect) in pages_with_expect("fidelity") {
        let expect = expect
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(|l| {
                if let Some(s) = l.strip_prefix("[converted] ") {
                    (Holds::Converted, s.to_string())
                } else if let Some(s) = l.strip_prefix("[markdown] ") {
                    (Holds::Markdown, s.to_string())
                } else if let Some(s) = l.strip_prefix("[headline] ") {
                    (Holds::Headline, s.to_string())
                } else {
                    (Holds::Everywhere, l.to_string())
                }
            })
            .collect();
        out.push(Fixture {
            name: stem,
            body: String::from_utf8_lossy(&bytes).into_owned(),
            expect,
        });
    }
    assert!(out.len() >= 3, "fidelity fixtures: {}", out.len());
    out
}

/// Every expected string that holds in `mode` is in `text`, in order; the missing ones.
fn missing_in_order(fixture: &Fixture, mode: &str, text: &str) -> Vec<String> {
    missing_in_order_titled(fixture, mode, text, None)
}

/// [`missing_in_order`]; in plain text, the headline is looked for in the receipt's
/// `title` instead.
fn missing_in_order_titled(
    fixture: &Fixture,
    mode: &str,
    text: &str,
    title: Option<&str>,
) -> Vec<String> {
    let markdown = mode != "text";
    // A no-break space reads as a space (Markdown keeps the character, text a space).
    let text = &text.replace('\u{a0}', " ");
    let mut at = 0;
    let mut missing = Vec::new();
    for (holds, want) in &fixture.expect {
        if *holds == Holds::Markdown && !markdown {
            continue;
        }
        if *holds == Holds::Headline && !markdown {
            if !title.is_some_and(|t| t.contains(want.as_str())) {
                missing.push(format!("{}/{mode} title: {want:?}", fixture.name));
            }
            continue;
        }
        match text[at..].find(want.as_str()) {
            Some(i) => at += i + want.len(),
            None => missing.push(format!("{}/{mode}: {want:?}", fixture.name)),
        }
    }
    missing
}

async fn serve(fixtures: &[Fixture]) -> MockServer {
    let server = MockServer::start().await;
    for f in fixtures {
        Mock::given(path(format!("/{}", f.name)))
            .respond_with(html(f.body.clone()))
            .mount(&server)
            .await;
    }
    server
}

fn lookup(url: &str, cfg: &std::path::Path, extract: &str) -> String {
    lookup_as(url, cfg, extract, "text")
}

fn lookup_as(url: &str, cfg: &std::path::Path, extract: &str, output: &str) -> String {
    let out = vetch()
        .args([
            "lookup",
            url,
            "-o",
            output,
            "--compact",
            "--extract",
            extract,
            "--config",
        ])
        .arg(cfg)
        .assert()
        .code(0);
    String::from_utf8_lossy(&out.get_output().stdout).into_owned()
}

#[tokio::test]
async fn every_visible_string_survives_every_mode() {
    let fixtures = fixtures();
    let server = serve(&fixtures).await;
    let cfg = config_file(&http_providers(&["direct"]));
    let url = |f: &Fixture| format!("{}/{}", server.uri(), f.name);
    let mut missing = Vec::new();

    for f in &fixtures {
        let md = md_unescape(&lookup(&url(f), cfg.path(), "markdown"));
        missing.extend(missing_in_order(f, "lookup markdown", &md));
        let auto = md_unescape(&lookup(&url(f), cfg.path(), "auto"));
        assert_eq!(auto, md, "{}: auto is Markdown", f.name);
        let result: Value =
            serde_json::from_str(&lookup_as(&url(f), cfg.path(), "text", "tool-result"))
                .expect("a tool result");
        let text = result["content"][1]["text"].as_str().unwrap_or_default();
        let title = result["content"][0]["json"]["title"].as_str();
        missing.extend(missing_in_order_titled(f, "text", text, title));
        // Raw is the body as it came: nothing to find, nothing lost.
        let raw = lookup(&url(f), cfg.path(), "raw");
        assert_eq!(raw.trim_end(), f.body.trim_end(), "{}: raw", f.name);
    }

    // Batch, default mode, one line per fixture.
    let input: String = fixtures.iter().map(|f| url(f) + "\n").collect();
    let out = vetch()
        .args(["batch", "--config"])
        .arg(cfg.path())
        .write_stdin(input)
        .assert()
        .code(0);
    let lines: Vec<Value> = String::from_utf8_lossy(&out.get_output().stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(lines.len(), fixtures.len());
    for (f, line) in fixtures.iter().zip(&lines) {
        let text = md_unescape(line["content"][1]["text"].as_str().unwrap_or_default());
        missing.extend(missing_in_order(f, "batch", &text));
    }

    // MCP: one session, every fixture called, stdin closed (the server answers what is
    // queued and exits).
    let mut frames = vec![
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "fidelity", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ];
    for (i, f) in fixtures.iter().enumerate() {
        frames.push(
            json!({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": {
            "name": "verified_web_lookup", "arguments": {"url": url(f)}}}),
        );
    }
    let mut child = crate::common::vetch_process()
        .args(["mcp", "--config"])
        .arg(cfg.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn vetch mcp");
    {
        let mut stdin = child.stdin.take().expect("stdin");
        for frame in &frames {
            writeln!(stdin, "{frame}").expect("write a frame");
        }
    }
    let out = child.wait_with_output().expect("mcp output");
    assert!(out.status.success());
    let responses: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON-RPC line"))
        .collect();
    for (i, f) in fixtures.iter().enumerate() {
        let r = responses
            .iter()
            .find(|r| r["id"] == json!(i + 1))
            .unwrap_or_else(|| panic!("no MCP answer for {}", f.name));
        assert_eq!(r["result"]["isError"], json!(false), "{r}");
        let text = md_unescape(
            r["result"]["content"][1]["text"]
                .as_str()
                .unwrap_or_default(),
        );
        missing.extend(missing_in_order(f, "mcp", &text));
    }

    assert!(missing.is_empty(), "missing:\n{}", missing.join("\n"));
}

// --- the property ------------------------------------------------------------------------

/// `s` as HTML text (the page's source spelling of it).
fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// One word: 1–300 characters, no whitespace.
fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        // Ordinary words, so that a paragraph reads as prose for the extractor.
        4 => "[a-z]{1,12}",
        // URL, path and identifier characters, Markdown syntax, other scripts.
        3 => "[A-Za-z0-9/:.?&=#%_~+@,;!$'()*\\[\\]<>`|^{}\\-\\\\éßøΩжд中文日本]{1,300}",
        1 => "https://[a-z0-9.-]{3,40}/[A-Za-z0-9/._~%?&=+-]{1,250}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 96,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn every_word_of_a_kept_paragraph_is_in_the_text(
        paragraphs in prop::collection::vec(prop::collection::vec(word(), 1..24), 1..6),
    ) {
        let redactor = Redactor::new();
        // Each paragraph opens with a plain marker word (to tell whether extraction kept
        // it) and enough prose for readability to take the page for an article.
        let mut body = String::from("<h1>Generated notes</h1>");
        for (i, words) in paragraphs.iter().enumerate() {
            body.push_str(&format!(
                "<p>Paragraphmark{i} the notes below were written down as they came. {}</p>\n",
                words.iter().map(|w| html_escape(w)).collect::<Vec<_>>().join(" ")
            ));
        }
        let page = format!(
            "<!doctype html><html><head><title>Notes</title></head><body><article>{body}\
             </article></body></html>"
        );
        let base = Some("https://notes.example/page");
        // As a lookup does: redaction on the parsed page, then once more on the result.
        let md = extract_redacted(&page, BodyKind::Html, ExtractMode::Markdown, base, &redactor);
        let md = md_unescape(&redactor.redact_text(&md.text));
        let text = extract_redacted(&page, BodyKind::Html, ExtractMode::Text, base, &redactor);
        let text = redactor.redact_text(&text.text);
        for (i, words) in paragraphs.iter().enumerate() {
            let marker = format!("Paragraphmark{i}");
            // Words the redactor replaces in this paragraph are the one sanctioned change.
            let redacted = redactor.redact_text(&words.join(" "));
            for (mode, out) in [("markdown", &md), ("text", &text)] {
                if !out.contains(&marker) {
                    continue;
                }
                for w in words.iter().filter(|w| redacted.split(' ').any(|r| r == w.as_str())) {
                    prop_assert!(
                        out.contains(w.as_str()),
                        "{mode}: word {:?} of paragraph {i} is missing:\n{}", w, out
                    );
                }
            }
        }
    }
}
