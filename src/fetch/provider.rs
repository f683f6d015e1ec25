//! Providers: the ways an attempt can get a page. One enum, one variant per kind
//! (`http`, `template`, `command`), built once per process from the config and shared by
//! every lookup (so a batch reuses connection pools).
//!
//! A provider only fetches: it returns a [`Payload`] (the bytes it got and how to unpack
//! them) or a classified [`Failure`]. It never judges content and never panics on what a
//! server or a child process does. The engine never reads a provider's configuration: what
//! it needs to know about a body travels in the payload.

use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::time::Instant;

use crate::fetch::cache::{self, CacheNote, HttpCache, Offer, Plan, RequestView};
use crate::fetch::evidence::{self, Captured, Provenance, Route};
use crate::fetch::guard::NetworkPolicy;
use crate::fetch::http::{self, ClientOptions, Failure, Fetched, Landed};
use crate::fetch::spec::{Method, ProviderDetail, ProviderKind, ProviderSpec, ResponseKind};
use crate::model::checked_url::CheckedUrl;
use crate::model::failure::{ExitKind, FailureKind};
use crate::model::secret::Secret;
use crate::redact::Redactor;

/// A ready-to-use provider.
#[derive(Debug)]
pub struct Provider {
    pub name: String,
    kind: ProviderKind,
    /// For a `response = "json"` provider, the content pointer ("" for the whole document).
    json_pointer: Option<String>,
    how: How,
}

/// What one provider fetched, and how the engine is to unpack it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Payload {
    pub fetched: Fetched,
    pub unpack: Unpack,
    /// What the HTTP cache did (None when it played no part: no cache, a command, a POST).
    pub cache: Option<CacheNote>,
    /// When the body was fetched and, for an `http` provider, the way it came (redacted).
    pub provenance: Provenance,
    /// What went over the network for this body; None when nothing did in this attempt (a
    /// copy from the cache, a 304 that confirmed one) or it was no HTTP exchange (a command).
    pub captured: Option<Captured>,
}

/// How a fetched body becomes the page's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unpack {
    /// The page itself, fetched at its URL: relative links resolve against `final_url`
    /// (where it came from after redirects). A PDF body is a document.
    Page { final_url: String },
    /// A JSON document whose string at this pointer (RFC 6901, "" for the whole
    /// document) is the content, whatever the body's type. Links resolve against the
    /// requested URL.
    JsonPointer(String),
    /// Text standing for the requested page (a reader endpoint's or a command's output):
    /// links resolve against the requested URL. A PDF body is a document.
    Text,
}

/// Which client a provider needs: providers that agree share one (and its pool).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct ClientKey {
    proxy: Option<String>,
    user_agent: Option<String>,
    apply_domain_lists: bool,
}

/// HTTP clients, built on first use and shared by the providers that need the same one.
/// Building one loads the system's TLS roots (milliseconds), so a lookup refused before
/// any attempt, or a fallback provider never reached, costs none of it.
#[derive(Debug)]
pub struct Clients {
    policy: Arc<NetworkPolicy>,
    max_redirects: usize,
    user_agent: String,
    connect_timeout: Duration,
    /// The network rules in one string, part of every cache key
    /// ([`cache::policy_fingerprint`]).
    policy_fingerprint: String,
    built: std::sync::Mutex<std::collections::HashMap<ClientKey, reqwest::Client>>,
}

impl Clients {
    /// `user_agent` is the default for providers that set none; `connect_timeout` bounds
    /// each connection (the attempt timeout).
    pub fn new(
        policy: NetworkPolicy,
        max_redirects: usize,
        user_agent: String,
        connect_timeout: Duration,
    ) -> Clients {
        let policy_fingerprint = cache::policy_fingerprint(&policy, max_redirects);
        Clients {
            policy: Arc::new(policy),
            policy_fingerprint,
            max_redirects,
            user_agent,
            connect_timeout,
            built: std::sync::Mutex::new(std::collections::HashMap::new()),
        }
    }

