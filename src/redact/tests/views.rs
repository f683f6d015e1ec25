//! The reader's view: PEM keys broken by `<br>`, unseen characters, escapes, percent
//! encoding.

use super::*;

/// The seven kinds of private key header a page may carry.
const PEM_KINDS: &[&str] = &[
    "RSA PRIVATE KEY",
    "EC PRIVATE KEY",
    "DSA PRIVATE KEY",
    "OPENSSH PRIVATE KEY",
    "PRIVATE KEY",
    "ENCRYPTED PRIVATE KEY",
    "PGP PRIVATE KEY BLOCK",
];

/// Issue 24 (item 3): a private key whose lines are separated by `<br>` (how forums and
/// `nl2br` show a pasted key) came out whole in the Markdown output (`line  \n`) and in
/// `raw` (`<br />\n`). Every line break a reader sees separates its lines.
#[test]
fn pem_keys_with_lines_broken_by_br_or_markdown_are_redacted() {
    let r = Redactor::new();
    let lines: Vec<String> = (0..4).map(|i| alnum(64, 500 + i)).collect();
    for (k, kind) in PEM_KINDS.iter().enumerate() {
        for sep in [
            "<br>",
            "<br />\n",
            "<br/>\n",
            "<BR>\r\n",
            "<br clear=\"all\">",
            "  \n",
            "\\\n",
            "\n",
            "\\n",
            " <br>\n ",
        ] {
            let mut body = lines.clone();
            body[3].truncate(20 + k);
            body[3].push_str("==");
            let key = format!(
                "-----BEGIN {kind}-----{sep}{}{sep}-----END {kind}-----",
                body.join(sep)
            );
            let out = r.redact_text(&format!("Key:\n{key}\nDone."));
            for line in &lines {
                assert!(!out.contains(&line[..16]), "{kind} {sep:?}: {out}");
            }
            assert!(
                out.contains(&format!("-----BEGIN {kind}-----"))
                    && out.contains(&format!("-----END {kind}-----"))
                    && out.contains(TEXT_MARKER)
                    && out.ends_with("\nDone."),
                "{kind} {sep:?}: {out}"
            );
            assert_eq!(r.redact_text(&out), out, "idempotent: {kind} {sep:?}");
        }
    }
    // Cut before its END line, the `<br>` lines still go.
    let cut = format!(
        "-----BEGIN RSA PRIVATE KEY-----<br />\n{}<br />\n{}",
        lines[0], lines[1]
    );
    let out = r.redact_truncated_tail(&cut);
    assert!(!out.contains(&lines[1][..16]), "{out}");
    // Prose with breaks near a header that is not a key stays.
    let prose = "-----BEGIN PUBLIC KEY-----<br>MIIBIjANBgkq<br>-----END PUBLIC KEY-----";
    assert_eq!(r.redact_text(prose), prose);
}

/// Issue 24 (items 1, 2): a token split by a character or markup no reader sees was
/// redacted up to the split, or not at all, and the rest stayed readable. The view is
/// matched first, so the token goes whole, the split with it.
#[test]
fn tokens_split_by_unseen_characters_are_replaced_whole() {
    let r = Redactor::new();
    let out =
        r.redact_text("key xoxb-291333514093-&shy;6848001484442-WzBZAIggbO1OTXg2YUTs1dNm end");
    assert_eq!(out, "key [REDACTED] end");
    let tokens = [
        "xoxb-291333514093-6848001484442-WzBZAIggbO1OTXg2YUTs1dNm".to_string(),
        format!("sk-proj-{}", alnum(48, 411)),
        format!("sk-ant-api03-{}AA", alnum(80, 412)),
        format!("ghp_{}", alnum(36, 413)),
        format!("AKIA{}", alnum(16, 414).to_ascii_uppercase()),
    ];
    let splits = [
        "\u{AD}",
        "&shy;",
        "&#173;",
        "\u{200B}",
        "&#8203;",
        "&#x200B;",
        "\u{200C}",
        "\u{200D}",
        "\u{200E}",
        "\u{200F}",
        "\u{61C}",
        "\u{2060}",
        "\u{2061}",
        "\u{2062}",
        "\u{2063}",
        "\u{2064}",
        "\u{FEFF}",
        "\u{34F}",
        "\u{FE00}",
        "\u{FE0F}",
        "\u{E0100}",
        "\u{E0001}",
        "\u{E0041}",
        "&#xE0041;",
        "\u{202A}",
        "\u{202E}",
        "\u{2066}",
        "\u{2069}",
        "\u{3164}",
        "\u{115F}",
        "\u{FFA0}",
        "\u{180E}",
        "\u{7}",
        "\u{1b}[0m",
        "<!-- x -->",
        "<wbr>",
        "<x-k></x-k>",
        "<foo>",
    ];
    for token in &tokens {
        // Early (before any family's minimum length) and late (after it).
        for at in [6, token.len() - 5] {
            let (a, b) = token.split_at(at);
            for split in splits {
                let input = format!("key {a}{split}{b} end");
                let out = r.redact_text(&input);
                assert!(
                    out.starts_with("key [REDACTED]") && out.ends_with(" end"),
                    "{input:?} -> {out:?}"
                );
                assert!(!out.contains(b) && !out.contains(a), "{input:?} -> {out:?}");
                assert_eq!(r.redact_text(&out), out, "idempotent: {input:?}");
            }
        }
    }
    // A configured secret and a URL parameter, split the same way.
    let mut lit = Redactor::new();
    lit.add_secret("team_prod_key_9f8e7d6c5b4a");
    for split in splits {
        let out = lit.redact_text(&format!("v team_prod_key{split}_9f8e7d6c5b4a ok"));
        // Around markup the text is replaced piece by piece, the tags kept.
        assert!(
            out.starts_with("v [REDACTED]")
                && out.ends_with("[REDACTED] ok")
                && !out.contains("team_prod")
                && !out.contains("9f8e"),
            "{split:?}: {out}"
        );
    }
    let out = r.redact_url("https://x.example/?api_key=AbC9dEf8\u{200B}GhI7&page=2");
    assert_eq!(out, "https://x.example/?api_key=REDACTED&page=2");
}

