//! The one shape regex: every token family of `families` between the structural shapes
//! (PEM headers, URL userinfo, `Bearer`/`Basic`, sensitive names), as one alternation with
//! no capture groups and ASCII-only classes, so the lazy DFA scans a text in one pass.
//! Each alternative starts with something its classifier recognises from the matched text;
//! order matters (leftmost-first).
//!
//! The `lazy` families' long counted bodies are most of what building the regex costs, so
//! a text that holds none of their literal starts is scanned by a smaller regex without
//! them ([`HOT_LITE`]), which finds exactly the same matches on it.

use std::sync::{LazyLock, OnceLock};

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};
use regex::{Regex, RegexBuilder};
pub(super) use regex_automata::meta::Regex as ShapeRegex;

use super::families::{Family, FAMILIES};

/// The shapes before the families: PEM private key headers (body and END line read by the
/// classifier), `user:password@` in a URL authority, a lone user name that may be a token
/// (`https://TOKEN@host`).
const HEAD: &[&str] = &[
    r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----",
    r"://[A-Za-z0-9._~%!$&'()*+,;=-]*:[A-Za-z0-9._~%!$&'()*+,;=:-]+@",
    r"://[A-Za-z0-9._~%-]{16,256}@",
];

/// The shapes after the families.
const TAIL: &[&str] = &[
    // Bearer / Basic credentials (the classifier reads the whole credential). Case matters
    // here: lower-case "bearer" and "basic" are English words.
    r"(?:Bearer|BEARER|bearer|Basic|BASIC)[ \t]+[A-Za-z0-9._~+/=-]{8}",
    // A sensitive word ending a name, then `=` or `:` (URL parameters, assignments,
    // headers). The classifier reads the name backwards and the value forwards.
    r#"(?i-u:pass(?:word|wd|phrase)?|pwd|secret|token|key|auth(?:orization)?|cookie|credentials?|session(?:[_-]?id)?|sessid|sid|sig(?:nature)?|state|code|ticket|otp|hmac|verifier|assertion|saml(?:response|request))\\?["']?(?:\[[0-9]{0,3}\])?\]?[ \t]*(?:[:=]|%3[dD])"#,
    // A sensitive word in prose, then blanks ("the password is …", "secret wJal…"); after
    // the assignment above, which wins where both match. The classifier reads the words.
    r"(?i-u:pass(?:word|wd|phrase)|secret|token|key|credentials?)[ \t]+",
    // curl's basic-auth flag (`curl … -u USER:PASSWORD`, `--user=…`).
    r"[ \t](?:-u|--user)(?:=|[ \t]{0,5})",
];

/// Every alternative in order; with `lazy` false, the lazy families left out.
pub(super) fn parts(lazy: bool) -> impl Iterator<Item = &'static str> {
    HEAD.iter()
        .copied()
        .chain(
            FAMILIES
                .iter()
                .filter(move |f| lazy || !f.lazy)
                .map(|f| f.pattern),
        )
        .chain(TAIL.iter().copied())
}

/// One regex of the given alternatives. The patterns are constants of this module and
/// `families`, compiled by the tests (`every_shape_compiles`), so the build cannot fail
/// in a binary that passed them: the one `expect` of the library, kept because there is no
/// safe way on without the redactor's regex.
///
/// Built as the `regex` crate builds a [`regex::Regex`] (the same engines, limits and
/// matches: `shape_regex_matches_as_the_regex_crate`), less its literal prefilter. The
/// alternatives that fold case have hundreds of literal starts, so the regex crate finds
/// no prefilter for the joined pattern, but finding that out (extracting and crossing the
/// literals of every alternative) was a fifth of the build: 1.4M instructions of every
/// single lookup. `shape_search` prefilters long texts with literals fixed in advance.
#[allow(clippy::expect_used)]
pub(super) fn shape_regex(parts: impl Iterator<Item = &'static str>) -> ShapeRegex {
    ShapeRegex::builder()
        .configure(
            ShapeRegex::config()
                .auto_prefilter(false)
                .nfa_size_limit(Some(64 << 20))
                .hybrid_cache_capacity(16 << 20),
        )
        .build(&parts.collect::<Vec<_>>().join("|"))
        .expect("the redaction regex is a valid literal pattern")
}

/// Every shape. Built the first time a text could hold a lazy family's token (or on
/// [`compile_all_shapes`]); from then on it serves every text.
static HOT: OnceLock<ShapeRegex> = OnceLock::new();

/// Every shape but the lazy families: the same alternatives in the same order, less those
/// that cannot match a text without their prefixes. On such a text it finds exactly the
/// matches [`HOT`] finds, and costs a quarter as much to build.
pub(super) static HOT_LITE: LazyLock<ShapeRegex> = LazyLock::new(|| shape_regex(parts(false)));

/// The full regex, built once.
pub(super) fn hot() -> &'static ShapeRegex {
    HOT.get_or_init(|| shape_regex(parts(true)))
}

