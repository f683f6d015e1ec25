//! The attempt loop: from a request to a receipt and the text that goes with it.
//!
//! `Engine::lookup` never fails and never panics: invalid input, missing providers and every
//! kind of provider failure become receipt fields and attempt records (a failed attempt is
//! data, not an `Err`). Every string that enters the receipt or the text is redacted here,
//! before it is stored, so the printer only ever sees redacted values.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use sha2::{Digest, Sha256};
use tokio::time::Instant;

mod evidence;
mod polite;

pub use polite::RetryAfterHook;

use crate::content::decode::{decode_body, DecodeError};
use crate::content::extract::{extract_redacted, looks_like_html};
use crate::fetch::cache::HttpCache;
use crate::fetch::evidence::{Evidence, Exchange, Provenance};
use crate::fetch::http::{Failure, Fetched};
use crate::fetch::provider::{Payload, Provider, Unpack};
use crate::fetch::spec::Readiness;
use crate::model::checked_url::CheckedUrl;
use crate::model::failure::{FailureKind, TimeoutPhase, UrlRejection};
use crate::model::input::{Request, ToolInput};
use crate::model::kinds::{BodyKind, ExtractMode};
use crate::model::receipt::{
    clip_chars, Asked, AttemptRecord, CacheReport, CacheStatus, FailureReason, Outcome, Receipt,
    ToolResult, Used, MAX_DETAIL_CHARS,
};
use crate::redact::controls::strip_controls;
use crate::redact::Redactor;
use crate::settings::{LookupRequest, Settings};

/// A sink for `-v` diagnostics. The caller redacts (see `output::Printer::diag`).
pub type Diag = Arc<dyn Fn(&str) + Send + Sync>;

/// Stops the lookups of an engine early (batch's Ctrl-C): once fired, an attempt in flight
/// ends as `transport_error` (`interrupted: ...`) and no further attempt starts, so each
/// lookup still returns a whole receipt. Clones share one signal.
#[derive(Clone, Default)]
pub struct Stop(Arc<StopInner>);

#[derive(Default)]
struct StopInner {
    fired: AtomicBool,
    notify: tokio::sync::Notify,
}

impl std::fmt::Debug for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Stop(fired: {})", self.is_fired())
    }
}

impl Stop {
    /// Stop every lookup that watches this signal, now and later.
    pub fn fire(&self) {
        self.0.fired.store(true, Ordering::SeqCst);
        self.0.notify.notify_waiters();
    }

    pub fn is_fired(&self) -> bool {
        self.0.fired.load(Ordering::SeqCst)
    }

    /// Resolves once the signal has fired (at once if it already has).
    pub async fn fired(&self) {
        loop {
            let notified = self.0.notify.notified();
            tokio::pin!(notified);
            // Registered before the check, so a `fire` in between is not missed.
            notified.as_mut().enable();
            if self.is_fired() {
                return;
            }
            notified.await;
        }
    }
}

/// Providers built once, shared by every lookup of the process.
pub struct Engine {
    settings: Arc<Settings>,
    /// The ready providers, in order; not-ready ones are never built.
    providers: Vec<Provider>,
    diag: Option<Diag>,
    /// The private HTTP cache, when the front end attached one (never by default: an
    /// engine built in a library or a test touches no disk).
    cache: Option<Arc<HttpCache>>,
    /// When set, at most this many bodies are processed at once (see
    /// [`Engine::with_cpu_slots`]).
    cpu_slots: Option<Arc<tokio::sync::Semaphore>>,
    /// When set and fired, lookups end early (see [`Stop`]).
    stop: Option<Stop>,
    /// Keep the [`Evidence`] of the attempt that was used (see [`Engine::with_evidence`]).
    evidence: bool,
    /// robots.txt and Retry-After (see [`Engine::with_robots`]).
    polite: polite::Polite,
}

/// What a lookup produced: the receipt and the text for `content[1]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lookup {
    pub receipt: Receipt,
    /// The content window on success, one failure line otherwise. Redacted.
    pub text: String,
    /// An attempt was refused by the guard for an address that `allow_private` would let
    /// through (never cloud metadata). For the operator's hint on stderr; never part of
    /// what the model sees.
    pub refused_private: bool,
    /// The most characters an attempt had when it was judged too short for `min_chars`,
    /// for the operator's hint that names `--min-chars`. Never part of what the model sees.
    pub too_short: Option<usize>,
    /// A template provider whose own endpoint the guard refused as a local address, and
    /// that host: `allow_private_hosts` is the narrow fix, for the operator's hint.
    pub local_endpoint: Option<(String, String)>,
    /// What went over the network for the attempt that was used, when the engine keeps
    /// evidence and the body was received in this lookup (not from the cache, not from a
    /// command). For a WARC writer; never part of what the model sees.
    pub evidence: Option<Evidence>,
}

impl Lookup {
    pub fn into_tool_result(self, tool_use_id: Option<String>) -> ToolResult {
        ToolResult::new(self.receipt, self.text, tool_use_id)
    }
}

