//! Issue 28, the first hour's second pass: what a newcomer ran into, each pinned by a test
//! that failed before the fix. Everything is on loopback; the Ctrl-C tests wait on what can
//! be observed (a request held by the server, a line on stderr, the client closing its
//! connection), never on a clock.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{json, Value};
use wiremock::matchers::path;
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::common::{
    article, assert_envelope, config_file, http_providers, json_out, raw_config_file, stderr_of,
    stdout_of, vetch, vetch_process,
};

/// A health endpoint on loopback, plain HTTP, answering `ok` (2 characters).
async fn health_server() -> MockServer {
    let server = MockServer::start().await;
    Mock::given(path("/health"))
        .respond_with(ResponseTemplate::new(200).set_body_raw("ok", "text/plain"))
        .mount(&server)
        .await;
    server
}

// ---- 1. URLs without a scheme: a local server rarely speaks TLS ----

/// The README's `vetch lookup localhost:8080/health --allow-private` failed against a
/// plain-HTTP server ("tls handshake eof"): a scheme-less `localhost` became `https://`.
#[tokio::test]
async fn scheme_less_localhost_and_loopback_literals_are_fetched_over_plain_http() {
    let server = health_server().await;
    let port = server.address().port();
    for typed in [
        format!("localhost:{port}/health"),
        format!("127.0.0.1:{port}/health"),
    ] {
        let out = vetch()
            .args(["lookup", &typed, "--allow-private", "--min-chars", "1"])
            .assert()
            .code(0);
        let v = json_out(&out.get_output().stdout);
        assert_envelope(&v, false);
        // The receipt shows the completed URL.
        assert_eq!(v["content"][0]["json"]["url"], format!("http://{typed}"));
        assert_eq!(v["content"][1]["text"], "ok");
    }
}

/// The same health check then failed "content too short: 2 chars, min_chars is 40" without
/// naming the flag that changes it. The person at the terminal is told; the receipt keeps
/// its contract detail (and the model, which sets `min_chars` itself, sees no flag).
#[tokio::test]
async fn content_too_short_names_the_min_chars_flag_where_a_person_reads_it() {
    let server = health_server().await;
    let url = format!("localhost:{}/health", server.address().port());
    let out = vetch()
        .args(["lookup", &url, "--allow-private", "-o", "text"])
        .assert()
        .code(1);
    let err = stderr_of(&out);
    assert!(
        err.contains("content too short: 2 chars, min_chars is 40"),
        "{err}"
    );
    assert!(err.contains("--min-chars 2"), "{err}");
    assert!(stdout_of(&out).is_empty());

    let out = vetch()
        .args(["lookup", &url, "--allow-private", "-o", "human"])
        .assert()
        .code(1);
    assert!(
        stdout_of(&out).contains("--min-chars 2"),
        "{}",
        stdout_of(&out)
    );

    let out = vetch()
        .args(["lookup", &url, "--allow-private"])
        .assert()
        .code(1);
    let v = json_out(&out.get_output().stdout);
    assert_envelope(&v, false);
    assert_eq!(
        v["content"][0]["json"]["attempts_log"][0]["detail"],
        "content too short: 2 chars, min_chars is 40"
    );
    assert!(!v.to_string().contains("--min-chars"), "{v}");
    assert!(
        stderr_of(&out).contains("--min-chars 2"),
        "{}",
        stderr_of(&out)
    );
}

// ---- 2. tool-spec --flavor strands is the shape Strands takes ----

/// Handed to Strands as printed, the Bedrock `{"toolSpec": {...}}` wrapper gave a tool
/// with `name=None`. Strands' ToolSpec is `{name, description, inputSchema: {json}}`; the
/// wrapper Bedrock's Converse `toolConfig.tools` takes is its own flavour, `bedrock`.
#[test]
fn tool_spec_strands_is_strands_tool_spec_and_bedrock_wraps_it() {
    let spec = |args: &[&str]| -> Value {
        let out = vetch().arg("tool-spec").args(args).assert().code(0);
        json_out(&out.get_output().stdout)
    };
    let strands = spec(&["--flavor", "strands"]);
    let keys: Vec<&str> = strands
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["name", "description", "inputSchema"], "{strands}");
    assert_eq!(strands["name"], "verified_web_lookup");
    assert_eq!(strands["inputSchema"]["json"]["required"], json!(["url"]));
    assert_eq!(spec(&[]), strands, "strands stays the default flavour");
    let bedrock = spec(&["--flavor", "bedrock"]);
    assert_eq!(bedrock, json!({ "toolSpec": strands }));
}

