//! Polite fetching's first half (DESIGN §13): robots.txt, fetched once per origin and
//! asked about every requested URL and every redirect hop of an `http` provider.
//!
//! [`rules`] reads a file (RFC 9309's groups and matching). This module is the access
//! side, which no parser crate does: where the file is (`/robots.txt` of the URL's
//! origin), what its fetch means (2xx: the rules; 4xx: no rules; 5xx, a timeout or a
//! network failure: complete disallow; up to five redirects, the rules applying to the
//! origin asked about), the HTTP cache (fresh for the response's own freshness or 24 h,
//! never longer; `--no-cache` refetches) and the memo that makes one process (a batch, an
//! MCP session) ask each origin once, however many lookups ask at the same time.
//!
//! The fetch goes through the network guard like any other (the same policy, resolver and
//! redirect checks), sends the run's User-Agent, and reads at most [`rules::MAX_BYTES`]
//! (plus one byte, to know a file was longer). Nothing a server sends can panic here or
//! make a check wait past the caller's deadline.

pub mod rules;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, SystemTime};

use tokio::sync::watch;
use tokio::time::Instant;
use url::Url;

use crate::fetch::cache::{HttpCache, Offer, Plan, RequestView};
use crate::fetch::guard::NetworkPolicy;
use crate::fetch::http::{self, ClientOptions, HopGate, HopVerdict};
use crate::model::failure::{FailureKind, RedirectError, TransportKind};
use crate::model::robots::{RobotsRefusal, Unreachable};
use rules::{Rules, Verdict};

/// Redirects followed when fetching robots.txt (RFC 9309 §2.3.1.2).
pub const MAX_REDIRECTS: usize = 5;

/// The longest a file is kept, in the cache and in a process's memo (RFC 9309 §2.4).
pub const MAX_AGE: Duration = Duration::from_secs(24 * 3600);

/// The provider name robots.txt entries are stored under in the HTTP cache (not a name
/// a configured provider can have: those are checked to be simple words).
const CACHE_PROVIDER: &str = "(robots.txt)";

/// How robots.txt is fetched for one run.
#[derive(Debug, Clone)]
pub struct RobotsConfig {
    /// The product token (`[lookup] robots_agent`).
    pub agent: String,
    /// The User-Agent sent (it contains the token).
    pub user_agent: String,
    pub policy: NetworkPolicy,
    /// The proxy of the run's first `http` provider, if it has one: robots.txt takes the
    /// way the pages take.
    pub proxy: Option<String>,
    /// How long one fetch of robots.txt may take.
    pub timeout: Duration,
}

/// What one origin's robots.txt said, and when it was learnt.
#[derive(Debug, Clone)]
struct Access {
    what: Result<Rules, Unreachable>,
    learnt: std::time::Instant,
}

/// robots.txt for one process: the fetches, the cache and the per-origin memo.
pub struct Robots {
    cfg: RobotsConfig,
    cache: Option<Arc<HttpCache>>,
    policy_fingerprint: String,
    client: OnceLock<Result<reqwest::Client, String>>,
    /// Per origin, the answer once it is known (None while it is being fetched).
    memo: Mutex<HashMap<String, watch::Receiver<Option<Arc<Access>>>>>,
}

impl std::fmt::Debug for Robots {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Robots")
            .field("agent", &self.cfg.agent)
            .finish_non_exhaustive()
    }
}

/// The origin of an http(s) URL (`https://example.com:8443`), the memo's key.
fn origin(url: &Url) -> Option<String> {
    match url.origin() {
        o @ url::Origin::Tuple(..) => Some(o.ascii_serialization()),
        url::Origin::Opaque(_) => None,
    }
}

/// A URL's path and query, as robots.txt rules are matched against them.
fn path_and_query(url: &Url) -> String {
    match url.query() {
        Some(q) => format!("{}?{q}", url.path()),
        None => url.path().to_string(),
    }
}

fn verdict(access: &Access, url: &Url) -> Result<(), RobotsRefusal> {
    let path = path_and_query(url);
    if path == "/robots.txt" {
        return Ok(());
    }
    match &access.what {
        Err(u) => Err(RobotsRefusal::Unreachable(u.clone())),
        Ok(rules) => match rules.check(&path) {
            Verdict::Allowed => Ok(()),
            Verdict::Disallowed { agent, rule } => Err(RobotsRefusal::Rule { agent, rule }),
        },
    }
}