    fn get(&self, key: &ClientKey) -> Result<reqwest::Client, FailureKind> {
        let mut built = match self.built.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        if let Some(c) = built.get(key) {
            return Ok(c.clone());
        }
        let client = http::build_client(ClientOptions {
            policy: self.policy.clone(),
            apply_domain_lists: key.apply_domain_lists,
            max_redirects: self.max_redirects,
            user_agent: key.user_agent.as_deref().unwrap_or(&self.user_agent),
            proxy: key.proxy.as_deref(),
            connect_timeout: self.connect_timeout,
        })?;
        built.insert(key.clone(), client.clone());
        Ok(client)
    }
}

#[derive(Debug)]
enum How {
    Http {
        clients: Arc<Clients>,
        key: ClientKey,
        headers: Vec<(String, Secret)>,
    },
    Template {
        clients: Arc<Clients>,
        key: ClientKey,
        url: Secret,
        method: Method,
        headers: Vec<(String, Secret)>,
        body: Option<Secret<serde_json::Value>>,
    },
    Command {
        argv: Vec<Secret>,
        policy: Arc<NetworkPolicy>,
    },
}

/// Percent-encode `s` as one URL component: everything but RFC 3986 unreserved characters.
pub fn encode_component(s: &str) -> String {
    let mut out = String::with_capacity(s.len() * 3);
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Replace `{url_encoded}` and `{url}` in a template string.
pub fn fill(template: &str, url: &str) -> String {
    template
        .replace("{url_encoded}", &encode_component(url))
        .replace("{url}", url)
}

fn fill_json(v: &serde_json::Value, url: &str) -> serde_json::Value {
    use serde_json::Value;
    match v {
        Value::String(s) => Value::String(fill(s, url)),
        Value::Array(a) => Value::Array(a.iter().map(|x| fill_json(x, url)).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| (k.clone(), fill_json(x, url)))
                .collect(),
        ),
        other => other.clone(),
    }
}

impl Provider {
    /// `-vv`: what an attempt of this provider is about to send, for `url`, within
    /// `allowed`. Not redacted: the engine redacts it with the lookup's redactor (which
    /// knows the requested URL's own secrets), and the printer again.
    pub fn request_line(&self, url: &str, allowed: Duration) -> String {
        let what = match &self.how {
            How::Http { .. } => format!("GET {url}"),
            How::Template {
                url: template,
                method,
                ..
            } => {
                let verb = match method {
                    Method::Get => "GET",
                    Method::Post => "POST",
                };
                format!("{verb} {}", fill(template.expose(), url))
            }
            How::Command { argv, .. } => {
                let args: Vec<String> = argv.iter().map(|a| fill(a.expose(), url)).collect();
                format!("run {}", args.join(" "))
            }
        };
        format!(
            "request for '{}': {what} (up to {:.1}s)",
            self.name,
            allowed.as_secs_f64()
        )
    }

    /// Build a provider from its spec; its HTTP client comes from `clients` on first use.
    pub fn build(spec: &ProviderSpec, clients: &Arc<Clients>) -> Provider {
        let key = |proxy: &Option<String>, ua: &Option<String>, apply: bool| ClientKey {
            proxy: proxy.clone(),
            user_agent: ua.clone(),
            apply_domain_lists: apply,
        };
        let (how, response, content_pointer) = match &spec.detail {
            ProviderDetail::Http {
                headers,
                proxy,
                user_agent,
            } => (
                How::Http {
                    clients: clients.clone(),
                    key: key(proxy, user_agent, true),
                    headers: headers.clone(),
                },
                ResponseKind::Text,
                None,
            ),
            ProviderDetail::Template {
                url,
                method,
                headers,
                body,
                response,
                content_pointer,
                proxy,
                user_agent,
            } => (
                How::Template {
                    clients: clients.clone(),
                    key: key(proxy, user_agent, false),
                    url: url.clone(),
                    method: *method,
                    headers: headers.clone(),
                    body: body.clone(),
                },
                *response,
                content_pointer.clone(),
            ),
            ProviderDetail::Command {
                argv,
                response,
                content_pointer,
            } => (
                How::Command {
                    argv: argv.clone(),
                    policy: clients.policy.clone(),
                },
                *response,
                content_pointer.clone(),
            ),
        };
        let json_pointer = match response {
            ResponseKind::Json => Some(content_pointer.unwrap_or_default()),
            ResponseKind::Text => None,
        };
        Provider {
            name: spec.name.clone(),
            kind: spec.kind,
            json_pointer,
            how,
        }
    }

