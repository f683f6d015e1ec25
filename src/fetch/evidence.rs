//! Evidence of one fetch (DESIGN §14): when the response arrived, the way it came (the
//! redirects followed) and what went over the wire, for the receipt's provenance fields and
//! the WARC records a front end writes.
//!
//! The HTTP layer captures a [`Wire`]: the request as vetch handed it to the client (with
//! the headers the client would add itself made explicit, so that what is captured is what
//! is sent), the hops its redirect policy followed, and the response's version and address.
//! [`exchange`] turns that into the request the client sent for the last hop (the client
//! re-sends the first request's headers at every hop, minus credentials on a hop to another
//! host, and turns a POST into a GET on 301/302/303, as reqwest and tower-http do) and
//! redacts it, with the response's status line and headers, in one go.
//!
//! What must never happen here: an [`Exchange`] holding a secret of the request side in
//! clear (it is redacted when it is made, with the lookup's redactor), or a response body
//! altered. The body is kept apart, in [`Evidence`], exactly as received (after
//! Content-Encoding and chunking were undone): it is the page, and the point of evidence.

use std::net::{IpAddr, SocketAddr};
use std::time::{SystemTime, UNIX_EPOCH};

use reqwest::header::{self, HeaderMap, HeaderName, HeaderValue};
use reqwest::{Method, Version};
use url::Url;

use crate::redact::Redactor;

/// When and by which route the body of an attempt came: the receipt's `fetched_at`,
/// `final_url` and `redirects`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Provenance {
    /// When the response's status line and headers arrived (for a copy from the cache:
    /// when that copy was fetched; for a command: when its output ended).
    pub fetched_at: SystemTime,
    /// Where the body came from; None when it is not vetch's to tell (a template's
    /// endpoint is the operator's, a command follows its own redirects).
    pub route: Option<Route>,
}

/// The redirects an `http` provider followed, redacted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    /// The URL whose response was used, redacted.
    pub final_url: String,
    /// The URLs the redirects led to, in order, each redacted; the last is `final_url`.
    /// Empty when there was no redirect.
    pub redirects: Vec<String>,
}

/// One redirect the client followed: the status that asked for it and where it led.
#[derive(Clone, PartialEq, Eq)]
pub struct Hop {
    pub status: u16,
    pub url: Url,
}

/// The request as vetch handed it to the HTTP client, every header it sends included (the
/// client's own defaults made explicit). Holds credentials in clear: its `Debug` shows
/// none of it, and [`exchange`] redacts it.
#[derive(Clone, PartialEq, Eq)]
pub struct Sent {
    pub method: Method,
    /// The version the request asks for (HTTP/1.1 unless the connection turns out to be
    /// HTTP/2 or 3, which the response's version tells).
    pub version: Version,
    pub url: Url,
    pub headers: HeaderMap,
    pub body: Option<Vec<u8>>,
}

impl std::fmt::Debug for Sent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sent")
            .field("method", &self.method)
            .finish_non_exhaustive()
    }
}

impl std::fmt::Debug for Hop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hop")
            .field("status", &self.status)
            .finish_non_exhaustive()
    }
}

/// What the HTTP layer saw of one exchange, before redaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wire {
    pub sent: Sent,
    /// The redirects followed, in order; None when they could not be observed (then no
    /// route is claimed).
    pub hops: Option<Vec<Hop>>,
    pub version: Version,
    pub remote: Option<SocketAddr>,
    pub sent_at: SystemTime,
    pub received_at: SystemTime,
}

/// An exchange as captured, not yet redacted: what went over the network for a body
/// received in this attempt. Redacting it costs a pass over every header, so the engine
/// does it ([`Captured::redact`]) only when evidence is asked for. Its `Debug` shows no
/// header or URL.
#[derive(Clone, PartialEq, Eq)]
pub struct Captured {
    pub wire: Wire,
    pub status: u16,
    /// The response headers as the client hands them over (Content-Encoding and
    /// Content-Length gone when it decoded the body).
    pub headers: HeaderMap,
    /// Where the response came from, after redirects (not redacted).
    pub final_url: String,
}

impl Captured {
    /// The exchange, redacted with `redactor`.
    pub fn redact(&self, redactor: &Redactor) -> Exchange {
        exchange(
            &self.wire,
            self.status,
            &self.headers,
            &self.final_url,
            redactor,
        )
    }
}