/// Finds the texts that may hold a lazy family's token: a search for the literals every
/// match of a lazy family starts with (see [`leading_literals`]). A literal shorter than
/// [`WEAK_LITERAL`] bytes occurs in prose (`pat` in "path"), so a family with one is
/// searched on its own and a hit is confirmed by that family's own regex (small, compiled
/// on first need).
///
/// The other (strong) literals only need to be found anywhere, not each occurrence, so
/// they are searched leftmost-first, which lets Aho-Corasick skip ahead with its SIMD
/// prefilter (Teddy), in groups small enough for it to serve ([`SCAN_GROUP`]). An
/// overlapping search of every literal, the scan this replaces, reads the text a byte at
/// a time: 1.7 ms a megabyte of prose, against 0.3 ms.
struct VendorScan {
    /// The strong families' literals, [`SCAN_GROUP`] to a searcher.
    strong: Vec<AhoCorasick>,
    /// Each weak family's literals, with the family's index in [`FAMILIES`].
    weak: Vec<(usize, Vec<memchr::memmem::Finder<'static>>)>,
}

pub(super) const WEAK_LITERAL: usize = 4;

/// The most literals one searcher of the vendor scan holds: past 32 patterns Teddy uses
/// its wider and slower form, and past 64 Aho-Corasick gives it up and reads every byte.
const SCAN_GROUP: usize = 32;

/// Did the scan build (every lazy family has a literal start)?
#[cfg(test)]
pub(super) fn vendor_scan_builds() -> bool {
    VENDOR_SCAN.is_some()
}

/// `None` if a lazy family has no literal start (then the full regex always serves).
static VENDOR_SCAN: LazyLock<Option<VendorScan>> = LazyLock::new(|| {
    let known = &*KNOWN;
    let mut strong = Vec::new();
    let mut weak = Vec::new();
    for (i, _) in FAMILIES.iter().enumerate().filter(|(_, f)| f.lazy) {
        let lits = &known.literals[i];
        if lits.is_empty() {
            return None;
        }
        if known.weak[i] {
            let finders = lits
                .iter()
                .map(|l| memchr::memmem::Finder::new(l.as_bytes()).into_owned())
                .collect();
            weak.push((i, finders));
        } else {
            strong.extend(lits.iter().map(String::as_str));
        }
    }
    // As few searchers as SCAN_GROUP allows, and of even sizes: 74 literals in 25, 25 and
    // 24 took 180 us on 764 KB of prose, in 32, 32 and 10 (the literals of a bucket
    // share its filter, so the full ones let more places through) 310 us.
    let size = strong
        .len()
        .div_ceil(strong.len().div_ceil(SCAN_GROUP).max(1))
        .max(1);
    let strong = strong
        .chunks(size)
        .map(|group| {
            AhoCorasick::builder()
                .kind(Some(AhoCorasickKind::NoncontiguousNFA))
                .match_kind(MatchKind::LeftmostFirst)
                .build(group)
                .ok()
        })
        .collect::<Option<Vec<_>>>()?;
    Some(VendorScan { strong, weak })
});

/// What the rows of [`FAMILIES`] need at run time, made once: their literal starts and
/// their own regexes (compiled on first need).
struct Known {
    literals: Vec<Vec<String>>,
    weak: Vec<bool>,
    /// The family's pattern, unanchored: confirms a weak literal's hit in a text.
    alone: Vec<OnceLock<Option<Regex>>>,
    /// The family's pattern, matching a whole match: tells which row a match came from.
    whole: Vec<OnceLock<Option<Regex>>>,
}

/// Every row's literal starts (empty when it has none), made once: the vendor scan and
/// [`family_of`] both read them.
static KNOWN: LazyLock<Known> = LazyLock::new(|| {
    let literals: Vec<Vec<String>> = FAMILIES
        .iter()
        .map(|f| leading_literals(f.pattern).unwrap_or_default())
        .collect();
    Known {
        weak: literals
            .iter()
            .map(|l| l.iter().any(|l| l.len() < WEAK_LITERAL))
            .collect(),
        alone: FAMILIES.iter().map(|_| OnceLock::new()).collect(),
        whole: FAMILIES.iter().map(|_| OnceLock::new()).collect(),
        literals,
    }
});

fn compiled(cell: &OnceLock<Option<Regex>>, pattern: impl FnOnce() -> String) -> Option<&Regex> {
    cell.get_or_init(|| {
        RegexBuilder::new(&pattern())
            .size_limit(64 << 20)
            .build()
            .ok()
    })
    .as_ref()
}

/// May a lazy family of the shape regex match somewhere in `text`? `false` only when none
/// can: no literal start of any of them occurs, or each one that does is a weak family's
/// whose regex, compiled alone, matches nowhere in `text`.
pub(super) fn may_hold_vendor_token(text: &str) -> bool {
    let Some(scan) = &*VENDOR_SCAN else {
        return true;
    };
    if scan.strong.iter().any(|group| group.is_match(text)) {
        return true;
    }
    scan.weak.iter().any(|(i, finders)| {
        finders.iter().any(|f| f.find(text.as_bytes()).is_some())
            && compiled(&KNOWN.alone[*i], || FAMILIES[*i].pattern.to_string())
                .is_none_or(|re| re.is_match(text))
    })
}

/// The family a match of the shape regex came from: the first row, in the regex's order,
/// that one of whose literals starts `m` and whose pattern matches `m` whole. `None` for
/// the matches of the structural shapes.
pub(super) fn family_of(m: &[u8]) -> Option<&'static Family> {
    let known = &*KNOWN;
    let mut candidates = FAMILIES.iter().enumerate().filter(|(i, _)| {
        known.literals[*i]
            .iter()
            .any(|l| m.starts_with(l.as_bytes()))
    });
    let first = candidates.next()?;
    let Some(second) = candidates.next() else {
        // One row starts so: it is that row's match (a structural shape never starts with
        // a family's literal; `every_match_finds_its_family` checks both).
        return Some(first.1);
    };
    let text = std::str::from_utf8(m).ok()?;
    [first, second]
        .into_iter()
        .chain(candidates)
        .find(|(i, f)| {
            compiled(&known.whole[*i], || format!("^(?:{})$", f.pattern))
                .is_some_and(|re| re.is_match(text))
        })
        .map(|(_, f)| f)
}

