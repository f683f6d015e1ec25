//! Hostile pages and programs (issue 12): one real loopback server or program per finding.
//! Each row runs the real binary and asserts the outcome; that the process ended within its
//! deadline plus a margin (a bound, not a speed test); where the finding was about CPU,
//! that the child's CPU time (from `wait4`) stayed within the same bound; and that the
//! other lookups of the same `batch` or `mcp` process still got their answers.

use crate::common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{config_file, raw_config_file};
use serde_json::Value;

/// Limits for the rows: an attempt and a lookup deadline, short enough that a hang costs
/// little and long enough for a debug build on a loaded machine.
const DEADLINE_SECS: u64 = 12;
const LIMITS: &str = "[lookup]\nattempt_timeout_secs = 10\ndeadline_secs = 12\nmin_chars = 5\n";
/// Wall and CPU bound: the deadline plus a margin for process start and CI load.
fn bound() -> Duration {
    Duration::from_secs(DEADLINE_SECS + 3)
}

// --- a loopback server ----------------------------------------------------------------

/// Serve `pages` (path, content type, body) on 127.0.0.1; unknown paths get a normal page.
fn serve(pages: Vec<(&'static str, &'static str, Vec<u8>)>) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    let pages = std::sync::Arc::new(pages);
    std::thread::spawn(move || {
        for conn in listener.incoming().flatten() {
            let pages = pages.clone();
            std::thread::spawn(move || answer(conn, &pages));
        }
    });
    addr
}

fn answer(mut s: TcpStream, pages: &[(&'static str, &'static str, Vec<u8>)]) {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match s.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => return,
        }
    }
    let head = String::from_utf8_lossy(&head);
    let path = head.split_whitespace().nth(1).unwrap_or("/").to_string();
    let normal = common::article("A normal page").into_bytes();
    let (ctype, body) = pages
        .iter()
        .find(|(p, _, _)| *p == path)
        .map(|(_, t, b)| (*t, b.as_slice()))
        .unwrap_or(("text/html", normal.as_slice()));
    let _ = s.write_all(
        format!(
            "HTTP/1.1 200 OK\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        )
        .as_bytes(),
    );
    let _ = s.write_all(body);
}

// --- running the binary, with its CPU time ----------------------------------------------

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    cpu: Duration,
}

#[repr(C)]
#[derive(Default)]
struct Timeval {
    sec: i64,
    usec: i64,
}

#[repr(C)]
#[derive(Default)]
struct Rusage {
    utime: Timeval,
    stime: Timeval,
    rest: [i64; 14],
}

extern "C" {
    fn wait4(pid: i32, status: *mut i32, options: i32, rusage: *mut Rusage) -> i32;
}

/// Run `vetch ARGS` with `stdin`, isolated from any config, and wait for it with `wait4`
/// to learn its CPU time (user + system).
#[allow(clippy::zombie_processes)] // reaped by `wait4`, which `Child` does not know about
fn run(args: &[&str], stdin: Vec<u8>) -> Run {
    let mut child = crate::common::vetch_process()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn vetch");
    let mut input = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&stdin);
    });
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out_t = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let err_t = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    // A process that overruns its bound by far is killed, so a regression fails the test
    // instead of hanging the suite.
    let (done, watch) = std::sync::mpsc::channel::<()>();
    let pid = child.id();
    let watchdog = std::thread::spawn(move || {
        if watch
            .recv_timeout(bound() + Duration::from_secs(10))
            .is_err()
        {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
        }
    });
    let mut status = 0i32;
    let mut usage = Rusage::default();
    // SAFETY: `wait4` writes an int and a `struct rusage` (x86_64/aarch64 Linux layout:
    // two timevals and fourteen longs) into the valid locations given.
    let pid = unsafe { wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as i32, "wait4 failed");
    let _ = done.send(());
    let _ = watchdog.join();
    writer.join().unwrap();
    let stdout = out_t.join().unwrap();
    let stderr = err_t.join().unwrap();
    let code = (status & 0x7f == 0).then_some((status >> 8) & 0xff);
    let cpu = Duration::from_secs(usage.utime.sec as u64 + usage.stime.sec as u64)
        + Duration::from_micros(usage.utime.usec as u64 + usage.stime.usec as u64);
    Run {
        code,
        stdout,
        stderr,
        cpu,
    }
}

/// The process ended by itself (the watchdog in [`run`] kills one that outlives its bound
/// by far: a hang guard, not a speed test) and did not burn more CPU than its deadline
/// allows: CPU is work done, counted by the kernel, whatever else the machine runs.
fn assert_bounded(r: &Run, what: &str) {
    assert!(
        r.code.is_some(),
        "{what}: killed by a signal (the hang guard, or a crash); stderr: {}",
        r.stderr
    );
    assert!(r.cpu <= bound(), "{what}: used {:?} of CPU", r.cpu);
}