    /// The provider's kind, for diagnostics.
    pub fn kind(&self) -> ProviderKind {
        self.kind
    }

    /// How a body of a reader or a command is unpacked.
    fn unpack_text(&self) -> Unpack {
        match &self.json_pointer {
            Some(ptr) => Unpack::JsonPointer(ptr.clone()),
            None => Unpack::Text,
        }
    }

    /// Fetch `url` before `deadline`, reading at most `max_body` bytes. `redactor` scrubs
    /// what a command wrote to stderr before it is cut to fit a detail, and the final URL
    /// the cache keeps. `cache` serves and revalidates the GETs of http and template
    /// providers.
    pub async fn fetch(
        &self,
        target: &CheckedUrl,
        deadline: Instant,
        budget: Duration,
        max_body: u64,
        redactor: &Redactor,
        cache: Option<&Arc<HttpCache>>,
    ) -> Result<Payload, Failure> {
        // `{url}` of a template is the URL as given.
        let url = target.as_given();
        match &self.how {
            How::Http {
                clients,
                key,
                headers,
            } => {
                let client = clients.get(key).map_err(Failure::new)?;
                let mut req = client.get(target.parsed().clone());
                for (k, v) in headers {
                    req = req.header(k.as_str(), v.expose().as_str());
                }
                let sent: Vec<(String, String)> = headers
                    .iter()
                    .map(|(k, v)| (k.clone(), v.expose().clone()))
                    .collect();
                let view = RequestView {
                    provider: &self.name,
                    url: target.parsed().as_str(),
                    headers: &sent,
                    user_agent: key.user_agent.as_deref().unwrap_or(&clients.user_agent),
                    proxy: key.proxy.as_deref(),
                    policy: &clients.policy_fingerprint,
                };
                let got =
                    cached_get(cache, req, &view, deadline, budget, max_body, redactor).await?;
                Ok(Payload {
                    fetched: got.fetched,
                    unpack: Unpack::Page {
                        final_url: got.final_url,
                    },
                    cache: got.note,
                    provenance: Provenance {
                        fetched_at: got.fetched_at,
                        route: got.route,
                    },
                    captured: got.captured,
                })
            }
            How::Template {
                clients,
                key,
                url: template,
                method,
                headers,
                body,
            } => {
                let endpoint = fill(template.expose(), url);
                let parsed = url::Url::parse(&endpoint)
                    .map_err(|e| Failure::new(FailureKind::TemplateUrl(e)))?;
                if let Err(r) = clients.policy.check_url(&parsed, false) {
                    return Err(Failure::new(FailureKind::Blocked(r)));
                }
                let client = clients.get(key).map_err(Failure::new)?;
                let endpoint = parsed.as_str().to_string();
                let mut req = match method {
                    Method::Get => client.get(parsed),
                    Method::Post => client.post(parsed),
                };
                let sent: Vec<(String, String)> = headers
                    .iter()
                    .map(|(k, v)| (k.clone(), fill(v.expose(), url)))
                    .collect();
                for (k, v) in &sent {
                    req = req.header(k.as_str(), v.as_str());
                }
                if let Some(b) = body {
                    req = req.json(&fill_json(b.expose(), url));
                }
                // The endpoint's URL is not the page's: it is not a base for links.
                let cache = cache.filter(|_| cache::caches(*method));
                let view = RequestView {
                    provider: &self.name,
                    url: &endpoint,
                    headers: &sent,
                    user_agent: key.user_agent.as_deref().unwrap_or(&clients.user_agent),
                    proxy: key.proxy.as_deref(),
                    policy: &clients.policy_fingerprint,
                };
                let got =
                    cached_get(cache, req, &view, deadline, budget, max_body, redactor).await?;
                Ok(Payload {
                    fetched: got.fetched,
                    unpack: self.unpack_text(),
                    cache: got.note,
                    // The endpoint and its redirects are the operator's configuration, which
                    // the model-facing receipt does not show (`vetch providers` shows only its
                    // scheme and host); the WARC records name it.
                    provenance: Provenance {
                        fetched_at: got.fetched_at,
                        route: None,
                    },
                    captured: got.captured,
                })
            }
            How::Command { argv, policy } => {
                let url = checked_command_url(policy, target.parsed(), deadline).await?;
                let fetched = run_command(argv, &url, deadline, budget, max_body, redactor).await?;
                Ok(Payload {
                    fetched,
                    unpack: self.unpack_text(),
                    cache: None,
                    // What the program followed on its way is its own.
                    provenance: Provenance {
                        fetched_at: std::time::SystemTime::now(),
                        route: None,
                    },
                    captured: None,
                })
            }
        }
    }
}

