//! The prefiltered search for the shape regex (`shape_search`): its literals start every
//! match, and it finds exactly what the regex's own search finds.

use proptest::prelude::*;
use regex_syntax::hir::literal::Extractor;

use super::families::family_samples;
use super::*;
use crate::redact::shape_search::{ShapeSearch, CASED, FOLDED};

/// Every match of every alternative of the lite regex starts with a literal of [`CASED`],
/// or, lowered, with one of [`FOLDED`]: checked against the prefixes regex-syntax
/// extracts from the alternative (a finite set, each a prefix of every match it stands
/// for). A new alternative or family whose start is in neither list fails here.
#[test]
fn the_prefilter_literals_start_every_match() {
    assert!(FOLDED
        .iter()
        .all(|l| !l.is_empty() && l.bytes().all(|b| !b.is_ascii_uppercase())));
    assert!(CASED.iter().all(|l| !l.is_empty()));
    for alternative in parts(false) {
        let hir = regex_syntax::parse(alternative).expect("the alternative parses");
        let mut extractor = Extractor::new();
        extractor.limit_total(100_000);
        let seq = extractor.extract(&hir);
        let literals = seq
            .literals()
            .unwrap_or_else(|| panic!("no finite set of literal starts for {alternative}"));
        for literal in literals {
            let bytes = literal.as_bytes();
            let lowered = bytes.to_ascii_lowercase();
            let covered = !bytes.is_empty()
                && (CASED.iter().any(|c| bytes.starts_with(c.as_bytes()))
                    || FOLDED.iter().any(|f| lowered.starts_with(f.as_bytes())));
            assert!(
                covered,
                "{:?} (a start of {alternative}) is in neither CASED nor FOLDED",
                String::from_utf8_lossy(bytes)
            );
        }
    }
}

/// Dropping a literal loses its matches: the search depends on the lists (what the test
/// above guards), it does not fall back to reading every byte.
#[test]
fn a_text_with_a_literal_is_searched_and_one_without_is_not() {
    let filler = "Plain words of a long page, nothing in them to hide. ".repeat(60);
    let text = format!("{filler}the password: hunter2hunter2 {filler}");
    let mut search = ShapeSearch::with(&text, &HOT_LITE, true);
    let (s, e) = search.find(0).expect("the assignment is found");
    assert_eq!(&text[s..e], "password:");
    assert_eq!(search.find(e), None);
    let spans = |t: &str| ShapeSearch::new(t).all().count();
    assert_eq!(spans(&text), 1);
    assert_eq!(spans(&filler), 0);
}

/// The pieces texts are made of: every literal in random case, every family's sample,
/// names, separators and other characters.
fn pieces() -> Vec<String> {
    let mut out: Vec<String> = CASED.iter().chain(FOLDED).map(|s| s.to_string()).collect();
    out.extend(family_samples().into_iter().map(|(_, s)| s));
    // The sensitive words with what makes them a match after them (and what does not).
    for word in [
        "pass",
        "pwd",
        "secret",
        "token",
        "key",
        "auth",
        "cookie",
        "credential",
        "session-id",
        "sid",
        "sig",
        "state",
        "code",
        "ticket",
        "otp",
        "hmac",
        "verifier",
        "assertion",
        "samlresponse",
    ] {
        for after in [":", " = ", "%3D", "\\\"]:", " ", "s "] {
            out.push(format!("{word}{after}"));
        }
    }
    out.extend(
        [
            "password",
            "Password",
            "PASSWORD",
            "passphrase",
            "token",
            "Bearer ",
            "basic ",
            "BASIC\t",
            "secret_",
            "session_id",
            "SessionId",
            "sessid",
            "Authorization",
            "signature",
            "credentials",
            "client_secret",
            "ticket",
            "verifier",
            "otp",
            ":",
            "=",
            " ",
            "  ",
            "\t",
            "%3d",
            "%3D",
            "\"",
            "'",
            "[0]",
            "]",
            "\\",
            "-u",
            "--user",
            "@",
            "://",
            "https://user:pw@",
            "\n",
            "é",
            "日本",
            "-----BEGIN RSA PRIVATE KEY-----",
            "a",
            "Z",
            "0",
            "_",
            "-",
            ".",
            "ab12CD34ef56GH78ij90KL",
            "0123456789abcdef",
        ]
        .map(String::from),
    );
    out
}

/// Random case for the ASCII letters of `s` (bit `i` of `mask` for its `i`-th byte).
fn recase(s: &str, mask: u64) -> String {
    s.chars()
        .enumerate()
        .map(|(i, c)| {
            if mask >> (i % 64) & 1 == 1 {
                c.to_ascii_uppercase()
            } else {
                c.to_ascii_lowercase()
            }
        })
        .collect()
}

fn text_of() -> impl Strategy<Value = String> {
    let pieces = pieces();
    proptest::collection::vec((0..pieces.len(), any::<u64>(), any::<bool>()), 0..60).prop_map(
        move |v| {
            v.into_iter()
                .map(|(i, mask, keep)| {
                    if keep {
                        pieces[i].clone()
                    } else {
                        recase(&pieces[i], mask)
                    }
                })
                .collect()
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(400),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Match for match, the prefiltered search finds what `find_iter` finds, and from any
    /// place (forward, as the sweep asks, or back) what the regex finds from there; with
    /// windows so small that they cut literals, and with the real ones.
    #[test]
    fn shape_search_finds_what_the_regex_finds(
        text in text_of(),
        picks in proptest::collection::vec(any::<prop::sample::Index>(), 0..8),
        window in prop_oneof![Just(1usize << 16), 1usize..12],
    ) {
        let re: &ShapeRegex = &HOT_LITE;
        let want: Vec<(usize, usize)> = re.find_iter(&text).map(|m| (m.start(), m.end())).collect();
        let got: Vec<(usize, usize)> = ShapeSearch::with_window(&text, re, window).all().collect();
        prop_assert_eq!(&got, &want);
        let bounds: Vec<usize> = (0..=text.len()).filter(|&i| text.is_char_boundary(i)).collect();
        let mut froms: Vec<usize> = picks.iter().map(|p| bounds[p.index(bounds.len())]).collect();
        let back = froms.first().copied();
        froms.sort_unstable();
        froms.extend(back);
        let mut search = ShapeSearch::with_window(&text, re, window);
        for from in froms {
            let want = re
                .find(regex_automata::Input::new(&text).range(from..))
                .map(|m| (m.start(), m.end()));
            prop_assert_eq!(search.find(from), want, "from {}", from);
        }
    }
}
