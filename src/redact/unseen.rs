//! What no reader sees: the characters a browser or a terminal shows as nothing, and the
//! HTML elements that do not break a word. The reader's view (`escapes`) drops
//! both when it looks for secrets, the DOM pass reads text across such elements, and
//! [`super::controls`] removes the characters that only ever carry hidden text.
//!
//! Must never: call a character that a reader sees unseen in a way that could hide text
//! (the view only ever *matches* across these characters; the text handed out keeps every
//! one of them except [`is_hidden_channel`]'s).

/// Is `c` invisible to a reader, so that a token with it inside reads as one word?
///
/// - every format character (Unicode category Cf): soft hyphen, zero-width space,
///   non-joiner and joiner, LRM/RLM/ALM, bidi embeddings, overrides and isolates, the
///   word joiner and the invisible operators U+2060–U+2064, U+FEFF, interlinear
///   annotation anchors, Arabic and Syriac number signs, tag characters, ...;
/// - the rest of Unicode's Default_Ignorable_Code_Point: the combining grapheme joiner
///   U+034F, Hangul fillers U+115F, U+1160, U+3164, U+FFA0, Khmer inherent vowels U+17B4–5,
///   Mongolian free variation selectors U+180B–U+180F, variation selectors U+FE00–U+FE0F
///   and U+E0100–U+E01EF, and the unassigned ignorables up to U+E0FFF;
/// - control characters other than tab, line feed and carriage return (C0, DEL, C1),
///   which vetch removes from everything it hands out.
pub fn is_unseen(c: char) -> bool {
    matches!(
        c,
        '\u{00}'..='\u{08}'
            | '\u{0B}'
            | '\u{0C}'
            | '\u{0E}'..='\u{1F}'
            | '\u{7F}'..='\u{9F}'
            | '\u{AD}'
            | '\u{34F}'
            | '\u{600}'..='\u{605}'
            | '\u{61C}'
            | '\u{6DD}'
            | '\u{70F}'
            | '\u{890}'..='\u{891}'
            | '\u{8E2}'
            | '\u{115F}'..='\u{1160}'
            | '\u{17B4}'..='\u{17B5}'
            | '\u{180B}'..='\u{180F}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{206F}'
            | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FEFF}'
            | '\u{FFA0}'
            | '\u{FFF0}'..='\u{FFFB}'
            | '\u{110BD}'
            | '\u{110CD}'
            | '\u{13430}'..='\u{1343F}'
            | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0000}'..='\u{E0FFF}'
    )
}

/// May the UTF-8 sequence starting with bytes `a`, `b` be an [`is_unseen`] character
/// (other than an ASCII control)? A cheap test on two bytes; the caller decodes to be sure.
pub fn may_be_unseen(a: u8, b: u8) -> bool {
    match a {
        0xC2 => b <= 0x9F || b == 0xAD,
        0xCD => b == 0x8F,
        0xD8 => b <= 0x85 || b == 0x9C,
        0xDB => b == 0x9D,
        0xDC => b == 0x8F,
        0xE0 => b == 0xA2 || b == 0xA3,
        0xE1 => b == 0x85 || b == 0x9E || b == 0xA0,
        0xE2 => b == 0x80 || b == 0x81,
        0xE3 => b == 0x85,
        0xEF => matches!(b, 0xB8 | 0xBB | 0xBE | 0xBF),
        0xF0 => matches!(b, 0x91 | 0x93 | 0x9B | 0x9D),
        0xF3 => b == 0xA0,
        _ => false,
    }
}

/// Lead bytes of the characters [`may_be_unseen`] may accept: a chunk of text without any
/// of them (and without an ASCII control) holds no unseen character.
pub const UNSEEN_LEADS: [u8; 12] = [
    0xC2, 0xCD, 0xD8, 0xDB, 0xDC, 0xE0, 0xE1, 0xE2, 0xE3, 0xEF, 0xF0, 0xF3,
];

