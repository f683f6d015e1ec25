//! The cancellation flag of the work running on a thread: the long walks of extraction,
//! boilerplate marking and the PDF reader poll it and stop early once their attempt's
//! deadline has passed or its lookup was dropped. Shared by every step of `content`, so
//! that none of them needs another for it.

thread_local! {
    /// The cancellation flag of the work running on this thread (see [`with_cancel`]).
    static CANCEL: std::cell::RefCell<Option<std::sync::Arc<std::sync::atomic::AtomicBool>>> =
        const { std::cell::RefCell::new(None) };
}

/// Run `f` with `flag` as this thread's cancellation flag. The long walks of extraction
/// check it and stop early once it is set (the attempt's deadline passed, or its lookup
/// was dropped), so abandoned work on a blocking thread stops burning CPU and does not
/// keep the process alive; what they return then is discarded by the caller.
pub fn with_cancel<T>(
    flag: std::sync::Arc<std::sync::atomic::AtomicBool>,
    f: impl FnOnce() -> T,
) -> T {
    CANCEL.with(|c| *c.borrow_mut() = Some(flag));
    let out = f();
    CANCEL.with(|c| *c.borrow_mut() = None);
    out
}

/// Whether this thread's work was cancelled (see [`with_cancel`]).
pub fn cancelled() -> bool {
    CANCEL.with(|c| {
        c.borrow()
            .as_ref()
            .is_some_and(|f| f.load(std::sync::atomic::Ordering::Relaxed))
    })
}
