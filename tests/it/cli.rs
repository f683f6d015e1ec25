//! The binary as a user and a script see it: exit codes, output modes, config errors,
//! `tool`, `schema`, `tool-spec`, `providers`, completions and the man page.

use crate::common;

use common::{
    article, assert_envelope, config_file, http_providers, json_out, raw_config_file, stderr_of,
    stdout_of, vetch, Isolated,
};
use predicates::prelude::*;
use serde_json::Value;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

async fn site() -> MockServer {
    let server = MockServer::start().await;
    Mock::given(path("/good"))
        .respond_with(
            ResponseTemplate::new(200).set_body_raw(article("Good page").into_bytes(), "text/html"),
        )
        .mount(&server)
        .await;
    Mock::given(path("/down"))
        .respond_with(ResponseTemplate::new(503))
        .mount(&server)
        .await;
    server
}

#[tokio::test]
async fn exit_zero_on_success_with_a_valid_envelope() {
    let server = site().await;
    let cfg = config_file(&http_providers(&["direct"]));
    let out = vetch()
        .args(["lookup", &format!("{}/good", server.uri()), "--config"])
        .arg(cfg.path())
        .assert()
        .code(0);
    let v = json_out(&out.get_output().stdout);
    assert_envelope(&v, false);
    assert_eq!(v["status"], "success");
    assert_eq!(v["content"][0]["json"]["title"], "Good page");
}

#[tokio::test]
async fn exit_one_on_failure() {
    let server = site().await;
    let cfg = config_file(&http_providers(&["direct"]));
    let out = vetch()
        .args(["lookup", &format!("{}/down", server.uri()), "--config"])
        .arg(cfg.path())
        .assert()
        .code(1);
    let v = json_out(&out.get_output().stdout);
    assert_envelope(&v, false);
    assert_eq!(
        v["content"][0]["json"]["attempts_log"][0]["http_status"],
        503
    );
}

#[tokio::test]
async fn guard_refuses_loopback_without_the_opt_in() {
    // A live server on loopback: the refused URL makes no request to it.
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(200))
        .expect(0)
        .mount(&server)
        .await;
    let cfg = raw_config_file(&http_providers(&["direct"]));
    let out = vetch()
        .args(["lookup", &format!("{}/", server.uri()), "--config"])
        .arg(cfg.path())
        .assert()
        .code(1);
    let v = json_out(&out.get_output().stdout);
    assert_envelope(&v, false);
    assert_eq!(v["content"][0]["json"]["failure_reason"], "invalid_input");
}

#[tokio::test]
async fn allow_private_flag_lifts_the_guard() {
    let server = site().await;
    let cfg = raw_config_file(&http_providers(&["direct"]));
    vetch()
        .args([
            "--allow-private",
            "lookup",
            &format!("{}/good", server.uri()),
            "--config",
        ])
        .arg(cfg.path())
        .assert()
        .code(0);
}

#[tokio::test]
async fn output_receipt_and_text() {
    let server = site().await;
    let cfg = config_file(&http_providers(&["direct"]));
    let out = vetch()
        .args([
            "lookup",
            &format!("{}/good", server.uri()),
            "-o",
            "receipt",
            "--compact",
            "--config",
        ])
        .arg(cfg.path())
        .assert()
        .code(0);
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert_eq!(stdout.lines().count(), 1, "compact is one line");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["schema"], "verified_web_lookup.receipt/v1");
    common::assert_schema("receipt", &v);

    vetch()
        .args([
            "lookup",
            &format!("{}/good", server.uri()),
            "-o",
            "text",
            "--config",
        ])
        .arg(cfg.path())
        .assert()
        .code(0)
        .stdout(predicate::str::contains("ownership, borrowing"))
        .stdout(predicate::str::contains("\"schema\"").not());

    vetch()
        .args([
            "lookup",
            &format!("{}/down", server.uri()),
            "-o",
            "text",
            "--config",
        ])
        .arg(cfg.path())
        .assert()
        .code(1)
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains("HTTP 503"));
}

#[test]
fn pretty_flag_spreads_lines() {
    let cfg = raw_config_file("");
    let out = vetch()
        .args(["lookup", "https://example.com/", "--pretty", "--config"])
        .arg(cfg.path())
        .assert()
        .code(1);
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(stdout.lines().count() > 10);
    let v = json_out(stdout.as_bytes());
    assert_envelope(&v, false);
    assert_eq!(
        v["content"][0]["json"]["failure_reason"],
        "no_providers_configured"
    );
}

#[test]
fn bad_config_exits_two_naming_file_line_and_key() {
    let cfg = raw_config_file("[lookup]\nmin_chars = 10\nmax_atempts = 3\n");
    let out = vetch()
        .args(["lookup", "https://example.com/", "--config"])
        .arg(cfg.path())
        .assert()
        .code(2)
        .stdout(predicate::str::is_empty());
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    assert!(
        err.contains(&format!("{}:3", cfg.path().display())),
        "{err}"
    );
    assert!(err.contains("max_atempts"), "{err}");
}

