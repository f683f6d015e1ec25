//! Helpers for the unit tests.

use std::time::Duration;

/// How long a test waits for work that must end before it calls it a hang: a guard against
/// a suite that never finishes (a quadratic walk over a hostile page takes hours), not a
/// speed test. Speed belongs to the benchmarks.
pub(crate) const HANG_GUARD: Duration = Duration::from_secs(120);

/// `f()`, run on a thread of its own; the test fails if it has not returned within
/// [`HANG_GUARD`] (the thread is left behind: the test process ends soon after).
pub(crate) fn within_hang_guard<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(HANG_GUARD) {
        Ok(v) => v,
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            panic!("no result within the hang guard ({HANG_GUARD:?})")
        }
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => panic!("the work panicked"),
    }
}
