//! The integration suite as one test binary (ripgrep's habit): one link instead of one per
//! file, and one shared harness in [`common`]. Each module is one area of the contract.
//!
//! Run one area with `cargo test --test it cli::`, one test with its full path.

mod common;

mod cache;
mod canary;
mod cli;
mod config_example;
mod evidence;
mod faults;
mod fidelity;
mod first_hour;
mod help;
mod hostile;
mod kinds;
mod lookup;
mod mcp;
mod pages;
mod pdf;
mod redaction;
mod robots;
mod trust;
mod warc;
