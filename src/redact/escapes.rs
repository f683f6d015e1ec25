//! The reader's view of a text: what a person sees once the format's escapes are undone.
//!
//! A converter escapes characters a secret is made of (`ghp\_abc`, `api&#95;key`,
//! `"api\u005fkey"`) and a page can hide invisible characters inside a token (a soft hyphen,
//! a zero-width space, a tag character). Matching on the text as written misses all of
//! them, yet a reader (or a model) reads the secret at once. [`View::build`] undoes those
//! escapes into a second string and keeps a sparse map back to the original bytes, so that
//! a span matched on the view can be replaced in the original, the dropped characters with
//! it.
//!
//! What is undone:
//! - a backslash before ASCII punctuation (every CommonMark escape, and JSON's `\/` `\"`
//!   `\\`): the punctuation;
//! - JSON `\uXXXX` (surrogate pairs joined): the character;
//! - HTML numeric references (`&#95;`, `&#x5f;`, with or without `;`) and the named
//!   references of ASCII punctuation (`&lowbar;`, `&period;`, `&colon;`, `&sol;`, ...);
//! - a percent-encoded unreserved character (`%5F`, `%2D`, `%2E`, `%7E`, a letter or a
//!   digit): the character, which RFC 3986 (2.3) says it is equivalent to, so
//!   `ghp%5Fabc` reads `ghp_abc`;
//! - every character no reader sees ([`is_unseen`]: format characters, variation
//!   selectors, the combining grapheme joiner, tag characters, Hangul fillers, controls,
//!   with the terminal escape sequence a control starts): removed, raw or as a reference;
//! - a run of inline HTML tags (`<b>`, `</em>`, `<span class="x">`, `<a href=…>`, `<wbr>`,
//!   unknown and custom elements such as `<x-k>`, ... everything but
//!   [`element_breaks_words`]) or comments (`<!-- x -->`) standing between two token
//!   characters, as in `ghp_abc<b>def</b>ghi`: removed, since a browser shows one word.
//!   Block tags (`<p>`, `<div>`, `<br>`, ...) and inline tags with a space or punctuation on
//!   either side stay as written, so words never join across `</p><p>` and ordinary markup
//!   keeps the fast path. The source ranges of removed tags are kept ([`View::tags_in`]) so
//!   that a caller can replace the text around them and keep the markup.
//!
//! What is NOT undone, on purpose: `&amp;` (no token family contains `&`, and the URL
//! classifier already reads `&amp;` as a query separator; leaving it keeps ordinary HTML on
//! the fast path), `\n`/`\t`/`\r` (the PEM and value classifiers read them as written), and
//! percent-encoded reserved characters (`%3D`, `%2F`, `%26`: they would change how a URL
//! reads; they are handled where URLs are parsed).
//!
//! Must never: panic on any input, or build a view when nothing would change (the caller's
//! fast path depends on [`View::build`] returning `None` for ordinary text).

use super::controls::removed_len;
use super::unseen::{element_breaks_words, is_unseen, may_be_unseen, UNSEEN_LEADS};

/// The inline HTML elements, for the tests: a browser renders their tags without a break.
#[cfg(test)]
pub(super) const INLINE_TAGS: &[&str] = &[
    "a", "abbr", "b", "bdi", "bdo", "cite", "code", "data", "del", "dfn", "em", "font", "i", "ins",
    "kbd", "mark", "q", "s", "samp", "small", "span", "strong", "sub", "sup", "time", "tt", "u",
    "var", "wbr",
];

/// The longest tag the view removes: a longer one stays as written.
const MAX_TAG_LEN: usize = 512;
/// The longest element name read.
const MAX_NAME_LEN: usize = 64;

