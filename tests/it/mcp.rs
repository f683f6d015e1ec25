//! `vetch mcp` end to end: the built binary spoken to with raw JSON-RPC lines over its
//! stdin/stdout, as any MCP client does, against a local wiremock server (no outside
//! network).
//!
//! Responses are read by id with a plain blocking reader: the server answers every request,
//! so no timeouts or sleeps are needed. Every stdout line is kept and, at the end, must be a
//! JSON-RPC frame: nothing else may reach stdout.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, ExitStatus, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

use crate::common::{html, vetch_process, CHALLENGE};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer};

const PROTOCOL: &str = "2025-06-18";
const TOOL: &str = "verified_web_lookup";

const ARTICLE: &str = r#"<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Understanding Ownership in Rust | The Field Guide</title>
  <meta name="description" content="How Rust manages memory without a garbage collector.">
  <link rel="stylesheet" href="/static/site.css">
</head>
<body>
  <header><nav><a href="/">Home</a> <a href="/guides">Guides</a> <a href="/about">About</a></nav></header>
  <main>
    <article>
      <h1>Understanding Ownership in Rust</h1>
      <p class="byline">By Dana Whitfield, updated March 2025</p>
      <p>Ownership is the set of rules that governs how a Rust program manages memory. Every
      program has to manage the way it uses a computer's memory while running. Some languages
      have garbage collection that regularly looks for memory that is no longer used; in
      others, the programmer must explicitly allocate and free the memory.</p>
      <p>Rust takes a third approach: memory is managed through a system of ownership with a
      set of rules that the compiler checks. If any of the rules are violated, the program
      will not compile. None of the features of ownership slow down your program while it is
      running.</p>
      <h2>The three rules</h2>
      <p>Each value in Rust has an owner. There can only be one owner at a time. When the
      owner goes out of scope, the value will be dropped. These rules sound simple, but they
      shape how every Rust program is written, from command-line tools to operating system
      kernels.</p>
      <h2>Borrowing</h2>
      <p>Instead of transferring ownership, a function can borrow a value through a
      reference. At any given time you can have either one mutable reference or any number of
      immutable references, and references must always be valid. The borrow checker enforces
      both rules at compile time, which rules out data races before the program ever runs.</p>
      <p>Once these ideas click, the compiler's messages stop feeling like obstacles and
      start reading like a careful colleague pointing at the exact line where a value is used
      after it moved.</p>
    </article>
  </main>
  <footer><p>&copy; 2025 The Field Guide. All rights reserved.</p></footer>
</body>
</html>
"#;

/// A vetch mcp child and a line-by-line JSON-RPC conversation with it.
pub struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    /// Every stdout line, in arrival order.
    lines: Vec<String>,
    /// Responses read while waiting for another id.
    pending: HashMap<i64, Value>,
    /// Ids of responses in the order they arrived.
    arrival: Vec<i64>,
}

