//! The binary as a user and a script see it: exit codes, output modes, config errors,
//! `tool`, `schema`, `tool-spec`, `providers`, completions and the man page.

mod common;

use common::{
    article, assert_envelope, config_file, http_providers, json_out, raw_config_file, vetch,
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

#[test]
fn guard_refuses_loopback_without_the_opt_in() {
    let cfg = raw_config_file(&http_providers(&["direct"]));
    let out = vetch()
        .args(["lookup", "http://127.0.0.1:9/", "--config"])
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
        ("strands", "/toolSpec/inputSchema/json"),
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
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("vetch"))
        .args(["batch", "--config"])
        .arg(cfg.path())
        .env_remove("VETCH_CONFIG")
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
