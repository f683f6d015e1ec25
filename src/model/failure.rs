//! Why an attempt failed, as data: [`FailureKind`], one variant per way an attempt can fail
//! today, from the guard's [`Refusal`] to a judge's verdict on the text.
//!
//! Classify once, render last: fetch and content return a `FailureKind`; the attempt loop
//! turns it into an attempt record, taking the outcome from [`FailureKind::outcome`] and the
//! detail from `Display`, once, at the record. `Display` gives the detail wording of
//! docs/reference.md ("Outcomes") byte for byte; a table test pins every variant.
//!
//! The small error types a failure carries ([`Refusal`] and its [`AddrClass`] from the
//! guard, [`RedirectError`] from the redirect policy, [`PageKind`] from the interstitial
//! detector) live here, not in their rooms, so that this room imports no other and imports
//! run one way: frontends → lookup → fetch / content → model. Their rooms re-export them
//! and keep the logic that produces them.
//!
//! Nothing here does I/O or redacts: a detail is redacted and clipped when it is recorded.

use std::fmt;
use std::net::IpAddr;
use std::time::Duration;

use crate::model::receipt::{clip_chars, Outcome};
pub use crate::model::robots::RobotsRefusal;

/// Why an address is not a public unicast address. Every class is refused by default;
/// `allow_private` lifts all of them except [`AddrClass::Metadata`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AddrClass {
    /// 127.0.0.0/8, ::1.
    Loopback,
    /// RFC 1918: 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16.
    Private,
    /// 169.254.0.0/16, fe80::/10 (metadata addresses inside are [`AddrClass::Metadata`]).
    LinkLocal,
    /// Cloud instance-metadata endpoints (169.254.169.254, fd00:ec2::254, ...).
    Metadata,
    /// Shared address space for carrier-grade NAT, 100.64.0.0/10.
    SharedCgnat,
    /// fc00::/7.
    UniqueLocal,
    /// The deprecated IPv6 site-local fec0::/10.
    SiteLocal,
    /// 224.0.0.0/4, ff00::/8.
    Multicast,
    /// 255.255.255.255.
    Broadcast,
    /// 0.0.0.0, ::.
    Unspecified,
    /// 192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24, 2001:db8::/32, 3fff::/20.
    Documentation,
    /// 198.18.0.0/15, 2001:2::/48.
    Benchmarking,
    /// Everything else that is not public unicast: 0.0.0.0/8, 192.0.0.0/24, 192.88.99.0/24,
    /// 240.0.0.0/4, 2001::/23, and IPv6 outside 2000::/3 (100::/64, 64:ff9b:1::/48, ...).
    Reserved,
}

impl AddrClass {
    /// The class as it appears in a refusal: "loopback", "cloud metadata", "cgnat", ...
    pub fn as_str(self) -> &'static str {
        match self {
            AddrClass::Loopback => "loopback",
            AddrClass::Private => "private",
            AddrClass::LinkLocal => "link-local",
            AddrClass::Metadata => "cloud metadata",
            AddrClass::SharedCgnat => "cgnat",
            AddrClass::UniqueLocal => "unique-local",
            AddrClass::SiteLocal => "site-local",
            AddrClass::Multicast => "multicast",
            AddrClass::Broadcast => "broadcast",
            AddrClass::Unspecified => "unspecified",
            AddrClass::Documentation => "documentation",
            AddrClass::Benchmarking => "benchmarking",
            AddrClass::Reserved => "reserved",
        }
    }
}