impl std::fmt::Debug for Captured {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Captured")
            .field("status", &self.status)
            .finish_non_exhaustive()
    }
}

/// A start line and header lines, redacted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpHead {
    pub start_line: String,
    /// Names as the client reports them (lower case), values redacted.
    pub headers: Vec<(String, String)>,
}

/// One request and the head of its response, redacted, ready for the WARC records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exchange {
    pub sent_at: SystemTime,
    pub received_at: SystemTime,
    /// The URL of the last hop, redacted (`WARC-Target-URI`).
    pub target_uri: String,
    /// The address the response came from, when the client knows it.
    pub remote_ip: Option<IpAddr>,
    /// The request line and headers (with `host`; `content-length` when there is a body,
    /// counting the redacted body).
    pub request: HttpHead,
    /// A POST's body, redacted.
    pub request_body: Option<Vec<u8>>,
    /// The status line (the standard reason phrase for the code) and headers, without the
    /// framing headers `content-length` and `transfer-encoding` (the body is kept as
    /// received after decoding; the writer states its length).
    pub response: HttpHead,
}

/// Everything a WARC writer needs for one attempt that was used: the exchange and the body
/// exactly as received (after Content-Encoding and chunking were undone).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evidence {
    pub exchange: Exchange,
    pub body: Vec<u8>,
    /// The body was cut at the body cap: `body` is a prefix (`WARC-Truncated: length`).
    pub truncated: bool,
}

/// The value of `Accept-Encoding` the client sends when the request sets none: the one
/// tower-http's decompression layer inserts for gzip, brotli, zstd and deflate (reqwest's
/// features here), made explicit so that it is captured as sent.
pub const ACCEPT_ENCODING: &str = "zstd,gzip,deflate,br";

/// Make the headers the client adds by itself explicit, each only when the request sets
/// none (as the client does): `user-agent`, `accept: */*` and `accept-encoding`.
pub fn complete_headers(headers: &mut HeaderMap, user_agent: &str) {
    let defaults = [
        (header::USER_AGENT, HeaderValue::from_str(user_agent).ok()),
        (header::ACCEPT, Some(HeaderValue::from_static("*/*"))),
        (
            header::ACCEPT_ENCODING,
            Some(HeaderValue::from_static(ACCEPT_ENCODING)),
        ),
    ];
    for (name, value) in defaults {
        if let (header::Entry::Vacant(e), Some(v)) = (headers.entry(name), value) {
            e.insert(v);
        }
    }
}

/// The route of an `http` provider's response, redacted: its final URL and the hops that led
/// there. None when the hops were not observed or do not end at the final URL (no route is
/// better than a wrong one).
pub fn route(wire: &Wire, final_url: &str, redactor: &Redactor) -> Option<Route> {
    let hops = wire.hops.as_ref()?;
    let ends_there = match hops.last() {
        Some(last) => last.url.as_str() == final_url,
        None => wire.sent.url.as_str() == final_url,
    };
    ends_there.then(|| Route {
        final_url: redactor.redact_url(final_url),
        redirects: hops
            .iter()
            .map(|h| redactor.redact_url(h.url.as_str()))
            .collect(),
    })
}

/// The request the client sent for the last hop, and the redacted exchange.
pub fn exchange(
    wire: &Wire,
    status: u16,
    response_headers: &HeaderMap,
    final_url: &str,
    redactor: &Redactor,
) -> Exchange {
    let (method, url, headers, body) = last_request(&wire.sent, wire.hops.as_deref());
    let version = version_text(wire.version);
    // An HTTP/1 response may say 1.0 to a request that said 1.1.
    let request_version = match wire.version {
        Version::HTTP_2 | Version::HTTP_3 => version,
        _ => version_text(wire.sent.version),
    };
    let request_body = body.map(|b| redact_body(&b, redactor));
    let mut request_headers = vec![("host".to_string(), host_header(&url))];
    request_headers.extend(redact_headers(&headers, redactor, &[]));
    if let Some(b) = &request_body {
        request_headers.push(("content-length".into(), b.len().to_string()));
    }
    let target = redacted_target(&url, redactor);
    let reason = reqwest::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("");
    Exchange {
        sent_at: wire.sent_at,
        received_at: wire.received_at,
        target_uri: redactor.redact_url(final_url),
        remote_ip: wire.remote.map(|a| a.ip()),
        request: HttpHead {
            start_line: format!("{method} {target} {request_version}"),
            headers: request_headers,
        },
        request_body,
        response: HttpHead {
            start_line: format!("{version} {status} {reason}")
                .trim_end()
                .to_string(),
            headers: redact_headers(
                response_headers,
                redactor,
                &[header::CONTENT_LENGTH, header::TRANSFER_ENCODING],
            ),
        },
    }
}

