//! Control characters: nothing a page or a server sends may drive the reader's terminal or
//! smuggle invisible instructions to a model. [`strip_controls`] removes C0/C1 control
//! characters (all but newline and tab), whole terminal escape sequences, Unicode tag
//! characters and bidi embedding, override and isolate controls (see
//! [`super::unseen::is_hidden_channel`]); the lookup applies it to every text, title and
//! detail it makes, the DOM pass to the page before conversion, and the printer once more
//! to everything it writes.

use std::borrow::Cow;
use std::str::Chars;

use super::unseen::is_hidden_channel;

/// How far an escape string (OSC, DCS, APC, PM, SOS) is searched for its terminator. An
/// unterminated one loses only its introducer, not the rest of the text.
const MAX_ESCAPE_STRING: usize = 4096;

/// `text` without control characters other than `\n` and `\t`: C0 controls, DEL and C1
/// controls go, and so does every terminal escape sequence they start (CSI `ESC [ … final`,
/// OSC `ESC ] … BEL` or `ESC \\`, DCS/APC/PM/SOS strings, two-byte `ESC X`; and their C1
/// forms). Tag characters and bidi embedding, override and isolate controls go too. A
/// lone `\r` becomes `\n` (it would let a line overwrite the one before it on a
/// terminal); `\r\n` becomes `\n`. Text without any of these comes back borrowed.
pub fn strip_controls(text: &str) -> Cow<'_, str> {
    let Some(first) = next_control(text, 0) else {
        return Cow::Borrowed(text);
    };
    // The text between two changes is copied whole.
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut at = Some(first);
    while let Some(p) = at {
        out.push_str(text.get(copied..p).unwrap_or(""));
        let rest = text.get(p..).unwrap_or("");
        let removed = if rest.starts_with('\r') {
            if !rest.get(1..).is_some_and(|r| r.starts_with('\n')) {
                out.push('\n');
            }
            1
        } else {
            // At least the character itself, so the loop always moves on.
            removed_len(rest).max(rest.chars().next().map_or(1, char::len_utf8))
        };
        copied = p + removed;
        at = next_control(text, copied);
    }
    out.push_str(text.get(copied..).unwrap_or(""));
    Cow::Owned(out)
}

/// Where [`strip_controls`] would change `text`: each character it removes or rewrites
/// (a `\r`), as a byte span (see [`next_control`]).
pub fn changed_spans(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(at) = next_control(text, i) {
        let len = text
            .get(at..)
            .and_then(|s| s.chars().next())
            .map_or(1, char::len_utf8);
        out.push((at, at + len));
        i = at + len;
    }
    out
}

/// The byte length of what [`strip_controls`] removes at the start of `s`: a control
/// character with the escape sequence it introduces, or a tag or bidi character; 0 when
/// `s` starts with anything else (`\r`, which becomes `\n`, included).
pub fn removed_len(s: &str) -> usize {
    let mut chars = s.chars();
    match chars.next() {
        Some('\n' | '\t' | '\r') | None => 0,
        Some(c) if c.is_control() => {
            skip_sequence(c, &mut chars);
            s.len() - chars.as_str().len()
        }
        Some(c) if is_hidden_channel(c) => c.len_utf8(),
        Some(_) => 0,
    }
}

fn peek(chars: &Chars) -> Option<char> {
    chars.clone().next()
}

/// After the control character `c`: skip the rest of the escape sequence it starts.
fn skip_sequence(c: char, chars: &mut Chars) {
    match c {
        '\u{1b}' => match peek(chars) {
            Some('[') => {
                chars.next();
                skip_csi(chars);
            }
            Some(']' | 'P' | 'X' | '^' | '_') => {
                chars.next();
                skip_string(chars);
            }
            Some(' '..='/') => {
                // nF: intermediates, then one final byte.
                while peek(chars).is_some_and(|c| (' '..='/').contains(&c)) {
                    chars.next();
                }
                if peek(chars).is_some_and(|c| ('0'..='~').contains(&c)) {
                    chars.next();
                }
            }
            Some('0'..='~') => {
                chars.next();
            }
            _ => {}
        },
        '\u{9b}' => skip_csi(chars),
        '\u{90}' | '\u{98}' | '\u{9d}' | '\u{9e}' | '\u{9f}' => skip_string(chars),
        _ => {}
    }
}

