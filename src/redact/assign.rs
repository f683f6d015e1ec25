//! Secrets by position: the value after a sensitive name (`name=value`, `name: value`,
//! URL parameters, percent-encoded names), and the credentials of `Authorization` and
//! `Cookie` headers.

use super::names::credential_like;
use super::names::is_name_byte;
use super::names::is_placeholder_text;
use super::names::is_placeholder_url;
use super::names::text_name_sensitive;
use super::names::url_param_sensitive;
use super::names::Norm;
use super::out::floor_boundary;
use super::out::Out;
use super::tokens::basic_ok;
use super::url_parts::nested_url_has_secret;
use super::url_parts::percent_decode;
use super::TEXT_MARKER;
use super::URL_MARKER;
use super::{NAME_LOOKBACK, URL_LOOKBACK, VALUE_MAX};

pub(super) fn assignment(out: &mut Out<'_, '_>, s: usize, e: usize, marker: &str) -> Option<usize> {
    let text = out.text;
    let bytes = text.as_bytes();
    let op_pos = e - 1;
    let op = bytes[op_pos];

    // Where the name ends: before spaces, a closing quote and an escaping backslash.
    let mut ne = op_pos;
    while ne > s && matches!(bytes[ne - 1], b' ' | b'\t') {
        ne -= 1;
    }
    let mut bracketed = ne > s && bytes[ne - 1] == b']';
    if bracketed {
        ne -= 1;
    }
    // `token[]=` / `token[0]=`: a form array of the name.
    let mut array = false;
    if bracketed && ne > s {
        let mut i = ne;
        while i > s && bytes[i - 1].is_ascii_digit() {
            i -= 1;
        }
        if i > s && bytes[i - 1] == b'[' {
            ne = i - 1;
            array = true;
            bracketed = false;
        }
    }
    let mut quoted_name = false;
    if ne > s && matches!(bytes[ne - 1], b'"' | b'\'') {
        quoted_name = true;
        ne -= 1;
        if ne > s && bytes[ne - 1] == b'\\' {
            ne -= 1;
        }
    }
    // Where the name starts: back over name characters.
    let mut ns = s;
    while ns > 0
        && s - ns < NAME_LOOKBACK
        && (is_name_byte(bytes[ns - 1]) || (bytes[ns - 1] == b'%' && pct_at(bytes, ns - 1)))
    {
        ns -= 1;
    }
    // A marker is never part of a name (`REDACTEDpassword` is `password`).
    if let Some(i) = text.get(ns..s).and_then(|run| run.rfind(URL_MARKER)) {
        ns += i + URL_MARKER.len();
    }
    let raw_name = text.get(ns..ne)?;
    // `api%5Fkey`: a percent-encoded name reads as `api_key`.
    let decoded;
    let name = if raw_name.contains('%') {
        decoded = percent_decode(raw_name);
        decoded.as_str()
    } else {
        raw_name
    };
    let prev = if ns > 0 { Some(bytes[ns - 1]) } else { None };
    let norm = Norm::new(name);

    // A URL query or fragment parameter: the value goes whatever its shape.
    if op == b'='
        && !quoted_name
        && !bracketed
        && (ne == op_pos || array)
        && matches!(prev, Some(b'?' | b'&' | b'#' | b';'))
        && url_context(text, ns - 1)
    {
        if !url_param_sensitive(name, &norm)
            && !text
                .get(e..url_param_end(text, e))
                .is_some_and(nested_url_has_secret)
        {
            return None;
        }
        return url_param_value(out, e, marker);
    }

    let name = name.trim_start_matches(['-', '.']);
    if !text_name_sensitive(name, &norm) {
        return None;
    }
    // The operator: `=`, `=>`, `:`, `:=`; not `==` or `::`, and a `:` glued to an unquoted
    // word is a `name:tag` reference (`vault:1.13.0`), not an assignment.
    let mut vs = e;
    let next = bytes.get(e).copied();
    match (op, next) {
        (b'=', Some(b'=')) => return None,
        (b'=', Some(b'>')) | (b':', Some(b'=')) => vs += 1,
        (b':', Some(c)) if !matches!(c, b' ' | b'\t' | b'"' | b'\'' | b'`' | b'\\') => return None,
        _ => {}
    }
    while vs < bytes.len() && matches!(bytes[vs], b' ' | b'\t') {
        vs += 1;
    }
    let rest = text.get(vs..)?;
    if rest.starts_with(TEXT_MARKER) || rest.starts_with(URL_MARKER) {
        return None;
    }
    let kind = header_kind(&norm);
    let (a, b, quoted) = parse_value(text, vs, kind != HeaderKind::None)?;
    let value = text.get(a..b)?;
    if value.starts_with(TEXT_MARKER) || value.starts_with(URL_MARKER) {
        return None;
    }
    match kind {
        HeaderKind::Authorization => auth_header(out, a, b, marker),
        HeaderKind::Cookie => cookie_header(out, a, b, marker),
        HeaderKind::None => {
            let v = text.get(a..b)?;
            if !credential_like(v, quoted) {
                return None;
            }
            out.replace(a, b, marker);
            Some(b)
        }
    }
}