// ---- 3. A tool input without a scheme: words a model can act on ----

#[test]
fn tool_input_without_a_scheme_is_told_to_start_with_http_or_https() {
    let want = "invalid input: the url must start with http:// or https://";
    for url in [
        "example.com/docs",
        "www.example.com",
        "localhost:8080/health",
        "//example.com/x",
    ] {
        let out = vetch()
            .arg("tool")
            .write_stdin(json!({ "url": url }).to_string())
            .assert()
            .code(1);
        let v = json_out(&out.get_output().stdout);
        assert_envelope(&v, false);
        assert_eq!(v["content"][1]["text"], want, "{url}");
        let r = &v["content"][0]["json"];
        assert_eq!(r["failure_reason"], "invalid_input");
        assert_eq!(r["url"], url, "the receipt echoes what was sent");
    }
    // A JSON batch line is tool input too; a URL line is completed as on the command line.
    let out = vetch()
        .arg("batch")
        .write_stdin("{\"url\": \"example.com/docs\"}\n")
        .assert()
        .code(1);
    let v = json_out(&out.get_output().stdout);
    assert_eq!(v["content"][1]["text"], want);
    // Another scheme keeps its own message.
    let out = vetch()
        .arg("tool")
        .write_stdin("{\"url\": \"ftp://example.com/\"}")
        .assert()
        .code(1);
    let v = json_out(&out.get_output().stdout);
    assert_eq!(
        v["content"][1]["text"],
        "invalid input: scheme 'ftp' is not allowed (only http and https)"
    );
}

// ---- 4. Ctrl-C in batch ----

/// What the loopback server saw.
#[derive(Debug, PartialEq)]
enum Seen {
    /// A request for a page, answered.
    Served,
    /// A request for `/hang`, held open without an answer.
    Held,
    /// The client closed a held request's connection (it gave up on it).
    Closed,
}

/// A plain-HTTP server on loopback: `/hang` is held open for as long as the client keeps
/// the connection, any other path gets `page`. Each request is reported on the channel.
fn holding_server(page: String) -> (u16, mpsc::Receiver<Seen>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(conn) = conn else { continue };
            let (tx, page) = (tx.clone(), page.clone());
            std::thread::spawn(move || serve_one(conn, &tx, &page));
        }
    });
    (port, rx)
}

fn serve_one(mut conn: TcpStream, tx: &mpsc::Sender<Seen>, page: &str) {
    let mut head = Vec::new();
    let mut buf = [0u8; 4096];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        match conn.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
    }
    let head = String::from_utf8_lossy(&head);
    let target = head.split(' ').nth(1).unwrap_or("");
    if target.starts_with("/hang") {
        let _ = tx.send(Seen::Held);
        // Hold: read until the client closes the connection.
        while matches!(conn.read(&mut buf), Ok(n) if n > 0) {}
        let _ = tx.send(Seen::Closed);
    } else {
        let _ = write!(
            conn,
            "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{page}",
            page.len()
        );
        let _ = tx.send(Seen::Served);
    }
}

/// Wait for `want` from the server, skipping other events.
fn wait_for(events: &mpsc::Receiver<Seen>, want: Seen) {
    loop {
        match events.recv_timeout(HANG_GUARD) {
            Ok(e) if e == want => return,
            Ok(_) => {}
            Err(e) => panic!("the server never saw {want:?}: {e}"),
        }
    }
}

/// Only a guard against a hung test (the old behaviour hangs): nothing is measured.
const HANG_GUARD: Duration = Duration::from_secs(120);

/// Lines of the child's stderr, as they come.
fn stderr_lines(child: &mut Child) -> mpsc::Receiver<String> {
    let err = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(err).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// The first stderr line containing `needle`, or a panic naming what came instead.
fn wait_line(lines: &mpsc::Receiver<String>, needle: &str) -> String {
    let mut seen = Vec::new();
    loop {
        match lines.recv_timeout(HANG_GUARD) {
            Ok(l) if l.contains(needle) => return l,
            Ok(l) => seen.push(l),
            Err(e) => panic!("no stderr line with {needle:?} ({e}); got {seen:?}"),
        }
    }
}

fn interrupt(child: &Child) {
    let ok = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
}

/// The exit status, or a kill and a panic if the child is still running after the guard.
fn wait_or_kill(mut child: Child) -> std::process::ExitStatus {
    let pid = child.id();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait());
    });
    match rx.recv_timeout(HANG_GUARD) {
        Ok(status) => status.unwrap(),
        Err(_) => {
            let _ = std::process::Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
            panic!("vetch batch did not exit after Ctrl-C");
        }
    }
}

