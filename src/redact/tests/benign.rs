//! Text and URLs with nothing to hide come out byte for byte; exact URL outputs; markers;
//! literal secrets in every encoding.

use super::*;

const BENIGN_TEXT: &[&str] = &[
    "Authentication: required.",
    "Set the token field to your API key",
    "See the password reset instructions.",
    "Follow the password reset instructions in the email.",
    "commit 3f786850e387550fdab836ed7e6dc881de23001b",
    "Merge pull request #42 from owner/branch (a94a8fe5ccb19ba61c4c0873d391e987982fbbd3)",
    "https://github.com/rust-lang/rust/commit/3f786850e387550fdab836ed7e6dc881de23001b",
    "id 550e8400-e29b-41d4-a716-446655440000 created",
    "sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "SHA256 (vetch-0.1.0.tar.gz) = e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "integrity=\"sha384-oqVuAfXRKap7fdgcCY5uykM6+R9GqQ8K/uxy9rx7HNQlGYl1kPzQho1wx4JwY8wC\"",
    "color: #ff5733; background: #fff; border-color: #A1B2C3;",
    ".token.keyword { color: #07a; } .token.string{color:#690}",
    "<img src=\"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==\" alt=\"dot\">",
    "version 1.2.3-beta.4+build.567, released v2.0.0-rc.1",
    "https://example.com/list?page=2&sort=desc&session_length=30",
    "?page=2&sort=desc&session_length=30",
    "api_key=YOUR_API_KEY",
    "curl https://api.example.com/v1/data?api_key=YOUR_API_KEY",
    "export OPENAI_API_KEY=\"YOUR_API_KEY\"",
    "Authorization: Bearer <token>",
    "Authorization: Bearer $TOKEN",
    "curl -H \"Authorization: Bearer ${GITHUB_TOKEN}\" https://api.github.com",
    "-H \"Authorization: Bearer YOUR_TOKEN\"",
    "password: ********",
    "token = xxx",
    "api_key: \"\"",
    "The bearer of this letter is a friend.",
    "Basic authentication is supported.",
    "basic usage and advanced topics",
    "Use Bearer tokens for the API.",
    "Token: required",
    "Password: must be at least 8 characters",
    "token_type: bearer",
    "max_tokens: 4096",
    "password_reset=true",
    "tokenizer=fast",
    "session_length=30",
    "The secret to good bread is patience.",
    "key: value",
    "{\"key\": \"user-name\", \"value\": 3}",
    "sk-learn-tutorial-for-beginners-2024",
    "https://example.com/blog/sk-learn-tutorial-for-beginners-2024",
    "task-1234567890abcdefghijKLMN",
    "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUX\n-----END CERTIFICATE-----",
    "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl user@host",
    "https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42s",
    "https://example.com/search?q=rust+async&lang=en&country_code=US",
    "mailto:someone@example.com?subject=Hello",
    "git@github.com:owner/repo.git",
    "http://localhost:8080/path and ftp://ftp.example.com/pub/file.txt",
    "Price: $1,234.56 on 2024-05-01T12:34:56Z",
    "x = a && b || c; if (token == null) return;",
    "const token = getToken();",
    "token = os.environ[\"TOKEN\"]",
    "api_key = process.env.API_KEY",
    "password = None",
    "secret: true",
    "docker pull vault:1.13.0",
    "Cookie: chocolate chip",
    "The Set-Cookie header is explained below.",
    "See RFC 6750 (Bearer Token Usage).",
    "ghp_ tokens start with ghp_ and gho_ ones with gho_.",
    "Error: invalid credentials: check the config",
    "Session: 2024 Spring",
    "code: 404, state: open",
    "#section-2 &nbsp;&amp;&lt;",
    "<code>let x = 1;</code>",
    "passwd: files systemd",
    "hash=5d41402abc4b2a76b9719d911017c592",
    "eyJhbGciOiJIUzI1NiJ9 is just a base64 header",
    "<span class=\"token keyword\">fn</span>",
    "{ key: 'id', state: 'open', code: 200 }",
    "Your API key: find it in the dashboard",
    "Keys: primary, secondary",
    "The auth flow: redirect, consent, callback.",
    "secretName: my-app-secret",
    "mysecret:v1.2.3",
    "Use the `--token` flag or the TOKEN environment variable.",
    "bypass=enabled1 compass=north2",
    "PWD=/home/user/project",
    "a.b.c.d = 10.0.0.1",
    "Über-long prose with ünïcödé: password reset für alle — token…",
    "日本語のテキスト token: 確認",
    "https://example.com/?next_page_token=abc123&pageToken=CAUQAA",
    "See https://example.com/a?b=c. Then continue.",
];

