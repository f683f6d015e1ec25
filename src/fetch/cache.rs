//! The private on-disk HTTP cache for `GET` requests of `http` and `template` providers.
//!
//! The rules (freshness, `no-store`, `Vary`, revalidation with `ETag`/`Last-Modified`) are
//! those of RFC 9111 for a private cache, decided by `http-cache-semantics`; the store is
//! `cacache` (content-addressed files written to a temp file and renamed, every read
//! checked against its integrity hash), so any number of processes may read and write at
//! once and never see a torn entry. A corrupt, partial or unreadable entry is a miss.
//!
//! What must never happen here: a secret written in clear. The store's key is a salted
//! SHA-256 of the request as sent (provider, method, URL, every header, user agent, proxy),
//! the stored policy sees only salted hashes of request header values and a fixed URI,
//! response headers are cut to the few the rules need (no `Set-Cookie`), and the final URL
//! after redirects is kept redacted. The body is stored as received: it is the page.
//!
//! Nor may the cache trust what it did not write: the directory, the files and every read
//! are checked and bounded in [`disk`]; a directory someone else could write is refused,
//! and the lookups run uncached. A stored body is served under the run's own body cap, as a
//! fresh one would be.

mod disk;

use std::io::Read;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use http_cache_semantics::{AfterResponse, BeforeRequest, CacheOptions, CachePolicy};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::fetch::guard::NetworkPolicy;
use crate::fetch::spec::Method;
use crate::model::receipt::{CacheReport, CacheStatus};

pub use disk::{clear, info, CacheInfo, Untrusted};
use disk::{Disk, IndexEntry};

/// The one rule of what is cached: `GET` requests (an `http` provider's, a `GET`
/// template's). A `POST`'s answer depends on its body, and a `command` provider has no
/// request; neither is stored or served.
pub fn caches(method: Method) -> bool {
    method == Method::Get
}

/// The network rules a response was fetched under, as a part of its cache key (see
/// [`RequestView::policy`]): written field by field, so that a field added to the policy
/// does not compile here until it is a part of the key (a `Debug` text would take it in,
/// or leave it out, without anyone deciding). Host lists compare as the guard compares
/// them: as sets, in any letter case.
pub fn policy_fingerprint(policy: &NetworkPolicy, max_redirects: usize) -> String {
    let NetworkPolicy {
        allow_private,
        allow_private_hosts,
        allowed_domains,
        blocked_domains,
    } = policy;
    let set = |hosts: &[String]| {
        let mut v: Vec<String> = hosts.iter().map(|h| h.to_ascii_lowercase()).collect();
        v.sort();
        v.dedup();
        v.join(",")
    };
    format!(
        "allow_private={allow_private};allow_private_hosts={};allowed_domains={};\
         blocked_domains={};max_redirects={max_redirects}",
        set(allow_private_hosts),
        set(allowed_domains),
        set(blocked_domains)
    )
}

/// How the cache is set up for one run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheConfig {
    pub dir: PathBuf,
    /// The size cap; the least recently used entries go when a write passes it.
    pub max_bytes: u64,
    /// Freshness of a response that states none (no `max-age`, no `Expires`).
    pub default_ttl: Duration,
    /// `--max-age`: a stored copy at most this old is used without asking (whatever its
    /// own freshness, unless it said `no-cache`); an older one is revalidated.
    pub max_age: Option<Duration>,
    /// `--no-cache`: neither read nor write; attempts report `bypass`.
    pub bypass: bool,
}

/// The cache of one process. Cheap to share (`Arc`); every method is blocking disk I/O
/// (callers run it on a blocking thread) and never fails: a cache that cannot read or
/// write is simply a cache that misses, and a refused directory a cache that is bypassed.
#[derive(Debug)]
pub struct HttpCache {
    cfg: CacheConfig,
    access: Access,
    /// Serializes this process's updates of the size ledger.
    ledger: Mutex<()>,
}

/// Whether this run reads and writes the cache.
#[derive(Debug)]
enum Access {
    /// `--no-cache`: the directory is not even looked at.
    Bypass,
    Open(Disk),
    /// The directory is not this user's alone: never read nor written.
    Refused(Untrusted),
}

/// Writes between two exact measurements of the cache (a listing of the whole index):
/// in between, the size ledger is counted up, so a write costs O(1), not O(entries).
const RESCAN_EVERY: u64 = 256;

/// The longest entry head read (its JSON: policy, validators, content type, final URL).
const MAX_HEAD: usize = 1024 * 1024;

/// What an `http` or `template` provider is about to send, as the cache sees it.
#[derive(Debug, Clone, Copy)]
pub struct RequestView<'a> {
    pub provider: &'a str,
    /// The URL as sent (a template's endpoint with its placeholders filled in).
    pub url: &'a str,
    /// Every header the provider adds, with its value as sent.
    pub headers: &'a [(String, String)],
    pub user_agent: &'a str,
    pub proxy: Option<&'a str>,
    /// The network rules the response was fetched under ([`policy_fingerprint`]): an entry fetched with `--allow-private`, or before a
    /// domain was blocked, is never served to a run whose guard would have refused the
    /// address or a redirect hop on the way.
    pub policy: &'a str,
}

/// What the cache did for one attempt, and what to store once the engine has judged the
/// content usable (a challenge page or a cookie wall is never stored).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheNote {
    pub report: CacheReport,
    pub pending: Option<Pending>,
}

impl CacheNote {
    /// Once the engine has judged the attempt: the entry is stored (or refreshed) only when
    /// the content was usable, so a challenge page is fetched again next time, not served.
    /// Returns what the receipt reports. The write runs off the async workers.
    pub async fn settle(self, cache: Option<&Arc<HttpCache>>, usable: bool) -> CacheReport {
        if let (true, Some(pending), Some(cache)) = (usable, self.pending, cache) {
            let cache = cache.clone();
            let _ = tokio::task::spawn_blocking(move || cache.store(pending)).await;
        }
        self.report
    }

