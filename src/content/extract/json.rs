//! JSON bodies re-indented with two spaces, without re-encoding a token.

/// JSON nested deeper than this is returned as it is (serde_json's own recursion limit).
pub const MAX_JSON_DEPTH: usize = 128;

/// Re-indent valid JSON with two spaces. The tokens are copied as they are (no number or
/// string re-encoding), so big integers, `1.0`, key order and duplicate keys survive.
///
/// `None` (the caller returns the body as it is) when the JSON does not parse, nests
/// deeper than [`MAX_JSON_DEPTH`], or would grow past [`max_pretty_len`]: indentation
/// costs two bytes per level per line, so hostile nesting (`[[[[…]]]]`) would otherwise
/// turn 40 KB into 800 MB.
pub(crate) fn pretty_json(body: &str) -> Option<String> {
    let src = body.trim_start_matches('\u{feff}');
    // `IgnoredAny` skips values without serde_json's recursion limit, so depth is
    // checked below while re-indenting.
    serde_json::from_str::<serde::de::IgnoredAny>(src).ok()?;
    let limit = max_pretty_len(src.len());
    let mut out = String::with_capacity(src.len() + src.len() / 2);
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let mut chars = src.chars().peekable();
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        for _ in 0..depth {
            out.push_str("  ");
        }
    };
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '{' | '[' => {
                let close = if c == '{' { '}' } else { ']' };
                while chars.peek().is_some_and(|n| n.is_ascii_whitespace()) {
                    chars.next();
                }
                out.push(c);
                if chars.peek() == Some(&close) {
                    chars.next();
                    out.push(close);
                } else {
                    depth += 1;
                    if depth > MAX_JSON_DEPTH {
                        return None;
                    }
                    newline(&mut out, depth);
                }
            }
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(c);
            }
            ',' => {
                out.push(',');
                newline(&mut out, depth);
                if out.len() > limit {
                    return None;
                }
            }
            ':' => out.push_str(": "),
            ' ' | '\t' | '\n' | '\r' => {}
            _ => out.push(c),
        }
    }
    (out.len() <= limit).then_some(out)
}

/// The longest pretty-printed JSON returned for a body of `len` bytes: four times the
/// body plus 64 KiB. Larger results (very many tiny values deep down) are returned as is.
pub fn max_pretty_len(len: usize) -> usize {
    len.saturating_mul(4).saturating_add(64 * 1024)
}
