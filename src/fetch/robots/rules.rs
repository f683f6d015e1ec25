//! robots.txt as RFC 9309 reads it: the groups, the one that applies to a product token,
//! and the rule that decides a path. Pure functions on bytes: no I/O, no panic on any file.
//!
//! - Lines end at LF, CR or CRLF; a UTF-8 byte-order mark at the start is skipped; `#`
//!   starts a comment; keys are case-insensitive, with Google's accepted typos
//!   (`useragent`, `disalow`, ...) and a space instead of the colon (`disallow /x`).
//! - A group is one or more `user-agent` lines and the rules after them; a `user-agent`
//!   line after a rule starts the next group. Rules before any group are ignored, and so
//!   are `sitemap` and unknown lines (which end nothing).
//! - The groups whose product token (the value up to the first character outside
//!   `[A-Za-z_-]`) equals ours, case-insensitively, are merged; else the `*` groups are;
//!   else there are no rules.
//! - The longest matching pattern (in octets, once normalised) decides; `allow` wins a tie;
//!   `*` matches any run and a final `$` the end; an empty `disallow` matches nothing;
//!   `/robots.txt` is always allowed.
//! - Paths and patterns are compared percent-encoded: octets outside printable ASCII are
//!   encoded, escapes are upper-cased, and escapes of unreserved characters are decoded
//!   (RFC 9309 §2.2.2, so `/%62az` and `/baz` are one path; Google's matcher differs here).
//!
//! Matching costs at most a few passes over the path per rule (each `*`-separated segment
//! is found with `memmem`, leftmost first, which is exact for these patterns), so a
//! hostile file of 500 KiB cannot make a check quadratic in the file.

use std::time::Duration;

/// The bytes of a file that are parsed (RFC 9309 §2.5: at least 500 kibibytes).
pub const MAX_BYTES: usize = 500 * 1024;

/// The longest `Crawl-delay` honoured (DESIGN §13).
pub const MAX_CRAWL_DELAY: Duration = Duration::from_secs(60);

/// Characters of a rule line and a user-agent value kept for the refusal's wording.
const SHOWN_RULE: usize = 120;
const SHOWN_AGENT: usize = 60;

/// The rules that apply to one product token, from one file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Rules {
    rules: Vec<Rule>,
    /// The user-agent value of the group that applies, as written (for the wording).
    agent: String,
    crawl_delay: Option<Duration>,
}

#[derive(Debug, Clone, PartialEq)]
struct Rule {
    allow: bool,
    /// Normalised, `*` and a final `$` kept as written.
    pattern: Vec<u8>,
    /// The line as written, comment removed, trimmed, cut to [`SHOWN_RULE`] characters.
    written: String,
}

/// What the rules say of one path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Allowed,
    /// The group's user-agent value and the deciding rule, both as written.
    Disallowed {
        agent: String,
        rule: String,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    UserAgent,
    Allow,
    Disallow,
    CrawlDelay,
    Other,
}

fn key_of(k: &[u8]) -> Key {
    let k = k.to_ascii_lowercase();
    match k.as_slice() {
        b"user-agent" | b"useragent" | b"user agent" => Key::UserAgent,
        b"allow" => Key::Allow,
        b"disallow" | b"dissallow" | b"dissalow" | b"disalow" | b"diasllow" | b"disallaw" => {
            Key::Disallow
        }
        b"crawl-delay" | b"crawldelay" => Key::CrawlDelay,
        _ => Key::Other,
    }
}

/// One line split into key and value, or None for a blank or comment-only line. The colon
/// may be left out when whitespace separates the two (`disallow /x`).
fn split_line(line: &[u8]) -> Option<(Key, &[u8], &[u8])> {
    let line = match memchr::memchr(b'#', line) {
        Some(i) => &line[..i],
        None => line,
    };
    let line = line.trim_ascii();
    if line.is_empty() {
        return None;
    }
    let (k, v) = match memchr::memchr(b':', line) {
        Some(i) => (&line[..i], &line[i + 1..]),
        None => {
            let i = line.iter().position(u8::is_ascii_whitespace)?;
            (&line[..i], &line[i..])
        }
    };
    Some((key_of(k.trim_ascii()), v.trim_ascii(), line))
}

