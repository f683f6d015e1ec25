//! Polite fetching (DESIGN §13), one rule at a time, against loopback servers that count
//! what they are asked: robots.txt's access results, who respects it when, what a refusal
//! says, that a refused page is never requested, that robots.txt is asked once per origin
//! per process and kept on disk for the next, and batch's per-host pacing measured from
//! the servers' own timestamps. (The matcher's tables are unit tests in
//! `src/fetch/robots/rules_tests.rs`.)

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use wiremock::matchers::{header_regex, method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use crate::common::{self, article, config_file, html, http_providers, json_out, vetch};

fn direct() -> tempfile::NamedTempFile {
    config_file(&http_providers(&["direct"]))
}

/// `vetch tool` (robots.txt respected by default) for `url`: the receipt.
fn tool(cfg: &std::path::Path, url: &str, cache_home: Option<&std::path::Path>) -> Value {
    let mut c = vetch();
    if let Some(h) = cache_home {
        c.env("XDG_CACHE_HOME", h);
    }
    let out = c
        .args(["tool", "--config"])
        .arg(cfg)
        .write_stdin(json!({ "url": url }).to_string())
        .output()
        .expect("run vetch tool");
    let v = json_out(&out.stdout);
    common::assert_envelope(&v, false);
    v["content"][0]["json"].clone()
}

fn robots(body: &str) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_raw(body.as_bytes().to_vec(), "text/plain")
}

/// Mount `/robots.txt` answering `r`, asked exactly `times` times.
async fn mount_robots(server: &MockServer, r: ResponseTemplate, times: u64) {
    Mock::given(method("GET"))
        .and(path("/robots.txt"))
        .respond_with(r)
        .expect(times)
        .named("robots.txt")
        .mount(server)
        .await;
}

/// Mount a page at `p`, requested exactly `times` times.
async fn mount_page(server: &MockServer, p: &str, times: u64) {
    Mock::given(method("GET"))
        .and(path(p))
        .respond_with(html(article("Polite page")))
        .expect(times)
        .named(p)
        .mount(server)
        .await;
}

fn refused(receipt: &Value, detail: &str) {
    assert_eq!(receipt["failure_reason"], "invalid_input", "{receipt}");
    assert_eq!(receipt["attempts"], 0, "{receipt}");
    assert_eq!(receipt["failure_detail"], detail, "{receipt}");
}

/// The access results of RFC 9309 §2.3.1 (DESIGN §13): what each answer to `/robots.txt`
/// means for a page it would disallow, and that a refused page is never requested.
#[tokio::test]
async fn access_results_table() {
    let rules = "User-agent: *\nDisallow: /private\n";
    let mut big = String::from("User-agent: *\nDisallow: /early\n");
    while big.len() < 600 * 1024 {
        big.push_str("# filler line to push the next rule past the first 500 KiB\n");
    }
    big.push_str("Disallow: /private\n");
    let unreachable = |s: &str| format!("disallowed by robots.txt (unreachable: {s})");
    let star = "disallowed by robots.txt (user-agent *: Disallow: /private)".to_string();
    let rows: Vec<(&str, ResponseTemplate, Option<String>)> = vec![
        ("200", robots(rules), Some(star.clone())),
        ("404", ResponseTemplate::new(404), None),
        ("410", ResponseTemplate::new(410), None),
        ("429", ResponseTemplate::new(429), None),
        (
            "500",
            ResponseTemplate::new(500).set_body_string(rules),
            Some(unreachable("500")),
        ),
        ("503", ResponseTemplate::new(503), Some(unreachable("503"))),
        (
            "600 KiB: the rule past 500 KiB is not read",
            robots(&big),
            None,
        ),
        (
            "HTML served as robots.txt",
            html("<html><body><h1>Welcome</h1><p>Disallow nothing here</p></body></html>"),
            None,
        ),
        (
            "BOM and CRLF",
            robots("\u{feff}User-agent: vetch\r\nDisallow: /private\r\n"),
            Some("disallowed by robots.txt (user-agent vetch: Disallow: /private)".into()),
        ),
    ];
    let cfg = direct();
    for (name, answer, want) in rows {
        let server = MockServer::start().await;
        mount_robots(&server, answer, 1).await;
        mount_page(&server, "/private", u64::from(want.is_none())).await;
        let r = tool(cfg.path(), &format!("{}/private", server.uri()), None);
        match &want {
            Some(detail) => refused(&r, detail),
            None => assert_eq!(r["ok"], true, "{name}: {r}"),
        }
        server.verify().await;
    }
}