/// Attempts that only Ctrl-C can end early.
fn patient_config() -> tempfile::NamedTempFile {
    config_file(&format!(
        "[lookup]\nattempt_timeout_secs = 60\ndeadline_secs = 60\n{}",
        http_providers(&["direct"])
    ))
}

/// Ctrl-C used to wait for every lookup in flight (up to its deadline) and say nothing.
/// Now the first one stops dispatching, says so, cancels what is in flight (the server
/// sees the held request given up, long before its 60 s timeout) and writes every line
/// that was dispatched, in order: done ones as they were, cancelled ones as errors.
#[cfg(unix)]
#[test]
fn batch_first_ctrl_c_cancels_what_is_in_flight_and_says_so() {
    let (port, events) = holding_server(article("Done"));
    let cfg = patient_config();
    let mut child = vetch_process()
        .args(["batch", "--config"])
        .arg(cfg.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let err = stderr_lines(&mut child);
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "http://127.0.0.1:{port}/page").unwrap();
    writeln!(stdin, "http://127.0.0.1:{port}/hang").unwrap();
    stdin.flush().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    wait_for(&events, Seen::Held);

    interrupt(&child);
    let said = wait_line(&err, "interrupted");
    assert!(said.contains("Ctrl-C again"), "{said}");
    wait_for(&events, Seen::Closed);
    let status = wait_or_kill(child);
    assert_eq!(status.code(), Some(130));

    let v: Value = serde_json::from_str(&first).unwrap();
    assert_envelope(&v, false);
    assert_eq!(v["status"], "success");
    let mut rest = String::new();
    out.read_to_string(&mut rest).unwrap();
    let lines: Vec<&str> = rest.lines().collect();
    assert_eq!(lines.len(), 1, "{rest}");
    let v: Value = serde_json::from_str(lines[0]).unwrap();
    assert_envelope(&v, false);
    assert_eq!(v["status"], "error");
    let r = &v["content"][0]["json"];
    assert_eq!(r["url"], format!("http://127.0.0.1:{port}/hang"));
    assert_eq!(r["attempts_log"][0]["outcome"], "transport_error");
    let detail = r["attempts_log"][0]["detail"].as_str().unwrap();
    assert!(detail.contains("interrupted"), "{detail}");
    drop(stdin);
}

