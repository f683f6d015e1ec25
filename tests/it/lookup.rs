//! The lookup core against real local servers: the seed example, every outcome, every
//! failure reason, clamping, readiness, and the three provider kinds.

use crate::common;

use common::{article, engine, engine_with_env, html, http_providers, CHALLENGE};
use serde_json::json;
use vetch::model::input::ToolInput;
use vetch::model::receipt::{FailureReason, Outcome};
use wiremock::matchers::{body_json, header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn input(url: &str) -> ToolInput {
    ToolInput::for_url(url)
}

/// Providers that each fetch a different path of `server` via a template.
fn template_to(server: &MockServer, name: &str, p: &str) -> String {
    format!(
        "[[providers]]\nname = \"{name}\"\nkind = \"template\"\nurl = \"{}{p}?u={{url_encoded}}\"\n",
        server.uri()
    )
}

#[tokio::test]
async fn seed_example_field_for_field() {
    let server = MockServer::start().await;
    // Each provider is asked exactly once (verified when the server drops).
    Mock::given(path("/primary"))
        .respond_with(html(CHALLENGE))
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(path("/backup"))
        .respond_with(html(article("Real page")))
        .expect(1)
        .mount(&server)
        .await;
    let cfg = format!(
        "{}{}",
        template_to(&server, "primary", "/primary"),
        template_to(&server, "backup", "/backup")
    );
    let e = engine(&cfg);
    let out = e
        .lookup(&ToolInput {
            max_attempts: Some(2),
            ..input("https://example.com/docs")
        })
        .await;
    let tr = out.clone().into_tool_result(None);
    let v = serde_json::to_value(&tr).unwrap();
    common::assert_envelope(&v, false);
    assert_eq!(v["status"], "success");
    let r = &out.receipt;
    assert!(r.ok);
    assert_eq!(r.attempts, 2);
    assert_eq!(r.max_attempts, 2);
    assert_eq!(r.providers_available, 2);
    assert_eq!(r.provider_used.as_deref(), Some("backup"));
    assert!(r.fallback_used);
    assert_eq!(r.failure_reason, None);
    assert_eq!(r.failure_detail, None);
    let log: Vec<_> = r
        .attempts_log
        .iter()
        .map(|a| {
            (
                a.provider.as_str(),
                a.outcome,
                a.http_status,
                a.detail.as_str(),
            )
        })
        .collect();
    assert_eq!(
        log,
        [
            (
                "primary",
                Outcome::UnusableContent,
                Some(200),
                "interstitial page detected ('just a moment')"
            ),
            ("backup", Outcome::Ok, Some(200), "usable content"),
        ]
    );
    assert_eq!(r.content_chars as usize, out.text.chars().count());
    assert_eq!(r.title.as_deref(), Some("Real page"));
    assert!(out.text.contains("ownership, borrowing"));
}

#[tokio::test]
async fn http_error_keeps_status() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(
            ResponseTemplate::new(503).set_body_string("<h1>503 Service Unavailable</h1>"),
        )
        .mount(&server)
        .await;
    let out = engine(&http_providers(&["direct"]))
        .lookup(&input(&server.uri()))
        .await;
    let a = &out.receipt.attempts_log[0];
    assert_eq!((a.outcome, a.http_status), (Outcome::HttpError, Some(503)));
    assert_eq!(a.detail, "HTTP 503 Service Unavailable");
    assert_eq!(
        out.receipt.failure_reason,
        Some(FailureReason::AllProvidersFailed)
    );
    assert!(
        !out.text.contains("<h1>"),
        "no page text on error: {}",
        out.text
    );
}

#[tokio::test]
async fn transport_error_on_refused_connection() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let out = engine(&http_providers(&["direct"]))
        .lookup(&input(&format!("http://127.0.0.1:{port}/")))
        .await;
    let a = &out.receipt.attempts_log[0];
    assert_eq!((a.outcome, a.http_status), (Outcome::TransportError, None));
    assert!(a.detail.contains("connect"), "{}", a.detail);
}