/// What a GET (through the cache or not) got.
struct Got {
    fetched: Fetched,
    /// Where the body came from: the URL after redirects as received, or the stored
    /// (redacted) one for a copy from the cache.
    final_url: String,
    /// The way it came, redacted; None when it could not be observed.
    route: Option<Route>,
    fetched_at: std::time::SystemTime,
    note: Option<CacheNote>,
    captured: Option<Captured>,
}

impl Got {
    /// A response received now.
    fn landed(landed: Landed, redactor: &Redactor, note: Option<CacheNote>) -> Got {
        let route = evidence::route(&landed.wire, &landed.final_url, redactor);
        Got {
            fetched_at: landed.wire.received_at,
            captured: Some(Captured {
                status: landed.fetched.http_status.unwrap_or(0),
                headers: landed.headers,
                final_url: landed.final_url.clone(),
                wire: landed.wire,
            }),
            fetched: landed.fetched,
            final_url: landed.final_url,
            route,
            note,
        }
    }

    /// A stored copy: when it was fetched and the way it came, as stored.
    fn stored(
        stored: cache::Stored,
        asked: &str,
        redactor: &Redactor,
        note: Option<CacheNote>,
    ) -> Got {
        let final_url = stored.final_url(asked);
        Got {
            route: stored.route(asked).map(|(url, redirects)| Route {
                final_url: redactor.redact_url(&url),
                redirects,
            }),
            fetched_at: stored.fetched_at(),
            fetched: Fetched {
                http_status: Some(stored.status()),
                content_type: stored.content_type().map(str::to_string),
                truncated: stored.truncated(),
                body: stored.body,
            },
            final_url,
            note,
            captured: None,
        }
    }
}