fn lines(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON per line"))
        .collect()
}

/// A batch of four lines where the third is hostile: four results, in order.
fn batch_with_one_hostile(addr: SocketAddr, hostile: &str) -> (Run, Vec<Value>) {
    let cfg = config_file(&format!(
        "{LIMITS}[[providers]]\nname = \"direct\"\nkind = \"http\"\n"
    ));
    let input =
        format!("http://{addr}/a\nhttp://{addr}/b\nhttp://{addr}{hostile}\nhttp://{addr}/c\n");
    let r = run(
        &["batch", "--config", cfg.path().to_str().unwrap()],
        input.into_bytes(),
    );
    let out = lines(&r.stdout);
    (r, out)
}

fn assert_normal_pages_answered(out: &[Value], hostile_index: usize) {
    assert_eq!(out.len(), 4, "every line gets its result");
    for (i, v) in out.iter().enumerate() {
        if i != hostile_index {
            assert_eq!(v["status"], "success", "line {i}: {v}");
        }
    }
}

// --- 1. deeply nested JSON ------------------------------------------------------------------

#[test]
fn h01_deeply_nested_json_does_not_blow_up_the_batch() {
    // 200 KB of nesting aborted the process (a 9.8 GB allocation); 40 KB made 800 MB.
    // A readable note beside the nesting, so the judge has text to accept and the test
    // can check the body comes back as it is rather than re-indented.
    let deep = format!(
        "{{\"note\": \"The nested value below is deeper than any pretty-printer should follow, so the body is returned as it is.\", \"deep\": {}{}}}",
        "[".repeat(100_000),
        "]".repeat(100_000)
    )
    .into_bytes();
    let len = deep.len();
    let addr = serve(vec![("/deep", "application/json", deep)]);
    let (r, out) = batch_with_one_hostile(addr, "/deep");
    assert_bounded(&r, "deep JSON");
    assert_normal_pages_answered(&out, 2);
    let receipt = &out[2]["content"][0]["json"];
    assert_eq!(out[2]["status"], "success", "{}", out[2]);
    // Returned as it is: no bigger than the body.
    assert_eq!(receipt["content_chars"].as_u64(), Some(len as u64));
}

// --- 2. command providers get the URL the guard checked --------------------------------------

const ECHO_URL: &str = "argv = [\"/bin/sh\", \"-c\", \"printf 'the program was given %s to fetch' \\\"$0\\\"\", \"{url}\"]\n";

#[test]
fn h02_command_gets_the_serialized_url_the_guard_checked() {
    let cfg = config_file(&format!(
        "{LIMITS}[[providers]]\nname = \"cmd\"\nkind = \"command\"\n{ECHO_URL}"
    ));
    let r = run(
        &[
            "lookup",
            "http://localhost\\@127.0.0.2:18081/x",
            "-o",
            "text",
            "--config",
            cfg.path().to_str().unwrap(),
        ],
        Vec::new(),
    );
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    // As typed, curl would connect to 127.0.0.2; the parsed URL's host is localhost.
    assert_eq!(
        r.stdout.trim_end(),
        "the program was given http://localhost/@127.0.0.2:18081/x to fetch"
    );
}

/// A name from /etc/hosts that resolves to a refused address but is not a local name the
/// guard refuses by name, or None on a machine without one.
fn name_resolving_to_a_private_address() -> Option<String> {
    let hosts = std::fs::read_to_string("/etc/hosts").ok()?;
    for line in hosts.lines() {
        let mut parts = line.split('#').next()?.split_whitespace();
        let Some(ip) = parts
            .next()
            .and_then(|ip| ip.parse::<std::net::IpAddr>().ok())
        else {
            continue;
        };
        let private = match ip {
            std::net::IpAddr::V4(v4) => v4.is_loopback() || v4.is_private(),
            std::net::IpAddr::V6(_) => false,
        };
        if !private {
            continue;
        }
        for name in parts {
            let local = name.starts_with("localhost") || name.starts_with("ip6-");
            if !local
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.')
            {
                return Some(name.to_string());
            }
        }
    }
    None
}