    /// `--no-cache`: the cache was not consulted.
    pub fn bypass() -> CacheNote {
        CacheNote {
            report: CacheReport {
                status: CacheStatus::Bypass,
                age_secs: 0,
            },
            pending: None,
        }
    }
}

/// An entry ready to be written.
#[derive(Debug, Clone)]
pub struct Pending {
    key: String,
    head: EntryHead,
    body: Vec<u8>,
}

impl PartialEq for Pending {
    fn eq(&self, other: &Pending) -> bool {
        self.key == other.key && self.body == other.body
    }
}

impl Eq for Pending {}

/// The metadata stored with a body.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct EntryHead {
    /// The store key this entry was written under (a hash), checked on read.
    key: String,
    status: u16,
    content_type: Option<String>,
    /// Where the body came from after redirects, redacted; None when it is the URL asked.
    final_url: Option<String>,
    /// The URLs the redirects led to, in order, redacted (the receipt's `redirects`).
    redirects: Vec<String>,
    /// When the body was fetched, in milliseconds since the epoch (the receipt's
    /// `fetched_at`; a 304 that refreshes the entry leaves it: the body is still the one
    /// fetched then). Required: an entry written before vetch kept it does not parse, which
    /// makes it a miss, fetched again and replaced, so a served copy always says when it
    /// was fetched.
    fetched_at_ms: u64,
    etag: Option<String>,
    last_modified: Option<String>,
    /// The response said `no-cache`: never served without asking, even under `--max-age`.
    no_cache: bool,
    body_len: usize,
    policy: CachePolicy,
}

/// A stored copy, read back and checked whole, its body kept up to the run's cap.
#[derive(Debug, Clone)]
pub struct Stored {
    head: EntryHead,
    /// The body, or its first `max_body_bytes` bytes when it is longer.
    pub body: Vec<u8>,
    truncated: bool,
}

impl Stored {
    /// The stored body is longer than this run's cap: `body` is its prefix.
    pub fn truncated(&self) -> bool {
        self.truncated
    }

    pub fn status(&self) -> u16 {
        self.head.status
    }

    pub fn content_type(&self) -> Option<&str> {
        self.head.content_type.as_deref()
    }

    /// When the stored body was fetched.
    pub fn fetched_at(&self) -> SystemTime {
        crate::fetch::evidence::from_unix_ms(self.head.fetched_at_ms)
    }

    /// The way the stored body came: its final URL (the stored, redacted one, or `asked`
    /// when there was no redirect) and the redirects that led there, redacted, in order.
    /// None when the two do not agree (the redirects were not observed when it was
    /// fetched): no route is better than a wrong one.
    pub fn route(&self, asked: &str) -> Option<(String, Vec<String>)> {
        let redirects = &self.head.redirects;
        let agree = match (&self.head.final_url, redirects.last()) {
            (None, None) => true,
            (Some(f), Some(last)) => f == last,
            _ => false,
        };
        agree.then(|| (self.final_url(asked), redirects.clone()))
    }

    /// The URL the body came from: the stored (redacted) final URL after redirects, or
    /// `asked` when there was no redirect.
    pub fn final_url(&self, asked: &str) -> String {
        self.head
            .final_url
            .clone()
            .unwrap_or_else(|| asked.to_string())
    }
}

/// What to do for a request.
#[derive(Debug)]
pub enum Plan {
    /// Serve the stored copy; send nothing.
    Hit { stored: Stored, age: Duration },
    /// Ask with these conditional headers; a 304 serves the stored copy.
    Revalidate {
        stored: Stored,
        conditional: Vec<(HeaderName, HeaderValue)>,
    },
    /// Fetch as if there were no cache.
    Miss,
}

/// A response as the fetch layer accepted it, offered for storing.
#[derive(Debug)]
pub struct Offer<'a> {
    pub status: u16,
    pub headers: &'a HeaderMap,
    pub content_type: Option<&'a str>,
    /// Redacted; None when it is the URL asked.
    pub final_url: Option<String>,
    /// Redacted, in order.
    pub redirects: Vec<String>,
    /// When the response arrived.
    pub fetched_at: SystemTime,
    pub body: &'a [u8],
    pub truncated: bool,
}

/// The response headers the rules need; everything else (cookies above all) is dropped.
const KEPT_RESPONSE_HEADERS: &[&str] = &[
    "cache-control",
    "expires",
    "date",
    "age",
    "etag",
    "last-modified",
    "vary",
    "pragma",
];

const MAGIC: &[u8; 8] = b"vetchc1\n";

fn options() -> CacheOptions {
    CacheOptions {
        shared: false,
        ..CacheOptions::default()
    }
}

/// The SHA-256 of a request header value under this cache's salt (what the stored policy
/// keeps instead of the value).
fn salted_hex(salt: &[u8; 32], v: &[u8]) -> String {
    let mut h = Sha256::new();
    h.update(b"vetch-cache-header/2");
    h.update(salt);
    h.update(v);
    hex::encode(h.finalize())
}

/// The store key of a request: a SHA-256 over the cache's salt and everything that makes it
/// this request, so two providers, two API keys or two `Accept-Language` values never share
/// an entry, and a key read from the index cannot be checked against guesses without the
/// salt.
fn key(salt: &[u8; 32], view: &RequestView<'_>) -> String {
    let mut h = Sha256::new();
    h.update(salt);
    let mut put = |s: &str| {
        h.update((s.len() as u64).to_le_bytes());
        h.update(s.as_bytes());
    };
    put("vetch-cache-key/2");
    put(view.provider);
    put("GET");
    put(view.url);
    put(view.user_agent);
    put(view.proxy.unwrap_or(""));
    put(view.policy);
    let mut headers: Vec<(String, &str)> = view
        .headers
        .iter()
        .map(|(n, v)| (n.to_ascii_lowercase(), v.as_str()))
        .collect();
    headers.sort();
    for (n, v) in headers {
        put(&n);
        put(v);
    }
    hex::encode(h.finalize())
}

