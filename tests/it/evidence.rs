//! Evidence (DESIGN §14): the receipt's provenance fields for each provider kind, the
//! cache and the failures. Each test states its server's bytes, so the hashes are checked
//! against what was sent, not against what vetch says it got.

use std::time::{SystemTime, UNIX_EPOCH};

use crate::common;

use common::{article, config_file, engine, http_providers, json_out, sha256_hex, vetch};
use serde_json::Value;
use vetch::model::input::ToolInput;
use vetch::model::receipt::Receipt;
use wiremock::matchers::path;
use wiremock::{Mock, MockServer, ResponseTemplate};

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Seconds since the epoch of an RFC 3339 UTC time to the second (`2024-05-01T12:00:00Z`),
/// read independently of vetch's formatter (days from civil, Howard Hinnant).
fn parse_rfc3339(s: &str) -> u64 {
    let b = s.as_bytes();
    assert_eq!(s.len(), 20, "{s}");
    assert!(
        b[4] == b'-' && b[7] == b'-' && b[10] == b'T' && b[19] == b'Z',
        "{s}"
    );
    let n = |r: std::ops::Range<usize>| s[r].parse::<i64>().unwrap();
    let (y, m, d) = (n(0..4), n(5..7), n(8..10));
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    (days * 86_400 + n(11..13) * 3600 + n(14..16) * 60 + n(17..19)) as u64
}

/// The evidence fields of a receipt: none of them, or all that apply.
const EVIDENCE: [&str; 5] = [
    "fetched_at",
    "final_url",
    "redirects",
    "body_sha256",
    "warc_record_id",
];

fn to_json(r: &Receipt) -> Value {
    let v = serde_json::to_value(r).unwrap();
    common::assert_schema("receipt", &v);
    v
}