/// Does `seg` hold a `"` that no backslash escapes?
pub(super) fn unescaped_quote(seg: &str) -> bool {
    let b = seg.as_bytes();
    (0..b.len()).any(|i| {
        b[i] == b'"' && {
            let mut n = 0;
            while i > n && b[i - n - 1] == b'\\' {
                n += 1;
            }
            n % 2 == 0
        }
    })
}

/// Is `b[i]` the `%` of a percent-escape `%XX`?
pub(super) fn pct_at(b: &[u8], i: usize) -> bool {
    b.get(i) == Some(&b'%')
        && b.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
        && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
}

/// `name%3Dvalue`: a parameter of a URL carried percent-encoded inside another (`?next=
/// https%3A%2F%2Fh%2F%3Ftoken%3Dabc%26x%3D1`). The value (up to the encoded `&` or `#`)
/// goes when the name is a sensitive URL parameter.
pub(super) fn encoded_param(
    out: &mut Out<'_, '_>,
    s: usize,
    e: usize,
    marker: &str,
) -> Option<usize> {
    let text = out.text;
    let bytes = text.as_bytes();
    let mut ns = s;
    while ns > 0
        && s - ns < NAME_LOOKBACK
        && !(ns >= 3 && pct_at(bytes, ns - 3))
        && (bytes[ns - 1].is_ascii_alphanumeric() || matches!(bytes[ns - 1], b'_' | b'-' | b'.'))
    {
        ns -= 1;
    }
    // The name must follow an encoded `?`, `&`, `#` (or a plain one, or a space).
    let before = text.get(..ns)?;
    let sep_ok = ns == 0
        || [b"%3F", b"%3f", b"%26", b"%23"]
            .iter()
            .any(|p| before.as_bytes().ends_with(*p))
        || matches!(
            bytes[ns - 1],
            b'?' | b'&' | b'#' | b' ' | b'\t' | b'\n' | b'"' | b'\''
        );
    let name = percent_decode(text.get(ns..e - 3)?);
    if !sep_ok || !url_param_sensitive(&name, &Norm::new(&name)) {
        return None;
    }
    let mut ve = url_param_end(text, e);
    if let Some(i) = text.get(e..ve).and_then(|v| {
        let l = v.to_ascii_lowercase();
        [l.find("%26"), l.find("%23")].into_iter().flatten().min()
    }) {
        ve = e + i;
    }
    let v = text.get(e..ve)?;
    if is_placeholder_url(&percent_decode(v)) || v.starts_with(TEXT_MARKER) {
        return None;
    }
    out.replace(e, ve, marker);
    Some(ve)
}

