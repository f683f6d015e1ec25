//! Credentials the shape regex finds whole: a token family's token (its row in
//! `families` says where it starts, runs and what it must pass), `user:password@` in a URL,
//! `Bearer`/`Basic` credentials.

use super::families::Check;
use super::families::Family;
use super::names::credential_like;
use super::names::is_placeholder_text;
use super::names::is_placeholder_url;
use super::names::token_like;
use super::out::Out;
use super::url_parts::percent_decode;
use super::VALUE_MAX;

pub(super) fn bearer_prefix(b: &[u8]) -> Option<usize> {
    for word in [&b"bearer"[..], &b"basic"[..]] {
        if b.len() > word.len()
            && b[..word.len()].eq_ignore_ascii_case(word)
            && matches!(b[word.len()], b' ' | b'\t')
        {
            return Some(word.len());
        }
    }
    None
}

/// `://user:password@`: the password goes, the user name is scanned like any text.
pub(super) fn userinfo(out: &mut Out<'_, '_>, s: usize, e: usize, marker: &str) -> Option<usize> {
    let text = out.text;
    let inner = text.get(s + 3..e - 1)?;
    let Some(colon) = inner.find(':') else {
        // `://user@`: the user name goes only when it is a token.
        if !token_like(&percent_decode(inner)) {
            return None;
        }
        out.replace(s + 3, e - 1, marker);
        return Some(e);
    };
    let pw = &inner[colon + 1..];
    if is_placeholder_url(pw) {
        return None;
    }
    let user_start = s + 3;
    let pw_start = user_start + colon + 1;
    out.rescan(user_start, user_start + colon, marker);
    out.replace(pw_start, e - 1, marker);
    Some(e)
}

/// `Bearer <credential>` / `Basic <credential>` outside a header: keep the scheme.
pub(super) fn bearer(out: &mut Out<'_, '_>, s: usize, after: usize, marker: &str) -> Option<usize> {
    let text = out.text;
    let bytes = text.as_bytes();
    let mut ts = after;
    while ts < bytes.len() && matches!(bytes[ts], b' ' | b'\t') {
        ts += 1;
    }
    let mut te = ts;
    while te < bytes.len()
        && te - ts < VALUE_MAX
        && (bytes[te].is_ascii_alphanumeric()
            || matches!(bytes[te], b'.' | b'_' | b'~' | b'+' | b'/' | b'=' | b'-'))
    {
        te += 1;
    }
    while te > ts && bytes[te - 1] == b'.' {
        te -= 1;
    }
    let tok = text.get(ts..te)?;
    if is_placeholder_text(tok) {
        return None;
    }
    let basic = bytes[s..after].eq_ignore_ascii_case(b"basic");
    let ok = if basic {
        basic_ok(tok)
    } else if bytes[s] == b'b' {
        // Lower-case "bearer" is also an English word: only a token-like credential (not a
        // and not a path or a hex digest, which prose puts after it).
        !tok.contains('/')
            && !tok.bytes().all(|c| c.is_ascii_hexdigit() || c == b'-')
            && token_like(tok)
    } else {
        credential_like(tok, true)
    };
    if !ok {
        return None;
    }
    out.replace(ts, te, marker);
    Some(te)
}

/// A `Basic` credential is base64 of `user:password`.
pub(super) fn basic_ok(tok: &str) -> bool {
    if !tok
        .bytes()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'='))
    {
        return false;
    }
    match base64_decode(tok) {
        Some(raw) => {
            raw.contains(&b':')
                && std::str::from_utf8(&raw).is_ok_and(|s| s.chars().all(|c| !c.is_control()))
        }
        None => false,
    }
}

pub(super) fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let s = s.trim_end_matches('=');
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let mut acc: u32 = 0;
    let mut bits = 0;
    for c in s.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    if s.len() % 4 == 1 {
        return None;
    }
    Some(out)
}

/// A token of `family` matched at `s..e`: hidden from where its row says it starts to
/// where its run ends, when it passes its row's check.
pub(super) fn token(
    out: &mut Out<'_, '_>,
    family: &Family,
    s: usize,
    e: usize,
    marker: &str,
) -> Option<usize> {
    let bytes = out.text.as_bytes();
    let judged_whole = matches!(family.check, Check::MixedRun { .. });
    if judged_whole && s < out.dead_until {
        return None;
    }
    let start = family.start.at(bytes, s, e)?;
    let end = family.run.end(bytes, s, e);
    if !family.check.passes(bytes, s, e, end) {
        if judged_whole {
            out.dead_until = end;
        }
        return None;
    }
    out.replace(start, end, marker);
    Some(end)
}