/// A second Ctrl-C exits at once with 130, even while the first is still finishing (here
/// it cannot finish: past the first line nobody reads stdout, so the writer is stuck on a
/// full pipe). The lines already written are whole.
#[cfg(unix)]
#[test]
fn batch_second_ctrl_c_exits_at_once_with_written_lines_intact() {
    // Pages whose lines (20000 characters of text each) overflow a 64 KiB pipe.
    let para = "Ownership rules are checked at compile time, and they make a program safe. ";
    let body = format!(
        "<!doctype html><html><head><title>Long</title></head><body><article><h1>Long</h1>{}</article></body></html>",
        format!("<p>{}</p>", para.repeat(10)).repeat(40)
    );
    let (port, events) = holding_server(body);
    let cfg = patient_config();
    let mut child = vetch_process()
        .args(["batch", "--config"])
        .arg(cfg.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let err = stderr_lines(&mut child);
    let mut stdin = child.stdin.take().unwrap();
    // Ten lines of about 20 KB: far more than a pipe holds once the first is read.
    for i in 0..10 {
        writeln!(stdin, "http://127.0.0.1:{port}/page{i}").unwrap();
    }
    writeln!(stdin, "http://127.0.0.1:{port}/hang").unwrap();
    stdin.flush().unwrap();
    wait_for(&events, Seen::Held);
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();

    interrupt(&child);
    wait_line(&err, "interrupted");
    interrupt(&child);
    wait_line(&err, "exiting now");
    let status = wait_or_kill(child);
    assert_eq!(status.code(), Some(130));
    let mut rest = String::new();
    out.read_to_string(&mut rest).unwrap();
    // Every whole line is a whole tool result; a line cut by the exit has no newline.
    let written = first + &rest;
    let whole: Vec<&str> = written
        .split_inclusive('\n')
        .filter(|l| l.ends_with('\n'))
        .collect();
    assert!(!whole.is_empty(), "nothing written");
    for line in whole {
        let v: Value = serde_json::from_str(line).unwrap();
        assert_envelope(&v, false);
        assert_eq!(v["status"], "success");
    }
    drop(stdin);
}

/// The engine side of Ctrl-C: a lookup that has not started when the stop fires makes no
/// attempt, and a waiter on the stop wakes whenever it fires.
#[tokio::test]
async fn a_fired_stop_ends_lookups_before_their_first_attempt() {
    let stop = vetch::lookup::Stop::default();
    let waiter = {
        let stop = stop.clone();
        tokio::spawn(async move { stop.fired().await })
    };
    let e = crate::common::engine(&http_providers(&["a", "b"])).with_stop(stop.clone());
    stop.fire();
    waiter.await.unwrap();
    stop.fired().await; // already fired: at once
    let out = e
        .lookup(&vetch::model::input::ToolInput::for_url(
            "http://127.0.0.1:9/",
        ))
        .await;
    let r = &out.receipt;
    assert_eq!((r.ok, r.attempts), (false, 0));
    assert_eq!(
        r.failure_reason,
        Some(vetch::model::receipt::FailureReason::AttemptBudgetExhausted)
    );
    assert_eq!(
        out.text,
        "no usable content: the run was stopped before the first attempt"
    );
}

// ---- 5. README, reference and usage errors as they really are ----

/// DESIGN §2: a usage error is a clear one-line message (clap printed five).
#[test]
fn usage_errors_are_one_line() {
    let cases: [(&[&str], &str); 6] = [
        (
            &["lookup", "https://example.com/", "--max-char", "3"],
            "--max-chars",
        ),
        (&["lookup"], "<URL>"),
        (&["bogus"], "'bogus'"),
        (&["lookup", "u", "--pretty", "--compact"], "--compact"),
        (
            &["completions", "nope"],
            "bash, elvish, fish, powershell, zsh",
        ),
        (&["batch", "--concurrency", "0"], "1..=1024"),
    ];
    for (args, want) in cases {
        let out = vetch().args(args).assert().code(2);
        let err = stderr_of(&out);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("vetch: "), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(stdout_of(&out).is_empty());
    }
    // Help is not an error, and stays whole.
    let out = vetch().args(["lookup", "--help"]).assert().code(0);
    assert!(stdout_of(&out).lines().count() > 10);
}

/// A reader API on loopback (a template provider's own endpoint) refused by the guard: the
/// hint names the narrow fix, the host in `[network] allow_private_hosts`, not only
/// `--allow-private`, which opens every local address to every requested URL.
#[test]
fn a_refused_local_reader_endpoint_hint_names_allow_private_hosts() {
    let cfg = raw_config_file(
        "[[providers]]\nname = \"reader\"\nkind = \"template\"\nurl = \"http://127.0.0.1:9/{url}\"\n",
    );
    let out = vetch()
        .args(["lookup", "https://example.com/", "-o", "text", "--config"])
        .arg(cfg.path())
        .assert()
        .code(1);
    let err = stderr_of(&out);
    assert!(err.contains("blocked: loopback address 127.0.0.1"), "{err}");
    assert!(
        err.contains("allow_private_hosts = [\"127.0.0.1\"]"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}

/// docs/reference.md said a client that skips `initialize` is told so on stderr and the
/// server exits 0. What rmcp 3.11 really does: a request before `initialize` is answered
/// with JSON-RPC error -32602 (it lacks the per-request `_meta` of the stateless protocol
/// revision), and the session goes on, so the client can still initialize.
#[test]
fn mcp_request_before_initialize_gets_an_error_and_the_session_goes_on() {
    let mut child = vetch_process()
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for msg in [
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}),
    ] {
        writeln!(stdin, "{msg}").unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let replies: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let by_id = |id: i64| replies.iter().find(|r| r["id"] == id).unwrap().clone();
    let early = by_id(1);
    assert_eq!(early["error"]["code"], -32602, "{early}");
    assert!(
        early["error"]["message"]
            .as_str()
            .unwrap()
            .contains("_meta"),
        "{early}"
    );
    assert_eq!(by_id(2)["result"]["serverInfo"]["name"], "vetch");
    assert_eq!(
        by_id(3)["result"]["tools"][0]["name"],
        "verified_web_lookup"
    );
}

/// The README's snippets as a newcomer copies them: `cargo install` puts the binary in
/// `~/.cargo/bin`, and bash completion needs the bash-completion package.
#[test]
fn readme_snippets_use_the_paths_a_newcomer_has() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    assert!(!readme.contains("/usr/local/bin/vetch"), "stale path");
    assert!(readme.contains("~/.cargo/bin"));
    assert!(readme.contains("bash-completion"));
}

// ---- 6. Where agents live: `uvx --from vetch-cli vetch mcp` ----

/// The fenced blocks of `text` marked `<!-- mcp-config: NAME -->`: (name, language, body).
fn marked_blocks(text: &str) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("<!-- mcp-config: ") {
        rest = &rest[at + "<!-- mcp-config: ".len()..];
        let (name, after) = rest.split_once(" -->").expect("a closed marker");
        let fence = after.trim_start();
        let fence = fence
            .strip_prefix("```")
            .expect("a fenced block right after the marker");
        let (lang, body) = fence.split_once('\n').expect("a fence line");
        let (body, after) = body.split_once("\n```").expect("a closed fence");
        out.push((name.to_string(), lang.to_string(), body.to_string()));
        rest = after;
    }
    out
}