/// Does a `Cache-Control` value hold this directive?
fn has_directive(headers: &HeaderMap, directive: &str) -> bool {
    headers
        .get_all(reqwest::header::CACHE_CONTROL)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|d| {
            let name = d.split('=').next().unwrap_or("").trim();
            name.eq_ignore_ascii_case(directive)
        })
}

/// `headers` with their freshness rewritten as one `max-age`: the response's own (from
/// `max-age` or `Expires`, less its age, as RFC 9111 computes it), or `default` when it
/// states none, and never more than `default` (robots.txt: its own freshness or 24 hours,
/// never longer). `no-store` and `no-cache` are kept, so they still mean what they said.
pub fn capped_freshness(headers: &HeaderMap, default: Duration, now: SystemTime) -> HeaderMap {
    let own = has_directive(headers, "max-age") || headers.contains_key("expires");
    let ttl = if own {
        let (mut parts, ()) = http::Request::new(()).into_parts();
        parts.method = http::Method::GET;
        let (mut res, ()) = http::Response::new(()).into_parts();
        res.headers = headers.clone();
        CachePolicy::new_options(&parts, &res, now, options()).time_to_live(now)
    } else {
        default
    };
    let mut out = headers.clone();
    for name in ["cache-control", "expires", "age", "date"] {
        out.remove(name);
    }
    let mut cc = format!("max-age={}", ttl.min(default).as_secs());
    for d in ["no-store", "no-cache"] {
        if has_directive(headers, d) {
            cc.push_str(", ");
            cc.push_str(d);
        }
    }
    if let Ok(v) = HeaderValue::from_str(&cc) {
        out.insert(reqwest::header::CACHE_CONTROL, v);
    }
    out
}

impl HttpCache {
    /// The cache for this run: its directory checked (and created, 0700, when missing)
    /// unless `--no-cache`; a directory that is not this user's alone is refused (see
    /// [`HttpCache::refused`]) and every attempt then reports `bypass`.
    pub fn new(cfg: CacheConfig) -> HttpCache {
        let access = if cfg.bypass {
            Access::Bypass
        } else {
            match Disk::open(&cfg.dir) {
                Ok(d) => Access::Open(d),
                Err(why) => Access::Refused(why),
            }
        };
        HttpCache {
            cfg,
            access,
            ledger: Mutex::new(()),
        }
    }

    pub fn config(&self) -> &CacheConfig {
        &self.cfg
    }

    /// Why the cache directory is not used, when it is refused.
    pub fn refused(&self) -> Option<&Untrusted> {
        match &self.access {
            Access::Refused(why) => Some(why),
            _ => None,
        }
    }

    fn disk(&self) -> Option<&Disk> {
        match &self.access {
            Access::Open(d) => Some(d),
            _ => None,
        }
    }

    /// The store key of a request and the request the caching rules see, or None when the
    /// cache is not used this run (`--no-cache`, or a refused directory): the attempt
    /// then goes to the network and reports `bypass`.
    pub fn request(&self, view: &RequestView<'_>) -> Option<(String, http::request::Parts)> {
        let salt = self.disk()?.salt();
        Some((key(salt, view), self.policy_request(salt, view)))
    }

    /// The request the rules see: a fixed URI (the key already holds the URL) and the
    /// salted hashes of the header values, so `Vary` can be checked and nothing stored is
    /// a secret or a dictionary oracle. `Cache-Control` and `Pragma` stay readable: they
    /// are directives, and `--max-age` becomes one.
    fn policy_request(&self, salt: &[u8; 32], view: &RequestView<'_>) -> http::request::Parts {
        let mut headers = HeaderMap::new();
        let ua = ("user-agent".to_string(), view.user_agent.to_string());
        for (n, v) in view.headers.iter().chain(std::iter::once(&ua)) {
            let Ok(name) = HeaderName::from_bytes(n.as_bytes()) else {
                continue;
            };
            let plain = name == reqwest::header::CACHE_CONTROL || name == reqwest::header::PRAGMA;
            let value = if plain {
                v.clone()
            } else {
                salted_hex(salt, v.as_bytes())
            };
            if let Ok(value) = HeaderValue::from_str(&value) {
                headers.append(name, value);
            }
        }
        if let Some(m) = self.cfg.max_age {
            if let Ok(v) = HeaderValue::from_str(&format!("max-age={}, max-stale", m.as_secs())) {
                headers.append(reqwest::header::CACHE_CONTROL, v);
            }
        }
        let (mut parts, ()) = http::Request::new(()).into_parts();
        parts.method = http::Method::GET;
        parts.uri = http::Uri::from_static("/");
        parts.headers = headers;
        parts
    }

    /// The response the rules see: the kept headers, and `max-age=default_ttl` added when
    /// the response states no freshness of its own (a heuristic the contract fixes).
    fn policy_response(
        &self,
        status: u16,
        headers: &HeaderMap,
        add_ttl: bool,
    ) -> http::response::Parts {
        let mut kept = HeaderMap::new();
        for name in KEPT_RESPONSE_HEADERS {
            for v in headers.get_all(*name) {
                kept.append(HeaderName::from_static(name), v.clone());
            }
        }
        if add_ttl && !has_directive(&kept, "max-age") && !kept.contains_key("expires") {
            if let Ok(v) =
                HeaderValue::from_str(&format!("max-age={}", self.cfg.default_ttl.as_secs()))
            {
                kept.append(reqwest::header::CACHE_CONTROL, v);
            }
        }
        let (mut parts, ()) = http::Response::new(()).into_parts();
        parts.status = http::StatusCode::from_u16(status).unwrap_or(http::StatusCode::OK);
        parts.headers = kept;
        parts
    }

