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
//! The flow, module by module:
//! - [`config`] reads the TOML file and [`settings`] combines it with the flags into one
//!   [`settings::Settings`], with every clamp in one place;
//! - [`input`] parses what a caller (a model, a script) sent;
//! - [`lookup`] runs the attempt loop over [`provider`]s, which fetch through [`net`] (guarded
//!   by [`guard`]) or a child process; [`decode`] turns bytes into text ([`pdf`] for PDF
//!   documents), [`extract`] makes it
//!   readable and [`judge`] (with [`interstitial`]) decides whether it is usable;
//! - [`receipt`] holds the output shapes, [`redact`] scrubs secrets and [`output`] is the one
//!   writer through which every byte leaves;
//! - [`app`] dispatches the command line ([`cli`]) to the front ends: `lookup`, [`batch`],
//!   `tool`, [`mcp`], [`providers`], and [`spec`] (tool specs and schemas).

pub mod app;
pub mod batch;
pub mod cli;
pub mod config;
pub mod decode;
pub mod extract;
pub mod guard;
pub mod input;
pub mod interstitial;
pub mod judge;
pub mod lookup;
pub mod mcp;
pub mod net;
pub mod output;
pub mod pdf;
pub mod provider;
pub mod providers;
pub mod receipt;
pub mod redact;
pub mod settings;
pub mod spec;