/// Where the first character at or after `from` (a character boundary) lies that
/// [`strip_controls`] removes or changes: a control but `\n` and `\t`, or a hidden-channel
/// character. Bytes are tested 32 at a time without an early exit, so the test vectorises;
/// only a chunk holding a byte that may start one (a C0 control, DEL, or the lead byte of
/// a C1 control, a bidi control or a tag character: 0xC2, 0xE2, 0xF3) is looked at closely.
fn next_control(text: &str, from: usize) -> Option<usize> {
    const CHUNK: usize = 32;
    let may_start = |x: u8| {
        ((x < 0x20) & (x != b'\n') & (x != b'\t'))
            | (x == 0x7f)
            | (x == 0xc2)
            | (x == 0xe2)
            | (x == 0xf3)
    };
    let changed = |c: char| (c.is_control() && c != '\n' && c != '\t') || is_hidden_channel(c);
    // Each byte `may_start` accepts is ASCII or a lead byte: a character starts there.
    let first_in = |start: usize, chunk: &[u8]| {
        chunk
            .iter()
            .enumerate()
            .filter(|(_, &x)| may_start(x))
            .map(|(k, _)| start + k)
            .find(|&p| {
                text.get(p..)
                    .and_then(|s| s.chars().next())
                    .is_some_and(changed)
            })
    };
    let mut chunks = text.as_bytes().get(from..)?.chunks_exact(CHUNK);
    let mut at = from;
    for chunk in &mut chunks {
        let hit = chunk
            .iter()
            .fold(0u8, |hit, &x| hit | u8::from(may_start(x)));
        if hit != 0 {
            if let Some(p) = first_in(at, chunk) {
                return Some(p);
            }
        }
        at += CHUNK;
    }
    first_in(at, chunks.remainder())
}

/// The rest of a CSI sequence: parameter and intermediate bytes, then one final byte.
fn skip_csi(chars: &mut Chars) {
    while peek(chars).is_some_and(|c| (' '..='?').contains(&c)) {
        chars.next();
    }
    if peek(chars).is_some_and(|c| ('@'..='~').contains(&c)) {
        chars.next();
    }
}

/// The rest of an escape string up to its terminator (BEL, `ESC \\` or ST), when one comes
/// within [`MAX_ESCAPE_STRING`] characters; otherwise nothing is skipped.
fn skip_string(chars: &mut Chars) {
    let mut ahead = chars.clone();
    let mut n = 0usize;
    while let Some(c) = ahead.next() {
        n += 1;
        let end = match c {
            '\u{7}' | '\u{9c}' => true,
            '\u{1b}' if peek(&ahead) == Some('\\') => {
                ahead.next();
                true
            }
            _ => false,
        };
        if end {
            *chars = ahead;
            return;
        }
        if n >= MAX_ESCAPE_STRING {
            return;
        }
    }
}