/// Is the `?`, `&`, `#` or `;` at `sep` inside a URL (or a form-encoded string)?
pub(super) fn url_context(text: &str, sep: usize) -> bool {
    let bytes = text.as_bytes();
    let c = bytes[sep];
    if matches!(c, b'?' | b'#') {
        return true;
    }
    let before = &bytes[..sep];
    let amp = c == b'&' || before.ends_with(b"&amp") || before.ends_with(b"&#38");
    // Back over the run of non-space, non-quote characters before the separator, stopping
    // at the first byte that settles it (usually the previous parameter's `=`).
    let mut i = sep;
    while i > 0 && sep - i < URL_LOOKBACK {
        let b = bytes[i - 1];
        if b.is_ascii_whitespace() || matches!(b, b'"' | b'\'' | b'<' | b'>' | b'`') {
            return false;
        }
        // `&`: a query string or a form-encoded body. `;`: a query separator, or a path
        // parameter such as `;jsessionid=`.
        if matches!(b, b'?' | b'#') || (amp && b == b'=') || (!amp && b == b'/') {
            return true;
        }
        i -= 1;
    }
    false
}

/// The value of a URL parameter: up to the next separator, quote or space.
/// Where a URL parameter value that starts at `vs` ends.
pub(super) fn url_param_end(text: &str, vs: usize) -> usize {
    let bytes = text.as_bytes();
    let mut ve = vs;
    while ve < bytes.len()
        && ve - vs < VALUE_MAX
        && !bytes[ve].is_ascii_whitespace()
        && !matches!(
            bytes[ve],
            b'&' | b'#'
                | b';'
                | b'?'
                | b'"'
                | b'\''
                | b'`'
                | b'<'
                | b'>'
                | b')'
                | b']'
                | b'}'
                | b'\\'
                | b'|'
                | b'^'
        )
    {
        ve += 1;
    }
    ve = floor_boundary(text, ve);
    while ve > vs && matches!(bytes[ve - 1], b'.' | b',' | b':' | b'!' | b'?') {
        ve -= 1;
    }
    ve
}

pub(super) fn url_param_value(out: &mut Out<'_, '_>, vs: usize, marker: &str) -> Option<usize> {
    let text = out.text;
    let ve = url_param_end(text, vs);
    let v = text.get(vs..ve)?;
    if is_placeholder_url(v) || text.get(vs..).is_some_and(|r| r.starts_with(TEXT_MARKER)) {
        return None;
    }
    out.replace(vs, ve, marker);
    Some(ve)
}

#[derive(PartialEq, Eq, Clone, Copy)]
pub(super) enum HeaderKind {
    None,
    Authorization,
    Cookie,
}

pub(super) fn header_kind(n: &Norm) -> HeaderKind {
    if n.is("authorization") || n.is("proxyauthorization") {
        HeaderKind::Authorization
    } else if n.is("cookie") || n.is("setcookie") {
        HeaderKind::Cookie
    } else {
        HeaderKind::None
    }
}

/// Find the value starting at `vs`: a quoted string (`"…"`, `'…'`, `` `…` ``, `\"…\"`),
/// the rest of the line for a header, or one unquoted word. Returns `(start, end, quoted)`.
pub(super) fn parse_value(text: &str, vs: usize, header: bool) -> Option<(usize, usize, bool)> {
    let bytes = text.as_bytes();
    let first = *bytes.get(vs)?;
    let limit = floor_boundary(text, vs.saturating_add(VALUE_MAX));
    if first == b'\\' && bytes.get(vs + 1) == Some(&b'"') {
        let a = vs + 2;
        let mut i = a;
        while i + 1 < limit && bytes[i] != b'\n' {
            if bytes[i] == b'\\' && bytes[i + 1] == b'"' {
                return Some((a, i, true));
            }
            i += 1;
        }
        return None;
    }
    if matches!(first, b'"' | b'\'' | b'`') {
        let a = vs + 1;
        let mut i = a;
        while i < limit && bytes[i] != b'\n' {
            if bytes[i] == first && bytes[i - 1] != b'\\' {
                return Some((a, i, true));
            }
            i += 1;
        }
        return None;
    }
    let mut i = vs;
    if header {
        while i < limit && !matches!(bytes[i], b'\r' | b'\n' | b'"' | b'\'' | b'`' | b'<' | b'\\') {
            i += 1;
        }
        let mut end = floor_boundary(text, i);
        while end > vs && matches!(bytes[end - 1], b' ' | b'\t') {
            end -= 1;
        }
        return Some((vs, end, false));
    }
    while i < limit
        && !bytes[i].is_ascii_whitespace()
        && !matches!(
            bytes[i],
            b'"' | b'\''
                | b'`'
                | b'<'
                | b'>'
                | b','
                | b';'
                | b')'
                | b']'
                | b'}'
                | b'\\'
                | b'&'
                | b'|'
        )
    {
        i += 1;
    }
    let mut end = floor_boundary(text, i);
    while end > vs && matches!(bytes[end - 1], b'.' | b':') {
        end -= 1;
    }
    Some((vs, end, false))
}