#[tokio::test]
async fn unusable_content_details() {
    let server = MockServer::start().await;
    Mock::given(path("/empty"))
        .respond_with(html(""))
        .mount(&server)
        .await;
    Mock::given(path("/short"))
        .respond_with(html("<p>tiny</p>"))
        .mount(&server)
        .await;
    Mock::given(path("/png"))
        .respond_with(
            ResponseTemplate::new(200).set_body_raw(vec![0x89, b'P', b'N', b'G'], "image/png"),
        )
        .mount(&server)
        .await;
    Mock::given(path("/page"))
        .respond_with(html(article("Rust")))
        .mount(&server)
        .await;
    let e = engine(&http_providers(&["direct"]));
    let detail = |out: vetch::lookup::Lookup| {
        let a = out.receipt.attempts_log[0].clone();
        assert_eq!(a.outcome, Outcome::UnusableContent, "{a:?}");
        a.detail
    };
    assert_eq!(
        detail(e.lookup(&input(&format!("{}/empty", server.uri()))).await),
        "empty body"
    );
    assert_eq!(
        detail(e.lookup(&input(&format!("{}/short", server.uri()))).await),
        "content too short: 4 chars, min_chars is 40"
    );
    assert_eq!(
        detail(e.lookup(&input(&format!("{}/png", server.uri()))).await),
        "unsupported content type image/png"
    );
    let must = ToolInput {
        must_contain: Some("Haskell".into()),
        ..input(&format!("{}/page", server.uri()))
    };
    assert_eq!(
        detail(e.lookup(&must).await),
        "required text not found: 'Haskell'"
    );
    // must_contain is case-insensitive.
    let must = ToolInput {
        must_contain: Some("GARBAGE COLLECTOR".into()),
        ..input(&format!("{}/page", server.uri()))
    };
    assert!(e.lookup(&must).await.receipt.ok);
}

#[tokio::test]
async fn attempt_budget_exhausted_with_three_providers_and_two_attempts() {
    let server = MockServer::start().await;
    // The budget stops after two providers: the third is never asked.
    for (p, times) in [("/a", 1), ("/b", 1), ("/c", 0)] {
        Mock::given(path(p))
            .respond_with(ResponseTemplate::new(500))
            .expect(times)
            .named(p)
            .mount(&server)
            .await;
    }
    let cfg: String = ["a", "b", "c"]
        .iter()
        .map(|n| template_to(&server, n, &format!("/{n}")))
        .collect();
    let e = engine(&cfg);
    let out = e
        .lookup(&ToolInput {
            max_attempts: Some(2),
            ..input("https://example.com/docs")
        })
        .await;
    let r = &out.receipt;
    assert_eq!(
        r.failure_reason,
        Some(FailureReason::AttemptBudgetExhausted)
    );
    assert_eq!(
        (r.attempts, r.max_attempts, r.providers_available),
        (2, 2, 3)
    );
    assert!(r.fallback_used);
    server.verify().await;
    // With budget for all three: all_providers_failed, each asked once.
    server.reset().await;
    for p in ["/a", "/b", "/c"] {
        Mock::given(path(p))
            .respond_with(ResponseTemplate::new(500))
            .expect(1)
            .named(p)
            .mount(&server)
            .await;
    }
    let out = e.lookup(&input("https://example.com/docs")).await;
    assert_eq!(
        out.receipt.failure_reason,
        Some(FailureReason::AllProvidersFailed)
    );
    assert_eq!(out.receipt.attempts, 3);
}

/// A fallback that is not reached is not asked: the primary answers, the backup sees no
/// request.
#[tokio::test]
async fn backup_is_not_asked_when_the_primary_answers() {
    let server = MockServer::start().await;
    Mock::given(path("/primary"))
        .respond_with(html(article("Primary page")))
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(path("/backup"))
        .respond_with(html(article("Backup page")))
        .expect(0)
        .mount(&server)
        .await;
    let cfg = format!(
        "{}{}",
        template_to(&server, "primary", "/primary"),
        template_to(&server, "backup", "/backup")
    );
    let out = engine(&cfg)
        .lookup(&input("https://example.com/docs"))
        .await;
    let r = &out.receipt;
    assert!(r.ok, "{r:?}");
    assert_eq!(r.provider_used.as_deref(), Some("primary"));
    assert!(!r.fallback_used);
    assert_eq!(r.attempts, 1);
}

#[tokio::test]
async fn no_providers_configured() {
    let out = engine("").lookup(&input("https://example.com/")).await;
    let r = &out.receipt;
    assert_eq!(r.failure_reason, Some(FailureReason::NoProvidersConfigured));
    assert_eq!((r.attempts, r.providers_available), (0, 0));
    assert!(r.attempts_log.is_empty());
}

