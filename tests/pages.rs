//! Realistic pages through the whole pipeline (fetch, decode, extract, judge): challenge
//! pages are still caught after extraction with the detector's marker, and genuine pages are
//! returned as usable content.

mod common;

use common::{engine, http_providers};
use vetch::input::ToolInput;
use vetch::receipt::Outcome;
use wiremock::matchers::path;
use wiremock::{Mock, MockServer, ResponseTemplate};

fn fixtures(dir: &str) -> Vec<(String, Vec<u8>)> {
    let base = format!(
        "{}/tests/fixtures/interstitial/{dir}",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(&base)
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

fn content_type(name: &str) -> &'static str {
    if name.ends_with(".json") {
        "application/json"
    } else if name.ends_with(".md") {
        "text/markdown; charset=utf-8"
    } else {
        "text/html; charset=utf-8"
    }
}

async fn serve(dir: &str) -> (MockServer, Vec<String>) {
    let server = MockServer::start().await;
    let mut names = Vec::new();
    for (name, body) in fixtures(dir) {
        Mock::given(path(format!("/{name}")))
            .respond_with(ResponseTemplate::new(200).set_body_raw(body, content_type(&name)))
            .mount(&server)
            .await;
        names.push(name);
    }
    (server, names)
}

#[tokio::test]
async fn challenge_pages_are_unusable_after_extraction() {
    let (server, names) = serve("challenge").await;
    assert!(names.len() >= 10);
    let e = engine(&http_providers(&["direct"]));
    let mut missed = Vec::new();
    for name in &names {
        let out = e
            .lookup(&ToolInput::for_url(format!("{}/{name}", server.uri())))
            .await;
        let a = &out.receipt.attempts_log[0];
        if out.receipt.ok || a.outcome != Outcome::UnusableContent {
            missed.push(format!("{name}: {:?} {}", a.outcome, a.detail));
        }
    }
    assert!(
        missed.is_empty(),
        "challenge pages returned as content: {missed:#?}"
    );
}

#[tokio::test]
async fn challenge_detail_names_the_marker() {
    let (server, _) = serve("challenge").await;
    let e = engine(&http_providers(&["direct"]));
    let out = e
        .lookup(&ToolInput::for_url(format!(
            "{}/cloudflare-managed-challenge.html",
            server.uri()
        )))
        .await;
    assert_eq!(
        out.receipt.attempts_log[0].detail,
        "interstitial page detected ('just a moment')"
    );
}

#[tokio::test]
async fn genuine_pages_are_usable_after_extraction() {
    let (server, names) = serve("genuine").await;
    assert!(names.len() >= 10);
    let e = engine(&format!(
        "[lookup]\nmin_chars = 1\n{}",
        http_providers(&["direct"])
    ));
    let mut flagged = Vec::new();
    for name in &names {
        let out = e
            .lookup(&ToolInput::for_url(format!("{}/{name}", server.uri())))
            .await;
        if !out.receipt.ok {
            flagged.push(format!("{name}: {}", out.receipt.attempts_log[0].detail));
        }
    }
    assert!(
        flagged.is_empty(),
        "genuine pages judged unusable: {flagged:#?}"
    );
}

/// Issue 18: the 2020 Cloudflare "I'm Under Attack" page hides kilobytes of obfuscated
/// arithmetic (`+((!+[]+(!![])…`) in `display:none` divs. Counted as visible text, that
/// outweighed the `Just a moment...` title and the page came back `success` with 8 KB of
/// escaped brackets.
#[tokio::test]
async fn regression_cloudflare_iuam_2020_hidden_jschl_called_success() {
    let (server, _) = serve("challenge").await;
    let e = engine(&http_providers(&["direct"]));
    let out = e
        .lookup(&ToolInput::for_url(format!(
            "{}/cloudflare-iuam-2020-hidden-jschl.html",
            server.uri()
        )))
        .await;
    let a = &out.receipt.attempts_log[0];
    assert!(!out.receipt.ok, "called success: {}", out.text);
    assert_eq!(a.outcome, Outcome::UnusableContent);
    assert_eq!(a.detail, "interstitial page detected ('just a moment')");
}
