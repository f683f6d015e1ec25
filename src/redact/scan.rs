//! The scan: one forward sweep of the shape regex and the literal matcher over a text,
//! each match handed to its classifier, then the neighbourhood of every change swept again
//! until nothing changes.

use super::shape_search::ShapeSearch;

use std::borrow::Cow;

use aho_corasick::AhoCorasick;

use super::out::{ceil_boundary, next_char, Out};
use super::{assign, pem, prose, shapes, tokens};
use super::{NAME_LOOKBACK, PEM_MAX, URL_LOOKBACK};

/// Redact `text`: one sweep, then re-check the neighbourhood of every change until nothing
/// changes. Hiding a value can remove a quote or a separator that decided a nearby match
/// (a name's start, a URL's `?`, the end of a header line), and redacting the output again
/// must find nothing left to do. Decisions look at most [`SETTLE_BACK`] bytes ahead of a
/// match and [`SETTLE_FWD`] bytes behind it, so only those windows are swept again: with
/// a few secrets on a page the extra work is a few kilobytes.
pub(super) fn scan<'t>(text: &'t str, marker: &str, lits: Option<&AhoCorasick>) -> Cow<'t, str> {
    let (first, mut edits) = sweep(text, marker, lits, None, None);
    if edits.is_empty() {
        return first;
    }
    let mut cur = first.into_owned();
    for _ in 0..8 {
        let windows = settle_windows(&edits, cur.len());
        let (next, more) = sweep(&cur, marker, lits, Some(&windows), None);
        if more.is_empty() {
            break;
        }
        cur = next.into_owned();
        edits = more;
    }
    Cow::Owned(cur)
}

/// How far before a change a match may start and still have read it (a PEM header looks
/// this far ahead for its END line; values and regex spans less).
pub(super) const SETTLE_BACK: usize = PEM_MAX + 512;
/// How far after a change a match may start and still have read it (URL context and names
/// look back at most this far).
pub(super) const SETTLE_FWD: usize = URL_LOOKBACK + NAME_LOOKBACK + 512;

pub(super) fn settle_windows(edits: &[(usize, usize)], len: usize) -> Vec<(usize, usize)> {
    let mut windows: Vec<(usize, usize)> = Vec::new();
    for &(a, b) in edits {
        let (ws, we) = (a.saturating_sub(SETTLE_BACK), (b + SETTLE_FWD).min(len));
        match windows.last_mut() {
            Some(last) if ws <= last.1 => last.1 = last.1.max(we),
            _ => windows.push((ws, we)),
        }
    }
    windows
}

/// One forward sweep over `text` (or over the given windows of it): the combined regex for
/// the shapes and the literal matcher, each match classified and either replaced or
/// declined. A declined match resumes one character later, so a shape that starts inside
/// it is still found. Returns the output and the spans it changed.
pub(super) fn sweep<'t>(
    text: &'t str,
    marker: &str,
    lits: Option<&AhoCorasick>,
    windows: Option<&[(usize, usize)]>,
    src_edits: Option<&mut Vec<(usize, usize)>>,
) -> (Cow<'t, str>, Vec<(usize, usize)>) {
    let mut shapes = ShapeSearch::new(text);
    let whole = [(0, text.len())];
    let windows = windows.unwrap_or(&whole);
    let mut out = Out::sweeping(text, lits, scan);
    let mut lits = lits;
    let mut pos = 0;
    // The next shape match and the next literal match at or after `pos`, kept between
    // turns so that neither search runs over the same bytes twice.
    let mut shape: Option<(usize, usize)> = None;
    let mut lit: Option<(usize, usize)> = None;
    let mut shapes_done = false;
    for &(ws, we) in windows {
        pos = ceil_boundary(text, pos.max(ws));
        let we = we.min(text.len());
        while pos < we {
            if !shapes_done && shape.is_none_or(|(s, _)| s < pos) {
                shape = shapes.find(pos);
                shapes_done = shape.is_none();
            }
            if let Some(ac) = lits {
                if lit.is_none_or(|(s, _)| s < pos) {
                    let input = aho_corasick::Input::new(text).span(pos..text.len());
                    lit = ac.find(input).map(|m| (m.start(), m.end()));
                    if lit.is_none() {
                        lits = None; // none left in the rest of the text
                    }
                }
            }
            let next = match (shape, lit) {
                // A registered secret first: it goes whatever surrounds it.
                (_, Some((ls, le))) if ls < we && shape.is_none_or(|(s, _)| ls <= s) => {
                    out.replace(ls, le, marker);
                    le
                }
                (Some((s, e)), _) if s < we => match classify(&mut out, s, e, marker) {
                    Some(resume) => {
                        let mut r = resume.max(e);
                        // A registered secret cut by that redaction goes whole: its tail
                        // beside a marker must not spell it again.
                        while let Some((_, le)) = lit.filter(|&(ls, le)| ls < r && r < le) {
                            out.replace(r, le, marker);
                            r = le;
                            lit = lits.and_then(|ac| {
                                let input = aho_corasick::Input::new(text).span(r..text.len());
                                ac.find(input).map(|m| (m.start(), m.end()))
                            });
                        }
                        r
                    }
                    None => next_char(text, s),
                },
                _ => break,
            };
            pos = ceil_boundary(text, next.max(pos + 1));
        }
    }
    let edits = std::mem::take(&mut out.edits);
    if let Some(src) = src_edits {
        *src = std::mem::take(&mut out.src_edits);
    }
    (out.finish(), edits)
}

/// Dispatch a match to its classifier. Returns where scanning resumes after a redaction,
/// or `None` when the match is not a secret.
pub(super) fn classify(out: &mut Out<'_, '_>, s: usize, e: usize, marker: &str) -> Option<usize> {
    let text = out.text;
    let m = text.get(s..e)?;
    let b = m.as_bytes();
    if b.starts_with(b"://") {
        return tokens::userinfo(out, s, e, marker);
    }
    if b.starts_with(b"-----") {
        return pem::pem(out, e, marker);
    }
    if let Some(plen) = tokens::bearer_prefix(b) {
        return tokens::bearer(out, s, s + plen, marker);
    }
    if b.len() >= 3 && matches!(b[0], b' ' | b'\t') && b[1] == b'-' {
        return prose::curl_user(out, s, e, marker);
    }
    // A token family before the name shapes: a token whose body may hold `=` (base64)
    // can end in one, and is still that family's token, not an assignment.
    if let Some(family) = shapes::family_of(b) {
        return tokens::token(out, family, s, e, marker);
    }
    if matches!(b.last(), Some(b' ' | b'\t')) && b[0].is_ascii_alphabetic() {
        return prose::prose(out, s, e, marker);
    }
    if matches!(b.last(), Some(b':' | b'=')) {
        return assign::assignment(out, s, e, marker);
    }
    if b.len() > 3 && b[b.len() - 3..].eq_ignore_ascii_case(b"%3d") {
        return assign::encoded_param(out, s, e, marker);
    }
    None
}