#[test]
fn missing_config_file_and_unknown_provider_exit_two() {
    vetch()
        .args([
            "lookup",
            "https://example.com/",
            "--config",
            "/nonexistent/vetch.toml",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot read file"));
    vetch()
        .args(["lookup", "https://example.com/", "--provider", "nope"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown provider 'nope'"));
    vetch().args(["lookup"]).assert().code(2);
    vetch().args(["frobnicate"]).assert().code(2);
}

#[test]
fn vetch_config_env_is_used() {
    let cfg = raw_config_file("[lookup]\nnonsense = 1\n");
    vetch()
        .env("VETCH_CONFIG", cfg.path())
        .args(["lookup", "https://example.com/"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("nonsense"));
}

#[test]
fn xdg_config_is_found() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("vetch")).unwrap();
    std::fs::write(dir.path().join("vetch/config.toml"), "").unwrap();
    let out = vetch()
        .env("XDG_CONFIG_HOME", dir.path())
        .args(["lookup", "https://example.com/"])
        .assert()
        .code(1);
    let v = json_out(&out.get_output().stdout);
    assert_eq!(
        v["content"][0]["json"]["failure_reason"],
        "no_providers_configured"
    );
}

#[tokio::test]
async fn tool_bare_input_and_tool_use() {
    let server = site().await;
    let cfg = config_file(&http_providers(&["direct"]));
    let out = vetch()
        .args(["tool", "--config"])
        .arg(cfg.path())
        .write_stdin(format!(
            "{{\"url\": \"{}/good\", \"must_contain\": \"borrowing\"}}",
            server.uri()
        ))
        .assert()
        .code(0);
    let v = json_out(&out.get_output().stdout);
    assert_envelope(&v, false);
    assert!(v.get("toolUseId").is_none());

    let out = vetch()
        .args(["tool", "--config"])
        .arg(cfg.path())
        .write_stdin(format!(
            "{{\"toolUseId\": \"tooluse_abc\", \"name\": \"verified_web_lookup\", \"input\": {{\"url\": \"{}/down\"}}}}",
            server.uri()
        ))
        .assert()
        .code(1);
    let v = json_out(&out.get_output().stdout);
    assert_envelope(&v, true);
    assert_eq!(v["toolUseId"], "tooluse_abc");
    assert_eq!(v["status"], "error");
}

#[test]
fn tool_caller_mistakes_are_error_results() {
    let cases: &[(&str, &str)] = &[
        ("", "empty input"),
        ("   \n", "empty input"),
        ("not json", "not valid JSON"),
        ("[1, 2]", "must be a JSON object"),
        ("\"https://example.com\"", "must be a JSON object"),
        ("{}", "missing required field `url`"),
        ("{\"url\": 42}", "field `url` must be a string"),
        ("{\"url\": \"https://example.com\", \"max_attempts\": \"3\"}", "field `max_attempts` must be an integer"),
        ("{\"url\": \"https://example.com\", \"min_chars\": 2.5}", "field `min_chars` must be an integer"),
        ("{\"url\": \"https://example.com\", \"start_index\": null}", "field `start_index` must be an integer"),
        ("{\"url\": \"https://example.com\", \"urll\": 1}", "unknown field `urll`"),
        ("{\"url\": \"ftp://example.com/\"}", "scheme 'ftp'"),
        ("{\"url\": \"http://[::1\"}", "does not parse"),
        ("{\"toolUseId\": \"t9\", \"name\": \"verified_web_lookup\"}", "missing `input`"),
        ("{\"toolUseId\": \"t9\", \"name\": \"web_search\", \"input\": {\"url\": \"https://example.com\"}}", "`name` must be"),
        ("{\"url\": \"https://example.com\"", "not valid JSON"),
    ];
    let cfg = raw_config_file(&http_providers(&["direct"]));
    for (stdin, want) in cases {
        let out = vetch()
            .args(["tool", "--config"])
            .arg(cfg.path())
            .write_stdin(*stdin)
            .assert()
            .code(1);
        let v = json_out(&out.get_output().stdout);
        assert_envelope(&v, true);
        assert_eq!(v["status"], "error", "{stdin}");
        let text = v["content"][1]["text"].as_str().unwrap();
        assert!(text.contains(want), "{stdin:?}: {text}");
        assert_eq!(v["content"][0]["json"]["failure_reason"], "invalid_input");
        assert_eq!(v["content"][0]["json"]["attempts"], 0);
    }
}

#[test]
fn tool_use_id_is_echoed_even_on_bad_input() {
    let out = vetch()
        .args(["tool"])
        .write_stdin("{\"toolUseId\": \"t-7\", \"input\": {\"url\": 1}}")
        .assert()
        .code(1);
    let v = json_out(&out.get_output().stdout);
    assert_envelope(&v, true);
    assert_eq!(v["toolUseId"], "t-7");
}

#[test]
fn schema_files_equal_what_the_binary_prints() {
    for name in ["receipt", "tool-result", "tool-input"] {
        let out = vetch().args(["schema", name]).assert().code(0);
        let printed = String::from_utf8(out.get_output().stdout.clone()).unwrap();
        let file = std::fs::read_to_string(format!(
            "{}/schemas/{name}.json",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        assert_eq!(printed, file, "{name}");
        let v: Value = serde_json::from_str(&printed).unwrap();
        jsonschema::validator_for(&v).expect("a valid JSON Schema");
    }
}

#[test]
fn tool_spec_flavors() {
    let subset = [
        "type",
        "properties",
        "required",
        "description",
        "minimum",
        "maximum",
        "default",
    ];
    fn keywords(v: &Value, out: &mut Vec<String>) {
        if let Value::Object(m) = v {
            for (k, val) in m {
                out.push(k.clone());
                if k == "properties" {
                    val.as_object()
                        .unwrap()
                        .values()
                        .for_each(|p| keywords(p, out));
                }
            }
        }
    }
    let source: Value = serde_json::from_str(
        &std::fs::read_to_string(format!(
            "{}/schemas/tool-input.json",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap(),
    )
    .unwrap();
    for (flavor, pointer) in [
        ("strands", "/inputSchema/json"),
        ("bedrock", "/toolSpec/inputSchema/json"),
        ("openai", "/function/parameters"),
        ("anthropic", "/input_schema"),
        ("gemini", "/functionDeclarations/0/parameters"),
        ("mcp", "/inputSchema"),
    ] {
        let out = vetch()
            .args(["tool-spec", "--flavor", flavor])
            .assert()
            .code(0);
        let v = json_out(&out.get_output().stdout);
        let schema = v
            .pointer(pointer)
            .unwrap_or_else(|| panic!("{flavor}: {v}"));
        let mut ks = Vec::new();
        keywords(schema, &mut ks);
        for k in &ks {
            assert!(subset.contains(&k.as_str()), "{flavor} uses {k}");
        }
        assert_eq!(
            schema["properties"]
                .as_object()
                .unwrap()
                .keys()
                .collect::<Vec<_>>(),
            source["properties"]
                .as_object()
                .unwrap()
                .keys()
                .collect::<Vec<_>>()
        );
        assert_eq!(schema["required"], source["required"]);
        let text = v.to_string();
        assert!(text.contains("verified_web_lookup"));
    }
}

#[test]
fn completions_and_man_page_generate() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        vetch()
            .args(["completions", shell])
            .assert()
            .code(0)
            .stdout(predicate::str::contains("vetch"));
    }
    vetch()
        .arg("man")
        .assert()
        .code(0)
        .stdout(predicate::str::contains(".TH"));
}

#[test]
fn version_and_help() {
    vetch()
        .arg("--version")
        .assert()
        .code(0)
        .stdout(predicate::str::contains(env!("CARGO_PKG_VERSION")));
    vetch()
        .arg("--help")
        .assert()
        .code(0)
        .stdout(predicate::str::contains("Examples:"));
}

#[tokio::test]
async fn batch_outputs_in_input_order_and_skips_comments() {
    let server = MockServer::start().await;
    for i in 0..6 {
        let body = article(&format!("Page {i}"));
        // Earlier lines answer later so that order must be restored by the writer.
        Mock::given(method("GET"))
            .and(path(format!("/p{i}")))
            .respond_with(
                ResponseTemplate::new(200)
                    .set_body_raw(body.into_bytes(), "text/html")
                    .set_delay(std::time::Duration::from_millis(60 - 10 * i)),
            )
            .mount(&server)
            .await;
    }
    let cfg = config_file(&http_providers(&["direct"]));
    let mut input = String::from("# a comment\n\n");
    for i in 0..6 {
        input.push_str(&format!("{}/p{i}\n", server.uri()));
    }
    input.push_str("{\"url\": \"ftp://bad/\"}\n");
    input.push_str(&format!(
        "{{\"toolUseId\": \"last\", \"input\": {{\"url\": \"{}/p0\"}}}}\n",
        server.uri()
    ));
    let out = vetch()
        .args(["batch", "--concurrency", "8", "--config"])
        .arg(cfg.path())
        .write_stdin(input)
        .assert()
        .code(1);
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let lines: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 8);
    for (i, v) in lines.iter().enumerate().take(6) {
        assert_envelope(v, false);
        assert_eq!(v["content"][0]["json"]["title"], format!("Page {i}"));
    }
    assert_eq!(lines[6]["status"], "error");
    assert_eq!(lines[7]["toolUseId"], "last");
    assert_envelope(&lines[7], true);
    assert!(
        out.get_output().stderr.is_empty(),
        "no stderr when not a terminal"
    );
}

#[tokio::test]
async fn batch_all_success_exits_zero_and_verbose_summarises() {
    let server = site().await;
    let cfg = config_file(&http_providers(&["direct"]));
    vetch()
        .args(["batch", "-", "-v", "--config"])
        .arg(cfg.path())
        .write_stdin(format!("{0}/good\n{0}/good\n", server.uri()))
        .assert()
        .code(0)
        .stderr(predicate::str::contains("2 lookups: 2 success, 0 error"));
}

#[test]
fn providers_lists_readiness_without_secrets() {
    let out = vetch().arg("providers").assert().code(0);
    let s = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        s.contains("built-in default") && s.contains("direct") && s.contains("ready"),
        "{s}"
    );

    let cfg = raw_config_file(
        "[[providers]]\nname = \"jina\"\nkind = \"template\"\nurl = \"https://r.jina.ai/{url}\"\nheaders = { Authorization = \"Bearer ${JINA_API_KEY}\" }\n\
         [[providers]]\nname = \"keyed\"\nkind = \"template\"\nurl = \"https://api.example/v1?api_key=${PLANTED}&url={url_encoded}\"\n\
         [[providers]]\nname = \"browser\"\nkind = \"command\"\nargv = [\"no-such-chromium-xyz\", \"--dump-dom\", \"{url}\"]\n",
    );
    let out = vetch()
        .args(["providers", "--config"])
        .arg(cfg.path())
        .env_remove("JINA_API_KEY")
        .env("PLANTED", "canary-7f3a9c2e1b")
        .assert()
        .code(0);
    let s = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(s.contains("missing env JINA_API_KEY"), "{s}");
    assert!(s.contains("program not found: no-such-chromium-xyz"), "{s}");
    assert!(s.contains("https://api.example"), "{s}");
    assert!(!s.contains("canary-7f3a9c2e1b"), "{s}");

    let out = vetch()
        .args(["providers", "--json", "--config"])
        .arg(cfg.path())
        .env("PLANTED", "canary-7f3a9c2e1b")
        .assert()
        .code(0);
    let v = json_out(&out.get_output().stdout);
    assert_eq!(v["providers"].as_array().unwrap().len(), 3);
    assert_eq!(v["providers_available"], 1);
    assert!(!v.to_string().contains("canary-7f3a9c2e1b"));
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batch_ctrl_c_flushes_what_is_done_and_exits_130() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};
    let server = site().await;
    let cfg = config_file(&http_providers(&["direct"]));
    let mut child = crate::common::vetch_process()
        .args(["batch", "--config"])
        .arg(cfg.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "{}/good", server.uri()).unwrap();
    stdin.flush().unwrap();
    // The first result arrives while stdin stays open: batch is now waiting for more input.
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    tokio::task::block_in_place(|| out.read_line(&mut first)).unwrap();
    let v: Value = serde_json::from_str(&first).unwrap();
    assert_eq!(v["status"], "success");
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let code = tokio::task::block_in_place(|| child.wait()).unwrap();
    assert_eq!(code.code(), Some(130));
    drop(stdin);
}

#[tokio::test]
async fn batch_ignores_a_byte_order_mark() {
    let server = site().await;
    let cfg = config_file(&http_providers(&["direct"]));
    let out = vetch()
        .args(["batch", "--config"])
        .arg(cfg.path())
        .write_stdin(format!(
            "\u{feff}# a comment after a BOM\n{}/good\n",
            server.uri()
        ))
        .assert()
        .code(0);
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
}

// ---- Issue 17: flags a curl user reaches for, errors that say how to fix ----

#[test]
fn url_without_scheme_gets_http_for_localhost_and_refused_local_host_hints_allow_private() {
    let cfg = raw_config_file(&http_providers(&["direct"]));
    let out = vetch()
        .args(["lookup", "localhost:9/docs", "--config"])
        .arg(cfg.path())
        .assert()
        .code(1);
    let v = json_out(&out.get_output().stdout);
    let r = &v["content"][0]["json"];
    assert_eq!(r["url"], "http://localhost:9/docs");
    assert_eq!(r["failure_reason"], "invalid_input");
    // The hint is for the operator at the terminal, never for the model.
    assert!(!v.to_string().contains("--allow-private"), "{v}");
    let err = stderr_of(&out);
    assert!(
        err.contains("(pass --allow-private for local addresses)"),
        "{err}"
    );

    let out = vetch()
        .args(["lookup", "127.0.0.1:9", "-o", "text", "--config"])
        .arg(cfg.path())
        .assert()
        .code(1)
        .stdout(predicate::str::is_empty());
    let err = stderr_of(&out);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains("loopback") && err.contains("--allow-private"),
        "{err}"
    );

    // Cloud metadata stays refused with --allow-private: no hint that would not help.
    let out = vetch()
        .args(["lookup", "169.254.169.254/latest", "-o", "text", "--config"])
        .arg(cfg.path())
        .assert()
        .code(1);
    assert!(!stderr_of(&out).contains("--allow-private"));
}

#[tokio::test]
async fn redirect_to_a_refused_local_address_hints_allow_private_on_stderr_only() {
    // The first hop is exempt by name; its redirect to another loopback address is refused
    // as an attempt (not before it), and the operator still gets the hint.
    let server = MockServer::start().await;
    Mock::given(path("/hop"))
        .respond_with(
            ResponseTemplate::new(302).insert_header("Location", "http://127.0.0.2:9/inside"),
        )
        .expect(2)
        .mount(&server)
        .await;
    Mock::given(path("/meta"))
        .respond_with(
            ResponseTemplate::new(302)
                .insert_header("Location", "http://169.254.169.254/latest/meta-data/"),
        )
        .expect(1)
        .mount(&server)
        .await;
    let cfg = raw_config_file(&format!(
        "[network]\nallow_private_hosts = [\"127.0.0.1\"]\n{}",
        http_providers(&["direct"])
    ));
    let out = vetch()
        .args([
            "lookup",
            &format!("{}/hop", server.uri()),
            "-o",
            "text",
            "--config",
        ])
        .arg(cfg.path())
        .assert()
        .code(1)
        .stdout(predicate::str::is_empty());
    let err = stderr_of(&out);
    assert!(err.contains("blocked: redirect to"), "{err}");
    assert!(
        err.contains("(pass --allow-private for local addresses)"),
        "{err}"
    );
    // In the tool result the model sees, no hint.
    let out = vetch()
        .args(["lookup", &format!("{}/hop", server.uri()), "--config"])
        .arg(cfg.path())
        .assert()
        .code(1);
    assert!(!stdout_of(&out).contains("--allow-private"));
    // A hop to cloud metadata stays refused whatever the flag: no hint that would not help.
    let out = vetch()
        .args([
            "lookup",
            &format!("{}/meta", server.uri()),
            "-o",
            "text",
            "--config",
        ])
        .arg(cfg.path())
        .assert()
        .code(1);
    let err = stderr_of(&out);
    assert!(err.contains("blocked"), "{err}");
    assert!(!err.contains("--allow-private"), "{err}");
}

#[test]
fn tool_input_still_needs_a_scheme() {
    let out = vetch()
        .arg("tool")
        .write_stdin(r#"{"url": "example.com/docs"}"#)
        .assert()
        .code(1);
    let v = json_out(&out.get_output().stdout);
    assert_eq!(v["content"][0]["json"]["failure_reason"], "invalid_input");
    assert_eq!(v["content"][0]["json"]["url"], "example.com/docs");
}

#[tokio::test]
async fn header_and_user_agent_flags_reach_http_providers() {
    use wiremock::matchers::header;
    let server = MockServer::start().await;
    Mock::given(path("/h"))
        .and(header("x-probe", "yes please"))
        // The operator's User-Agent, with the robots.txt product token it must carry.
        .and(header("user-agent", "probe-agent/1 vetch"))
        .respond_with(
            ResponseTemplate::new(200).set_body_raw(article("Headers").into_bytes(), "text/html"),
        )
        .expect(1)
        .mount(&server)
        .await;
    let cfg = config_file(&http_providers(&["direct"]));
    let url = format!("{}/h", server.uri());
    vetch()
        .args(["lookup", &url, "-H", "X-Probe: yes please"])
        .args(["--user-agent", "probe-agent/1", "--config"])
        .arg(cfg.path())
        .assert()
        .code(0);
    // Without them the page is not there.
    vetch()
        .args(["lookup", &url, "--config"])
        .arg(cfg.path())
        .assert()
        .code(1);
}

#[tokio::test]
async fn vv_shows_request_detail_but_never_a_header_secret() {
    let server = site().await;
    let cfg = config_file(&http_providers(&["direct"]));
    let secret = "s3cr3t-Value-0123456789abcdef";
    let out = vetch()
        .args(["lookup", &format!("{}/good", server.uri()), "-vv"])
        .args(["-H", &format!("Authorization: Token {secret}")])
        .args(["-H", &format!("X-Api-Key: {secret}"), "--config"])
        .arg(cfg.path())
        .assert()
        .code(0);
    let err = stderr_of(&out);
    assert!(err.contains("header Authorization"), "{err}");
    // Each limit says where it came from: no flag and no line of this file set them.
    assert!(err.contains("attempt timeout 15s (default)"), "{err}");
    assert!(err.contains(" ms"), "timings: {err}");
    assert!(!err.contains(secret), "{err}");
    assert!(!stdout_of(&out).contains(secret));
}

#[test]
fn bad_operator_flags_are_usage_errors() {
    let cases: [(&[&str], &str); 5] = [
        (&["lookup", "x", "-H", "no colon here"], "Name: value"),
        (
            &["lookup", "x", "-H", "Bad Name: v"],
            "not a valid header name",
        ),
        (&["lookup", "x", "--timeout", "0"], "number of seconds"),
        (&["lookup", "x", "--deadline", "soon"], "number of seconds"),
        (&["batch", "-", "--timeout", "-1"], "number of seconds"),
    ];
    for (args, want) in cases {
        let out = vetch().args(args).assert().code(2);
        assert!(
            stderr_of(&out).contains(want),
            "{args:?}: {}",
            stderr_of(&out)
        );
    }
}

/// A CR or LF in `--user-agent` would split every request it is sent with: a usage error
/// like the same character in `-H` or in the config file (it was sent as is). Neither
/// message quotes the value: it may hold a credential, and its line breaks would forge
/// lines on stderr (clap's own message quoted the whole `-H` argument).
#[test]
fn control_characters_in_user_agent_or_header_flags_are_usage_errors() {
    let secret = "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngOnly00aa11";
    let bearer = format!("Authorization: Bearer {secret}\r\nX-Injected: 1");
    let cases: [(&[&str], &str); 5] = [
        (
            &[
                "lookup",
                "http://127.0.0.1:9/",
                "--user-agent",
                "probe/1\r\nX-Injected: 1",
            ],
            "--user-agent: contains a carriage return (CR)",
        ),
        (
            &["batch", "-", "--user-agent", "probe/1\nX-Injected: 1"],
            "--user-agent: contains a line feed (LF)",
        ),
        (
            &[
                "lookup",
                "x",
                "--user-agent",
                "probe/1 \u{1b}[2J X-Injected",
            ],
            "--user-agent: contains the control character U+001B",
        ),
        (
            &["lookup", "x", "-H", &bearer],
            "header 'Authorization': contains a carriage return (CR)",
        ),
        (
            &["lookup", "x", "-H", "X-Injected: a\u{7f}b"],
            "header 'X-Injected': contains the control character U+007F",
        ),
    ];
    for (args, want) in cases {
        let out = vetch().args(args).assert().code(2);
        let err = stderr_of(&out);
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(!err.contains(secret), "{args:?}: {err}");
        assert!(!err.contains("X-Injected: 1"), "{args:?}: {err}");
        assert!(
            !err.contains('\r') && !err.contains('\u{1b}'),
            "{args:?}: {err:?}"
        );
    }
    // A tab is a header's own whitespace, and an ordinary agent string passes.
    vetch()
        .args([
            "lookup",
            "http://127.0.0.1:9/",
            "--user-agent",
            "probe/1\t(test)",
        ])
        .assert()
        .code(1);
}

#[test]
fn output_file_mistake_gets_a_hint() {
    for args in [
        &["lookup", "https://example.com/", "-o", "page.txt"][..],
        &["lookup", "https://example.com/", "--output=out.json"][..],
    ] {
        let out = vetch().args(args).assert().code(2);
        let err = stderr_of(&out);
        assert!(
            err.contains("`-o` selects the output kind: tool-result, receipt, text or human; to save the text use `> FILE`"),
            "{err}"
        );
    }
}

#[tokio::test]
async fn timeout_and_deadline_flags_bound_the_lookup() {
    let server = MockServer::start().await;
    Mock::given(path("/slow"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_raw(article("Slow").into_bytes(), "text/html")
                .set_delay(std::time::Duration::from_secs(10)),
        )
        .mount(&server)
        .await;
    let cfg = config_file(&http_providers(&["a", "b", "c"]));
    let url = format!("{}/slow", server.uri());
    // The server takes 10 s: only the flags can end these lookups with these outcomes.
    let out = vetch()
        .timeout(crate::common::HANG_GUARD)
        .args(["lookup", &url, "--timeout", "0.3", "--max-attempts", "1"])
        .args(["-o", "receipt", "--config"])
        .arg(cfg.path())
        .assert()
        .code(1);
    let r = json_out(&out.get_output().stdout);
    assert_eq!(r["attempts_log"][0]["outcome"], "transport_error");
    assert!(
        r["attempts_log"][0]["detail"]
            .as_str()
            .is_some_and(|d| d.contains("timed out")),
        "{r}"
    );
    let out = vetch()
        .timeout(crate::common::HANG_GUARD)
        .args(["lookup", &url, "--deadline", "0.5", "--max-attempts", "3"])
        .args(["-o", "receipt", "--config"])
        .arg(cfg.path())
        .assert()
        .code(1);
    let r = json_out(&out.get_output().stdout);
    assert_eq!(r["failure_reason"], "attempt_budget_exhausted", "{r}");
}

#[tokio::test]
async fn text_output_never_hides_a_cut() {
    let server = site().await;
    let cfg = config_file(&http_providers(&["direct"]));
    let url = format!("{}/good", server.uri());
    let out = vetch()
        .args([
            "lookup",
            &url,
            "-o",
            "text",
            "--max-chars",
            "50",
            "--config",
        ])
        .arg(cfg.path())
        .assert()
        .code(0);
    assert_eq!(stdout_of(&out).trim_end().chars().count(), 50);
    let err = stderr_of(&out);
    let re =
        regex::Regex::new(r"^vetch: characters 0-50 of (\d+); next: --start-index 50\n$").unwrap();
    assert!(re.is_match(&err), "{err:?}");
    let total: usize = re.captures(&err).unwrap()[1].parse().unwrap();

    // The last window says where it ends, without a next.
    let start = (total - 10).to_string();
    let out = vetch()
        .args([
            "lookup",
            &url,
            "-o",
            "text",
            "--start-index",
            &start,
            "--config",
        ])
        .arg(cfg.path())
        .assert()
        .code(0);
    assert_eq!(
        stderr_of(&out),
        format!("vetch: characters {start}-{total} of {total}\n")
    );

    // The whole content: nothing on stderr.
    vetch()
        .args(["lookup", &url, "-o", "text", "--config"])
        .arg(cfg.path())
        .assert()
        .code(0)
        .stderr(predicate::str::is_empty());
}

#[test]
fn no_ready_provider_names_every_skipped_one() {
    let cfg = raw_config_file(
        "[[providers]]\nname = \"jina\"\nkind = \"template\"\nurl = \"https://r.jina.ai/{url}\"\nheaders = { Authorization = \"Bearer ${JINA_API_KEY}\" }\n\
         [[providers]]\nname = \"browser\"\nkind = \"command\"\nargv = [\"no-such-chromium-xyz\", \"{url}\"]\n",
    );
    let want = "jina: missing env JINA_API_KEY; browser: program not found: no-such-chromium-xyz";
    let out = vetch()
        .env_remove("JINA_API_KEY")
        .args(["lookup", "example.com", "-o", "receipt", "--config"])
        .arg(cfg.path())
        .assert()
        .code(1);
    let r = json_out(&out.get_output().stdout);
    assert_eq!(r["failure_reason"], "no_providers_configured");
    assert_eq!(r["failure_detail"], want);
    common::assert_schema("receipt", &r);
    let out = vetch()
        .env_remove("JINA_API_KEY")
        .args(["lookup", "example.com", "-o", "text", "--config"])
        .arg(cfg.path())
        .assert()
        .code(1)
        .stdout(predicate::str::is_empty());
    assert!(stderr_of(&out).contains(want), "{}", stderr_of(&out));
}

#[test]
fn config_without_providers_says_so() {
    let cfg = raw_config_file("[lookup]\nmin_chars = 10\n");
    let out = vetch()
        .args(["lookup", "https://example.com/", "-o", "text", "--config"])
        .arg(cfg.path())
        .assert()
        .code(1);
    let err = stderr_of(&out);
    assert!(err.contains("has no [[providers]]"), "{err}");
}

#[test]
fn config_errors_name_key_and_type_in_words_at_the_keys_line() {
    let cases = [
        (
            "[lookup]\nmax_attempt_ceiling = \"five\"\n",
            "2: lookup.max_attempt_ceiling: expected an integer, got the string \"five\"",
        ),
        (
            "[[providers]]\nname = \"d\"\nkind = \"http\"\nheaders = [\"x\"]\n",
            "4: providers[0].headers: expected a table, got an array",
        ),
        (
            "[[providers]]\nname = \"d\"\nkind = \"http\"\n\nargv = [\"x\", \"{url}\"]\n",
            "5: providers[0].argv: provider 'd': not a key of kind 'http'",
        ),
        (
            "[[providers]]\nname = \"d\"\nkind = \"http\"\nheaders = { A = \"${KEY\" }\n",
            "4: providers[0].headers: provider 'd': unterminated `${KEY`",
        ),
    ];
    for (text, want) in cases {
        let cfg = raw_config_file(text);
        let out = vetch()
            .args(["providers", "--config"])
            .arg(cfg.path())
            .assert()
            .code(2);
        let err = stderr_of(&out);
        let full = format!("vetch: {}:{want}", cfg.path().display());
        assert!(err.starts_with(&full), "got  {err}want {full}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}

#[test]
fn tool_answers_bedrock_converse_in_kind() {
    let out = vetch()
        .arg("tool")
        .write_stdin(
            r#"{"toolUse": {"toolUseId": "tooluse_abc", "name": "verified_web_lookup", "input": {"url": "ftp://x/"}}}"#,
        )
        .assert()
        .code(1);
    let v = json_out(&out.get_output().stdout);
    let obj = v.as_object().unwrap();
    assert_eq!(obj.keys().collect::<Vec<_>>(), ["toolResult"]);
    let inner = &v["toolResult"];
    assert_eq!(inner["toolUseId"], "tooluse_abc");
    assert_envelope(inner, true);
    assert_eq!(
        inner["content"][0]["json"]["failure_reason"],
        "invalid_input"
    );
    // A broken Converse block still answers as Converse, with the id when there is one.
    let out = vetch()
        .arg("tool")
        .write_stdin(r#"{"toolUse": {"toolUseId": "t9", "input": {"link": "x"}}}"#)
        .assert()
        .code(1);
    let v = json_out(&out.get_output().stdout);
    assert_eq!(v["toolResult"]["toolUseId"], "t9");
    assert!(v["toolResult"]["content"][1]["text"]
        .as_str()
        .unwrap()
        .contains("`link`"));
}

#[test]
fn tool_prints_no_hint_when_stdin_is_not_a_terminal() {
    vetch()
        .arg("tool")
        .write_stdin(r#"{"url": "ftp://x/"}"#)
        .assert()
        .code(1)
        .stderr(predicate::str::is_empty());
}

#[tokio::test]
async fn human_output_has_no_ansi_when_piped_or_with_no_color() {
    let server = site().await;
    let cfg = config_file(&http_providers(&["direct"]));
    let url = format!("{}/good", server.uri());
    for no_color in [None, Some("1")] {
        let mut cmd = vetch();
        if let Some(v) = no_color {
            cmd.env("NO_COLOR", v);
        } else {
            cmd.env_remove("NO_COLOR");
        }
        let out = cmd
            .args(["lookup", &url, "-o", "human", "--config"])
            .arg(cfg.path())
            .assert()
            .code(0);
        let s = stdout_of(&out);
        assert!(!s.contains('\x1b'), "{s:?}");
        assert!(s.starts_with("success via direct (1 attempt, "), "{s}");
        assert!(
            s.contains("PROVIDER") && s.contains("usable content"),
            "{s}"
        );
        assert!(s.contains("ownership, borrowing"), "{s}");
    }
    let out = vetch()
        .args([
            "lookup",
            &url,
            "-o",
            "human",
            "--max-chars",
            "50",
            "--config",
        ])
        .arg(cfg.path())
        .assert()
        .code(0);
    assert!(
        stdout_of(&out).contains("characters 0-50 of "),
        "{}",
        stdout_of(&out)
    );
    let out = vetch()
        .args(["lookup", &format!("{}/down", server.uri()), "-o", "human"])
        .args(["--config"])
        .arg(cfg.path())
        .assert()
        .code(1);
    let s = stdout_of(&out);
    assert!(s.starts_with("error: no usable content"), "{s}");
    assert!(s.contains("http_error"), "{s}");
}

/// `-o human` prints one field a line: a CR/LF in the requested URL forged a line of its
/// own (`success via direct`) under a failed lookup, and an ESC in a configured provider
/// name reached the terminal. Every field it prints is neutralised: line breaks and tabs
/// shown as `\r`, `\n`, `\t`, other control characters and escape sequences removed.
#[tokio::test]
async fn human_output_fields_cannot_forge_lines_or_carry_escapes() {
    let server = site().await;
    // A URL with CR/LF: refused before any attempt (loopback, no allow_private).
    let forged = "http://127.0.0.1:9/x\r\nsuccess via direct (1 attempt, 3 ms)";
    let out = vetch()
        .env_remove("NO_COLOR")
        .args(["lookup", forged, "-o", "human"])
        .assert()
        .code(1);
    let s = stdout_of(&out);
    assert!(s.starts_with("error: "), "{s}");
    assert!(
        !s.lines().any(|l| l.starts_with("success")),
        "a forged line: {s:?}"
    );
    assert!(!s.contains('\r'), "{s:?}");
    // The line break is shown, on the url's own line (the lookup already made CR LF one LF).
    assert!(
        s.lines()
            .any(|l| l.starts_with("url: http://127.0.0.1:9/x\\")
                && l.ends_with("nsuccess via direct (1 attempt, 3 ms)")),
        "{s:?}"
    );
    // A provider name with ESC: the escape sequence does not reach stdout.
    let cfg = config_file(
        "[[providers]]\nname = \"dir\\u001b[2J\\u001b]0;owned\\u0007ect\"\nkind = \"http\"\n",
    );
    let out = vetch()
        .env_remove("NO_COLOR")
        .args(["lookup", &format!("{}/good", server.uri()), "-o", "human"])
        .arg("--config")
        .arg(cfg.path())
        .assert()
        .code(0);
    let s = stdout_of(&out);
    assert!(!s.contains('\x1b') && !s.contains('\x07'), "{s:?}");
    assert!(s.starts_with("success via direct (1 attempt, "), "{s}");
    assert!(
        s.lines()
            .any(|l| l.contains("direct") && l.contains("usable content")),
        "{s}"
    );
}

#[tokio::test]
async fn batch_flags_are_defaults_for_url_lines_and_progress_stays_off_a_pipe() {
    let server = site().await;
    let cfg = config_file(&http_providers(&["direct"]));
    let host = server.uri().trim_start_matches("http://").to_string();
    let input = format!(
        "{0}/good\n{{\"url\": \"{0}/good\"}}\n{host}/good\n",
        server.uri()
    );
    let out = vetch()
        .args(["batch", "--max-chars", "20", "--must-contain", "ownership"])
        .args(["-H", "X-From: batch", "--timeout", "5", "--config"])
        .arg(cfg.path())
        .write_stdin(input)
        .assert()
        .code(0);
    let lines: Vec<Value> = stdout_of(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["status"], "success");
    assert_eq!(
        lines[0]["content"][1]["text"]
            .as_str()
            .unwrap()
            .chars()
            .count(),
        20
    );
    // A JSON line says what it wants: the batch defaults are not mixed in.
    assert_eq!(
        lines[1]["content"][0]["json"]["next_start_index"],
        Value::Null
    );
    // A URL line without a scheme is completed as on the command line: a loopback
    // address means http://, as a browser's address bar does.
    assert_eq!(
        lines[2]["content"][0]["json"]["url"],
        format!("http://{host}/good")
    );
    assert_eq!(lines[2]["status"], "success");
    assert!(out.get_output().stderr.is_empty(), "no progress on a pipe");
}

#[test]
fn man_pages_per_subcommand() {
    let out = vetch().args(["man", "lookup"]).assert().code(0);
    let page = stdout_of(&out);
    assert!(page.contains("vetch\\-lookup"), "{page}");
    for flag in [
        "\\-\\-header",
        "\\-\\-timeout",
        "\\-\\-user\\-agent",
        "\\-\\-config",
    ] {
        assert!(page.contains(flag), "{flag} missing");
    }
    vetch()
        .args(["man", "nope"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no subcommand 'nope'"));
    let dir = tempfile::tempdir().unwrap();
    vetch()
        .args(["man", "--dir"])
        .arg(dir.path())
        .assert()
        .code(0);
    for page in [
        "vetch.1",
        "vetch-lookup.1",
        "vetch-batch.1",
        "vetch-tool.1",
        "vetch-man.1",
    ] {
        assert!(dir.path().join(page).is_file(), "{page}");
    }
}

#[tokio::test]
async fn text_output_says_when_the_body_was_cut_at_the_cap() {
    let server = site().await;
    let cfg = config_file(&format!(
        "[lookup]\nmax_body_bytes = 300\nmin_chars = 10\n{}",
        http_providers(&["direct"])
    ));
    let out = vetch()
        .args(["lookup", &format!("{}/good", server.uri()), "-o", "text"])
        .args(["--extract", "raw", "--config"])
        .arg(cfg.path())
        .assert()
        .code(0);
    let err = stderr_of(&out);
    assert!(
        err.contains("the body was cut at 300 bytes (lookup.max_body_bytes)"),
        "{err}"
    );
}

/// `vetch tool` with stdin on a terminal: a one-line hint on stderr, then it reads as usual.
/// A pseudo-terminal comes from util-linux `script`; without it the test says so and passes.
#[test]
fn tool_on_a_terminal_prints_a_hint() {
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipped: util-linux `script` (for a pseudo-terminal) is not installed");
        return;
    }
    let bin = crate::common::vetch_bin();
    let out = assert_cmd::Command::new("script")
        .args([
            "-qec",
            &format!("{} tool --compact", bin.display()),
            "/dev/null",
        ])
        .isolated()
        // The line, then Ctrl-D: end of input on the terminal.
        .write_stdin("{\"url\": \"ftp://x/\"}\n\u{4}")
        .timeout(std::time::Duration::from_secs(30))
        .assert()
        .code(1);
    let s = stdout_of(&out);
    assert!(
        s.contains("vetch: reading one JSON tool input from stdin"),
        "{s}"
    );
    assert!(s.contains("\"failure_reason\":\"invalid_input\""), "{s}");
}

fn have_script() -> bool {
    let ok = std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_ok();
    if !ok {
        eprintln!("skipped: util-linux `script` (for a pseudo-terminal) is not installed");
    }
    ok
}

/// Run `command` (a shell line) with its stdin, stdout and stderr on a pseudo-terminal.
fn on_a_terminal(command: &str, no_color: bool) -> String {
    let mut c = assert_cmd::Command::new("script");
    c.args(["-qec", command, "/dev/null"])
        .isolated()
        .timeout(std::time::Duration::from_secs(60));
    if no_color {
        c.env("NO_COLOR", "1");
    } else {
        c.env_remove("NO_COLOR");
    }
    let out = c.write_stdin("").output().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[tokio::test]
async fn human_output_is_coloured_on_a_terminal_unless_no_color() {
    if !have_script() {
        return;
    }
    let server = site().await;
    let cfg = config_file(&http_providers(&["direct"]));
    let bin = crate::common::vetch_bin();
    let line = format!(
        "{} lookup {}/good -o human --config {}",
        bin.display(),
        server.uri(),
        cfg.path().display()
    );
    let coloured = on_a_terminal(&line, false);
    assert!(
        coloured.contains("\x1b[1;32msuccess\x1b[0m via direct"),
        "{coloured:?}"
    );
    let plain = on_a_terminal(&line, true);
    assert!(plain.contains("success via direct"), "{plain:?}");
    assert!(!plain.contains('\x1b'), "{plain:?}");
    // -o text stays plain on a terminal.
    let text = on_a_terminal(&line.replace("-o human", "-o text"), false);
    assert!(
        text.contains("ownership, borrowing") && !text.contains('\x1b'),
        "{text:?}"
    );
}

#[tokio::test]
async fn batch_progress_goes_to_a_terminal_stderr_and_never_into_stdout() {
    if !have_script() {
        return;
    }
    let server = site().await;
    let cfg = config_file(&http_providers(&["direct"]));
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("urls.txt");
    let output = dir.path().join("out.ndjson");
    std::fs::write(
        &input,
        format!("{0}/good\n{0}/down\n{0}/good\n", server.uri()),
    )
    .unwrap();
    let bin = crate::common::vetch_bin();
    let shown = on_a_terminal(
        &format!(
            "{} batch {} --config {} > {}",
            bin.display(),
            input.display(),
            cfg.path().display(),
            output.display()
        ),
        false,
    );
    assert!(
        shown.contains("3 lookups: 2 success, 1 error in "),
        "{shown:?}"
    );
    let written = std::fs::read_to_string(&output).unwrap();
    let lines: Vec<&str> = written.lines().collect();
    assert_eq!(lines.len(), 3, "{written:?}");
    for l in lines {
        let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l:?}"));
        assert_envelope(&v, false);
    }
}
