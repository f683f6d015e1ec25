//! Robustness: Debug, Send + Sync, valid JSON, no panic, linear time, and the properties.

use super::*;
use proptest::prelude::*;

#[test]
fn debug_never_prints_secrets() {
    let mut r = Redactor::new();
    r.add_secret("topsecretvalue42");
    let d = format!("{r:?} {:#?}", r.clone());
    assert!(!d.contains("topsecretvalue42"), "{d}");
    assert!(d.contains("secrets: 1"));
}

#[test]
fn send_sync_and_cheap_new() {
    fn assert_send_sync<T: Send + Sync + Clone + Default>() {}
    assert_send_sync::<Redactor>();
    let r = Redactor::new();
    assert!(r.patterns.is_empty() && r.matcher.get().is_none());
}

#[test]
fn json_text_stays_valid() {
    let mut r = Redactor::new();
    r.add_secret("123456789");
    let ghp = format!("ghp_{}", alnum(36, 5));
    let doc = serde_json::json!({
        "url": "https://example.com/?token=abc",
        "content": format!("token: {ghp}\nAuthorization: Bearer abc123def456\n{{\"password\": 123456789}}"),
        "content_chars": 123456789,
        "password": "hunter22",
        "headers": { "Authorization": "Bearer zz9zz9zz9", "Cookie": "sid=abc; theme=dark" },
        "list": ["-----BEGIN PRIVATE KEY-----\nAAAA\n", "-----END PRIVATE KEY-----"],
    });
    for pretty in [false, true] {
        let s = if pretty {
            serde_json::to_string_pretty(&doc).unwrap_or_default()
        } else {
            serde_json::to_string(&doc).unwrap_or_default()
        };
        let out = r.redact_json_text(&s);
        let back: serde_json::Value = serde_json::from_str(&out).unwrap_or_default();
        assert_eq!(back["content_chars"], 123456789, "{out}");
        assert_eq!(back["password"], TEXT_MARKER);
        assert_eq!(back["headers"]["Authorization"], "Bearer [REDACTED]");
        assert_eq!(
            back["headers"]["Cookie"],
            "sid=[REDACTED]; theme=[REDACTED]"
        );
        assert_eq!(back["url"], "https://example.com/?token=[REDACTED]");
        let content = back["content"].as_str().unwrap_or_default();
        assert!(!content.contains(&ghp) && !content.contains("abc123def456"));
        assert!(!content.contains("123456789"));
        assert_eq!(out.contains('\n'), pretty);
        assert_eq!(r.redact_json_text(&out), out);
    }
    // Benign JSON comes back byte for byte.
    let benign = r#"{"b":1,"a":[true,null,2.5],"s":"Authentication: required."}"#;
    assert_eq!(r.redact_json_text(benign), benign);
    assert_eq!(
        r.redact_json_text("not json token=abc123def"),
        "not json token=[REDACTED]"
    );
}

#[test]
fn no_panic_on_odd_input() {
    let r = Redactor::new();
    for s in [
        "",
        "=",
        ":",
        "?",
        "&",
        "://",
        "://:@",
        "-----BEGIN PRIVATE KEY-----",
        "password=",
        "token:",
        "\\\"",
        "password=\"unterminated",
        "Bearer ",
        "Basic ====",
        "Authorization:",
        "Cookie: =;=;",
        "é=é",
        "tokén=é",
        "?token=é",
        "Bearer éééééééé",
        "-----BEGIN PRIVATE KEY-----é",
        "\u{0}token=\u{0}",
        "https://:@",
        "#token=",
    ] {
        let out = r.redact_text(s);
        assert_eq!(r.redact_text(&out), out);
        let _ = r.redact_url(s);
        let _ = r.redact_json_text(s);
    }
}

