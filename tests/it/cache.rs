//! The private HTTP cache (DESIGN §11) through the binary: freshness, revalidation,
//! `no-store`, `Vary`, the operator's flags, consistent windows, several processes at
//! once, damaged entries, the size cap, and no secret on disk. Every server counts its
//! requests (`Mock::expect`, checked when the server drops); expiry is expressed with
//! `max-age=0` and `--max-age 0`, never by waiting.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::common;

use common::{article, config_file, http_providers, json_out, vetch};
use serde_json::Value;
use sha2::{Digest, Sha256};
use wiremock::matchers::{header, method, path, path_regex};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// `vetch` with the given cache home (shared by the commands of one test).
fn cached(home: &Path) -> assert_cmd::Command {
    let mut c = vetch();
    c.env("XDG_CACHE_HOME", home);
    c
}

/// One lookup's receipt and text (tool-result output), whatever the exit code.
fn lookup(home: &Path, cfg: &Path, url: &str, extra: &[&str]) -> (Value, String) {
    let out = cached(home)
        .args(["lookup", url, "--config"])
        .arg(cfg)
        .args(extra)
        .output()
        .unwrap();
    let v = json_out(&out.stdout);
    common::assert_envelope(&v, false);
    let text = v["content"][1]["text"].as_str().unwrap_or("").to_string();
    (v["content"][0]["json"].clone(), text)
}

fn cache_status(r: &Value) -> &str {
    r["cache"]["status"].as_str().unwrap_or("(none)")
}