impl fmt::Display for AddrClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a URL, host or address is refused. Display gives one short line naming the class;
/// [`FailureKind::Blocked`] and [`RedirectError::Refused`] prefix it with `blocked: `.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// Not http or https. `scheme ftp is not http or https`
    #[error("scheme {scheme} is not http or https")]
    Scheme { scheme: String },
    /// An http(s) URL without a host (the `url` crate never produces one; kept for safety).
    /// `URL has no host`
    #[error("URL has no host")]
    MissingHost,
    /// An IP-literal host in a refused class. `loopback address 127.0.0.1`
    #[error("{class} address {ip}")]
    Address { ip: IpAddr, class: AddrClass },
    /// A host name that resolved to a refused address.
    /// `host rebind.example resolves to loopback address 127.0.0.1`
    #[error("host {host} resolves to {class} address {ip}")]
    Resolved {
        host: String,
        ip: IpAddr,
        class: AddrClass,
    },
    /// A cloud metadata host name. `cloud metadata host metadata.google.internal`
    #[error("cloud metadata host {host}")]
    MetadataName { host: String },
    /// `localhost` and kin. `local host name localhost`
    #[error("local host name {host}")]
    LocalName { host: String },
    /// A wildcard-DNS name that spells a refused address.
    /// `host 127.0.0.1.nip.io names loopback address 127.0.0.1`
    #[error("host {host} names {class} address {ip}")]
    Spelled {
        host: String,
        ip: IpAddr,
        class: AddrClass,
    },
    /// `host evil.example is in blocked_domains`
    #[error("host {host} is in blocked_domains")]
    Blocked { host: String },
    /// `host x.example is not in allowed_domains`
    #[error("host {host} is not in allowed_domains")]
    NotAllowed { host: String },
}

impl Refusal {
    /// The address class behind the refusal, when it is about an address.
    pub fn class(&self) -> Option<AddrClass> {
        match self {
            Refusal::Address { class, .. }
            | Refusal::Resolved { class, .. }
            | Refusal::Spelled { class, .. } => Some(*class),
            Refusal::MetadataName { .. } => Some(AddrClass::Metadata),
            Refusal::LocalName { .. } => Some(AddrClass::Loopback),
            _ => None,
        }
    }

    /// The host the refusal is about, as `allow_private_hosts` would name it.
    pub fn host(&self) -> Option<String> {
        match self {
            Refusal::Address { ip, .. } => Some(ip.to_string()),
            Refusal::Resolved { host, .. }
            | Refusal::Spelled { host, .. }
            | Refusal::MetadataName { host }
            | Refusal::LocalName { host }
            | Refusal::Blocked { host }
            | Refusal::NotAllowed { host } => Some(host.clone()),
            Refusal::Scheme { .. } | Refusal::MissingHost => None,
        }
    }
}

/// Why a redirect was not followed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RedirectError {
    #[error("too many redirects (more than {0})")]
    TooMany(usize),
    #[error("redirect loop")]
    Loop,
    #[error("redirect to a non-http(s) scheme '{0}'")]
    Scheme(String),
    #[error("blocked: redirect to {0}")]
    Refused(Refusal),
    /// A hop of an `http` provider to a URL that its origin's robots.txt disallows.
    #[error("blocked: {0}")]
    Robots(RobotsRefusal),
}

/// What kind of page stands in for the content (the interstitial detector's finding).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageKind {
    /// A challenge, captcha or block page of an anti-bot vendor or firewall.
    Interstitial,
    /// A cookie or consent wall.
    ConsentWall,
    /// A page that needs a script to show anything (an empty app shell).
    ScriptOnly,
}

/// Where an attempt was when its time ran out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeoutPhase {
    /// No response headers yet.
    WaitingForResponse,
    /// Headers received; `bytes_read` of the body had arrived.
    ReadingBody { bytes_read: usize },
    /// The body was being decoded, extracted and judged.
    Processing,
}

/// The class of a transport error as reqwest reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransportKind {
    Timeout,
    Connect,
    Redirect,
    Body,
    Request,
}

impl TransportKind {
    /// The words that open the detail: `connect error`, `error reading body`, ...
    pub fn as_str(self) -> &'static str {
        match self {
            TransportKind::Timeout => "timeout",
            TransportKind::Connect => "connect error",
            TransportKind::Redirect => "redirect error",
            TransportKind::Body => "error reading body",
            TransportKind::Request => "request error",
        }
    }
}

/// How a command ended when it did not succeed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitKind {
    /// It exited with this status code.
    Code(i32),
    /// It was killed by a signal.
    Signal,
}