/// Pathological pages cost time linear in their size (no rescans of long spans).
#[test]
fn adversarial_inputs_stay_linear() {
    let r = Redactor::new();
    let n = 256 * 1024;
    let inputs = [
        "sk-".repeat(n / 3),
        "-----BEGIN PRIVATE KEY-----\"".repeat(n / 28) + "-----END PRIVATE KEY-----",
        "-----BEGIN PRIVATE KEY-----\n".repeat(n / 28),
        "&token=".repeat(n / 7),
        "Basic aaaaaaaaaaaaaaaa ".repeat(n / 23),
        format!("token{}:", " ".repeat(n)),
        format!("{}=", "token".repeat(n / 5)),
        "password=\"".repeat(n / 10),
        "key:".repeat(n / 4),
        "://a:@".repeat(n / 6),
    ];
    for input in inputs {
        // Quadratic work on these would take hours: a hang guard, not a speed test.
        let r = r.clone();
        let (input, out, r) = crate::test_support::within_hang_guard(move || {
            let out = r.redact_text(&input);
            let _ = r.redact_url(&format!("https://x/{}", &input[..input.len().min(50_000)]));
            (input, out, r)
        });
        assert_eq!(r.redact_text(&out), out, "{:?}...", &input[..20]);
    }
}

// ---------------------------------------------------------------- properties

fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "\\PC{0,8}",
        2 => "[A-Za-z0-9]{1,12}",
        1 => Just("token".to_string()),
        1 => Just("password=".to_string()),
        1 => Just("api_key: ".to_string()),
        1 => Just("?".to_string()),
        1 => Just("&".to_string()),
        1 => Just("&amp;".to_string()),
        1 => Just("#".to_string()),
        1 => Just("=".to_string()),
        1 => Just(":".to_string()),
        1 => Just(";".to_string()),
        1 => Just("\"".to_string()),
        1 => Just("'".to_string()),
        1 => Just("\\".to_string()),
        1 => Just("\\\"".to_string()),
        1 => Just(" ".to_string()),
        1 => Just("\n".to_string()),
        1 => Just("Bearer ".to_string()),
        1 => Just("Basic ".to_string()),
        1 => Just("Authorization: ".to_string()),
        1 => Just("Cookie: ".to_string()),
        1 => Just("https://".to_string()),
        1 => Just("://u:".to_string()),
        1 => Just("@".to_string()),
        1 => Just("-----BEGIN PRIVATE KEY-----".to_string()),
        1 => Just("-----END PRIVATE KEY-----".to_string()),
        1 => Just("[REDACTED]".to_string()),
        1 => Just("REDACTED".to_string()),
        1 => Just("sk-".to_string()),
        1 => Just("ghp_".to_string()),
        1 => Just("AIza".to_string()),
        1 => Just("eyJ".to_string()),
        1 => Just(".".to_string()),
        1 => Just("-".to_string()),
        1 => Just("_".to_string()),
        1 => Just("\\_".to_string()),
        1 => Just("&#95;".to_string()),
        1 => Just("&lowbar;".to_string()),
        1 => Just("\\u005f".to_string()),
        1 => Just("\u{AD}".to_string()),
        1 => Just("\u{200B}".to_string()),
        1 => Just("bearer ".to_string()),
        1 => Just("token[]=".to_string()),
        1 => Just("%3D".to_string()),
        1 => Just("dop_v1_".to_string()),
    ]
}

fn soup() -> impl Strategy<Value = String> {
    prop::collection::vec(fragment(), 0..24).prop_map(|v| v.concat())
}

const SAFE_WORDS: &[&str] = &[
    "the",
    "token",
    "password",
    "reset",
    "secret",
    "key",
    "API",
    "your",
    "field",
    "session",
    "length",
    "Authentication",
    "required",
    "bearer",
    "basic",
    "auth",
    "cookie",
    "state",
    "code",
    "page",
    "sort",
    "desc",
    "3f786850e387550fdab836ed7e6dc881de23001b",
    "550e8400-e29b-41d4-a716-446655440000",
    "#ff5733",
    "v1.2.3",
    "1.0.0-beta.2",
    "YOUR_API_KEY",
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "https://example.com/a/b",
    "(see",
    "below)",
    "42",
    "2024-05-01",
    "über",
    "naïve",
    "—",
    "sk-learn",
    "ghp_",
    "eyJ",
    "x",
    "a-b",
    "c_d",
];
const SAFE_SEPS: &[&str] = &[" ", ", ", ". ", "\n", " - ", "; ", "/"];