/// Named HTML references that stand for ASCII punctuation (HTML's own table), plus the
/// markup ones.
const NAMED: &[(&str, char)] = &[
    ("lowbar", '_'),
    ("UnderBar", '_'),
    ("period", '.'),
    ("colon", ':'),
    ("sol", '/'),
    ("bsol", '\\'),
    ("equals", '='),
    ("num", '#'),
    ("quest", '?'),
    ("commat", '@'),
    ("plus", '+'),
    ("percnt", '%'),
    ("lt", '<'),
    ("LT", '<'),
    ("gt", '>'),
    ("GT", '>'),
    ("quot", '"'),
    ("QUOT", '"'),
    ("apos", '\''),
    ("excl", '!'),
    ("dollar", '$'),
    ("lpar", '('),
    ("rpar", ')'),
    ("ast", '*'),
    ("midast", '*'),
    ("comma", ','),
    ("semi", ';'),
    ("lsqb", '['),
    ("lbrack", '['),
    ("rsqb", ']'),
    ("rbrack", ']'),
    ("Hat", '^'),
    ("grave", '`'),
    ("DiacriticalGrave", '`'),
    ("lcub", '{'),
    ("lbrace", '{'),
    ("rcub", '}'),
    ("rbrace", '}'),
    ("verbar", '|'),
    ("vert", '|'),
    ("VerticalLine", '|'),
    ("dash", '\u{2010}'),
    ("hyphen", '\u{2010}'),
    ("shy", '\u{AD}'),
    ("zwj", '\u{200D}'),
    ("zwnj", '\u{200C}'),
    ("ZeroWidthSpace", '\u{200B}'),
    ("NoBreak", '\u{2060}'),
];

/// A text with its escapes undone, and the way back to the original's byte offsets.
pub(super) struct View {
    /// The reader's view.
    pub text: String,
    /// `(view offset, original offset)` after each undone escape, in order. Between two
    /// anchors the texts are identical, so offsets differ by a constant.
    anchors: Vec<(usize, usize)>,
    /// Source ranges of the runs of inline tags (and comments) removed from the view, in
    /// order.
    tags: Vec<(usize, usize)>,
}

impl View {
    /// The view of `src`, or `None` when `src` holds no escape or invisible character
    /// (then the view would equal the text). Cost: one byte search over `src`.
    pub fn build(src: &str) -> Option<View> {
        let mut view: Option<View> = None;
        let mut copied = 0;
        for (at, len, decoded) in decodes(src) {
            let v = view.get_or_insert_with(|| View {
                text: String::with_capacity(src.len()),
                anchors: Vec::new(),
                tags: Vec::new(),
            });
            if src.as_bytes()[at] == b'<' {
                v.tags.push((at, at + len));
            }
            v.text.push_str(&src[copied..at]);
            if let Some(c) = decoded {
                // A decoded invisible character is dropped like a raw one.
                if !is_unseen(c) {
                    v.text.push(c);
                }
            }
            copied = at + len;
            v.anchors.push((v.text.len(), copied));
        }
        let mut v = view?;
        v.text.push_str(&src[copied..]);
        Some(v)
    }

    /// Where [`View::build`] would undo something in `src`: the start of every escape,
    /// invisible character or inline tag run it decodes, in order. Empty exactly when
    /// `build` gives `None`.
    pub fn decoded_at(src: &str) -> Vec<usize> {
        decodes(src).map(|(at, _, _)| at).collect()
    }

    /// The original offset of view offset `pos` (a char boundary of the view). A span
    /// `a..b` of the view maps to `src_pos(a)..src_pos(b)`, whole escapes included.
    pub fn src_pos(&self, pos: usize) -> usize {
        let i = self.anchors.partition_point(|&(vp, _)| vp <= pos);
        match i.checked_sub(1).and_then(|i| self.anchors.get(i)) {
            Some(&(vp, sp)) => sp + (pos - vp),
            None => pos,
        }
    }

    /// The source ranges of the removed inline tags that lie inside `start..end` (source
    /// offsets), in order.
    pub fn tags_in(&self, start: usize, end: usize) -> &[(usize, usize)] {
        let i = self.tags.partition_point(|&(a, _)| a < start);
        let j = self.tags.partition_point(|&(_, b)| b <= end);
        self.tags.get(i..j.max(i)).unwrap_or_default()
    }
}

