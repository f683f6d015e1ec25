//! URLs: the userinfo password and the values of sensitive query and fragment parameters,
//! on the string as given (no normalisation).

use super::names::is_name_byte;
use super::names::is_placeholder_url;
use super::names::url_param_sensitive;
use super::names::Norm;
use super::out::Out;
use super::TEXT_MARKER;
use super::URL_MARKER;
use std::borrow::Cow;

/// Structural URL redaction on the string as given (no normalisation): the userinfo
/// password and the values of sensitive query and fragment parameters (names compared
/// percent-decoded and case-insensitively).
pub(super) fn redact_url_parts<'t>(s: &'t str, marker: &str) -> Cow<'t, str> {
    let bytes = s.as_bytes();
    let mut edits: Vec<(usize, usize)> = Vec::new();
    let lead = s.len() - s.trim_start().len();
    let mut rest_start = lead;
    // scheme ":" ["//" authority]
    let scheme_len = s[lead..]
        .bytes()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'.' | b'-'))
        .count();
    if bytes.get(lead + scheme_len) == Some(&b':') {
        rest_start = lead + scheme_len + 1;
        if s[rest_start..].starts_with("//") {
            let auth_start = rest_start + 2;
            let auth_end = s[auth_start..]
                .find(['/', '?', '#', '\\'])
                .map_or(s.len(), |i| auth_start + i);
            if let Some(at) = s[auth_start..auth_end].rfind('@') {
                let ui = &s[auth_start..auth_start + at];
                if let Some(colon) = ui.find(':') {
                    let pw = &ui[colon + 1..];
                    if !is_placeholder_url(pw) {
                        edits.push((auth_start + colon + 1, auth_start + at));
                    }
                }
            }
            rest_start = auth_end;
        }
    }
    let hash = s[rest_start..].find('#').map(|i| rest_start + i);
    let qend = hash.unwrap_or(s.len());
    if let Some(q) = s[rest_start..qend].find('?') {
        params(s, rest_start + q + 1, qend, b"&;", &mut edits);
    }
    if let Some(h) = hash {
        params(s, h + 1, s.len(), b"&;?#", &mut edits);
    }
    if edits.is_empty() {
        return Cow::Borrowed(s);
    }
    edits.sort_unstable();
    let mut out = Out::new(s);
    for (a, b) in edits {
        out.replace(a, b, marker);
    }
    out.finish()
}

/// Split `s[from..to]` on `seps` and record the value range of each sensitive `name=value`.
pub(super) fn params(
    s: &str,
    from: usize,
    to: usize,
    seps: &[u8],
    edits: &mut Vec<(usize, usize)>,
) {
    let bytes = s.as_bytes();
    let mut start = from;
    let mut i = from;
    while i <= to {
        if i == to || seps.contains(&bytes[i]) {
            if let Some(piece) = s.get(start..i) {
                if let Some(eq) = piece.find('=') {
                    let name = percent_decode(&piece[..eq]);
                    let val = &piece[eq + 1..];
                    let plausible = name
                        .bytes()
                        .all(|c| is_name_byte(c) || matches!(c, b'[' | b']'));
                    // Replaced whole unless it is exactly a marker (an earlier pass may
                    // have hidden only its first word).
                    let done = val == URL_MARKER
                        || val == TEXT_MARKER
                        || (!val.contains(URL_MARKER) && is_placeholder_url(val));
                    if plausible && url_param_sensitive(&name, &Norm::new(&name)) && !done {
                        edits.push((start + eq + 1, i));
                    } else if !done && nested_url_has_secret(val) {
                        // A URL carried inside a parameter (`?u=https%3A...%3Ftoken%3D...`):
                        // its own secrets are encoded out of reach, so the value goes whole.
                        edits.push((start + eq + 1, i));
                    }
                }
            }
            start = i + 1;
        }
        i += 1;
    }
}

/// Does `val`, percent-decoded, hold a URL whose query or fragment has a sensitive
/// parameter (at any depth)? Each level looks only at a strictly shorter string.
pub(super) fn nested_url_has_secret(val: &str) -> bool {
    if !val.contains('%') && !val.contains("://") {
        return false;
    }
    let decoded = percent_decode(val);
    let Some(scheme_end) = decoded.find("://") else {
        return false;
    };
    let Some(q) = decoded[scheme_end..]
        .find(['?', '#'])
        .map(|q| q + scheme_end)
    else {
        return false;
    };
    let mut nested = Vec::new();
    params(&decoded, q + 1, decoded.len(), b"&;#?", &mut nested);
    !nested.is_empty()
}

/// Percent-decode without the form rule that turns `+` into a space.
pub(super) fn percent_decode_keep_plus(s: &str) -> String {
    percent_decode(&s.replace('+', "%2B"))
}

pub(super) fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let hex = |c: u8| (c as char).to_digit(16);
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(if b[i] == b'+' { b' ' } else { b[i] });
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// In a string that starts like a URL but does not parse, the password of `scheme://user:
/// password@host`, found without trusting the delimiters: from the first `:` after `//`
/// to the last `@` (before any whitespace) that is followed by a host name.
pub(super) fn unparsed_userinfo(s: &str) -> Cow<'_, str> {
    let Some(p) = s.find("://") else {
        return Cow::Borrowed(s);
    };
    let scheme = &s[..p];
    let scheme = scheme.trim_start();
    let scheme_ok = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'.' | b'-'));
    let auth = p + 3;
    let end = s[auth..]
        .find(char::is_whitespace)
        .map_or(s.len(), |i| auth + i);
    let region = &s[auth..end];
    let host_follows = |i: usize| {
        region[i + 1..]
            .bytes()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'[')
    };
    let Some(at) = region
        .char_indices()
        .rev()
        .find(|&(i, c)| c == '@' && host_follows(i))
        .map(|(i, _)| i)
    else {
        return Cow::Borrowed(s);
    };
    let Some(colon) = region[..at].find(':') else {
        return Cow::Borrowed(s);
    };
    let pw = &region[colon + 1..at];
    if !scheme_ok || is_placeholder_url(pw) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(format!(
        "{}{URL_MARKER}{}",
        &s[..auth + colon + 1],
        &s[auth + at..]
    ))
}

/// Last resort when surgery broke a URL that parsed: a minimal URL of the same scheme.
pub(super) fn url_fallback(parsed: &url::Url) -> String {
    let scheme = parsed.scheme();
    for candidate in [
        format!("{scheme}://{URL_MARKER}/"),
        format!("{scheme}:{URL_MARKER}"),
        format!("{scheme}:///{URL_MARKER}"),
    ] {
        if url::Url::parse(&candidate).is_ok() {
            return candidate;
        }
    }
    format!("data:,{URL_MARKER}")
}
