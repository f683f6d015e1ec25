//! The redactor's tests, by concern. Helpers shared by them live here.

use super::families::*;
use super::shapes::*;
use super::*;

mod benign;
mod families;
mod red_team;
mod robust;
mod secrets;
mod shape_search;
mod views;

/// Deterministic pseudo-random alphanumerics (always some upper, lower and digit).
fn alnum(n: usize, seed: u64) -> String {
    const CS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let mut x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut s = String::from("aZ7");
    while s.len() < n {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        s.push(CS[((x >> 33) % CS.len() as u64) as usize] as char);
    }
    s.truncate(n);
    s
}

fn hex(n: usize, seed: u64) -> String {
    let mut x = seed;
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            char::from(b"0123456789abcdef"[((x >> 33) % 16) as usize])
        })
        .collect()
}

/// What a reader sees in `s`: its escapes undone, invisible characters dropped.
fn reader_view(s: &str) -> String {
    escapes::View::build(s).map_or_else(|| s.to_string(), |v| v.text)
}
