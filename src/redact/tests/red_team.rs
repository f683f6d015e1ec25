//! Red-team and held-out cases: split tokens, encoded names, the requested URL's secrets,
//! operator rules, JSON windows.

use super::*;

/// Issue 11's red-team findings, one by one.
#[test]
fn red_team_cases() {
    let r = Redactor::new();
    let ghp = format!("ghp_{}", alnum(36, 301));
    let cases: Vec<(String, &str, &str)> = vec![
        ("https://x.example/?token[]=Zz9Yy8Xx7Ww6&b=1".into(), "Zz9Yy8Xx7Ww6", "&b=1"),
        ("see ?token[0]=Zz9Yy8Xx7Ww6 ok".into(), "Zz9Yy8Xx7Ww6", " ok"),
        ("https://x.example/?next=https%3A%2F%2Fa.example%2Fcb%3Ftoken%3DZz9Yy8Xx7Ww6%26x%3D1".into(), "Zz9Yy8Xx7Ww6", "%26x%3D1"),
        ("log: token%3DZz9Yy8Xx7Ww6 done".into(), "Zz9Yy8Xx7Ww6", " done"),
        ("GET /v1?api%5Fkey=Zz9Yy8Xx7Ww6 HTTP/1.1".into(), "Zz9Yy8Xx7Ww6", " HTTP/1.1"),
        ("send it as bearer k3VZp9QmX2rT7wLs8Yb4 in prose".into(), "k3VZp9QmX2rT7wLs8Yb4", " in prose"),
        ("clone http://k3VZp9QmX2rT7wLs8Yb4nM5q@git.example/r.git".into(), "k3VZp9QmX2rT7wLs8Yb4nM5q", "@git.example/r.git"),
        ("<p>-----BEGIN RSA PRIVATE KEY----- MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7 aFDrBz9vFqU4yMU8W8C7 -----END RSA PRIVATE KEY-----</p>".into(), "MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn", "-----END RSA PRIVATE KEY-----</p>"),
        ("-----BEGIN PRIVATE KEY-----<br>MIIEvQIBADANBgkqhkiG9w0BAQEFAASC<br/>BKcwggSjAgEAAoIBAQC7<br>-----END PRIVATE KEY-----".into(), "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", "-----END PRIVATE KEY-----"),
        ("<title>-----BEGIN EC PRIVATE KEY----- MHcCAQEEIIrYSSNQFaA2Hwf1duRSxKtLYX5CB04fSeQ6tF1aY".into(), "MHcCAQEEIIrYSSNQFaA2Hwf1duRSxKtLYX5CB04f", "<title>-----BEGIN EC PRIVATE KEY-----"),
        (format!("a soft-hyphenated {}", ghp.replacen('_', "_\u{AD}", 1)), "ghp_", "a soft-hyphenated "),
        ("<pre>{&quot;api_token&quot;: &quot;Zz9Yy8Xx7Ww6&quot;}</pre>".into(), "Zz9Yy8Xx7Ww6", "<pre>{&quot;api_token&quot;: &quot;"),
    ];
    for (input, secret, keep) in &cases {
        let out = r.redact_text(input);
        assert!(!reader_view(&out).contains(secret), "{input:?} -> {out:?}");
        assert!(out.contains(keep), "{keep:?} lost: {input:?} -> {out:?}");
        assert_eq!(r.redact_text(&out), out, "not idempotent on {input:?}");
    }
    // A requested URL that does not parse: the password goes before the echo.
    for url in [
        "https://admin:pa#ss/w?rd@db.example.com/x",
        "https://admin:pa?ss#w0rd@db.example.com:5432/x?y=1",
        "ftp://me:se/cr?et@files.example/",
    ] {
        assert!(url::Url::parse(url)
            .map(|u| u.host_str() != Some("db.example.com"))
            .unwrap_or(true));
        let out = r.redact_url(url);
        assert!(
            !out.contains("pa#ss") && !out.contains("ss#w0rd") && !out.contains("se/cr"),
            "{url} -> {out}"
        );
        assert!(out.contains("://admin:") || out.contains("://me:"), "{out}");
        assert_eq!(r.redact_url(&out), out);
    }
    // A token cut by the body cap.
    let cut = format!("page text ... export TOKEN={}", &ghp[..8]);
    let out = r.redact_truncated_tail(&cut);
    assert_eq!(out, "page text ... export TOKEN=[REDACTED]");
    assert_eq!(
        r.redact_truncated_tail("docs mention ghp_k3VZ"),
        "docs mention [REDACTED]"
    );
    assert_eq!(
        r.redact_truncated_tail("key dop_v1_0a1b2c"),
        "key [REDACTED]"
    );
    assert_eq!(
        r.redact_truncated_tail("Authorization: Bearer k3V"),
        "Authorization: Bearer [REDACTED]"
    );
    let mut lit = Redactor::new();
    lit.add_secret("team_prod_key_9f8e7d6c5b4a");
    assert_eq!(
        lit.redact_truncated_tail("echo team_prod_k"),
        "echo [REDACTED]"
    );
    for benign in [
        "ordinary prose that ends here",
        "see the docs at https://example.com/a",
        "sk-",
        "ghp_",
        "count: 42",
        "",
    ] {
        assert_eq!(r.redact_truncated_tail(benign), benign);
    }
}