/// [`strip_controls`] on every string of a JSON value (keys too), in place.
pub fn strip_controls_json(value: &mut serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::String(s) => {
            if let Cow::Owned(clean) = strip_controls(s) {
                *s = clean;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(strip_controls_json),
        Value::Object(map) => {
            if map
                .keys()
                .any(|k| matches!(strip_controls(k), Cow::Owned(_)))
            {
                let old = std::mem::take(map);
                for (k, v) in old {
                    map.insert(strip_controls(&k).into_owned(), v);
                }
            }
            map.values_mut().for_each(strip_controls_json);
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The spans are exactly where `strip_controls` changes the text: controls with their
    /// sequence's first character, `\r`, bidi and tag characters; not `\n`, `\t` or é.
    #[test]
    fn changed_spans_are_where_strip_controls_changes() {
        let text = "a\u{7}b\r\nc\u{202E}d é\u{E0041}\t\n";
        let spans = changed_spans(text);
        let at: Vec<&str> = spans.iter().map(|&(a, b)| &text[a..b]).collect();
        assert_eq!(at, ["\u{7}", "\r", "\u{202E}", "\u{E0041}"]);
        assert!(changed_spans("plain text, é and ü\n\tend").is_empty());
        assert_eq!(
            strip_controls("plain text, é and ü\n\tend"),
            "plain text, é and ü\n\tend"
        );
    }

    #[test]
    fn strip_controls_table() {
        let cases: &[(&str, &str)] = &[
            ("plain text\n\tindented", "plain text\n\tindented"),
            ("a\u{1b}[2Jb", "ab"),
            ("a\u{1b}[1;31mred\u{1b}[0m", "ared"),
            ("x\u{1b}]52;c;SGVsbG8=\u{7}y", "xy"),
            ("x\u{1b}]0;title\u{1b}\\y", "xy"),
            ("x\u{9b}2Jy", "xy"),
            ("x\u{9d}8;;http://e\u{9c}y", "xy"),
            ("nul\u{0}bell\u{7}del\u{7f}c1\u{85}", "nulbelldelc1"),
            ("crlf\r\nlone\rcr", "crlf\nlone\ncr"),
            ("\u{1b}c reset", " reset"),
            ("\u{1b}(B charset", " charset"),
            (
                "unterminated \u{1b}]0;keep this",
                "unterminated 0;keep this",
            ),
            ("é 日本 \u{200b}", "é 日本 \u{200b}"),
            // Tag characters (hidden ASCII) and bidi overrides go; marks, joiners and
            // variation selectors, which real text uses, stay.
            (
                "say\u{E0001}\u{E0069}\u{E0067}\u{E006E}\u{E007F} hi",
                "say hi",
            ),
            ("a\u{202E}cba\u{202C} \u{2067}x\u{2069}", "acba x"),
            (
                "\u{200E}\u{200F}\u{200D}\u{FE0F}\u{E0100}",
                "\u{200E}\u{200F}\u{200D}\u{FE0F}\u{E0100}",
            ),
        ];
        for (input, want) in cases {
            assert_eq!(strip_controls(input), *want, "{input:?}");
        }
        assert!(matches!(strip_controls("calm"), Cow::Borrowed(_)));
        assert!(matches!(
            strip_controls("“quoted” — dash"),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn removed_len_measures_what_strip_removes() {
        for (s, want) in [
            ("\u{1b}[2Jrest", 4),
            ("\u{1b}]0;t\u{7}rest", 6),
            ("\u{7}x", 1),
            ("\u{202E}x", 3),
            ("\u{E0041}x", 4),
            ("\rx", 0),
            ("\nx", 0),
            ("x", 0),
            ("", 0),
        ] {
            assert_eq!(removed_len(s), want, "{s:?}");
            let stripped = strip_controls(s);
            if want > 0 {
                assert_eq!(&*stripped, &s[want..], "{s:?}");
            }
        }
    }

    /// The byte scan agrees with decoding every char, wherever a control stands (chunk
    /// edges included), beside multi-byte characters that share its lead byte.
    #[test]
    fn control_scan_agrees_with_char_scan() {
        // Where the first change is, and what the text becomes, character by character.
        let slow = |t: &str| {
            t.char_indices()
                .find(|&(_, c)| (c.is_control() && c != '\n' && c != '\t') || is_hidden_channel(c))
                .map(|(i, _)| i)
        };
        let slow_strip = |t: &str| {
            let mut out = String::new();
            let mut chars = t.chars();
            while let Some(c) = chars.next() {
                match c {
                    '\n' | '\t' => out.push(c),
                    '\r' => {
                        if peek(&chars) != Some('\n') {
                            out.push('\n');
                        }
                    }
                    c if c.is_control() => skip_sequence(c, &mut chars),
                    c if is_hidden_channel(c) => {}
                    c => out.push(c),
                }
            }
            out
        };
        let check = |t: &str| {
            assert_eq!(next_control(t, 0), slow(t), "{t:?}");
            assert_eq!(strip_controls(t), slow_strip(t), "{t:?}");
        };
        let pieces = [
            "a",
            " ",
            "\n",
            "\t",
            "\u{a0}",
            "\u{bf}",
            "\u{80}",
            "\u{9f}",
            "\u{85}",
            "\u{1b}",
            "\u{7f}",
            "\u{0}",
            "\r",
            "é",
            "日",
            "\u{2028}",
            "\u{c2}",
            "\u{100}",
            "😀",
            "\u{202e}",
            "\u{2069}",
            "\u{2014}",
            "\u{e0041}",
            "\u{e0100}",
            "\u{f3a0}",
            // Escape sequences' parts, so that sequences form.
            "[",
            "]",
            "\u{7}",
            "\\",
            "m",
            "\r\n",
            "\u{9b}",
        ];
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for len in 0..300 {
            for _ in 0..20 {
                let mut t = String::new();
                for _ in 0..len {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    // Mostly plain letters, so that controls land anywhere in a chunk.
                    let k = (seed % 64) as usize;
                    t.push_str(if k < pieces.len() { pieces[k] } else { "x" });
                }
                check(&t);
            }
        }
        for n in 0..200 {
            for p in [
                "\u{85}",
                "\u{1f}",
                "\u{7f}",
                "\u{a0}",
                "\u{202a}",
                "\u{e007f}",
            ] {
                let t = format!("{}{p}{}", "y".repeat(n), "z".repeat(n % 7));
                check(&t);
            }
        }
    }

    #[test]
    fn strip_controls_in_json_values_and_keys() {
        let mut v =
            serde_json::json!({"a\u{1b}[2J": ["x\u{7}", {"k": "\u{1b}]0;t\u{7}ok"}], "n": 1});
        strip_controls_json(&mut v);
        assert_eq!(v, serde_json::json!({"a": ["x", {"k": "ok"}], "n": 1}));
    }
}