/// Every escape, invisible character or inline tag run the reader's view undoes in `src`,
/// in order and not overlapping: its start, its length and what it reads as (`None`: nothing).
/// A plain byte search (it vectorises): `\\`, `&`, `<`, `%`, ASCII controls, and the lead
/// bytes of the unseen characters, confirmed by their second byte. A `<` is dismissed at
/// once unless a token character precedes it.
fn decodes(src: &str) -> impl Iterator<Item = (usize, usize, Option<char>)> + '_ {
    let mut from = 0;
    let mut copied = 0;
    std::iter::from_fn(move || {
        while let Some(at) = next_trigger(src.as_bytes(), from) {
            from = at + 1;
            if at < copied {
                continue;
            }
            if let Some((len, decoded)) = decode_at(src, at) {
                copied = at + len;
                return Some((at, len, decoded));
            }
        }
        None
    })
}

/// May this byte start an escape or an unseen character? A cheap test that lets through
/// every byte [`is_trigger_at`] accepts (and the other characters that share a lead byte
/// with an unseen one).
fn may_trigger(c: u8) -> bool {
    MAY_TRIGGER[usize::from(c)]
}

/// [`may_trigger`] for every byte, made once: the test runs on every byte of a chunk that
/// holds a trigger (in markup, most of them hold a `<`).
const MAY_TRIGGER: [bool; 256] = {
    let mut table = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        table[c] = matches!(b, b'\\' | b'&' | b'<' | b'%' | 0x7F)
            || (b < 0x20 && !matches!(b, b'\n' | b'\t' | b'\r'));
        c += 1;
    }
    let mut i = 0;
    while i < UNSEEN_LEADS.len() {
        table[UNSEEN_LEADS[i] as usize] = true;
        i += 1;
    }
    table
};

/// Does the byte at `i` start an escape or an unseen character (as far as its first two
/// bytes tell)?
fn is_trigger_at(bytes: &[u8], i: usize) -> bool {
    let Some(&c) = bytes.get(i) else {
        return false;
    };
    if c < 0x80 {
        return may_trigger(c);
    }
    bytes.get(i + 1).is_some_and(|&next| may_be_unseen(c, next))
}

/// The first trigger byte at or after `from`. Fixed-size chunks are tested whole first
/// (no early exit inside a chunk, so the test vectorises); ordinary text has none in most,
/// and a chunk that may hold one is searched byte by byte. The ASCII triggers are tested
/// on every chunk; the dozen lead bytes of unseen characters only on a chunk that holds a
/// byte outside ASCII, so that ASCII text pays for a few comparisons a byte, not twenty.
fn next_trigger(bytes: &[u8], from: usize) -> Option<usize> {
    const CHUNK: usize = 32;
    let rest = bytes.get(from..)?;
    let mut chunks = rest.chunks_exact(CHUNK);
    let mut at = from;
    for chunk in &mut chunks {
        let (mut hit, mut high) = (0u8, 0u8);
        for &c in chunk {
            hit |= u8::from(
                (c == b'\\')
                    | (c == b'&')
                    | (c == b'<')
                    | (c == b'%')
                    | (c == 0x7F)
                    | ((c < 0x20) & (c != b'\n') & (c != b'\t') & (c != b'\r')),
            );
            high |= c;
        }
        if hit == 0 && high >= 0x80 {
            for &c in chunk {
                hit |= u8::from(
                    (c == 0xC2)
                        | (c == 0xCD)
                        | (c == 0xD8)
                        | (c == 0xDB)
                        | (c == 0xDC)
                        | (c == 0xE0)
                        | (c == 0xE1)
                        | (c == 0xE2)
                        | (c == 0xE3)
                        | (c == 0xEF)
                        | (c == 0xF0)
                        | (c == 0xF3),
                );
            }
        }
        if hit != 0 {
            // Only a byte [`may_trigger`] passes can be a trigger (every lead byte of an
            // unseen character included): the table spares most bytes the full test.
            let found = chunk
                .iter()
                .enumerate()
                .find(|&(j, &c)| MAY_TRIGGER[usize::from(c)] && is_trigger_at(bytes, at + j));
            if let Some((j, _)) = found {
                return Some(at + j);
            }
        }
        at += CHUNK;
    }
    (at..bytes.len()).find(|&i| is_trigger_at(bytes, i))
}

