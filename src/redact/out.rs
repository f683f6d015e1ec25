//! The output builder every classifier writes through: the text copied once, with spans
//! replaced in order, and the spans it changed kept for the settling sweeps.

use std::borrow::Cow;

use aho_corasick::AhoCorasick;

/// How a part a classifier keeps but has not judged is scanned (`scan::scan`, handed in by
/// the sweep that made the builder, so this module needs nothing above it).
pub(super) type Rescan = for<'a> fn(&'a str, &str, Option<&AhoCorasick>) -> Cow<'a, str>;

/// For builders that only replace known spans: nothing is scanned again.
fn keep<'a>(text: &'a str, _: &str, _: Option<&AhoCorasick>) -> Cow<'a, str> {
    Cow::Borrowed(text)
}

/// Copies the input through, replacing spans. Spans are applied in order; a span that
/// starts before the end of the previous one is skipped (never happens by construction).
pub(super) struct Out<'t, 'm> {
    pub(super) text: &'t str,
    /// Registered literal secrets, matched in the same forward sweep as the shapes.
    pub(super) lits: Option<&'m AhoCorasick>,
    pub(super) buf: String,
    pub(super) last: usize,
    pub(super) changed: bool,
    /// End of a run of body characters a `Check::MixedRun` family (`sk-`) already judged
    /// not a key: every match that starts inside it has a body that is a suffix of that
    /// run, so it is not a key either. Keeps `sk-sk-sk-...` linear.
    pub(super) dead_until: usize,
    /// No `-----END ` occurs in `pem_searched..pem_no_end`: later PEM headers search on from
    /// there. Keeps a page of unterminated BEGIN lines linear.
    pub(super) pem_searched: usize,
    pub(super) pem_no_end: usize,
    /// Spans of the output that differ from the input, in order.
    pub(super) edits: Vec<(usize, usize)>,
    /// The same spans in input offsets.
    pub(super) src_edits: Vec<(usize, usize)>,
    rescan: Rescan,
}

impl<'t, 'm> Out<'t, 'm> {
    /// A builder for known spans: [`Out::rescan`] copies its part unchanged.
    pub(super) fn new(text: &'t str) -> Self {
        Self::sweeping(text, None, keep)
    }

    /// A builder for a sweep: registered literals matched alongside, kept parts scanned
    /// again with `rescan`.
    pub(super) fn sweeping(text: &'t str, lits: Option<&'m AhoCorasick>, rescan: Rescan) -> Self {
        Out {
            rescan,
            text,
            lits,
            buf: String::new(),
            last: 0,
            changed: false,
            dead_until: 0,
            pem_searched: 0,
            pem_no_end: 0,
            edits: Vec::new(),
            src_edits: Vec::new(),
        }
    }

    /// Copy the text up to `start`, then write `with` instead of `start..end`.
    /// The span is kept off JSON escapes and rounded out to char boundaries.
    pub(super) fn replace(&mut self, start: usize, end: usize, with: &str) {
        let (start, end) = json_safe_span(self.text, start, end);
        let start = ceil_boundary(self.text, start);
        let end = ceil_boundary(self.text, end);
        if start < self.last || end <= start {
            return;
        }
        self.flush_to(start);
        let at = self.buf.len();
        self.buf.push_str(with);
        self.edits.push((at, self.buf.len()));
        self.src_edits.push((start, end));
        self.last = end;
    }

    /// Copy `start..end` through a fresh scan (for parts a classifier keeps but has not
    /// checked, such as the user name of `user:pass@`).
    pub(super) fn rescan(&mut self, start: usize, end: usize, marker: &str) {
        let start = floor_boundary(self.text, start);
        let end = ceil_boundary(self.text, end);
        if start < self.last || end < start {
            return;
        }
        let Some(part) = self.text.get(start..end) else {
            return;
        };
        if let Cow::Owned(s) = (self.rescan)(part, marker, self.lits) {
            self.flush_to(start);
            let at = self.buf.len();
            self.buf.push_str(&s);
            self.edits.push((at, self.buf.len()));
            self.src_edits.push((start, end));
            self.last = end;
        }
    }

    pub(super) fn flush_to(&mut self, pos: usize) {
        if !self.changed {
            self.buf.reserve(self.text.len() + 64);
            self.changed = true;
        }
        if let Some(s) = self.text.get(self.last..pos) {
            self.buf.push_str(s);
        }
        self.last = pos;
    }

    pub(super) fn finish(mut self) -> Cow<'t, str> {
        if !self.changed {
            return Cow::Borrowed(self.text);
        }
        if let Some(s) = self.text.get(self.last..) {
            self.buf.push_str(s);
        }
        Cow::Owned(self.buf)
    }
}

/// Narrow `start..end` so that it neither begins inside a JSON escape (`\n`, `\u00e9`) nor
/// ends on an escaping backslash: replacing the span then keeps serialized JSON valid, and
/// no escape pair (which other classifiers may read as a quote) is cut in half.
pub(super) fn json_safe_span(text: &str, mut start: usize, mut end: usize) -> (usize, usize) {
    let b = text.as_bytes();
    let cap = b.len();
    start = start.min(cap);
    end = end.min(cap);
    let odd_before = |i: usize| {
        let mut n = 0;
        while i > n && b[i - n - 1] == b'\\' {
            n += 1;
        }
        n % 2 == 1
    };
    // Inside `\uXXXX`: start after it.
    let mut j = start;
    while j > 0 && start - j < 4 && b[j - 1].is_ascii_hexdigit() {
        j -= 1;
    }
    if j >= 2 && b[j - 1] == b'u' && odd_before(j - 1) {
        start = (j + 4).min(cap);
    } else if odd_before(start) {
        start += 1;
    }
    if end > start && odd_before(end) {
        end -= 1;
    }
    (start, end.max(start))
}

pub(super) fn floor_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

pub(super) fn ceil_boundary(s: &str, mut i: usize) -> usize {
    while i < s.len() && !s.is_char_boundary(i) {
        i += 1;
    }
    i.min(s.len())
}

pub(super) fn next_char(s: &str, i: usize) -> usize {
    ceil_boundary(s, i + 1)
}