#[test]
fn h02_command_host_is_resolved_and_refused_before_the_program_starts() {
    let Some(name) = name_resolving_to_a_private_address() else {
        eprintln!("skipped: no name in /etc/hosts resolves to a private address here");
        return;
    };
    let marker = tempfile::tempdir().unwrap();
    let flag = marker.path().join("ran");
    let cfg = raw_config_file(&format!(
        "{LIMITS}[[providers]]\nname = \"cmd\"\nkind = \"command\"\nargv = [\"/bin/sh\", \"-c\", \"touch {} ; echo $0\", \"{{url}}\"]\n",
        flag.display()
    ));
    let r = run(
        &[
            "lookup",
            &format!("http://{name}/"),
            "--compact",
            "--config",
            cfg.path().to_str().unwrap(),
        ],
        Vec::new(),
    );
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let attempt = &v["content"][0]["json"]["attempts_log"][0];
    assert_eq!(attempt["outcome"], "transport_error", "{v}");
    let detail = attempt["detail"].as_str().unwrap();
    assert!(detail.starts_with("blocked: host "), "{detail}");
    assert!(!flag.exists(), "the program must not run");
}

// --- 3. stderr is redacted before it is cut --------------------------------------------------

/// The detail of a command that writes `stderr_lines` to stderr and exits 3.
fn failing_command_detail(stderr_lines: &[String]) -> (Run, String) {
    let quoted: Vec<String> = stderr_lines.iter().map(|l| format!("'{l}'")).collect();
    let script = format!("printf '%s\\n' {} >&2; exit 3", quoted.join(" "));
    let cfg = config_file(&format!(
        "{LIMITS}[[providers]]\nname = \"cmd\"\nkind = \"command\"\nargv = [\"/bin/sh\", \"-c\", {}, \"{{url}}\"]\n",
        serde_json::to_string(&script).unwrap()
    ));
    let r = run(
        &[
            "lookup",
            "http://127.0.0.1:9/",
            "--compact",
            "--config",
            cfg.path().to_str().unwrap(),
        ],
        Vec::new(),
    );
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let detail = v["content"][0]["json"]["attempts_log"][0]["detail"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        detail.starts_with("command exited with status 3"),
        "{detail}"
    );
    (r, detail)
}

#[test]
fn h03_command_stderr_is_redacted_whole_before_the_tail_is_kept() {
    // The cut used to fall inside the token (34 of its 36 characters were kept, too few
    // for the redactor to recognise) ...
    let token = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
    let filler = "y".repeat(120 - 34 - 1);
    let (r, detail) = failing_command_detail(&[format!("token {token} {filler}")]);
    assert!(
        detail.ends_with(&filler[..40]) || detail.contains("yyyy"),
        "{detail}"
    );
    assert!(
        !r.stdout.contains(&token[token.len() - 30..]),
        "leaked: {detail}"
    );
    // ... and past a PEM block's first line, so its body survived.
    let body = "MIIEowIBAAKCAQEA7fQ2cVx9pZ3kLmN8rT4uW6yB1dE5gH7jK9oP2sR4vX6zA8cF";
    let (r, detail) = failing_command_detail(&[
        "-----BEGIN RSA PRIVATE KEY-----".into(),
        body.into(),
        body.into(),
        body.into(),
        "-----END RSA PRIVATE KEY-----".into(),
    ]);
    assert!(!r.stdout.contains(&body[30..50]), "leaked: {detail}");
}

// --- 4. a chatty stderr does not deadlock ------------------------------------------------------

#[test]
fn h04_command_writing_a_megabyte_to_stderr_still_answers() {
    let script =
        "head -c 1000000 /dev/zero | tr '\\0' x >&2; printf 'usable page text for %s' \"$0\"";
    let cfg = config_file(&format!(
        "{LIMITS}[[providers]]\nname = \"cmd\"\nkind = \"command\"\nargv = [\"/bin/sh\", \"-c\", {}, \"{{url}}\"]\n",
        serde_json::to_string(script).unwrap()
    ));
    let r = run(
        &[
            "lookup",
            "http://127.0.0.1:9/",
            "-o",
            "text",
            "--config",
            cfg.path().to_str().unwrap(),
        ],
        Vec::new(),
    );
    assert_bounded(&r, "chatty stderr");
    // Before, the child blocked on a full stderr pipe until the attempt timed out.
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(
        r.stdout.trim_end(),
        "usable page text for http://127.0.0.1:9/"
    );
}

// --- 5. many attributes, in an MCP session ------------------------------------------------------

fn mcp_session(calls: &[(u64, Value)]) -> Vec<u8> {
    let mut s = String::new();
    s.push_str(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#);
    s.push('\n');
    s.push_str(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    s.push('\n');
    for (id, args) in calls {
        let call = serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "verified_web_lookup", "arguments": args}});
        s.push_str(&call.to_string());
        s.push('\n');
    }
    s.into_bytes()
}