/// Five redirects are followed and the rules found apply to the origin asked about; a
/// sixth makes the file unreachable.
#[tokio::test]
async fn robots_txt_follows_five_redirects_not_six() {
    let cfg = direct();
    for (hops, want) in [
        (
            5,
            "disallowed by robots.txt (user-agent *: Disallow: /private)",
        ),
        (
            6,
            "disallowed by robots.txt (unreachable: too many redirects)",
        ),
    ] {
        let server = MockServer::start().await;
        let other = MockServer::start().await;
        // /robots.txt -> /r1 -> ... on this origin, the last hop to another origin.
        for i in 0..hops {
            let from = if i == 0 {
                "/robots.txt".to_string()
            } else {
                format!("/r{i}")
            };
            let to = if i + 1 == hops {
                format!("{}/rules.txt", other.uri())
            } else {
                format!("/r{}", i + 1)
            };
            Mock::given(path(from))
                .respond_with(ResponseTemplate::new(301).insert_header("location", to.as_str()))
                .mount(&server)
                .await;
        }
        Mock::given(path("/rules.txt"))
            .respond_with(robots("User-agent: *\nDisallow: /private\n"))
            .mount(&other)
            .await;
        mount_page(&server, "/private", 0).await;
        let r = tool(cfg.path(), &format!("{}/private", server.uri()), None);
        refused(&r, want);
        server.verify().await;
    }
}

/// A robots.txt that never answers is a timeout, and a port nobody listens on a network
/// failure: both disallow everything.
#[tokio::test]
async fn timeout_and_refused_connection_disallow_everything() {
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = silent.local_addr().unwrap().port();
    // Accepts and holds every connection, answering nothing.
    let held = tokio::spawn(async move {
        let mut open = Vec::new();
        while let Ok((s, _)) = silent.accept().await {
            open.push(s);
        }
    });
    let cfg = config_file(&format!(
        "[lookup]\nattempt_timeout_secs = 1\n\n{}",
        http_providers(&["direct"])
    ));
    let r = tool(cfg.path(), &format!("http://127.0.0.1:{port}/page"), None);
    refused(&r, "disallowed by robots.txt (unreachable: timeout)");
    held.abort();

    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let r = tool(
        direct().path(),
        &format!("http://127.0.0.1:{port}/page"),
        None,
    );
    refused(&r, "disallowed by robots.txt (unreachable: connect error)");
}

/// The group for our product token wins over `*`, its groups merge, and the refusal quotes
/// the group's user-agent and the deciding rule as written.
#[tokio::test]
async fn the_refusal_quotes_our_group_and_the_deciding_rule() {
    let server = MockServer::start().await;
    mount_robots(
        &server,
        robots(
            "User-agent: *\nDisallow: /\n\nUser-agent: Vetch\nAllow: /docs\n\n\
             User-agent: other\nDisallow: /docs\n\nuser-agent: vetch\ndisallow: /docs/private # staff\n",
        ),
        1,
    )
    .await;
    mount_page(&server, "/docs/a", 1).await;
    mount_page(&server, "/docs/private/b", 0).await;
    let cfg = direct();
    let home = common::fresh_cache_home();
    let ok = tool(cfg.path(), &format!("{}/docs/a", server.uri()), Some(&home));
    assert_eq!(ok["ok"], true, "{ok}");
    let no = tool(
        cfg.path(),
        &format!("{}/docs/private/b", server.uri()),
        Some(&home),
    );
    refused(
        &no,
        "disallowed by robots.txt (user-agent Vetch: disallow: /docs/private)",
    );
    let line = no.to_string();
    assert!(line.contains("invalid_input"), "{line}");
}