/// Usable content from one attempt, before windowing.
struct Content {
    text: String,
    title: Option<String>,
    truncated: bool,
    http_status: Option<u16>,
    /// What the cache did for this attempt (None when it played no part).
    cache: Option<CacheReport>,
    /// Hex SHA-256 of the body as received (before charset decoding).
    body_sha256: String,
    /// Hex SHA-256 of `text` (the receipt's `content_sha256`).
    text_sha256: String,
    /// When and by which way the body came (set by the attempt loop).
    provenance: Option<Provenance>,
    /// The body itself, handed back by the job when evidence is kept (no copy is made).
    body: Option<Vec<u8>>,
    evidence: Option<Evidence>,
}

impl Content {
    /// With what the attempt loop knows of where it came from: its provenance, and its
    /// evidence (the exchange, and the body the job handed back; `cut`: the body was cut at
    /// the cap).
    fn sourced(mut self, provenance: Provenance, exchange: Option<Exchange>, cut: bool) -> Content {
        self.provenance = Some(provenance);
        self.evidence = exchange
            .zip(self.body.take())
            .map(|(exchange, body)| Evidence {
                exchange,
                body,
                truncated: cut,
            });
        self
    }
}

/// Why a lookup ended before its budget was spent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ended {
    Stopped,
    Deadline,
}

/// One lookup in progress: what was asked, the budget, the attempts made so far and what
/// their failures told the operator's hints.
struct Run {
    req: LookupRequest,
    target: CheckedUrl,
    redactor: Arc<Redactor>,
    start: Instant,
    deadline: Instant,
    budget: usize,
    log: Vec<AttemptRecord>,
    ended: Option<Ended>,
    refused_private: bool,
    too_short: Option<usize>,
    local_endpoint: Option<(String, String)>,
}