/// What a failed fetch means: always a complete disallow, worded by its kind.
fn unreachable(kind: &FailureKind) -> Unreachable {
    match kind {
        FailureKind::Redirect(RedirectError::TooMany(_)) => Unreachable::TooManyRedirects,
        FailureKind::Redirect(_) => Unreachable::Network("redirect refused"),
        FailureKind::Blocked(_) => Unreachable::Network("blocked by the network policy"),
        FailureKind::Timeout { .. } => Unreachable::Timeout,
        FailureKind::Transport { kind, .. } => match kind {
            TransportKind::Timeout => Unreachable::Timeout,
            other => Unreachable::Network(other.as_str()),
        },
        FailureKind::BodyInterrupted { .. } => Unreachable::Network("error reading body"),
        _ => Unreachable::Network("request error"),
    }
}

/// A fetched response, as far as robots.txt cares.
struct Answer {
    status: u16,
    headers: reqwest::header::HeaderMap,
    body: Vec<u8>,
}

impl Robots {
    pub fn new(cfg: RobotsConfig, cache: Option<Arc<HttpCache>>) -> Robots {
        let policy_fingerprint =
            crate::fetch::cache::policy_fingerprint(&cfg.policy, MAX_REDIRECTS);
        Robots {
            cfg,
            cache,
            policy_fingerprint,
            client: OnceLock::new(),
            memo: Mutex::new(HashMap::new()),
        }
    }

    /// The product token rules are chosen by.
    pub fn agent(&self) -> &str {
        &self.cfg.agent
    }

    /// May `url` be fetched? Fetches the origin's robots.txt first when this process has
    /// not learnt it yet (or waits for the fetch another lookup started), until `deadline`.
    pub async fn check(
        self: &Arc<Self>,
        url: &Url,
        deadline: Instant,
    ) -> Result<(), RobotsRefusal> {
        if path_and_query(url) == "/robots.txt" {
            return Ok(());
        }
        match self.access(url, deadline).await {
            Ok(a) => verdict(&a, url),
            Err(u) => Err(RobotsRefusal::Unreachable(u)),
        }
    }

    /// The origin's `Crawl-delay` for our group (at most a minute), learning its
    /// robots.txt first if need be; None when it has none or cannot be read by `deadline`.
    pub async fn crawl_delay(self: &Arc<Self>, url: &Url, deadline: Instant) -> Option<Duration> {
        let a = self.access(url, deadline).await.ok()?;
        a.what.as_ref().ok()?.crawl_delay()
    }

    /// What this process already knows of `url`, without waiting: None when its origin's
    /// robots.txt has not been learnt yet.
    pub fn known(&self, url: &Url) -> Option<Result<(), RobotsRefusal>> {
        let key = origin(url)?;
        let memo = match self.memo.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        let access = memo.get(&key)?.borrow().clone()?;
        (access.learnt.elapsed() < MAX_AGE).then(|| verdict(&access, url))
    }

    /// The origin's answer: from the memo, or from one fetch that every asker waits for.
    async fn access(
        self: &Arc<Self>,
        url: &Url,
        deadline: Instant,
    ) -> Result<Arc<Access>, Unreachable> {
        let Some(key) = origin(url) else {
            return Err(Unreachable::Network("no origin"));
        };
        let mut rx = {
            let mut memo = match self.memo.lock() {
                Ok(g) => g,
                Err(p) => p.into_inner(),
            };
            let stale = memo.get(&key).is_some_and(|rx| {
                rx.borrow()
                    .as_ref()
                    .is_some_and(|a| a.learnt.elapsed() >= MAX_AGE)
            });
            match memo.get(&key) {
                Some(rx) if !stale => rx.clone(),
                _ => {
                    let (tx, rx) = watch::channel(None);
                    memo.insert(key.clone(), rx.clone());
                    // A task of its own: an asker that gives up (its deadline) does not
                    // cancel the fetch the others wait for.
                    let this = self.clone();
                    tokio::spawn(async move {
                        let what = this.learn(&key).await;
                        let _ = tx.send(Some(Arc::new(Access {
                            what,
                            learnt: std::time::Instant::now(),
                        })));
                    });
                    rx
                }
            }
        };
        let waited = tokio::time::timeout_at(deadline, async {
            rx.wait_for(Option::is_some)
                .await
                .ok()
                .and_then(|v| v.clone())
        })
        .await;
        match waited {
            Err(_) => Err(Unreachable::Timeout),
            Ok(v) => v.ok_or(Unreachable::Network("request error")),
        }
    }

    fn client(&self) -> Result<reqwest::Client, String> {
        self.client
            .get_or_init(|| {
                http::build_client(ClientOptions {
                    policy: Arc::new(self.cfg.policy.clone()),
                    apply_domain_lists: true,
                    max_redirects: MAX_REDIRECTS,
                    user_agent: &self.cfg.user_agent,
                    proxy: self.cfg.proxy.as_deref(),
                    connect_timeout: self.cfg.timeout,
                })
                .map_err(|e| e.to_string())
            })
            .clone()
    }