/// A GET through the cache: served from it, revalidated, or fetched and offered for
/// storing (stored by the engine once the content is judged usable).
async fn cached_get(
    cache: Option<&Arc<HttpCache>>,
    req: reqwest::RequestBuilder,
    view: &RequestView<'_>,
    deadline: Instant,
    budget: Duration,
    max_body: u64,
    redactor: &Redactor,
) -> Result<Got, Failure> {
    use crate::model::receipt::{CacheReport, CacheStatus};
    let ua = view.user_agent;
    let Some(cache) = cache else {
        let landed = http::send_landed(req, ua, deadline, budget, max_body, false).await?;
        return Ok(Got::landed(landed, redactor, None));
    };
    // `--no-cache`, or a cache directory refused as not this user's alone.
    let Some((key, preq)) = cache.request(view) else {
        let landed = http::send_landed(req, ua, deadline, budget, max_body, false).await?;
        return Ok(Got::landed(landed, redactor, Some(CacheNote::bypass())));
    };
    let plan = {
        let (c, k, r) = (cache.clone(), key.clone(), preq.clone());
        tokio::task::spawn_blocking(move || c.plan(&k, &r, max_body))
            .await
            .unwrap_or(Plan::Miss)
    };
    let note = |status, age_secs, pending| {
        Some(CacheNote {
            report: CacheReport { status, age_secs },
            pending,
        })
    };
    // The request without conditions, kept for a 304 that does not match the stored copy.
    let plain = req.try_clone();
    let (req, stored) = match plan {
        // A stored body longer than this run's cap comes cut at the cap, as a fresh one would.
        Plan::Hit { stored, age } => {
            let note = note(CacheStatus::Hit, age.as_secs(), None);
            return Ok(Got::stored(stored, view.url, redactor, note));
        }
        Plan::Revalidate {
            stored,
            conditional,
        } => {
            let mut req = req;
            for (n, v) in conditional {
                req = req.header(n, v);
            }
            (req, Some(stored))
        }
        Plan::Miss => (req, None),
    };
    let mut landed =
        http::send_landed(req, ua, deadline, budget, max_body, stored.is_some()).await?;
    if let (Some(stored), Some(304)) = (stored, landed.fetched.http_status) {
        if let Some((stored, pending)) = cache.not_modified(&key, &preq, stored, &landed.headers) {
            let note = note(CacheStatus::Revalidated, 0, pending);
            return Ok(Got::stored(stored, view.url, redactor, note));
        }
        // Not the stored copy's 304: ask again without conditions.
        let Some(plain) = plain else {
            return Err(Failure {
                kind: FailureKind::Http {
                    status: 304,
                    reason: "Not Modified".into(),
                    retry_after: None,
                },
                http_status: Some(304),
            });
        };
        landed = http::send_landed(plain, ua, deadline, budget, max_body, false).await?;
    }
    let got = Got::landed(landed, redactor, None);
    let f = &got.fetched;
    let final_url = (got.final_url != view.url).then(|| redactor.redact_url(&got.final_url));
    let headers = got.captured.as_ref().map(|c| &c.headers);
    let empty = reqwest::header::HeaderMap::new();
    let pending = cache.offer(
        &key,
        &preq,
        Offer {
            status: f.http_status.unwrap_or(0),
            headers: headers.unwrap_or(&empty),
            content_type: f.content_type.as_deref(),
            final_url,
            redirects: got
                .route
                .as_ref()
                .map(|r| r.redirects.clone())
                .unwrap_or_default(),
            fetched_at: got.fetched_at,
            body: &f.body,
            truncated: f.truncated,
        },
    );
    Ok(Got {
        note: note(CacheStatus::Miss, 0, pending),
        ..got
    })
}

/// The URL a command provider is given, and the guard it passes first: `{url}` is the URL as vetch parsed and checked it (its serialized form),
/// so the program connects to the host the guard saw whatever its own parser makes of odd
/// spellings (`http://a.example\\@127.0.0.2/`); and the host is resolved before the
/// program starts. Unlike the http resolver, which keeps only the allowed addresses of a
/// name, a command cannot be told which address to use: one refused address refuses all.
async fn checked_command_url(
    policy: &NetworkPolicy,
    parsed: &url::Url,
    deadline: Instant,
) -> Result<String, Failure> {
    if let Err(r) = policy.check_url(parsed, true) {
        return Err(Failure::new(FailureKind::Blocked(r)));
    }
    if let Some(url::Host::Domain(host)) = parsed.host() {
        let port = parsed.port_or_known_default().unwrap_or(80);
        let addrs =
            match tokio::time::timeout_at(deadline, tokio::net::lookup_host((host, port))).await {
                Err(_) => return Err(Failure::new(FailureKind::ResolveTimeout)),
                // A name that does not resolve here is left to the program, which may
                // reach it another way (its own proxy or resolver): no address to refuse.
                Ok(Err(_)) => return Ok(parsed.as_str().to_string()),
                Ok(Ok(a)) => a,
            };
        for addr in addrs {
            if let Err(r) = policy.check_resolved(host, addr.ip()) {
                return Err(Failure::new(FailureKind::Blocked(r)));
            }
        }
    }
    Ok(parsed.as_str().to_string())
}