#[test]
fn operator_rules_apply_everywhere() {
    let mut r = Redactor::new();
    let rules = parse_gitleaks_rules(
        "[[rules]]\nid = \"acme\"\nregex = '(?i)acme_([a-z0-9]{24})'\nsecretGroup = 1\nkeywords = [\"acme\"]\n",
    )
    .unwrap_or_default();
    assert_eq!(rules.len(), 1);
    r.add_rules(rules);
    let out = r.redact_text("key acme_k3vzp9qmx2rt7wls8yb4nm5q end");
    assert_eq!(out, "key acme_[REDACTED] end");
    assert_eq!(r.redact_text(&out), out);
    let out = r.redact_text("key acme\\_k3vzp9qmx2rt7wls8yb4nm5q end");
    assert!(
        !reader_view(&out).contains("k3vzp9qmx2rt7wls8yb4nm5q"),
        "{out}"
    );
    let out = r.redact_url("https://x.example/acme_k3vzp9qmx2rt7wls8yb4nm5q/a");
    assert_eq!(out, "https://x.example/acme_REDACTED/a");
    assert!(format!("{r:?}").contains("extra_rules: 1"));
}

#[test]
fn lone_userinfo_token_is_registered_from_the_requested_url() {
    let r = Redactor::new().with_url_secrets("https://k3VZp9QmX2rT7wLs8Yb4nM5q@git.example/r");
    assert_eq!(
        r.redact_text("echo: user k3VZp9QmX2rT7wLs8Yb4nM5q denied"),
        "echo: user [REDACTED] denied"
    );
    let plain = Redactor::new().with_url_secrets("https://john@example.com/");
    assert_eq!(plain.redact_text("hello john"), "hello john");
}

#[test]
fn only_secret_like_values_of_the_requested_url_are_scrubbed_from_text() {
    // Regression (issue 23): `?code=python` replaced every "python" of the page.
    let page = "Learn python 3 today; python2 is gone. Docs 2026-11-02, page 12345678.";
    for url in [
        "https://docs.example/search?code=python",
        "https://docs.example/search?code=python2&state=documentation",
        "https://docs.example/?session=12345678&token=YOUR_TOKEN_HERE",
        "https://user:password@docs.example/?key=javascript#access_token=python",
    ] {
        let r = Redactor::new().with_url_secrets(url);
        assert_eq!(r.redact_text(page), page, "{url}");
        // The values are still hidden where they stand in the URL.
        assert!(!r.redact_url(url).contains("python"), "{url}");
    }
    // A value that looks like a secret is scrubbed wherever it is echoed.
    for url in [
        "https://api.example/v1?code=4/0AX4XfWjk3VZp9QmX2rT",
        "https://api.example/v1?api_key=hunter2hunter2",
        "https://bob:S3cr3t-Passw0rd@api.example/",
    ] {
        let r = Redactor::new().with_url_secrets(url);
        let secret = [
            "4/0AX4XfWjk3VZp9QmX2rT",
            "hunter2hunter2",
            "S3cr3t-Passw0rd",
        ]
        .into_iter()
        .find(|s| url.contains(s))
        .unwrap_or_default();
        let out = r.redact_text(&format!("the server said {secret} back"));
        assert_eq!(out, "the server said [REDACTED] back", "{url}");
    }
}