/// May this byte be part of a token (the characters on both sides of a removed tag)?
fn token_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'+' | b'/' | b'=')
}

/// The length of the run of inline tags starting at `at` (a `<`), when a token character
/// stands right before it and right after it; `None` otherwise.
fn inline_tag_run(b: &[u8], at: usize) -> Option<usize> {
    if !token_byte(*b.get(at.checked_sub(1)?)?) {
        return None;
    }
    let mut end = inline_tag(b, at)?;
    while b.get(end) == Some(&b'<') {
        match inline_tag(b, end) {
            Some(e) => end = e,
            None => break,
        }
    }
    token_byte(*b.get(end)?).then_some(end - at)
}

/// The end of the inline tag (any element but [`element_breaks_words`]) or HTML comment
/// starting at `at` (a `<`): `<b>`, `</B >`, `<span class="a>b">`, `<wbr/>`, `<x-k>`,
/// `<!-- x -->`. No `<` inside a tag, at most [`MAX_TAG_LEN`] bytes.
fn inline_tag(b: &[u8], at: usize) -> Option<usize> {
    let limit = b.len().min(at + MAX_TAG_LEN);
    // A comment shows nothing either: `ab<!-- x -->cd` reads `abcd`.
    if b.get(at + 1..at + 4) == Some(b"!--") {
        // `<!-->` and `<!--->` close at once, as browsers read them.
        for close in [&b">"[..], b"->"] {
            if b.get(at + 4..).is_some_and(|r| r.starts_with(close)) {
                return Some(at + 4 + close.len());
            }
        }
        let body = b.get(at + 4..limit)?;
        let end = body.windows(3).position(|w| w == b"-->")?;
        return Some(at + 4 + end + 3);
    }
    let mut i = at + 1;
    if b.get(i) == Some(&b'/') {
        i += 1;
    }
    let start = i;
    // A tag name: a letter, then letters, digits and the `-` `.` `_` of custom elements.
    if !b.get(i).is_some_and(u8::is_ascii_alphabetic) {
        return None;
    }
    while i < b.len()
        && i - start < MAX_NAME_LEN
        && (b[i].is_ascii_alphanumeric() || matches!(b[i], b'-' | b'.' | b'_'))
    {
        i += 1;
    }
    let name = std::str::from_utf8(b.get(start..i)?).ok()?;
    if element_breaks_words(name) {
        return None;
    }
    if !matches!(
        b.get(i),
        Some(b'>' | b'/') | Some(b' ' | b'\t' | b'\n' | b'\r' | b'\x0C')
    ) {
        return None;
    }
    let mut quote = None;
    while i < limit {
        match (b[i], quote) {
            (b'<', _) => return None,
            (c @ (b'"' | b'\''), None) => quote = Some(c),
            (c, Some(q)) if c == q => quote = None,
            (b'>', None) => return Some(i + 1),
            _ => {}
        }
        i += 1;
    }
    None
}