/// Keep the last `max` characters of a child's stderr (already redacted), whitespace
/// collapsed.
fn tail(text: &str, max: usize) -> String {
    let text = text.trim();
    let chars: Vec<char> = text.chars().collect();
    let start = chars.len().saturating_sub(max);
    let t: String = chars[start..].iter().collect();
    t.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// How much of a command's stderr is kept for the detail: its last 64 KiB (the rest is
/// read and dropped).
const STDERR_KEEP: usize = 64 * 1024;

/// Read all of `err`, keeping only its last [`STDERR_KEEP`] bytes (at most twice that in
/// memory). Returns them and whether anything before them was dropped.
async fn read_stderr_tail(err: &mut (impl tokio::io::AsyncRead + Unpin)) -> (Vec<u8>, bool) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let mut dropped = false;
    loop {
        match err.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
        if buf.len() > 2 * STDERR_KEEP {
            buf.drain(..buf.len() - STDERR_KEEP);
            dropped = true;
        }
    }
    if buf.len() > STDERR_KEEP {
        buf.drain(..buf.len() - STDERR_KEEP);
        dropped = true;
    }
    (buf, dropped)
}

/// The text of a kept stderr tail, from a boundary no token crosses: when the start of
/// the stream was dropped, the partial word the cut fell in goes too, so that redaction
/// sees every token whole or not at all. (A PEM block cut there has its BEGIN line out of
/// the window, but the detail shows only the last 120 characters, a whole window later.)
fn stderr_text(kept: &[u8], dropped: bool) -> String {
    let from = if dropped {
        kept.iter()
            .position(|c| c.is_ascii_whitespace())
            .map_or(kept.len(), |i| i + 1)
    } else {
        0
    };
    String::from_utf8_lossy(&kept[from..]).into_owned()
}