/// `auto`: tool, mcp and batch respect robots.txt, lookup does not; `--robots` wins over
/// the file, and `[lookup] robots` over `auto`.
#[tokio::test]
async fn who_respects_robots_txt() {
    let server = MockServer::start().await;
    Mock::given(path("/robots.txt"))
        .respond_with(robots("User-agent: *\nDisallow: /private\n"))
        .mount(&server)
        .await;
    Mock::given(path("/private"))
        .respond_with(html(article("Private")))
        .mount(&server)
        .await;
    let url = format!("{}/private", server.uri());
    let page_requests = || async {
        server
            .received_requests()
            .await
            .unwrap_or_default()
            .iter()
            .filter(|r| r.url.path() == "/private")
            .count()
    };
    let cfg = direct();
    let lookup = |extra: &[&str], cfg: &std::path::Path| {
        let out = vetch()
            .args(["lookup", &url, "--config"])
            .arg(cfg)
            .args(extra)
            .output()
            .unwrap();
        json_out(&out.stdout)["content"][0]["json"].clone()
    };
    // lookup: a person typed the URL.
    assert_eq!(lookup(&[], cfg.path())["ok"], true);
    assert_eq!(page_requests().await, 1);
    let r = lookup(&["--robots", "respect"], cfg.path());
    assert_eq!(r["failure_reason"], "invalid_input", "{r}");
    let respect = config_file(&format!(
        "[lookup]\nrobots = \"respect\"\n\n{}",
        http_providers(&["direct"])
    ));
    assert_eq!(
        lookup(&[], respect.path())["failure_reason"],
        "invalid_input"
    );
    assert_eq!(lookup(&["--robots", "ignore"], respect.path())["ok"], true);
    assert_eq!(page_requests().await, 2);
    // tool: a program chose it.
    assert_eq!(
        tool(cfg.path(), &url, None)["failure_reason"],
        "invalid_input"
    );
    let ignore = config_file(&format!(
        "[lookup]\nrobots = \"ignore\"\n\n{}",
        http_providers(&["direct"])
    ));
    assert_eq!(tool(ignore.path(), &url, None)["ok"], true);
    assert_eq!(page_requests().await, 3);
    // batch, and batch --robots ignore.
    let batch = |extra: &[&str]| {
        let out = vetch()
            .args(["batch", "-", "--config"])
            .arg(cfg.path())
            .args(extra)
            .write_stdin(format!("{url}\n"))
            .output()
            .unwrap();
        json_out(&out.stdout)["content"][0]["json"].clone()
    };
    assert_eq!(batch(&[])["failure_reason"], "invalid_input");
    assert_eq!(batch(&["--robots", "ignore"])["ok"], true);
    assert_eq!(page_requests().await, 4);
    // mcp.
    let mut s = crate::mcp::Session::start(cfg.path());
    s.initialize();
    s.call(2, json!({ "url": url }));
    let r = s.result(2);
    assert_eq!(
        r["structuredContent"]["failure_reason"], "invalid_input",
        "{r}"
    );
    let _ = s.finish();
    assert_eq!(
        page_requests().await,
        4,
        "no respecting run fetched the page"
    );
}

/// The User-Agent of every request (robots.txt's and the page's) contains the product
/// token, `--user-agent` or not; `robots_agent` names the token and the group.
#[tokio::test]
async fn every_request_carries_the_product_token() {
    let server = MockServer::start().await;
    Mock::given(path("/robots.txt"))
        .and(header_regex("user-agent", "^Mozilla/5.0 mybot$"))
        .respond_with(robots(
            "User-agent: mybot\nDisallow: /private\n\nUser-agent: *\nDisallow: /\n",
        ))
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(path("/page"))
        .and(header_regex("user-agent", "^Mozilla/5.0 mybot$"))
        .respond_with(html(article("Agent")))
        .expect(1)
        .mount(&server)
        .await;
    let cfg = config_file(&format!(
        "[lookup]\nrobots_agent = \"mybot\"\n\n{}",
        http_providers(&["direct"])
    ));
    let out = vetch()
        .args(["batch", "-", "--user-agent", "Mozilla/5.0", "--config"])
        .arg(cfg.path())
        .write_stdin(format!("{0}/page\n{0}/private\n", server.uri()))
        .output()
        .unwrap();
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["status"], "success", "{}", lines[0]);
    assert_eq!(
        lines[1]["content"][0]["json"]["failure_detail"],
        "disallowed by robots.txt (user-agent mybot: Disallow: /private)"
    );
}