#[test]
fn benign_text_unchanged() {
    let r = Redactor::new();
    assert!(
        BENIGN_TEXT.len() >= 60,
        "only {} benign cases",
        BENIGN_TEXT.len()
    );
    for input in BENIGN_TEXT {
        assert_eq!(&r.redact_text(input), input);
    }
}

const BENIGN_URLS: &[&str] = &[
    "https://example.com/list?page=2&sort=desc&session_length=30",
    "https://github.com/o/r/commit/3f786850e387550fdab836ed7e6dc881de23001b",
    "https://example.com/items/550e8400-e29b-41d4-a716-446655440000?view=full",
    "https://example.com/?api_key=YOUR_API_KEY",
    "https://example.com/?token=",
    "https://example.com/?token={token}&key=<key>",
    "https://example.com/#section-2",
    "https://user@example.com/",
    "https://example.com:8443/a/b?c=d#e",
    "https://example.com/search?q=password+reset",
    "https://example.com/?keyword=rust&encoding=utf-8&barcode=3&statement=x",
    "http://[::1]:8080/x",
    "https://example.com/path%20with%20spaces?x=%E2%9C%93",
    "https://example.com/?next_page_token=abc123&pageToken=CAUQAA",
    "HTTPS://EXAMPLE.COM/A?B=C",
    "https://example.com/a/../b/./c",
    "https://example.com",
    "https://example.com/?utm_source=newsletter&utm_medium=email",
    "https://sk-learn.example.com/sk-learn-tutorial-for-beginners-2024",
    "https://example.com/?q=Authentication%3A+required.",
    "mailto:someone@example.com?subject=Hello",
    "https://example.com/?session_length=30&tokens=5&passwords_reset=1",
    "https://example.com/?color=%23ff5733",
    "file:///etc/hosts",
    "https://example.com/?code=",
];

#[test]
fn benign_urls_unchanged() {
    let r = Redactor::new();
    for input in BENIGN_URLS {
        assert_eq!(&r.redact_url(input), input);
        assert_eq!(&r.redact_text(input), input);
    }
}

#[test]
fn url_exact_outputs() {
    let r = Redactor::new();
    let cases = [
        (
            "https://example.com/?token=abc",
            "https://example.com/?token=REDACTED",
        ),
        (
            "https://user:pass@example.com/",
            "https://user:REDACTED@example.com/",
        ),
        (
            "https://example.com/cb#access_token=x1&state=y&token_type=bearer",
            "https://example.com/cb#access_token=REDACTED&state=REDACTED&token_type=bearer",
        ),
        (
            "https://example.com/?API_KEY=abc&x=1",
            "https://example.com/?API_KEY=REDACTED&x=1",
        ),
        (
            "https://example.com/?api%5Fkey=abc",
            "https://example.com/?api%5Fkey=REDACTED",
        ),
        (
            "https://example.com/a?code=c&state=s#frag",
            "https://example.com/a?code=REDACTED&state=REDACTED#frag",
        ),
        (
            "https://example.com/#/cb?code=abc&other=1",
            "https://example.com/#/cb?code=REDACTED&other=1",
        ),
        (
            "https://example.com/?key=a%20b)c",
            "https://example.com/?key=REDACTED",
        ),
        (
            "https://EXAMPLE.com/?Sig=1",
            "https://EXAMPLE.com/?Sig=REDACTED",
        ),
    ];
    for (input, want) in cases {
        assert_eq!(r.redact_url(input), want);
        assert!(url::Url::parse(want).is_ok());
    }
    // Not a URL: redacted as text.
    assert_eq!(
        r.redact_url("not a url password=hunter22"),
        "not a url password=[REDACTED]"
    );
    // A token in the path.
    let t = format!("ghp_{}", alnum(36, 99));
    assert_eq!(
        r.redact_url(&format!("https://example.com/{t}/x")),
        "https://example.com/REDACTED/x"
    );
}