fn info(home: &Path) -> Value {
    let out = cached(home)
        .args(["cache", "info", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    json_out(&out.stdout)
}

fn page(title: &str) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_raw(article(title).into_bytes(), "text/html")
}

fn direct() -> tempfile::NamedTempFile {
    config_file(&http_providers(&["direct"]))
}

#[tokio::test]
async fn a_second_lookup_within_freshness_sends_no_request() {
    let server = MockServer::start().await;
    // No Cache-Control at all: fresh for the default 300 s.
    Mock::given(path("/doc"))
        .respond_with(page("Cached page"))
        .expect(1)
        .mount(&server)
        .await;
    let home = tempfile::tempdir().unwrap();
    let cfg = direct();
    let url = format!("{}/doc", server.uri());
    let (first, text1) = lookup(home.path(), cfg.path(), &url, &[]);
    assert_eq!(first["ok"], true);
    assert_eq!(cache_status(&first), "miss");
    assert_eq!(first["attempts_log"][0]["detail"], "usable content");
    let (second, text2) = lookup(home.path(), cfg.path(), &url, &[]);
    assert_eq!(second["ok"], true);
    assert_eq!(cache_status(&second), "hit");
    let detail = second["attempts_log"][0]["detail"].as_str().unwrap();
    assert!(
        detail.starts_with("usable content (cached, ") && detail.ends_with(" s old)"),
        "{detail}"
    );
    assert_eq!(second["attempts_log"][0]["http_status"], 200);
    assert_eq!(second["title"], "Cached page");
    assert_eq!(first["content_sha256"], second["content_sha256"]);
    assert_eq!(text1, text2);
    common::assert_schema("receipt", &second);
    let i = info(home.path());
    assert_eq!(i["entries"], 1);
    assert_eq!(
        i["dir"].as_str().unwrap(),
        home.path().join("vetch").to_str().unwrap()
    );
    assert!(i["bytes"].as_u64().unwrap() > 0);
}

#[tokio::test]
async fn an_expired_copy_is_revalidated_and_a_304_serves_the_stored_body() {
    let server = MockServer::start().await;
    Mock::given(path("/rev"))
        .and(header("if-none-match", "\"v1\""))
        .respond_with(ResponseTemplate::new(304).insert_header("etag", "\"v1\""))
        .with_priority(1)
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(path("/rev"))
        .respond_with(
            page("Revalidated page")
                .insert_header("cache-control", "max-age=0")
                .insert_header("etag", "\"v1\""),
        )
        .expect(1)
        .mount(&server)
        .await;
    let home = tempfile::tempdir().unwrap();
    let cfg = direct();
    let url = format!("{}/rev", server.uri());
    let (first, _) = lookup(home.path(), cfg.path(), &url, &[]);
    assert_eq!(cache_status(&first), "miss");
    let (second, _) = lookup(home.path(), cfg.path(), &url, &[]);
    assert_eq!(second["ok"], true, "{second}");
    assert_eq!(cache_status(&second), "revalidated");
    assert_eq!(second["cache"]["age_secs"], 0);
    assert_eq!(
        second["attempts_log"][0]["detail"],
        "usable content (revalidated)"
    );
    assert_eq!(second["attempts_log"][0]["http_status"], 200);
    assert_eq!(second["title"], "Revalidated page");
    assert_eq!(first["content_sha256"], second["content_sha256"]);
}

#[tokio::test]
async fn no_store_is_never_stored() {
    let server = MockServer::start().await;
    Mock::given(path("/private"))
        .respond_with(page("Never stored").insert_header("cache-control", "no-store"))
        .expect(2)
        .mount(&server)
        .await;
    let home = tempfile::tempdir().unwrap();
    let cfg = direct();
    let url = format!("{}/private", server.uri());
    for _ in 0..2 {
        let (r, _) = lookup(home.path(), cfg.path(), &url, &[]);
        assert_eq!(r["ok"], true);
        assert_eq!(cache_status(&r), "miss");
    }
    assert_eq!(info(home.path())["entries"], 0);
}

#[tokio::test]
async fn vary_accept_language_keeps_two_entries() {
    let server = MockServer::start().await;
    for (lang, title) in [("en", "English page"), ("de", "Deutsche Seite")] {
        Mock::given(path("/lang"))
            .and(header("accept-language", lang))
            .respond_with(page(title).insert_header("vary", "Accept-Language"))
            .expect(1)
            .mount(&server)
            .await;
    }
    let home = tempfile::tempdir().unwrap();
    let cfg = direct();
    let url = format!("{}/lang", server.uri());
    for round in ["miss", "hit"] {
        for (lang, title) in [("en", "English page"), ("de", "Deutsche Seite")] {
            let h = format!("Accept-Language: {lang}");
            let (r, _) = lookup(home.path(), cfg.path(), &url, &["-H", &h]);
            assert_eq!(r["title"], title, "{round} {lang}");
            assert_eq!(cache_status(&r), round, "{lang}");
        }
    }
    assert_eq!(info(home.path())["entries"], 2);
}

#[tokio::test]
async fn no_cache_and_max_age_zero_go_to_the_network() {
    let server = MockServer::start().await;
    Mock::given(path("/flags"))
        .respond_with(page("Flags page"))
        .expect(3)
        .mount(&server)
        .await;
    let home = tempfile::tempdir().unwrap();
    let cfg = direct();
    let url = format!("{}/flags", server.uri());
    let (r, _) = lookup(home.path(), cfg.path(), &url, &[]);
    assert_eq!(cache_status(&r), "miss");
    let (r, _) = lookup(home.path(), cfg.path(), &url, &["--no-cache"]);
    assert_eq!(cache_status(&r), "bypass");
    assert_eq!(r["attempts_log"][0]["detail"], "usable content");
    // No validator to ask with: --max-age 0 fetches the page again.
    let (r, _) = lookup(home.path(), cfg.path(), &url, &["--max-age", "0"]);
    assert_eq!(cache_status(&r), "miss");
    // And the plain lookup is served from the copy the last one stored.
    let (r, _) = lookup(home.path(), cfg.path(), &url, &["--max-age", "3600"]);
    assert_eq!(cache_status(&r), "hit");
}

#[tokio::test]
async fn a_disabled_cache_leaves_no_trace_in_the_receipt_or_on_disk() {
    let server = MockServer::start().await;
    Mock::given(path("/off"))
        .respond_with(page("Uncached page"))
        .expect(2)
        .mount(&server)
        .await;
    let home = tempfile::tempdir().unwrap();
    let cfg = config_file(&format!(
        "[cache]\nenabled = false\n{}",
        http_providers(&["direct"])
    ));
    let url = format!("{}/off", server.uri());
    for _ in 0..2 {
        let (r, _) = lookup(home.path(), cfg.path(), &url, &[]);
        assert_eq!(r["ok"], true);
        assert!(r.get("cache").is_none(), "{r}");
    }
    assert!(!home.path().join("vetch").exists());
}

/// A page that changes on every request (a counter in its text).
struct Changing(AtomicUsize);

impl Respond for Changing {
    fn respond(&self, _: &Request) -> ResponseTemplate {
        let n = self.0.fetch_add(1, Ordering::SeqCst);
        let para = format!(
            "<p>This is request number {n}. The rest of this paragraph is the same every \
             time: readers paging through a long document want one document.</p>"
        );
        let body = format!(
            "<!doctype html><html><head><title>Changing</title></head><body><article>{}</article></body></html>",
            para.repeat(20)
        );
        ResponseTemplate::new(200).set_body_raw(body.into_bytes(), "text/html")
    }
}

/// Read a page window by window (1000 characters each); returns the receipts and texts.
fn windows(home: &Path, cfg: &Path, url: &str, extra: &[&str]) -> (Vec<Value>, String) {
    let mut receipts = Vec::new();
    let mut text = String::new();
    let mut start = 0u64;
    loop {
        let s = start.to_string();
        let mut args = vec!["--start-index", s.as_str(), "--max-chars", "1000"];
        args.extend_from_slice(extra);
        let (r, t) = lookup(home, cfg, url, &args);
        assert_eq!(r["ok"], true, "{r}");
        text.push_str(&t);
        let next = r["next_start_index"].as_u64();
        receipts.push(r);
        match next {
            Some(n) => start = n,
            None => break,
        }
        assert!(receipts.len() < 10, "too many windows");
    }
    (receipts, text)
}

#[tokio::test]
async fn windows_of_a_changing_page_come_from_one_stored_body() {
    let server = MockServer::start().await;
    Mock::given(path("/long"))
        .respond_with(Changing(AtomicUsize::new(0)))
        .mount(&server)
        .await;
    let cfg = direct();
    let url = format!("{}/long", server.uri());

    let home = tempfile::tempdir().unwrap();
    let (receipts, text) = windows(home.path(), cfg.path(), &url, &[]);
    assert!(receipts.len() >= 3, "{} windows", receipts.len());
    let sha = receipts[0]["content_sha256"].as_str().unwrap().to_string();
    for r in &receipts {
        assert_eq!(r["content_sha256"], sha.as_str());
        assert_eq!(r["content_chars"], receipts[0]["content_chars"]);
    }
    assert_eq!(hex::encode(Sha256::digest(text.as_bytes())), sha);
    assert_eq!(
        text.chars().count() as u64,
        receipts[0]["content_chars"].as_u64().unwrap()
    );
    assert_eq!(server.received_requests().await.unwrap().len(), 1);

    // Without the cache every window is a new fetch of a different page: the cache is
    // what makes them agree.
    let (receipts, text) = windows(home.path(), cfg.path(), &url, &["--no-cache"]);
    let shas: std::collections::HashSet<&str> = receipts
        .iter()
        .map(|r| r["content_sha256"].as_str().unwrap())
        .collect();
    assert_eq!(shas.len(), receipts.len(), "every window saw another page");
    assert!(!shas.contains(hex::encode(Sha256::digest(text.as_bytes())).as_str()));
}

fn batch(home: &Path, cfg: &Path, input: &Path) -> std::process::Child {
    common::vetch_process()
        .env("XDG_CACHE_HOME", home)
        .args([
            "batch",
            "--concurrency",
            "64",
            "--per-host",
            "64",
            "--config",
        ])
        .arg(cfg)
        .arg(input)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap()
}

fn batch_lines(child: std::process::Child) -> Vec<Value> {
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "batch failed: {:?}", out.status);
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[tokio::test]
async fn two_batch_processes_share_one_cache_and_a_third_run_is_served_from_it() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path_regex("^/n/[0-9]+$"))
        .respond_with(page("Numbered page"))
        .mount(&server)
        .await;
    let home = tempfile::tempdir().unwrap();
    let cfg = direct();
    let list = tempfile::NamedTempFile::new().unwrap();
    let urls: String = (0..500)
        .map(|i| format!("{}/n/{i}\n", server.uri()))
        .collect();
    std::fs::write(list.path(), urls).unwrap();

    let a = batch(home.path(), cfg.path(), list.path());
    let b = batch(home.path(), cfg.path(), list.path());
    for lines in [batch_lines(a), batch_lines(b)] {
        assert_eq!(lines.len(), 500);
        assert!(lines.iter().all(|l| l["status"] == "success"));
    }
    let sent = server.received_requests().await.unwrap().len();
    let pages = server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .filter(|r| r.url.path().starts_with("/n/"))
        .count();
    assert!((500..=1000).contains(&pages), "{pages}");
    // The 500 pages, and the origin's robots.txt answer (a 404, kept as "no rules": a batch
    // respects robots.txt by default).
    assert_eq!(info(home.path())["entries"], 501);

    let lines = batch_lines(batch(home.path(), cfg.path(), list.path()));
    assert_eq!(lines.len(), 500);
    for l in &lines {
        assert_eq!(l["status"], "success");
        assert_eq!(cache_status(&l["content"][0]["json"]), "hit", "{l}");
    }
    assert_eq!(server.received_requests().await.unwrap().len(), sent);
}

