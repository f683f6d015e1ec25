//! Control characters: nothing a page or a server sends may drive the reader's terminal or
//! smuggle invisible instructions to a model. [`strip_controls`] removes C0/C1 control
//! characters (all but newline and tab) and whole terminal escape sequences; the lookup
//! applies it to every text, title and detail it makes, the DOM pass to the page before
//! conversion, and the printer once more to everything it writes.

use std::borrow::Cow;
use std::iter::Peekable;
use std::str::Chars;

/// How far an escape string (OSC, DCS, APC, PM, SOS) is searched for its terminator. An
/// unterminated one loses only its introducer, not the rest of the text.
const MAX_ESCAPE_STRING: usize = 4096;

/// `text` without control characters other than `\n` and `\t`: C0 controls, DEL and C1
/// controls go, and so does every terminal escape sequence they start (CSI `ESC [ … final`,
/// OSC `ESC ] … BEL` or `ESC \\`, DCS/APC/PM/SOS strings, two-byte `ESC X`; and their C1
/// forms). A lone `\r` becomes `\n` (it would let a line overwrite the one before it on a
/// terminal); `\r\n` becomes `\n`. Text without controls comes back borrowed.
pub fn strip_controls(text: &str) -> Cow<'_, str> {
    if !text
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' | '\t' => out.push(c),
            '\r' => {
                if chars.peek() != Some(&'\n') {
                    out.push('\n');
                }
            }
            '\u{1b}' => match chars.peek().copied() {
                Some('[') => {
                    chars.next();
                    skip_csi(&mut chars);
                }
                Some(']' | 'P' | 'X' | '^' | '_') => {
                    chars.next();
                    skip_string(&mut chars);
                }
                Some(' '..='/') => {
                    // nF: intermediates, then one final byte.
                    while chars.peek().is_some_and(|c| (' '..='/').contains(c)) {
                        chars.next();
                    }
                    if chars.peek().is_some_and(|c| ('0'..='~').contains(c)) {
                        chars.next();
                    }
                }
                Some('0'..='~') => {
                    chars.next();
                }
                _ => {}
            },
            '\u{9b}' => skip_csi(&mut chars),
            '\u{90}' | '\u{98}' | '\u{9d}' | '\u{9e}' | '\u{9f}' => skip_string(&mut chars),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// The rest of a CSI sequence: parameter and intermediate bytes, then one final byte.
fn skip_csi(chars: &mut Peekable<Chars>) {
    while chars.peek().is_some_and(|c| (' '..='?').contains(c)) {
        chars.next();
    }
    if chars.peek().is_some_and(|c| ('@'..='~').contains(c)) {
        chars.next();
    }
}

/// The rest of an escape string up to its terminator (BEL, `ESC \\` or ST), when one comes
/// within [`MAX_ESCAPE_STRING`] characters; otherwise nothing is skipped.
fn skip_string(chars: &mut Peekable<Chars>) {
    let mut ahead = chars.clone();
    let mut n = 0usize;
    while let Some(c) = ahead.next() {
        n += 1;
        let end = match c {
            '\u{7}' | '\u{9c}' => true,
            '\u{1b}' if ahead.peek() == Some(&'\\') => {
                ahead.next();
                n += 1;
                true
            }
            _ => false,
        };
        if end {
            for _ in 0..n {
                chars.next();
            }
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
        ];
        for (input, want) in cases {
            assert_eq!(strip_controls(input), *want, "{input:?}");
        }
        assert!(matches!(strip_controls("calm"), Cow::Borrowed(_)));
    }

    #[test]
    fn strip_controls_in_json_values_and_keys() {
        let mut v =
            serde_json::json!({"a\u{1b}[2J": ["x\u{7}", {"k": "\u{1b}]0;t\u{7}ok"}], "n": 1});
        strip_controls_json(&mut v);
        assert_eq!(v, serde_json::json!({"a": ["x", {"k": "ok"}], "n": 1}));
    }
}