/// The method and body of the request a client sends for a redirect hop with `status`,
/// after a request with `method` and `body`: 301 and 302 turn a POST into a GET, 303 turns
/// anything but HEAD into a GET, and the body goes with the method; 307 and 308 keep both.
pub fn after_redirect(
    status: u16,
    method: &Method,
    body: Option<Vec<u8>>,
) -> (Method, Option<Vec<u8>>) {
    if !drops_payload(status, method) {
        return (method.clone(), body);
    }
    let method = if *method == Method::HEAD {
        Method::HEAD
    } else {
        Method::GET
    };
    (method, None)
}

/// Does a hop with `status` turn a `method` request into a GET without its body?
fn drops_payload(status: u16, method: &Method) -> bool {
    match status {
        301 | 302 => *method == Method::POST,
        303 => true,
        _ => false,
    }
}

/// Replay the redirect rules over the hops: the method and body after each hop's status
/// ([`after_redirect`]), the payload headers dropped with the body; every credential header
/// ([`crate::fetch::spec::sensitive_header`]) left out from the first hop to another origin
/// than the requested one on (`http::send_landed` sends that hop itself, without them);
/// and the client's own rule, the standard credentials left out of a hop to another host
/// than the one before it (reqwest's `remove_sensitive_headers`).
fn last_request(sent: &Sent, hops: Option<&[Hop]>) -> (Method, Url, HeaderMap, Option<Vec<u8>>) {
    let hops = hops.unwrap_or(&[]);
    let mut method = sent.method.clone();
    let mut headers = sent.headers.clone();
    let mut body = sent.body.clone();
    let mut left_origin = false;
    for hop in hops {
        if drops_payload(hop.status, &method) {
            for h in [
                header::CONTENT_TYPE,
                header::CONTENT_LENGTH,
                header::CONTENT_ENCODING,
                header::TRANSFER_ENCODING,
            ] {
                headers.remove(h);
            }
        }
        (method, body) = after_redirect(hop.status, &method, body.take());
        if !left_origin && !same_origin(&sent.url, &hop.url) {
            left_origin = true;
            let names: Vec<HeaderName> = headers
                .keys()
                .filter(|n| crate::fetch::spec::sensitive_header(n.as_str()))
                .cloned()
                .collect();
            for n in names {
                headers.remove(n);
            }
        }
    }
    let Some(last) = hops.last() else {
        return (method, sent.url.clone(), headers, body);
    };
    let before = match hops.len() {
        1 => &sent.url,
        n => &hops[n - 2].url,
    };
    if !same_origin(&last.url, before) {
        for h in [
            header::AUTHORIZATION,
            header::COOKIE,
            HeaderName::from_static("cookie2"),
            header::PROXY_AUTHORIZATION,
            header::WWW_AUTHENTICATE,
        ] {
            headers.remove(h);
        }
    }
    (method, last.url.clone(), headers, body)
}

/// Do `a` and `b` have one origin (scheme, host, port)?
pub fn same_origin(a: &Url, b: &Url) -> bool {
    a.scheme() == b.scheme()
        && a.host_str() == b.host_str()
        && a.port_or_known_default() == b.port_or_known_default()
}

/// `HTTP/1.1`, `HTTP/2`, ... as a start line writes it.
fn version_text(v: Version) -> &'static str {
    match v {
        Version::HTTP_09 => "HTTP/0.9",
        Version::HTTP_10 => "HTTP/1.0",
        Version::HTTP_2 => "HTTP/2",
        Version::HTTP_3 => "HTTP/3",
        _ => "HTTP/1.1",
    }
}

/// The `host` header the client derives from the URL (the port only when not the default).
fn host_header(url: &Url) -> String {
    url[url::Position::BeforeHost..url::Position::AfterPort].to_string()
}