/// Every way an attempt fails, classified. `Display` is the attempt detail (before
/// redaction and the 200-character cut); [`FailureKind::outcome`] is its outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FailureKind {
    // --- transport_error: the request never landed ---
    /// The guard refused the host, a resolved address or a template endpoint.
    Blocked(Refusal),
    /// The attempt's time ran out. `after` is the attempt's budget.
    Timeout {
        phase: TimeoutPhase,
        after: Duration,
    },
    /// A transport error as reqwest described it; `cause` is its innermost messages
    /// (may be empty).
    Transport { kind: TransportKind, cause: String },
    /// The body stopped arriving after `bytes_read` bytes.
    BodyInterrupted {
        cause: Box<FailureKind>,
        bytes_read: usize,
    },
    /// A redirect was not followed.
    Redirect(RedirectError),
    /// A provider's proxy setting was refused by the HTTP client.
    Proxy(String),
    /// The HTTP client could not be built.
    ClientBuild(String),
    /// A template provider's filled-in URL does not parse.
    TemplateUrl(url::ParseError),
    /// Resolving the host before starting a command ran out of time.
    ResolveTimeout,
    /// A command provider with no program.
    EmptyArgv,
    /// The program could not be started.
    CommandStart { program: String, error: String },
    /// Waiting for the program failed.
    CommandWait(String),
    /// The program did not succeed; `stderr_tail` is redacted and may be empty.
    CommandExit { exit: ExitKind, stderr_tail: String },
    /// The program ran past its time and was killed.
    CommandTimeout { after: Duration },
    /// The work on a body was stopped (the attempt was dropped).
    Cancelled,
    /// The run was stopped (batch's Ctrl-C) while this attempt was in flight.
    Interrupted,
    /// PDF extraction stopped at the attempt deadline.
    PdfCancelled,

    // --- http_error: it landed with a non-2xx status ---
    /// `reason` is the status's canonical reason ("" when it has none); `retry_after` a
    /// validated, trimmed Retry-After value.
    Http {
        status: u16,
        reason: String,
        retry_after: Option<String>,
    },

    // --- malformed_response: not the shape the provider declared ---
    /// Bytes that do not decode in the declared charset; holds the decoder's detail.
    Undecodable(String),
    /// `response = "json"` but the body is not JSON; holds the parser's message.
    NotJson(String),
    /// The content pointer names nothing.
    PointerMissing(String),
    /// The content pointer names a value that is not a string; `found` is its type name
    /// (`an object`, `an integer`, ...).
    PointerNotString {
        pointer: String,
        found: &'static str,
    },
    /// A parser panicked while processing the body.
    ParserFailure,
    /// A PDF that does not parse or is hostile. `cut_at` is the body's length when it was
    /// cut at the body cap.
    MalformedPdf {
        detail: String,
        cut_at: Option<usize>,
    },

    // --- unusable_content: it landed but is of no use ---
    /// Not a text type: the media type, or a description of what is missing.
    UnsupportedType(String),
    /// Nothing but whitespace.
    Empty,
    /// An interstitial, consent wall or script-only page; `marker` is what decided.
    Page { kind: PageKind, marker: String },
    /// Markup or symbol runs only.
    NoReadableText,
    /// `must_contain` was not found; holds the whole needle (the detail shows 60 chars).
    MissingText(String),
    /// Fewer readable characters than `min_chars`.
    TooShort { chars: usize, min: usize },
    /// A PDF that needs a password.
    EncryptedPdf,
    /// A PDF whose pages have no text.
    NoTextLayer,
    /// A PDF whose pages show text that no font maps to characters.
    UndecodablePdfText,
}

/// Why a requested URL is refused before any attempt (`invalid_input`). `Display` is the
/// receipt's `failure_detail`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlRejection {
    #[error("URL is {len} characters long; the limit is {max}")]
    TooLong { len: usize, max: usize },
    #[error("URL is empty")]
    Empty,
    /// No scheme (`example.com/docs`, `localhost:8080`): said in words a model can act on,
    /// not the parser's ("relative URL without a base").
    #[error("the url must start with http:// or https://")]
    NoScheme,
    #[error("URL does not parse: {0}")]
    Parse(url::ParseError),
    #[error("scheme '{0}' is not allowed (only http and https)")]
    Scheme(String),
    #[error("URL has no host")]
    NoHost,
    #[error("host refused by the network policy: {0}")]
    Refused(Refusal),
    /// robots.txt disallows it (DESIGN §13).
    #[error("{0}")]
    Robots(RobotsRefusal),
}

/// `15s`, `1s`, `2.5s`: whole seconds without a fraction, else one decimal.
fn secs(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0}s")
    } else {
        format!("{s:.1}s")
    }
}