impl Session {
    pub fn start(config: &Path) -> Session {
        let mut child = vetch_process()
            .arg("mcp")
            .arg("--allow-private")
            .arg("--config")
            .arg(config)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn vetch mcp");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        Session {
            child,
            stdin,
            stdout,
            lines: Vec::new(),
            pending: HashMap::new(),
            arrival: Vec::new(),
        }
    }

    fn send_raw(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line.as_bytes()).expect("write");
        stdin.write_all(b"\n").expect("write");
        stdin.flush().expect("flush");
    }

    fn send(&mut self, msg: &Value) {
        let line = serde_json::to_string(msg).expect("serialize");
        self.send_raw(&line);
    }

    fn request(&mut self, id: i64, method_name: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method_name, "params": params}));
    }

    pub fn call(&mut self, id: i64, arguments: Value) {
        self.request(
            id,
            "tools/call",
            json!({"name": TOOL, "arguments": arguments}),
        );
    }

    /// Block until the response with `id` arrives.
    fn response(&mut self, id: i64) -> Value {
        loop {
            if let Some(v) = self.pending.remove(&id) {
                return v;
            }
            let mut line = String::new();
            let n = self.stdout.read_line(&mut line).expect("read stdout");
            assert!(
                n > 0,
                "stdout closed while waiting for id {id}; lines: {:#?}",
                self.lines
            );
            let line = line.trim_end_matches(['\r', '\n']).to_string();
            let v: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"));
            self.lines.push(line);
            if let Some(got) = v.get("id").and_then(Value::as_i64) {
                self.arrival.push(got);
                self.pending.insert(got, v);
            }
        }
    }

    /// The `result` of a response, failing on a JSON-RPC error.
    pub fn result(&mut self, id: i64) -> Value {
        let v = self.response(id);
        assert_eq!(v["jsonrpc"], "2.0", "{v}");
        assert!(v.get("error").is_none(), "id {id}: unexpected error: {v}");
        v["result"].clone()
    }

    pub fn initialize(&mut self) -> Value {
        self.request(
            1,
            "initialize",
            json!({
                "protocolVersion": PROTOCOL,
                "capabilities": {},
                "clientInfo": {"name": "vetch-test", "version": "0.0.1"}
            }),
        );
        let r = self.result(1);
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        r
    }

    /// Close stdin, wait for the exit, and return the status, the remaining stdout lines
    /// (all of stdout is then checked to be JSON-RPC frames) and stderr.
    pub fn finish(mut self) -> (ExitStatus, Vec<String>, String) {
        drop(self.stdin.take());
        let mut rest = String::new();
        self.stdout.read_to_string(&mut rest).expect("read stdout");
        self.lines
            .extend(rest.lines().filter(|l| !l.is_empty()).map(str::to_string));
        let mut stderr = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            e.read_to_string(&mut stderr).expect("read stderr");
        }
        let status = self.child.wait().expect("wait");
        for line in &self.lines {
            let v: Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"));
            assert_eq!(v["jsonrpc"], "2.0", "not a JSON-RPC frame: {line}");
            assert!(
                v.get("id").is_some() || v.get("method").is_some(),
                "not a JSON-RPC frame: {line}"
            );
        }
        (status, self.lines, stderr)
    }
}

/// The parts of a `tools/call` result every test checks: `content` has exactly two text
/// blocks, the first is the receipt as JSON text equal to `structuredContent`, and
/// `isError` agrees with the receipt. Returns (receipt, text, isError).
fn split_result(r: &Value) -> (Value, String, bool) {
    let content = r["content"].as_array().expect("content array");
    assert_eq!(content.len(), 2, "two content blocks: {r}");
    for block in content {
        assert_eq!(block["type"], "text", "{block}");
    }
    let receipt = r["structuredContent"].clone();
    assert!(receipt.is_object(), "structuredContent is the receipt: {r}");
    assert_eq!(receipt["schema"], "verified_web_lookup.receipt/v1");
    let first: Value = serde_json::from_str(content[0]["text"].as_str().expect("text"))
        .expect("content[0] is JSON");
    assert_eq!(first, receipt, "content[0] is the receipt");
    let is_error = r["isError"].as_bool().expect("isError is a boolean");
    assert_eq!(is_error, !receipt["ok"].as_bool().expect("ok"), "{r}");
    let text = content[1]["text"].as_str().expect("text").to_string();
    (receipt, text, is_error)
}

fn direct_config(dir: &tempfile::TempDir) -> std::path::PathBuf {
    let p = dir.path().join("config.toml");
    std::fs::write(&p, "[[providers]]\nname = \"direct\"\nkind = \"http\"\n").expect("config");
    p
}