fn benign() -> impl Strategy<Value = String> {
    prop::collection::vec(
        (
            prop::sample::select(SAFE_WORDS),
            prop::sample::select(SAFE_SEPS),
        ),
        0..40,
    )
    .prop_map(|v| v.into_iter().map(|(w, s)| format!("{w}{s}")).collect())
}

proptest! {
    // PROPTEST_CASES raises the count and PROPTEST_RNG_SEED picks other cases, for a longer
    // hunt. The seed is fixed otherwise: the benign generator joins words into tokens, and a
    // random draw that reads as a credential by the prose rules (found three: a digest or a
    // UUID behind a word, now excluded) must not fail one CI run in many.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(300),
        rng_seed: proptest::test_runner::RngSeed::Fixed(
            std::env::var("PROPTEST_RNG_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(0x7e7c_4a11),
        ),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn prop_idempotent_text(s in soup()) {
        let r = Redactor::new();
        let once = r.redact_text(&s);
        prop_assert_eq!(r.redact_text(&once), once);
    }

    #[test]
    fn prop_idempotent_url(s in soup()) {
        let r = Redactor::new();
        let u = format!("https://example.com/{s}");
        let once = r.redact_url(&u);
        prop_assert_eq!(r.redact_url(&once), once.clone());
        if url::Url::parse(&u).is_ok() {
            prop_assert!(url::Url::parse(&once).is_ok(), "{} -> {}", u, once);
        }
    }

    /// What the DOM redaction relies on to skip a link (see `Redactor::url_may_change`): a
    /// URL with no `@`, `?` or `#` that text redaction leaves as it is, URL redaction
    /// leaves as it is too; whether it parses or not, absolute or relative.
    #[test]
    fn prop_url_unchanged_where_text_is(s in soup(), lead in 0usize..4) {
        let r = Redactor::new();
        let path: String = s.chars().filter(|c| !matches!(c, '@' | '?' | '#')).collect();
        let u = match lead {
            0 => format!("https://example.com/{path}"),
            1 => format!("/{path}"),
            2 => format!("http://{path}"),
            _ => path,
        };
        prop_assert!(!Redactor::url_may_change(&u));
        if r.redact_text(&u) == u {
            prop_assert_eq!(r.redact_url(&u), u);
        }
    }

    #[test]
    fn prop_benign_unchanged(s in benign()) {
        let r = Redactor::new();
        let out = r.redact_text(&s);
        prop_assert!(out.len() <= s.len());
        prop_assert_eq!(out, s);
    }

    #[test]
    fn prop_planted_token_never_survives(pre in soup(), post in soup(), body in "[A-Za-z0-9]{36}") {
        let r = Redactor::new();
        let tok = format!("ghp_{body}");
        let out = r.redact_text(&format!("{pre}{tok}{post}"));
        prop_assert!(!out.contains(&tok), "{}", out);
        let out = r.redact_url(&format!("https://example.com/{pre}{tok}{post}"));
        prop_assert!(!out.contains(&tok), "{}", out);
    }

    #[test]
    fn prop_planted_literal_never_survives(
        pre in soup(),
        post in soup(),
        secret in "[A-Za-z0-9 !#$%&()*+,/:;=?@^_{|}~\"\\\\<>é-]{6,20}",
        form in 0usize..4,
    ) {
        prop_assume!(!TEXT_MARKER.contains(secret.as_str()) && !URL_MARKER.contains(secret.as_str()));
        prop_assume!(secret.trim().chars().count() >= MIN_SECRET_LEN);
        let mut r = Redactor::new();
        r.add_secret(&secret);
        let forms = encodings(&secret);
        let planted = &forms[form % forms.len()];
        let text = format!("{pre}{planted}{post}");
        let out = r.redact_text(&text);
        prop_assert!(!out.contains(planted.as_str()), "{:?} -> {:?}", text, out);
        prop_assert!(!out.contains(secret.as_str()));
        let out = r.redact_url(&format!("https://example.com/?q={pre}{planted}{post}"));
        prop_assert!(!out.contains(planted.as_str()), "{}", out);
    }

    #[test]
    fn prop_json_stays_valid(a in soup(), b in soup(), body in "[A-Za-z0-9]{36}") {
        let r = Redactor::new();
        let tok = format!("ghp_{body}");
        let doc = serde_json::json!({ "url": a, "content": format!("{b}{tok}{a}"), "n": 7 });
        let s = serde_json::to_string(&doc).unwrap_or_default();
        let out = r.redact_json_text(&s);
        let back = serde_json::from_str::<serde_json::Value>(&out);
        prop_assert!(back.is_ok(), "{}", out);
        prop_assert!(!out.contains(&tok));
        // redact_text on JSON text keeps it valid too.
        let out = r.redact_text(&s);
        prop_assert!(serde_json::from_str::<serde_json::Value>(&out).is_ok(), "{} -> {}", s, out);
    }

    #[test]
    fn prop_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let s = String::from_utf8_lossy(&bytes);
        let r = Redactor::new();
        let _ = r.redact_text(&s);
        let _ = r.redact_url(&s);
        let _ = r.redact_json_text(&s);
    }
}