/// Is `c` a character whose only use in a page is to carry or reorder text a reader does
/// not see: a Unicode tag character (U+E0000–U+E007F, the "ASCII smuggling" channel of
/// hidden prompts) or a bidi embedding, override or isolate control (U+202A–U+202E,
/// U+2066–U+2069, which can make text read in another order than it is stored)?
/// [`super::controls::strip_controls`] removes them from everything vetch hands out.
pub fn is_hidden_channel(c: char) -> bool {
    matches!(c, '\u{E0000}'..='\u{E007F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// HTML elements that end a word: blocks, line breaks, table parts, list items, form
/// controls, embedded content and the document's own structure. Every other element,
/// the inline ones (`b`, `span`, `a`, `wbr`, ...) and unknown or custom ones (`<x-k>`,
/// `<foo>`: a browser renders those inline), is read across, as one word.
const BREAKING: &[&str] = &[
    "address",
    "applet",
    "area",
    "article",
    "aside",
    "audio",
    "base",
    "basefont",
    "blockquote",
    "body",
    "br",
    "button",
    "canvas",
    "caption",
    "center",
    "col",
    "colgroup",
    "dd",
    "details",
    "dialog",
    "dir",
    "div",
    "dl",
    "dt",
    "embed",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "frame",
    "frameset",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "head",
    "header",
    "hgroup",
    "hr",
    "html",
    "iframe",
    "input",
    "isindex",
    "keygen",
    "legend",
    "li",
    "link",
    "listing",
    "main",
    "marquee",
    "math",
    "menu",
    "menuitem",
    "meta",
    "meter",
    "nav",
    "noembed",
    "noframes",
    "noscript",
    "object",
    "ol",
    "optgroup",
    "option",
    "output",
    "p",
    "param",
    "picture",
    "plaintext",
    "pre",
    "progress",
    "rp",
    "rt",
    "script",
    "search",
    "section",
    "select",
    "source",
    "style",
    "summary",
    "svg",
    "table",
    "tbody",
    "td",
    "template",
    "textarea",
    "tfoot",
    "th",
    "thead",
    "title",
    "tr",
    "track",
    "ul",
    "video",
    "xmp",
];

/// Does the element named `name` (any case) end a word? See `BREAKING`.
///
/// A binary search of the sorted, lower-case list (a test keeps it so): this runs for
/// every element of every page, and a scan of the 97 names cost hundreds of
/// instructions an element.
pub fn element_breaks_words(name: &str) -> bool {
    let mut buf = [0u8; 16];
    let Some(lower) = buf.get_mut(..name.len()) else {
        return false; // Longer than any name in the list.
    };
    lower.copy_from_slice(name.as_bytes());
    lower.make_ascii_lowercase();
    BREAKING
        .binary_search_by(|b| b.as_bytes().cmp(lower))
        .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The two-byte test accepts every unseen character outside ASCII, and the lead list
    /// holds the first byte of each.
    #[test]
    fn byte_tests_cover_every_unseen_character() {
        let mut buf = [0u8; 4];
        for c in (0x80u32..=0x10FFFF).filter_map(char::from_u32) {
            if !is_unseen(c) {
                continue;
            }
            let s = c.encode_utf8(&mut buf).as_bytes();
            assert!(UNSEEN_LEADS.contains(&s[0]), "{c:?}");
            assert!(may_be_unseen(s[0], s[1]), "{c:?}");
        }
    }

    /// `element_breaks_words` searches `BREAKING` by halves: it must stay sorted, in lower
    /// case, and shorter than its buffer; and it agrees with a scan in any letter case.
    #[test]
    fn breaking_names_are_sorted_for_the_search() {
        assert!(BREAKING.windows(2).all(|w| w[0] < w[1]));
        assert!(BREAKING
            .iter()
            .all(|b| b.len() <= 16 && *b == b.to_ascii_lowercase()));
        for name in BREAKING.iter().map(|b| b.to_string()).chain(
            [
                "B",
                "span",
                "DiV",
                "x-k",
                "",
                "blockquotes",
                "a-very-long-custom-name",
            ]
            .map(String::from),
        ) {
            let scan = BREAKING.iter().any(|b| b.eq_ignore_ascii_case(&name));
            assert_eq!(element_breaks_words(&name), scan, "{name}");
            assert_eq!(
                element_breaks_words(&name.to_ascii_uppercase()),
                scan,
                "{name}"
            );
        }
    }

    #[test]
    fn unseen_table() {
        for c in [
            '\u{AD}',
            '\u{200B}',
            '\u{200E}',
            '\u{61C}',
            '\u{2062}',
            '\u{34F}',
            '\u{FE0F}',
            '\u{E0041}',
            '\u{202E}',
            '\u{2066}',
            '\u{3164}',
            '\u{1B}',
            '\u{85}',
        ] {
            assert!(is_unseen(c), "{c:?}");
        }
        for c in [
            'a', ' ', '\n', '\t', '\r', 'é', '日', '\u{2014}', '\u{A0}', '😀',
        ] {
            assert!(!is_unseen(c), "{c:?}");
        }
        for c in ['\u{E0001}', '\u{E007F}', '\u{202A}', '\u{2069}'] {
            assert!(is_hidden_channel(c), "{c:?}");
        }
        for c in ['\u{200B}', '\u{200E}', '\u{200D}', '\u{FE0F}', '\u{E0100}'] {
            assert!(!is_hidden_channel(c), "{c:?}");
        }
    }

    #[test]
    fn elements_that_break_words() {
        for n in ["p", "DIV", "br", "td", "li", "h2", "input"] {
            assert!(element_breaks_words(n), "{n}");
        }
        for n in ["b", "span", "wbr", "a", "x-k", "foo", "my-widget", "code"] {
            assert!(!element_breaks_words(n), "{n}");
        }
    }
}