fn response(out: &[Value], id: u64) -> &Value {
    out.iter()
        .find(|v| v["id"] == id)
        .unwrap_or_else(|| panic!("no response to id {id}"))
}

#[test]
fn h05_many_attributes_end_with_the_deadline_and_mcp_exits() {
    // 12.5 s for 100k attributes in a release build, and the work outlived the deadline.
    let mut page = String::from("<html><body><div");
    for i in 0..300_000 {
        page.push_str(&format!(" a{i}"));
    }
    page.push_str(
        "><p>Text after a very crowded element, long enough to be used.</p></div></body></html>",
    );
    let addr = serve(vec![("/attrs", "text/html", page.into_bytes())]);
    let cfg = config_file(&format!(
        "{LIMITS}[[providers]]\nname = \"direct\"\nkind = \"http\"\n"
    ));
    let input = mcp_session(&[
        (
            1,
            serde_json::json!({"url": format!("http://{addr}/attrs")}),
        ),
        (
            2,
            serde_json::json!({"url": format!("http://{addr}/normal")}),
        ),
    ]);
    let r = run(&["mcp", "--config", cfg.path().to_str().unwrap()], input);
    assert_bounded(&r, "many attributes");
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let out = lines(&r.stdout);
    assert_eq!(
        response(&out, 1)["result"]["isError"],
        false,
        "{}",
        r.stdout
    );
    assert_eq!(response(&out, 2)["result"]["isError"], false);
}

// --- 6. entity-dense text ---------------------------------------------------------------------

#[test]
fn h06_entity_dense_page_converts_in_linear_time() {
    // 5 MB took 9.4 s in auto (0.37 s in text); 500 KB took 30 s in a debug build.
    let page = format!(
        "<html><body><p>{}</p></body></html>",
        "a &amp; b ".repeat(50_000)
    );
    let addr = serve(vec![("/amp", "text/html", page.into_bytes())]);
    let (r, out) = batch_with_one_hostile(addr, "/amp");
    assert_bounded(&r, "entities");
    assert_normal_pages_answered(&out, 2);
    assert_eq!(out[2]["status"], "success", "{}", out[2]);
    assert_eq!(
        out[2]["content"][0]["json"]["content_chars"].as_u64(),
        Some("a & b ".len() as u64 * 50_000 - 1)
    );
}

// --- 7. an oversized MCP request line ------------------------------------------------------------

#[test]
fn h07_oversized_mcp_request_is_answered_with_an_error() {
    let cfg = config_file(LIMITS);
    let mut input = mcp_session(&[(
        2,
        serde_json::json!({"url": "http://127.0.0.1:9/", "must_contain": "x".repeat(5 * 1024 * 1024)}),
    )]);
    input.extend_from_slice(
        mcp_session(&[(3, serde_json::json!({"url": "ftp://x/"}))])
            .split(|b| *b == b'\n')
            .nth(2)
            .unwrap(),
    );
    input.push(b'\n');
    let r = run(&["mcp", "--config", cfg.path().to_str().unwrap()], input);
    assert_bounded(&r, "oversized line");
    assert_eq!(r.code, Some(0));
    let out = lines(&r.stdout);
    let refused = response(&out, 2);
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    assert!(refused["error"]["message"]
        .as_str()
        .unwrap()
        .contains("too large"));
    assert_eq!(response(&out, 3)["result"]["isError"], true);
    assert!(
        r.stderr.contains("request line longer than"),
        "{}",
        r.stderr
    );
}

// --- 8. CR/LF in header values and user_agent ----------------------------------------------------

#[test]
fn h08_crlf_in_user_agent_or_header_is_a_config_error() {
    for (text, key) in [
        (
            "[network]\nuser_agent = \"vetch\\r\\nX-Injected: 1\"\n",
            "network.user_agent",
        ),
        (
            "[[providers]]\nname = \"d\"\nkind = \"http\"\nheaders = { X-A = \"a\\nb\" }\n",
            "providers[0].headers.X-A",
        ),
    ] {
        let cfg = raw_config_file(text);
        for args in [vec!["providers"], vec!["lookup", "http://127.0.0.1:9/"]] {
            let mut args = args.clone();
            args.extend(["--config", cfg.path().to_str().unwrap()]);
            let r = run(&args, Vec::new());
            assert_eq!(r.code, Some(2), "{args:?}: {}", r.stderr);
            assert!(r.stderr.contains(key), "{}", r.stderr);
        }
    }
}

// --- 9. a flood of MCP calls (issue 24) ----------------------------------------------------------

/// What the gated server and vetch's stderr tell the test, in the order they happen.
enum Seen {
    /// A page request arrived; this many are held now.
    Held(usize),
    /// `-v`: a call is waiting for a free slot.
    Waiting,
}