/// The command line a client config starts: `command` and `args` of the `vetch` entry
/// (under `mcpServers`, or VS Code's `servers` with `"type": "stdio"`).
fn config_command(name: &str, lang: &str, body: &str) -> Vec<String> {
    if lang == "sh" {
        let line = body
            .lines()
            .find(|l| l.starts_with("claude mcp add"))
            .expect(name);
        let (_, command) = line
            .split_once(" -- ")
            .expect("claude mcp add NAME -- COMMAND");
        return command.split_whitespace().map(String::from).collect();
    }
    assert_eq!(lang, "json", "{name}");
    let v: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("{name}: {e}"));
    let entry = v
        .pointer("/mcpServers/vetch")
        .or_else(|| v.pointer("/servers/vetch"))
        .unwrap_or_else(|| panic!("{name}: no vetch server entry in {v}"));
    if v.get("servers").is_some() || entry.get("type").is_some() {
        assert_eq!(entry["type"], "stdio", "{name}");
    }
    let mut line = vec![entry["command"].as_str().expect("command").to_string()];
    for a in entry["args"].as_array().expect("args") {
        line.push(a.as_str().expect("string args").to_string());
    }
    line
}

/// README's ready-to-paste MCP client configs: each is valid JSON (or a valid `claude mcp
/// add` line), starts `uvx --from vetch-cli vetch ...`, and what it runs after that is a
/// working server: the built binary, given the same arguments, answers `initialize`.
#[test]
fn readme_mcp_client_configs_are_valid_and_start_the_server() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let blocks = marked_blocks(&readme);
    let names: Vec<&str> = blocks.iter().map(|b| b.0.as_str()).collect();
    assert_eq!(
        names,
        [
            "claude-desktop",
            "cursor",
            "vscode",
            "claude-code",
            "claude-code-json"
        ]
    );
    for (name, lang, body) in &blocks {
        let line = config_command(name, lang, body);
        assert_eq!(line[..4], ["uvx", "--from", "vetch-cli", "vetch"], "{name}");
        let args = &line[4..];
        assert_eq!(args, ["mcp"], "{name}");
        let mut child = vetch_process()
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": name, "version": "1"}}});
        writeln!(stdin, "{init}").unwrap();
        drop(stdin);
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{name}");
        let reply: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{name}: {e}: {:?}", String::from_utf8_lossy(&out.stdout)));
        assert_eq!(reply["result"]["serverInfo"]["name"], "vetch", "{name}");
    }
}

/// The wheel's metadata: maturin builds the `vetch` binary into a wheel named `vetch-cli`
/// (`vetch` on PyPI is another project), whose version is the crate's.
#[test]
fn pyproject_builds_the_binary_as_vetch_cli() {
    let py =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/pyproject.toml")).unwrap();
    let v: toml::Value = toml::from_str(&py).unwrap();
    assert_eq!(v["build-system"]["build-backend"].as_str(), Some("maturin"));
    assert_eq!(v["project"]["name"].as_str(), Some("vetch-cli"));
    assert_eq!(v["tool"]["maturin"]["bindings"].as_str(), Some("bin"));
    let dynamic = v["project"]["dynamic"].as_array().unwrap();
    assert!(dynamic.iter().any(|d| d.as_str() == Some("version")));
}
