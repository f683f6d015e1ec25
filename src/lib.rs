//! # vetch: a verified web lookup
//!
//! Agent frameworks report whatever a tool returns as a success. A fetch that got a cookie
//! wall, a "Just a moment..." challenge, an empty body or a 503 page looks like a win to the
//! model. This crate puts the judgement inside the tool: it fetches one URL through an
//! ordered list of providers (direct HTTP, reader APIs, a local command), spends a clamped
//! attempt budget, classifies every attempt, redacts every secret, and returns a versioned
//! receipt inside a tool result whose `status` is `success` only when usable content came
//! back.
//!
//! The source tree is the pipeline, one folder a room (ARCHITECTURE.md has the one-page
//! map and the import rules):
//! - [`model`]: the shared vocabulary and output shapes: the tool input, the receipt and
//!   tool result, outcomes, the tool's name and schemas. Depends on nothing else here.
//! - [`redact`]: the redactor, the one place that decides which bytes are secrets.
//! - [`fetch`]: getting bytes: the network guard, HTTP with its bounds, the provider kinds
//!   (`http`, `template`, `command`).
//! - [`content`]: making bytes into text and judging it: decode, extract, the interstitial
//!   detector, the judge, and PDF text.
//! - [`settings`]: the config file and the flags, combined once into one `Settings`.
//! - [`lookup`]: the attempt loop, from a request to a receipt.
//! - [`frontends`]: the command line and everything that prints: `lookup`, `tool`,
//!   `batch`, `mcp`, `providers`, specs and schemas, through the one redacting printer.

// No `unwrap` or `expect` in library code: nothing a user, a file or a server sends may
// panic the process. The exceptions are named where they stand (`#[allow]` on a constant
// regex that a test compiles). Tests may unwrap.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod content;
pub mod fetch;
pub mod frontends;
pub mod lookup;
pub mod model;
pub mod redact;
pub mod settings;

#[cfg(test)]
mod test_support;
