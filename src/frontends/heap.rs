//! How the process asks glibc's allocator to keep its heap (called first thing by the
//! binary, and by the extraction benchmark so that it measures what the binary runs).
//!
//! By default glibc gives the top of the heap back to the kernel whenever more than a
//! dynamically chosen threshold (a few hundred KB) is free, and serves large blocks from
//! fresh `mmap`s. A long page's extraction allocates and frees tens of MB of short-lived
//! buffers (the tree, text copies, Markdown), so the next page faulted all of it back in:
//! on the 1 MB benchmark page, 27k page faults in eleven runs and about 12% of the wall
//! time. Fixed thresholds keep up to [`TRIM_THRESHOLD`] of freed memory for reuse and
//! serve blocks below [`MMAP_THRESHOLD`] from the heap. The peak a page needs is the same;
//! what changes is that a process which has handled a large page holds on to up to 64 MB
//! of it until it exits.
//!
//! Elsewhere (musl, macOS, Windows) this does nothing.

/// Free memory at the top of the heap kept rather than returned: 64 MB.
pub const TRIM_THRESHOLD: i32 = 64 << 20;

/// Blocks of this size or more come from their own `mmap`: 32 MB, glibc's largest.
pub const MMAP_THRESHOLD: i32 = 32 << 20;

/// Set the thresholds above. Idempotent; call before the process starts its threads.
pub fn tune() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` only sets two of the allocator's parameters; glibc takes its own
    // lock, and both values are in the ranges it documents (it refuses others, returning 0,
    // which leaves its defaults: nothing to handle).
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD);
        libc::mallopt(libc::M_TRIM_THRESHOLD, TRIM_THRESHOLD);
    }
}