    /// Decide what to do for a request: serve, revalidate or fetch. A body served is cut
    /// at `max_body` bytes (this run's cap), as a fresh one would be.
    pub fn plan(&self, key: &str, req: &http::request::Parts, max_body: u64) -> Plan {
        let Some((stored, written)) = self.load(key, max_body) else {
            return Plan::Miss;
        };
        let now = SystemTime::now();
        let decision = stored.head.policy.before_request(req, now);
        let forced = self.cfg.max_age.is_some() && stored.head.no_cache;
        let matches = match decision {
            BeforeRequest::Fresh(_) if !forced => {
                self.touch(key, &written);
                let age = stored.head.policy.age(now);
                return Plan::Hit { stored, age };
            }
            BeforeRequest::Fresh(_) => true,
            BeforeRequest::Stale { matches, .. } => matches,
        };
        if !matches {
            return Plan::Miss;
        }
        let validators = [
            (reqwest::header::IF_NONE_MATCH, stored.head.etag.as_deref()),
            (
                reqwest::header::IF_MODIFIED_SINCE,
                stored.head.last_modified.as_deref(),
            ),
        ];
        let conditional: Vec<_> = validators
            .into_iter()
            .filter_map(|(name, v)| Some((name, HeaderValue::from_str(v?).ok()?)))
            .collect();
        if conditional.is_empty() {
            return Plan::Miss;
        }
        Plan::Revalidate {
            stored,
            conditional,
        }
    }

    /// A response worth keeping, or None: only a complete 2xx body the rules let a private
    /// cache store (`no-store` never is). A body cut at the cap is never stored: a later
    /// lookup with a larger cap must not get the prefix.
    pub fn offer(&self, key: &str, req: &http::request::Parts, o: Offer<'_>) -> Option<Pending> {
        if !(200..300).contains(&o.status) {
            return None;
        }
        self.offer_final(key, req, o)
    }

    /// [`HttpCache::offer`] for an answer whose 4xx status is itself the answer (robots.txt:
    /// a 404 means "no rules", worth keeping as long as a file would be).
    pub fn offer_final(
        &self,
        key: &str,
        req: &http::request::Parts,
        o: Offer<'_>,
    ) -> Option<Pending> {
        if o.truncated || !(200..500).contains(&o.status) || (300..400).contains(&o.status) {
            return None;
        }
        let res = self.policy_response(o.status, o.headers, true);
        let policy = CachePolicy::new_options(req, &res, SystemTime::now(), options());
        if !policy.is_storable() {
            return None;
        }
        let header = |n: &str| {
            o.headers
                .get(n)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        Some(Pending {
            key: key.to_string(),
            head: EntryHead {
                key: key.to_string(),
                status: o.status,
                content_type: o.content_type.map(str::to_string),
                final_url: o.final_url,
                redirects: o.redirects,
                fetched_at_ms: crate::fetch::evidence::to_unix_ms(o.fetched_at),
                etag: header("etag"),
                last_modified: header("last-modified"),
                no_cache: has_directive(&res.headers, "no-cache"),
                body_len: o.body.len(),
                policy,
            },
            body: o.body.to_vec(),
        })
    }

    /// A `304` answered a revalidation: the stored copy, and the refreshed entry to write
    /// once it is judged usable (not when this run holds only a prefix of the body). None
    /// when the 304 does not match the stored copy.
    pub fn not_modified(
        &self,
        key: &str,
        req: &http::request::Parts,
        stored: Stored,
        headers: &HeaderMap,
    ) -> Option<(Stored, Option<Pending>)> {
        let mut res = self.policy_response(304, headers, false);
        // A 304 need not repeat the validators; one that names none answers the request
        // this cache made from its one stored copy, so it speaks of that copy.
        if !res.headers.contains_key("etag") && !res.headers.contains_key("last-modified") {
            let stored_validators = [
                ("etag", stored.head.etag.as_deref()),
                ("last-modified", stored.head.last_modified.as_deref()),
            ];
            for (name, v) in stored_validators {
                if let Some(v) = v.and_then(|v| HeaderValue::from_str(v).ok()) {
                    res.headers.insert(HeaderName::from_static(name), v);
                }
            }
        }
        match stored
            .head
            .policy
            .after_response(req, &res, SystemTime::now())
        {
            AfterResponse::Modified(..) => None,
            AfterResponse::NotModified(policy, _) => {
                let whole = !stored.truncated;
                let pending = (whole && policy.is_storable()).then(|| {
                    let mut head = stored.head.clone();
                    head.policy = policy;
                    if let Some(e) = headers.get("etag").and_then(|v| v.to_str().ok()) {
                        head.etag = Some(e.to_string());
                    }
                    Pending {
                        key: key.to_string(),
                        head,
                        body: stored.body.clone(),
                    }
                });
                Some((stored, pending))
            }
        }
    }

    /// Read and check one entry, keeping at most `max_body` bytes of its body; any problem
    /// is a miss. The read is bounded by the size the index recorded (at most the cache's
    /// cap) and the whole entry is checked against its hash, whatever part is kept.
    fn load(&self, key: &str, max_body: u64) -> Option<(Stored, IndexEntry)> {
        let disk = self.disk()?;
        let entry = disk.find(key)?;
        let mut reader = disk.open_entry(&entry, self.cfg.max_bytes)?;
        let keep = usize::try_from(max_body).unwrap_or(usize::MAX);
        let stored = read_entry(&mut reader, key, keep, entry.size)?;
        reader.verify().then_some((stored, entry))
    }

    /// Mark an entry as used now (for least-recently-used eviction), at most once a
    /// minute per entry so that a hot entry's index does not grow with every hit.
    fn touch(&self, key: &str, entry: &IndexEntry) {
        let now = now_ms();
        if now.saturating_sub(entry.time) < 60_000 || entry.key != key {
            return;
        }
        if let Some(disk) = self.disk() {
            disk.touch(entry, now);
        }
    }

    /// Write an entry (atomically: temp file and rename), then keep the cache within its
    /// cap. Errors are ignored: the lookup already has its content.
    pub fn store(&self, p: Pending) {
        let Some(disk) = self.disk() else {
            return;
        };
        let bytes = encode(&p.head, &p.body);
        let old = disk.find(&p.key);
        let Some(sri) = disk.write(&p.key, &bytes) else {
            return;
        };
        // The entry superseded (a refresh): its content is this key's alone.
        if let Some(old) = old.filter(|o| o.integrity() != sri) {
            disk.remove_content(old.integrity());
        }
        self.account(disk, bytes.len() as u64);
    }

    /// Count a write in the ledger; measure now and then, and evict when over the cap.
    ///
    /// The ledger is `BYTES WRITES`: the cache's size as last measured plus what was
    /// written since, and the writes counted. Replaced by rename, so it is always whole;
    /// two processes updating it at the same instant may lose one's count until the next
    /// measurement (it is an estimate that the rescans correct).
    fn account(&self, disk: &Disk, written: u64) {
        let _guard = match self.ledger.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        let (known, writes) = disk.ledger().map_or((None, 0), |(b, w)| (Some(b), w));
        let writes = writes.saturating_add(1);
        let total = match known {
            Some(k) if writes % RESCAN_EVERY != 0 => k.saturating_add(written),
            _ => disk.list().iter().map(|e| e.size).sum(),
        };
        let total = if total > self.cfg.max_bytes {
            evict(disk, self.cfg.max_bytes / 10 * 9)
        } else {
            total
        };
        disk.set_ledger(total, writes);
    }
}

fn now_ms() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0)
}