fn files(dir: &Path) -> Vec<PathBuf> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| !e.file_type().is_dir())
        .map(walkdir::DirEntry::into_path)
        .collect()
}

#[tokio::test]
async fn a_damaged_entry_is_a_miss_not_an_error() {
    let server = MockServer::start().await;
    Mock::given(path("/fragile"))
        .respond_with(page("Fragile page"))
        .expect(3)
        .mount(&server)
        .await;
    let home = tempfile::tempdir().unwrap();
    let cfg = direct();
    let url = format!("{}/fragile", server.uri());
    let (r, _) = lookup(home.path(), cfg.path(), &url, &[]);
    assert_eq!(cache_status(&r), "miss");
    let store = home.path().join("vetch");
    // The body's file, overwritten: its integrity check fails.
    for f in files(&store.join("content-v2")) {
        std::fs::write(&f, b"not what was stored").unwrap();
    }
    let (r, _) = lookup(home.path(), cfg.path(), &url, &[]);
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(cache_status(&r), "miss");
    // The index, cut in the middle of its line.
    for f in files(&store.join("index-v5")) {
        let bytes = std::fs::read(&f).unwrap();
        std::fs::write(&f, &bytes[..bytes.len() / 2]).unwrap();
    }
    let (r, _) = lookup(home.path(), cfg.path(), &url, &[]);
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(cache_status(&r), "miss");
    let (r, _) = lookup(home.path(), cfg.path(), &url, &[]);
    assert_eq!(cache_status(&r), "hit");
}

