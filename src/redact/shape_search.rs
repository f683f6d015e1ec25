//! Finding the shape regex's matches in a long text without reading every byte with it.
//!
//! The shape regex has no prefilter of its own (see `shapes::shape_regex`), so its lazy DFA
//! steps through every byte of a text, one dependent table load after another: on the
//! 1 MB benchmark page the DOM redaction's one search over the page's text was 1.3 ms of a
//! 30 ms extraction. Every alternative of [`HOT_LITE`] starts with one of a few dozen
//! literals ([`CASED`], and [`FOLDED`] for those that fold case), which Teddy (SIMD) finds
//! many bytes at a time; the regex then runs anchored at each place one starts, and finds
//! there what its unanchored search would (leftmost-first, the same alternative and end).
//! [`FOLDED`] is searched in a lowered copy of the text, made [`WINDOW`] bytes at a time so
//! that a long text does not cost its size again in memory.
//! `the_prefilter_literals_start_every_match` holds the lists to what regex-syntax extracts
//! from each alternative, and `shape_search_finds_what_the_regex_finds` holds the search
//! to the regex's own.

use std::sync::LazyLock;

use aho_corasick::packed;
use regex_automata::{Anchored, Input};

use super::shapes::{shapes_for, ShapeRegex, HOT_LITE};

/// Literals one of which starts every match of the case-sensitive alternatives of
/// [`HOT_LITE`]: the PEM header, URL userinfo, the families that are not lazy and curl's
/// `-u` (`Bearer` and `Basic` are in [`FOLDED`]). Shortened where a shorter one is as rare.
pub(super) const CASED: &[&str] = &[
    "\t-", " -", "----", "://", "ABIA", "AC", "AIza", "AKIA", "ASIA", "GOCS", "SG.", "SK", "eyJ",
    "gh", "gith", "glpa", "hf_", "hook", "npm_", "rk_", "sk-", "sk_", "whse", "xox", "ya29",
];

/// Literals, in lower case, one of which starts every match of the alternatives that fold
/// case (the sensitive names and words), with its ASCII letters lowered.
pub(super) const FOLDED: &[&str] = &[
    "asse", "auth", "basi", "bear", "code", "cook", "cred", "hmac", "key", "otp", "pass", "pwd",
    "saml", "secr", "sess", "sid", "sig", "stat", "tick", "toke", "veri",
];

/// Texts shorter than this are searched by the regex alone: below it, lowering a copy and
/// starting a dozen searchers is most of what the prefilter saves.
const PREFILTER_MIN: usize = 2048;

/// Literals to one Teddy searcher, for each list. Teddy sorts a searcher's literals into
/// eight buckets by their first bytes and checks each place its buckets flag; every
/// searcher is one more pass over the text. On 764 KB of the 2026 product pages' text,
/// [`CASED`] in threes of 9 and [`FOLDED`] in twos of 11 took 130 + 140 µs, against
/// 225 + 175 µs in groups of 8 and 0.5 ms or more in one or two large groups.
const CASED_GROUP: usize = 9;
const FOLDED_GROUP: usize = 11;

/// The bytes of the text each [`FOLDED`] searcher lowers and searches at a time: a copy
/// of the whole text would add its size to the peak memory (5 MB on a body at the cap).
const WINDOW: usize = 64 * 1024;

/// The literal searchers: [`CASED`] run over the text, [`FOLDED`] over lowered windows
/// of it.
struct Prefilter {
    cased: Vec<packed::Searcher>,
    folded: Vec<packed::Searcher>,
    /// The longest literal of [`FOLDED`]: one that starts in the last `folded_len - 1`
    /// bytes of a window may run past it.
    folded_len: usize,
}

/// `None` if a searcher cannot be built (it always can for these non-empty literals); then
/// the regex searches alone.
static PREFILTER: LazyLock<Option<Prefilter>> = LazyLock::new(|| {
    let group = |lits: &[&str], size: usize| {
        lits.chunks(size)
            .map(packed::Searcher::new)
            .collect::<Option<Vec<_>>>()
    };
    Some(Prefilter {
        cased: group(CASED, CASED_GROUP)?,
        folded: group(FOLDED, FOLDED_GROUP)?,
        folded_len: FOLDED.iter().map(|l| l.len()).max()?,
    })
});

/// The shape matches of one text, found left to right (see the module docs).
pub(super) struct ShapeSearch<'t> {
    text: &'t str,
    re: &'static ShapeRegex,
    candidates: Option<Candidates>,
}

/// Where the next literal of each searcher starts.
struct Candidates {
    lanes: Vec<Lane>,
    /// The bytes of a window ([`WINDOW`]; less in the tests, to cut literals often).
    window_size: usize,
    /// The longest literal of [`FOLDED`] (see [`Prefilter::folded_len`]).
    folded_len: usize,
    /// The `from` the lanes' `next` answer for.
    from: usize,
}

/// One searcher and what it found.
struct Lane {
    searcher: &'static packed::Searcher,
    /// For a [`FOLDED`] searcher, the window of the text it searches, lowered. (One
    /// window shared by them measured no faster: a searcher that looks far ahead moves it,
    /// and the next lowers its part again.)
    window: Option<Window>,
    /// The start of its first literal at or after `from` (`usize::MAX` when there is
    /// none), `None` until searched.
    next: Option<usize>,
}

impl<'t> ShapeSearch<'t> {
    /// The search for `text`, with the regex [`shapes_for`] gives it; a long text that
    /// [`HOT_LITE`] serves (no lazy family's literal in it) is prefiltered.
    pub(super) fn new(text: &'t str) -> Self {
        let re = shapes_for(text);
        let prefilter = text.len() >= PREFILTER_MIN && std::ptr::eq(re, &*HOT_LITE);
        Self::with(text, re, prefilter)
    }