/// What the view drops is only matched across: a long token that is not a secret comes
/// back byte for byte, its invisible characters and markup included (DESIGN 12).
#[test]
fn unseen_characters_in_benign_text_are_kept() {
    let r = Redactor::new();
    for s in [
        "commit 3f2a9c1d4e5b\u{AD}6a7f8e9d0c1b2a3f4e5d6c7b8a9f and more",
        "id 550e8400-e29b-41d4\u{200B}-a716-446655440000",
        "super\u{AD}cali\u{AD}fragilistic\u{200B}expiali\u{200D}docious",
        "emoji 👩\u{200D}💻 and ❤\u{FE0F} and \u{200F}rtl mark",
        "a&shy;b <x-k>custom</x-k> <foo>unknown</foo> word<wbr>break",
        "100%25 and %41%42%43 and path%2Fsegment",
    ] {
        assert_eq!(r.redact_text(s), s, "{s:?}");
    }
}

/// Issue 24 (item 12): `ghp%5F…` (a percent-encoded `_`) in a link or in text was not
/// redacted. A percent-encoded unreserved character reads as the character (RFC 3986).
#[test]
fn percent_encoded_unreserved_characters_are_read_decoded() {
    let r = Redactor::new();
    let body = alnum(36, 415);
    let out = r.redact_text(&format!("see ghp%5F{body} now"));
    assert_eq!(out, "see [REDACTED] now");
    let out = r.redact_text(&format!("see gh%70%5f{body}"));
    assert_eq!(out, "see [REDACTED]");
    let url = format!("https://x.example/k/ghp%5F{body}?page=2");
    let out = r.redact_url(&url);
    assert_eq!(out, "https://x.example/k/REDACTED?page=2");
    let out = r.redact_text(&format!("<a href=\"https://x.example/ghp%5F{body}\">x</a>"));
    assert!(!out.contains(&body), "{out}");
    let key = format!("sk%2Dproj%2D{}", alnum(40, 416));
    assert_eq!(r.redact_text(&format!("k {key} .")), "k [REDACTED] .");
}

#[test]
fn benign_markup_is_byte_identical() {
    let r = Redactor::new();
    for s in [
        "<p>Use <code>git</code> and <b>bold</b> text</p>",
        "if a<b && c>d",
        "two words abc<b>def</b> that are not a secret",
        "one</p><p>two",
        "<span class=\"token keyword\">const</span> client = new Client();",
        "see <a href=\"https://example.com/docs?page=2&amp;sort=desc\">the docs</a>.",
        "Markdown keeps \\<b\\> escaped: ghp\\_short<b>x</b>",
    ] {
        assert_eq!(r.redact_text(s), s);
    }
}

