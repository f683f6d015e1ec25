//! Getting bytes. [`guard`] decides where vetch may connect, [`http`] sends one bounded
//! request through the guard, and [`provider`] is the list of ways an attempt can get a
//! page (`http`, `template`, `command`); [`evidence`] keeps what a used attempt's receipt
//! and WARC records say about it (when, from where, what went over the wire). Nothing here
//! judges content. [`robots`] is polite fetching's robots.txt: the rules, their fetch,
//! cache and memo.

pub mod cache;
pub mod evidence;
pub mod guard;
pub mod http;
pub mod provider;
pub mod robots;
pub mod spec;