/// The escape starting at `at` (a trigger byte): its length in `src` and what it stands
/// for (`None` for an invisible character, which the view drops). `None` when the bytes at
/// `at` are not an escape the view undoes.
fn decode_at(src: &str, at: usize) -> Option<(usize, Option<char>)> {
    let b = src.as_bytes();
    match b[at] {
        b'\\' => {
            let n = *b.get(at + 1)?;
            if n == b'u' {
                let (c, len) = json_unicode(b, at)?;
                return Some((len, Some(c)));
            }
            // `\\` before punctuation stays as written: undone, its backslash would escape
            // the next character (`\\"` read as `\"`) and move a string's end.
            if n == b'\\'
                && b.get(at + 2)
                    .is_some_and(|c| c.is_ascii_punctuation() || *c == b'u')
            {
                return None;
            }
            n.is_ascii_punctuation().then_some((2, Some(n as char)))
        }
        // `&amp;`, by far the most common reference, is never undone: skip it at once.
        b'&' if b[at + 1..].starts_with(b"amp;") => None,
        b'&' => html_reference(b, at).map(|(c, len)| (len, Some(c))),
        b'<' => inline_tag_run(b, at).map(|len| (len, None)),
        b'%' => percent_unreserved(b, at).map(|c| (3, Some(c))),
        _ => {
            let rest = src.get(at..)?;
            // A control goes with the escape sequence it starts, as the output loses both.
            let n = removed_len(rest);
            if n > 0 {
                return Some((n, None));
            }
            let c = rest.chars().next()?;
            is_unseen(c).then_some((c.len_utf8(), None))
        }
    }
}