/// `s` cut to `max` characters, lossily decoded.
fn shown(bytes: &[u8], max: usize) -> String {
    let s = String::from_utf8_lossy(bytes);
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s.into_owned(),
    }
}

/// The product token a user-agent line names: its value up to the first character outside
/// `[A-Za-z_-]` (`FooBot/2.1` names `FooBot`), or `*`.
fn product_token(value: &[u8]) -> &[u8] {
    if value.first() == Some(&b'*') {
        return b"*";
    }
    let end = value
        .iter()
        .position(|b| !(b.is_ascii_alphabetic() || *b == b'_' || *b == b'-'))
        .unwrap_or(value.len());
    &value[..end]
}

fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

/// A path or pattern in the one form both are compared in (see the module's notes).
pub fn normalise(raw: &[u8]) -> Vec<u8> {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let b = raw[i];
        if b == b'%' {
            if let (Some(h), Some(l)) = (
                raw.get(i + 1).copied().and_then(hex),
                raw.get(i + 2).copied().and_then(hex),
            ) {
                let v = h * 16 + l;
                if is_unreserved(v) {
                    out.push(v);
                } else {
                    out.extend_from_slice(&[b'%', HEX[h as usize], HEX[l as usize]]);
                }
                i += 3;
                continue;
            }
        }
        if b <= b' ' || b >= 0x7f {
            out.extend_from_slice(&[b'%', HEX[(b >> 4) as usize], HEX[(b & 15) as usize]]);
        } else {
            out.push(b);
        }
        i += 1;
    }
    out
}

/// Does `pattern` (normalised) match `path` (normalised) from its start?
fn matches(path: &[u8], pattern: &[u8]) -> bool {
    let (pattern, anchored) = match pattern.strip_suffix(b"$") {
        Some(p) => (p, true),
        None => (pattern, false),
    };
    let mut segments = pattern.split(|b| *b == b'*');
    let first = segments.next().unwrap_or_default();
    if !path.starts_with(first) {
        return false;
    }
    let mut pos = first.len();
    let rest: Vec<&[u8]> = segments.collect();
    let Some((last, middle)) = rest.split_last() else {
        return !anchored || path.len() == pos;
    };
    for seg in middle {
        match memchr::memmem::find(&path[pos..], seg) {
            Some(i) => pos += i + seg.len(),
            None => return false,
        }
    }
    if anchored {
        path.len() >= pos + last.len() && path.ends_with(last)
    } else {
        memchr::memmem::find(&path[pos..], last).is_some()
    }
}

/// Lines of `body`, ending at LF, CR or CRLF.
fn lines(body: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = body;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = rest
            .iter()
            .position(|b| *b == b'\n' || *b == b'\r')
            .unwrap_or(rest.len());
        let line = &rest[..end];
        let mut next = end;
        if rest.get(next) == Some(&b'\r') {
            next += 1;
        }
        if end == next || rest.get(next) == Some(&b'\n') {
            next += 1;
        }
        rest = rest.get(next..).unwrap_or_default();
        Some(line)
    })
}

/// The part of a file that is parsed: its first [`MAX_BYTES`], and when it is longer, up to
/// the last line break within them (a line cut in two could read as a broader rule:
/// `Disallow: /private-area` cut to `Disallow: /p`).
pub fn parsed_part(body: &[u8]) -> &[u8] {
    if body.len() <= MAX_BYTES {
        return body;
    }
    let head = &body[..MAX_BYTES];
    match head.iter().rposition(|b| *b == b'\n' || *b == b'\r') {
        Some(i) => &head[..=i],
        None => &[],
    }
}

#[derive(Default)]
struct Group {
    /// The user-agent values, as written.
    agents: Vec<Vec<u8>>,
    rules: Vec<Rule>,
    crawl_delay: Option<Duration>,
}

