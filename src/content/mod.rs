//! From bytes to text a caller can use, and the judgement on it: [`decode`] (charset and
//! what counts as text), [`extract`] (HTML to Markdown or text, JSON pretty-printing),
//! [`interstitial`] (challenge pages, consent walls, empty app shells) and [`judge`] (the
//! usability checks in their fixed order). Pure CPU work: no I/O.
//!
//! Below them, shared without circles: [`parse`] (bounded parsing), [`visible`] (what a
//! person sees), [`measure`] (symbol runs, readable length), [`tidy`], [`inline`],
//! [`find`] (simple selectors as walks) and [`cancel`] (the cancellation flag).

pub mod boilerplate;
pub mod cancel;
pub mod decode;
pub mod dom_redact;
pub mod extract;
pub(crate) mod find;
pub(crate) mod formatted;
pub mod headline;
pub mod inline;
pub mod interstitial;
pub mod judge;
pub mod markdown;
pub mod measure;
pub mod parse;
pub mod pdf;
pub mod readability;
pub mod tidy;
pub mod visible;