/// One batch asks each origin once, however many of its lookups run at once; one MCP
/// session too.
#[tokio::test]
async fn one_batch_or_one_session_asks_each_origin_once() {
    let a = MockServer::start().await;
    let b = MockServer::start().await;
    for s in [&a, &b] {
        mount_robots(s, robots("User-agent: *\nDisallow: /no\n"), 1).await;
        Mock::given(path_regex_page())
            .respond_with(html(article("Numbered")))
            .mount(s)
            .await;
        mount_page(s, "/no", 0).await;
    }
    let mut input = String::new();
    for i in 0..12 {
        input.push_str(&format!("{}/p/{i}\n{}/p/{i}\n", a.uri(), b.uri()));
    }
    input.push_str(&format!("{}/no\n", a.uri()));
    let cfg = direct();
    let out = vetch()
        .args([
            "batch",
            "-",
            "--concurrency",
            "32",
            "--per-host",
            "8",
            "--config",
        ])
        .arg(cfg.path())
        .write_stdin(input)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.lines().count(), 25);
    assert_eq!(text.matches("\"status\":\"success\"").count(), 24, "{text}");
    a.verify().await;
    b.verify().await;

    let c = MockServer::start().await;
    mount_robots(&c, ResponseTemplate::new(404), 1).await;
    mount_page(&c, "/x", 3).await;
    let mut s = crate::mcp::Session::start(cfg.path());
    s.initialize();
    for id in 2..5 {
        s.call(id, json!({ "url": format!("{}/x", c.uri()) }));
    }
    for id in 2..5 {
        assert_eq!(s.result(id)["structuredContent"]["ok"], true);
    }
    let _ = s.finish();
    c.verify().await;
}

fn path_regex_page() -> wiremock::matchers::PathRegexMatcher {
    wiremock::matchers::path_regex("^/p/[0-9]+$")
}

/// robots.txt is kept in the HTTP cache: a second process does not ask again within its
/// freshness, `--no-cache` does, and a file whose own freshness is shorter is asked again.
#[tokio::test]
async fn robots_txt_is_kept_in_the_http_cache() {
    let server = MockServer::start().await;
    mount_robots(&server, robots("User-agent: *\nDisallow: /private\n"), 2).await;
    // The page itself is served from the cache the second time.
    mount_page(&server, "/ok", 2).await;
    let cfg = direct();
    let home = common::fresh_cache_home();
    let url = format!("{}/ok", server.uri());
    for _ in 0..2 {
        assert_eq!(tool(cfg.path(), &url, Some(&home))["ok"], true);
    }
    let out = vetch()
        .env("XDG_CACHE_HOME", &home)
        .args([
            "lookup",
            &url,
            "--robots",
            "respect",
            "--no-cache",
            "--config",
        ])
        .arg(cfg.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    server.verify().await;

    // `max-age=0`: its own freshness, shorter than 24 hours, is the one kept.
    let short = MockServer::start().await;
    mount_robots(
        &short,
        robots("User-agent: *\nDisallow: /private\n").insert_header("cache-control", "max-age=0"),
        2,
    )
    .await;
    mount_page(&short, "/private", 0).await;
    let url = format!("{}/private", short.uri());
    for _ in 0..2 {
        assert_eq!(
            tool(cfg.path(), &url, Some(&home))["failure_reason"],
            "invalid_input"
        );
    }
    short.verify().await;
}

/// A redirect hop of an `http` provider to a disallowed URL ends that attempt as a
/// `transport_error` (`blocked: ...`), on the same origin or another whose robots.txt is
/// learnt on the way; the disallowed page is never requested.
#[tokio::test]
async fn a_redirect_hop_to_a_disallowed_url_is_blocked() {
    let a = MockServer::start().await;
    let b = MockServer::start().await;
    mount_robots(&a, robots("User-agent: *\nDisallow: /private\n"), 1).await;
    mount_robots(&b, robots("User-agent: vetch\nDisallow: /secret\n"), 1).await;
    Mock::given(path("/same"))
        .respond_with(ResponseTemplate::new(302).insert_header("location", "/private"))
        .mount(&a)
        .await;
    Mock::given(path("/cross"))
        .respond_with(
            ResponseTemplate::new(302)
                .insert_header("location", format!("{}/secret", b.uri()).as_str()),
        )
        .mount(&a)
        .await;
    Mock::given(path("/fine"))
        .respond_with(
            ResponseTemplate::new(302)
                .insert_header("location", format!("{}/open", b.uri()).as_str()),
        )
        .mount(&a)
        .await;
    mount_page(&a, "/private", 0).await;
    mount_page(&b, "/secret", 0).await;
    mount_page(&b, "/open", 1).await;
    let cfg = direct();
    let mut s = crate::mcp::Session::start(cfg.path());
    s.initialize();
    for (id, p) in [(2, "/same"), (3, "/cross"), (4, "/fine")] {
        s.call(id, json!({ "url": format!("{}{p}", a.uri()) }));
    }
    let receipts: Vec<Value> = (2..5)
        .map(|id| s.result(id)["structuredContent"].clone())
        .collect();
    let _ = s.finish();
    for (r, rule) in [
        (&receipts[0], "user-agent *: Disallow: /private"),
        (&receipts[1], "user-agent vetch: Disallow: /secret"),
    ] {
        assert_eq!(r["attempts"], 1, "{r}");
        let a0 = &r["attempts_log"][0];
        assert_eq!(a0["outcome"], "transport_error", "{r}");
        assert_eq!(
            a0["detail"],
            format!("blocked: disallowed by robots.txt ({rule})"),
            "{r}"
        );
    }
    assert_eq!(receipts[2]["ok"], true, "{}", receipts[2]);
    a.verify().await;
    b.verify().await;
}

/// The requested URL is checked whatever the provider kinds; a template's own endpoint is
/// the operator's and is not.
#[tokio::test]
async fn template_endpoints_are_not_checked_the_requested_url_is() {
    let site = MockServer::start().await;
    let reader = MockServer::start().await;
    mount_robots(&site, robots("User-agent: *\nDisallow: /private\n"), 1).await;
    mount_robots(&reader, robots("User-agent: *\nDisallow: /\n"), 0).await;
    Mock::given(path("/read"))
        .respond_with(html(article("Read for you")))
        .expect(1)
        .mount(&reader)
        .await;
    let cfg = config_file(&format!(
        "[[providers]]\nname = \"reader\"\nkind = \"template\"\nurl = \"{}/read?u={{url_encoded}}\"\n",
        reader.uri()
    ));
    let mut s = crate::mcp::Session::start(cfg.path());
    s.initialize();
    s.call(2, json!({ "url": format!("{}/public", site.uri()) }));
    s.call(3, json!({ "url": format!("{}/private", site.uri()) }));
    let ok = s.result(2)["structuredContent"].clone();
    let no = s.result(3)["structuredContent"].clone();
    let _ = s.finish();
    assert_eq!(ok["ok"], true, "{ok}");
    refused(
        &no,
        "disallowed by robots.txt (user-agent *: Disallow: /private)",
    );
    site.verify().await;
    reader.verify().await;
}

/// Records when each request arrived (the server's clock), then answers from a script.
struct Stamped {
    log: Arc<Mutex<Vec<(String, Instant)>>>,
    tag: &'static str,
    first: Option<ResponseTemplate>,
    then: ResponseTemplate,
}

impl Respond for Stamped {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let mut log = self.log.lock().unwrap();
        let n = log.iter().filter(|(t, _)| t.starts_with(self.tag)).count();
        log.push((format!("{}{}", self.tag, req.url.path()), Instant::now()));
        match (&self.first, n) {
            (Some(f), 0) => f.clone(),
            _ => self.then.clone(),
        }
    }
}