/// The request target (path and query) of `url`, redacted as a part of the whole URL.
fn redacted_target(url: &Url, redactor: &Redactor) -> String {
    match Url::parse(&redactor.redact_url(url.as_str())) {
        Ok(r) => r[url::Position::BeforePath..url::Position::AfterQuery].to_string(),
        Err(_) => redactor
            .redact_text(&url[url::Position::BeforePath..url::Position::AfterQuery])
            .replace([' ', '\r', '\n'], "%20"),
    }
}

/// Every header as a redacted `(name, value)` pair, in order, except the `skip`ped ones.
/// A value is judged on its whole line (`authorization: Bearer …` is a header value the
/// redactor knows); a value that is not UTF-8 is read as UTF-8 with replacements.
fn redact_headers(
    headers: &HeaderMap,
    redactor: &Redactor,
    skip: &[HeaderName],
) -> Vec<(String, String)> {
    headers
        .iter()
        .filter(|(n, _)| !skip.contains(n))
        .map(|(name, value)| {
            let line = format!("{}: {}", name, String::from_utf8_lossy(value.as_bytes()));
            let redacted = redactor.redact_text(&line);
            let value = match redacted.split_once(": ") {
                Some((n, v)) if n == name.as_str() => v.to_string(),
                _ => "[REDACTED]".to_string(),
            };
            (name.as_str().to_string(), one_line(&value))
        })
        .collect()
}

/// A header value can never break the record's lines.
fn one_line(v: &str) -> String {
    v.replace(['\r', '\n'], " ")
}

/// A request body, redacted (JSON as JSON, so it stays valid).
fn redact_body(body: &[u8], redactor: &Redactor) -> Vec<u8> {
    let text = String::from_utf8_lossy(body);
    let redacted = if serde_json::from_str::<serde_json::Value>(&text).is_ok() {
        redactor.redact_json_text(&text)
    } else {
        redactor.redact_text(&text)
    };
    redacted.into_bytes()
}