/// Issue 11: in raw HTML a token split by inline tags (`ghp_abc<b>def</b>ghi`) reads
/// as one word in a browser; the text around the tags is replaced, the tags kept.
#[test]
fn tokens_split_by_inline_tags_are_redacted() {
    let r = Redactor::new();
    let ghp = format!("ghp_{}", alnum(36, 301));
    let (a, rest) = ghp.split_at(12);
    let (b, c) = rest.split_at(14);
    for tag in escapes::INLINE_TAGS {
        for (open, close) in [
            (format!("<{tag}>"), format!("</{tag}>")),
            (
                format!("<{} class=\"k\" title='a>b'>", tag.to_uppercase()),
                format!("</{}>", tag.to_uppercase()),
            ),
        ] {
            let input = format!("<p>key {a}{open}{b}{close}{c} end</p>");
            let out = r.redact_text(&input);
            let seen = reader_view(&out);
            assert!(
                !seen.contains(b) && !out.contains(a),
                "{input:?} -> {out:?}"
            );
            assert!(out.contains(&open) && out.contains(&close), "{out:?}");
            assert!(out.starts_with("<p>key [REDACTED]") && out.ends_with(" end</p>"));
            assert_eq!(r.redact_text(&out), out, "idempotent");
        }
    }
    // Two tag kinds in a row, and a `<wbr>` that only breaks the line.
    let input = format!("x {a}<b>{b}</b><em>{c}</em> y");
    assert_eq!(
        r.redact_text(&input),
        "x [REDACTED]<b>[REDACTED]</b><em>[REDACTED]</em> y"
    );
    let input = format!("x {a}<wbr>{b}<WBR/>{c}");
    assert_eq!(
        r.redact_text(&input),
        "x [REDACTED]<wbr>[REDACTED]<WBR/>[REDACTED]"
    );
    let input = format!("x {a}<!-- note -->{b}{c} y");
    assert_eq!(
        r.redact_text(&input),
        "x [REDACTED]<!-- note -->[REDACTED] y"
    );
    // A registered literal split the same way.
    let mut lit = Redactor::new();
    lit.add_secret("team_prod_key_9f8e7d6c5b4a");
    let out = lit.redact_text("v=team_prod<span>_key_9f8e</span>7d6c5b4a;");
    assert!(!reader_view(&out).contains("9f8e"), "{out}");
    // Inside a JSON string, attribute quotes are escaped and the document stays valid.
    let json = format!("{{\"html\":\"{a}<span class=\\\"k\\\">{b}</span>{c}\"}}");
    let out = r.redact_text(&json);
    assert!(
        serde_json::from_str::<serde_json::Value>(&out).is_ok(),
        "{out}"
    );
    assert!(!reader_view(&out).contains(b), "{out}");
    // A "tag" that straddles two JSON strings is never swallowed with its quotes.
    let json = format!("{{\"{a}<a b=\":\">{b}{c}\"}}");
    let out = r.redact_text(&json);
    assert!(
        serde_json::from_str::<serde_json::Value>(&out).is_ok(),
        "{out}"
    );
}

/// Issue 24 (item 5): a compound parameter name percent-encoded inside another URL
/// (`%3Fapi_key%3D…`) was read from one character too late (`pi_key`): a name that
/// starts with a hex letter right after `%3F` looked like part of the escape.
#[test]
fn encoded_compound_parameter_names_are_read_whole() {
    let r = Redactor::new();
    for name in [
        "api_key",
        "client_secret",
        "access_token",
        "auth_token",
        "db_password",
        "x-api-key",
        "token",
    ] {
        let url = format!(
            "GET https://r.example/?u=https%3A%2F%2Fh.example%2Fp%3F{name}%3DS3cr3tValue9xyz%26x%3D1"
        );
        let out = r.redact_text(&url);
        assert!(!out.contains("S3cr3tValue9xyz"), "{out}");
        assert!(
            out.contains(&format!("{name}%3D[REDACTED]%26x%3D1")),
            "{out}"
        );
        let out = r.redact_url(&url[4..]);
        assert!(!out.contains("S3cr3tValue9xyz"), "{out}");
    }
    // Not a sensitive name: kept.
    let benign = "https://r.example/?u=https%3A%2F%2Fh%2Fp%3Fcategory%3Dbooks";
    assert_eq!(r.redact_text(benign), benign);
}

