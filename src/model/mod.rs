//! The shared vocabulary: what a caller sends ([`input`]), what vetch answers
//! ([`receipt`]), the content kinds ([`kinds`]), and the tool's public face ([`spec`]). Everything else builds on these;
//! nothing here depends on another room of the crate.

pub mod input;
pub mod kinds;
pub mod receipt;
pub mod secret;
pub mod spec;
