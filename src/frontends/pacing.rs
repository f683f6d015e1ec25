//! Per-host pacing for `vetch batch` (DESIGN §13): when robots.txt is respected, a host's
//! `Crawl-delay` spaces the lookups sent to it; after a `429` or `503` with `Retry-After`,
//! nothing more is sent to that host until the wait has passed (at most `--max-host-wait`).
//! Other hosts are never held up: each host has its own clock.
//!
//! The clock is tokio's, so that tests can pause it; a lookup waits here before it is
//! sent, and its own deadline starts only after (the engine starts it).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

/// The key a batch paces by: the host and port of a URL (`example.com:443`).
pub fn host_key(url: &url::Url) -> Option<String> {
    Some(format!(
        "{}:{}",
        url.host_str()?.to_ascii_lowercase(),
        url.port_or_known_default().unwrap_or(0)
    ))
}

#[derive(Debug, Default, Clone, Copy)]
struct Clock {
    /// The earliest the next lookup may be sent (the last send plus the Crawl-delay).
    next_send: Option<Instant>,
    /// No lookup is sent before this (a Retry-After).
    paused_until: Option<Instant>,
}

/// The hosts' clocks for one batch.
#[derive(Debug)]
pub struct Pacer {
    max_wait: Duration,
    hosts: Mutex<HashMap<String, Clock>>,
}

impl Pacer {
    /// `max_wait`: the longest a `Retry-After` holds a host back (`--max-host-wait`).
    pub fn new(max_wait: Duration) -> Pacer {
        Pacer {
            max_wait,
            hosts: Mutex::new(HashMap::new()),
        }
    }

    fn hosts(&self) -> std::sync::MutexGuard<'_, HashMap<String, Clock>> {
        match self.hosts.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }

    /// Hold `host` back for `wait` from now (at most the maximum), unless it is already
    /// held back longer.
    pub fn pause(&self, host: &str, wait: Duration) {
        let until = Instant::now() + wait.min(self.max_wait);
        let mut hosts = self.hosts();
        let clock = hosts.entry(host.to_string()).or_default();
        clock.paused_until = Some(clock.paused_until.map_or(until, |p| p.max(until)));
    }

    /// Wait until a lookup may be sent to `host`, and take that turn: the next one waits
    /// `delay` (the host's Crawl-delay) more. Several waiters of one host go one by one.
    pub async fn wait_turn(&self, host: &str, delay: Option<Duration>) {
        loop {
            let now = Instant::now();
            let ready_at = {
                let mut hosts = self.hosts();
                let clock = hosts.entry(host.to_string()).or_default();
                let ready_at = [clock.next_send, clock.paused_until]
                    .into_iter()
                    .flatten()
                    .max()
                    .filter(|t| *t > now);
                if ready_at.is_none() {
                    clock.next_send = delay.map(|d| now + d);
                    if clock.paused_until.is_some_and(|p| p <= now) {
                        clock.paused_until = None;
                    }
                }
                ready_at
            };
            match ready_at {
                None => return,
                Some(t) => tokio::time::sleep_until(t).await,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Real time, short durations, and only lower bounds: a turn never comes early.
    const D: Duration = Duration::from_millis(80);

    #[tokio::test]
    async fn crawl_delay_spaces_one_host_and_not_another() {
        let p = Pacer::new(Duration::from_secs(60));
        p.wait_turn("a:80", Some(D)).await;
        p.wait_turn("b:80", Some(D)).await;
        let t = Instant::now();
        p.wait_turn("a:80", Some(D)).await;
        assert!(t.elapsed() >= D - Duration::from_millis(5));
        // b's turn came at once: its own clock; its next waits its delay.
        let t = Instant::now();
        p.wait_turn("b:80", None).await;
        p.wait_turn("b:80", None).await;
        assert!(t.elapsed() < D * 10, "no delay once b has none");
    }

    #[tokio::test]
    async fn retry_after_holds_the_host_back_up_to_the_maximum() {
        let p = Pacer::new(D);
        let t = Instant::now();
        p.pause("a:80", Duration::from_secs(3600));
        p.wait_turn("a:80", None).await;
        assert!(t.elapsed() >= D, "held back");
        // A shorter pause does not shorten a longer one.
        let t = Instant::now();
        p.pause("a:80", D);
        p.pause("a:80", Duration::from_millis(1));
        p.wait_turn("a:80", None).await;
        assert!(t.elapsed() >= D - Duration::from_millis(5));
    }

    #[tokio::test]
    async fn waiters_of_one_host_take_turns() {
        let p = std::sync::Arc::new(Pacer::new(Duration::from_secs(60)));
        let mut turns = Vec::new();
        for _ in 0..3 {
            let p = p.clone();
            turns.push(tokio::spawn(async move {
                p.wait_turn("a:80", Some(D)).await;
                Instant::now()
            }));
        }
        let mut at = Vec::new();
        for t in turns {
            if let Ok(i) = t.await {
                at.push(i);
            }
        }
        at.sort();
        assert_eq!(at.len(), 3);
        for w in at.windows(2) {
            assert!(w[1] - w[0] >= D - Duration::from_millis(5), "{at:?}");
        }
    }
}
