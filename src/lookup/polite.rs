//! The engine's side of polite fetching (DESIGN §13): robots.txt asked before the first
//! attempt, its gate around the redirect hops of `http` providers, and the news of a
//! `Retry-After` handed to whoever paces the lookups (batch). The rules and their fetch
//! live in `fetch::robots`; the pacing lives with the front end that runs many lookups.

use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use crate::fetch::http::{HopGate, HOP_GATE};
use crate::fetch::robots::Robots;
use crate::fetch::spec::ProviderKind;
use crate::model::checked_url::CheckedUrl;
use crate::model::failure::{FailureKind, RobotsRefusal};

/// Told, as soon as an `http` provider's attempt gets a `429` or `503` with a
/// `Retry-After`, the requested URL and how long its host asked to be left alone.
pub type RetryAfterHook = Arc<dyn Fn(&url::Url, Duration) + Send + Sync>;

/// What polite fetching adds to an engine; nothing when robots.txt is ignored and no one
/// paces.
#[derive(Clone, Default)]
pub struct Polite {
    pub robots: Option<Arc<Robots>>,
    pub retry_after: Option<RetryAfterHook>,
}

impl Polite {
    /// May the requested URL be fetched at all? Checked once, before any attempt, whatever
    /// the provider kinds (a reader fetches the same page).
    pub async fn admit(&self, target: &CheckedUrl, deadline: Instant) -> Result<(), RobotsRefusal> {
        match &self.robots {
            Some(r) => r.check(target.parsed(), deadline).await,
            None => Ok(()),
        }
    }

    /// `fetch`, with robots.txt checking the redirect hops when the provider fetches the
    /// page itself (`http`); a template's endpoint and its hops are the operator's.
    pub async fn fetching<T>(
        &self,
        kind: ProviderKind,
        fetch: impl std::future::Future<Output = T>,
    ) -> T {
        match (&self.robots, kind) {
            (Some(r), ProviderKind::Http) => {
                let gate: Arc<dyn HopGate> = r.clone();
                HOP_GATE.scope(gate, fetch).await
            }
            _ => fetch.await,
        }
    }

    /// Pass on a `Retry-After` an `http` provider's attempt got with a `429` or `503`.
    pub fn attempt_failed(&self, kind: ProviderKind, target: &CheckedUrl, failure: &FailureKind) {
        let (Some(hook), ProviderKind::Http) = (&self.retry_after, kind) else {
            return;
        };
        if let Some(wait) = retry_after(failure) {
            hook(target.parsed(), wait);
        }
    }
}

/// The wait a `429` or `503` asked for with its `Retry-After`, if it did.
fn retry_after(failure: &FailureKind) -> Option<Duration> {
    match failure {
        FailureKind::Http {
            status: 429 | 503,
            retry_after: Some(v),
            ..
        } => crate::fetch::http::retry_after_delay(v, std::time::SystemTime::now()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_429_and_503_with_a_retry_after_ask_for_a_pause() {
        let http = |status, ra: Option<&str>| FailureKind::Http {
            status,
            reason: String::new(),
            retry_after: ra.map(str::to_string),
        };
        assert_eq!(
            retry_after(&http(429, Some("1"))),
            Some(Duration::from_secs(1))
        );
        assert_eq!(
            retry_after(&http(503, Some("7"))),
            Some(Duration::from_secs(7))
        );
        assert_eq!(retry_after(&http(429, None)), None);
        assert_eq!(retry_after(&http(500, Some("5"))), None);
        assert_eq!(retry_after(&FailureKind::Empty), None);
    }
}