/// The gate of [`serve_held`]: (requests held now, most held at once, open), and the
/// condition its held requests wait on.
type HeldGate = std::sync::Arc<(std::sync::Mutex<(usize, usize, bool)>, std::sync::Condvar)>;

/// A server that holds every page request until `open` is set (then answers it, and every
/// later one at once), reporting each arrival on `seen`; `/robots.txt` is answered at once
/// (404). The most it ever held at once is in the returned counter.
fn serve_held(seen: std::sync::mpsc::Sender<Seen>) -> (SocketAddr, HeldGate) {
    use std::sync::{Arc, Condvar, Mutex};
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    // (held now, most held at once, open)
    let gate = Arc::new((Mutex::new((0usize, 0usize, false)), Condvar::new()));
    let shared = gate.clone();
    std::thread::spawn(move || {
        for conn in listener.incoming().flatten() {
            let (gate, seen) = (shared.clone(), seen.clone());
            std::thread::spawn(move || held_answer(conn, &gate, &seen));
        }
    });
    (addr, gate)
}

fn held_answer(
    mut s: TcpStream,
    gate: &(std::sync::Mutex<(usize, usize, bool)>, std::sync::Condvar),
    seen: &std::sync::mpsc::Sender<Seen>,
) {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match s.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => return,
        }
    }
    let head = String::from_utf8_lossy(&head);
    if head.split_whitespace().nth(1) == Some("/robots.txt") {
        let _ = s
            .write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        return;
    }
    {
        let (lock, cv) = gate;
        let mut g = lock.lock().unwrap();
        g.0 += 1;
        g.1 = g.1.max(g.0);
        let _ = seen.send(Seen::Held(g.0));
        while !g.2 {
            g = cv.wait(g).unwrap();
        }
        g.0 -= 1;
    }
    let body = common::article("A page held at the gate").into_bytes();
    let _ = s.write_all(
        format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        )
        .as_bytes(),
    );
    let _ = s.write_all(&body);
}