/// `%5F`, `%2d`, `%41`: a percent-encoded unreserved character (RFC 3986: letters, digits,
/// `-` `.` `_` `~`), which a URL reads as that character.
fn percent_unreserved(b: &[u8], at: usize) -> Option<char> {
    let hex = |c: u8| (c as char).to_digit(16);
    let v = hex(*b.get(at + 1)?)? * 16 + hex(*b.get(at + 2)?)?;
    let c = char::from_u32(v)?;
    (c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~')).then_some(c)
}

fn hex4(b: &[u8], at: usize) -> Option<u32> {
    let s = std::str::from_utf8(b.get(at..at + 4)?).ok()?;
    if !s.bytes().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(s, 16).ok()
}

/// `\uXXXX`, or a surrogate pair `\uD83D\uDE00`, at `at`.
fn json_unicode(b: &[u8], at: usize) -> Option<(char, usize)> {
    let hi = hex4(b, at + 2)?;
    if (0xD800..0xDC00).contains(&hi) {
        if b.get(at + 6) == Some(&b'\\') && b.get(at + 7) == Some(&b'u') {
            let lo = hex4(b, at + 8)?;
            if (0xDC00..0xE000).contains(&lo) {
                let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                return char::from_u32(c).map(|c| (c, 12));
            }
        }
        return None;
    }
    char::from_u32(hi).map(|c| (c, 6))
}

/// `&#95;`, `&#x5F;` (the `;` optional, as browsers accept) or a named reference from
/// [`NAMED`] (with its `;`).
fn html_reference(b: &[u8], at: usize) -> Option<(char, usize)> {
    if b.get(at + 1) == Some(&b'#') {
        let hex = matches!(b.get(at + 2), Some(b'x' | b'X'));
        let start = at + 2 + usize::from(hex);
        let mut i = start;
        let radix = if hex { 16 } else { 10 };
        while i < b.len() && i - start < 8 && (b[i] as char).is_digit(radix) {
            i += 1;
        }
        let digits = std::str::from_utf8(&b[start..i]).ok()?;
        if digits.is_empty() {
            return None;
        }
        let c = char::from_u32(u32::from_str_radix(digits, radix).ok()?)?;
        let len = i - at + usize::from(b.get(i) == Some(&b';'));
        return Some((c, len));
    }
    let start = at + 1;
    let mut i = start;
    while i < b.len() && i - start < 24 && b[i].is_ascii_alphabetic() {
        i += 1;
    }
    if b.get(i) != Some(&b';') {
        return None;
    }
    let name = std::str::from_utf8(&b[start..i]).ok()?;
    NAMED
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, c)| (c, i + 1 - at))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table is the byte test it replaced.
    #[test]
    fn trigger_table_is_the_byte_test() {
        for c in 0..=255u8 {
            let plain = matches!(c, b'\\' | b'&' | b'<' | b'%' | 0x7F)
                || (c < 0x20 && !matches!(c, b'\n' | b'\t' | b'\r'))
                || UNSEEN_LEADS.contains(&c);
            assert_eq!(may_trigger(c), plain, "{c:#04x}");
        }
    }

    /// The chunked search finds the same byte as a plain search, from every start.
    #[test]
    fn trigger_search_agrees_with_plain_search() {
        let alphabet = [
            b'a', b' ', b'\\', b'&', b'<', b'%', 0xC2, 0xE2, 0xEF, 0xE3, 0xF3, 0xC3, 0x80, 0x85,
            0xA0, 0xAD, b'\n', b'\r', 0x1B, 0x7F,
        ];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for len in [0usize, 1, 2, 63, 64, 65, 127, 128, 129, 200, 500] {
            for _ in 0..40 {
                let bytes: Vec<u8> = (0..len)
                    .map(|_| {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        // Sparse triggers, so that many chunks hold none.
                        let k = (seed % 400) as usize;
                        if k < alphabet.len() {
                            alphabet[k]
                        } else {
                            b'x'
                        }
                    })
                    .collect();
                for from in 0..=len {
                    let plain = (from..len).find(|&i| is_trigger_at(&bytes, i));
                    assert_eq!(next_trigger(&bytes, from), plain, "{bytes:?} from {from}");
                }
            }
        }
    }

    #[test]
    fn views_undo_each_escape() {
        let cases = [
            ("ghp\\_abc", "ghp_abc"),
            (
                "a\\*b\\[c\\]d\\|e\\`f\\<g\\\\h\\#i\\.j\\-k\\+l\\!m",
                "a*b[c]d|e`f<g\\h#i.j-k+l!m",
            ),
            ("api&#95;key", "api_key"),
            ("api&#x5f;key &#X5F; &#95x", "api_key _ _x"),
            ("api&lowbar;key&period;x&colon;y", "api_key.x:y"),
            ("\"api\\u005fkey\"", "\"api_key\""),
            ("a\\/b", "a/b"),
            ("\\ud83d\\ude00!", "\u{1F600}!"),
            (
                "gh\u{AD}p_\u{200B}a\u{200C}b\u{200D}c\u{2060}d\u{FEFF}",
                "ghp_abcd",
            ),
            ("x&shy;y&#173;z", "xyz"),
            // Every other character no reader sees, raw or as a reference.
            (
                "a\u{200E}b\u{61C}c\u{2062}d\u{34F}e\u{FE0F}f\u{E0041}g\u{202E}h\u{2066}i\u{3164}j",
                "abcdefghij",
            ),
            ("a&#x202e;b&#xE0041;c&#65039;d", "abcd"),
            ("a\u{7}b\u{1b}[31mc\u{1b}]0;title\u{7}d\u{85}e", "abcde"),
            // Percent-encoded unreserved characters; reserved ones stay encoded.
            ("ghp%5Fabc%2d%2E%7e%41", "ghp_abc-.~A"),
            ("a%5Fb%3Dc%2Fd%20e", "a_b%3Dc%2Fd%20e"),
        ];
        for (src, want) in cases {
            let v = View::build(src).unwrap_or_else(|| panic!("no view for {src:?}"));
            assert_eq!(v.text, want, "{src:?}");
        }
    }

    #[test]
    fn ordinary_text_has_no_view() {
        for s in [
            "",
            "plain prose — with ünïcödé",
            "?page=2&amp;sort=desc &nbsp; & so on",
            "a\\nb\\tc",
            "\\u12",
            "&#;&#x;&unknown;",
            "C:\\Users\\me",
            "100% sure, %20 and %2F and %zz and %",
            "line\r\nbreaks\tand tabs",
            "“curly” — dashes – and ellipses… in English, 日本語のテキスト, Tiếng Việt",
            "emoji 😀 and a ZWJ-free flag 🇫🇷",
        ] {
            assert!(View::build(s).is_none(), "{s:?}");
        }
    }

    #[test]
    fn inline_tags_between_token_characters_vanish() {
        let cases = [
            ("ghp_abc<b>def</b>ghi", "ghp_abcdefghi"),
            ("ab<B>cd</B>ef", "abcdef"),
            ("ab<span class=\"x y\" data-k='1>2'>cd</span>ef", "abcdef"),
            (
                "ab<a href=\"https://x.example/?a=1&amp;b=2\">cd</a>ef",
                "abcdef",
            ),
            ("ab</b><em>cd</em ><wbr/>ef<WBR>gh", "abcdefgh"),
            ("key=<code>abc</code>", "key=abc</code>"),
            ("ab<STRONG\n  title=x>cd", "abcd"),
            ("ab<!-- <b> -->cd<!---->ef<!-->gh<!--->ij", "abcdefghij"),
        ];
        for (src, want) in cases {
            let v = View::build(src).unwrap_or_else(|| panic!("no view for {src:?}"));
            assert_eq!(v.text, want, "{src:?}");
        }
        for tag in INLINE_TAGS.iter().chain(&["x-k", "foo", "my-widget.v2"]) {
            let up = tag.to_uppercase();
            let src = format!("ab<{tag}>cd</{tag}>ef <{up}>x");
            let v = View::build(&src).unwrap_or_else(|| panic!("no view for {src:?}"));
            assert_eq!(v.text, format!("abcdef <{up}>x"), "{src:?}");
        }
    }

    #[test]
    fn other_markup_stays_as_written() {
        for s in [
            "<p>Use <code>git</code> and <b>bold</b> text</p>",
            "one</p><p>two",
            "one<br>two<div>three</div>four",
            "cell</td><td>next",
            "a<b",
            "a<b x=\"unterminated>b",
            "a<b <i>c",
            "a<!-- never closed b",
            "read <a href=\"/d\">more</a>.",
            "<span class=\"k\">const</span> client",
        ] {
            let v = View::build(s).map(|v| v.text);
            assert!(v.is_none(), "{s:?} -> {v:?}");
        }
        // Longer than a tag may be: kept.
        let long = format!("ab<span title=\"{}\">cd", "x".repeat(600));
        assert!(View::build(&long).is_none());
    }

    #[test]
    fn removed_tags_are_listed_by_source_range() {
        let src = "x ab<b>cd</b><i>ef</i>gh y";
        let v = View::build(src).unwrap_or_else(|| panic!("no view"));
        assert_eq!(v.text, "x abcdefgh y");
        let i = v.text.find("abcdefgh").unwrap_or(0);
        let (a, b) = (v.src_pos(i), v.src_pos(i + 8));
        assert_eq!(&src[a..b], "ab<b>cd</b><i>ef</i>gh");
        let tags: Vec<&str> = v.tags_in(a, b).iter().map(|&(s, e)| &src[s..e]).collect();
        assert_eq!(tags, ["<b>", "</b><i>", "</i>"]);
        assert!(v.tags_in(0, 2).is_empty());
        assert!(v.tags_in(b, a).is_empty());
    }

    #[test]
    fn spans_map_back_over_whole_escapes() {
        let src = "key: tok\\_with\\_under\\_scores &#95;end";
        let v = View::build(src).unwrap_or_else(|| panic!("no view"));
        let i = v.text.find("tok_with_under_scores").unwrap_or(0);
        let j = i + "tok_with_under_scores".len();
        assert_eq!(
            &src[v.src_pos(i)..v.src_pos(j)],
            "tok\\_with\\_under\\_scores"
        );
        let k = v.text.find("_end").unwrap_or(0);
        assert_eq!(&src[v.src_pos(k)..v.src_pos(k + 1)], "&#95;");
        assert_eq!(&src[v.src_pos(0)..v.src_pos(4)], "key:");
    }
}