impl Run {
    /// What a failed attempt of `p` tells the hints: a refusal `--allow-private` would
    /// lift, a page too short for `min_chars`, a template's own endpoint on a local address.
    fn note_failure(&mut self, f: &Failure, p: &Provider) {
        self.refused_private |= lifted_by_allow_private(&f.kind);
        match &f.kind {
            FailureKind::TooShort { chars, .. } => {
                self.too_short = Some(self.too_short.unwrap_or(0).max(*chars));
            }
            // A template's own endpoint (the requested URL passed the pre-flight).
            FailureKind::Blocked(r)
                if p.kind() == crate::fetch::spec::ProviderKind::Template
                    && lifted_by_allow_private(&f.kind) =>
            {
                if let Some(host) = r.host() {
                    self.local_endpoint.get_or_insert((p.name.clone(), host));
                }
            }
            _ => {}
        }
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

fn sha256_hex(s: &str) -> String {
    hex::encode(Sha256::digest(s.as_bytes()))
}

/// The window `[start, start+max)` in characters, and where the next one starts.
pub fn window(text: &str, start: usize, max: usize) -> (&str, Option<usize>) {
    let Some(from) = nth_char_start(text, start) else {
        return ("", None);
    };
    match nth_char_start(&text[from..], max) {
        Some(to) => (&text[from..from + to], Some(start.saturating_add(max))),
        None => (&text[from..], None),
    }
}

/// The byte offset where the character with index `n` starts, `None` past the last one.
/// Counted in runs rather than a character at a time: each of the `n` characters still to
/// pass takes at least one byte, so the next `n` bytes (to a character boundary) hold at
/// most `n` of them, and counting characters in a run of bytes is a fast byte count. A
/// text of at most `n` bytes is answered without reading it.
fn nth_char_start(s: &str, n: usize) -> Option<usize> {
    let (mut at, mut left) = (0usize, n);
    loop {
        let mut end = at.saturating_add(left);
        if end >= s.len() {
            // At most `left` bytes, so at most `left` characters, are left: none has the
            // index asked for.
            return None;
        }
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        let passed = s[at..end].chars().count();
        if passed == 0 {
            return s[at..].char_indices().nth(left).map(|(i, _)| at + i);
        }
        at = end;
        left -= passed;
        if left == 0 {
            return Some(at);
        }
    }
}

impl Engine {
    /// Set up the ready providers. Their HTTP clients are built on first use.
    pub fn new(settings: Arc<Settings>) -> Engine {
        let clients = Arc::new(crate::fetch::provider::Clients::new(
            settings.policy().clone(),
            settings.max_redirects(),
            settings.user_agent().to_string(),
            settings.attempt_timeout(),
        ));
        let providers = settings
            .ready_providers()
            .map(|spec| Provider::build(spec, &clients))
            .collect();
        Engine {
            settings,
            providers,
            diag: None,
            cache: None,
            cpu_slots: None,
            stop: None,
            evidence: false,
            polite: polite::Polite::default(),
        }
    }

    /// Respect robots.txt (DESIGN §13): a requested URL it disallows ends before any
    /// attempt (`invalid_input`), and so does an `http` provider's redirect hop to one
    /// (`transport_error`). Off by default: the front end decides (`[lookup] robots`).
    pub fn with_robots(mut self, robots: Arc<crate::fetch::robots::Robots>) -> Engine {
        self.polite.robots = Some(robots);
        self
    }

    /// The robots.txt of this engine, when it respects it (for batch's `Crawl-delay`).
    pub fn robots(&self) -> Option<&Arc<crate::fetch::robots::Robots>> {
        self.polite.robots.as_ref()
    }

    /// Tell `hook` of every `429`/`503` with a `Retry-After` an `http` provider gets, as it
    /// happens (batch holds the host back).
    pub fn with_retry_after(mut self, hook: RetryAfterHook) -> Engine {
        self.polite.retry_after = Some(hook);
        self
    }

    /// Keep the evidence of each lookup's used attempt (the exchange, redacted, and the
    /// body, handed back by the job) in [`Lookup::evidence`], for `--warc`. Off by default:
    /// the body then outlives the lookup, and each attempt's headers are redacted once more.
    pub fn with_evidence(mut self) -> Engine {
        self.evidence = true;
        self
    }

    /// Serve and store GETs of http and template providers through `cache`.
    pub fn with_cache(mut self, cache: Arc<HttpCache>) -> Engine {
        self.cache = Some(cache);
        self
    }

    /// Process at most `n` fetched bodies at once (decoding, extraction, redaction and
    /// judging are CPU work on blocking threads). For many lookups in one process: more
    /// jobs than cores only take turns on the same cores, each holding its page in memory
    /// meanwhile. Waiting for a slot counts against the attempt's deadline.
    pub fn with_cpu_slots(mut self, n: usize) -> Engine {
        self.cpu_slots = Some(Arc::new(tokio::sync::Semaphore::new(n.max(1))));
        self
    }

    /// End lookups early when `stop` fires (a batch's Ctrl-C).
    pub fn with_stop(mut self, stop: Stop) -> Engine {
        self.stop = Some(stop);
        self
    }

    fn stopped(&self) -> bool {
        self.stop.as_ref().is_some_and(Stop::is_fired)
    }

    /// `work`, unless the stop fires first: then an `Interrupted` failure (keeping
    /// `http_status`, the status already received, if any).
    async fn until_stopped<T>(
        &self,
        work: impl std::future::Future<Output = Result<T, Failure>>,
        http_status: Option<u16>,
    ) -> Result<T, Failure> {
        let Some(stop) = &self.stop else {
            return work.await;
        };
        tokio::select! {
            biased;
            _ = stop.fired() => Err(Failure {
                kind: FailureKind::Interrupted,
                http_status,
            }),
            r = work => r,
        }
    }

    pub fn with_diag(mut self, diag: Diag) -> Engine {
        self.diag = Some(diag);
        self
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    fn say(&self, msg: &str) {
        if let Some(d) = &self.diag {
            d(msg);
        }
    }

    fn redactor(&self) -> &Redactor {
        self.settings.redactor()
    }

    /// Answer one caller request (bare input or ToolUse) with a tool result.
    pub async fn answer(&self, request: Request) -> ToolResult {
        self.answer_with_evidence(request).await.0
    }

    /// [`Engine::answer`], and the evidence of the attempt that was used (see
    /// [`Lookup::evidence`]).
    pub async fn answer_with_evidence(&self, request: Request) -> (ToolResult, Option<Evidence>) {
        let lookup = match request.input {
            Ok(input) => self.lookup(&input).await,
            Err(e) => {
                // No request could be formed: report the ceiling the defaults give.
                let max = self.settings.request(&ToolInput::default()).max_attempts;
                self.invalid(None, &e.message, Instant::now(), max)
            }
        };
        let mut lookup = lookup;
        let evidence = lookup.evidence.take();
        (lookup.into_tool_result(request.tool_use_id), evidence)
    }

    /// A refusal before any attempt (`invalid_input`).
    fn invalid(&self, url: Option<&str>, why: &str, start: Instant, max_attempts: u32) -> Lookup {
        let r = self.redactor();
        let detail = clip_chars(&r.redact_text(&strip_controls(why)), 300);
        let asked = Asked {
            url: url
                .map(|u| r.redact_url(&strip_controls(u)))
                .unwrap_or_default(),
            max_attempts,
            providers_available: self.providers.len() as u32,
        };
        let mut receipt = Receipt::refused(asked, detail.clone());
        receipt.elapsed_ms = millis(start.elapsed());
        Lookup {
            receipt,
            text: format!("invalid input: {detail}"),
            refused_private: false,
            too_short: None,
            local_endpoint: None,
            evidence: None,
        }
    }

    /// Check the requested URL before any attempt; the only place it is parsed. `Err`'s
    /// Display is the `failure_detail`.
    fn preflight(&self, url: &str) -> Result<CheckedUrl, UrlRejection> {
        let max = self.settings.max_url_length();
        let len = url.chars().count();
        if len > max {
            return Err(UrlRejection::TooLong { len, max });
        }
        if url.trim().is_empty() {
            return Err(UrlRejection::Empty);
        }
        let checked = CheckedUrl::parse(url).map_err(|e| match e {
            url::ParseError::RelativeUrlWithoutBase => UrlRejection::NoScheme,
            e => UrlRejection::Parse(e),
        })?;
        let parsed = checked.parsed();
        if !matches!(parsed.scheme(), "http" | "https") {
            // `localhost:8080/x` parses with the scheme `localhost`; what a person would
            // have had completed is a URL without a scheme, not one with an odd scheme.
            if crate::model::input::complete_scheme(url) != url.trim() {
                return Err(UrlRejection::NoScheme);
            }
            return Err(UrlRejection::Scheme(parsed.scheme().to_string()));
        }
        if parsed.host().is_none() {
            return Err(UrlRejection::NoHost);
        }
        self.settings
            .policy()
            .check_url(parsed, true)
            .map_err(UrlRejection::Refused)?;
        Ok(checked)
    }

    /// Run one lookup: check the URL, walk the ready providers within the budget and the
    /// deadline until one attempt returns usable content, and make the receipt.
    pub async fn lookup(&self, input: &ToolInput) -> Lookup {
        let start = Instant::now();
        let req = self.settings.request(input);
        let target = match self.preflight(&req.url) {
            Ok(t) => t,
            Err(why) => {
                return self.invalid(Some(&req.url), &why.to_string(), start, req.max_attempts)
            }
        };
        if let Err(why) = self
            .polite
            .admit(&target, start + self.settings.deadline())
            .await
        {
            self.say(&format!("robots.txt: {why}"));
            let why = UrlRejection::Robots(why).to_string();
            return self.invalid(Some(&req.url), &why, start, req.max_attempts);
        }
        let mut run = Run {
            // Keys the caller put in the URL are scrubbed wherever a provider echoes them.
            redactor: Arc::new(self.settings.redactor().with_url_secrets(&req.url)),
            deadline: start + self.settings.deadline(),
            budget: (req.max_attempts as usize).min(self.providers.len()),
            log: Vec::new(),
            ended: None,
            refused_private: false,
            too_short: None,
            local_endpoint: None,
            req,
            target,
            start,
        };
        let mut found = None;
        for (i, p) in self.providers.iter().take(run.budget).enumerate() {
            if let Some(why) = self.ended(&run) {
                run.ended = Some(why);
                break;
            }
            if let Some(content) = self.attempt(&mut run, i, p).await {
                found = Some((p.name.clone(), content));
                break;
            }
        }
        self.finish(run, found)
    }

    /// Whether the lookup must end before its next attempt: the run was stopped, or the
    /// deadline has passed.
    fn ended(&self, run: &Run) -> Option<Ended> {
        if self.stopped() {
            self.say("the run was stopped; no further attempts");
            return Some(Ended::Stopped);
        }
        if Instant::now() >= run.deadline {
            self.say("lookup deadline reached; no further attempts");
            return Some(Ended::Deadline);
        }
        None
    }

    /// One attempt with provider `p` (the `i`-th): fetch, process and judge under the
    /// attempt's deadline, settle the cache, and write its record. Returns the content when
    /// it is usable.
    async fn attempt(&self, run: &mut Run, i: usize, p: &Provider) -> Option<Content> {
        let now = Instant::now();
        let attempt_deadline = (now + self.settings.attempt_timeout()).min(run.deadline);
        let allowed = attempt_deadline - now;
        let redactor = run.redactor.clone();
        // Providers get the URL as given: `{url}` of templates is defined that way, the http
        // provider's client parses it exactly as preflight did, and a command provider
        // serializes the parsed URL itself.
        let url = run.target.as_given();
        let (n, budget) = (i + 1, run.budget);
        self.say(&format!(
            "attempt {n}/{budget}: provider '{}' ({})",
            p.name,
            p.kind().as_str()
        ));
        if self.settings.verbosity() >= 2 {
            // With this lookup's redactor, which knows the requested URL's own secrets in
            // every encoding a template may put them in.
            self.say(&redactor.redact_text(&p.request_line(url, allowed)));
        }
        let fetch = p.fetch(
            &run.target,
            attempt_deadline,
            allowed,
            self.settings.max_body_bytes(),
            &redactor,
            self.cache.as_ref(),
        );
        let fetch = self.polite.fetching(p.kind(), fetch);
        let result = match self.until_stopped(fetch, None).await {
            Ok(mut payload) => {
                // Processing is bounded by the same deadline as the fetch.
                let status = payload.fetched.http_status;
                let note = payload.cache.take();
                let provenance = payload.provenance.clone();
                let exchange = evidence::exchange(&payload, &redactor, self.evidence);
                let cut = payload.fetched.truncated;
                let work = self.until_stopped(
                    self.process(payload, &run.req, url, redactor.clone()),
                    status,
                );
                let result = match tokio::time::timeout_at(attempt_deadline, work).await {
                    Ok(r) => r,
                    Err(_) => Err(Failure {
                        kind: FailureKind::Timeout {
                            phase: TimeoutPhase::Processing,
                            after: allowed,
                        },
                        http_status: status,
                    }),
                };
                let mut result = result.map(|c| c.sourced(provenance, exchange, cut));
                if let Some(note) = note {
                    let report = note.settle(self.cache.as_ref(), result.is_ok()).await;
                    if let Ok(c) = &mut result {
                        c.cache = Some(report);
                    }
                }
                result
            }
            Err(f) => Err(f),
        };
        let elapsed = millis(now.elapsed());
        if let Err(f) = &result {
            self.polite.attempt_failed(p.kind(), &run.target, &f.kind);
            run.note_failure(f, p);
        }
        // The one place a failure becomes words.
        let (outcome, http_status, detail) = match &result {
            Ok(c) => (Outcome::Ok, c.http_status, usable_detail(c.cache)),
            Err(f) => (f.outcome(), f.http_status, f.kind.to_string()),
        };
        let detail = clip_chars(
            &redactor.redact_text(&strip_controls(&detail)),
            MAX_DETAIL_CHARS,
        );
        self.say(&format!(
            "attempt {n}/{budget}: provider '{}' -> {} in {elapsed} ms: {detail}",
            p.name,
            outcome.as_str(),
        ));
        run.log.push(AttemptRecord {
            provider: p.name.clone(),
            outcome,
            http_status,
            detail,
            elapsed_ms: elapsed,
        });
        result.ok()
    }

    /// The receipt and the text of a lookup that has made its attempts: the window of the
    /// content that was found, or why there is none.
    fn finish(&self, run: Run, found: Option<(String, Content)>) -> Lookup {
        let r = &run.redactor;
        let asked = Asked {
            url: r.redact_url(&strip_controls(&run.req.url)),
            max_attempts: run.req.max_attempts,
            providers_available: self.providers.len() as u32,
        };
        let attempts = run.log.len();
        let (mut receipt, text, evidence) = match found {
            Some((provider, content)) => {
                // A window at or past the end is not an error: the content is there, the
                // window of it is empty, and `content_chars` says where it ends.
                let (win, next) = window(&content.text, run.req.start_index, run.req.max_chars);
                let used = Used {
                    provider,
                    content_chars: content.text.chars().count() as u64,
                    content_sha256: content.text_sha256,
                    next_start_index: next.map(|n| n as u64),
                    title: content.title,
                    truncated: content.truncated,
                    cache: content.cache,
                };
                let text = win.to_string();
                let mut receipt = Receipt::succeeded(asked, run.log, used);
                evidence::fill(&mut receipt, content.provenance, content.body_sha256);
                (receipt, text, content.evidence)
            }
            None => {
                let reason = if self.providers.is_empty() {
                    FailureReason::NoProvidersConfigured
                } else if run.ended.is_some() || attempts < self.providers.len() {
                    FailureReason::AttemptBudgetExhausted
                } else {
                    FailureReason::AllProvidersFailed
                };
                let detail = (reason == FailureReason::NoProvidersConfigured)
                    .then(|| clip_chars(&r.redact_text(&self.why_no_provider()), 600));
                let receipt = Receipt::unanswered(asked, run.log, reason, detail);
                let text = if run.ended == Some(Ended::Stopped) && attempts == 0 {
                    "no usable content: the run was stopped before the first attempt".into()
                } else {
                    failure_line(&receipt)
                };
                (receipt, text, None)
            }
        };
        receipt.elapsed_ms = millis(run.start.elapsed());
        Lookup {
            receipt,
            text,
            refused_private: run.refused_private,
            too_short: run.too_short,
            local_endpoint: run.local_endpoint,
            evidence,
        }
    }

    /// Why no provider is ready: every skipped provider
    /// and its reason, or that the config file has none.
    fn why_no_provider(&self) -> String {
        let s = &self.settings;
        if s.providers().is_empty() {
            return match &s.source() {
                crate::settings::config::ConfigSource::File(p) => format!(
                    "the config file {} has no [[providers]]; the built-in `direct` applies only when no config file is found",
                    p.display()
                ),
                crate::settings::config::ConfigSource::BuiltIn => "no providers are configured".into(),
            };
        }
        s.providers()
            .iter()
            .map(|p| match &p.ready {
                Readiness::Ready => format!("{}: not ready", p.name),
                why => format!("{}: {why}", p.name),
            })
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// Decode, reshape, extract, redact and judge one fetched body.
    async fn process(
        &self,
        payload: Payload,
        req: &LookupRequest,
        url: &str,
        redactor: Arc<Redactor>,
    ) -> Result<Content, Failure> {
        let job = Job {
            keep_body: self.evidence && payload.captured.is_some(),
            fetched: payload.fetched,
            unpack: payload.unpack,
            mode: self.settings.extract(),
            redactor,
            must_contain: req.must_contain.clone(),
            min_chars: req.min_chars,
            url: url.to_string(),
            max_pdf_pages: self.settings.max_pdf_pages(),
            cancel: Arc::new(AtomicBool::new(false)),
        };
        // Extraction is CPU work on untrusted input: keep it off the async workers, and turn
        // a panic in a parser into a failed attempt rather than a dead process. When this
        // future is dropped (the attempt's deadline, a cancelled MCP call) the flag tells
        // the blocking work (extraction and the PDF reader alike) to stop instead of running
        // on unobserved.
        let _stop = CancelOnDrop(job.cancel.clone());
        let flag = job.cancel.clone();
        // The slot goes with the job: a job that outlives its attempt (until it sees the
        // flag) still holds it.
        let slot = match &self.cpu_slots {
            Some(slots) => slots.clone().acquire_owned().await.ok(),
            None => None,
        };
        match tokio::task::spawn_blocking(move || {
            let _slot = slot;
            crate::content::cancel::with_cancel(flag, || job.run())
        })
        .await
        {
            Ok(r) => r,
            Err(_) => Err(Failure::new(FailureKind::ParserFailure)),
        }
    }
}

/// Sets the flag when dropped: a blocking job polls it and stops early.
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

struct Job {
    /// Hand the body back in [`Content::body`] (for the evidence of a WARC record).
    keep_body: bool,
    fetched: Fetched,
    unpack: Unpack,
    mode: ExtractMode,
    redactor: Arc<Redactor>,
    must_contain: Option<String>,
    min_chars: usize,
    url: String,
    max_pdf_pages: usize,
    cancel: Arc<AtomicBool>,
}

impl Job {
    fn run(self) -> Result<Content, Failure> {
        let status = self.fetched.http_status;
        let fail = |kind| Failure {
            kind,
            http_status: status,
        };
        // A PDF is a document, not unusable content. A body that a JSON
        // reader declared is judged as JSON, whatever its bytes.
        if !matches!(self.unpack, Unpack::JsonPointer(_))
            && crate::content::decode::is_pdf_body(
                self.fetched.content_type.as_deref(),
                &self.fetched.body,
            )
        {
            return self.run_pdf();
        }
        let decoded = decode_body(
            &self.fetched.body,
            self.fetched.content_type.as_deref(),
            self.fetched.truncated,
        )
        .map_err(|e| match e {
            DecodeError::Unsupported(t) => fail(FailureKind::UnsupportedType(t)),
            DecodeError::Malformed(d) => fail(FailureKind::Undecodable(d)),
        })?;
        let (raw, kind) = match &self.unpack {
            Unpack::Page { .. } | Unpack::Text => (decoded.text, decoded.kind),
            Unpack::JsonPointer(ptr) => {
                let value: serde_json::Value = serde_json::from_str(&decoded.text)
                    .map_err(|e| fail(FailureKind::NotJson(e.to_string())))?;
                match value.pointer(ptr) {
                    None => return Err(fail(FailureKind::PointerMissing(ptr.clone()))),
                    Some(serde_json::Value::String(s)) => {
                        let kind = if looks_like_html(s) {
                            BodyKind::Html
                        } else {
                            BodyKind::OtherText
                        };
                        (s.clone(), kind)
                    }
                    Some(other) => {
                        return Err(fail(FailureKind::PointerNotString {
                            pointer: ptr.clone(),
                            found: crate::model::input::type_name(other),
                        }))
                    }
                }
            }
        };
        // Relative links resolve against where the page really came from. For a reader or
        // a command that is the requested page, not the provider's endpoint.
        let base = match &self.unpack {
            Unpack::Page { final_url } => final_url.as_str(),
            Unpack::JsonPointer(_) | Unpack::Text => self.url.as_str(),
        };
        // HTML is redacted on the parsed page before conversion; the final pass below runs
        // on what conversion produced (and on raw, JSON and other bodies).
        let extracted = extract_redacted(&raw, kind, self.mode, Some(base), &self.redactor);
        if crate::content::cancel::cancelled() {
            return Err(fail(FailureKind::Cancelled));
        }
        let seen = extracted.visible;
        let mut hidden_content = extracted.hidden_content;
        // Controls, tag characters and bidi controls go before the last redaction, so that
        // removing them can never join the halves of a token after it was judged.
        let text = owned_unless_changed(extracted.text, strip_controls);
        let mut text = final_redaction(&self.redactor, text, kind);
        if self.fetched.truncated {
            text = self.redactor.redact_truncated_tail_owned(text);
        }
        let title = extracted
            .title
            .map(|t| clip_chars(&self.redactor.redact_text(&strip_controls(&t)), 300));
        // The detector weighs markers against all the text the page shows. A page whose
        // extracted text is long is never an interstitial, so the whole-page measure is
        // only computed for short results, and for pages whose text was hidden by markup
        // (hidden prose must not make a challenge page look like an article).
        // Extraction measured it on its own parse when the page was small and the text
        // short; otherwise the page is parsed again for it.
        let visible = if kind == BodyKind::Html && self.mode == ExtractMode::Raw {
            // Raw text is markup: its length says nothing of what the page shows, so the
            // page is always measured (its one parse in this mode).
            let (seen, hidden) = crate::content::visible::page_view(&raw).unwrap_or_default();
            hidden_content = hidden;
            std::borrow::Cow::Owned(seen)
        } else if kind == BodyKind::Html
            && (hidden_content
                || !crate::content::tidy::has_visible_chars(
                    &text,
                    crate::content::extract::JUDGE_SHORT_TEXT + 1,
                ))
        {
            std::borrow::Cow::Owned(
                seen.unwrap_or_else(|| crate::content::visible::visible_text(&raw)),
            )
        } else {
            std::borrow::Cow::Borrowed(text.as_str())
        };
        crate::content::judge::judge_page(
            &raw,
            crate::content::judge::Visible {
                text: &visible,
                hidden_content,
            },
            &text,
            self.must_contain.as_deref(),
            self.min_chars,
        )
        .map_err(fail)?;
        let (body_sha256, text_sha256) = digests(&self.fetched.body, &text);
        Ok(Content {
            text,
            title,
            truncated: self.fetched.truncated,
            http_status: status,
            cache: None,
            body_sha256,
            text_sha256,
            provenance: None,
            body: self.keep_body.then_some(self.fetched.body),
            evidence: None,
        })
    }
}

/// The SHA-256 of the body as received and of the text made of it, hashed once when they
/// are the same bytes (a raw page that needed no decoding and no redaction).
fn digests(body: &[u8], text: &str) -> (String, String) {
    let body_sha256 = evidence::body_sha256(body);
    let text_sha256 = if text.as_bytes() == body {
        body_sha256.clone()
    } else {
        sha256_hex(text)
    };
    (body_sha256, text_sha256)
}

/// `f(text)`, reusing `text` itself when `f` gives it back unchanged (borrowed): no copy
/// of a long page for a pass that found nothing to do.
fn owned_unless_changed(
    text: String,
    f: impl for<'t> Fn(&'t str) -> std::borrow::Cow<'t, str>,
) -> String {
    match f(&text) {
        std::borrow::Cow::Borrowed(_) => None,
        std::borrow::Cow::Owned(changed) => Some(changed),
    }
    .unwrap_or(text)
}

/// The last redaction pass over the text a body was turned into. JSON (in every mode) is
/// also judged on its decoded strings, so a token written with JSON escapes
/// (`ghp\u005f…`) is caught; only when that finds something is the JSON re-serialized
/// (and may lose the exact spelling of its numbers).
fn final_redaction(redactor: &Redactor, text: String, kind: BodyKind) -> String {
    let out = owned_unless_changed(text, |t| redactor.redact_text_cow(t));
    if kind != BodyKind::Json {
        return out;
    }
    let Ok(value) = serde_json::from_str::<serde_json::Value>(&out) else {
        return out;
    };
    let mut scrubbed = value.clone();
    redactor.redact_json_value(&mut scrubbed);
    if scrubbed == value {
        out
    } else {
        redactor.redact_json_text(&out)
    }
}

impl Job {
    /// Extract a PDF's text and judge it as any text (the extract mode does not apply: a
    /// PDF's raw bytes mean nothing to a reader).
    fn run_pdf(self) -> Result<Content, Failure> {
        let status = self.fetched.http_status;
        let limits = crate::content::pdf::PdfLimits {
            max_pages: self.max_pdf_pages,
            ..crate::content::pdf::PdfLimits::default()
        };
        let doc = crate::content::pdf::extract_pdf(&self.fetched.body, &limits, &self.cancel)
            .map_err(|f| Failure {
                kind: f.kind(self.fetched.truncated.then_some(self.fetched.body.len())),
                http_status: status,
            })?;
        let text = self.redactor.redact_text(&strip_controls(&doc.text));
        let title = doc
            .title
            .map(|t| clip_chars(&self.redactor.redact_text(&t), 300));
        crate::content::judge::judge(
            &text,
            &text,
            &text,
            self.must_contain.as_deref(),
            self.min_chars,
        )
        .map_err(|kind| Failure {
            kind,
            http_status: status,
        })?;
        let (body_sha256, text_sha256) = digests(&self.fetched.body, &text);
        Ok(Content {
            text,
            title,
            truncated: self.fetched.truncated || doc.truncated,
            http_status: status,
            cache: None,
            body_sha256,
            text_sha256,
            provenance: None,
            body: self.keep_body.then_some(self.fetched.body),
            evidence: None,
        })
    }
}

/// The detail of a usable attempt: says when the content came from the cache.
fn usable_detail(cache: Option<CacheReport>) -> String {
    match cache.map(|c| (c.status, c.age_secs)) {
        Some((CacheStatus::Hit, age)) => format!("usable content (cached, {age} s old)"),
        Some((CacheStatus::Revalidated, _)) => "usable content (revalidated)".into(),
        _ => "usable content".into(),
    }
}

/// A refusal that `allow_private` lifts: a private, loopback or other local address (a
/// name that resolved to one, or a redirect hop to one), never cloud metadata.
fn lifted_by_allow_private(kind: &FailureKind) -> bool {
    use crate::model::failure::{AddrClass, RedirectError};
    let refusal = match kind {
        FailureKind::Blocked(r) | FailureKind::Redirect(RedirectError::Refused(r)) => r,
        _ => return false,
    };
    refusal.class().is_some_and(|c| c != AddrClass::Metadata)
}

/// One line saying what failed, for `content[1]` and `-o text` on stderr.
pub fn failure_line(r: &Receipt) -> String {
    let reason = match r.failure_reason {
        Some(FailureReason::NoProvidersConfigured) => {
            return match r.failure_detail.as_deref() {
                Some(why) => format!("no usable content: no provider is ready: {why}"),
                None => "no usable content: no providers are configured and ready".into(),
            }
        }
        Some(FailureReason::InvalidInput) => {
            return format!(
                "invalid input: {}",
                r.failure_detail.as_deref().unwrap_or("")
            )
        }
        Some(FailureReason::AttemptBudgetExhausted) => "attempt budget exhausted",
        Some(FailureReason::AllProvidersFailed) | None => "all providers failed",
    };
    let attempts: Vec<String> = r
        .attempts_log
        .iter()
        .map(|a| {
            format!(
                "{}: {} ({})",
                a.provider,
                a.outcome.as_str(),
                clip_chars(&a.detail, 80)
            )
        })
        .collect();
    clip_chars(
        &format!(
            "no usable content ({reason} after {} attempt{}): {}",
            r.attempts,
            if r.attempts == 1 { "" } else { "s" },
            attempts.join("; ")
        ),
        600,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_cut_by_the_body_cap_is_redacted() {
        let cases: &[(&str, &str)] = &[
            ("the key is ghp_k3VZab", "the key is [REDACTED]"),
            ("the key is ghp\\_k3VZab\n", "the key is [REDACTED]\n"),
            ("<p>token: sk_live_51Hab", "<p>token: [REDACTED]"),
            ("url?key=AIzaSyAb", "url?key=[REDACTED]"),
            ("`github\\_pat\\_11AB", "`[REDACTED]"),
            ("an ordinary ending", "an ordinary ending"),
            ("a risk-free plan", "a risk-free plan"),
            ("ends with mask_live_x", "ends with mask_live_x"),
            ("", ""),
        ];
        for (input, want) in cases {
            assert_eq!(
                Redactor::new().redact_truncated_tail(input),
                *want,
                "{input:?}"
            );
        }
    }

    #[test]
    fn json_escaped_token_is_redacted_in_json_bodies() {
        let r = Redactor::new();
        let body = "{\n  \"t\": \"ghp\\u005fk3VZabcdefghijklmnopqrstuvwxyz012345\",\n  \"n\": 1\n}";
        let out = final_redaction(&r, body.to_string(), BodyKind::Json);
        assert!(!out.contains("k3VZ"), "{out}");
        let benign = "{\n  \"big\": 12345678901234567890123\n}";
        assert_eq!(
            final_redaction(&r, benign.to_string(), BodyKind::Json),
            benign
        );
    }

    #[test]
    fn nth_char_start_agrees_with_char_indices() {
        for t in [
            "",
            "a",
            "aé日b",
            "日本語のテキスト",
            "ascii only text",
            "é\u{1F600}x\u{1F600}",
        ] {
            for n in 0..t.chars().count() + 3 {
                assert_eq!(
                    nth_char_start(t, n),
                    t.char_indices().nth(n).map(|(i, _)| i),
                    "{t:?} {n}"
                );
            }
        }
    }

    #[test]
    fn window_walks_characters() {
        let t = "aé日b";
        assert_eq!(window(t, 0, 2), ("aé", Some(2)));
        assert_eq!(window(t, 2, 2), ("日b", None));
        assert_eq!(window(t, 1, 10), ("é日b", None));
        assert_eq!(window(t, 4, 1), ("", None));
        assert_eq!(window(t, 3, 1), ("b", None));
        assert_eq!(window(t, 0, 4), ("aé日b", None));
    }

    #[test]
    fn windows_concatenate_back() {
        let text: String = "héllo wörld 日本語 ".repeat(50);
        for size in [1, 3, 7, 64, 1000] {
            let mut out = String::new();
            let mut start = 0;
            loop {
                let (w, next) = window(&text, start, size);
                assert!(w.chars().count() <= size);
                out.push_str(w);
                match next {
                    Some(n) => start = n,
                    None => break,
                }
            }
            assert_eq!(out, text, "size {size}");
        }
    }
}