async fn stamped(
    log: &Arc<Mutex<Vec<(String, Instant)>>>,
    tag: &'static str,
    robots_txt: Option<&str>,
    first: Option<ResponseTemplate>,
    then: ResponseTemplate,
) -> MockServer {
    let s = MockServer::start().await;
    match robots_txt {
        Some(r) => mount_robots(&s, robots(r), 1).await,
        None => mount_robots(&s, ResponseTemplate::new(404), 1).await,
    }
    Mock::given(wiremock::matchers::path_regex("^/p/"))
        .respond_with(Stamped {
            log: log.clone(),
            tag,
            first,
            then,
        })
        .mount(&s)
        .await;
    s
}

fn times(log: &Arc<Mutex<Vec<(String, Instant)>>>, tag: &str) -> Vec<Instant> {
    log.lock()
        .unwrap()
        .iter()
        .filter(|(t, _)| t.starts_with(tag))
        .map(|(_, i)| *i)
        .collect()
}

/// A gap that the servers saw, with room for loopback jitter below the second asked for.
const ONE_SECOND_SEEN: Duration = Duration::from_millis(900);

fn run_batch(cfg: &std::path::Path, input: &str, extra: &[&str]) -> Vec<Value> {
    let input = input.to_string();
    let cfg = cfg.to_path_buf();
    let extra: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
    common::within_hang_guard(move || {
        let out = vetch()
            .args(["batch", "-", "--config"])
            .arg(&cfg)
            .args(&extra)
            .write_stdin(input)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    })
}