#[test]
fn mcp_session_lists_calls_and_survives_bad_input() {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let server = rt.block_on(MockServer::start());
    rt.block_on(async {
        Mock::given(method("GET"))
            .and(path("/guide/ownership"))
            .respond_with(html(ARTICLE))
            .mount(&server)
            .await;
        Mock::given(method("GET"))
            .and(path("/challenge"))
            .respond_with(html(CHALLENGE))
            .mount(&server)
            .await;
    });
    let dir = tempfile::tempdir().expect("tempdir");
    let mut s = Session::start(&direct_config(&dir));

    // initialize
    let init = s.initialize();
    assert_eq!(init["protocolVersion"], PROTOCOL);
    assert_eq!(init["serverInfo"]["name"], "vetch");
    assert_eq!(init["serverInfo"]["version"], env!("CARGO_PKG_VERSION"));
    assert!(init["capabilities"]["tools"].is_object(), "{init}");

    // tools/list: one tool, its schemas from the one source of truth
    s.request(2, "tools/list", json!({}));
    let list = s.result(2);
    let tools = list["tools"].as_array().expect("tools");
    assert_eq!(tools.len(), 1, "{list}");
    let t = &tools[0];
    assert_eq!(t["name"], TOOL);
    assert_eq!(t["description"], vetch::model::spec::DESCRIPTION);
    assert_eq!(t["inputSchema"], vetch::model::spec::input_schema());
    assert_eq!(t["outputSchema"], vetch::model::spec::output_schema());
    assert_eq!(t["inputSchema"]["required"], json!(["url"]));

    // a real article: success
    let article_url = format!("{}/guide/ownership", server.uri());
    s.call(
        3,
        json!({"url": article_url, "must_contain": "borrow checker"}),
    );
    let r = s.result(3);
    let (receipt, text, is_error) = split_result(&r);
    assert!(!is_error, "{r}");
    assert_eq!(receipt["ok"], true);
    assert_eq!(receipt["url"], article_url);
    assert_eq!(receipt["attempts"], 1);
    assert_eq!(receipt["provider_used"], "direct");
    assert_eq!(receipt["fallback_used"], false);
    assert_eq!(receipt["failure_reason"], Value::Null);
    assert_eq!(receipt["attempts_log"][0]["provider"], "direct");
    assert_eq!(receipt["attempts_log"][0]["outcome"], "ok");
    assert_eq!(receipt["attempts_log"][0]["http_status"], 200);
    assert_eq!(receipt["attempts_log"][0]["detail"], "usable content");
    assert!(text.contains("The borrow checker enforces"), "{text}");
    assert!(text.contains("Each value in Rust has an owner"), "{text}");
    assert!(!text.contains("<p>"), "extracted, not raw HTML: {text}");
    assert_eq!(
        receipt["content_chars"].as_u64(),
        Some(text.chars().count() as u64),
        "a short page comes back whole"
    );

    // a Cloudflare-style interstitial answered with 200: an error, and no page text
    s.call(4, json!({"url": format!("{}/challenge", server.uri())}));
    let r = s.result(4);
    let (receipt, text, is_error) = split_result(&r);
    assert!(is_error, "{r}");
    assert_eq!(receipt["ok"], false);
    assert_eq!(receipt["provider_used"], Value::Null);
    assert_eq!(receipt["failure_reason"], "all_providers_failed");
    assert_eq!(receipt["content_chars"], 0);
    assert_eq!(receipt["attempts_log"][0]["outcome"], "unusable_content");
    assert_eq!(receipt["attempts_log"][0]["http_status"], 200);
    assert_eq!(
        receipt["attempts_log"][0]["detail"],
        "interstitial page detected ('just a moment')"
    );
    assert!(!text.contains("security of your connection"), "{text}");
    assert!(!text.is_empty());

    // a line that is not JSON: ignored, the session goes on
    s.send_raw("this is not json {");

    // bad arguments: isError results that name the field
    let bad: [(i64, Value, &str); 3] = [
        (5, json!({"url": 5}), "`url`"),
        (6, json!({"nope": 1}), "`nope`"),
        (
            7,
            json!({"url": "https://example.com/", "max_attempts": "3"}),
            "`max_attempts`",
        ),
    ];
    for (id, args, _) in &bad {
        s.call(*id, args.clone());
    }
    for (id, _, field) in &bad {
        let r = s.result(*id);
        let (receipt, text, is_error) = split_result(&r);
        assert!(is_error, "{r}");
        assert_eq!(receipt["failure_reason"], "invalid_input", "{r}");
        assert_eq!(receipt["attempts"], 0);
        assert!(text.contains(field), "id {id}: {text}");
        assert!(
            receipt["failure_detail"]
                .as_str()
                .unwrap_or("")
                .contains(field),
            "{receipt}"
        );
    }

    // missing arguments, and arguments that are not an object (a JSON-encoded string)
    s.request(8, "tools/call", json!({"name": TOOL}));
    s.request(
        9,
        "tools/call",
        json!({"name": TOOL, "arguments": "{\"url\": \"https://example.com/\"}"}),
    );
    let (_, text, is_error) = split_result(&s.result(8));
    assert!(is_error);
    assert!(text.contains("missing required field `url`"), "{text}");
    let (_, text, is_error) = split_result(&s.result(9));
    assert!(is_error);
    assert!(text.contains("must be a JSON object"), "{text}");

    // an unknown tool is a JSON-RPC error, not a crash
    s.request(
        10,
        "tools/call",
        json!({"name": "fetch_everything", "arguments": {}}),
    );
    let v = s.response(10);
    assert_eq!(v["error"]["code"], -32602, "{v}");
    assert!(
        v["error"]["message"].as_str().unwrap_or("").contains(TOOL),
        "{v}"
    );

    // still answering after all of that
    s.request(11, "tools/list", json!({}));
    let list = s.result(11);
    assert_eq!(list["tools"][0]["name"], TOOL);

    // an unknown tool name is echoed redacted and without control characters
    let token = "ghp_Q0x00Wk3VZabcdefghijklmnopqrstuvwxyz01";
    s.request(
        12,
        "tools/call",
        json!({"name": format!("\u{1b}]52;c;{token}\u{7}x\u{1b}[2J"), "arguments": {}}),
    );
    let v = s.response(12);
    let message = v["error"]["message"].as_str().unwrap_or("");
    assert_eq!(v["error"]["code"], -32602, "{v}");
    assert!(!message.contains(token), "{v}");
    assert!(
        !message.contains('\u{1b}') && !message.contains('\u{7}'),
        "{v}"
    );

    let (status, lines, stderr) = s.finish();
    assert_eq!(status.code(), Some(0), "exit status; stderr: {stderr}");
    // one frame per request, nothing else (the garbage line is not answered)
    assert_eq!(lines.len(), 12, "{lines:#?}");
}