/// `t` as RFC 3339 in UTC, to the second: `2024-05-01T12:00:00Z`. A time before 1970 (a
/// clock gone wrong) is written as the epoch.
pub fn rfc3339(t: SystemTime) -> String {
    let secs = t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    let s = secs % 86_400;
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        s / 3600,
        s % 3600 / 60,
        s % 60
    )
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's
/// `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// Milliseconds since the epoch (what the cache stores), and back.
pub fn to_unix_ms(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

pub fn from_unix_ms(ms: u64) -> SystemTime {
    UNIX_EPOCH + std::time::Duration::from_millis(ms)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn rfc3339_utc_to_the_second() {
        let at = |s: u64| rfc3339(UNIX_EPOCH + Duration::from_secs(s));
        assert_eq!(at(0), "1970-01-01T00:00:00Z");
        assert_eq!(at(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(at(1_700_000_000), "2023-11-14T22:13:20Z");
        assert_eq!(at(4_102_444_799), "2099-12-31T23:59:59Z");
        assert_eq!(
            rfc3339(UNIX_EPOCH + Duration::from_millis(1_700_000_000_999)),
            "2023-11-14T22:13:20Z"
        );
        assert_eq!(
            from_unix_ms(to_unix_ms(UNIX_EPOCH + Duration::from_secs(5))),
            UNIX_EPOCH + Duration::from_secs(5)
        );
    }

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    fn sent(method: Method, u: &str) -> Sent {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("Bearer s3cr3t-t0ken-value"),
        );
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        headers.insert("x-trace", HeaderValue::from_static("1"));
        Sent {
            method,
            version: Version::HTTP_11,
            url: url(u),
            headers,
            body: Some(b"{}".to_vec()),
        }
    }

    fn hop(status: u16, u: &str) -> Hop {
        Hop {
            status,
            url: url(u),
        }
    }

    #[test]
    fn the_last_request_follows_the_clients_redirect_rules() {
        let s = sent(Method::POST, "https://a.example/x");
        // No hop: the request as sent.
        let (m, u, h, b) = last_request(&s, Some(&[]));
        assert_eq!(
            (m, u.as_str(), b.is_some()),
            (Method::POST, "https://a.example/x", true)
        );
        assert!(h.contains_key(header::AUTHORIZATION));
        // 307 on the same host: method, body and credentials kept.
        let (m, _, h, b) = last_request(&s, Some(&[hop(307, "https://a.example/y")]));
        assert_eq!((m, b.is_some()), (Method::POST, true));
        assert!(h.contains_key(header::AUTHORIZATION) && h.contains_key(header::CONTENT_TYPE));
        // 302 to another host: GET, no body, no payload headers, no credentials.
        let (m, u, h, b) = last_request(&s, Some(&[hop(302, "https://b.example/z")]));
        assert_eq!(
            (m, u.as_str(), b),
            (Method::GET, "https://b.example/z", None)
        );
        assert!(!h.contains_key(header::AUTHORIZATION) && !h.contains_key(header::CONTENT_TYPE));
        assert!(h.contains_key("x-trace"));
        // Then a hop within that host: reqwest alone would send the first request's
        // credentials again (it compares with the hop before only); vetch sends the hop
        // off the origin itself, without them, so no later hop has them either.
        let mut s = s.clone();
        s.headers.insert(
            "x-api-key",
            HeaderValue::from_static("k3y-0123456789abcdef"),
        );
        let (_, _, h, _) = last_request(
            &s,
            Some(&[
                hop(302, "https://b.example/z"),
                hop(302, "https://b.example/w"),
                hop(302, "https://a.example/back"),
            ]),
        );
        assert!(!h.contains_key(header::AUTHORIZATION) && !h.contains_key("x-api-key"));
        assert!(h.contains_key("x-trace"));
        // A port or scheme change is another host.
        let (_, _, h, _) = last_request(&s, Some(&[hop(307, "http://a.example/x")]));
        assert!(!h.contains_key(header::AUTHORIZATION));
    }

    #[test]
    fn the_exchange_is_redacted_and_loses_only_framing() {
        let mut r = Redactor::new();
        r.add_secret("s3cr3t-t0ken-value");
        let mut s = sent(
            Method::GET,
            "https://a.example/p?api_key=abcdef0123456789xyz&page=2",
        );
        s.body = None;
        let wire = Wire {
            sent: s,
            hops: Some(vec![]),
            version: Version::HTTP_11,
            remote: Some("127.0.0.1:8080".parse().unwrap()),
            sent_at: UNIX_EPOCH,
            received_at: UNIX_EPOCH,
        };
        let mut res = HeaderMap::new();
        res.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html"));
        res.insert(header::CONTENT_LENGTH, HeaderValue::from_static("12"));
        res.insert(
            header::TRANSFER_ENCODING,
            HeaderValue::from_static("chunked"),
        );
        res.insert("x-echo", HeaderValue::from_static("s3cr3t-t0ken-value"));
        let final_url = wire.sent.url.to_string();
        let ex = exchange(&wire, 200, &res, &final_url, &r);
        let all = format!("{ex:?}");
        assert!(
            !all.contains("s3cr3t") && !all.contains("abcdef0123456789xyz"),
            "{all}"
        );
        assert!(
            ex.request.start_line.starts_with("GET /p?api_key="),
            "{}",
            ex.request.start_line
        );
        assert!(
            ex.request.start_line.ends_with("&page=2 HTTP/1.1"),
            "{}",
            ex.request.start_line
        );
        assert_eq!(ex.request.headers[0], ("host".into(), "a.example".into()));
        assert_eq!(ex.response.start_line, "HTTP/1.1 200 OK");
        let names: Vec<&str> = ex
            .response
            .headers
            .iter()
            .map(|(n, _)| n.as_str())
            .collect();
        assert_eq!(names, ["content-type", "x-echo"]);
        assert_eq!(ex.remote_ip, Some("127.0.0.1".parse().unwrap()));
        assert_eq!(
            route(&wire, &final_url, &r).map(|r| r.redirects),
            Some(vec![])
        );
        // Hops that do not end where the response came from: no route is claimed.
        assert_eq!(route(&wire, "https://elsewhere.example/", &r), None);
    }

    #[test]
    fn client_defaults_are_made_explicit_only_when_missing() {
        let mut h = HeaderMap::new();
        h.insert(header::ACCEPT, HeaderValue::from_static("text/html"));
        complete_headers(&mut h, "vetch/test");
        assert_eq!(h[header::ACCEPT], "text/html");
        assert_eq!(h[header::USER_AGENT], "vetch/test");
        assert_eq!(h[header::ACCEPT_ENCODING], ACCEPT_ENCODING);
    }
}