/// Redacting only the keys and strings that [`Redactor::change_spans`] touches gives the
/// JSON that judging every one alone gives: on random documents of secrets, sensitive keys,
/// escapes, controls and the kept window.
#[test]
fn json_redacts_only_touched_strings_and_matches_each() {
    use serde_json::{json, Value};
    let ghp = format!("ghp_{}", alnum(36, 77));
    let texts: Vec<String> = vec![
        "plain words".into(),
        "the key to it".into(),
        format!("token {ghp}"),
        "ghp%5FA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8".into(),
        "hunter2Xy9aB".into(),
        "s3cr3t-literal-value".into(),
        "bell\u{7}\u{1b}[2J".into(),
        "https://u:pa55w0rdX@example.com/?code=abc123XYZ".into(),
        "Bearer abcDEF123456ghiJKL".into(),
        "the window".into(),
    ];
    let keys = [
        "url",
        "password",
        "Authorization",
        "detail",
        "x-api-key",
        "title",
        "ghp_key",
    ];
    let strategy = proptest::collection::vec((0..texts.len(), 0..keys.len(), 0..4usize), 1..30);
    let mut r = Redactor::new();
    r.add_secret("s3cr3t-literal-value");
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: 300,
        ..ProptestConfig::default()
    });
    let result = runner.run(&strategy, |items| {
        let mut doc = json!({"content": [{"json": {}}, {"text": "the window"}]});
        let mut nested = serde_json::Map::new();
        let mut list = Vec::new();
        for (t, k, shape) in items {
            let v = Value::String(texts[t].clone());
            match shape {
                0 => {
                    nested.insert(keys[k].to_string(), v);
                }
                1 => list.push(v),
                2 => {
                    nested.insert(format!("{}_{}", keys[k], texts[t]), json!(1));
                }
                _ => list.push(json!({ keys[k]: v })),
            }
        }
        doc["content"][0]["json"] = json!({"receipt": nested, "log": list});
        let mut touched = doc.clone();
        r.redact_json_value_keeping(&mut touched, Some("the window"));
        let mut each = doc.clone();
        r.redact_json_each(&mut each, Some("the window"));
        prop_assert_eq!(touched, each);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}