fn crawl_delay(value: &[u8]) -> Option<Duration> {
    let v: f64 = std::str::from_utf8(value).ok()?.trim().parse().ok()?;
    (v.is_finite() && v >= 0.0).then(|| Duration::from_secs_f64(v.min(60.0)))
}

impl Rules {
    /// No rules: everything is allowed (a 4xx, an empty file, no group for us).
    pub fn allow_all() -> Rules {
        Rules::default()
    }

    /// The rules of `body` (its [`parsed_part`]) for the product `token`.
    pub fn parse(body: &[u8], token: &str) -> Rules {
        let body = parsed_part(body);
        let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
        let mut groups: Vec<Group> = Vec::new();
        // The current group has had a member line (a rule or a crawl-delay): a user-agent
        // line now starts a new group.
        let mut had_member = true;
        for line in lines(body) {
            let Some((key, value, written)) = split_line(line) else {
                continue;
            };
            match key {
                Key::UserAgent => {
                    if had_member || groups.is_empty() {
                        groups.push(Group::default());
                        had_member = false;
                    }
                    if let Some(g) = groups.last_mut() {
                        g.agents.push(value.to_vec());
                    }
                }
                Key::Allow | Key::Disallow => {
                    had_member = true;
                    let Some(g) = groups.last_mut() else {
                        continue;
                    };
                    if value.is_empty() {
                        continue;
                    }
                    g.rules.push(Rule {
                        allow: key == Key::Allow,
                        pattern: normalise(value),
                        written: shown(written, SHOWN_RULE),
                    });
                }
                Key::CrawlDelay => {
                    had_member = true;
                    if let Some(g) = groups.last_mut() {
                        g.crawl_delay = g.crawl_delay.or_else(|| crawl_delay(value));
                    }
                }
                Key::Other => {}
            }
        }
        let ours = |v: &Vec<u8>| {
            let t = product_token(v);
            t != b"*" && !t.is_empty() && t.eq_ignore_ascii_case(token.as_bytes())
        };
        let star = |v: &Vec<u8>| product_token(v) == b"*";
        let chosen: Vec<&Group> = {
            let mine: Vec<&Group> = groups
                .iter()
                .filter(|g| g.agents.iter().any(ours))
                .collect();
            if mine.is_empty() {
                groups
                    .iter()
                    .filter(|g| g.agents.iter().any(star))
                    .collect()
            } else {
                mine
            }
        };
        let agent = chosen
            .first()
            .and_then(|g| g.agents.iter().find(|a| ours(a)).or(g.agents.first()))
            .map(|a| shown(a, SHOWN_AGENT))
            .unwrap_or_default();
        Rules {
            rules: chosen
                .iter()
                .flat_map(|g| g.rules.iter().cloned())
                .collect(),
            crawl_delay: chosen.iter().find_map(|g| g.crawl_delay),
            agent,
        }
    }

    /// The verdict for a URL's path and query (`/a/b?c`), as the URL gives them.
    pub fn check(&self, path_and_query: &str) -> Verdict {
        let path = normalise(path_and_query.as_bytes());
        if path == b"/robots.txt" {
            return Verdict::Allowed;
        }
        // Longest pattern wins; on a tie, allow.
        let best = self
            .rules
            .iter()
            .filter(|r| matches(&path, &r.pattern))
            .max_by_key(|r| (r.pattern.len(), r.allow));
        match best {
            Some(r) if !r.allow => Verdict::Disallowed {
                agent: self.agent.clone(),
                rule: r.written.clone(),
            },
            _ => Verdict::Allowed,
        }
    }

    /// The group's `Crawl-delay`, at most [`MAX_CRAWL_DELAY`].
    pub fn crawl_delay(&self) -> Option<Duration> {
        self.crawl_delay.map(|d| d.min(MAX_CRAWL_DELAY))
    }
}

#[cfg(test)]
#[path = "rules_tests.rs"]
mod tests;