/// Run a command provider: no shell, null stdin, stdout captured up to the cap, stderr tail
/// kept for the detail, killed at the deadline.
async fn run_command(
    argv: &[Secret],
    url: &str,
    deadline: Instant,
    budget: Duration,
    max_body: u64,
    redactor: &Redactor,
) -> Result<Fetched, Failure> {
    let args: Vec<String> = argv.iter().map(|a| fill(a.expose(), url)).collect();
    let Some((program, rest)) = args.split_first() else {
        return Err(Failure::new(FailureKind::EmptyArgv));
    };
    let mut child = tokio::process::Command::new(program)
        .args(rest)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| {
            Failure::new(FailureKind::CommandStart {
                program: program.clone(),
                error: e.to_string(),
            })
        })?;
    let mut stdout = child.stdout.take();
    let mut stderr = child.stderr.take();
    let cap = usize::try_from(max_body).unwrap_or(usize::MAX);

    let work = async {
        let read_out = async {
            let mut buf = Vec::new();
            let mut truncated = false;
            if let Some(out) = stdout.as_mut() {
                let mut limited = out.take(max_body.saturating_add(1));
                let _ = limited.read_to_end(&mut buf).await;
                if buf.len() > cap {
                    buf.truncate(cap);
                    truncated = true;
                }
            }
            (buf, truncated)
        };
        // Both pipes are drained at once, each bounded: stderr's last 64 KiB are kept
        // (where a program says why it failed) and the rest is read and dropped, so a
        // chatty child never blocks on a full pipe.
        let read_err = async {
            match stderr.as_mut() {
                Some(err) => read_stderr_tail(err).await,
                None => (Vec::new(), false),
            }
        };
        let ((out, truncated), err) = tokio::join!(read_out, read_err);
        if truncated {
            // The child may still be writing; it has given us all we will read.
            let _ = child.start_kill();
        }
        let status = child.wait().await;
        (out, truncated, err, status)
    };
    match tokio::time::timeout_at(deadline, work).await {
        Err(_) => {
            let _ = child.start_kill();
            Err(Failure::new(FailureKind::CommandTimeout { after: budget }))
        }
        Ok((_, _, _, Err(e))) => Err(Failure::new(FailureKind::CommandWait(e.to_string()))),
        Ok((out, truncated, err, Ok(status))) => {
            if !status.success() && !truncated {
                let exit = status.code().map_or(ExitKind::Signal, ExitKind::Code);
                // Redact all that was kept, from a safe boundary, before the detail's cut:
                // cutting first would split a token or a PEM block past what the
                // redactor recognises.
                let (kept, dropped) = err;
                let stderr_tail = tail(&redactor.redact_text(&stderr_text(&kept, dropped)), 120);
                return Err(Failure::new(FailureKind::CommandExit { exit, stderr_tail }));
            }
            Ok(Fetched {
                http_status: None,
                content_type: None,
                body: out,
                truncated,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stderr text starts at a word boundary once its head was dropped, so
    /// no secret reaches the redactor cut.
    #[test]
    fn stderr_tail_starts_at_a_safe_boundary() {
        assert_eq!(stderr_text(b"abc def\nghi", false), "abc def\nghi");
        assert_eq!(stderr_text(b"ken_123\nerror: x", true), "error: x");
        assert_eq!(stderr_text(b"yyyy ghp_x then\n", true), "ghp_x then\n");
        assert_eq!(stderr_text(b"ken_123 and more", true), "and more");
        assert_eq!(stderr_text(b"ken_123", true), "");
    }

    /// Issue 24 (item 4): stderr was cut at its first 64 KiB before redaction, so a token
    /// straddling byte 65,536 showed 35 of its 36 characters in the detail. Now the last
    /// 64 KiB are kept, from a safe boundary, and redacted whole.
    #[tokio::test]
    async fn stderr_keeps_its_end_and_never_a_cut_token() {
        let token = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
        for after in ["", " then the program said: fatal error\n"] {
            let mut err = vec![b'y'; 65_536 - 20];
            err.extend_from_slice(format!(" {token}{after}").as_bytes());
            let (kept, dropped) = read_stderr_tail(&mut err.as_slice()).await;
            assert!(kept.len() <= STDERR_KEEP);
            let text = stderr_text(&kept, dropped);
            let detail = tail(&Redactor::new().redact_text(&text), 120);
            assert!(!detail.contains(&token[4..24]), "{detail}");
            assert!(detail.contains("[REDACTED]"), "{detail}");
            assert!(detail.ends_with(after.trim_end()), "{detail}");
        }
        // A megabyte is read through, and only its end is kept.
        let mut err = vec![b'x'; 1 << 20];
        err.extend_from_slice(b"\nlast line");
        let (kept, dropped) = read_stderr_tail(&mut err.as_slice()).await;
        assert!(dropped && kept.len() == STDERR_KEEP && kept.ends_with(b"last line"));
    }

    #[test]
    fn encode_component_is_one_component() {
        assert_eq!(
            encode_component("https://a.example/x?q=1&r=é"),
            "https%3A%2F%2Fa.example%2Fx%3Fq%3D1%26r%3D%C3%A9"
        );
    }

    #[test]
    fn fill_both_placeholders() {
        assert_eq!(
            fill("https://r.example/{url}?u={url_encoded}", "http://a/b c"),
            "https://r.example/http://a/b c?u=http%3A%2F%2Fa%2Fb%20c"
        );
    }

    #[test]
    fn fill_json_only_touches_strings() {
        let v = serde_json::json!({"url": "{url}", "n": 1, "list": ["{url}"]});
        let out = fill_json(&v, "x\"y\\z");
        assert_eq!(out["url"], "x\"y\\z");
        assert_eq!(out["list"][0], "x\"y\\z");
        assert_eq!(out["n"], 1);
    }

    fn command(response: ResponseKind, content_pointer: Option<&str>) -> Provider {
        let spec = ProviderSpec {
            name: "c".into(),
            kind: ProviderKind::Command,
            ready: crate::fetch::spec::Readiness::Ready,
            detail: ProviderDetail::Command {
                argv: ["printf", "%s", "{url}"]
                    .iter()
                    .map(|a| Secret::new(a.to_string()))
                    .collect(),
                response,
                content_pointer: content_pointer.map(str::to_string),
            },
        };
        let clients = Arc::new(Clients::new(
            NetworkPolicy::default(),
            5,
            "test".into(),
            Duration::from_secs(2),
        ));
        Provider::build(&spec, &clients)
    }

    /// Each kind says what it sends in its own words: a GET of the requested URL, the
    /// template's method and filled URL, the command's filled argv.
    #[test]
    fn each_kind_writes_its_own_request_line() {
        let clients = Arc::new(Clients::new(
            NetworkPolicy::default(),
            5,
            "test".into(),
            Duration::from_secs(2),
        ));
        let spec = |name: &str, kind, detail| ProviderSpec {
            name: name.into(),
            kind,
            ready: crate::fetch::spec::Readiness::Ready,
            detail,
        };
        let http = spec(
            "direct",
            ProviderKind::Http,
            ProviderDetail::Http {
                headers: vec![],
                proxy: None,
                user_agent: None,
            },
        );
        let post = spec(
            "reader",
            ProviderKind::Template,
            ProviderDetail::Template {
                url: Secret::new("https://r.example/?u={url_encoded}".into()),
                method: Method::Post,
                headers: vec![],
                body: None,
                response: ResponseKind::Text,
                content_pointer: None,
                proxy: None,
                user_agent: None,
            },
        );
        let allowed = Duration::from_millis(2500);
        let url = "https://example.com/a b";
        let line = |s: &ProviderSpec| Provider::build(s, &clients).request_line(url, allowed);
        assert_eq!(
            line(&http),
            "request for 'direct': GET https://example.com/a b (up to 2.5s)"
        );
        assert_eq!(
            line(&post),
            "request for 'reader': POST https://r.example/?u=https%3A%2F%2Fexample.com%2Fa%20b (up to 2.5s)"
        );
        assert_eq!(
            command(ResponseKind::Text, None).request_line(url, allowed),
            "request for 'c': run printf %s https://example.com/a b (up to 2.5s)"
        );
    }

    /// The payload, not the provider's fields, tells the engine how to unpack a body.
    #[tokio::test]
    async fn payload_says_how_to_unpack() {
        // An IP literal: the guard checks it without a DNS lookup, and printf never connects.
        let url = "http://1.1.1.1/a";
        let target = CheckedUrl::parse(url).map_err(|e| e.to_string());
        let cases = [
            (ResponseKind::Text, None, Unpack::Text),
            (
                ResponseKind::Json,
                Some("/data/content"),
                Unpack::JsonPointer("/data/content".into()),
            ),
            (ResponseKind::Json, None, Unpack::JsonPointer(String::new())),
        ];
        for (response, ptr, want) in cases {
            let deadline = Instant::now() + Duration::from_secs(10);
            let Ok(target) = &target else {
                panic!("{target:?}")
            };
            let got = command(response, ptr)
                .fetch(
                    target,
                    deadline,
                    Duration::from_secs(10),
                    1024,
                    &Redactor::new(),
                    None,
                )
                .await;
            match got {
                Ok(p) => {
                    assert_eq!(p.unpack, want);
                    assert_eq!(p.fetched.body, url.as_bytes());
                    assert_eq!(p.fetched.http_status, None);
                }
                Err(f) => panic!("{f:?}"),
            }
        }
    }

    #[tokio::test]
    async fn a_program_that_cannot_start_is_command_start() {
        let spec = ProviderSpec {
            name: "c".into(),
            kind: ProviderKind::Command,
            ready: crate::fetch::spec::Readiness::Ready,
            detail: ProviderDetail::Command {
                argv: vec![Secret::new("/nonexistent/vetch-test-program".to_string())],
                response: ResponseKind::Text,
                content_pointer: None,
            },
        };
        let clients = Arc::new(Clients::new(
            NetworkPolicy::default(),
            5,
            "test".into(),
            Duration::from_secs(2),
        ));
        let deadline = Instant::now() + Duration::from_secs(10);
        let Ok(target) = CheckedUrl::parse("http://1.1.1.1/") else {
            panic!("an IP literal parses")
        };
        let got = Provider::build(&spec, &clients)
            .fetch(
                &target,
                deadline,
                Duration::from_secs(10),
                1024,
                &Redactor::new(),
                None,
            )
            .await;
        match got {
            Err(Failure {
                kind: FailureKind::CommandStart { program, .. },
                http_status: None,
            }) => assert_eq!(program, "/nonexistent/vetch-test-program"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn tail_keeps_the_end() {
        assert_eq!(tail("line one\nline two\n", 8), "line two");
    }
}
