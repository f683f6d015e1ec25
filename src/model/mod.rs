//! The shared vocabulary: what a caller sends ([`input`]), what vetch answers
//! ([`receipt`]), and the tool's public face ([`spec`]). Everything else builds on these;
//! nothing here depends on another room of the crate.

pub mod checked_url;
pub mod failure;
pub mod input;
pub mod receipt;
pub mod spec;
