//! The ways in and out: the command line ([`cli`], dispatched by [`app`]), the tool,
//! batch and MCP front ends, the providers listing, and the one redacting writer
//! ([`output`]) through which every byte leaves the process.

pub mod app;
pub mod batch;
pub mod cache;
pub mod cli;
pub mod exit;
pub mod mcp;
pub mod output;
pub mod providers;
pub mod warc;