/// The literal texts one of which every match of `pattern` starts with: its characters up
/// to the first construct that is none of a literal character, an escaped punctuation
/// character, a class of at most four literal characters (`[opr]`) or a group of literal
/// alternatives (`(?:at|ca)`), expanded into every combination (at most 64). A piece
/// made optional or repeated by `?`, `*` or `{` ends the literal before it; one repeated
/// by `+` ends it after it. `None` when that is empty, or the pattern folds case or
/// alternates at the top.
pub(super) fn leading_literals(pattern: &str) -> Option<Vec<String>> {
    if pattern.contains("(?i") || top_level_alternation(pattern) {
        return None;
    }
    let p = pattern.strip_prefix(r"(?-u:\b)").unwrap_or(pattern);
    let chars: Vec<char> = p.chars().collect();
    let mut outs = vec![String::new()];
    let mut i = 0;
    while i < chars.len() {
        let (alts, next): (Vec<String>, usize) = match chars[i] {
            '\\' => match chars.get(i + 1) {
                Some(&n) if n.is_ascii_punctuation() => (vec![n.to_string()], i + 2),
                _ => break,
            },
            '[' => {
                let Some(close) = chars[i + 1..].iter().position(|&c| c == ']') else {
                    break;
                };
                let members = &chars[i + 1..i + 1 + close];
                if members.is_empty()
                    || members.len() > 4
                    || members.iter().any(|c| !c.is_ascii_alphanumeric())
                {
                    break;
                }
                (members.iter().map(char::to_string).collect(), i + close + 2)
            }
            '(' => {
                if chars.get(i + 1..i + 3) != Some(&['?', ':'][..]) {
                    break;
                }
                let Some(close) = chars[i + 3..].iter().position(|&c| c == ')') else {
                    break;
                };
                let body: String = chars[i + 3..i + 3 + close].iter().collect();
                if !body
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '|' | '_'))
                {
                    break;
                }
                (body.split('|').map(String::from).collect(), i + close + 4)
            }
            '?' | '*' | '{' | '+' | '|' | '^' | '$' | '.' | ')' | ']' => break,
            c => (vec![c.to_string()], i + 1),
        };
        let quantified = chars.get(next).copied();
        if matches!(quantified, Some('?' | '*' | '{')) {
            break;
        }
        if outs.len() * alts.len() > 64 {
            break;
        }
        outs = outs
            .iter()
            .flat_map(|o| alts.iter().map(move |a| format!("{o}{a}")))
            .collect();
        if quantified == Some('+') {
            break;
        }
        i = next;
    }
    (!outs.iter().any(String::is_empty)).then_some(outs)
}

fn top_level_alternation(pattern: &str) -> bool {
    let (mut depth, mut class, mut escaped) = (0i32, false, false);
    for c in pattern.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '[' if !class => class = true,
            ']' if class => class = false,
            '(' if !class => depth += 1,
            ')' if !class => depth -= 1,
            '|' if !class && depth == 0 => return true,
            _ => {}
        }
    }
    false
}

/// The shape regex for `text`: [`HOT`] once built or when `text` holds a lazy family's
/// prefix, else [`HOT_LITE`], which gives the same matches on it.
pub(super) fn shapes_for(text: &str) -> &'static ShapeRegex {
    if let Some(full) = HOT.get() {
        return full;
    }
    if may_hold_vendor_token(text) {
        hot()
    } else {
        &HOT_LITE
    }
}

/// Build the full shape regex now. For processes that redact many pages (a batch, an MCP
/// server): one regex for everything, and no prefix check before each text.
pub fn compile_all_shapes() {
    hot();
}
