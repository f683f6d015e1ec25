//! Finding the shape regex's matches in a long text without reading every byte with it.
//!
//! The shape regex has no prefilter of its own (see `shapes::shape_regex`), so its lazy DFA
//! steps through every byte of a text, one dependent table load after another: on the
//! 1 MB benchmark page the DOM redaction's one search over the page's text was 1.3 ms of a
//! 30 ms extraction. Every alternative of [`HOT_LITE`] starts with one of a few dozen
//! literals ([`CASED`], and [`FOLDED`] for those that fold case), which Teddy (SIMD) finds
//! many bytes at a time; the regex then runs anchored at each place one starts, and finds
//! there what its unanchored search would (leftmost-first, the same alternative and end).
//! `the_prefilter_literals_start_every_match` holds the lists to what regex-syntax extracts
//! from each alternative, and `shape_search_finds_what_the_regex_finds` holds the search
//! to the regex's own.

use std::sync::LazyLock;

use aho_corasick::packed;
use regex_automata::{Anchored, Input};

use super::shapes::{shapes_for, ShapeRegex, HOT_LITE};

/// Literals one of which starts every match of the case-sensitive alternatives of
/// [`HOT_LITE`]: the PEM header, URL userinfo, the families that are not lazy, `Bearer` and
/// `Basic` (also in [`FOLDED`]) and curl's `-u`. Shortened where a shorter one is as rare.
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

/// The lowered copy's buffer is kept for the thread's next text up to this size.
const LOWERED_KEEP: usize = 4 << 20;

thread_local! {
    /// The buffer of the last lowered copy (see [`LOWERED_KEEP`]): allocating and
    /// faulting in a fresh one cost as much as lowering the text.
    static LOWERED: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

/// The literal searchers: [`CASED`] run over the text, [`FOLDED`] over its lowered copy.
struct Prefilter {
    cased: Vec<packed::Searcher>,
    folded: Vec<packed::Searcher>,
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
    pre: &'static Prefilter,
    /// The text with its ASCII letters lowered (same length, same char boundaries).
    lowered: Vec<u8>,
    /// Per searcher, cased ones first: the start of its first literal at or after `from`
    /// (`usize::MAX` when there is none), `None` until searched.
    next: Vec<Option<usize>>,
    /// The `from` the entries of `next` answer for.
    from: usize,
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
        let candidates = pre.map(|pre| Candidates {
            pre,
            lowered: lowered(text),
            next: vec![None; pre.cased.len() + pre.folded.len()],
            from: 0,
        });
        ShapeSearch {
            text,
            re,
            candidates,
        }
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

/// `text` with its ASCII letters lowered, in the thread's kept buffer.
fn lowered(text: &str) -> Vec<u8> {
    let mut buf = LOWERED.try_with(std::cell::Cell::take).unwrap_or_default();
    buf.clear();
    buf.extend_from_slice(text.as_bytes());
    buf.make_ascii_lowercase();
    buf
}

impl Drop for Candidates {
    fn drop(&mut self) {
        if self.lowered.capacity() <= LOWERED_KEEP {
            let buf = std::mem::take(&mut self.lowered);
            // During the thread's exit the buffer is simply freed.
            let _ = LOWERED.try_with(|kept| kept.set(buf));
        }
    }
}

impl Candidates {
    /// The first place at or after `from` where a literal starts, if any.
    fn next_candidate(&mut self, text: &[u8], from: usize) -> Option<usize> {
        if from < self.from {
            // Searched past already: start over (the callers only move forward).
            self.next.fill(None);
        }
        self.from = from;
        let cased = self.pre.cased.len();
        let searchers = self.pre.cased.iter().chain(&self.pre.folded);
        let mut best = usize::MAX;
        for (i, (searcher, next)) in searchers.zip(self.next.iter_mut()).enumerate() {
            let at = match *next {
                Some(at) if at >= from => at,
                _ => {
                    let hay: &[u8] = if i < cased { text } else { &self.lowered };
                    let at = hay
                        .get(from..)
                        .and_then(|_| {
                            searcher.find_in(hay, aho_corasick::Span::from(from..hay.len()))
                        })
                        .map_or(usize::MAX, |m| m.start());
                    *next = Some(at);
                    at
                }
            };
            best = best.min(at);
        }
        (best != usize::MAX).then_some(best)
    }
}