#[tokio::test]
async fn past_the_size_cap_the_least_recently_used_entries_go() {
    let server = MockServer::start().await;
    // 400 KB pages under a 1 MB cap: two fit.
    let body = "plain words of a large page\n".repeat(400 * 1024 / 28);
    for (i, n) in [(0, 2), (1, 1), (2, 1), (3, 1)] {
        Mock::given(path(format!("/big/{i}")))
            .respond_with(
                ResponseTemplate::new(200).set_body_raw(body.clone().into_bytes(), "text/plain"),
            )
            .expect(n)
            .mount(&server)
            .await;
    }
    let home = tempfile::tempdir().unwrap();
    let cfg = config_file(&format!(
        "[cache]\nmax_size_mb = 1\n{}",
        http_providers(&["direct"])
    ));
    let url = |i: u32| format!("{}/big/{i}", server.uri());
    for i in 0..4 {
        let (r, _) = lookup(home.path(), cfg.path(), &url(i), &[]);
        assert_eq!(cache_status(&r), "miss", "{i}");
    }
    let i = info(home.path());
    assert!(i["entries"].as_u64().unwrap() <= 2, "{i}");
    assert!(i["bytes"].as_u64().unwrap() <= 1024 * 1024, "{i}");
    let (r, _) = lookup(home.path(), cfg.path(), &url(3), &[]);
    assert_eq!(cache_status(&r), "hit");
    let (r, _) = lookup(home.path(), cfg.path(), &url(0), &[]);
    assert_eq!(cache_status(&r), "miss", "the oldest entry went");
}

