//! The token families: every row's sample hidden in every context, the table's rules, the
//! shape regex built from it, and the docs table.

use super::*;

/// Every row starts with a literal (the vendor scan and `family_of` rely on it), and no
/// row's literal starts a later row's: the regex tries rows in order, so a longer, more
/// specific family must come first or its tokens would be taken by the shorter one.
#[test]
fn every_family_has_literal_starts_that_tell_the_rows_apart() {
    assert!(vendor_scan_builds());
    let lits: Vec<Vec<String>> = FAMILIES
        .iter()
        .map(|f| leading_literals(f.pattern).unwrap_or_else(|| panic!("{}", f.pattern)))
        .collect();
    for (i, earlier) in lits.iter().enumerate() {
        for (j, later) in lits.iter().enumerate().skip(i + 1) {
            for e in earlier {
                for l in later {
                    assert!(
                        !l.starts_with(e.as_str()),
                        "{} ({e}) takes the tokens of the later {} ({l}): put the longer first",
                        FAMILIES[i].pattern,
                        FAMILIES[j].pattern
                    );
                }
            }
        }
    }
    let strs = |v: &[&str]| Some(v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    for (pattern, want) in [
        (
            r"do[opr]_v1_[a-f0-9]{64}",
            strs(&["doo_v1_", "dop_v1_", "dor_v1_"]),
        ),
        (r"(?-u:\b)key-[0-9a-f]{32}", strs(&["key-"])),
        (r"\.atlasv1\.[A-Za-z0-9_=-]{60}", strs(&[".atlasv1."])),
        (r"FLWSECK(?:_TEST)?-[a-fA-F0-9]{32}-X", strs(&["FLWSECK"])),
        (r"shp(?:at|ca)_[a-fA-F0-9]{32}", strs(&["shpat_", "shpca_"])),
        (r"sntry[su]_[A-Za-z0-9]", strs(&["sntrys_", "sntryu_"])),
        (r"(?-u:\b)pat[A-Za-z0-9]{14}\.", strs(&["pat"])),
        (r"abc?d", strs(&["ab"])),
        (r"ab{2}", strs(&["a"])),
        (r"ab+c", strs(&["ab"])),
        (r"a[b-d]", strs(&["a"])),
        (r"ab|cd", None),
        (r"(?i-u:secret)", None),
        (r"[a-z]+", None),
        (r"\bword", None),
        (r"(?:|x)y", strs(&["y", "xy"])),
    ] {
        assert_eq!(leading_literals(pattern), want, "{pattern}");
    }
}

/// Wherever the smaller regex would find something else than the full one, the vendor
/// scan says a vendor token may be there (so the full one serves): on every family
/// sample, with prose around it and cut anywhere, and on texts full of the words that
/// hold a weak literal.
#[test]
fn the_vendor_scan_never_hides_a_difference() {
    let full = shape_regex(parts(true));
    let mut texts: Vec<String> = Vec::new();
    for (_, sample) in family_samples() {
        texts.push(format!("see the path {sample} and do it"));
        for cut in (0..sample.len()).step_by(7) {
            if let Some(head) = sample.get(..cut) {
                texts.push(format!("pattern pat {head}"));
            }
        }
    }
    texts.push(format!("path pat{}.{}", alnum(14, 3), "ab".repeat(32)));
    texts.push(format!("xpat{}.{}", alnum(14, 3), "ab".repeat(32)));
    texts.push("do the glad pattern path: ghp_ key: value :AA".to_string());
    for t in &texts {
        let a: Vec<_> = full.find_iter(t).map(|m| m.range()).collect();
        let b: Vec<_> = HOT_LITE.find_iter(t).map(|m| m.range()).collect();
        if a != b {
            assert!(may_hold_vendor_token(t), "{t}");
        }
    }
    assert!(!may_hold_vendor_token(
        "do the glad pattern path, patents and EZ pieces"
    ));
    assert!(may_hold_vendor_token(&format!(
        "pat{}.{}",
        alnum(14, 3),
        "ab".repeat(32)
    )));
}

/// The scan as it was first written, every occurrence of every lazy family's literal
/// looked at in one overlapping search: the reference the grouped, leftmost search must
/// agree with.
fn overlapping_scan(text: &str) -> bool {
    let mut literals = Vec::new();
    let mut family_of = Vec::new();
    for (i, f) in FAMILIES.iter().enumerate().filter(|(_, f)| f.lazy) {
        let lits = leading_literals(f.pattern).unwrap_or_default();
        family_of.extend(std::iter::repeat_n(i, lits.len()));
        literals.extend(lits);
    }
    let weak = |i: usize| {
        leading_literals(FAMILIES[i].pattern)
            .unwrap_or_default()
            .iter()
            .any(|l| l.len() < WEAK_LITERAL)
    };
    let Ok(ac) = aho_corasick::AhoCorasick::new(&literals) else {
        return true;
    };
    ac.find_overlapping_iter(text).any(|m| {
        let i = family_of[m.pattern().as_usize()];
        !weak(i) || regex::Regex::new(FAMILIES[i].pattern).map_or(true, |re| re.is_match(text))
    })
}

/// The vendor scan answers as the overlapping search of every literal does: on every lazy
/// literal alone, inside words, cut short, overlapping another (`shpat_` holds the weak
/// `pat`), beside the rows' samples, and on prose that holds none.
#[test]
fn the_vendor_scan_agrees_with_an_overlapping_search() {
    let mut texts: Vec<String> = vec![
        String::new(),
        "do the glad pattern path, patents and EZ pieces".into(),
        format!("x{}y", "shpat_"),
        format!("shpat_{}", "0a".repeat(16)),
        format!("zpat{}.{}", alnum(14, 5), "ab".repeat(32)),
        format!("a:AA{}", alnum(40, 9)),
    ];
    for (i, f) in FAMILIES.iter().enumerate().filter(|(_, f)| f.lazy) {
        for lit in leading_literals(f.pattern).unwrap_or_default() {
            texts.push(lit.clone());
            texts.push(format!("the path to {lit} and on"));
            texts.push(format!(
                "{}{lit}",
                "prose without any of them ".repeat(i % 5 + 1)
            ));
            for cut in 1..lit.len() {
                if let Some(head) = lit.get(..cut) {
                    texts.push(format!("pattern {head} path"));
                }
            }
        }
    }
    for (_, sample) in family_samples() {
        texts.push(format!("see {sample} there"));
    }
    let mut found = 0;
    for t in &texts {
        let want = overlapping_scan(t);
        found += usize::from(want);
        assert_eq!(may_hold_vendor_token(t), want, "{t}");
    }
    // Both answers occur, so the comparison can fail either way.
    assert!(
        found > 0 && found < texts.len(),
        "{found} of {}",
        texts.len()
    );
}

/// On a text without any vendor prefix the smaller regex finds exactly what the full
/// one finds; a vendor token brings the full one in.
#[test]
fn the_regex_without_vendor_shapes_agrees_where_it_serves() {
    let full = shape_regex(parts(true));
    let ghp = format!("ghp_{}", alnum(36, 7));
    let texts = [
        "plain prose with no secrets at all, and a URL https://example.com/a?b=c".to_string(),
        format!("token: {ghp} and Authorization: Bearer abcdefgh12345678"),
        "https://user:hunter2hunter2@example.com/ password=swordfish123 state=xyz".into(),
        "-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----".into(),
        "AKIAABCDEFGHIJKLMNOP eyJhbGciOi.eyJzdWIiOi.sig sk-abcdefghijklmnopqrstuvwx".into(),
        "session_id=abc; Cookie: a=b; x-api-key: 1234567890abcdef".into(),
    ];
    for t in &texts {
        assert!(!may_hold_vendor_token(t), "{t}");
        let a: Vec<_> = full.find_iter(t).map(|m| m.range()).collect();
        let b: Vec<_> = HOT_LITE.find_iter(t).map(|m| m.range()).collect();
        assert!(!a.is_empty() || t.starts_with("plain"), "{t}");
        assert_eq!(a, b, "{t}");
        for pos in 0..t.len() {
            if t.is_char_boundary(pos) {
                let from = || regex_automata::Input::new(t).range(pos..);
                assert_eq!(
                    full.find(from()).map(|m| m.range()),
                    HOT_LITE.find(from()).map(|m| m.range()),
                    "{t} at {pos}"
                );
            }
        }
    }
    let vendor = format!("rubygems_{}", "0a".repeat(24));
    assert!(may_hold_vendor_token(&vendor));
    assert_eq!(Redactor::new().redact_text(&vendor), TEXT_MARKER);
}

/// One sample per vendor family (issue 11's list and gitleaks' prefixed rules): each is
/// redacted in prose, in an assignment and in JSON, and its name or context survives.
/// Every row's sample, its template filled (`{aN}`: N letters and digits, `{hN}`: N hex
/// digits), with the part that must vanish.
pub(super) fn family_samples() -> Vec<(&'static str, String)> {
    FAMILIES
        .iter()
        .enumerate()
        .map(|(i, f)| (f.name, fill(f.sample, i as u64 * 7 + 1)))
        .collect()
}

fn fill(template: &str, seed: u64) -> String {
    let mut out = String::new();
    let mut rest = template;
    let mut k = 0;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let close = rest[open..].find('}').map(|c| open + c).expect("closed");
        let (kind, n) = rest[open + 1..close].split_at(1);
        let n: usize = n.parse().expect("a count");
        k += 1;
        out.push_str(&match kind {
            "a" => alnum(n, seed + k),
            "h" => hex(n, seed + k),
            other => panic!("unknown {other} in {template}"),
        });
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

/// Every shape compiles: the combined regexes, and each row alone and whole (a broken
/// pattern fails here, not in a user's process).
#[test]
fn every_shape_compiles() {
    assert!(HOT_LITE.find("password=x").is_some());
    assert!(parts(true).count() > parts(false).count());
    assert!(hot().find(family_samples()[0].1.as_str()).is_some());
    for f in FAMILIES {
        regex::Regex::new(f.pattern).unwrap_or_else(|e| panic!("{}: {e}", f.pattern));
        assert!(
            !f.pattern.contains("(?i"),
            "{}: a family is case-sensitive",
            f.pattern
        );
        assert!(
            !f.pattern.contains("(?P<") && !f.pattern.contains("(?<"),
            "{}",
            f.pattern
        );
    }
}

/// The shape regex is built without the literal prefilter that the `regex` crate would
/// try for it; it finds what a `regex::Regex` of the same pattern finds, from every
/// position, on every sample in prose, glued to punctuation, cut and doubled.
#[test]
fn shape_regex_matches_as_the_regex_crate() {
    let ours = shape_regex(parts(true));
    let pattern = parts(true).collect::<Vec<_>>().join("|");
    let theirs = regex::RegexBuilder::new(&pattern)
        .size_limit(64 << 20)
        .build()
        .expect("the shape pattern compiles");
    let mut texts = vec![
        "plain prose, https://user:hunter2hunter2@example.com/ and ://abcdefghijklmnopq@h"
            .to_string(),
        "Authorization: Bearer abcdefgh12345678 password=swordfish curl -u me:pw x".into(),
        "-----BEGIN RSA PRIVATE KEY-----\nMIIB\n secret wJalrXUtnFEMI token%3Dabc".into(),
        "Ünïcödé prose — with “quotes” and key : value, passé pass:word".into(),
    ];
    for (_, sample) in family_samples() {
        texts.push(format!(
            "see {sample}, then ({sample})\"{sample}\"{sample}{sample}"
        ));
        let cut = sample.len() / 2;
        if let Some(head) = sample.get(..cut) {
            texts.push(format!("{head} and {head}x"));
        }
    }
    let mut matches = 0;
    for t in &texts {
        for pos in (0..=t.len()).filter(|&p| t.is_char_boundary(p)) {
            let a = ours
                .find(regex_automata::Input::new(t).range(pos..))
                .map(|m| m.range());
            let b = theirs.find_at(t, pos).map(|m| m.range());
            assert_eq!(a, b, "{t} at {pos}");
            matches += usize::from(a.is_some());
        }
    }
    assert!(matches > texts.len(), "the texts hold shapes");
}

/// Each sample is found by the shape regex as its own row's match, in prose and glued to
/// punctuation; the structural shapes are no row's.
#[test]
fn every_match_finds_its_family() {
    let full = shape_regex(parts(true));
    for (i, (name, tok)) in family_samples().into_iter().enumerate() {
        let text = format!("see {tok}, then");
        let m = full
            .find_iter(&text)
            .map(|m| &text[m.range()])
            .find(|m| family_of(m.as_bytes()).is_some())
            .unwrap_or_else(|| panic!("{name}: no family match in {text}"));
        let got = family_of(m.as_bytes()).map(|f| f.pattern);
        assert_eq!(got, Some(FAMILIES[i].pattern), "{name}: {m}");
    }
    for structural in [
        "-----BEGIN RSA PRIVATE KEY-----",
        "://user:pass@",
        "Bearer abcdefgh",
        "password=",
        "key:",
        "secret ",
        " -u ",
        "token%3D",
    ] {
        assert_eq!(
            family_of(structural.as_bytes()).map(|f| f.name),
            None,
            "{structural}"
        );
    }
}

/// docs/reference.md shows the table of families as the rows say it.
#[test]
fn the_docs_list_every_family() {
    let docs = include_str!("../../../docs/reference.md");
    let mut want = String::from("| Issuer | Token | Hidden |\n| --- | --- | --- |\n");
    for f in FAMILIES {
        let hidden = match f.start {
            Start::Match => "the token",
            Start::Skip(_) => "the rest of the path",
            Start::AfterLastSlash => "the token (the id is kept)",
            Start::BotId => "the token with its bot id",
            Start::LedByAlnum(_) => "the token with its lead",
        };
        want.push_str(&format!("| {} | {} | {hidden} |\n", f.name, f.docs));
    }
    assert!(
        docs.contains(&want),
        "docs/reference.md's table of token families differs from src/redact/families.rs; \
         it should read:\n\n{want}"
    );
}

#[test]
fn every_family_is_redacted() {
    let r = Redactor::new();
    for (family, tok) in family_samples() {
        for (pre, post) in [
            ("see ", " for details."),
            ("TOKEN=", "\n"),
            ("{\"key\": \"", "\"}"),
            ("<td>", "</td>"),
        ] {
            let input = format!("{pre}{tok}{post}");
            let out = r.redact_text(&input);
            let secret = tok.rsplit('/').next().unwrap_or(&tok);
            assert!(!out.contains(secret), "{family}: survived in {out:?}");
            assert!(
                out.starts_with(pre) && out.ends_with(post),
                "{family}: context lost: {out:?}"
            );
            assert_eq!(r.redact_text(&out), out, "{family}: not idempotent");
        }
        // Escaped as a Markdown converter writes it.
        let md = tok.replace('_', "\\_").replace('.', "\\.");
        let out = r.redact_text(&format!("key {md} end"));
        let secret = tok.rsplit('/').next().unwrap_or(&tok);
        assert!(
            !reader_view(&out).contains(secret),
            "{family}: escaped form survived: {out:?}"
        );
    }
    // Tokens next to their names.
    for (input, secret) in [
        ("DD_API_KEY=0a1b2c3d4e5f60718293a4b5c6d7e8f9", "0a1b2c3d4e5f60718293a4b5c6d7e8f9"),
        ("DATADOG_APP_KEY: 0a1b2c3d4e5f60718293a4b5c6d7e8f901234567", "0a1b2c3d4e5f60718293a4b5c6d7e8f901234567"),
        ("HEROKU_API_KEY=01234567-89ab-cdef-0123-456789abcdef", "01234567-89ab-cdef-0123-456789abcdef"),
        ("TWILIO_AUTH_TOKEN=9f8e7d6c5b4a39281706f5e4d3c2b1a0", "9f8e7d6c5b4a39281706f5e4d3c2b1a0"),
        ("DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYmF6cQ==;EndpointSuffix=core.windows.net", "Zm9vYmFyYmF6cXV4Zm9vYmFy"),
        ("SENTRY_DSN=https://0123456789abcdef0123456789abcdef:fedcba9876543210fedcba9876543210@o1.ingest.sentry.io/2", "fedcba9876543210fedcba9876543210"),
        ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYzz9KEY", "wJalrXUtnFEMI/K7MDENG"),
        ("\"client_secret\": \"9dF3kQ2mX7pL1vB4nR8t\"", "9dF3kQ2mX7pL1vB4nR8t"),
        ("DB_PASSWORD=Tr0ub4dor-and-3", "Tr0ub4dor-and-3"),
        ("db:\n  password: s3cr3t-Pa55w0rd\n", "s3cr3t-Pa55w0rd"),
    ] {
        let out = r.redact_text(input);
        assert!(!out.contains(secret), "{input:?} -> {out:?}");
    }
}

/// Look-alikes of the families: identifiers, hashes, data, code and placeholders.
const BENIGN_FAMILY_LOOKALIKES: &[&str] = &[
    "postgresql://user:password@localhost:5432/dbname",
    "mysql://root:password@127.0.0.1/app and redis://:secret@localhost:6379",
    "Set api_key to <your-api-key> or YOUR_TOKEN_HERE.",
    "OPENAI_API_KEY=sk-... and token: xxxxxxxx",
    "api_key=${API_KEY} password: changeme",
    "token = \"your-token-here\"; secret: example-secret-value",
    "DB_PASSWORD=dummy_password_123 or placeholder-token-9",
    "the token 550e8400-e29b-41d4-a716-446655440000 expired",
    "Token ID 550e8400-e29b-41d4-a716-446655440000",
    "key-value store, key-a1b2 and monkey-0123456789abcdef0123456789abcdef",
    "secret_santa_gift_exchange_planning_committee_2024",
    "dapi is a prefix; dapiversion=3",
    "secret_key_base is set in config/secrets.yml",
    "glpat- tokens are documented; gsk_ is Groq's prefix; dop_v1_ is DigitalOcean's.",
    "EAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
    "background:url(data:image/png;base64,iVBORw0KGgoEAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==)",
    "function(e){return e.token&&e.token.length>0?bearer(e):null}",
    "The bearer token is sent in the header; bearer tokens expire.",
    "bearer 3f786850e387550fdab836ed7e6dc881de23001b",
    "https://example.com/?page=2&sort=desc&token[]=",
    "https://example.com/?tags[]=rust&tags[]=web",
    "https://user@example.com/ and ssh://git@github.com/o/r.git",
    "https://john.doe.smith@example.com/profile",
    "-----BEGIN PRIVATE KEY----- ... -----END PRIVATE KEY-----",
    "-----BEGIN PUBLIC KEY----- MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE -----END PUBLIC KEY-----",
    "Authentication: required.",
    "x-amz-date: 20240101T000000Z; Authorization header required",
    "123456789:AB is a ratio; 12:AA is a time",
    "https://discord.com/api/webhooks/ is the endpoint",
    "pypi-AgEIcHlwaS5vcmc is the prefix of every PyPI token",
];

#[test]
fn family_lookalikes_unchanged() {
    let r = Redactor::new();
    for input in BENIGN_FAMILY_LOOKALIKES {
        assert_eq!(&r.redact_text(input), input);
    }
    assert_eq!(
        r.redact_url("postgresql://user:password@localhost:5432/dbname"),
        "postgresql://user:password@localhost:5432/dbname"
    );
}

/// A token whose matched head ends in `=` (base64 bodies: Duffel, Atlassian, PlanetScale,
/// Sentry, Terraform Cloud) is its family's, not an assignment's: it was sent to the
/// assignment classifier, which read it as a name and declined it.
#[test]
fn a_token_whose_head_ends_in_equals_is_still_its_familys() {
    let r = Redactor::new();
    for tok in [
        format!("duffel_live_{}={}", alnum(42, 5), alnum(8, 6)),
        format!("ATATT3{}={}", alnum(59, 7), alnum(20, 8)),
        format!(
            "{}.atlasv1.{}={}",
            alnum(14, 9),
            alnum(59, 10),
            alnum(10, 11)
        ),
    ] {
        let out = r.redact_text(&format!("see {tok} here"));
        assert_eq!(out, "see [REDACTED] here", "{tok}");
    }
}