    /// Read `origin`'s robots.txt: from the cache when a fresh copy is there, else from
    /// the network (and store what came).
    async fn learn(&self, origin: &str) -> Result<Rules, Unreachable> {
        let url = format!("{origin}/robots.txt");
        let view = RequestView {
            provider: CACHE_PROVIDER,
            url: &url,
            headers: &[],
            user_agent: &self.cfg.user_agent,
            proxy: self.cfg.proxy.as_deref(),
            policy: &self.policy_fingerprint,
        };
        let cached = self.cache.as_ref().and_then(|c| c.request(&view));
        if let (Some(cache), Some((key, preq))) = (&self.cache, &cached) {
            let (c, k, r) = (cache.clone(), key.clone(), preq.clone());
            let max = rules::MAX_BYTES as u64;
            let plan = tokio::task::spawn_blocking(move || c.plan(&k, &r, max))
                .await
                .unwrap_or(Plan::Miss);
            // A stale copy is fetched again whole: a robots.txt is small.
            if let Plan::Hit { stored, .. } = plan {
                return Ok(self.rules_of(stored.status(), &stored.body));
            }
        }
        let answer = self.fetch(&url).await?;
        if answer.status >= 500 {
            return Err(Unreachable::Status(answer.status));
        }
        let body = rules::parsed_part(&answer.body);
        if let (Some(cache), Some((key, preq))) = (&self.cache, cached) {
            let headers =
                crate::fetch::cache::capped_freshness(&answer.headers, MAX_AGE, SystemTime::now());
            let offer = Offer {
                status: answer.status,
                headers: &headers,
                content_type: None,
                final_url: None,
                redirects: Vec::new(),
                fetched_at: SystemTime::now(),
                body,
                truncated: false,
            };
            // A 4xx is kept too: "no rules" is an answer worth not asking again for.
            if let Some(p) = cache.offer_final(&key, &preq, offer) {
                let cache = cache.clone();
                let _ = tokio::task::spawn_blocking(move || cache.store(p)).await;
            }
        }
        Ok(self.rules_of(answer.status, body))
    }

    /// The rules a landed answer gives: a 2xx file's, else (a 4xx) none.
    fn rules_of(&self, status: u16, body: &[u8]) -> Rules {
        if (200..300).contains(&status) {
            Rules::parse(body, &self.cfg.agent)
        } else {
            Rules::allow_all()
        }
    }

    /// GET `url` within the configured time, reading at most [`rules::MAX_BYTES`] + 1 bytes
    /// of a 2xx body. A 3xx that was not followed (no `Location`) counts as a 4xx.
    async fn fetch(&self, url: &str) -> Result<Answer, Unreachable> {
        let client = self
            .client()
            .map_err(|_| Unreachable::Network("cannot build HTTP client"))?;
        let parsed = Url::parse(url).map_err(|_| Unreachable::Network("request error"))?;
        // The guard's first layer: reqwest never asks the resolver about an IP literal.
        if self.cfg.policy.check_url(&parsed, true).is_err() {
            return Err(Unreachable::Network("blocked by the network policy"));
        }
        let deadline = Instant::now() + self.cfg.timeout;
        let sending = client.get(parsed).send();
        let mut resp = match tokio::time::timeout_at(deadline, sending).await {
            Err(_) => return Err(Unreachable::Timeout),
            Ok(Err(e)) => return Err(unreachable(&http::describe_error(&e).kind)),
            Ok(Ok(r)) => r,
        };
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        let mut body = Vec::new();
        if resp.status().is_success() {
            loop {
                match tokio::time::timeout_at(deadline, resp.chunk()).await {
                    Err(_) => return Err(Unreachable::Timeout),
                    Ok(Err(_)) => return Err(Unreachable::Network("error reading body")),
                    Ok(Ok(None)) => break,
                    Ok(Ok(Some(chunk))) => {
                        let room = rules::MAX_BYTES + 1 - body.len();
                        body.extend_from_slice(&chunk[..chunk.len().min(room)]);
                        if body.len() > rules::MAX_BYTES {
                            break;
                        }
                    }
                }
            }
        }
        Ok(Answer {
            status,
            headers,
            body,
        })
    }
}

impl HopGate for Robots {
    fn check_hop(&self, url: &Url) -> HopVerdict {
        match self.known(url) {
            None if path_and_query(url) == "/robots.txt" => HopVerdict::Follow,
            None => HopVerdict::Unknown,
            Some(Ok(())) => HopVerdict::Follow,
            Some(Err(r)) => HopVerdict::Refuse(r),
        }
    }

    fn learn_hop<'a>(
        self: Arc<Self>,
        url: &'a Url,
        deadline: Instant,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + 'a>> {
        Box::pin(async move {
            let _ = self.access(url, deadline).await;
        })
    }
}