/// Issue 24 (item 11): secrets a text names in prose, on a curl command line, or in a
/// Telegram Bot API URL were readable.
#[test]
fn held_out_secrets_are_caught() {
    let r = Redactor::new();
    let tg = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1";
    let cases: &[(&str, &str)] = &[
        ("the password is hunter2.", "the password is [REDACTED]."),
        ("The admin Password was: Xk9#mP2$vL", "The admin Password was: [REDACTED]"),
        (
            "our API key is 'Sx9dK2mQ7vL4pR8t', keep it",
            "our API key is '[REDACTED]', keep it",
        ),
        (
            "access key AKIAIOSFODNN7EXAMPLF and secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY here",
            "access key [REDACTED] and secret [REDACTED] here",
        ),
        (
            "the session token k3VZ9mXq2LwP8nRt5YbH7jDf works",
            "the session token [REDACTED] works",
        ),
        (
            "curl -u ACCOUNT:Tk9x2LmQ8vR4pZ7w https://api.example.com/",
            "curl -u ACCOUNT:[REDACTED] https://api.example.com/",
        ),
        (
            "curl --user=admin:Zq8Xw7Vu6Ts5 -X POST https://x.example/",
            "curl --user=admin:[REDACTED] -X POST https://x.example/",
        ),
        (
            "$ curl -s \\\n    -u \"acct:tok3nV4lue99\" https://x.example/",
            "$ curl -s \\\n    -u \"acct:[REDACTED]\" https://x.example/",
        ),
        ("curl -uacct:tok3nV4lue99 x", "curl -uacct:[REDACTED] x"),
    ];
    for (input, want) in cases {
        assert_eq!(&r.redact_text(input), want, "{input}");
        assert_eq!(r.redact_text(want), *want, "idempotent: {want}");
    }
    let url = format!("https://api.telegram.org/bot{tg}/sendMessage?chat_id=42");
    let out = r.redact_text(&format!("<a href=\"{url}\">send</a> {url}"));
    assert!(
        !out.contains("AAHdqTcv") && !out.contains("123456789"),
        "{out}"
    );
    assert_eq!(
        r.redact_url(&url),
        "https://api.telegram.org/botREDACTED/sendMessage?chat_id=42"
    );
}

/// ... and the prose, command lines and URLs that only look like them stay.
#[test]
fn held_out_lookalikes_stay() {
    let r = Redactor::new();
    for s in [
        "the password is required",
        "The token is valid for one hour.",
        "the secret is base64-encoded",
        "The key is stored in Vault.",
        "The key is 42.",
        "The secret is out.",
        "the token is OAuth2.",
        "the password is at least 12 characters long",
        "The password is case-sensitive.",
        "the password is hashed with SHA256",
        "token 3f2a9c1d4e5b6a7f8e9d0c1b2a3f4e5d6c7b8a9f",
        "secret 550e8400-e29b-41d4-a716-446655440000",
        "the token RefreshTokenV2Handler is a class",
        "The next page token is CAESBggBEAIYAQ",
        "Use the token field, a secret santa gift, Token Ring networks.",
        "primary key abc123def456ghi789 in the table",
        "git push -u origin main && ps -u root",
        "curl -u user:password https://x.example/",
        "curl -u \"$USER:$TOKEN\" https://x.example/",
        "curl -u guest:guest http://localhost:15672/api/",
        "curl -u admin:changeme https://x.example/",
        "curl --user <user>:<password> https://x.example/",
        "curly -u a:hunter2zz",
        "https://t.me/bot12:AA",
    ] {
        assert_eq!(r.redact_text(s), s, "{s}");
    }
}

/// The content window a tool result carries is kept as the lookup made it; every other
/// string is redacted as before.
#[test]
fn json_keeping_leaves_only_the_window() {
    let r = Redactor::new();
    let ghp = format!("ghp_{}", alnum(36, 601));
    let window = "sk_live_51Hq8Wv2Lm4Xz7Pb3Nc6Rd9Tf".to_string();
    let mut v = serde_json::json!({
        "content": [{"json": {"url": format!("https://x/?token={ghp}")}}, {"text": window}],
        "password": "hunter2hunter2",
        "other": window.clone() + " ",
    });
    r.redact_json_value_keeping(&mut v, Some(&window));
    assert_eq!(v["content"][1]["text"], window.as_str());
    assert!(!v.to_string().contains(&ghp[4..]), "{v}");
    assert_eq!(v["password"], "[REDACTED]");
    assert_eq!(v["other"], "[REDACTED] ");
}