/// `Crawl-delay` spaces the lookups sent to its host (measured where they arrive), and a
/// lookup's deadline starts when it is sent: the third waits two seconds in the queue with a
/// one-second deadline and still succeeds.
#[tokio::test]
async fn crawl_delay_spaces_a_hosts_lookups() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let slow = stamped(
        &log,
        "slow",
        Some("User-agent: *\nCrawl-delay: 1\n"),
        None,
        html(article("Spaced")),
    )
    .await;
    let input: String = (0..3).map(|i| format!("{}/p/{i}\n", slow.uri())).collect();
    let lines = run_batch(direct().path(), &input, &["--deadline", "1"]);
    assert_eq!(lines.len(), 3);
    assert!(lines.iter().all(|l| l["status"] == "success"), "{lines:?}");
    let t = times(&log, "slow");
    assert_eq!(t.len(), 3);
    for w in t.windows(2) {
        assert!(w[1] - w[0] >= ONE_SECOND_SEEN, "gaps {t:?}");
    }
}

/// After a `429` with `Retry-After: 1`, the host gets nothing for a second while another
/// host's lookups go on; the 429 attempt is an `http_error` with the wait in its detail and
/// its lookup falls back to the next provider. `--max-host-wait` bounds a long wait.
#[tokio::test]
async fn retry_after_holds_a_host_back_and_others_go_on() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let busy = stamped(
        &log,
        "busy",
        None,
        Some(ResponseTemplate::new(429).insert_header("retry-after", "1")),
        html(article("Busy")),
    )
    .await;
    // The other host answers slowly, so its lookups are still arriving during the pause.
    let other = stamped(
        &log,
        "other",
        None,
        None,
        html(article("Other")).set_delay(Duration::from_millis(200)),
    )
    .await;
    let reader = MockServer::start().await;
    Mock::given(path("/read"))
        .respond_with(html(article("From the reader")))
        .mount(&reader)
        .await;
    let cfg = config_file(&format!(
        "{}[[providers]]\nname = \"reader\"\nkind = \"template\"\nurl = \"{}/read?u={{url_encoded}}\"\n",
        http_providers(&["direct"]),
        reader.uri()
    ));
    let mut input = format!("{0}/p/1\n{0}/p/2\n", busy.uri());
    for i in 0..8 {
        input.push_str(&format!("{}/p/{i}\n", other.uri()));
    }
    let lines = run_batch(cfg.path(), &input, &["--per-host", "1"]);
    assert_eq!(lines.len(), 10);
    assert!(lines.iter().all(|l| l["status"] == "success"), "{lines:?}");
    // Either of the two lines may have been sent first, and got the 429.
    let first = lines[..2]
        .iter()
        .map(|l| &l["content"][0]["json"])
        .find(|r| r["attempts"] == 2)
        .expect("one lookup of the busy host met the 429");
    assert_eq!(first["provider_used"], "reader");
    let a0 = &first["attempts_log"][0];
    assert_eq!(a0["outcome"], "http_error");
    assert_eq!(a0["http_status"], 429);
    assert_eq!(a0["detail"], "HTTP 429 Too Many Requests (Retry-After: 1)");
    let b = times(&log, "busy");
    let o = times(&log, "other");
    assert_eq!(b.len(), 2, "{b:?}");
    assert!(b[1] - b[0] >= ONE_SECOND_SEEN, "held back: {b:?}");
    assert!(
        o.iter().any(|t| *t > b[0] && *t < b[1]),
        "the other host went on meanwhile: busy {b:?}, other {o:?}"
    );

    // A Retry-After of an hour holds the host back for --max-host-wait, no more.
    let log = Arc::new(Mutex::new(Vec::new()));
    let long = stamped(
        &log,
        "long",
        None,
        Some(ResponseTemplate::new(503).insert_header("retry-after", "3600")),
        html(article("Back")),
    )
    .await;
    let input = format!("{0}/p/1\n{0}/p/2\n", long.uri());
    let lines = run_batch(
        direct().path(),
        &input,
        &["--max-host-wait", "1", "--per-host", "1"],
    );
    let failed: Vec<&Value> = lines.iter().filter(|l| l["status"] != "success").collect();
    assert_eq!(failed.len(), 1, "one 503, then one success: {lines:?}");
    let t = times(&log, "long");
    assert!(t[1] - t[0] >= ONE_SECOND_SEEN, "{t:?}");
}