#[test]
fn markers_and_kept_prefixes() {
    let r = Redactor::new();
    assert_eq!(
        r.redact_text("Authorization: Bearer abc123def456"),
        "Authorization: Bearer [REDACTED]"
    );
    assert_eq!(r.redact_text("password=hunter22"), "password=[REDACTED]");
    assert_eq!(
        r.redact_text("see https://u:p4ss@h.example/x?token=t&page=2"),
        "see https://u:[REDACTED]@h.example/x?token=[REDACTED]&page=2"
    );
    assert_eq!(
        r.redact_text("-----BEGIN PRIVATE KEY-----\nAAAA\nBBBB\n-----END PRIVATE KEY-----"),
        "-----BEGIN PRIVATE KEY-----\n[REDACTED]\n-----END PRIVATE KEY-----"
    );
    assert!(url::Url::parse(&r.redact_text("https://u:p4ss@h.example/?token=t")).is_ok());
}

const LITERAL: &str = "s3cr3t \"VALUE\"/with+chars&more\\end<é>";

#[test]
fn literal_secrets_in_every_encoding() {
    let mut r = Redactor::new();
    r.add_secret(LITERAL);
    let forms = encodings(LITERAL);
    assert!(forms.len() >= 6);
    let json = serde_json::to_string(LITERAL).unwrap_or_default();
    let json_inner = &json[1..json.len() - 1];
    let pct_strict: String = LITERAL
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    let samples = [
        LITERAL.to_string(),
        pct_strict.clone(),
        LITERAL
            .bytes()
            .map(|b| {
                if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                    (b as char).to_string()
                } else {
                    format!("%{b:02x}")
                }
            })
            .collect::<String>(),
        json_inner.to_string(),
        json_inner.replace('/', "\\/"),
        "s3cr3t &quot;VALUE&quot;/with+chars&amp;more\\end&lt;é&gt;".to_string(),
    ];
    for (i, form) in samples.iter().enumerate() {
        for (pre, post) in [("", ""), ("x", "y"), ("before ", " after"), ("\"", "\"")] {
            let text = format!("{pre}{form}{post}");
            let out = r.redact_text(&text);
            assert!(!out.contains(form.as_str()), "form {i} survived: {out:?}");
            assert_eq!(out, format!("{pre}{TEXT_MARKER}{post}"), "form {i}");
        }
    }
    // In a URL, as a query value and as a password.
    let url = format!("https://example.com/?q={pct_strict}&x=1");
    assert_eq!(r.redact_url(&url), "https://example.com/?q=REDACTED&x=1");
    let mut r2 = Redactor::new();
    r2.add_secret("hunter2hunter2");
    assert_eq!(
        r2.redact_url("https://me:hunter2hunter2@example.com/"),
        "https://me:REDACTED@example.com/"
    );
    assert_eq!(
        r2.redact_text("echo: path=/a/hunter2hunter2/b"),
        "echo: path=/a/[REDACTED]/b"
    );
    // In serialized JSON, where the value appears escaped.
    let doc = serde_json::json!({ "content": format!("got {LITERAL} back"), "n": 1 });
    let s = serde_json::to_string(&doc).unwrap_or_default();
    let out = r.redact_json_text(&s);
    assert!(!out.contains(json_inner));
    assert_eq!(out, r#"{"content":"got [REDACTED] back","n":1}"#);
}