#[test]
fn h09_mcp_runs_at_most_max_calls_in_flight_lookups_at_once() {
    // 400 calls on 2 MiB pages held 400 bodies at once (1.7 GiB RSS): every call's lookup
    // started as soon as rmcp read it. Here 40 calls under a bound of 4, on a server that
    // answers nothing until the test says so. The test opens it once vetch has said (with
    // -v) that the other 36 calls wait for a slot and the server holds 4 requests; before
    // that, a fifth request is a bound broken. No clock is involved.
    const CALLS: usize = 40;
    const SLOTS: usize = 4;
    let (tx, rx) = std::sync::mpsc::channel::<Seen>();
    let (addr, gate) = serve_held(tx.clone());
    let cfg = config_file(&format!(
        "{LIMITS}[cache]\nenabled = false\n[mcp]\nmax_calls_in_flight = {SLOTS}\n\
         [[providers]]\nname = \"direct\"\nkind = \"http\"\n"
    ));
    let calls: Vec<(u64, Value)> = (0..CALLS as u64)
        .map(|i| {
            (
                i + 1,
                serde_json::json!({"url": format!("http://{addr}/p/{i}")}),
            )
        })
        .collect();
    let mut child = crate::common::vetch_process()
        .args(["-v", "mcp", "--config", cfg.path().to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn vetch");
    // Killed if it overruns by far, so a regression fails instead of hanging the suite.
    let pid = child.id();
    let (done, watch) = std::sync::mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || {
        if watch
            .recv_timeout(bound() + Duration::from_secs(10))
            .is_err()
        {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
        }
    });
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(&mcp_session(&calls)).unwrap();
    drop(stdin);
    let mut out = child.stdout.take().unwrap();
    let out_t = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let err = child.stderr.take().unwrap();
    let err_t = std::thread::spawn(move || {
        use std::io::BufRead;
        let mut all = String::new();
        for line in std::io::BufReader::new(err).lines().map_while(Result::ok) {
            if line.contains("waits for a free slot") {
                let _ = tx.send(Seen::Waiting);
            }
            all.push_str(&line);
            all.push('\n');
        }
        all
    });
    let (mut waiting, mut held) = (0, 0);
    while waiting < CALLS - SLOTS || held < SLOTS {
        // A safety net, not a wait: the events come within milliseconds when all is well.
        match rx.recv_timeout(bound()) {
            Ok(Seen::Waiting) => waiting += 1,
            Ok(Seen::Held(n)) => held = n,
            Err(_) => break,
        }
        if held > SLOTS {
            break;
        }
    }
    {
        let (lock, cv) = &*gate;
        lock.lock().unwrap().2 = true;
        cv.notify_all();
    }
    let status = child.wait().unwrap();
    let _ = done.send(());
    watchdog.join().unwrap();
    let stdout = out_t.join().unwrap();
    let stderr = err_t.join().unwrap();
    assert_eq!(status.code(), Some(0), "{stderr}");
    let most = gate.0.lock().unwrap().1;
    assert!(
        most <= SLOTS,
        "{most} lookups ran at once; the bound is {SLOTS}"
    );
    assert_eq!((held, waiting), (SLOTS, CALLS - SLOTS), "{stderr}");
    let out = lines(&stdout);
    for (id, _) in &calls {
        assert_eq!(
            response(&out, *id)["result"]["isError"],
            false,
            "call {id}: {stdout}"
        );
    }
}

// --- 10. a cache directory someone else can write (issue 24) -------------------------------------

/// Serve a normal page on every path, counting the page requests.
fn serve_counting() -> (SocketAddr, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    let hits = std::sync::Arc::new(AtomicUsize::new(0));
    let counter = hits.clone();
    std::thread::spawn(move || {
        for conn in listener.incoming().flatten() {
            counter.fetch_add(1, Ordering::SeqCst);
            std::thread::spawn(move || answer(conn, &[]));
        }
    });
    (addr, hits)
}

/// A config with loopback allowed, the cache in `dir`, and one http provider.
fn cache_config(dir: &std::path::Path) -> tempfile::NamedTempFile {
    config_file(&format!(
        "{LIMITS}[cache]\ndir = {}\n[[providers]]\nname = \"direct\"\nkind = \"http\"\n",
        serde_json::to_string(dir.to_str().unwrap()).unwrap()
    ))
}

/// `vetch -v lookup URL` with `cfg`: the receipt and stderr.
fn cached_lookup(cfg: &tempfile::NamedTempFile, url: &str) -> (Value, String) {
    let r = run(
        &[
            "-v",
            "lookup",
            url,
            "--compact",
            "--config",
            cfg.path().to_str().unwrap(),
        ],
        Vec::new(),
    );
    assert_bounded(&r, url);
    let v: Value = serde_json::from_str(&r.stdout)
        .unwrap_or_else(|e| panic!("{e}: {} / {}", r.stdout, r.stderr));
    assert_eq!(v["status"], "success", "{v}");
    (v["content"][0]["json"].clone(), r.stderr)
}

fn set_mode(p: &std::path::Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn files_under(p: &std::path::Path) -> Vec<std::path::PathBuf> {
    walkdir::WalkDir::new(p)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| !e.file_type().is_dir())
        .map(walkdir::DirEntry::into_path)
        .collect()
}

#[test]
fn h10_a_cache_directory_others_can_write_is_not_trusted() {
    // A pre-existing 0777 directory (or one under a shared /tmp that someone else made)
    // served a planted entry as a verified success. The check is on the directory's mode
    // and owner bits, so it holds when the tests run as root (who could write anyway).
    use std::sync::atomic::Ordering;
    let (addr, hits) = serve_counting();
    let base = tempfile::tempdir().unwrap();
    let dir = base.path().join("shared-cache");
    let cfg = cache_config(&dir);
    let url = format!("http://{addr}/page");
    let (r, _) = cached_lookup(&cfg, &url);
    assert_eq!(r["cache"]["status"], "miss", "{r}");
    let (r, _) = cached_lookup(&cfg, &url);
    assert_eq!(r["cache"]["status"], "hit", "{r}");
    assert_eq!(hits.load(Ordering::SeqCst), 1);

    // Anyone may write it now: what is in it is not served, nothing is written to it, and
    // the lookup still succeeds from the network.
    set_mode(&dir, 0o777);
    let listing = files_under(&dir);
    let (r, stderr) = cached_lookup(&cfg, &url);
    assert_eq!(r["cache"]["status"], "bypass", "{r}");
    assert_eq!(
        hits.load(Ordering::SeqCst),
        2,
        "the planted copy was served"
    );
    assert_eq!(files_under(&dir), listing, "nothing written to it");
    let said = format!(
        "vetch: cache: not used: {} is writable by its group and others (mode 0777)",
        dir.display()
    );
    assert!(stderr.contains(&said), "{stderr}");
    // `cache info` says why, and `cache clear` leaves a refused directory alone.
    let info = run(
        &[
            "cache",
            "info",
            "--json",
            "--config",
            cfg.path().to_str().unwrap(),
        ],
        Vec::new(),
    );
    assert_eq!(info.code, Some(0), "{}", info.stderr);
    let info: Value = serde_json::from_str(&info.stdout).unwrap();
    assert!(
        info["refused"]
            .as_str()
            .unwrap()
            .contains("is writable by its group and others"),
        "{info}"
    );
    assert_eq!(
        info["entries"], 0,
        "a refused directory's index is not read"
    );
    let text = run(
        &["cache", "info", "--config", cfg.path().to_str().unwrap()],
        Vec::new(),
    );
    assert!(text.stdout.contains("refused: "), "{}", text.stdout);
    let clear = run(
        &["cache", "clear", "--config", cfg.path().to_str().unwrap()],
        Vec::new(),
    );
    assert_eq!(clear.code, Some(2), "{}", clear.stderr);
    assert!(clear.stderr.contains("writable by"), "{}", clear.stderr);
    assert_eq!(files_under(&dir), listing);

    // Group-writable only, or a private directory under a parent anyone may write (no
    // sticky bit): refused as well. Private again: trusted again.
    set_mode(&dir, 0o770);
    let (r, _) = cached_lookup(&cfg, &url);
    assert_eq!(r["cache"]["status"], "bypass", "{r}");
    set_mode(&dir, 0o700);
    set_mode(base.path(), 0o777);
    let (r, stderr) = cached_lookup(&cfg, &url);
    assert_eq!(r["cache"]["status"], "bypass", "{r}");
    assert!(stderr.contains("without the sticky bit"), "{stderr}");
    set_mode(base.path(), 0o700);
    let (r, _) = cached_lookup(&cfg, &url);
    assert_eq!(r["cache"]["status"], "hit", "{r}");
    assert_eq!(hits.load(Ordering::SeqCst), 4);
}

#[test]
fn h10_a_cache_directory_owned_by_another_user_is_not_trusted() {
    use std::os::unix::fs::MetadataExt;
    use std::sync::atomic::Ordering;
    let base = tempfile::tempdir().unwrap();
    let dir = base.path().join("theirs");
    std::fs::create_dir(&dir).unwrap();
    set_mode(&dir, 0o700);
    // Only root can give a directory away: elsewhere this case cannot be set up.
    if std::os::unix::fs::chown(&dir, Some(65534), Some(65534)).is_err()
        || std::fs::metadata(&dir).unwrap().uid() != 65534
    {
        eprintln!("skipped: cannot give a directory to another user here");
        return;
    }
    let (addr, hits) = serve_counting();
    let cfg = cache_config(&dir);
    let url = format!("http://{addr}/page");
    for _ in 0..2 {
        let (r, stderr) = cached_lookup(&cfg, &url);
        assert_eq!(r["cache"]["status"], "bypass", "{r}");
        assert!(
            stderr.contains("belongs to uid 65534, not to this user"),
            "{stderr}"
        );
    }
    assert_eq!(hits.load(Ordering::SeqCst), 2);
    assert!(files_under(&dir).is_empty(), "nothing written to it");
}

#[test]
fn h10_links_planted_in_the_cache_are_never_followed() {
    // Links planted in the store made vetch append its index line to a file elsewhere,
    // chmod it to 0600, and read a content file linked to /dev/zero without bound.
    use std::sync::atomic::Ordering;
    let (addr, hits) = serve_counting();
    let base = tempfile::tempdir().unwrap();
    let dir = base.path().join("cache");
    let victim = base.path().join("victim.txt");
    std::fs::write(&victim, b"precious\n").unwrap();
    set_mode(&victim, 0o644);
    let cfg = cache_config(&dir);
    let url = format!("http://{addr}/page");
    let (r, _) = cached_lookup(&cfg, &url);
    assert_eq!(r["cache"]["status"], "miss", "{r}");
    let buckets = files_under(&dir.join("index-v5"));
    assert_eq!(buckets.len(), 1, "{buckets:?}");

    // The index bucket, a link to a file elsewhere: not read, not appended to, not
    // chmod'ed; the lookup misses and the bucket is written afresh in its place.
    std::fs::remove_file(&buckets[0]).unwrap();
    std::os::unix::fs::symlink(&victim, &buckets[0]).unwrap();
    let (r, _) = cached_lookup(&cfg, &url);
    assert_eq!(r["cache"]["status"], "miss", "{r}");
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious\n");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&victim).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o644);
    assert!(std::fs::symlink_metadata(&buckets[0]).unwrap().is_file());
    let (r, _) = cached_lookup(&cfg, &url);
    assert_eq!(r["cache"]["status"], "hit", "{r}");

    // The content file, a FIFO no one writes: not opened for long (it used to block).
    let contents = files_under(&dir.join("content-v2"));
    assert!(!contents.is_empty());
    for f in &contents {
        std::fs::remove_file(f).unwrap();
        let made = Command::new("mkfifo").arg(f).status().unwrap();
        assert!(made.success());
    }
    let (r, _) = cached_lookup(&cfg, &url);
    assert_eq!(r["cache"]["status"], "miss", "{r}");

    // The content file, a link to /dev/zero: not followed (it used to be read forever).
    for f in files_under(&dir.join("content-v2")) {
        std::fs::remove_file(&f).unwrap();
        std::os::unix::fs::symlink("/dev/zero", &f).unwrap();
    }
    let (r, _) = cached_lookup(&cfg, &url);
    assert_eq!(r["cache"]["status"], "miss", "{r}");
    assert_eq!(hits.load(Ordering::SeqCst), 4);
}

// --- hostile PDFs (issue 25) among good pages, in batch and in MCP -----------------------

/// Hostile PDFs that once aborted the process or ran past the deadline (a page-count lie,
/// a filter-chain bomb, an LZW bomb, an operator flood), a page-tree DAG, a broken table and
/// an encrypted file: served as `application/pdf` beside normal pages.
const PDF_ROWS: [&str; 7] = [
    "page-count-lie.pdf",
    "flate-chain-bomb.pdf",
    "lzw-bomb.pdf",
    "operator-flood.pdf",
    "page-tree-dag.pdf",
    "xref-missing.pdf",
    "encrypted-aes-256.pdf",
];

fn serve_hostile_pdfs() -> SocketAddr {
    serve(
        PDF_ROWS
            .iter()
            .map(|name| {
                let path: &'static str = Box::leak(format!("/{name}").into_boxed_str());
                let body = common::fixture(&format!("pdf/hostile/{name}"));
                (path, "application/pdf", body)
            })
            .collect(),
    )
}

/// Each hostile PDF's result: a bomb is `malformed_response`, everything else reads.
fn assert_pdf_result(name: &str, status: &Value, receipt: &Value) {
    let outcome = &receipt["attempts_log"][0]["outcome"];
    if name.contains("bomb") && name != "lzw-bomb.pdf" {
        assert_eq!(outcome, "malformed_response", "{name}: {receipt}");
    } else {
        assert_eq!(status, "success", "{name}: {receipt}");
    }
}

#[test]
fn h11_hostile_pdfs_in_a_batch_every_line_is_answered() {
    let addr = serve_hostile_pdfs();
    let cfg = config_file(&format!(
        "{LIMITS}[[providers]]\nname = \"direct\"\nkind = \"http\"\n"
    ));
    let mut input = format!("http://{addr}/first\n");
    for name in PDF_ROWS {
        input.push_str(&format!(
            "http://{addr}/{name}\nhttp://{addr}/after-{name}\n"
        ));
    }
    let r = run(
        &["batch", "--config", cfg.path().to_str().unwrap()],
        input.into_bytes(),
    );
    assert_bounded(&r, "hostile PDFs");
    let out = lines(&r.stdout);
    assert_eq!(
        out.len(),
        1 + 2 * PDF_ROWS.len(),
        "every line gets its result"
    );
    assert_eq!(out[0]["status"], "success");
    for (i, name) in PDF_ROWS.iter().enumerate() {
        let pdf = &out[1 + 2 * i];
        assert_pdf_result(name, &pdf["status"], &pdf["content"][0]["json"]);
        assert_eq!(out[2 + 2 * i]["status"], "success", "the page after {name}");
    }
}

#[test]
fn h11_hostile_pdfs_in_an_mcp_session_every_call_is_answered() {
    let addr = serve_hostile_pdfs();
    let cfg = config_file(&format!(
        "{LIMITS}[[providers]]\nname = \"direct\"\nkind = \"http\"\n"
    ));
    let mut calls: Vec<(u64, Value)> = PDF_ROWS
        .iter()
        .enumerate()
        .map(|(i, name)| {
            (
                i as u64 + 1,
                serde_json::json!({"url": format!("http://{addr}/{name}")}),
            )
        })
        .collect();
    calls.push((
        100,
        serde_json::json!({"url": format!("http://{addr}/normal")}),
    ));
    let r = run(
        &["mcp", "--config", cfg.path().to_str().unwrap()],
        mcp_session(&calls),
    );
    assert_bounded(&r, "hostile PDFs");
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let out = lines(&r.stdout);
    for (i, name) in PDF_ROWS.iter().enumerate() {
        let result = &response(&out, i as u64 + 1)["result"];
        let status = if result["isError"] == false {
            Value::from("success")
        } else {
            Value::from("error")
        };
        assert_pdf_result(name, &status, &result["structuredContent"]);
    }
    assert_eq!(response(&out, 100)["result"]["isError"], false);
}