#[tokio::test]
async fn no_secret_reaches_the_cache_directory_and_modes_are_private() {
    const KEY: &str = "canary-key-7Qx2vR9mZ4pL";
    const CRED: &str = "canary-cred-Jk3Wq8Nt5Ys";
    const COOKIE: &str = "canary-cookie-Hb6Pe2Lu9";
    let server = MockServer::start().await;
    Mock::given(path_regex("^/(reader|direct)/"))
        .respond_with(page("Canary page").insert_header("set-cookie", format!("sid={COOKIE}")))
        .expect(2)
        .mount(&server)
        .await;
    let cfg = config_file(&format!(
        "[[providers]]\nname = \"reader\"\nkind = \"template\"\n\
         url = \"{}/reader/{{url}}?key=${{CANARY_KEY}}\"\n\
         headers = {{ Authorization = \"Bearer ${{CANARY_KEY}}\", X-Api-Key = \"${{CANARY_KEY}}\" }}\n\
         [[providers]]\nname = \"direct\"\nkind = \"http\"\n",
        server.uri()
    ));
    let home = tempfile::tempdir().unwrap();
    let run = |url: &str, extra: &[&str]| {
        let out = cached(home.path())
            .env("CANARY_KEY", KEY)
            .args(["lookup", url, "--config"])
            .arg(cfg.path())
            .args(extra)
            .output()
            .unwrap();
        let v = json_out(&out.stdout);
        v["content"][0]["json"].clone()
    };
    let page_url = "https://docs.example/guide?token=abc";
    let direct_url = format!("{}/direct/page?api_key={KEY}", server.uri());
    let auth = format!("Authorization: Bearer {CRED}");
    for round in ["miss", "hit"] {
        let r = run(page_url, &["--provider", "reader"]);
        assert_eq!(cache_status(&r), round, "{r}");
        let r = run(&direct_url, &["--provider", "direct", "-H", &auth]);
        assert_eq!(cache_status(&r), round, "{r}");
    }
    let store = home.path().join("vetch");
    let all = files(&store);
    assert!(all.len() >= 4, "{all:?}");
    for f in &all {
        let name = f.to_string_lossy();
        let bytes = std::fs::read(f).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        for canary in [KEY, CRED, COOKIE] {
            assert!(!name.contains(canary), "{name}");
            assert!(!text.contains(canary), "{canary} in {name}");
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(f).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600, "{name}");
        }
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&store).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
    }
}