#[tokio::test]
async fn a_plain_page_says_when_from_where_and_which_bytes() {
    let server = MockServer::start().await;
    let body = article("Plain page").into_bytes();
    Mock::given(path("/plain"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(body.clone(), "text/html"))
        .expect(1)
        .mount(&server)
        .await;
    let url = format!("{}/plain", server.uri());
    let before = now_secs();
    let out = engine(&http_providers(&["direct"]))
        .lookup(&ToolInput::for_url(&url))
        .await;
    let after = now_secs();
    let r = to_json(&out.receipt);
    assert_eq!(r["ok"], true, "{r}");
    let at = parse_rfc3339(r["fetched_at"].as_str().unwrap());
    assert!(before <= at && at <= after, "{r}");
    assert_eq!(r["final_url"], url.as_str());
    assert_eq!(r["redirects"], serde_json::json!([]));
    assert_eq!(r["body_sha256"], sha256_hex(&body).as_str());
    // The body and the text are two things: the text is extracted Markdown.
    assert_ne!(r["body_sha256"], r["content_sha256"]);
    // No WARC was asked for.
    assert!(r.get("warc_record_id").is_none(), "{r}");
    assert!(out.evidence.is_none());
}

/// Every hop, in order, redacted; the token a hop carried is nowhere in the receipt.
#[tokio::test]
async fn a_redirect_chain_is_listed_in_order_and_redacted() {
    let server = MockServer::start().await;
    let token = "s3cr3t-hop-t0ken-8f7e6d5c4b3a";
    Mock::given(path("/start"))
        .respond_with(
            ResponseTemplate::new(302).insert_header("Location", format!("/hop?token={token}")),
        )
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(path("/hop"))
        .respond_with(ResponseTemplate::new(301).insert_header("Location", "/end"))
        .expect(1)
        .mount(&server)
        .await;
    let body = article("Where the chain ends").into_bytes();
    Mock::given(path("/end"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(body.clone(), "text/html"))
        .expect(1)
        .mount(&server)
        .await;
    let out = engine(&http_providers(&["direct"]))
        .lookup(&ToolInput::for_url(format!("{}/start", server.uri())))
        .await;
    let r = to_json(&out.receipt);
    assert_eq!(r["ok"], true, "{r}");
    let hops: Vec<&str> = r["redirects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h.as_str().unwrap())
        .collect();
    assert_eq!(hops.len(), 2, "{r}");
    assert!(
        hops[0].starts_with(&format!("{}/hop?token=", server.uri())),
        "{r}"
    );
    assert_eq!(hops[1], format!("{}/end", server.uri()));
    assert_eq!(r["final_url"], hops[1]);
    assert_eq!(r["body_sha256"], sha256_hex(&body).as_str());
    assert!(!r.to_string().contains(token), "{r}");
}

/// A gzip response is hashed as the client holds it: decoded.
#[tokio::test]
async fn a_gzip_body_is_hashed_after_decoding() {
    use std::io::Write;
    let server = MockServer::start().await;
    let plain = article("Compressed page").into_bytes();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&plain).unwrap();
    let wire = gz.finish().unwrap();
    Mock::given(path("/gz"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_raw(wire.clone(), "text/html")
                .insert_header("Content-Encoding", "gzip"),
        )
        .expect(1)
        .mount(&server)
        .await;
    let out = engine(&http_providers(&["direct"]))
        .lookup(&ToolInput::for_url(format!("{}/gz", server.uri())))
        .await;
    let r = to_json(&out.receipt);
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["body_sha256"], sha256_hex(&plain).as_str());
    assert_ne!(r["body_sha256"], sha256_hex(&wire).as_str());
}

/// A latin-1 page is hashed as the bytes that came, not as the UTF-8 text they decode to.
#[tokio::test]
async fn a_latin1_body_is_hashed_before_charset_decoding() {
    let server = MockServer::start().await;
    let text = article("Café crème, déjà vu");
    let latin1: Vec<u8> = text.chars().map(|c| c as u32 as u8).collect();
    assert_ne!(latin1, text.as_bytes());
    Mock::given(path("/latin1"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_raw(latin1.clone(), "text/html; charset=iso-8859-1"),
        )
        .expect(1)
        .mount(&server)
        .await;
    let out = engine(&http_providers(&["direct"]))
        .lookup(&ToolInput::for_url(format!("{}/latin1", server.uri())))
        .await;
    let r = to_json(&out.receipt);
    assert_eq!(r["ok"], true, "{r}");
    assert!(out.text.contains("Café crème"), "{}", out.text);
    assert_eq!(r["body_sha256"], sha256_hex(&latin1).as_str());
    assert_ne!(r["body_sha256"], sha256_hex(text.as_bytes()).as_str());
}

/// A template's answer comes from the operator's endpoint: when and which bytes, but no
/// route (the endpoint is configuration the receipt does not show). A command's is its
/// stdout, with no route either (the program follows its own redirects).
#[tokio::test]
async fn templates_and_commands_say_when_and_which_bytes_but_not_a_route() {
    let server = MockServer::start().await;
    let body = article("From the reader").into_bytes();
    Mock::given(path("/reader"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(body.clone(), "text/html"))
        .expect(1)
        .mount(&server)
        .await;
    let cfg = format!(
        "[[providers]]\nname = \"reader\"\nkind = \"template\"\nurl = \"{}/reader?u={{url_encoded}}\"\n",
        server.uri()
    );
    let out = engine(&cfg)
        .lookup(&ToolInput::for_url("https://example.com/doc"))
        .await;
    let r = to_json(&out.receipt);
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["body_sha256"], sha256_hex(&body).as_str());
    assert!(r["fetched_at"].is_string(), "{r}");
    assert!(
        r.get("final_url").is_none() && r.get("redirects").is_none(),
        "{r}"
    );

    let stdout = "Fetched the page with a long enough body of useful text, from a program.";
    let cfg = format!(
        "[[providers]]\nname = \"cmd\"\nkind = \"command\"\nargv = [\"sh\", \"-c\", \"printf '%s' '{stdout}'\", \"{{url}}\"]\n"
    );
    let out = engine(&cfg)
        .lookup(&ToolInput::for_url("https://example.com/doc"))
        .await;
    let r = to_json(&out.receipt);
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["body_sha256"], sha256_hex(stdout.as_bytes()).as_str());
    assert!(r["fetched_at"].is_string(), "{r}");
    assert!(
        r.get("final_url").is_none() && r.get("redirects").is_none(),
        "{r}"
    );
}

/// No content, no evidence: a failed lookup carries none of the fields, whether its
/// attempts landed (a 503, a challenge page) or it never started (a bad URL).
#[tokio::test]
async fn failures_carry_no_evidence() {
    let server = MockServer::start().await;
    Mock::given(path("/down"))
        .respond_with(ResponseTemplate::new(503))
        .mount(&server)
        .await;
    Mock::given(path("/challenge"))
        .respond_with(common::html(common::CHALLENGE))
        .mount(&server)
        .await;
    let e = engine(&http_providers(&["direct"]));
    for url in [
        format!("{}/down", server.uri()),
        format!("{}/challenge", server.uri()),
        "ftp://example.com/".to_string(),
    ] {
        let out = e.lookup(&ToolInput::for_url(&url)).await;
        let r = to_json(&out.receipt);
        assert_eq!(r["ok"], false, "{r}");
        for field in EVIDENCE {
            assert!(r.get(field).is_none(), "{field} in {r}");
        }
        assert!(out.evidence.is_none());
    }
}

/// A copy from the cache says when it was fetched (not when it was served), and the way it
/// came then; a second run through the binary, sharing the cache.
#[tokio::test]
async fn a_cache_hit_says_when_its_copy_was_fetched() {
    let server = MockServer::start().await;
    Mock::given(path("/old"))
        .respond_with(ResponseTemplate::new(301).insert_header("Location", "/new"))
        .expect(1)
        .mount(&server)
        .await;
    let body = article("Stored page").into_bytes();
    Mock::given(path("/new"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(body.clone(), "text/html"))
        .expect(1)
        .mount(&server)
        .await;
    let home = tempfile::tempdir().unwrap();
    let cfg = config_file(&http_providers(&["direct"]));
    let run = || {
        let out = vetch()
            .env("XDG_CACHE_HOME", home.path())
            .args(["lookup", "-o", "receipt", "--config"])
            .arg(cfg.path())
            .arg(format!("{}/old", server.uri()))
            .output()
            .unwrap();
        let r = json_out(&out.stdout);
        common::assert_schema("receipt", &r);
        r
    };
    let miss = run();
    assert_eq!(miss["cache"]["status"], "miss", "{miss}");
    let hit = run();
    assert_eq!(hit["cache"]["status"], "hit", "{hit}");
    for field in ["fetched_at", "final_url", "redirects", "body_sha256"] {
        assert_eq!(hit[field], miss[field], "{field}");
    }
    assert_eq!(
        hit["redirects"],
        serde_json::json!([format!("{}/new", server.uri())])
    );
    assert_eq!(hit["body_sha256"], sha256_hex(&body).as_str());
}