impl FailureKind {
    /// The attempt outcome this failure is reported as.
    pub fn outcome(&self) -> Outcome {
        use FailureKind as K;
        match self {
            K::Blocked(_)
            | K::Timeout { .. }
            | K::Transport { .. }
            | K::BodyInterrupted { .. }
            | K::Redirect(_)
            | K::Proxy(_)
            | K::ClientBuild(_)
            | K::TemplateUrl(_)
            | K::ResolveTimeout
            | K::EmptyArgv
            | K::CommandStart { .. }
            | K::CommandWait(_)
            | K::CommandExit { .. }
            | K::CommandTimeout { .. }
            | K::Cancelled
            | K::Interrupted
            | K::PdfCancelled => Outcome::TransportError,
            K::Http { .. } => Outcome::HttpError,
            K::Undecodable(_)
            | K::NotJson(_)
            | K::PointerMissing(_)
            | K::PointerNotString { .. }
            | K::ParserFailure
            | K::MalformedPdf { .. } => Outcome::MalformedResponse,
            K::UnsupportedType(_)
            | K::Empty
            | K::Page { .. }
            | K::NoReadableText
            | K::MissingText(_)
            | K::TooShort { .. }
            | K::EncryptedPdf
            | K::NoTextLayer
            | K::UndecodablePdfText => Outcome::UnusableContent,
        }
    }
}

