//! A planted secret must never leave the process: not on stdout, not on stderr, not in any
//! front end, on any outcome path. The secret reaches vetch the way real keys do, through
//! `${ENV}` in a provider's header and URL query; the server echoes the request (URL and
//! headers) into its pages, and a command provider prints it to stderr and fails.

use crate::common;

use common::{config_file, vetch};
use wiremock::matchers::path;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// Contains characters that percent-encoding and JSON escaping change.
const CANARY: &str = "cAnArY/7f3+9Qz2xWv8=Lm4\"k";

fn forms() -> Vec<String> {
    let pct: String = CANARY
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    vec![
        CANARY.to_string(),
        pct,
        CANARY.replace('"', "\\\""),
        // The distinctive core survives any encoding: it must not appear either.
        "7f3+9Qz2xWv8".to_string(),
        "9Qz2xWv8".to_string(),
    ]
}

/// Echo the request line and headers into the page.
struct Echo(u16);

impl Respond for Echo {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let mut page = format!(
            "<html><head><title>Echo {}</title></head><body><article><h1>Request echo</h1><p>You asked for {} and this page repeats it so a leak would show. It has enough ordinary words to be judged usable by the checks.</p><pre>",
            req.url, req.url
        );
        for (k, v) in req.headers.iter() {
            page.push_str(&format!("{}: {}\n", k, v.to_str().unwrap_or("?")));
        }
        page.push_str("</pre></article></body></html>");
        ResponseTemplate::new(self.0).set_body_raw(page.into_bytes(), "text/html; charset=utf-8")
    }
}

async fn server() -> MockServer {
    let s = MockServer::start().await;
    Mock::given(path("/ok"))
        .respond_with(Echo(200))
        .mount(&s)
        .await;
    Mock::given(path("/fail"))
        .respond_with(Echo(500))
        .mount(&s)
        .await;
    Mock::given(path("/json"))
        .respond_with(Echo(200))
        .mount(&s)
        .await;
    s
}

fn provider(name: &str, server: &MockServer, p: &str, extra: &str) -> String {
    format!(
        "[[providers]]\nname = \"{name}\"\nkind = \"template\"\nurl = \"{}{p}?u={{url_encoded}}&api_key=${{VETCH_CANARY}}\"\nheaders = {{ Authorization = \"Bearer ${{VETCH_CANARY}}\", X-Custom = \"${{VETCH_CANARY}}\" }}\n{extra}",
        server.uri()
    )
}

fn leaky_command() -> String {
    "[[providers]]\nname = \"cmd\"\nkind = \"command\"\nargv = [\"sh\", \"-c\", \"echo \\\"failed with key $1\\\" >&2; echo \\\"stdout has $1 too\\\"; exit 1\", \"sh\", \"${VETCH_CANARY}\", \"{url}\"]\n".to_string()
}

fn assert_clean(label: &str, out: &std::process::Output) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    for f in forms() {
        assert!(
            !stdout.contains(&f),
            "{label}: stdout leaks {f:?}:\n{stdout}"
        );
        assert!(
            !stderr.contains(&f),
            "{label}: stderr leaks {f:?}:\n{stderr}"
        );
    }
}

