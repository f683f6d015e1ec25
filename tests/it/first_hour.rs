//! Issue 28, the first hour's second pass: what a newcomer ran into, each pinned by a test
//! that failed before the fix. Everything is on loopback; the Ctrl-C tests wait on what can
//! be observed (a request held by the server, a line on stderr, the client closing its
//! connection), never on a clock.

use serde_json::{json, Value};
use wiremock::matchers::path;
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::common::{assert_envelope, json_out, raw_config_file, vetch};

fn stderr_of(out: &assert_cmd::assert::Assert) -> String {
    String::from_utf8(out.get_output().stderr.clone()).unwrap()
}

fn stdout_of(out: &assert_cmd::assert::Assert) -> String {
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}

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

// ---- 5. README, reference and usage errors as they really are ----

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
