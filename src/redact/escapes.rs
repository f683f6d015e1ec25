//! The reader's view of a text: what a person sees once the format's escapes are undone.
//!
//! A converter escapes characters a secret is made of (`ghp\_abc`, `api&#95;key`,
//! `"api\u005fkey"`) and a page can hide invisible characters inside a token (a soft hyphen,
//! a zero-width space). Matching on the text as written misses all of them, yet a reader
//! (or a model) reads the secret at once. [`View::build`] undoes those escapes into a second
//! string and keeps a sparse map back to the original bytes, so that a span matched on the
//! view can be replaced in the original.
//!
//! What is undone:
//! - a backslash before ASCII punctuation (every CommonMark escape, and JSON's `\/` `\"`
//!   `\\`): the punctuation;
//! - JSON `\uXXXX` (surrogate pairs joined): the character;
//! - HTML numeric references (`&#95;`, `&#x5f;`, with or without `;`) and the named
//!   references of ASCII punctuation (`&lowbar;`, `&period;`, `&colon;`, `&sol;`, ...);
//! - soft hyphen U+00AD, zero-width space/non-joiner/joiner U+200B–U+200D, word joiner
//!   U+2060 and U+FEFF: removed.
//!
//! What is NOT undone, on purpose: `&amp;` (no token family contains `&`, and the URL
//! classifier already reads `&amp;` as a query separator; leaving it keeps ordinary HTML on
//! the fast path), `\n`/`\t`/`\r` (the PEM and value classifiers read them as written), and
//! percent-encoding (handled where URLs are parsed).
//!
//! Must never: panic on any input, or build a view when nothing would change (the caller's
//! fast path depends on [`View::build`] returning `None` for ordinary text).

/// Characters a page may slip into a token that no reader sees.
const INVISIBLE: &[char] = &[
    '\u{AD}', '\u{200B}', '\u{200C}', '\u{200D}', '\u{2060}', '\u{FEFF}',
];

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
}

impl View {
    /// The view of `src`, or `None` when `src` holds no escape or invisible character
    /// (then the view would equal the text). Cost: one byte search over `src`.
    pub fn build(src: &str) -> Option<View> {
        let bytes = src.as_bytes();
        let mut view: Option<View> = None;
        let mut copied = 0;
        let mut from = 0;
        // A plain byte search (it vectorises): `\`, `&`, and the lead bytes of the invisible
        // characters (U+00AD is C2 AD; U+200B-D, U+2060 start E2; U+FEFF is EF BB BF).
        while let Some(i) = bytes[from..]
            .iter()
            .position(|&c| matches!(c, b'\\' | b'&' | 0xC2 | 0xE2 | 0xEF))
        {
            let at = from + i;
            from = at + 1;
            if at < copied {
                continue;
            }
            let Some((len, decoded)) = decode_at(src, at) else {
                continue;
            };
            let v = view.get_or_insert_with(|| View {
                text: String::with_capacity(src.len()),
                anchors: Vec::new(),
            });
            v.text.push_str(&src[copied..at]);
            if let Some(c) = decoded {
                // A decoded invisible character is dropped like a raw one.
                if !INVISIBLE.contains(&c) {
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

    /// The original offset of view offset `pos` (a char boundary of the view). A span
    /// `a..b` of the view maps to `src_pos(a)..src_pos(b)`, whole escapes included.
    pub fn src_pos(&self, pos: usize) -> usize {
        let i = self.anchors.partition_point(|&(vp, _)| vp <= pos);
        match i.checked_sub(1).and_then(|i| self.anchors.get(i)) {
            Some(&(vp, sp)) => sp + (pos - vp),
            None => pos,
        }
    }
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
        _ => {
            let c = src.get(at..)?.chars().next()?;
            INVISIBLE.contains(&c).then_some((c.len_utf8(), None))
        }
    }
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
        ] {
            assert!(View::build(s).is_none(), "{s:?}");
        }
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