    /// The search with the given regex, prefiltered or not. The literals only cover
    /// [`HOT_LITE`]'s alternatives, so `prefilter` is only for it.
    pub(super) fn with(text: &'t str, re: &'static ShapeRegex, prefilter: bool) -> Self {
        let pre = if prefilter { PREFILTER.as_ref() } else { None };
        let candidates = pre.map(|pre| {
            let lane = |searcher, window| Lane {
                searcher,
                window,
                next: None,
            };
            Candidates {
                lanes: (pre.cased.iter().map(|s| lane(s, None)))
                    .chain(pre.folded.iter().map(|s| lane(s, Some(Window::default()))))
                    .collect(),
                window_size: WINDOW,
                folded_len: pre.folded_len,
                from: 0,
            }
        });
        ShapeSearch {
            text,
            re,
            candidates,
        }
    }

    /// [`with`](Self::with) prefiltered, with windows of `size` bytes.
    #[cfg(test)]
    pub(super) fn with_window(text: &'t str, re: &'static ShapeRegex, size: usize) -> Self {
        let mut search = Self::with(text, re, true);
        if let Some(c) = &mut search.candidates {
            c.window_size = size;
        }
        search
    }

    /// Every match, left to right (as the regex's `find_iter`: a match is never empty, so
    /// the next is looked for from the end of the last).
    pub(super) fn all(mut self) -> impl Iterator<Item = (usize, usize)> + 't {
        let mut at = 0;
        std::iter::from_fn(move || {
            let (s, e) = self.find(at)?;
            at = e.max(s + 1);
            Some((s, e))
        })
    }

    /// The leftmost match starting at or after `from`, as the regex's own search from
    /// there finds it (`from` a char boundary, at most the text's length).
    pub(super) fn find(&mut self, from: usize) -> Option<(usize, usize)> {
        let text = self.text;
        let Some(c) = &mut self.candidates else {
            let input = Input::new(text).range(from.min(text.len())..);
            return self.re.find(input).map(|m| (m.start(), m.end()));
        };
        let mut from = from;
        while from <= text.len() {
            let at = c.next_candidate(text.as_bytes(), from)?;
            // Anchored, the regex reports the match starting here, if any: the one its
            // unanchored search reports when no match starts before (none does: every
            // match starts with a literal, and none was found between `from` and `at`).
            let input = Input::new(text)
                .span(at..text.len())
                .anchored(Anchored::Yes);
            if let Some(m) = self.re.search(&input) {
                return Some((m.start(), m.end()));
            }
            from = at + 1;
        }
        None
    }
}

/// A part of the text, its ASCII letters lowered (same length, same char boundaries).
#[derive(Default)]
struct Window {
    /// Where it starts in the text.
    start: usize,
    bytes: Vec<u8>,
}

impl Window {
    /// The start of the first literal of `searcher` (lowered) at or after `from` in `text`
    /// lowered, searched `size` bytes at a time (`longest`: the longest literal);
    /// `usize::MAX` when there is none.
    fn next(
        &mut self,
        text: &[u8],
        searcher: &packed::Searcher,
        (size, longest): (usize, usize),
        mut from: usize,
    ) -> usize {
        while from < text.len() {
            let end = self.start + self.bytes.len();
            // A literal from `from` on may run past the window: it is moved to start there.
            let cut = end < text.len() && from + longest > end;
            if from < self.start || from >= end || cut {
                let Some(part) = text.get(from..(from + size.max(longest)).min(text.len())) else {
                    return usize::MAX;
                };
                self.bytes.clear();
                self.bytes.extend_from_slice(part);
                self.bytes.make_ascii_lowercase();
                self.start = from;
            }
            let end = self.start + self.bytes.len();
            // Every literal that starts before `whole` ends inside the window, so the first
            // one found, if it starts before `whole`, is the first in the text. (`whole` is
            // past `from`: the window was moved to `from` unless a literal fits after it.)
            let whole = if end == text.len() {
                end
            } else {
                end.saturating_sub(longest.saturating_sub(1))
            };
            let span = aho_corasick::Span::from(from - self.start..self.bytes.len());
            if let Some(m) = searcher.find_in(&self.bytes, span) {
                let at = self.start + m.start();
                if at < whole {
                    return at;
                }
            }
            from = whole;
        }
        usize::MAX
    }
}

impl Candidates {
    /// The first place at or after `from` where a literal starts, if any.
    fn next_candidate(&mut self, text: &[u8], from: usize) -> Option<usize> {
        if from < self.from {
            // Searched past already: start over (the callers only move forward).
            for lane in &mut self.lanes {
                lane.next = None;
            }
        }
        self.from = from;
        let sizes = (self.window_size, self.folded_len);
        let mut best = usize::MAX;
        for lane in &mut self.lanes {
            let at = match lane.next {
                Some(at) if at >= from => at,
                _ => {
                    let at = match &mut lane.window {
                        Some(window) => window.next(text, lane.searcher, sizes, from),
                        None => text
                            .get(from..)
                            .and_then(|_| {
                                let span = aho_corasick::Span::from(from..text.len());
                                lane.searcher.find_in(text, span)
                            })
                            .map_or(usize::MAX, |m| m.start()),
                    };
                    lane.next = Some(at);
                    at
                }
            };
            best = best.min(at);
        }
        (best != usize::MAX).then_some(best)
    }
}