/// Every outcome path: ok (the page echoes the key), http_error, malformed_response,
/// a failing command, and the requested URL itself carrying the key.
async fn configs() -> (MockServer, Vec<(&'static str, tempfile::NamedTempFile)>) {
    let s = server().await;
    let cfgs = vec![
        ("ok", config_file(&provider("echo", &s, "/ok", ""))),
        (
            "http_error",
            config_file(&provider("fail", &s, "/fail", "")),
        ),
        (
            "malformed",
            config_file(&provider(
                "json",
                &s,
                "/json",
                "response = \"json\"\ncontent_pointer = \"/data\"\n",
            )),
        ),
        ("command", config_file(&leaky_command())),
        (
            "all",
            config_file(&format!(
                "{}{}{}{}",
                provider("fail", &s, "/fail", ""),
                leaky_command(),
                provider(
                    "json",
                    &s,
                    "/json",
                    "response = \"json\"\ncontent_pointer = \"/data\"\n"
                ),
                provider("echo", &s, "/ok", "")
            )),
        ),
    ];
    (s, cfgs)
}

fn urls() -> Vec<String> {
    vec![
        "https://example.com/page".to_string(),
        format!("https://example.com/page?token={}", urlencode(CANARY)),
        format!("ftp://user:{}@example.com/", urlencode(CANARY)),
    ]
}

fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

#[tokio::test]
async fn lookup_never_leaks_on_any_path() {
    let (_s, cfgs) = configs().await;
    for (label, cfg) in &cfgs {
        for url in urls() {
            for output in ["tool-result", "receipt", "text"] {
                let out = vetch()
                    .env("VETCH_CANARY", CANARY)
                    .args([
                        "lookup",
                        "-v",
                        "--max-attempts",
                        "5",
                        "-o",
                        output,
                        &url,
                        "--config",
                    ])
                    .arg(cfg.path())
                    .output()
                    .unwrap();
                assert_clean(&format!("lookup {label} {output} {url}"), &out);
            }
        }
    }
}

#[tokio::test]
async fn the_ok_path_really_echoes_the_key_and_it_is_redacted() {
    // Guard against a vacuous test: the page does contain the key before redaction.
    let (s, cfgs) = configs().await;
    let out = vetch()
        .env("VETCH_CANARY", CANARY)
        .args([
            "lookup",
            "-o",
            "text",
            "https://example.com/page",
            "--config",
        ])
        .arg(cfgs[0].1.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("authorization: Bearer"), "{text}");
    assert!(
        text.contains("[REDACTED]") || text.contains("REDACTED"),
        "{text}"
    );
    let seen = s.received_requests().await.unwrap();
    assert!(
        seen.iter().any(|r| r.url.as_str().contains("api_key=")),
        "the key was sent"
    );
    assert_clean("ok text", &out);
}

#[tokio::test]
async fn tool_never_leaks() {
    let (_s, cfgs) = configs().await;
    for (label, cfg) in &cfgs {
        for url in urls() {
            let input = serde_json::json!({"toolUseId": "t1", "name": "verified_web_lookup", "input": {"url": url, "max_attempts": 5}});
            let out = vetch()
                .env("VETCH_CANARY", CANARY)
                .args(["tool", "-v", "--config"])
                .arg(cfg.path())
                .write_stdin(input.to_string())
                .output()
                .unwrap();
            assert_clean(&format!("tool {label} {url}"), &out);
        }
        // A caller mistake that quotes the key back.
        let out = vetch()
            .env("VETCH_CANARY", CANARY)
            .args(["tool", "--config"])
            .arg(cfg.path())
            .write_stdin(format!(
                "{{\"url\": \"https://example.com/\", \"{}\": 1}}",
                CANARY.replace('"', "\\\"")
            ))
            .output()
            .unwrap();
        assert_clean(&format!("tool bad input {label}"), &out);
    }
}

#[tokio::test]
async fn batch_never_leaks() {
    let (_s, cfgs) = configs().await;
    for (label, cfg) in &cfgs {
        let mut input = String::new();
        for url in urls() {
            input.push_str(&url);
            input.push('\n');
            input.push_str(&serde_json::json!({"url": url, "max_attempts": 5}).to_string());
            input.push('\n');
        }
        input.push_str(&format!(
            "{{\"nope\": \"{}\"}}\n",
            CANARY.replace('"', "\\\"")
        ));
        let out = vetch()
            .env("VETCH_CANARY", CANARY)
            .args(["batch", "-v", "--config"])
            .arg(cfg.path())
            .write_stdin(input)
            .output()
            .unwrap();
        assert_clean(&format!("batch {label}"), &out);
        assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 7);
    }
}

#[tokio::test]
async fn providers_never_leaks() {
    let (_s, cfgs) = configs().await;
    for (label, cfg) in &cfgs {
        for json in [false, true] {
            let mut cmd = vetch();
            cmd.env("VETCH_CANARY", CANARY)
                .args(["providers", "--config"])
                .arg(cfg.path());
            if json {
                cmd.arg("--json");
            }
            let out = cmd.output().unwrap();
            assert_clean(&format!("providers {label}"), &out);
        }
    }
}

/// Regression: a token with `+` in the requested URL came back through `{url_encoded}`
/// (form decoding had registered it with a space instead of the `+`).
#[tokio::test]
async fn url_token_with_plus_is_scrubbed_through_url_encoded() {
    let cfg = config_file(
        "[[providers]]\nname = \"echo\"\nkind = \"command\"\nargv = [\"sh\", \"-c\", \"printf 'Echo of %s with enough words to be judged usable content.' \\\"$0\\\"\", \"{url_encoded}\"]\n",
    );
    let out = vetch()
        .args([
            "lookup",
            "-o",
            "text",
            "https://example.com/?token=Zq9x+Wv7Kp/Lm3Tn&page=2",
            "--config",
        ])
        .arg(cfg.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("Echo of "), "{text}");
    for core in ["Zq9x", "Wv7Kp", "Lm3Tn"] {
        assert!(!text.contains(core), "{core} leaked: {text}");
    }
    assert!(
        text.contains("page%3D2"),
        "the rest of the URL survives: {text}"
    );
}