#[tokio::test]
async fn invalid_input_before_any_attempt() {
    let e = engine(&http_providers(&["direct"]));
    for (url, want) in [
        ("ftp://example.com/x", "scheme 'ftp'"),
        ("not a url", "the url must start with http:// or https://"),
        ("http://[::1", "does not parse"),
        ("", "empty"),
        ("http://169.254.169.254/latest/meta-data/", "cloud metadata"),
    ] {
        let out = e.lookup(&input(url)).await;
        let r = &out.receipt;
        assert_eq!(r.failure_reason, Some(FailureReason::InvalidInput), "{url}");
        assert_eq!(r.attempts, 0);
        let d = r.failure_detail.as_deref().unwrap();
        assert!(d.contains(want), "{url}: {d}");
    }
    let long = format!("https://example.com/{}", "a".repeat(3000));
    let d = e
        .lookup(&input(&long))
        .await
        .receipt
        .failure_detail
        .unwrap();
    assert!(d.contains("limit is 2048"), "{d}");
}

#[tokio::test]
async fn clamping_shows_in_the_receipt() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(500))
        .mount(&server)
        .await;
    let e = engine(&format!(
        "[lookup]\nmax_attempt_ceiling = 4\ndefault_max_attempts = 2\n{}",
        http_providers(&["a", "b", "c", "d", "e", "f"])
    ));
    for (asked, want) in [(Some(0), 1), (Some(99), 4), (Some(-7), 1), (None, 2)] {
        let r = e
            .lookup(&ToolInput {
                max_attempts: asked,
                ..input(&server.uri())
            })
            .await
            .receipt;
        assert_eq!(
            (r.max_attempts, r.attempts),
            (want, want),
            "asked {asked:?}"
        );
    }
}

#[tokio::test]
async fn not_ready_provider_is_skipped_and_not_counted() {
    let server = MockServer::start().await;
    // The provider without its key is skipped, never asked.
    Mock::given(path("/r"))
        .respond_with(html(article("keyed")))
        .expect(0)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .respond_with(html(article("ok")))
        .mount(&server)
        .await;
    let cfg = format!(
        "[[providers]]\nname = \"keyed\"\nkind = \"template\"\nurl = \"{}/r?u={{url_encoded}}&key=${{VETCH_TEST_UNSET_KEY}}\"\n{}",
        server.uri(),
        http_providers(&["direct"])
    );
    let out = engine(&cfg)
        .lookup(&ToolInput {
            max_attempts: Some(1),
            ..input(&server.uri())
        })
        .await;
    let r = &out.receipt;
    assert!(r.ok, "{r:?}");
    assert_eq!(r.providers_available, 1);
    assert_eq!(r.provider_used.as_deref(), Some("direct"));
    assert_eq!(r.attempts_log.len(), 1);
}

#[tokio::test]
async fn template_json_ok_pointer_missing_and_not_json() {
    let server = MockServer::start().await;
    let long = "Reader output: ".to_string() + &"meaningful words ".repeat(10);
    Mock::given(path("/ok"))
        .and(header("authorization", "Bearer k-123456789"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"data": {"content": long}})))
        .mount(&server)
        .await;
    Mock::given(path("/other"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"data": {"text": "x"}})))
        .mount(&server)
        .await;
    Mock::given(path("/html"))
        .respond_with(html(article("not json")))
        .mount(&server)
        .await;
    let provider = |name: &str, p: &str| {
        format!(
            "[[providers]]\nname = \"{name}\"\nkind = \"template\"\nurl = \"{}{p}?u={{url_encoded}}\"\nheaders = {{ Authorization = \"Bearer ${{READER_KEY}}\" }}\nresponse = \"json\"\ncontent_pointer = \"/data/content\"\n",
            server.uri()
        )
    };
    let env = [("READER_KEY", "k-123456789")];
    let ok = engine_with_env(&provider("r", "/ok"), &env)
        .lookup(&input("https://example.com/a"))
        .await;
    assert!(ok.receipt.ok, "{:?}", ok.receipt);
    assert!(ok.text.starts_with("Reader output:"));

    let missing = engine_with_env(&provider("r", "/other"), &env)
        .lookup(&input("https://example.com/a"))
        .await;
    let a = &missing.receipt.attempts_log[0];
    assert_eq!(a.outcome, Outcome::MalformedResponse);
    assert_eq!(
        a.detail,
        "JSON pointer '/data/content' not found in the response"
    );

    let not_json = engine_with_env(&provider("r", "/html"), &env)
        .lookup(&input("https://example.com/a"))
        .await;
    let a = &not_json.receipt.attempts_log[0];
    assert_eq!(a.outcome, Outcome::MalformedResponse);
    assert!(
        a.detail.starts_with("expected a JSON response"),
        "{}",
        a.detail
    );
}