fn encode(head: &EntryHead, body: &[u8]) -> Vec<u8> {
    let head = serde_json::to_vec(head).unwrap_or_default();
    let mut out = Vec::with_capacity(MAGIC.len() + 4 + head.len() + body.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(head.len() as u32).to_le_bytes());
    out.extend_from_slice(&head);
    out.extend_from_slice(body);
    out
}

/// Read one entry (`MAGIC`, the head's length, the head, the body) from `r`, keeping at
/// most `keep` bytes of the body; `size` is the entry's recorded length, which the parts
/// must add up to. The caller checks the hash of the whole afterwards.
fn read_entry(mut r: impl Read, key: &str, keep: usize, size: u64) -> Option<Stored> {
    let mut magic = [0u8; 8];
    r.read_exact(&mut magic).ok()?;
    if &magic != MAGIC {
        return None;
    }
    let mut len = [0u8; 4];
    r.read_exact(&mut len).ok()?;
    let len = u32::from_le_bytes(len) as usize;
    if len > MAX_HEAD {
        return None;
    }
    let mut head_bytes = vec![0u8; len];
    r.read_exact(&mut head_bytes).ok()?;
    let head: EntryHead = serde_json::from_slice(&head_bytes).ok()?;
    let parts = (MAGIC.len() + 4 + len) as u64 + head.body_len as u64;
    if head.key != key || parts != size {
        return None;
    }
    let kept = head.body_len.min(keep);
    let mut body = Vec::with_capacity(kept);
    (&mut r).take(kept as u64).read_to_end(&mut body).ok()?;
    if body.len() != kept {
        return None;
    }
    let truncated = head.body_len > kept;
    Some(Stored {
        head,
        body,
        truncated,
    })
}