/// Issue 11: the Markdown converter escaped `_` and the redactor no longer saw tokens.
#[test]
fn escaped_secrets_are_redacted_as_read() {
    let mut r = Redactor::new();
    r.add_secret("tok_with_under_scores_77");
    r.add_secret("team_prod_key_9f8e7d6c5b4a");
    let ghp = format!("ghp_{}", alnum(36, 201));
    let sk = format!("sk_live_51{}", alnum(30, 202));
    let cases: Vec<(String, Vec<String>, &str)> = vec![
        (ghp.replace('_', "\\_"), vec![ghp.clone()], ""),
        (
            format!("use `{}` now", ghp.replace('_', "\\_")),
            vec![ghp.clone()],
            "use `",
        ),
        (sk.replace('_', "\\_"), vec![sk.clone()], ""),
        (
            "Bearer tok\\_with\\_under\\_scores\\_77".into(),
            vec!["tok_with_under_scores_77".into()],
            "Bearer ",
        ),
        (
            "?api\\_key=abc\\_def\\_ghi\\_123 and more".into(),
            vec!["abc_def_ghi_123".into()],
            " and more",
        ),
        (
            "api\\_key=abc\\_def\\_ghi\\_123".into(),
            vec!["abc_def_ghi_123".into()],
            "",
        ),
        (
            "x-api-key: team\\_prod\\_key\\_9f8e7d6c5b4a\n".into(),
            vec!["team_prod_key_9f8e7d6c5b4a".into()],
            "x-api-key: ",
        ),
        (
            "https://api.example.com/v1?page=1&amp;api&#95;key=AbC9xYz123 ok".into(),
            vec!["AbC9xYz123".into()],
            " ok",
        ),
        (
            "api&lowbar;key = \"Zz9Yy8Xx7Ww6\"".into(),
            vec!["Zz9Yy8Xx7Ww6".into()],
            "",
        ),
        (
            format!("token {}", ghp.replace('_', "&#x5f;")),
            vec![ghp.clone()],
            "token ",
        ),
        (
            r#"{"api\u005fkey": "s3cr3tValue99", "n": 1}"#.into(),
            vec!["s3cr3tValue99".into()],
            r#", "n": 1}"#,
        ),
        (ghp.replacen('_', "\\u005f", 1), vec![ghp.clone()], ""),
        (
            format!(
                "a {} b",
                ghp.replacen("p_", "p\u{AD}_", 1)
                    .replacen("_", "_\u{200B}", 1)
            ),
            vec![ghp.clone()],
            "a ",
        ),
        (
            "x tok_with\u{200D}_under\u{2060}_scores_77\u{FEFF} y".into(),
            vec!["tok_with_under_scores_77".into()],
            "x ",
        ),
        (
            format!(
                "[key]({}) \\* \\[x\\] \\| \\`c\\` \\<b",
                ghp.replace('_', "\\_")
            ),
            vec![ghp.clone()],
            "\\* \\[x\\] \\| \\`c\\` \\<b",
        ),
    ];
    for (input, secrets, keep) in &cases {
        let out = r.redact_text(input);
        let seen = reader_view(&out);
        for s in secrets {
            assert!(
                !seen.contains(s.as_str()),
                "{s:?} readable in {out:?} (from {input:?})"
            );
        }
        assert!(
            out.contains(keep),
            "context {keep:?} lost: {input:?} -> {out:?}"
        );
        assert!(out.contains(TEXT_MARKER), "{out:?}");
        assert_eq!(r.redact_text(&out), out, "not idempotent on {input:?}");
    }
    // Every CommonMark escape inside a registered secret.
    let mut r = Redactor::new();
    let secret = "p4ss_w*rd[x]|y`z<q\\r#s.t-u+v!w";
    r.add_secret(secret);
    let escaped: String = secret
        .chars()
        .flat_map(|c| {
            if c.is_ascii_punctuation() {
                vec!['\\', c]
            } else {
                vec![c]
            }
        })
        .collect();
    let out = r.redact_text(&format!("value {escaped} end"));
    assert_eq!(out, "value [REDACTED] end");
}

/// Escapes in ordinary text change nothing.
#[test]
fn escaped_benign_text_unchanged() {
    let r = Redactor::new();
    for s in [
        "snake\\_case\\_names and \\*emphasis\\* in \\[brackets\\]",
        "max\\_tokens: 4096 and token\\_type: bearer",
        "1\\. first item \\# not a heading",
        "&lt;your-api-key&gt; &amp; &#95;underscore&#95; &lowbar;",
        "{\"key\": \"user\\u005fname\"}",
        "soft\u{AD}hyphen\u{200B}zero width",
        "api\\_key=YOUR\\_API\\_KEY",
        "C:\\Users\\me\\token\\_file.txt",
    ] {
        assert_eq!(r.redact_text(s), s);
    }
}

#[test]
fn short_and_marker_secrets_are_ignored() {
    let mut r = Redactor::new();
    r.add_secret("abc12");
    r.add_secret("   ");
    r.add_secret("REDACTED");
    assert_eq!(r.redact_text("abc12 REDACTED"), "abc12 REDACTED");
    assert!(format!("{r:?}").contains("secrets: 0"));
}