#[tokio::test]
async fn template_post_body_survives_quotes_and_backslashes() {
    let server = MockServer::start().await;
    let tricky = "https://example.com/a?q=\"quoted\"&p=back\\slash";
    Mock::given(method("POST"))
        .and(path("/scrape"))
        .and(body_json(json!({"url": tricky, "formats": ["markdown"], "nested": {"u": tricky}})))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"success": true, "data": {"markdown": "# Title\n\nScraped markdown body with plenty of useful text in it."}})))
        .mount(&server)
        .await;
    let cfg = format!(
        "[[providers]]\nname = \"scrape\"\nkind = \"template\"\nmethod = \"POST\"\nurl = \"{}/scrape\"\nresponse = \"json\"\ncontent_pointer = \"/data/markdown\"\n[providers.body]\nurl = \"{{url}}\"\nformats = [\"markdown\"]\nnested = {{ u = \"{{url}}\" }}\n",
        server.uri()
    );
    let out = engine(&cfg).lookup(&input(tricky)).await;
    assert!(out.receipt.ok, "{:?}", out.receipt);
    assert!(out.text.contains("Scraped markdown body"));
}

#[tokio::test]
async fn command_ok_nonzero_and_hung() {
    // Only the hung command needs a short timeout; the others get a long one, so that a
    // loaded machine (the whole suite runs in parallel) cannot time out their `sh`.
    let with_timeout = |secs: u32, argv: &str| {
        format!("[lookup]\nattempt_timeout_secs = {secs}\n[[providers]]\nname = \"cmd\"\nkind = \"command\"\nargv = {argv}\n")
    };
    let cfg = |argv: &str| with_timeout(30, argv);
    let ok = engine(&cfg(r#"["sh", "-c", "printf 'Fetched %s with a long enough body of useful text.' \"$0\"", "{url}"]"#))
        .lookup(&input("https://example.com/x"))
        .await;
    assert!(ok.receipt.ok, "{:?}", ok.receipt);
    assert_eq!(
        ok.text,
        "Fetched https://example.com/x with a long enough body of useful text."
    );
    assert_eq!(ok.receipt.attempts_log[0].http_status, None);

    let bad = engine(&cfg(
        r#"["sh", "-c", "echo 'it broke: disk on fire' >&2; exit 3", "{url}"]"#,
    ))
    .lookup(&input("https://example.com/x"))
    .await;
    let a = &bad.receipt.attempts_log[0];
    assert_eq!(a.outcome, Outcome::TransportError);
    assert_eq!(
        a.detail,
        "command exited with status 3: it broke: disk on fire"
    );

    let hung = tokio::time::timeout(
        crate::common::HANG_GUARD,
        engine(&with_timeout(1, r#"["sh", "-c", "sleep 30", "{url}"]"#))
            .lookup(&input("https://example.com/x")),
    )
    .await
    .expect("within the hang guard");
    let a = &hung.receipt.attempts_log[0];
    // The 30 s child was stopped by the 1 s timeout, not waited for.
    assert_eq!(a.outcome, Outcome::TransportError);
    assert!(a.detail.contains("timed out"), "{}", a.detail);
}

#[tokio::test]
async fn pagination_windows_and_past_the_end() {
    let server = MockServer::start().await;
    let body = "héllo wörld, ".repeat(100);
    Mock::given(method("GET"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_raw(body.clone().into_bytes(), "text/plain; charset=utf-8"),
        )
        .mount(&server)
        .await;
    let e = engine(&http_providers(&["direct"]));
    let mut text = String::new();
    let mut start = 0i64;
    loop {
        let out = e
            .lookup(&ToolInput {
                start_index: Some(start),
                max_chars: Some(333),
                ..input(&server.uri())
            })
            .await;
        assert!(out.receipt.ok);
        assert_eq!(out.receipt.content_chars, 1300);
        text.push_str(&out.text);
        match out.receipt.next_start_index {
            Some(n) => {
                assert_eq!(n as i64, start + 333);
                start = n as i64;
            }
            None => break,
        }
    }
    assert_eq!(text, body);
    let past = e
        .lookup(&ToolInput {
            start_index: Some(5000),
            ..input(&server.uri())
        })
        .await;
    // Past the end: success with an empty window; content_chars says where it ends.
    assert!(past.receipt.ok, "{:?}", past.receipt);
    assert_eq!(past.receipt.failure_reason, None);
    assert_eq!(past.text, "");
    assert_eq!(past.receipt.content_chars, 1300);
    assert_eq!(past.receipt.next_start_index, None);
    let at_end = e
        .lookup(&ToolInput {
            start_index: Some(1300),
            ..input(&server.uri())
        })
        .await;
    assert!(at_end.receipt.ok);
    assert_eq!(at_end.text, "");
    assert_eq!(at_end.receipt.next_start_index, None);
    assert_eq!(
        at_end.receipt.content_sha256, past.receipt.content_sha256,
        "the same content is described"
    );
}

#[tokio::test]
async fn relative_links_resolve_against_the_final_url() {
    let server = MockServer::start().await;
    Mock::given(path("/old"))
        .respond_with(ResponseTemplate::new(301).insert_header("Location", "/new/page.html"))
        .mount(&server)
        .await;
    let page = article("Moved").replace(
        "</article>",
        "<p>See <a href=\"other.html\">the other page</a> for more on this long topic.</p></article>",
    );
    Mock::given(path("/new/page.html"))
        .respond_with(html(page))
        .mount(&server)
        .await;
    let out = engine(&http_providers(&["direct"]))
        .lookup(&input(&format!("{}/old", server.uri())))
        .await;
    assert!(out.receipt.ok, "{:?}", out.receipt);
    let want = format!("[the other page]({}/new/other.html)", server.uri());
    assert!(out.text.contains(&want), "{}", out.text);
}

/// The credentials a provider sends (its `headers`, `-H`) go to the requested host only:
/// not to the host a redirect leads to, and not to a second hop on that host either
/// (A → B/x → B/y), where a client that compares each hop with the one before would
/// send them again. And no hop carries a `Referer`: reqwest's would hand the previous URL,
/// with a caller's key in its query, to whichever host the redirect names.
#[tokio::test]
async fn credentials_and_referer_never_follow_a_redirect_to_another_host() {
    let first = MockServer::start().await;
    let second = MockServer::start().await;
    Mock::given(path("/from"))
        .respond_with(
            ResponseTemplate::new(302).insert_header("Location", format!("{}/x", second.uri())),
        )
        .expect(1)
        .mount(&first)
        .await;
    Mock::given(path("/x"))
        .respond_with(
            ResponseTemplate::new(302).insert_header("Location", format!("{}/y", second.uri())),
        )
        .expect(1)
        .mount(&second)
        .await;
    Mock::given(path("/y"))
        .respond_with(html(article("Landed")))
        .expect(1)
        .mount(&second)
        .await;
    let cfg = r#"[[providers]]
name = "direct"
kind = "http"
headers = { Authorization = "Bearer pr0vider-cr3dential-0123456789", Cookie = "sid=c00kie-0123456789", "X-Api-Key" = "k3y-0123456789abcdef" }
"#;
    let out = engine(cfg)
        .lookup(&input(&format!(
            "{}/from?api_key=k3y-0f-the-caller-1234567890",
            first.uri()
        )))
        .await;
    assert!(out.receipt.ok, "{:?}", out.receipt);
    let sent = first.received_requests().await.unwrap_or_default();
    assert!(
        sent[0].headers.contains_key("authorization"),
        "{:?}",
        sent[0].headers
    );
    // The hop sent without them is still a hop of the route.
    let hops = out.receipt.redirects.clone().unwrap_or_default();
    assert_eq!(hops.len(), 2, "{:?}", out.receipt);
    assert!(
        hops[0].ends_with("/x") && hops[1].ends_with("/y"),
        "{hops:?}"
    );
    for r in second.received_requests().await.unwrap_or_default() {
        for name in ["authorization", "cookie", "x-api-key", "referer"] {
            assert!(
                !r.headers.contains_key(name),
                "{} got {name}: {:?}",
                r.url.path(),
                r.headers
            );
        }
    }
}

/// With one CPU slot (a batch on one core), concurrent lookups take turns processing and
/// each still gets its own page, whole.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_cpu_slot_serves_concurrent_lookups() {
    let server = MockServer::start().await;
    for i in 0..8 {
        Mock::given(path("/reader"))
            .and(wiremock::matchers::query_param(
                "u",
                format!("https://example.com/p{i}"),
            ))
            .respond_with(html(article(&format!("Page number {i}"))))
            .expect(1)
            .mount(&server)
            .await;
    }
    let engine =
        std::sync::Arc::new(engine(&template_to(&server, "reader", "/reader")).with_cpu_slots(1));
    let tasks: Vec<_> = (0..8)
        .map(|i| {
            let e = engine.clone();
            tokio::spawn(
                async move { e.lookup(&input(&format!("https://example.com/p{i}"))).await },
            )
        })
        .collect();
    for (i, t) in tasks.into_iter().enumerate() {
        let out = t.await.unwrap();
        assert!(out.receipt.ok, "{:?}", out.receipt);
        assert!(
            out.text.contains(&format!("Page number {i}")),
            "{}",
            out.text
        );
    }
}