/// Remove the least recently used entries until at most `target` bytes remain; returns
/// what remains.
fn evict(disk: &Disk, target: u64) -> u64 {
    let mut entries = disk.list();
    let mut total: u64 = entries.iter().map(|e| e.size).sum();
    entries.sort_by_key(|e| e.time);
    for e in entries {
        if total <= target {
            break;
        }
        disk.remove(&e);
        total = total.saturating_sub(e.size);
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    /// robots.txt's freshness: its own when shorter than the default, the default when it
    /// states none, and never more than the default (a year's `max-age` is 24 hours).
    #[test]
    fn capped_freshness_is_its_own_or_the_default_never_longer() {
        let day = Duration::from_secs(86_400);
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let cc = |pairs: &[(&'static str, &str)]| {
            let mut h = HeaderMap::new();
            for (k, v) in pairs {
                h.insert(*k, HeaderValue::from_str(v).unwrap());
            }
            let out = capped_freshness(&h, day, now);
            out.get("cache-control")
                .unwrap()
                .to_str()
                .unwrap()
                .to_string()
        };
        assert_eq!(cc(&[("cache-control", "max-age=600")]), "max-age=600");
        assert_eq!(
            cc(&[("cache-control", "max-age=31536000")]),
            "max-age=86400"
        );
        assert_eq!(cc(&[]), "max-age=86400");
        // `no-cache`: stored, but asked again every time.
        assert_eq!(
            cc(&[("cache-control", "max-age=60, no-cache")]),
            "max-age=0, no-cache"
        );
        assert_eq!(
            cc(&[("expires", "Wed, 01 Jan 2031 00:00:00 GMT")]),
            "max-age=86400"
        );
    }

    #[test]
    fn the_policy_part_of_a_key_is_every_rule_and_nothing_else() {
        let base = NetworkPolicy {
            allow_private: false,
            allow_private_hosts: vec![],
            allowed_domains: vec!["a.example".into(), "B.example".into()],
            blocked_domains: vec![],
        };
        let fp = |p: &NetworkPolicy, r| policy_fingerprint(p, r);
        // The same rules in another order or letter case: the same entries.
        let same = NetworkPolicy {
            allowed_domains: vec!["b.example".into(), "a.example".into()],
            ..base.clone()
        };
        assert_eq!(fp(&base, 10), fp(&same, 10));
        // Any rule that changes what may be reached: other entries.
        for other in [
            NetworkPolicy {
                allow_private: true,
                ..base.clone()
            },
            NetworkPolicy {
                allow_private_hosts: vec!["10.0.0.1".into()],
                ..base.clone()
            },
            NetworkPolicy {
                allowed_domains: vec![],
                ..base.clone()
            },
            NetworkPolicy {
                blocked_domains: vec!["c.example".into()],
                ..base.clone()
            },
        ] {
            assert_ne!(fp(&base, 10), fp(&other, 10), "{other:?}");
        }
        assert_ne!(fp(&base, 10), fp(&base, 0));
        assert!(caches(Method::Get) && !caches(Method::Post));
    }
    use std::path::Path;

    fn cache(dir: &Path) -> HttpCache {
        HttpCache::new(CacheConfig {
            dir: dir.to_path_buf(),
            max_bytes: 512 * 1024 * 1024,
            default_ttl: Duration::from_secs(300),
            max_age: None,
            bypass: false,
        })
    }

    fn view<'a>(url: &'a str, headers: &'a [(String, String)]) -> RequestView<'a> {
        RequestView {
            provider: "direct",
            url,
            headers,
            user_agent: "vetch/test",
            proxy: None,
            policy: "default",
        }
    }

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (n, v) in pairs {
            h.append(
                HeaderName::from_bytes(n.as_bytes()).unwrap(),
                HeaderValue::from_str(v).unwrap(),
            );
        }
        h
    }

    fn offer<'a>(h: &'a HeaderMap, body: &'a [u8]) -> Offer<'a> {
        Offer {
            status: 200,
            headers: h,
            content_type: Some("text/html"),
            final_url: None,
            redirects: vec![],
            fetched_at: SystemTime::now(),
            body,
            truncated: false,
        }
    }

    /// The key and the policy request of `v`.
    fn req(c: &HttpCache, v: &RequestView<'_>) -> (String, http::request::Parts) {
        c.request(v).expect("an open cache")
    }

    /// Store a response for `url` and return the plan of a second identical request.
    fn round_trip(c: &HttpCache, url: &str, res: &[(&str, &str)]) -> Plan {
        let v = view(url, &[]);
        let (k, req) = req(c, &v);
        let h = headers(res);
        if let Some(p) = c.offer(&k, &req, offer(&h, b"<p>hello</p>")) {
            c.store(p);
        }
        c.plan(&k, &req, u64::MAX)
    }

    #[test]
    fn key_covers_salt_provider_url_and_every_header() {
        let none: Vec<(String, String)> = vec![];
        let a = vec![("Authorization".to_string(), "Bearer one".to_string())];
        let b = vec![("Authorization".to_string(), "Bearer two".to_string())];
        let salt = [7u8; 32];
        let key = |v: &RequestView<'_>| key(&salt, v);
        let base = key(&view("https://a.example/", &none));
        assert_ne!(base, key(&view("https://a.example/x", &none)));
        assert_ne!(base, key(&view("https://a.example/", &a)));
        assert_ne!(
            key(&view("https://a.example/", &a)),
            key(&view("https://a.example/", &b))
        );
        let mut other = view("https://a.example/", &none);
        other.provider = "backup";
        assert_ne!(base, key(&other));
        let mut looser = view("https://a.example/", &none);
        looser.policy = "allow_private";
        assert_ne!(base, key(&looser));
        assert_eq!(base, key(&view("https://a.example/", &none)));
        assert_eq!(base.len(), 64);
        // Another cache, another salt: another key for the same request.
        assert_ne!(
            base,
            super::key(&[8u8; 32], &view("https://a.example/", &none))
        );
    }

    /// The stored policy keeps no header value, and no hash a dictionary could match
    /// without the cache's salt (the unsalted SHA-256 of `admin:hunter2` was there).
    #[test]
    fn header_hashes_are_salted_per_cache() {
        let basic = "Basic YWRtaW46aHVudGVyMg==";
        let hs = vec![("Authorization".to_string(), basic.to_string())];
        let v = view("https://a.example/", &hs);
        let unsalted = sha2_hex(basic.as_bytes());
        let one = tempfile::tempdir().unwrap();
        let two = tempfile::tempdir().unwrap();
        let (c1, c2) = (cache(one.path()), cache(two.path()));
        let seen = |c: &HttpCache| {
            let (_, parts) = req(c, &v);
            parts.headers["authorization"].to_str().unwrap().to_string()
        };
        let (h1, h2) = (seen(&c1), seen(&c2));
        assert_eq!(h1.len(), 64);
        assert_ne!(h1, unsalted);
        assert_ne!(h1, h2, "each cache has its own salt");
        assert_eq!(h1, seen(&cache(one.path())), "and keeps it");
        // Nor is the unsalted hash anywhere in what is written.
        let (k, preq) = req(&c1, &v);
        let h = headers(&[("vary", "authorization")]);
        c1.store(c1.offer(&k, &preq, offer(&h, b"page")).unwrap());
        for f in files(one.path()) {
            let text = String::from_utf8_lossy(&std::fs::read(&f).unwrap()).into_owned();
            assert!(!text.contains(&unsalted), "{}", f.display());
            assert!(!text.contains(basic), "{}", f.display());
        }
        assert!(matches!(c1.plan(&k, &preq, u64::MAX), Plan::Hit { .. }));
    }

    fn sha2_hex(b: &[u8]) -> String {
        hex::encode(Sha256::digest(b))
    }

    #[test]
    fn fresh_hit_then_stale_revalidates_and_no_store_is_never_kept() {
        let dir = tempfile::tempdir().unwrap();
        let c = cache(dir.path());
        // No freshness information: the default TTL applies.
        assert!(matches!(
            round_trip(&c, "https://a.example/1", &[]),
            Plan::Hit { .. }
        ));
        assert!(matches!(
            round_trip(
                &c,
                "https://a.example/2",
                &[("cache-control", "max-age=60")]
            ),
            Plan::Hit { .. }
        ));
        match round_trip(
            &c,
            "https://a.example/3",
            &[("cache-control", "max-age=0"), ("etag", "\"v1\"")],
        ) {
            Plan::Revalidate { conditional, .. } => {
                assert_eq!(conditional[0].0, reqwest::header::IF_NONE_MATCH);
                assert_eq!(conditional[0].1, "\"v1\"");
            }
            other => panic!("{other:?}"),
        }
        // Stale with no validator: nothing to ask with, fetch again.
        assert!(matches!(
            round_trip(&c, "https://a.example/4", &[("cache-control", "max-age=0")]),
            Plan::Miss
        ));
        assert!(matches!(
            round_trip(&c, "https://a.example/5", &[("cache-control", "no-store")]),
            Plan::Miss
        ));
        assert_eq!(info(dir.path()).entries, 4);
    }

    #[test]
    fn a_304_refreshes_and_serves_the_stored_body() {
        let dir = tempfile::tempdir().unwrap();
        let c = cache(dir.path());
        let v = view("https://a.example/r", &[]);
        let (k, req) = req(&c, &v);
        let h = headers(&[("cache-control", "max-age=0"), ("etag", "\"v1\"")]);
        c.store(c.offer(&k, &req, offer(&h, b"stored body")).unwrap());
        let Plan::Revalidate { stored, .. } = c.plan(&k, &req, u64::MAX) else {
            panic!("expected a revalidation")
        };
        let h304 = headers(&[("cache-control", "max-age=600"), ("etag", "\"v1\"")]);
        let (served, pending) = c.not_modified(&k, &req, stored, &h304).unwrap();
        assert_eq!(served.body, b"stored body");
        c.store(pending.unwrap());
        assert!(matches!(c.plan(&k, &req, u64::MAX), Plan::Hit { .. }));
        // A 304 whose validator is another: the stored copy is not the one it speaks of.
        let Plan::Hit { stored, .. } = c.plan(&k, &req, u64::MAX) else {
            panic!()
        };
        let other = headers(&[("etag", "\"v2\"")]);
        assert!(c.not_modified(&k, &req, stored.clone(), &other).is_none());
        // A 304 that names no validator speaks of the copy the request was made from.
        assert!(c.not_modified(&k, &req, stored, &headers(&[])).is_some());
        // A run whose cap holds only a prefix serves it, but never writes the prefix back.
        let Plan::Hit { stored, .. } = c.plan(&k, &req, 6) else {
            panic!()
        };
        assert_eq!(
            (stored.body.as_slice(), stored.truncated()),
            (&b"stored"[..], true)
        );
        let (served, pending) = c.not_modified(&k, &req, stored, &h304).unwrap();
        assert!(served.truncated() && pending.is_none());
    }

    /// A hit obeys the run's body cap as a fresh response would: cut at the cap, marked.
    #[test]
    fn a_hit_is_cut_at_the_runs_cap() {
        let dir = tempfile::tempdir().unwrap();
        let c = cache(dir.path());
        let v = view("https://a.example/cap", &[]);
        let (k, req) = req(&c, &v);
        let body = vec![b'x'; 10_000];
        c.store(c.offer(&k, &req, offer(&headers(&[]), &body)).unwrap());
        for (cap, kept, cut) in [
            (1024, 1024, true),
            (10_000, 10_000, false),
            (u64::MAX, 10_000, false),
        ] {
            let Plan::Hit { stored, .. } = c.plan(&k, &req, cap) else {
                panic!("{cap}")
            };
            assert_eq!(
                (stored.body.len(), stored.truncated()),
                (kept, cut),
                "{cap}"
            );
        }
    }

    #[test]
    fn max_age_bounds_the_age_of_what_is_served() {
        let dir = tempfile::tempdir().unwrap();
        let mut cfg = cache(dir.path()).cfg;
        let plain = HttpCache::new(cfg.clone());
        let v = view("https://a.example/m", &[]);
        let h = headers(&[("cache-control", "max-age=3600"), ("etag", "\"e\"")]);
        let (k, req) = req(&plain, &v);
        plain.store(plain.offer(&k, &req, offer(&h, b"x")).unwrap());
        cfg.max_age = Some(Duration::ZERO);
        let zero = HttpCache::new(cfg.clone());
        assert!(matches!(
            zero.plan(&k, &self::req(&zero, &v).1, u64::MAX),
            Plan::Revalidate { .. }
        ));
        // A long --max-age serves a copy the server called stale.
        let h = headers(&[("cache-control", "max-age=0"), ("etag", "\"e\"")]);
        plain.store(plain.offer(&k, &req, offer(&h, b"x")).unwrap());
        cfg.max_age = Some(Duration::from_secs(3600));
        let long = HttpCache::new(cfg);
        assert!(matches!(
            long.plan(&k, &self::req(&long, &v).1, u64::MAX),
            Plan::Hit { .. }
        ));
    }

    #[test]
    fn corrupt_or_foreign_entries_are_misses() {
        let dir = tempfile::tempdir().unwrap();
        let c = cache(dir.path());
        let v = view("https://a.example/c", &[]);
        let (k, req) = req(&c, &v);
        let h = headers(&[]);
        c.store(c.offer(&k, &req, offer(&h, b"body")).unwrap());
        assert!(matches!(c.plan(&k, &req, u64::MAX), Plan::Hit { .. }));
        // Flip bytes in every content file (same length): the integrity check fails.
        for f in files(dir.path()) {
            if f.to_string_lossy().contains("content-v2") {
                let len = std::fs::metadata(&f).unwrap().len() as usize;
                std::fs::write(&f, vec![b'g'; len]).unwrap();
            }
        }
        assert!(matches!(c.plan(&k, &req, u64::MAX), Plan::Miss));
        // Bytes that are not an entry at all.
        let decode = |b: &[u8], key: &str| read_entry(b, key, usize::MAX, b.len() as u64);
        assert!(decode(b"vetchc1\n\xff\xff\xff\xff", &k).is_none());
        assert!(decode(b"", &k).is_none());
        // An entry written under another key is not served for this one.
        let bytes = encode(
            &c.offer(&k, &req, offer(&h, b"body")).unwrap().head,
            b"body",
        );
        assert!(decode(&bytes, &k).is_some());
        assert!(decode(&bytes, "another").is_none());
        // Nor one whose parts do not add up to the length the index recorded.
        assert!(read_entry(&bytes[..], &k, usize::MAX, bytes.len() as u64 + 1).is_none());
    }

    /// An entry remembers when its body was fetched and the way it came; one written by a
    /// vetch that did not keep the time is not served (it would be a copy whose age nobody
    /// can state): it is a miss, fetched again and replaced.
    #[test]
    fn entries_keep_when_and_how_they_were_fetched_and_old_heads_are_misses() {
        let dir = tempfile::tempdir().unwrap();
        let c = cache(dir.path());
        let v = view("https://a.example/moved", &[]);
        let (k, req) = req(&c, &v);
        let h = headers(&[]);
        let at = UNIX_EPOCH + Duration::from_millis(1_700_000_000_123);
        let mut o = offer(&h, b"body");
        o.fetched_at = at;
        o.final_url = Some("https://b.example/here".into());
        o.redirects = vec![
            "https://b.example/there".into(),
            "https://b.example/here".into(),
        ];
        c.store(c.offer(&k, &req, o).unwrap());
        let Plan::Hit { stored, .. } = c.plan(&k, &req, u64::MAX) else {
            panic!("a fresh entry is a hit")
        };
        assert_eq!(stored.fetched_at(), at);
        let (final_url, redirects) = stored.route(v.url).expect("a route");
        assert_eq!(final_url, "https://b.example/here");
        assert_eq!(redirects.len(), 2);

        // The same entry as an older vetch wrote it: no `fetched_at_ms`, no `redirects`.
        let pending = c.offer(&k, &req, offer(&h, b"body")).unwrap();
        let mut head = serde_json::to_value(&pending.head).unwrap();
        let obj = head.as_object_mut().unwrap();
        obj.remove("fetched_at_ms");
        obj.remove("redirects");
        let head = serde_json::to_vec(&head).unwrap();
        let mut old = MAGIC.to_vec();
        old.extend_from_slice(&(head.len() as u32).to_le_bytes());
        old.extend_from_slice(&head);
        old.extend_from_slice(b"body");
        assert!(read_entry(&old[..], &k, usize::MAX, old.len() as u64).is_none());
    }

    fn files(dir: &Path) -> Vec<PathBuf> {
        walkdir::WalkDir::new(dir)
            .into_iter()
            .filter_map(Result::ok)
            .filter(|e| !e.file_type().is_dir())
            .map(walkdir::DirEntry::into_path)
            .collect()
    }

    #[test]
    fn nothing_stored_holds_a_secret_and_modes_are_private() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("vetch");
        let c = cache(&root);
        let secret = "s3cr3t-canary-value-9f8e7d";
        let url = format!("https://reader.example/?key={secret}");
        let hs = vec![("Authorization".to_string(), format!("Bearer {secret}"))];
        let v = view(&url, &hs);
        let (k, req) = req(&c, &v);
        let h = headers(&[("set-cookie", "session=abc"), ("etag", "\"1\"")]);
        let mut o = offer(&h, b"page");
        o.final_url = Some("https://reader.example/?key=[REDACTED]".into());
        c.store(c.offer(&k, &req, o).unwrap());
        let all = files(&root);
        assert!(!all.is_empty());
        for f in &all {
            let name = f.to_string_lossy();
            assert!(!name.contains(secret), "{name}");
            let bytes = std::fs::read(f).unwrap();
            let text = String::from_utf8_lossy(&bytes);
            assert!(!text.contains(secret), "{name}: {text}");
            assert!(!text.contains("session=abc"), "{name}: {text}");
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                let mode = std::fs::metadata(f).unwrap().permissions().mode() & 0o777;
                assert_eq!(mode, 0o600, "{name}");
            }
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&root).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o700);
        }
    }

    #[test]
    fn eviction_drops_the_least_recently_used() {
        let dir = tempfile::tempdir().unwrap();
        let c = cache(dir.path());
        let body = vec![b'a'; 100_000];
        let mut keys = Vec::new();
        for i in 0..4u128 {
            let url = format!("https://a.example/{i}");
            let v = view(&url, &[]);
            let (k, req) = req(&c, &v);
            let h = headers(&[]);
            c.store(c.offer(&k, &req, offer(&h, &body)).unwrap());
            // Last use: entry 0 oldest, entry 3 newest (no waiting for the clock).
            let disk = c.disk().unwrap();
            disk.touch(&disk.find(&k).unwrap(), 1_000 + i);
            assert_eq!(disk.find(&k).unwrap().time, 1_000 + i);
            keys.push((k, req));
        }
        let left = evict(c.disk().unwrap(), 250_000);
        assert!(left <= 250_000, "{left}");
        let present: Vec<bool> = keys
            .iter()
            .map(|(k, r)| matches!(c.plan(k, r, u64::MAX), Plan::Hit { .. }))
            .collect();
        assert_eq!(present, [false, false, true, true]);
        let cleared = clear(dir.path()).unwrap();
        assert_eq!(cleared.entries, 2);
        assert_eq!(info(dir.path()).entries, 0);
    }
}
