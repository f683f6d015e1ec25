//! The shared vocabulary: what a caller sends ([`input`]), what vetch answers
//! ([`receipt`]), the content kinds ([`kinds`]), the secret type ([`secret`]), and the
//! tool's public face ([`spec`]); the requested URL once parsed ([`checked_url`]) and every
//! way an attempt fails ([`failure`]); what robots.txt says ([`robots`]). Everything else builds on these; nothing here
//! depends on another room of the crate.

pub mod checked_url;
pub mod failure;
pub mod input;
pub mod kinds;
pub mod receipt;
pub mod robots;
pub mod secret;
pub mod spec;
