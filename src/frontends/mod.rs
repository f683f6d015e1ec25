//! The ways in and out: the command line ([`cli`], dispatched by [`app`]), the tool,
//! batch and MCP front ends (and batch's per-host [`pacing`]), the providers listing, and the one redacting writer
//! ([`output`]) through which every byte leaves the process.

pub mod app;
pub mod batch;
pub mod cache;
pub mod cli;
pub mod exit;
pub mod heap;
pub mod mcp;
pub mod output;
pub mod pacing;
pub mod providers;
pub mod warc;