#[test]
fn mcp_seed_example_fallback_to_backup() {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let server = rt.block_on(MockServer::start());
    rt.block_on(async {
        Mock::given(method("GET"))
            .and(path("/primary"))
            .respond_with(html(CHALLENGE))
            .expect(1)
            .mount(&server)
            .await;
        Mock::given(method("GET"))
            .and(path("/backup"))
            .respond_with(html(ARTICLE))
            .expect(1)
            .mount(&server)
            .await;
    });
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("config.toml");
    let base = server.uri();
    std::fs::write(
        &config,
        format!(
            // The requested host is not reachable from the tests (only the readers are), so
            // its robots.txt, which `mcp` respects by default, would refuse it as unreachable:
            // this test is about the fallback, not about robots.txt.
            "[lookup]\nrobots = \"ignore\"\n\n\
             [[providers]]\nname = \"primary\"\nkind = \"template\"\nurl = \"{base}/primary?u={{url_encoded}}\"\n\n\
             [[providers]]\nname = \"backup\"\nkind = \"template\"\nurl = \"{base}/backup?u={{url_encoded}}\"\n"
        ),
    )
    .expect("config");
    let mut s = Session::start(&config);
    s.initialize();
    s.call(
        2,
        json!({"url": "https://docs.example.com/ownership", "max_attempts": 2}),
    );
    let r = s.result(2);
    let (receipt, text, is_error) = split_result(&r);
    assert!(!is_error, "{r}");
    assert_eq!(receipt["ok"], true);
    assert_eq!(receipt["attempts"], 2);
    assert_eq!(receipt["provider_used"], "backup");
    assert_eq!(receipt["fallback_used"], true);
    assert_eq!(receipt["failure_reason"], Value::Null);
    let log = receipt["attempts_log"].as_array().expect("log");
    let brief: Vec<(&str, &str, i64, &str)> = log
        .iter()
        .map(|a| {
            (
                a["provider"].as_str().unwrap_or(""),
                a["outcome"].as_str().unwrap_or(""),
                a["http_status"].as_i64().unwrap_or(0),
                a["detail"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        brief,
        [
            (
                "primary",
                "unusable_content",
                200,
                "interstitial page detected ('just a moment')"
            ),
            ("backup", "ok", 200, "usable content"),
        ]
    );
    assert!(text.contains("Each value in Rust has an owner"), "{text}");
    let (status, _, stderr) = s.finish();
    assert_eq!(status.code(), Some(0), "stderr: {stderr}");
    // Primary once, backup once.
    rt.block_on(server.verify());
}

#[test]
fn mcp_calls_run_concurrently() {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let server = rt.block_on(MockServer::start());
    rt.block_on(async {
        Mock::given(method("GET"))
            .and(path("/slow"))
            .respond_with(html(ARTICLE).set_delay(Duration::from_secs(3)))
            .mount(&server)
            .await;
        Mock::given(method("GET"))
            .and(path("/fast"))
            .respond_with(html(ARTICLE))
            .mount(&server)
            .await;
    });
    let dir = tempfile::tempdir().expect("tempdir");
    let mut s = Session::start(&direct_config(&dir));
    s.initialize();
    s.call(2, json!({"url": format!("{}/slow", server.uri())}));
    s.call(3, json!({"url": format!("{}/fast", server.uri())}));
    let slow = s.result(2);
    let fast = s.result(3);
    assert_eq!(slow["isError"], false, "{slow}");
    assert_eq!(fast["isError"], false, "{fast}");
    // The fast call was answered while the slow one was still waiting on its server.
    assert_eq!(s.arrival, [1, 3, 2]);
    let (status, _, stderr) = s.finish();
    assert_eq!(status.code(), Some(0), "stderr: {stderr}");
}

#[test]
fn mcp_exits_zero_when_stdin_ends_before_initialize() {
    let dir = tempfile::tempdir().expect("tempdir");
    let s = Session::start(&direct_config(&dir));
    let (status, lines, stderr) = s.finish();
    assert_eq!(status.code(), Some(0), "stderr: {stderr}");
    assert!(lines.is_empty(), "{lines:#?}");
}

/// Regression: a call still running when stdin closes used to be cancelled by rmcp's short
/// drain at end of input; a scripted `... | vetch mcp` lost its slow answers.
#[test]
fn mcp_answers_a_slow_call_after_stdin_closes() {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let server = rt.block_on(MockServer::start());
    rt.block_on(async {
        Mock::given(method("GET"))
            .and(path("/slow"))
            .respond_with(html(ARTICLE).set_delay(Duration::from_secs(7)))
            .mount(&server)
            .await;
    });
    let dir = tempfile::tempdir().expect("tempdir");
    let mut s = Session::start(&direct_config(&dir));
    s.initialize();
    s.call(2, json!({"url": format!("{}/slow", server.uri())}));
    let (status, lines, stderr) = s.finish();
    assert_eq!(status.code(), Some(0), "stderr: {stderr}");
    let answer = lines
        .iter()
        .map(|l| serde_json::from_str::<Value>(l).expect("json"))
        .find(|v| v["id"] == 2)
        .unwrap_or_else(|| panic!("no answer to the slow call: {lines:#?}"));
    assert_eq!(answer["result"]["isError"], false, "{answer}");
}