#[tokio::test]
async fn cache_clear_empties_it() {
    let server = MockServer::start().await;
    Mock::given(path("/c"))
        .respond_with(page("Cleared page"))
        .expect(2)
        .mount(&server)
        .await;
    let home = tempfile::tempdir().unwrap();
    let cfg = direct();
    let url = format!("{}/c", server.uri());
    lookup(home.path(), cfg.path(), &url, &[]);
    assert_eq!(info(home.path())["entries"], 1);
    let out = cached(home.path())
        .args(["cache", "clear"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("removed 1 entries"));
    assert_eq!(info(home.path())["entries"], 0);
    let (r, _) = lookup(home.path(), cfg.path(), &url, &[]);
    assert_eq!(cache_status(&r), "miss");
}

/// An entry fetched under looser network rules is not served to a run whose guard would
/// have refused the way it came: here a redirect hop to `localhost`, allowed with
/// `allow_private`, refused without it (the requested host itself is exempted by
/// `allow_private_hosts`, so the lookup gets as far as an attempt).
#[tokio::test]
async fn an_entry_is_not_served_across_a_stricter_network_policy() {
    let server = MockServer::start().await;
    let port = server.address().port();
    Mock::given(path("/moved"))
        .respond_with(ResponseTemplate::new(302).insert_header(
            "Location",
            format!("http://localhost:{port}/inner").as_str(),
        ))
        .expect(2)
        .mount(&server)
        .await;
    Mock::given(path("/inner"))
        .respond_with(page("Intranet page"))
        .expect(1)
        .mount(&server)
        .await;
    let home = tempfile::tempdir().unwrap();
    let open = direct();
    let strict = common::raw_config_file(&format!(
        "[network]\nallow_private_hosts = [\"127.0.0.1\"]\n{}",
        http_providers(&["direct"])
    ));
    let url = format!("http://127.0.0.1:{port}/moved");
    let (r, text) = lookup(home.path(), open.path(), &url, &[]);
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(cache_status(&r), "miss");
    assert!(text.contains("Intranet page"));
    // Same URL, same provider, stricter rules: the stored copy is not theirs to read.
    let (r, text) = lookup(home.path(), strict.path(), &url, &[]);
    assert_eq!(r["ok"], false, "{r}");
    assert_eq!(r["attempts_log"][0]["outcome"], "transport_error");
    let detail = r["attempts_log"][0]["detail"].as_str().unwrap();
    assert!(detail.starts_with("blocked"), "{detail}");
    assert!(!text.contains("Intranet page"));
    // The looser rules still find their own entry.
    let (r, _) = lookup(home.path(), open.path(), &url, &[]);
    assert_eq!(cache_status(&r), "hit");
}

/// A hit obeys the run's `max_body_bytes` exactly as a fresh response would: cut at the
/// cap and marked `truncated` (a run capped at 1 KiB got a 400,878-character stored page).
#[tokio::test]
async fn a_hit_is_cut_at_the_runs_body_cap_like_a_fresh_response() {
    let server = MockServer::start().await;
    let body = "plain words of a long stored page\n".repeat(12_000);
    Mock::given(path("/long"))
        .respond_with(
            ResponseTemplate::new(200).set_body_raw(body.clone().into_bytes(), "text/plain"),
        )
        .expect(2)
        .mount(&server)
        .await;
    let home = tempfile::tempdir().unwrap();
    let roomy = direct();
    let capped = config_file(&format!(
        "[lookup]\nmax_body_bytes = 1024\n{}",
        http_providers(&["direct"])
    ));
    let url = format!("{}/long", server.uri());
    let (r, _) = lookup(home.path(), roomy.path(), &url, &[]);
    assert_eq!(cache_status(&r), "miss");
    assert_eq!(r["content_chars"], body.len());
    // The stored page, served to a run capped at 1 KiB.
    let (hit, hit_text) = lookup(home.path(), capped.path(), &url, &["--max-chars", "5000"]);
    assert_eq!(cache_status(&hit), "hit", "{hit}");
    assert_eq!(hit["ok"], true, "{hit}");
    assert_eq!(hit["truncated"], true, "{hit}");
    assert!(hit["content_chars"].as_u64().unwrap() <= 1024, "{hit}");
    // The same run fresh from the network (one more request): the same content.
    let (fresh, fresh_text) = lookup(
        home.path(),
        capped.path(),
        &url,
        &["--max-chars", "5000", "--no-cache"],
    );
    assert_eq!(cache_status(&fresh), "bypass");
    assert_eq!(fresh["truncated"], true);
    for field in ["content_chars", "content_sha256", "body_sha256"] {
        assert_eq!(hit[field], fresh[field], "{field}");
    }
    assert_eq!(hit_text, fresh_text);
    // And the roomy run still gets the whole stored page.
    let (r, _) = lookup(home.path(), roomy.path(), &url, &[]);
    assert_eq!(cache_status(&r), "hit");
    assert_eq!(r["content_chars"], body.len());
    assert!(r.get("truncated").is_none_or(|t| t == false), "{r}");
}

/// `vetch cache clear` removes what vetch wrote and nothing else: a `tmp/` folder that
/// was in the configured directory before, with a file of its own, survives (it used to
/// be deleted whole with cacache's temp folder of the same name).
#[tokio::test]
async fn cache_clear_leaves_what_vetch_did_not_write() {
    let server = MockServer::start().await;
    Mock::given(path("/kept"))
        .respond_with(page("Kept page"))
        .expect(1)
        .mount(&server)
        .await;
    let base = tempfile::tempdir().unwrap();
    let dir = base.path().join("work");
    std::fs::create_dir_all(dir.join("tmp")).unwrap();
    std::fs::write(dir.join("tmp/notes.txt"), b"mine").unwrap();
    std::fs::write(dir.join("README"), b"mine too").unwrap();
    let cfg = config_file(&format!(
        "[cache]\ndir = {}\n{}",
        serde_json::to_string(dir.to_str().unwrap()).unwrap(),
        http_providers(&["direct"])
    ));
    let (r, _) = lookup(
        base.path(),
        cfg.path(),
        &format!("{}/kept", server.uri()),
        &[],
    );
    assert_eq!(cache_status(&r), "miss");
    assert!(dir.join("index-v5").is_dir() && dir.join("content-v2").is_dir());
    let out = cached(base.path())
        .args(["cache", "clear", "--config"])
        .arg(cfg.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("removed 1 entries"));
    assert_eq!(std::fs::read(dir.join("tmp/notes.txt")).unwrap(), b"mine");
    assert_eq!(std::fs::read(dir.join("README")).unwrap(), b"mine too");
    assert!(!dir.join("index-v5").exists() && !dir.join("content-v2").exists());
}

/// The stored policy keeps hashes of the request's header values (for `Vary`); unsalted,
/// a dictionary recovered `admin:hunter2` from one in half a second. They are salted per
/// cache: neither the value nor its plain SHA-256 is anywhere on disk, and two caches
/// hold different hashes of the same request.
#[tokio::test]
async fn header_hashes_on_disk_are_salted_per_cache() {
    let server = MockServer::start().await;
    Mock::given(path("/private"))
        .respond_with(page("Private page").insert_header("vary", "authorization"))
        .expect(2)
        .mount(&server)
        .await;
    let cfg = direct();
    let basic = "Basic YWRtaW46aHVudGVyMg==";
    let plain_hash = hex_sha256(basic.as_bytes());
    let url = format!("{}/private", server.uri());
    let auth = format!("Authorization: {basic}");
    let mut every_file = Vec::new();
    for _ in 0..2 {
        let home = tempfile::tempdir().unwrap();
        let (r, _) = lookup(home.path(), cfg.path(), &url, &["-H", &auth]);
        assert_eq!(cache_status(&r), "miss", "{r}");
        let (r, _) = lookup(home.path(), cfg.path(), &url, &["-H", &auth]);
        assert_eq!(cache_status(&r), "hit", "{r}");
        let mut text = String::new();
        for f in files(&home.path().join("vetch")) {
            text.push_str(&String::from_utf8_lossy(&std::fs::read(&f).unwrap()));
        }
        assert!(!text.contains(basic) && !text.contains("YWRtaW46aHVudGVyMg"));
        assert!(!text.contains(&plain_hash), "the unsalted hash is on disk");
        every_file.push(text);
    }
    // The 64-hex-digit words of one cache's files are not the other's (other salt).
    let words = |t: &str| -> std::collections::BTreeSet<String> {
        t.split(|c: char| !c.is_ascii_hexdigit())
            .filter(|w| w.len() == 64)
            .map(str::to_string)
            .collect()
    };
    let (a, b) = (words(&every_file[0]), words(&every_file[1]));
    assert!(!a.is_empty());
    assert!(
        a.is_disjoint(&b),
        "{:?}",
        a.intersection(&b).collect::<Vec<_>>()
    );
}

fn hex_sha256(b: &[u8]) -> String {
    Sha256::digest(b)
        .iter()
        .map(|x| format!("{x:02x}"))
        .collect()
}