impl fmt::Display for FailureKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use FailureKind as K;
        match self {
            K::Blocked(r) => write!(f, "blocked: {r}"),
            K::Timeout { phase, after } => match phase {
                TimeoutPhase::WaitingForResponse => {
                    write!(f, "timed out after {} waiting for a response", secs(*after))
                }
                TimeoutPhase::ReadingBody { bytes_read } => write!(
                    f,
                    "timed out after {} reading the body ({bytes_read} bytes read)",
                    secs(*after)
                ),
                TimeoutPhase::Processing => write!(
                    f,
                    "timed out after {:.1}s while processing the body",
                    after.as_secs_f64()
                ),
            },
            K::Transport { kind, cause } if cause.is_empty() => f.write_str(kind.as_str()),
            K::Transport { kind, cause } => write!(f, "{}: {cause}", kind.as_str()),
            K::BodyInterrupted { cause, bytes_read } => {
                write!(f, "{cause} after {bytes_read} bytes of body")
            }
            K::Redirect(e) => write!(f, "{e}"),
            K::Proxy(e) => write!(f, "proxy: {e}"),
            K::ClientBuild(e) => write!(f, "cannot build HTTP client: {e}"),
            K::TemplateUrl(e) => write!(f, "template URL does not parse: {e}"),
            K::ResolveTimeout => f.write_str("timed out resolving the host"),
            K::EmptyArgv => f.write_str("empty argv"),
            K::CommandStart { program, error } => write!(f, "could not start {program}: {error}"),
            K::CommandWait(e) => write!(f, "waiting for command: {e}"),
            K::CommandExit { exit, stderr_tail } => {
                match exit {
                    ExitKind::Code(c) => write!(f, "command exited with status {c}")?,
                    ExitKind::Signal => f.write_str("command killed by a signal")?,
                }
                if stderr_tail.is_empty() {
                    Ok(())
                } else {
                    write!(f, ": {stderr_tail}")
                }
            }
            K::CommandTimeout { after } => write!(
                f,
                "command timed out after {:.1}s and was killed",
                after.as_secs_f64()
            ),
            K::Cancelled => f.write_str("processing cancelled"),
            K::Interrupted => {
                f.write_str("interrupted: the run was stopped before this attempt finished")
            }
            K::PdfCancelled => f.write_str("PDF extraction stopped at the attempt deadline"),
            K::Http {
                status,
                reason,
                retry_after,
            } => {
                let line = format!("HTTP {status} {reason}");
                f.write_str(line.trim_end())?;
                match retry_after {
                    Some(ra) => write!(f, " (Retry-After: {ra})"),
                    None => Ok(()),
                }
            }
            K::Undecodable(d) => f.write_str(d),
            K::NotJson(e) => write!(f, "expected a JSON response, got something else ({e})"),
            K::PointerMissing(p) => write!(f, "JSON pointer '{p}' not found in the response"),
            K::PointerNotString { pointer, found } => {
                write!(f, "JSON pointer '{pointer}' is {found}, not a string")
            }
            K::ParserFailure => f.write_str("the body could not be processed (parser failure)"),
            K::MalformedPdf { detail, cut_at } => {
                if let Some(n) = cut_at {
                    write!(f, "PDF cut at the body cap ({n} bytes): ")?;
                }
                write!(f, "malformed PDF: {detail}")
            }
            K::UnsupportedType(t) => write!(f, "unsupported content type {t}"),
            K::Empty => f.write_str("empty body"),
            K::Page { kind, marker } => {
                let what = match kind {
                    PageKind::Interstitial => "interstitial page",
                    PageKind::ConsentWall => "consent wall",
                    PageKind::ScriptOnly => "script-only page",
                };
                write!(f, "{what} detected ('{marker}')")
            }
            K::NoReadableText => f.write_str("no readable text in the body"),
            K::MissingText(needle) => {
                write!(f, "required text not found: '{}'", clip_chars(needle, 60))
            }
            K::TooShort { chars, min } => {
                write!(f, "content too short: {chars} chars, min_chars is {min}")
            }
            K::EncryptedPdf => f.write_str("encrypted PDF"),
            K::NoTextLayer => f.write_str("no text layer (scanned PDF?)"),
            K::UndecodablePdfText => {
                f.write_str("PDF text does not decode (its fonts map no characters)")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    fn loopback() -> Refusal {
        Refusal::Address {
            ip: IpAddr::V4(Ipv4Addr::new(127, 0, 0, 1)),
            class: AddrClass::Loopback,
        }
    }

    /// Every detail string that docs/reference.md quotes (its "Outcomes" table, the PDF
    /// table and the fault table), next to the kind that must produce it and its outcome.
    /// A wording change in either place breaks this test.
    #[test]
    fn display_is_the_documented_detail() {
        use FailureKind as K;
        use Outcome::*;
        let secs = Duration::from_secs;
        let cases: Vec<(FailureKind, Outcome, &str)> = vec![
            (
                K::Transport {
                    kind: TransportKind::Connect,
                    cause: "failed to lookup address information: Name or service not known".into(),
                },
                TransportError,
                "connect error: failed to lookup address information: Name or service not known",
            ),
            (
                K::Transport {
                    kind: TransportKind::Request,
                    cause: String::new(),
                },
                TransportError,
                "request error",
            ),
            (
                K::BodyInterrupted {
                    cause: Box::new(K::Transport {
                        kind: TransportKind::Body,
                        cause: "connection reset".into(),
                    }),
                    bytes_read: 10,
                },
                TransportError,
                "error reading body: connection reset after 10 bytes of body",
            ),
            (
                K::Timeout {
                    phase: TimeoutPhase::WaitingForResponse,
                    after: secs(15),
                },
                TransportError,
                "timed out after 15s waiting for a response",
            ),
            (
                K::Timeout {
                    phase: TimeoutPhase::WaitingForResponse,
                    after: secs(1),
                },
                TransportError,
                "timed out after 1s waiting for a response",
            ),
            (
                K::Timeout {
                    phase: TimeoutPhase::ReadingBody { bytes_read: 10 },
                    after: secs(1),
                },
                TransportError,
                "timed out after 1s reading the body (10 bytes read)",
            ),
            (
                K::Timeout {
                    phase: TimeoutPhase::ReadingBody { bytes_read: 0 },
                    after: Duration::from_millis(2500),
                },
                TransportError,
                "timed out after 2.5s reading the body (0 bytes read)",
            ),
            (
                K::Timeout {
                    phase: TimeoutPhase::Processing,
                    after: secs(15),
                },
                TransportError,
                "timed out after 15.0s while processing the body",
            ),
            (
                K::Redirect(RedirectError::TooMany(10)),
                TransportError,
                "too many redirects (more than 10)",
            ),
            (
                K::Redirect(RedirectError::TooMany(3)),
                TransportError,
                "too many redirects (more than 3)",
            ),
            (
                K::Redirect(RedirectError::Loop),
                TransportError,
                "redirect loop",
            ),
            (
                K::Redirect(RedirectError::Scheme("file".into())),
                TransportError,
                "redirect to a non-http(s) scheme 'file'",
            ),
            (
                K::Redirect(RedirectError::Refused(loopback())),
                TransportError,
                "blocked: redirect to loopback address 127.0.0.1",
            ),
            (
                K::Redirect(RedirectError::Refused(Refusal::Address {
                    ip: IpAddr::V4(Ipv4Addr::new(169, 254, 169, 254)),
                    class: AddrClass::Metadata,
                })),
                TransportError,
                "blocked: redirect to cloud metadata address 169.254.169.254",
            ),
            (
                K::Redirect(RedirectError::Refused(Refusal::Blocked {
                    host: "tracker.evil.example".into(),
                })),
                TransportError,
                "blocked: redirect to host tracker.evil.example is in blocked_domains",
            ),
            (
                K::Redirect(RedirectError::Robots(RobotsRefusal::Rule {
                    agent: "vetch".into(),
                    rule: "Disallow: /private".into(),
                })),
                TransportError,
                "blocked: disallowed by robots.txt (user-agent vetch: Disallow: /private)",
            ),
            (
                K::Blocked(Refusal::Resolved {
                    host: "x".into(),
                    ip: IpAddr::V4(Ipv4Addr::new(10, 0, 0, 5)),
                    class: AddrClass::Private,
                }),
                TransportError,
                "blocked: host x resolves to private address 10.0.0.5",
            ),
            (
                K::CommandExit {
                    exit: ExitKind::Code(3),
                    stderr_tail: "<stderr tail>".into(),
                },
                TransportError,
                "command exited with status 3: <stderr tail>",
            ),
            (
                K::CommandExit {
                    exit: ExitKind::Signal,
                    stderr_tail: String::new(),
                },
                TransportError,
                "command killed by a signal",
            ),
            (
                K::CommandTimeout { after: secs(15) },
                TransportError,
                "command timed out after 15.0s and was killed",
            ),
            (
                K::CommandStart {
                    program: "chromium".into(),
                    error: "No such file or directory (os error 2)".into(),
                },
                TransportError,
                "could not start chromium: No such file or directory (os error 2)",
            ),
            (K::EmptyArgv, TransportError, "empty argv"),
            (
                K::ResolveTimeout,
                TransportError,
                "timed out resolving the host",
            ),
            (K::Cancelled, TransportError, "processing cancelled"),
            (
                K::Interrupted,
                TransportError,
                "interrupted: the run was stopped before this attempt finished",
            ),
            (
                K::PdfCancelled,
                TransportError,
                "PDF extraction stopped at the attempt deadline",
            ),
            (
                K::Http {
                    status: 503,
                    reason: "Service Unavailable".into(),
                    retry_after: None,
                },
                HttpError,
                "HTTP 503 Service Unavailable",
            ),
            (
                K::Http {
                    status: 429,
                    reason: "Too Many Requests".into(),
                    retry_after: Some("120".into()),
                },
                HttpError,
                "HTTP 429 Too Many Requests (Retry-After: 120)",
            ),
            (
                K::Http {
                    status: 404,
                    reason: "Not Found".into(),
                    retry_after: None,
                },
                HttpError,
                "HTTP 404 Not Found",
            ),
            (
                K::Http {
                    status: 599,
                    reason: String::new(),
                    retry_after: None,
                },
                HttpError,
                "HTTP 599",
            ),
            (K::Empty, UnusableContent, "empty body"),
            (
                K::NoReadableText,
                UnusableContent,
                "no readable text in the body",
            ),
            (
                K::Page {
                    kind: PageKind::Interstitial,
                    marker: "just a moment".into(),
                },
                UnusableContent,
                "interstitial page detected ('just a moment')",
            ),
            (
                K::Page {
                    kind: PageKind::ConsentWall,
                    marker: "MARKER".into(),
                },
                UnusableContent,
                "consent wall detected ('MARKER')",
            ),
            (
                K::Page {
                    kind: PageKind::ScriptOnly,
                    marker: "MARKER".into(),
                },
                UnusableContent,
                "script-only page detected ('MARKER')",
            ),
            (
                K::MissingText("TEXT".into()),
                UnusableContent,
                "required text not found: 'TEXT'",
            ),
            (
                K::TooShort { chars: 12, min: 40 },
                UnusableContent,
                "content too short: 12 chars, min_chars is 40",
            ),
            (
                K::UnsupportedType("image/png".into()),
                UnusableContent,
                "unsupported content type image/png",
            ),
            (
                K::UnsupportedType("none declared, and the body is not text".into()),
                UnusableContent,
                "unsupported content type none declared, and the body is not text",
            ),
            (K::EncryptedPdf, UnusableContent, "encrypted PDF"),
            (
                K::UndecodablePdfText,
                UnusableContent,
                "PDF text does not decode (its fonts map no characters)",
            ),
            (
                K::NoTextLayer,
                UnusableContent,
                "no text layer (scanned PDF?)",
            ),
            (
                K::Undecodable("body does not decode as UTF-8".into()),
                MalformedResponse,
                "body does not decode as UTF-8",
            ),
            (
                K::NotJson("expected ident at line 1 column 2".into()),
                MalformedResponse,
                "expected a JSON response, got something else (expected ident at line 1 column 2)",
            ),
            (
                K::PointerMissing("/data/content".into()),
                MalformedResponse,
                "JSON pointer '/data/content' not found in the response",
            ),
            (
                K::PointerNotString {
                    pointer: "/data".into(),
                    found: "an object",
                },
                MalformedResponse,
                "JSON pointer '/data' is an object, not a string",
            ),
            (
                K::ParserFailure,
                MalformedResponse,
                "the body could not be processed (parser failure)",
            ),
            (
                K::MalformedPdf {
                    detail: "more than 20000000 content operators".into(),
                    cut_at: None,
                },
                MalformedResponse,
                "malformed PDF: more than 20000000 content operators",
            ),
            (
                K::MalformedPdf {
                    detail: "streams decode to more than 256 MiB (a compression bomb?)".into(),
                    cut_at: None,
                },
                MalformedResponse,
                "malformed PDF: streams decode to more than 256 MiB (a compression bomb?)",
            ),
            (
                K::MalformedPdf {
                    detail: "the reader failed on this document".into(),
                    cut_at: Some(4096),
                },
                MalformedResponse,
                "PDF cut at the body cap (4096 bytes): malformed PDF: the reader failed on this document",
            ),
        ];
        for (kind, outcome, detail) in &cases {
            assert_eq!(kind.to_string(), *detail, "{kind:?}");
            assert_eq!(kind.outcome(), *outcome, "{kind:?}");
        }
    }

    /// The `invalid_input` details of docs/reference.md for a refused URL.
    #[test]
    fn url_rejections_read_as_documented() {
        let cases = [
            (
                UrlRejection::Scheme("ftp".into()),
                "scheme 'ftp' is not allowed (only http and https)",
            ),
            (
                UrlRejection::TooLong {
                    len: 3000,
                    max: 2048,
                },
                "URL is 3000 characters long; the limit is 2048",
            ),
            (UrlRejection::Empty, "URL is empty"),
            (
                UrlRejection::Parse(url::ParseError::RelativeUrlWithoutBase),
                "URL does not parse: relative URL without a base",
            ),
            (UrlRejection::NoHost, "URL has no host"),
            (
                UrlRejection::NoScheme,
                "the url must start with http:// or https://",
            ),
            (
                UrlRejection::Refused(loopback()),
                "host refused by the network policy: loopback address 127.0.0.1",
            ),
        ];
        for (r, want) in cases {
            assert_eq!(r.to_string(), want, "{r:?}");
        }
    }

    #[test]
    fn missing_text_detail_clips_the_needle() {
        let needle = "x".repeat(100);
        let shown = FailureKind::MissingText(needle.clone()).to_string();
        assert_eq!(
            shown,
            format!("required text not found: '{}'", clip_chars(&needle, 60))
        );
        assert!(shown.chars().count() < 100, "{shown}");
    }

    #[test]
    fn parse_errors_keep_the_url_crates_words() {
        let e = url::Url::parse("http://[::1")
            .err()
            .map(FailureKind::TemplateUrl);
        assert_eq!(
            e.map(|k| k.to_string()).as_deref(),
            Some("template URL does not parse: invalid IPv6 address")
        );
    }
}
