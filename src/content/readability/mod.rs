//! Mozilla's Readability, as ported to Rust by the `dom_smoothie` crate (version 0.19.0,
//! MIT licence, © 2024 Mykola Humanov: see `LICENSE` in this directory), brought into the
//! tree so that its work can be fitted to ours (issue 27).
//!
//! The crate is kept as it was released, with these differences only:
//! - no `serde` or `aho-corasick` features (vetch built neither);
//! - module paths (`crate::` is `super::` here; `readability.rs` is `parse.rs`);
//! - the unit tests that read the crate's own test pages (not shipped with it) are left out;
//! - no page reaches a panic: two `partial_cmp().unwrap()` order a NaN as equal, indexing
//!   and an `unreachable!` skip instead, `is_video_url` compares with `get()` where a
//!   slice could end inside a character, and a test forces every constant selector;
//! - what nothing here reads is not made: the article's HTML (`Article::content`), its
//!   text (`text_content`, `length`, so no `TextMode`), the excerpt from its first paragraph;
//! - its character counts ([`has_text`], `helpers::text_counts`) read ASCII without
//!   decoding it, in one walk for a paragraph's length and commas, and stop when the
//!   answer is known;
//! - the passes over the article that selected elements by a CSS selector parsed on each
//!   call (`select("p")`, `:is(div, section):empty`, `a:not([href])`, ...) pick them by a
//!   test of names and attributes in one walk (`picks`, each held to its selector by a
//!   test), as do the searches of the whole page (`html[lang]`, `<noscript>`, scripts,
//!   styles, fonts, `br`, `img`, `meta[content]`), the cleaning passes and the per-node
//!   tests for dialogs, headings and bylines;
//! - `find_descendants(name)` (a mini selector parsed on each call) is a walk
//!   (`helpers::named_descendants`, `helpers::count_names` for several names at once), and `clean_styles` walks with a stack instead of
//!   recursing;
//! - scoring reads every length and link list from one walk of the body (`subtree`),
//!   where it walked each scored element and then each candidate (every ancestor up to
//!   the body) again.
//!
//! Each later change is its own commit, and states what it keeps identical.

mod config;
mod glob;
mod grab;
mod grab_flags;
mod helpers;
mod matching;
mod parse;
mod picks;
mod prep_article;
mod readable;
mod score;
mod subtree;
mod url_helpers;

pub use config::{CandidateSelectMode, Config, ParsePolicy};
pub use helpers::{has_text, normalized_chars_reach};
pub use parse::Article;
pub use parse::Metadata;
pub use parse::Readability;
pub use readable::is_probably_readable;

use thiserror::Error;

#[derive(Error, Debug)]
pub enum ReadabilityError {
    #[error("the document URL must be absolute")]
    BadDocumentURL,
    #[error("failed to grab the article")]
    GrabFailed,
    #[error("too many elements in the document to parse (found {0}, maximum {1})")]
    TooManyElements(usize, usize),
}