/// `Authorization: <scheme> <credentials>`: keep the scheme, hide the credentials.
pub(super) fn auth_header(
    out: &mut Out<'_, '_>,
    a: usize,
    b: usize,
    marker: &str,
) -> Option<usize> {
    let text = out.text;
    let region = text.get(a..b)?;
    let w1_len = region.find([' ', '\t']).unwrap_or(region.len());
    let w1 = &region[..w1_len];
    let after = region[w1_len..].trim_start_matches([' ', '\t']);
    if !after.is_empty() && is_scheme(w1) {
        let cs = b - after.len();
        let creds = after.trim_end_matches([' ', '\t', '.', ',', ';']);
        let first_len = creds.find([' ', '\t']).unwrap_or(creds.len());
        let first = &creds[..first_len];
        if is_placeholder_text(first) {
            return None;
        }
        let ok = if w1.eq_ignore_ascii_case("basic") {
            basic_ok(first) || credential_like(first, true)
        } else {
            credential_like(first, true)
        };
        if !ok {
            return None;
        }
        // Schemes with parameters (Digest, AWS4-HMAC-SHA256, ...) lose all of them; a
        // single-token scheme loses its token only.
        let ce = if first.contains('=') {
            cs + creds.len()
        } else {
            cs + first_len
        };
        out.rescan(a, a + w1_len, marker);
        out.replace(cs, ce, marker);
        return Some(ce);
    }
    let w = w1.trim_end_matches(['.', ',', ';']);
    if is_placeholder_text(w) || !credential_like(w, true) {
        return None;
    }
    out.replace(a, a + w.len(), marker);
    Some(a + w.len())
}

pub(super) fn is_scheme(w: &str) -> bool {
    let b = w.as_bytes();
    !b.is_empty()
        && b.len() <= 32
        && b[0].is_ascii_alphabetic()
        && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'-')
}

/// `Cookie: a=1; b=2` / `Set-Cookie: id=1; Path=/`: keep names and attributes, hide values.
pub(super) fn cookie_header(
    out: &mut Out<'_, '_>,
    a: usize,
    b: usize,
    marker: &str,
) -> Option<usize> {
    const ATTRS: &[&str] = &[
        "path",
        "domain",
        "expires",
        "max-age",
        "samesite",
        "secure",
        "httponly",
        "priority",
        "partitioned",
        "version",
        "comment",
    ];
    let text = out.text;
    let region = text.get(a..b)?;
    if !region.contains('=') {
        return None;
    }
    let mut edits: Vec<(usize, usize)> = Vec::new();
    let mut off = 0;
    for piece in region.split(';') {
        let ps = a + off;
        off += piece.len() + 1;
        let lead = piece.len() - piece.trim_start().len();
        let p = piece.trim();
        let Some(eq) = p.find('=') else { continue };
        let name = &p[..eq];
        let val = p[eq + 1..].trim();
        // A cookie name is an RFC 6265 token.
        let token = !name.is_empty()
            && name
                .bytes()
                .all(|c| c.is_ascii_graphic() && !b"()<>@,;:\\\"/[]?={}".contains(&c));
        if !token || ATTRS.iter().any(|x| name.eq_ignore_ascii_case(x)) || is_placeholder_url(val) {
            continue;
        }
        let vstart = ps + lead + eq + 1 + (p[eq + 1..].len() - p[eq + 1..].trim_start().len());
        edits.push((vstart, vstart + val.len()));
    }
    if edits.is_empty() {
        return None;
    }
    let mut cur = a;
    let mut end = a;
    for (vs, ve) in edits {
        out.rescan(cur, vs, marker);
        out.replace(vs, ve, marker);
        cur = ve;
        end = ve;
    }
    Some(end)
}
