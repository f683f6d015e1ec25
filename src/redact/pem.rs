//! PEM private keys: the BEGIN and END lines kept, the body hidden, whatever a reader
//! sees as its line breaks (newlines, escaped `\n`, `<br>`, Markdown hard breaks), on one
//! line, or cut short.

use super::out::{ceil_boundary, floor_boundary, Out};
use super::{PEM_MAX, TEXT_MARKER, URL_MARKER};

/// A PEM private key: keep the BEGIN and END lines, replace the body.
pub(super) fn pem(out: &mut Out<'_, '_>, e: usize, marker: &str) -> Option<usize> {
    let text = out.text;
    let bytes = text.as_bytes();
    let window_end = floor_boundary(text, e.saturating_add(PEM_MAX));
    const END: &str = "-----END ";
    let from = if out.pem_searched <= e && e < out.pem_no_end {
        ceil_boundary(text, out.pem_no_end.saturating_sub(END.len() - 1).max(e))
    } else {
        e
    };
    let found = text.get(from..window_end)?.find(END).map(|i| from + i);
    if found.is_none() {
        out.pem_searched = e;
        out.pem_no_end = window_end;
    }
    // The END line, unless a quote lies between (then BEGIN and END sit in different
    // strings of some serialized document, and the body must not swallow the quotes) or
    // another BEGIN line (then that END closes the later block).
    let end_line = found.filter(|&x| {
        text.get(e..x).is_some_and(|between| {
            !quote_outside_br(between.as_bytes()) && !between.contains("-----BEGIN")
        })
    });
    let body_end = match end_line {
        Some(x) => x,
        None => {
            // Truncated key: take the run of base64, header and line-break characters (a
            // backslash only as the start of an escaped `\n` or `\r` or of a Markdown hard
            // break, a `<` only as the start of a `<br>`).
            let mut i = e;
            while i < window_end {
                let c = bytes[i];
                let br = line_break_at(bytes, i);
                if br > 0 {
                    i += br;
                } else if c.is_ascii_alphanumeric()
                    || matches!(
                        c,
                        b'+' | b'/' | b'=' | b'\r' | b'\n' | b':' | b',' | b' ' | b'\t' | b'-'
                    )
                {
                    i += 1;
                } else {
                    break;
                }
            }
            floor_boundary(text, i.min(window_end))
        }
    };
    let body = text.get(e..body_end)?;
    // A real PEM body starts on the next line (after a newline, an escaped one, a `<br>`
    // or a Markdown hard break).
    let lead = newline_prefix(body);
    if lead == 0 {
        return pem_one_line(out, e, body, end_line.is_some(), marker);
    }
    let trail = newline_suffix(&body[lead..]);
    let core = &body[lead..body.len() - trail];
    let core_trim = core.trim();
    if core_trim.is_empty()
        || core_trim.starts_with(TEXT_MARKER)
        || core_trim.starts_with(URL_MARKER)
    {
        return None;
    }
    out.replace(e + lead, body_end - trail, marker);
    Some(body_end)
}

/// A PEM key on one line (a `<p>`, a table cell, a title) or with its lines joined by
/// spaces or `<br>` tags: the base64 between the BEGIN and END lines goes. Without an END
/// line (a cut page), a run of 40+ base64 characters after the BEGIN line goes.
pub(super) fn pem_one_line(
    out: &mut Out<'_, '_>,
    e: usize,
    body: &str,
    has_end: bool,
    marker: &str,
) -> Option<usize> {
    let b = body.as_bytes();
    let is_sep_at = |i: usize| -> usize {
        if matches!(b[i], b' ' | b'\t') {
            return 1;
        }
        line_break_at(b, i)
    };
    let mut i = 0;
    let mut first = None;
    let mut last = 0;
    let mut chars = 0;
    while i < b.len() {
        let n = is_sep_at(i);
        if n > 0 {
            i += n;
            continue;
        }
        let c = b[i];
        if !(c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'=')) {
            break;
        }
        first.get_or_insert(i);
        chars += 1;
        i += 1;
        last = i;
    }
    let first = first?;
    // With an END line the body must be nothing but base64 and separators.
    let whole = i == b.len();
    if (has_end && (!whole || chars < 16)) || (!has_end && (first == 0 || chars < 40)) {
        return None;
    }
    let core = body.get(first..last)?;
    if core.starts_with(URL_MARKER) || core.starts_with("REDACTED") {
        return None;
    }
    out.replace(e + first, e + last, marker);
    Some(e + last)
}

/// The length of the line break starting at `b[i]`, as a reader of the output sees one: a
/// real `\r\n`, `\n` or `\r`; JSON's escaped `\n` or `\r`; a Markdown hard break (a
/// backslash before a newline); or a `<br>` tag (any case, `<br/>`, `<br />`, with
/// attributes, at most 64 bytes), which is how forums and `nl2br` show a pasted key.
/// 0 when none starts there.
pub(super) fn line_break_at(b: &[u8], i: usize) -> usize {
    match b.get(i) {
        Some(b'\r') => 1 + usize::from(b.get(i + 1) == Some(&b'\n')),
        Some(b'\n') => 1,
        Some(b'\\') => match b.get(i + 1) {
            Some(b'n' | b'r' | b'\n') => 2,
            Some(b'\r') => 2 + usize::from(b.get(i + 2) == Some(&b'\n')),
            _ => 0,
        },
        Some(b'<') => {
            if !b
                .get(i + 1..i + 3)
                .is_some_and(|n| n.eq_ignore_ascii_case(b"br"))
            {
                return 0;
            }
            match b.get(i + 3) {
                Some(b'>') => 4,
                Some(b'/' | b' ' | b'\t' | b'\r' | b'\n') => {
                    let tail = &b[i + 3..b.len().min(i + 64)];
                    match tail.iter().position(|&c| c == b'>' || c == b'<') {
                        Some(k) if tail[k] == b'>' => 3 + k + 1,
                        _ => 0,
                    }
                }
                _ => 0,
            }
        }
        _ => 0,
    }
}

/// Does `b` hold a `"` outside a `<br …>` tag (whose attributes may be quoted)?
pub(super) fn quote_outside_br(b: &[u8]) -> bool {
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => return true,
            b'<' => i += line_break_at(b, i).max(1),
            _ => i += 1,
        }
    }
    false
}

/// Length of the leading run of blanks and line breaks (see [`line_break_at`]) when it
/// holds at least one line break; 0 otherwise.
pub(super) fn newline_prefix(s: &str) -> usize {
    let b = s.as_bytes();
    let (mut i, mut broke) = (0, false);
    loop {
        if matches!(b.get(i), Some(b' ' | b'\t')) {
            i += 1;
            continue;
        }
        let n = line_break_at(b, i);
        if n == 0 {
            break;
        }
        broke = true;
        i += n;
    }
    if broke {
        i
    } else {
        0
    }
}

/// Length of the trailing run of blanks and line breaks when it holds at least one line
/// break; 0 otherwise.
pub(super) fn newline_suffix(s: &str) -> usize {
    let b = s.as_bytes();
    let (mut i, mut content_end, mut broke) = (0, 0, false);
    while i < b.len() {
        if matches!(b[i], b' ' | b'\t') {
            i += 1;
            continue;
        }
        let n = line_break_at(b, i);
        if n > 0 {
            i += n;
            broke = true;
            continue;
        }
        i += 1;
        content_end = i;
        broke = false;
    }
    if broke {
        b.len() - content_end
    } else {
        0
    }
}
