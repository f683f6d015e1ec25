//! Redaction: the one module that decides which bytes of outgoing text are secrets.
//!
//! Everything `vetch` prints (the receipt's `url`, every attempt `detail`, the failure line,
//! the returned page text and every stderr diagnostic) passes through a [`Redactor`] before
//! it leaves the process. It knows three kinds of secret:
//!
//! - **literal secrets**: every value expanded from `${NAME}` in the config, registered with
//!   [`Redactor::add_secret`] and replaced wherever it occurs, raw or in any encoding a URL,
//!   JSON or HTML would give it;
//! - **token shapes**: cloud, VCS, chat and payment API keys, JWTs, `Bearer`/`Basic`
//!   credentials, PEM private keys;
//! - **positions**: the password of `user:pass@host`, the values of sensitive URL query and
//!   fragment parameters, sensitive header values and `name = value` assignments whose name
//!   is sensitive.
//!
//! Every text is judged as a reader reads it: when it holds an escape, a character no
//! reader sees or an inline tag inside a word, the reader's view (`escapes::View`) is
//! matched first and a secret found there is replaced whole in the text as written, the
//! invisible split included; then the text as written is scanned.
//!
//! Two entry points, one marker each: [`Redactor::redact_text`] writes [`TEXT_MARKER`]
//! (`[REDACTED]`), [`Redactor::redact_url`] writes the URL-safe [`URL_MARKER`] (`REDACTED`) so
//! that a URL stays a parseable URL. Names, `Bearer `/`Basic ` schemes, header names and PEM
//! BEGIN/END lines are kept, so a reader still sees *what* was hidden.
//!
//! What this module must never do:
//! - let a registered secret or a recognised token through, whatever text touches it;
//! - change ordinary content: prose, commit SHAs, UUIDs, checksums, CSS colours, base64 data
//!   URIs, version strings, harmless query strings and placeholders such as `YOUR_API_KEY`
//!   come out byte for byte (over-redaction corrupts the content the user asked for);
//! - panic, on any input (every slice is taken at a match boundary or an ASCII byte, and
//!   checked with `str::get`);
//! - print a registered secret through `Debug`;
//! - change its own output: redacting twice gives the same bytes as redacting once.
//!
//! Speed: `redact_text` makes one forward sweep over the text: one combined regex for every
//! shape (no capture groups, so the lazy DFA runs), classifying each rare match with a few
//! lines of byte logic, interleaved with one Aho-Corasick matcher for the registered
//! literals. Output is written once; only the few kilobytes around each change are swept
//! again (see `scan`), which is what makes redaction idempotent.

use std::borrow::Cow;
use std::fmt;
use std::sync::{Arc, LazyLock};

use aho_corasick::{AhoCorasick, MatchKind};
use regex::{Regex, RegexBuilder};

pub mod controls;
mod escapes;
mod prose;
mod rules;
pub mod unseen;

pub use rules::{parse_gitleaks_rules, ExtraRule, RuleError};

/// The marker [`Redactor::redact_text`] writes in place of a secret.
pub const TEXT_MARKER: &str = "[REDACTED]";
/// The marker [`Redactor::redact_url`] writes: URL-safe, so the result still parses.
pub const URL_MARKER: &str = "REDACTED";
/// Literal secrets shorter than this many characters are not registered: a short value
/// (`admin`, `1234`, `test`) occurs in ordinary pages by chance, and replacing it everywhere
/// would corrupt the content while hiding almost nothing (a value that short is guessable).
pub const MIN_SECRET_LEN: usize = 6;

/// How far (bytes) a classifier looks around a match. Bounds the work per match.
const NAME_LOOKBACK: usize = 128;
const URL_LOOKBACK: usize = 4096;
const VALUE_MAX: usize = 8192;
const PEM_MAX: usize = 16 * 1024;

/// The registry of literal secrets plus the compiled literal matcher.
///
/// Cheap to create ([`Redactor::new`] allocates nothing: the token-shape regex is a
/// process-wide `static`), cheap to clone (the matcher is shared), `Send + Sync`.
/// `Debug` prints only counts, never a secret.
#[derive(Clone, Default)]
pub struct Redactor {
    /// Every registered form (raw, percent-encoded, JSON- and HTML-escaped) of every secret.
    patterns: Vec<String>,
    /// Number of distinct secrets registered (for `Debug`).
    secrets: usize,
    /// Leftmost-longest matcher over `patterns`, built on first use after `add_secret`
    /// (so that registering many secrets builds it once). `None` inside while no secret is
    /// registered (or if building failed, in which case a slow fallback runs).
    matcher: std::sync::OnceLock<Option<Arc<AhoCorasick>>>,
    /// Operator rules (`[redaction] extra_rules`), applied after the built-in families.
    rules: Arc<Vec<ExtraRule>>,
}

impl fmt::Debug for Redactor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Redactor")
            .field("secrets", &self.secrets)
            .field("forms", &self.patterns.len())
            .field("extra_rules", &self.rules.len())
            .finish_non_exhaustive()
    }
}

impl Redactor {
    /// A redactor with no literal secrets (token shapes and positions are always on).
    pub fn new() -> Self {
        Self::default()
    }

    /// Register a literal secret (a value expanded from `${NAME}` in config). Also registers
    /// its percent-encoded forms (every encode set a URL library uses, upper- and lower-case
    /// hex, form encoding), its JSON-escaped forms (plain, `\/`, `\uXXXX`) and its
    /// HTML-escaped forms.
    ///
    /// Values shorter than [`MIN_SECRET_LEN`] characters are ignored: they would match
    /// ordinary words and numbers in pages and corrupt them, and hide almost nothing. A value
    /// that is part of a marker (`REDACTED`) is ignored too: it could never be hidden.
    pub fn add_secret(&mut self, value: &str) {
        let mut added = false;
        let trimmed = value.trim();
        for candidate in [value, trimmed] {
            if candidate.chars().count() < MIN_SECRET_LEN
                || TEXT_MARKER.contains(candidate)
                || URL_MARKER.contains(candidate)
            {
                continue;
            }
            for form in encodings(candidate) {
                if form.chars().count() >= MIN_SECRET_LEN && !self.patterns.contains(&form) {
                    self.patterns.push(form);
                    added = true;
                }
            }
            if candidate == trimmed {
                break;
            }
        }
        if added {
            self.secrets += 1;
            self.matcher = std::sync::OnceLock::new();
        }
    }

    /// The literal matcher, built the first time it is needed after a change.
    fn matcher(&self) -> Option<&AhoCorasick> {
        self.matcher
            .get_or_init(|| {
                if self.patterns.is_empty() {
                    return None;
                }
                AhoCorasick::builder()
                    .match_kind(MatchKind::LeftmostLongest)
                    .build(&self.patterns)
                    .ok()
                    .map(Arc::new)
            })
            .as_deref()
    }

    /// Add operator rules (see [`parse_gitleaks_rules`]); they apply wherever the built-in
    /// families do, after them.
    pub fn add_rules(&mut self, rules: Vec<ExtraRule>) {
        if !rules.is_empty() {
            Arc::make_mut(&mut self.rules).extend(rules);
        }
    }

    /// A copy that also treats the secrets carried by `url` (its password and the values
    /// of its sensitive query and fragment parameters) as literal secrets. A lookup uses it
    /// so that a key the caller put in the URL is scrubbed in every encoding a provider may
    /// echo it back in, not only where its parameter name is still visible.
    pub fn with_url_secrets(&self, url: &str) -> Redactor {
        // Build the matcher before copying, so that every copy shares it.
        let _ = self.matcher();
        let mut r = self.clone();
        if let Ok(u) = url::Url::parse(url) {
            if let Some(p) = u.password() {
                let p = percent_decode(p);
                if secret_like_value(&p) {
                    r.add_secret(&p);
                }
            } else if token_like(&percent_decode(u.username())) {
                // `https://TOKEN@host`: a user name that is a token is one.
                r.add_secret(&percent_decode(u.username()));
            }
            // Each value is registered as written, percent-decoded, and form-decoded (`+`
            // as a space): a provider may echo any of them, in any encoding.
            for part in [u.query(), u.fragment()].into_iter().flatten() {
                for pair in part.split(['&', ';']) {
                    let Some((k, v)) = pair.split_once('=') else {
                        continue;
                    };
                    let name = percent_decode(k);
                    if !url_param_sensitive(&name, &Norm::new(&name)) {
                        continue;
                    }
                    // Only a value that looks like a secret becomes a literal: `?code=python`
                    // must not scrub every "python" from the page (the value itself is
                    // still hidden wherever it stands as this parameter's value).
                    let decoded = percent_decode(v);
                    if !secret_like_value(&decoded) {
                        continue;
                    }
                    r.add_secret(v);
                    r.add_secret(&percent_decode_keep_plus(v));
                    r.add_secret(&decoded);
                }
            }
        }
        r
    }

    /// Redact free text (page bodies, details, stderr lines): registered literals, token
    /// shapes, URLs inside the text, header values and sensitive assignments. Writes
    /// [`TEXT_MARKER`]. One forward sweep over the text.
    pub fn redact_text(&self, text: &str) -> String {
        self.redact_str(text).into_owned()
    }

    /// [`redact_text`](Self::redact_text) without the copy: the text itself, borrowed,
    /// when nothing in it is a secret (the common case for the many short texts of a page).
    pub fn redact_text_cow<'t>(&self, text: &'t str) -> Cow<'t, str> {
        self.redact_str(text)
    }

    /// Redact one URL: the password in userinfo, the values of sensitive query and fragment
    /// parameters (names kept, whatever the value's shape), plus anything
    /// [`redact_text`](Self::redact_text) would catch. Writes [`URL_MARKER`]; the result still
    /// parses as a URL when the input did, and keeps the input's bytes everywhere else (no
    /// normalisation). A string that does not parse as a URL is redacted as text.
    pub fn redact_url(&self, url: &str) -> String {
        let Ok(parsed) = url::Url::parse(url) else {
            // Not a URL (a password with an unencoded `#`, `/` or `?` breaks parsing): hide
            // whatever stands between `scheme://user:` and the host's `@`, then redact as text.
            return self.redact_text(&unparsed_userinfo(url));
        };
        // Literals and shapes, then structure. A URL is short, so the round is repeated
        // until nothing changes: hiding a value that held a quote or a separator can expose
        // a parameter that the round before could not see, and a second call must find
        // nothing left to do.
        let round = |u: &str| -> String {
            let viewed = self.view_pass(u, URL_MARKER);
            let shapes = self.scan_all(viewed.as_deref().unwrap_or(u), URL_MARKER);
            redact_url_parts(&shapes, URL_MARKER).into_owned()
        };
        let mut out = round(url);
        for _ in 0..8 {
            let again = round(&out);
            if again == out {
                break;
            }
            out = again;
        }
        if url::Url::parse(&out).is_ok() {
            return out;
        }
        url_fallback(&parsed)
    }

    /// Redact serialized JSON (a receipt, an MCP message) and keep it valid JSON: every
    /// string (keys included) goes through [`redact_text`](Self::redact_text), a string value
    /// under a sensitive key (`"password"`, `"Authorization"`, `"Cookie"`, ...) is judged as an
    /// assignment, and numbers, booleans and the layout (compact or pretty, key order) are
    /// kept. Input that is not JSON is redacted as text.
    pub fn redact_json_text(&self, json: &str) -> String {
        let Ok(mut value) = serde_json::from_str::<serde_json::Value>(json) else {
            return self.redact_text(json);
        };
        self.redact_json_value(&mut value);
        let body = json.trim();
        let printed = if body.contains('\n') {
            serde_json::to_string_pretty(&value)
        } else {
            serde_json::to_string(&value)
        };
        match printed {
            Ok(p) => {
                let lead = &json[..json.len() - json.trim_start().len()];
                let trail = &json[json.trim_end().len()..];
                format!("{lead}{p}{trail}")
            }
            Err(_) => self.redact_text(json),
        }
    }

    /// Redact every string inside a JSON value in place (see
    /// [`redact_json_text`](Self::redact_json_text)).
    pub fn redact_json_value(&self, value: &mut serde_json::Value) {
        self.redact_json_value_keeping(value, None);
    }

    /// [`redact_json_value`](Self::redact_json_value), leaving every string value equal to
    /// `keep` as it is: a window of content that was redacted in the context of the whole
    /// content. Judged again alone, its cut ends could read as the start or the end of a
    /// token that the content does not hold (`sk_live_…` cut out of `xsk_live_…`), and the
    /// window would no longer be its slice of the content.
    pub fn redact_json_value_keeping(&self, value: &mut serde_json::Value, keep: Option<&str>) {
        use serde_json::Value;
        match value {
            Value::String(s) => {
                if keep == Some(s.as_str()) {
                    return;
                }
                if let Cow::Owned(r) = self.redact_str(s) {
                    *s = r;
                }
            }
            Value::Array(items) => items
                .iter_mut()
                .for_each(|v| self.redact_json_value_keeping(v, keep)),
            Value::Object(map) => {
                let old = std::mem::take(map);
                for (key, mut v) in old {
                    if let Value::String(s) = &mut v {
                        if keep != Some(s.as_str()) {
                            if let Some(r) = redact_pair_value(&key, s) {
                                *s = r;
                            }
                        }
                    }
                    self.redact_json_value_keeping(&mut v, keep);
                    map.insert(self.redact_text(&key), v);
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }

    /// Redact a text that was cut short (a body stopped at the byte cap): everything
    /// [`redact_text`](Self::redact_text) does, plus the recognisable start of a secret at the
    /// very end. A token of a known family cut after its prefix (`...ghp_k3VZ`), the value of
    /// a sensitive assignment cut mid-way, or the first characters (at least
    /// [`MIN_SECRET_LEN`]) of a registered secret are replaced by [`TEXT_MARKER`]. Call it
    /// instead of `redact_text` when the content is truncated.
    pub fn redact_truncated_tail(&self, text: &str) -> String {
        let whole = self.redact_text(text);
        // Trailing whitespace (a converter's final newline) is not where the cut was.
        let body_len = whole.trim_end().len();
        if body_len < whole.len() {
            let (body, ws) = whole.split_at(body_len);
            return format!("{}{ws}", self.redact_cut_tail(body.to_string()));
        }
        self.redact_cut_tail(whole)
    }

    /// [`redact_truncated_tail`](Self::redact_truncated_tail) on an already redacted text
    /// that ends where the cut was.
    fn redact_cut_tail(&self, whole: String) -> String {
        let ends_in_token = whole.ends_with(|c: char| {
            c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '+' | '/' | '=')
        });
        if !ends_in_token || whole.ends_with(TEXT_MARKER) {
            return whole;
        }
        // A registered secret whose head ends the text.
        let cut = self
            .patterns
            .iter()
            .filter_map(|p| {
                (MIN_SECRET_LEN..p.len())
                    .rev()
                    .filter(|&k| p.is_char_boundary(k))
                    .find(|&k| whole.ends_with(&p[..k]))
            })
            .max();
        if let Some(k) = cut {
            return format!("{}{TEXT_MARKER}", &whole[..whole.len() - k]);
        }
        // Let the text run on with characters of a token's alphabet: if the redactor then
        // hides a span that covers the join, the tail was the start of a secret.
        const RUN_ON: [&str; 2] = [
            "aZ3kQ9mX2pL7vB4nR8tY1wE6uI0oS5dFgH2jK4lZ6xC8vB0nM3qW5eR7tY9uI1oP3aS5dF7gH9jK1lZ3x",
            "0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b",
        ];
        for tail in RUN_ON {
            let probe = self.redact_text(&format!("{whole}{tail}"));
            let Some(ms) = probe.rfind(TEXT_MARKER) else {
                continue;
            };
            let after = &probe[ms + TEXT_MARKER.len()..];
            // The marker covers the join and some of the token's body (not only a prefix
            // such as `ghp_` or `sk-`, which hides nothing).
            let covered = whole.get(ms..).unwrap_or_default();
            let body_cut = covered.ends_with(|c: char| c.is_ascii_alphanumeric());
            if after.len() < tail.len() && tail.ends_with(after) && body_cut {
                if let Some(head) = probe.get(..ms) {
                    if whole.starts_with(head) {
                        return format!("{head}{TEXT_MARKER}");
                    }
                }
            }
        }
        whole
    }

    fn redact_str<'t>(&self, text: &'t str) -> Cow<'t, str> {
        // The reader's view first: what the text says once Markdown, JSON, HTML and
        // percent escapes are undone and every character and inline tag no reader sees is
        // dropped (built only when the text holds one). A token split by any of them is
        // matched there whole, before the text as written is scanned: a match on the text
        // as written would stop at the split, and the marker it leaves would hide the
        // token's first half from the view while its second half stays readable. Then the
        // text is scanned as written, and the two alternate (a marker can expose a
        // neighbour) until the view finds nothing more.
        let mut cur = Cow::Borrowed(text);
        for round in 0..4 {
            let by_view = self.view_pass(&cur, TEXT_MARKER);
            let changed = by_view.is_some();
            if let Some(v) = by_view {
                cur = Cow::Owned(v);
            }
            if round > 0 && !changed {
                break;
            }
            let scanned = match self.scan_all(&cur, TEXT_MARKER) {
                Cow::Owned(s) => Some(s),
                Cow::Borrowed(_) => None,
            };
            if let Some(s) = scanned {
                cur = Cow::Owned(s);
            }
        }
        cur
    }

    /// What the reader's view of `text` shows to be a secret, replaced in `text` itself
    /// (whole escapes and the unseen characters inside a token included); `None` when the
    /// text has no view or its view holds no secret.
    fn view_pass(&self, text: &str, marker: &str) -> Option<String> {
        let view = escapes::View::build(text)?;
        let mut spans = Vec::new();
        let _ = sweep(&view.text, marker, self.matcher(), None, Some(&mut spans));
        if !self.rules.is_empty() {
            spans.extend(self.rule_spans(&view.text));
            spans.sort_unstable();
        }
        if spans.is_empty() {
            return None;
        }
        let mut out = Out::new(text);
        for (a, b) in spans {
            let (a, b) = (view.src_pos(a), view.src_pos(b));
            // The text between the inline tags the view removed is replaced piece by
            // piece, the tags kept: the markup stays balanced, and a quote inside a tag's
            // attributes is never swallowed.
            let mut from = a;
            let tags = view.tags_in(a, b);
            let ends = tags.iter().copied().chain([(b, b)]);
            for (to, next) in ends {
                // Never across a quote as written: it may close a JSON string.
                if to > from && !text.get(from..to).is_some_and(unescaped_quote) {
                    out.replace(from, to, marker);
                }
                from = next;
            }
        }
        match out.finish() {
            Cow::Owned(s) => Some(s),
            Cow::Borrowed(_) => None,
        }
    }

    /// Literals and shapes in one forward sweep, then the operator rules.
    fn scan_all<'t>(&self, text: &'t str, marker: &str) -> Cow<'t, str> {
        let shapes = self.scan_shapes(text, marker);
        if self.rules.is_empty() {
            return shapes;
        }
        let spans = self.rule_spans(&shapes);
        if spans.is_empty() {
            return shapes;
        }
        let mut out = Out::new(&shapes);
        for (a, b) in spans {
            out.replace(a, b, marker);
        }
        Cow::Owned(out.finish().into_owned())
    }

    /// Where the operator rules find secrets in `text`: sorted, without overlaps.
    fn rule_spans(&self, text: &str) -> Vec<(usize, usize)> {
        let mut spans = Vec::new();
        if self.rules.is_empty() {
            return spans;
        }
        let lower = text.to_ascii_lowercase();
        for r in self.rules.iter() {
            r.spans(text, &lower, &mut spans);
        }
        spans.sort_unstable();
        let mut merged: Vec<(usize, usize)> = Vec::with_capacity(spans.len());
        for (a, b) in spans {
            match merged.last_mut() {
                Some(last) if a <= last.1 => last.1 = last.1.max(b),
                _ => merged.push((a, b)),
            }
        }
        merged
    }

    fn scan_shapes<'t>(&self, text: &'t str, marker: &str) -> Cow<'t, str> {
        if self.matcher().is_none() && !self.patterns.is_empty() {
            // The matcher failed to build (never seen in practice): slow but safe.
            let mut lit = text.to_string();
            for p in &self.patterns {
                if lit.contains(p.as_str()) {
                    lit = lit.replace(p.as_str(), marker);
                }
            }
            return Cow::Owned(scan(&lit, marker, None).into_owned());
        }
        scan(text, marker, self.matcher())
    }
}

// ---------------------------------------------------------------------------------------
// The combined token-shape regex.
// ---------------------------------------------------------------------------------------

/// The token shapes: one alternation, no capture groups, ASCII-only classes, so the lazy
/// DFA scans it in one pass. Each alternative starts with something a classifier can
/// recognise from the matched text. Order matters (leftmost-first).
const PARTS: &[&str] = &[
    // PEM private key header (body and END line handled by the classifier).
    r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----",
    // user:password@ in a URL authority (RFC 3986 userinfo characters).
    r"://[A-Za-z0-9._~%!$&'()*+,;=-]*:[A-Za-z0-9._~%!$&'()*+,;=:-]+@",
    // A lone user name that may be a token (`https://TOKEN@host`).
    r"://[A-Za-z0-9._~%-]{16,256}@",
    // Token shapes. Unbounded bodies only where the classifier never declines (a declined
    // match is scanned again from its second character); `sk-` is extended by its
    // classifier.
    r"gh[pousr]_[A-Za-z0-9]{36,}",
    r"github_pat_[A-Za-z0-9_]{22,}",
    r"glpat-[A-Za-z0-9_-]{20,}",
    r"xox[abprse]-[A-Za-z0-9-]{10,}",
    r"(?-u:\b)[sr]k_(?:live|test)_[A-Za-z0-9]{10,}",
    r"whsec_[A-Za-z0-9]{24,}",
    r"(?-u:\b)sk-[A-Za-z0-9_-]{20}",
    r"(?-u:\b)AIza[0-9A-Za-z_-]{35}",
    r"hf_[A-Za-z0-9]{30,}",
    r"npm_[A-Za-z0-9]{36,}",
    r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}",
    r"(?-u:\b)(?:SK|AC)[0-9a-f]{32}(?-u:\b)",
    r"(?-u:\b)(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?-u:\b)",
    r"eyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*",
    r"GOCSPX-[A-Za-z0-9_-]{28}",
    r"ya29\.[A-Za-z0-9_-]{30,}",
    r"hooks\.slack\.com/services/[A-Za-z0-9/]{20,}",
    // Vendor tokens with a distinctive prefix or structure (see docs/reference.md for the
    // list). Bounded bodies: the classifier runs each on to the end of its token.
    r"do[opr]_v1_[a-f0-9]{64}",
    r"(?-u:\b)key-[0-9a-f]{32}",
    r":AA[A-Za-z0-9_-]{33}",
    r"discord(?:app)?\.com/api/webhooks/[0-9]{17,20}/[A-Za-z0-9_-]{60}",
    r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50}",
    r"gsk_[A-Za-z0-9]{52}",
    r"gl(?:dt|rt|ptt|cbt|imt|ft|soat|agent|oas|ffct)-[A-Za-z0-9_-]{20}",
    r"GR1348941[A-Za-z0-9_-]{20}",
    r"api_org_[A-Za-z0-9]{34}",
    r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}",
    r"lin_(?:api|oauth)_[A-Za-z0-9]{40}",
    r"(?-u:\b)secret_[A-Za-z0-9]{43}",
    r"ntn_[0-9]{11}[A-Za-z0-9]{32}",
    r"dp\.(?:pt|st|ct|sa|scim|audit)\.[A-Za-z0-9]{40}",
    r"hvs\.[A-Za-z0-9_-]{90}",
    r"hvb\.[A-Za-z0-9_-]{138}",
    r"PMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}",
    r"(?-u:\b)pul-[a-f0-9]{40}",
    r"\.atlasv1\.[A-Za-z0-9_=-]{60}",
    r"(?-u:\b)dapi[a-f0-9]{32}",
    r"(?-u:\b)EAAA[A-Za-z0-9_-]{60}",
    r"sq0(?:atp|csp)-[A-Za-z0-9_-]{22}",
    r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9=._-]{32}",
    r"sbp_(?:oauth_)?[a-f0-9]{40}",
    r"sb_secret_[A-Za-z0-9_-]{20}",
    r"ATATT3[A-Za-z0-9_=-]{60}",
    r"sntry[su]_[A-Za-z0-9+/=_-]{40}",
    r"HRKU-[A-Za-z0-9_-]{60}",
    r"xapp-[0-9]-[A-Za-z0-9-]{20}",
    r"AGE-SECRET-KEY-1[0-9A-Z]{58}",
    r"gl(?:sa|c)_[A-Za-z0-9_+/]{32}",
    r"NRAK-[A-Z0-9]{27}",
    r"pnu_[A-Za-z0-9]{36}",
    r"rubygems_[a-f0-9]{48}",
    r"xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}",
    r"shippo_(?:live|test)_[a-fA-F0-9]{40}",
    r"dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}",
    r"pplx-[A-Za-z0-9]{48}",
    r"CFPAT-[A-Za-z0-9_-]{43}",
    r"FLWSECK(?:_TEST)?-[a-fA-F0-9]{32}-X",
    r"EZ[AT]K[A-Za-z0-9]{54}",
    r"(?-u:\b)LTAI[A-Za-z0-9]{20}",
    r"duffel_(?:test|live)_[A-Za-z0-9_=-]{43}",
    r"fo1_[A-Za-z0-9_-]{43}",
    r"rdme_[a-z0-9]{70}",
    r"(?-u:\b)AKCp[A-Za-z0-9]{69}",
    r"ops_eyJ[A-Za-z0-9+/=_-]{100}",
    r"(?-u:\b)xai-[A-Za-z0-9]{80}",
    r"(?-u:\b)pat[A-Za-z0-9]{14}\.[a-f0-9]{64}",
    // Bearer / Basic credentials (the classifier reads the whole credential). Case matters
    // here: lower-case "bearer" and "basic" are English words.
    r"(?:Bearer|BEARER|bearer|Basic|BASIC)[ \t]+[A-Za-z0-9._~+/=-]{8}",
    // A sensitive word ending a name, then `=` or `:` (URL parameters, assignments,
    // headers). The classifier reads the name backwards and the value forwards.
    r#"(?i-u:pass(?:word|wd|phrase)?|pwd|secret|token|key|auth(?:orization)?|cookie|credentials?|session(?:[_-]?id)?|sessid|sid|sig(?:nature)?|state|code|ticket|otp|hmac|verifier|assertion|saml(?:response|request))\\?["']?(?:\[[0-9]{0,3}\])?\]?[ \t]*(?:[:=]|%3[dD])"#,
    // A sensitive word in prose, then blanks ("the password is …", "secret wJal…"); after
    // the assignment above, which wins where both match. The classifier reads the words.
    r"(?i-u:pass(?:word|wd|phrase)|secret|token|key|credentials?)[ \t]+",
    // curl's basic-auth flag (`curl … -u USER:PASSWORD`, `--user=…`).
    r"[ \t](?:-u|--user)(?:=|[ \t]{0,5})",
];

/// `PARTS[VENDOR]`: the vendor tokens, from `do[opr]_v1_` to `pat...`. Each starts with a
/// literal (case-sensitive, no alternation at the top), and together their long counted
/// bodies are most of what building the regex costs (about three quarters of its 3 ms).
const VENDOR: std::ops::Range<usize> = 20..69;

fn shape_regex<'a>(parts: impl Iterator<Item = &'a str>) -> Regex {
    RegexBuilder::new(&parts.collect::<Vec<_>>().join("|"))
        .size_limit(64 << 20)
        .dfa_size_limit(16 << 20)
        .build()
        .expect("the redaction regex is a valid literal pattern")
}

/// Every shape. Built the first time a text could hold a vendor token (or on
/// [`compile_all_shapes`]); from then on it serves every text.
static HOT: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();

/// Every shape but the vendor tokens: the same alternatives in the same order, less those
/// that cannot match a text without their prefixes. On such a text it finds exactly the
/// matches [`HOT`] finds, and costs a quarter as much to build.
static HOT_LITE: LazyLock<Regex> = LazyLock::new(|| {
    shape_regex(
        PARTS
            .iter()
            .enumerate()
            .filter(|(i, _)| !VENDOR.contains(i))
            .map(|(_, p)| *p),
    )
});

/// Finds the texts that may hold a vendor token: an Aho-Corasick scan for the literals
/// every match of a vendor alternative starts with (see [`leading_literals`]). A literal
/// shorter than [`WEAK_LITERAL`] bytes occurs in prose (`pat` in "path"), so a hit on one
/// is confirmed by that alternative's own regex (small, compiled on first need).
struct VendorScan {
    literals: AhoCorasick,
    /// For each literal, the index of its alternative in `PARTS[VENDOR]`.
    part_of: Vec<usize>,
    /// Per alternative: its shortest literal is weak, so a hit is confirmed.
    weak: Vec<bool>,
    confirm: Vec<std::sync::OnceLock<Option<Regex>>>,
}

const WEAK_LITERAL: usize = 4;

/// `None` if an alternative has no literal start (then the full regex always serves).
static VENDOR_SCAN: LazyLock<Option<VendorScan>> = LazyLock::new(|| {
    let mut literals = Vec::new();
    let mut part_of = Vec::new();
    let mut weak = Vec::new();
    for (i, p) in PARTS[VENDOR].iter().enumerate() {
        let lits = leading_literals(p)?;
        weak.push(lits.iter().any(|l| l.len() < WEAK_LITERAL));
        part_of.extend(std::iter::repeat_n(i, lits.len()));
        literals.extend(lits);
    }
    Some(VendorScan {
        literals: AhoCorasick::new(&literals).ok()?,
        part_of,
        confirm: weak.iter().map(|_| std::sync::OnceLock::new()).collect(),
        weak,
    })
});

/// May a vendor alternative of the shape regex match somewhere in `text`? `false` only
/// when none can: no literal start of any of them occurs (every occurrence is looked at,
/// overlapping ones too), or each one that does is a weak literal whose alternative,
/// compiled alone, matches nowhere in `text`.
fn may_hold_vendor_token(text: &str) -> bool {
    let Some(scan) = &*VENDOR_SCAN else {
        return true;
    };
    let mut confirmed_absent = vec![false; scan.weak.len()];
    for m in scan.literals.find_overlapping_iter(text) {
        let part = scan.part_of[m.pattern().as_usize()];
        if !scan.weak[part] {
            return true;
        }
        if confirmed_absent[part] {
            continue;
        }
        let re = scan.confirm[part].get_or_init(|| {
            RegexBuilder::new(PARTS[VENDOR][part])
                .size_limit(64 << 20)
                .build()
                .ok()
        });
        match re {
            Some(re) if !re.is_match(text) => confirmed_absent[part] = true,
            _ => return true,
        }
    }
    false
}

/// The literal texts one of which every match of `pattern` starts with: its characters up
/// to the first construct that is none of a literal character, an escaped punctuation
/// character, a class of at most four literal characters (`[opr]`) or a group of literal
/// alternatives (`(?:at|ca)`), expanded into every combination (at most 64). A piece
/// made optional or repeated by `?`, `*` or `{` ends the literal before it; one repeated
/// by `+` ends it after it. `None` when that is empty, or the pattern folds case or
/// alternates at the top.
fn leading_literals(pattern: &str) -> Option<Vec<String>> {
    if pattern.contains("(?i") || top_level_alternation(pattern) {
        return None;
    }
    let p = pattern.strip_prefix(r"(?-u:\b)").unwrap_or(pattern);
    let chars: Vec<char> = p.chars().collect();
    let mut outs = vec![String::new()];
    let mut i = 0;
    while i < chars.len() {
        let (alts, next): (Vec<String>, usize) = match chars[i] {
            '\\' => match chars.get(i + 1) {
                Some(&n) if n.is_ascii_punctuation() => (vec![n.to_string()], i + 2),
                _ => break,
            },
            '[' => {
                let Some(close) = chars[i + 1..].iter().position(|&c| c == ']') else {
                    break;
                };
                let members = &chars[i + 1..i + 1 + close];
                if members.is_empty()
                    || members.len() > 4
                    || members.iter().any(|c| !c.is_ascii_alphanumeric())
                {
                    break;
                }
                (members.iter().map(char::to_string).collect(), i + close + 2)
            }
            '(' => {
                if chars.get(i + 1..i + 3) != Some(&['?', ':'][..]) {
                    break;
                }
                let Some(close) = chars[i + 3..].iter().position(|&c| c == ')') else {
                    break;
                };
                let body: String = chars[i + 3..i + 3 + close].iter().collect();
                if !body
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '|' | '_'))
                {
                    break;
                }
                (body.split('|').map(String::from).collect(), i + close + 4)
            }
            '?' | '*' | '{' | '+' | '|' | '^' | '$' | '.' | ')' | ']' => break,
            c => (vec![c.to_string()], i + 1),
        };
        let quantified = chars.get(next).copied();
        if matches!(quantified, Some('?' | '*' | '{')) {
            break;
        }
        if outs.len() * alts.len() > 64 {
            break;
        }
        outs = outs
            .iter()
            .flat_map(|o| alts.iter().map(move |a| format!("{o}{a}")))
            .collect();
        if quantified == Some('+') {
            break;
        }
        i = next;
    }
    (!outs.iter().any(String::is_empty)).then_some(outs)
}

fn top_level_alternation(pattern: &str) -> bool {
    let (mut depth, mut class, mut escaped) = (0i32, false, false);
    for c in pattern.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '[' if !class => class = true,
            ']' if class => class = false,
            '(' if !class => depth += 1,
            ')' if !class => depth -= 1,
            '|' if !class && depth == 0 => return true,
            _ => {}
        }
    }
    false
}

/// The shape regex for `text`: [`HOT`] once built or when `text` holds a vendor prefix,
/// else [`HOT_LITE`], which gives the same matches on it.
fn shapes_for(text: &str) -> &'static Regex {
    if let Some(full) = HOT.get() {
        return full;
    }
    if may_hold_vendor_token(text) {
        HOT.get_or_init(|| shape_regex(PARTS.iter().copied()))
    } else {
        &HOT_LITE
    }
}

/// Build the full shape regex now. For processes that redact many pages (a batch, an MCP
/// server): one regex for everything, and no prefix check before each text.
pub fn compile_all_shapes() {
    HOT.get_or_init(|| shape_regex(PARTS.iter().copied()));
}

// ---------------------------------------------------------------------------------------
// Output builder.
// ---------------------------------------------------------------------------------------

/// Copies the input through, replacing spans. Spans are applied in order; a span that
/// starts before the end of the previous one is skipped (never happens by construction).
struct Out<'t, 'm> {
    text: &'t str,
    /// Registered literal secrets, matched in the same forward sweep as the shapes.
    lits: Option<&'m AhoCorasick>,
    buf: String,
    last: usize,
    changed: bool,
    /// End of a run of `sk-` body characters already judged not a key: every `sk-` that
    /// starts inside it has a body that is a suffix of that run, so it is not a key either.
    /// Keeps `sk-sk-sk-...` linear.
    sk_dead_until: usize,
    /// No `-----END ` occurs in `pem_searched..pem_no_end`: later PEM headers search on from
    /// there. Keeps a page of unterminated BEGIN lines linear.
    pem_searched: usize,
    pem_no_end: usize,
    /// Spans of the output that differ from the input, in order.
    edits: Vec<(usize, usize)>,
    /// The same spans in input offsets.
    src_edits: Vec<(usize, usize)>,
}

impl<'t, 'm> Out<'t, 'm> {
    fn new(text: &'t str) -> Self {
        Self::with_literals(text, None)
    }

    fn with_literals(text: &'t str, lits: Option<&'m AhoCorasick>) -> Self {
        Out {
            text,
            lits,
            buf: String::new(),
            last: 0,
            changed: false,
            sk_dead_until: 0,
            pem_searched: 0,
            pem_no_end: 0,
            edits: Vec::new(),
            src_edits: Vec::new(),
        }
    }

    /// Copy the text up to `start`, then write `with` instead of `start..end`.
    /// The span is kept off JSON escapes and rounded out to char boundaries.
    fn replace(&mut self, start: usize, end: usize, with: &str) {
        let (start, end) = json_safe_span(self.text, start, end);
        let start = ceil_boundary(self.text, start);
        let end = ceil_boundary(self.text, end);
        if start < self.last || end <= start {
            return;
        }
        self.flush_to(start);
        let at = self.buf.len();
        self.buf.push_str(with);
        self.edits.push((at, self.buf.len()));
        self.src_edits.push((start, end));
        self.last = end;
    }

    /// Copy `start..end` through a fresh scan (for parts a classifier keeps but has not
    /// checked, such as the user name of `user:pass@`).
    fn rescan(&mut self, start: usize, end: usize, marker: &str) {
        let start = floor_boundary(self.text, start);
        let end = ceil_boundary(self.text, end);
        if start < self.last || end < start {
            return;
        }
        let Some(part) = self.text.get(start..end) else {
            return;
        };
        if let Cow::Owned(s) = scan(part, marker, self.lits) {
            self.flush_to(start);
            let at = self.buf.len();
            self.buf.push_str(&s);
            self.edits.push((at, self.buf.len()));
            self.src_edits.push((start, end));
            self.last = end;
        }
    }

    fn flush_to(&mut self, pos: usize) {
        if !self.changed {
            self.buf.reserve(self.text.len() + 64);
            self.changed = true;
        }
        if let Some(s) = self.text.get(self.last..pos) {
            self.buf.push_str(s);
        }
        self.last = pos;
    }

    fn finish(mut self) -> Cow<'t, str> {
        if !self.changed {
            return Cow::Borrowed(self.text);
        }
        if let Some(s) = self.text.get(self.last..) {
            self.buf.push_str(s);
        }
        Cow::Owned(self.buf)
    }
}

/// Narrow `start..end` so that it neither begins inside a JSON escape (`\n`, `\u00e9`) nor
/// ends on an escaping backslash: replacing the span then keeps serialized JSON valid, and
/// no escape pair (which other classifiers may read as a quote) is cut in half.
fn json_safe_span(text: &str, mut start: usize, mut end: usize) -> (usize, usize) {
    let b = text.as_bytes();
    let cap = b.len();
    start = start.min(cap);
    end = end.min(cap);
    let odd_before = |i: usize| {
        let mut n = 0;
        while i > n && b[i - n - 1] == b'\\' {
            n += 1;
        }
        n % 2 == 1
    };
    // Inside `\uXXXX`: start after it.
    let mut j = start;
    while j > 0 && start - j < 4 && b[j - 1].is_ascii_hexdigit() {
        j -= 1;
    }
    if j >= 2 && b[j - 1] == b'u' && odd_before(j - 1) {
        start = (j + 4).min(cap);
    } else if odd_before(start) {
        start += 1;
    }
    if end > start && odd_before(end) {
        end -= 1;
    }
    (start, end.max(start))
}

fn floor_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_boundary(s: &str, mut i: usize) -> usize {
    while i < s.len() && !s.is_char_boundary(i) {
        i += 1;
    }
    i.min(s.len())
}

fn next_char(s: &str, i: usize) -> usize {
    ceil_boundary(s, i + 1)
}

// ---------------------------------------------------------------------------------------
// The scan and its classifiers.
// ---------------------------------------------------------------------------------------

/// Redact `text`: one sweep, then re-check the neighbourhood of every change until nothing
/// changes. Hiding a value can remove a quote or a separator that decided a nearby match
/// (a name's start, a URL's `?`, the end of a header line), and redacting the output again
/// must find nothing left to do. Decisions look at most [`SETTLE_BACK`] bytes ahead of a
/// match and [`SETTLE_FWD`] bytes behind it, so only those windows are swept again: with
/// a few secrets on a page the extra work is a few kilobytes.
fn scan<'t>(text: &'t str, marker: &str, lits: Option<&AhoCorasick>) -> Cow<'t, str> {
    let (first, mut edits) = sweep(text, marker, lits, None, None);
    if edits.is_empty() {
        return first;
    }
    let mut cur = first.into_owned();
    for _ in 0..8 {
        let windows = settle_windows(&edits, cur.len());
        let (next, more) = sweep(&cur, marker, lits, Some(&windows), None);
        if more.is_empty() {
            break;
        }
        cur = next.into_owned();
        edits = more;
    }
    Cow::Owned(cur)
}

/// How far before a change a match may start and still have read it (a PEM header looks
/// this far ahead for its END line; values and regex spans less).
const SETTLE_BACK: usize = PEM_MAX + 512;
/// How far after a change a match may start and still have read it (URL context and names
/// look back at most this far).
const SETTLE_FWD: usize = URL_LOOKBACK + NAME_LOOKBACK + 512;

fn settle_windows(edits: &[(usize, usize)], len: usize) -> Vec<(usize, usize)> {
    let mut windows: Vec<(usize, usize)> = Vec::new();
    for &(a, b) in edits {
        let (ws, we) = (a.saturating_sub(SETTLE_BACK), (b + SETTLE_FWD).min(len));
        match windows.last_mut() {
            Some(last) if ws <= last.1 => last.1 = last.1.max(we),
            _ => windows.push((ws, we)),
        }
    }
    windows
}

/// One forward sweep over `text` (or over the given windows of it): the combined regex for
/// the shapes and the literal matcher, each match classified and either replaced or
/// declined. A declined match resumes one character later, so a shape that starts inside
/// it is still found. Returns the output and the spans it changed.
fn sweep<'t>(
    text: &'t str,
    marker: &str,
    lits: Option<&AhoCorasick>,
    windows: Option<&[(usize, usize)]>,
    src_edits: Option<&mut Vec<(usize, usize)>>,
) -> (Cow<'t, str>, Vec<(usize, usize)>) {
    let re = shapes_for(text);
    let whole = [(0, text.len())];
    let windows = windows.unwrap_or(&whole);
    let mut out = Out::with_literals(text, lits);
    let mut lits = lits;
    let mut pos = 0;
    // The next shape match and the next literal match at or after `pos`, kept between
    // turns so that neither search runs over the same bytes twice.
    let mut shape: Option<(usize, usize)> = None;
    let mut lit: Option<(usize, usize)> = None;
    let mut shapes_done = false;
    for &(ws, we) in windows {
        pos = ceil_boundary(text, pos.max(ws));
        let we = we.min(text.len());
        while pos < we {
            if !shapes_done && shape.is_none_or(|(s, _)| s < pos) {
                shape = re.find_at(text, pos).map(|m| (m.start(), m.end()));
                shapes_done = shape.is_none();
            }
            if let Some(ac) = lits {
                if lit.is_none_or(|(s, _)| s < pos) {
                    let input = aho_corasick::Input::new(text).span(pos..text.len());
                    lit = ac.find(input).map(|m| (m.start(), m.end()));
                    if lit.is_none() {
                        lits = None; // none left in the rest of the text
                    }
                }
            }
            let next = match (shape, lit) {
                // A registered secret first: it goes whatever surrounds it.
                (_, Some((ls, le))) if ls < we && shape.is_none_or(|(s, _)| ls <= s) => {
                    out.replace(ls, le, marker);
                    le
                }
                (Some((s, e)), _) if s < we => match classify(&mut out, s, e, marker) {
                    Some(resume) => {
                        let mut r = resume.max(e);
                        // A registered secret cut by that redaction goes whole: its tail
                        // beside a marker must not spell it again.
                        while let Some((_, le)) = lit.filter(|&(ls, le)| ls < r && r < le) {
                            out.replace(r, le, marker);
                            r = le;
                            lit = lits.and_then(|ac| {
                                let input = aho_corasick::Input::new(text).span(r..text.len());
                                ac.find(input).map(|m| (m.start(), m.end()))
                            });
                        }
                        r
                    }
                    None => next_char(text, s),
                },
                _ => break,
            };
            pos = ceil_boundary(text, next.max(pos + 1));
        }
    }
    let edits = std::mem::take(&mut out.edits);
    if let Some(src) = src_edits {
        *src = std::mem::take(&mut out.src_edits);
    }
    (out.finish(), edits)
}

/// Dispatch a match to its family. Returns where scanning resumes after a redaction, or
/// `None` when the match is not a secret.
fn classify(out: &mut Out<'_, '_>, s: usize, e: usize, marker: &str) -> Option<usize> {
    let text = out.text;
    let m = text.get(s..e)?;
    let b = m.as_bytes();
    if b.starts_with(b"://") {
        return userinfo(out, s, e, marker);
    }
    if b.starts_with(b"-----") {
        return pem(out, e, marker);
    }
    if let Some(plen) = bearer_prefix(b) {
        return bearer(out, s, s + plen, marker);
    }
    if b.len() >= 3 && matches!(b[0], b' ' | b'\t') && b[1] == b'-' {
        return prose::curl_user(out, s, e, marker);
    }
    if matches!(b.last(), Some(b' ' | b'\t')) && b[0].is_ascii_alphabetic() {
        return prose::prose(out, s, e, marker);
    }
    if matches!(b.last(), Some(b':' | b'=')) {
        return assignment(out, s, e, marker);
    }
    if b.len() > 3 && b[b.len() - 3..].eq_ignore_ascii_case(b"%3d") {
        return encoded_param(out, s, e, marker);
    }
    token(out, s, e, marker)
}

fn bearer_prefix(b: &[u8]) -> Option<usize> {
    for word in [&b"bearer"[..], &b"basic"[..]] {
        if b.len() > word.len()
            && b[..word.len()].eq_ignore_ascii_case(word)
            && matches!(b[word.len()], b' ' | b'\t')
        {
            return Some(word.len());
        }
    }
    None
}

/// `://user:password@`: the password goes, the user name is scanned like any text.
fn userinfo(out: &mut Out<'_, '_>, s: usize, e: usize, marker: &str) -> Option<usize> {
    let text = out.text;
    let inner = text.get(s + 3..e - 1)?;
    let Some(colon) = inner.find(':') else {
        // `://user@`: the user name goes only when it is a token.
        if !token_like(&percent_decode(inner)) {
            return None;
        }
        out.replace(s + 3, e - 1, marker);
        return Some(e);
    };
    let pw = &inner[colon + 1..];
    if is_placeholder_url(pw) {
        return None;
    }
    let user_start = s + 3;
    let pw_start = user_start + colon + 1;
    out.rescan(user_start, user_start + colon, marker);
    out.replace(pw_start, e - 1, marker);
    Some(e)
}

/// A PEM private key: keep the BEGIN and END lines, replace the body.
fn pem(out: &mut Out<'_, '_>, e: usize, marker: &str) -> Option<usize> {
    let text = out.text;
    let bytes = text.as_bytes();
    let window_end = floor_boundary(text, e.saturating_add(PEM_MAX));
    const END: &str = "-----END ";
    let from = if out.pem_searched <= e && e < out.pem_no_end {
        ceil_boundary(text, out.pem_no_end.saturating_sub(END.len() - 1).max(e))
    } else {
        e
    };
    let found = text.get(from..window_end)?.find(END).map(|i| from + i);
    if found.is_none() {
        out.pem_searched = e;
        out.pem_no_end = window_end;
    }
    // The END line, unless a quote lies between (then BEGIN and END sit in different
    // strings of some serialized document, and the body must not swallow the quotes) or
    // another BEGIN line (then that END closes the later block).
    let end_line = found.filter(|&x| {
        text.get(e..x).is_some_and(|between| {
            !quote_outside_br(between.as_bytes()) && !between.contains("-----BEGIN")
        })
    });
    let body_end = match end_line {
        Some(x) => x,
        None => {
            // Truncated key: take the run of base64, header and line-break characters (a
            // backslash only as the start of an escaped `\n` or `\r` or of a Markdown hard
            // break, a `<` only as the start of a `<br>`).
            let mut i = e;
            while i < window_end {
                let c = bytes[i];
                let br = line_break_at(bytes, i);
                if br > 0 {
                    i += br;
                } else if c.is_ascii_alphanumeric()
                    || matches!(
                        c,
                        b'+' | b'/' | b'=' | b'\r' | b'\n' | b':' | b',' | b' ' | b'\t' | b'-'
                    )
                {
                    i += 1;
                } else {
                    break;
                }
            }
            floor_boundary(text, i.min(window_end))
        }
    };
    let body = text.get(e..body_end)?;
    // A real PEM body starts on the next line (after a newline, an escaped one, a `<br>`
    // or a Markdown hard break).
    let lead = newline_prefix(body);
    if lead == 0 {
        return pem_one_line(out, e, body, end_line.is_some(), marker);
    }
    let trail = newline_suffix(&body[lead..]);
    let core = &body[lead..body.len() - trail];
    let core_trim = core.trim();
    if core_trim.is_empty()
        || core_trim.starts_with(TEXT_MARKER)
        || core_trim.starts_with(URL_MARKER)
    {
        return None;
    }
    out.replace(e + lead, body_end - trail, marker);
    Some(body_end)
}

/// A PEM key on one line (a `<p>`, a table cell, a title) or with its lines joined by
/// spaces or `<br>` tags: the base64 between the BEGIN and END lines goes. Without an END
/// line (a cut page), a run of 40+ base64 characters after the BEGIN line goes.
fn pem_one_line(
    out: &mut Out<'_, '_>,
    e: usize,
    body: &str,
    has_end: bool,
    marker: &str,
) -> Option<usize> {
    let b = body.as_bytes();
    let is_sep_at = |i: usize| -> usize {
        if matches!(b[i], b' ' | b'\t') {
            return 1;
        }
        line_break_at(b, i)
    };
    let mut i = 0;
    let mut first = None;
    let mut last = 0;
    let mut chars = 0;
    while i < b.len() {
        let n = is_sep_at(i);
        if n > 0 {
            i += n;
            continue;
        }
        let c = b[i];
        if !(c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'=')) {
            break;
        }
        first.get_or_insert(i);
        chars += 1;
        i += 1;
        last = i;
    }
    let first = first?;
    // With an END line the body must be nothing but base64 and separators.
    let whole = i == b.len();
    if (has_end && (!whole || chars < 16)) || (!has_end && (first == 0 || chars < 40)) {
        return None;
    }
    let core = body.get(first..last)?;
    if core.starts_with(URL_MARKER) || core.starts_with("REDACTED") {
        return None;
    }
    out.replace(e + first, e + last, marker);
    Some(e + last)
}

/// The length of the line break starting at `b[i]`, as a reader of the output sees one: a
/// real `\r\n`, `\n` or `\r`; JSON's escaped `\n` or `\r`; a Markdown hard break (a
/// backslash before a newline); or a `<br>` tag (any case, `<br/>`, `<br />`, with
/// attributes, at most 64 bytes), which is how forums and `nl2br` show a pasted key.
/// 0 when none starts there.
fn line_break_at(b: &[u8], i: usize) -> usize {
    match b.get(i) {
        Some(b'\r') => 1 + usize::from(b.get(i + 1) == Some(&b'\n')),
        Some(b'\n') => 1,
        Some(b'\\') => match b.get(i + 1) {
            Some(b'n' | b'r' | b'\n') => 2,
            Some(b'\r') => 2 + usize::from(b.get(i + 2) == Some(&b'\n')),
            _ => 0,
        },
        Some(b'<') => {
            if !b
                .get(i + 1..i + 3)
                .is_some_and(|n| n.eq_ignore_ascii_case(b"br"))
            {
                return 0;
            }
            match b.get(i + 3) {
                Some(b'>') => 4,
                Some(b'/' | b' ' | b'\t' | b'\r' | b'\n') => {
                    let tail = &b[i + 3..b.len().min(i + 64)];
                    match tail.iter().position(|&c| c == b'>' || c == b'<') {
                        Some(k) if tail[k] == b'>' => 3 + k + 1,
                        _ => 0,
                    }
                }
                _ => 0,
            }
        }
        _ => 0,
    }
}

/// Does `b` hold a `"` outside a `<br …>` tag (whose attributes may be quoted)?
fn quote_outside_br(b: &[u8]) -> bool {
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => return true,
            b'<' => i += line_break_at(b, i).max(1),
            _ => i += 1,
        }
    }
    false
}

/// Length of the leading run of blanks and line breaks (see [`line_break_at`]) when it
/// holds at least one line break; 0 otherwise.
fn newline_prefix(s: &str) -> usize {
    let b = s.as_bytes();
    let (mut i, mut broke) = (0, false);
    loop {
        if matches!(b.get(i), Some(b' ' | b'\t')) {
            i += 1;
            continue;
        }
        let n = line_break_at(b, i);
        if n == 0 {
            break;
        }
        broke = true;
        i += n;
    }
    if broke {
        i
    } else {
        0
    }
}

/// Length of the trailing run of blanks and line breaks when it holds at least one line
/// break; 0 otherwise.
fn newline_suffix(s: &str) -> usize {
    let b = s.as_bytes();
    let (mut i, mut content_end, mut broke) = (0, 0, false);
    while i < b.len() {
        if matches!(b[i], b' ' | b'\t') {
            i += 1;
            continue;
        }
        let n = line_break_at(b, i);
        if n > 0 {
            i += n;
            broke = true;
            continue;
        }
        i += 1;
        content_end = i;
        broke = false;
    }
    if broke {
        b.len() - content_end
    } else {
        0
    }
}

/// `Bearer <credential>` / `Basic <credential>` outside a header: keep the scheme.
fn bearer(out: &mut Out<'_, '_>, s: usize, after: usize, marker: &str) -> Option<usize> {
    let text = out.text;
    let bytes = text.as_bytes();
    let mut ts = after;
    while ts < bytes.len() && matches!(bytes[ts], b' ' | b'\t') {
        ts += 1;
    }
    let mut te = ts;
    while te < bytes.len()
        && te - ts < VALUE_MAX
        && (bytes[te].is_ascii_alphanumeric()
            || matches!(bytes[te], b'.' | b'_' | b'~' | b'+' | b'/' | b'=' | b'-'))
    {
        te += 1;
    }
    while te > ts && bytes[te - 1] == b'.' {
        te -= 1;
    }
    let tok = text.get(ts..te)?;
    if is_placeholder_text(tok) {
        return None;
    }
    let basic = bytes[s..after].eq_ignore_ascii_case(b"basic");
    let ok = if basic {
        basic_ok(tok)
    } else if bytes[s] == b'b' {
        // Lower-case "bearer" is also an English word: only a token-like credential (not a
        // and not a path or a hex digest, which prose puts after it).
        !tok.contains('/')
            && !tok.bytes().all(|c| c.is_ascii_hexdigit() || c == b'-')
            && token_like(tok)
    } else {
        credential_like(tok, true)
    };
    if !ok {
        return None;
    }
    out.replace(ts, te, marker);
    Some(te)
}

/// A `Basic` credential is base64 of `user:password`.
fn basic_ok(tok: &str) -> bool {
    if !tok
        .bytes()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'='))
    {
        return false;
    }
    match base64_decode(tok) {
        Some(raw) => {
            raw.contains(&b':')
                && std::str::from_utf8(&raw).is_ok_and(|s| s.chars().all(|c| !c.is_control()))
        }
        None => false,
    }
}

fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let s = s.trim_end_matches('=');
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let mut acc: u32 = 0;
    let mut bits = 0;
    for c in s.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    if s.len() % 4 == 1 {
        return None;
    }
    Some(out)
}

/// A known token shape. Most shapes are exact enough to need no further check.
fn token(out: &mut Out<'_, '_>, s: usize, e: usize, marker: &str) -> Option<usize> {
    let text = out.text;
    let bytes = text.as_bytes();
    let m = &bytes[s..e];
    let body = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'-';
    let mut end = e;
    let mut start = s;
    if m.starts_with(b"sk-") {
        // OpenAI / Anthropic keys are random mixed-case alphanumerics; URL slugs such as
        // `sk-learn-tutorial-for-beginners-2024` are not. The whole body run is judged.
        if s < out.sk_dead_until {
            return None;
        }
        while end < bytes.len() && body(bytes[end]) {
            end += 1;
        }
        let b = &bytes[s + 3..end];
        let upper = b.iter().any(u8::is_ascii_uppercase);
        let lower = b.iter().any(u8::is_ascii_lowercase);
        let digit = b.iter().any(u8::is_ascii_digit);
        if !(upper && lower && digit) {
            out.sk_dead_until = end;
            return None;
        }
    } else if m.starts_with(b"AIza") {
        if end < bytes.len() && body(bytes[end]) {
            return None;
        }
    } else if m.starts_with(b"hooks.slack.com/") {
        start = s + "hooks.slack.com/services/".len();
    } else {
        // Every other family: the token runs on to the end of its alphabet (a bounded
        // pattern matched its head), and a few shapes need a look at their surroundings.
        let head = |p: &[u8]| m.starts_with(p);
        if head(b":AA") {
            // Telegram bot token `123456789:AA...`: the bot id is part of it. In the Bot
            // API's URLs it follows `bot` (`/bot123456789:AA.../sendMessage`).
            let mut i = s;
            while i > 0 && s - i < 17 && bytes[i - 1].is_ascii_digit() {
                i -= 1;
            }
            let n = s - i;
            let after_bot = i >= 3
                && bytes[i - 3..i].eq_ignore_ascii_case(b"bot")
                && (i == 3 || !is_name_byte(bytes[i - 4]));
            if !(5..=16).contains(&n) || (i > 0 && is_name_byte(bytes[i - 1]) && !after_bot) {
                return None;
            }
            start = i;
        } else if head(b".atlasv1.") {
            // Terraform Cloud `<14 alphanumerics>.atlasv1.<body>`.
            let mut i = s;
            while i > 0 && s - i < 14 && bytes[i - 1].is_ascii_alphanumeric() {
                i -= 1;
            }
            if s - i < 14 {
                return None;
            }
            start = i;
        } else if head(b"discord") {
            // Keep the webhook id, hide its token.
            start = s + m.iter().rposition(|&c| c == b'/').map_or(0, |i| i + 1);
        } else if head(b"secret_") || head(b"EAAA") {
            // Notion / Square keys are random base62; identifiers of that length are not.
            let b = &m[4..];
            if !(b.iter().any(u8::is_ascii_uppercase)
                && b.iter().any(u8::is_ascii_lowercase)
                && b.iter().any(u8::is_ascii_digit))
            {
                return None;
            }
        }
        let run = |c: u8| body(c) || matches!(c, b'=' | b'.' | b'+' | b'/');
        let wide = head(b"pscale_") || head(b"sntry") || head(b"ops_") || head(b"glc_");
        while end < bytes.len()
            && end - s < VALUE_MAX
            && (body(bytes[end]) || (wide && run(bytes[end])))
        {
            end += 1;
        }
        while wide && end > e && bytes[end - 1] == b'.' {
            end -= 1;
        }
    }
    out.replace(start, end, marker);
    Some(end)
}

/// A sensitive word followed by `=` or `:`: a URL parameter, a header or an assignment.
fn assignment(out: &mut Out<'_, '_>, s: usize, e: usize, marker: &str) -> Option<usize> {
    let text = out.text;
    let bytes = text.as_bytes();
    let op_pos = e - 1;
    let op = bytes[op_pos];

    // Where the name ends: before spaces, a closing quote and an escaping backslash.
    let mut ne = op_pos;
    while ne > s && matches!(bytes[ne - 1], b' ' | b'\t') {
        ne -= 1;
    }
    let mut bracketed = ne > s && bytes[ne - 1] == b']';
    if bracketed {
        ne -= 1;
    }
    // `token[]=` / `token[0]=`: a form array of the name.
    let mut array = false;
    if bracketed && ne > s {
        let mut i = ne;
        while i > s && bytes[i - 1].is_ascii_digit() {
            i -= 1;
        }
        if i > s && bytes[i - 1] == b'[' {
            ne = i - 1;
            array = true;
            bracketed = false;
        }
    }
    let mut quoted_name = false;
    if ne > s && matches!(bytes[ne - 1], b'"' | b'\'') {
        quoted_name = true;
        ne -= 1;
        if ne > s && bytes[ne - 1] == b'\\' {
            ne -= 1;
        }
    }
    // Where the name starts: back over name characters.
    let mut ns = s;
    while ns > 0
        && s - ns < NAME_LOOKBACK
        && (is_name_byte(bytes[ns - 1]) || (bytes[ns - 1] == b'%' && pct_at(bytes, ns - 1)))
    {
        ns -= 1;
    }
    // A marker is never part of a name (`REDACTEDpassword` is `password`).
    if let Some(i) = text.get(ns..s).and_then(|run| run.rfind(URL_MARKER)) {
        ns += i + URL_MARKER.len();
    }
    let raw_name = text.get(ns..ne)?;
    // `api%5Fkey`: a percent-encoded name reads as `api_key`.
    let decoded;
    let name = if raw_name.contains('%') {
        decoded = percent_decode(raw_name);
        decoded.as_str()
    } else {
        raw_name
    };
    let prev = if ns > 0 { Some(bytes[ns - 1]) } else { None };
    let norm = Norm::new(name);

    // A URL query or fragment parameter: the value goes whatever its shape.
    if op == b'='
        && !quoted_name
        && !bracketed
        && (ne == op_pos || array)
        && matches!(prev, Some(b'?' | b'&' | b'#' | b';'))
        && url_context(text, ns - 1)
    {
        if !url_param_sensitive(name, &norm)
            && !text
                .get(e..url_param_end(text, e))
                .is_some_and(nested_url_has_secret)
        {
            return None;
        }
        return url_param_value(out, e, marker);
    }

    let name = name.trim_start_matches(['-', '.']);
    if !text_name_sensitive(name, &norm) {
        return None;
    }
    // The operator: `=`, `=>`, `:`, `:=`; not `==` or `::`, and a `:` glued to an unquoted
    // word is a `name:tag` reference (`vault:1.13.0`), not an assignment.
    let mut vs = e;
    let next = bytes.get(e).copied();
    match (op, next) {
        (b'=', Some(b'=')) => return None,
        (b'=', Some(b'>')) | (b':', Some(b'=')) => vs += 1,
        (b':', Some(c)) if !matches!(c, b' ' | b'\t' | b'"' | b'\'' | b'`' | b'\\') => return None,
        _ => {}
    }
    while vs < bytes.len() && matches!(bytes[vs], b' ' | b'\t') {
        vs += 1;
    }
    let rest = text.get(vs..)?;
    if rest.starts_with(TEXT_MARKER) || rest.starts_with(URL_MARKER) {
        return None;
    }
    let kind = header_kind(&norm);
    let (a, b, quoted) = parse_value(text, vs, kind != HeaderKind::None)?;
    let value = text.get(a..b)?;
    if value.starts_with(TEXT_MARKER) || value.starts_with(URL_MARKER) {
        return None;
    }
    match kind {
        HeaderKind::Authorization => auth_header(out, a, b, marker),
        HeaderKind::Cookie => cookie_header(out, a, b, marker),
        HeaderKind::None => {
            let v = text.get(a..b)?;
            if !credential_like(v, quoted) {
                return None;
            }
            out.replace(a, b, marker);
            Some(b)
        }
    }
}

/// A JSON string `value` stored under `key`: judged like `key: "value"` in text.
fn redact_pair_value(key: &str, value: &str) -> Option<String> {
    let norm = Norm::new(key);
    if !text_name_sensitive(key, &norm) || value.starts_with(TEXT_MARKER) {
        return None;
    }
    let mut out = Out::new(value);
    let done = match header_kind(&norm) {
        HeaderKind::Authorization => auth_header(&mut out, 0, value.len(), TEXT_MARKER),
        HeaderKind::Cookie => cookie_header(&mut out, 0, value.len(), TEXT_MARKER),
        HeaderKind::None => credential_like(value, true).then(|| {
            out.replace(0, value.len(), TEXT_MARKER);
            value.len()
        }),
    };
    done.map(|_| out.finish().into_owned())
}

/// Does `seg` hold a `"` that no backslash escapes?
fn unescaped_quote(seg: &str) -> bool {
    let b = seg.as_bytes();
    (0..b.len()).any(|i| {
        b[i] == b'"' && {
            let mut n = 0;
            while i > n && b[i - n - 1] == b'\\' {
                n += 1;
            }
            n % 2 == 0
        }
    })
}

/// Is `b[i]` the `%` of a percent-escape `%XX`?
fn pct_at(b: &[u8], i: usize) -> bool {
    b.get(i) == Some(&b'%')
        && b.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
        && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
}

/// `name%3Dvalue`: a parameter of a URL carried percent-encoded inside another (`?next=
/// https%3A%2F%2Fh%2F%3Ftoken%3Dabc%26x%3D1`). The value (up to the encoded `&` or `#`)
/// goes when the name is a sensitive URL parameter.
fn encoded_param(out: &mut Out<'_, '_>, s: usize, e: usize, marker: &str) -> Option<usize> {
    let text = out.text;
    let bytes = text.as_bytes();
    let mut ns = s;
    while ns > 0
        && s - ns < NAME_LOOKBACK
        && !(ns >= 3 && pct_at(bytes, ns - 3))
        && (bytes[ns - 1].is_ascii_alphanumeric() || matches!(bytes[ns - 1], b'_' | b'-' | b'.'))
    {
        ns -= 1;
    }
    // The name must follow an encoded `?`, `&`, `#` (or a plain one, or a space).
    let before = text.get(..ns)?;
    let sep_ok = ns == 0
        || [b"%3F", b"%3f", b"%26", b"%23"]
            .iter()
            .any(|p| before.as_bytes().ends_with(*p))
        || matches!(
            bytes[ns - 1],
            b'?' | b'&' | b'#' | b' ' | b'\t' | b'\n' | b'"' | b'\''
        );
    let name = percent_decode(text.get(ns..e - 3)?);
    if !sep_ok || !url_param_sensitive(&name, &Norm::new(&name)) {
        return None;
    }
    let mut ve = url_param_end(text, e);
    if let Some(i) = text.get(e..ve).and_then(|v| {
        let l = v.to_ascii_lowercase();
        [l.find("%26"), l.find("%23")].into_iter().flatten().min()
    }) {
        ve = e + i;
    }
    let v = text.get(e..ve)?;
    if is_placeholder_url(&percent_decode(v)) || v.starts_with(TEXT_MARKER) {
        return None;
    }
    out.replace(e, ve, marker);
    Some(ve)
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-')
}

/// Is the `?`, `&`, `#` or `;` at `sep` inside a URL (or a form-encoded string)?
fn url_context(text: &str, sep: usize) -> bool {
    let bytes = text.as_bytes();
    let c = bytes[sep];
    if matches!(c, b'?' | b'#') {
        return true;
    }
    let before = &bytes[..sep];
    let amp = c == b'&' || before.ends_with(b"&amp") || before.ends_with(b"&#38");
    // Back over the run of non-space, non-quote characters before the separator, stopping
    // at the first byte that settles it (usually the previous parameter's `=`).
    let mut i = sep;
    while i > 0 && sep - i < URL_LOOKBACK {
        let b = bytes[i - 1];
        if b.is_ascii_whitespace() || matches!(b, b'"' | b'\'' | b'<' | b'>' | b'`') {
            return false;
        }
        // `&`: a query string or a form-encoded body. `;`: a query separator, or a path
        // parameter such as `;jsessionid=`.
        if matches!(b, b'?' | b'#') || (amp && b == b'=') || (!amp && b == b'/') {
            return true;
        }
        i -= 1;
    }
    false
}

/// The value of a URL parameter: up to the next separator, quote or space.
/// Where a URL parameter value that starts at `vs` ends.
fn url_param_end(text: &str, vs: usize) -> usize {
    let bytes = text.as_bytes();
    let mut ve = vs;
    while ve < bytes.len()
        && ve - vs < VALUE_MAX
        && !bytes[ve].is_ascii_whitespace()
        && !matches!(
            bytes[ve],
            b'&' | b'#'
                | b';'
                | b'?'
                | b'"'
                | b'\''
                | b'`'
                | b'<'
                | b'>'
                | b')'
                | b']'
                | b'}'
                | b'\\'
                | b'|'
                | b'^'
        )
    {
        ve += 1;
    }
    ve = floor_boundary(text, ve);
    while ve > vs && matches!(bytes[ve - 1], b'.' | b',' | b':' | b'!' | b'?') {
        ve -= 1;
    }
    ve
}

fn url_param_value(out: &mut Out<'_, '_>, vs: usize, marker: &str) -> Option<usize> {
    let text = out.text;
    let ve = url_param_end(text, vs);
    let v = text.get(vs..ve)?;
    if is_placeholder_url(v) || text.get(vs..).is_some_and(|r| r.starts_with(TEXT_MARKER)) {
        return None;
    }
    out.replace(vs, ve, marker);
    Some(ve)
}

#[derive(PartialEq, Eq, Clone, Copy)]
enum HeaderKind {
    None,
    Authorization,
    Cookie,
}

fn header_kind(n: &Norm) -> HeaderKind {
    if n.is("authorization") || n.is("proxyauthorization") {
        HeaderKind::Authorization
    } else if n.is("cookie") || n.is("setcookie") {
        HeaderKind::Cookie
    } else {
        HeaderKind::None
    }
}

/// Find the value starting at `vs`: a quoted string (`"…"`, `'…'`, `` `…` ``, `\"…\"`),
/// the rest of the line for a header, or one unquoted word. Returns `(start, end, quoted)`.
fn parse_value(text: &str, vs: usize, header: bool) -> Option<(usize, usize, bool)> {
    let bytes = text.as_bytes();
    let first = *bytes.get(vs)?;
    let limit = floor_boundary(text, vs.saturating_add(VALUE_MAX));
    if first == b'\\' && bytes.get(vs + 1) == Some(&b'"') {
        let a = vs + 2;
        let mut i = a;
        while i + 1 < limit && bytes[i] != b'\n' {
            if bytes[i] == b'\\' && bytes[i + 1] == b'"' {
                return Some((a, i, true));
            }
            i += 1;
        }
        return None;
    }
    if matches!(first, b'"' | b'\'' | b'`') {
        let a = vs + 1;
        let mut i = a;
        while i < limit && bytes[i] != b'\n' {
            if bytes[i] == first && bytes[i - 1] != b'\\' {
                return Some((a, i, true));
            }
            i += 1;
        }
        return None;
    }
    let mut i = vs;
    if header {
        while i < limit && !matches!(bytes[i], b'\r' | b'\n' | b'"' | b'\'' | b'`' | b'<' | b'\\') {
            i += 1;
        }
        let mut end = floor_boundary(text, i);
        while end > vs && matches!(bytes[end - 1], b' ' | b'\t') {
            end -= 1;
        }
        return Some((vs, end, false));
    }
    while i < limit
        && !bytes[i].is_ascii_whitespace()
        && !matches!(
            bytes[i],
            b'"' | b'\''
                | b'`'
                | b'<'
                | b'>'
                | b','
                | b';'
                | b')'
                | b']'
                | b'}'
                | b'\\'
                | b'&'
                | b'|'
        )
    {
        i += 1;
    }
    let mut end = floor_boundary(text, i);
    while end > vs && matches!(bytes[end - 1], b'.' | b':') {
        end -= 1;
    }
    Some((vs, end, false))
}

/// `Authorization: <scheme> <credentials>`: keep the scheme, hide the credentials.
fn auth_header(out: &mut Out<'_, '_>, a: usize, b: usize, marker: &str) -> Option<usize> {
    let text = out.text;
    let region = text.get(a..b)?;
    let w1_len = region.find([' ', '\t']).unwrap_or(region.len());
    let w1 = &region[..w1_len];
    let after = region[w1_len..].trim_start_matches([' ', '\t']);
    if !after.is_empty() && is_scheme(w1) {
        let cs = b - after.len();
        let creds = after.trim_end_matches([' ', '\t', '.', ',', ';']);
        let first_len = creds.find([' ', '\t']).unwrap_or(creds.len());
        let first = &creds[..first_len];
        if is_placeholder_text(first) {
            return None;
        }
        let ok = if w1.eq_ignore_ascii_case("basic") {
            basic_ok(first) || credential_like(first, true)
        } else {
            credential_like(first, true)
        };
        if !ok {
            return None;
        }
        // Schemes with parameters (Digest, AWS4-HMAC-SHA256, ...) lose all of them; a
        // single-token scheme loses its token only.
        let ce = if first.contains('=') {
            cs + creds.len()
        } else {
            cs + first_len
        };
        out.rescan(a, a + w1_len, marker);
        out.replace(cs, ce, marker);
        return Some(ce);
    }
    let w = w1.trim_end_matches(['.', ',', ';']);
    if is_placeholder_text(w) || !credential_like(w, true) {
        return None;
    }
    out.replace(a, a + w.len(), marker);
    Some(a + w.len())
}

fn is_scheme(w: &str) -> bool {
    let b = w.as_bytes();
    !b.is_empty()
        && b.len() <= 32
        && b[0].is_ascii_alphabetic()
        && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'-')
}

/// `Cookie: a=1; b=2` / `Set-Cookie: id=1; Path=/`: keep names and attributes, hide values.
fn cookie_header(out: &mut Out<'_, '_>, a: usize, b: usize, marker: &str) -> Option<usize> {
    const ATTRS: &[&str] = &[
        "path",
        "domain",
        "expires",
        "max-age",
        "samesite",
        "secure",
        "httponly",
        "priority",
        "partitioned",
        "version",
        "comment",
    ];
    let text = out.text;
    let region = text.get(a..b)?;
    if !region.contains('=') {
        return None;
    }
    let mut edits: Vec<(usize, usize)> = Vec::new();
    let mut off = 0;
    for piece in region.split(';') {
        let ps = a + off;
        off += piece.len() + 1;
        let lead = piece.len() - piece.trim_start().len();
        let p = piece.trim();
        let Some(eq) = p.find('=') else { continue };
        let name = &p[..eq];
        let val = p[eq + 1..].trim();
        // A cookie name is an RFC 6265 token.
        let token = !name.is_empty()
            && name
                .bytes()
                .all(|c| c.is_ascii_graphic() && !b"()<>@,;:\\\"/[]?={}".contains(&c));
        if !token || ATTRS.iter().any(|x| name.eq_ignore_ascii_case(x)) || is_placeholder_url(val) {
            continue;
        }
        let vstart = ps + lead + eq + 1 + (p[eq + 1..].len() - p[eq + 1..].trim_start().len());
        edits.push((vstart, vstart + val.len()));
    }
    if edits.is_empty() {
        return None;
    }
    let mut cur = a;
    let mut end = a;
    for (vs, ve) in edits {
        out.rescan(cur, vs, marker);
        out.replace(vs, ve, marker);
        cur = ve;
        end = ve;
    }
    Some(end)
}

// ---------------------------------------------------------------------------------------
// Names, values and placeholders.
// ---------------------------------------------------------------------------------------

/// A name lower-cased with `_ - .` dropped, on the stack (the hot path must not allocate),
/// with the start of each segment marked (after a separator or at a camelCase hump). Only
/// the last [`NORM_MAX`] bytes of a longer name are kept: sensitivity is decided by suffix.
struct Norm {
    buf: [u8; NORM_MAX],
    seg: [bool; NORM_MAX],
    len: usize,
    whole: bool,
}

const NORM_MAX: usize = 160;

impl Norm {
    fn new(name: &str) -> Norm {
        let b = name.as_bytes();
        let tail = &b[b.len().saturating_sub(NORM_MAX)..];
        let mut n = Norm {
            buf: [0; NORM_MAX],
            seg: [false; NORM_MAX],
            len: 0,
            whole: tail.len() == b.len(),
        };
        let mut boundary = true;
        let mut prev_lower = false;
        for &c in tail {
            if matches!(c, b'_' | b'-' | b'.') {
                boundary = true;
                prev_lower = false;
                continue;
            }
            n.seg[n.len] = boundary || (prev_lower && c.is_ascii_uppercase());
            n.buf[n.len] = c.to_ascii_lowercase();
            n.len += 1;
            prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
            boundary = false;
        }
        n
    }

    fn bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    fn is(&self, w: &str) -> bool {
        self.whole && self.bytes() == w.as_bytes()
    }

    fn ends_with(&self, w: &str) -> bool {
        self.bytes().ends_with(w.as_bytes())
    }

    /// Ends with `w`, and `w` starts a segment.
    fn ends_with_segment(&self, w: &str) -> bool {
        self.ends_with(w) && self.seg[self.len - w.len()]
    }
}

/// Suffixes that make a name sensitive on their own.
const STRONG_SUFFIXES: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "secret",
    "token",
    "apikey",
    "accesskey",
    "secretkey",
    "privatekey",
    "signingkey",
    "masterkey",
    "encryptionkey",
    "accountkey",
    "authkey",
    "appkey",
    "applicationkey",
    "credential",
    "credentials",
    "authorization",
    "cookie",
    "sessionid",
    "sessid",
];
/// Short suffixes that count only as a whole segment (`db_pass`, `authPwd`; not `bypass`).
const WEAK_SUFFIXES: &[&str] = &["auth", "pass", "pwd"];
/// Token-named things that are pagination cursors, not credentials.
const NOT_SECRET: &[&str] = &[
    "pagetoken",
    "nexttoken",
    "prevtoken",
    "previoustoken",
    "continuationtoken",
    "synctoken",
    "paginationtoken",
    "cursortoken",
];

/// Is `name` (a key in an assignment or a header name) sensitive in free text?
fn text_name_sensitive(name: &str, n: &Norm) -> bool {
    if name.is_empty() || name == "PWD" || name == "OLDPWD" {
        return false;
    }
    if NOT_SECRET.iter().any(|x| n.ends_with(x)) {
        return false;
    }
    STRONG_SUFFIXES.iter().any(|x| n.ends_with(x))
        || WEAK_SUFFIXES.iter().any(|x| n.ends_with_segment(x))
}

/// Is a URL query or fragment parameter named `name` sensitive? (Case-insensitive; the
/// value is hidden whatever its shape.)
fn url_param_sensitive(name: &str, n: &Norm) -> bool {
    // `token[]` / `token[0]`: a form array of `token`.
    if let Some(base) = name
        .strip_suffix(']')
        .and_then(|n| n.rsplit_once('['))
        .map(|(b, _)| b)
    {
        return url_param_sensitive(base, &Norm::new(base));
    }
    const EXACT: &[&str] = &[
        "key",
        "auth",
        "sig",
        "session",
        "sid",
        "state",
        "code",
        "ticket",
        "otp",
        "hmac",
        "signature",
        "jsessionid",
        "phpsessid",
        "samlresponse",
        "samlrequest",
        "clientassertion",
        "codeverifier",
        "oauthverifier",
        "pwd",
        "pass",
    ];
    if NOT_SECRET.iter().any(|x| n.ends_with(x)) {
        return false;
    }
    EXACT.iter().any(|x| n.is(x)) || n.ends_with("signature") || text_name_sensitive(name, n)
}

/// Placeholders a URL may carry instead of a secret: empty, our markers, templates
/// (`{token}`, `<key>`, `$TOKEN`), `YOUR_API_KEY`-style names, `xxx`, `***`, `...`.
fn is_placeholder_url(v: &str) -> bool {
    // Anything holding a marker was redacted already (keeps redaction idempotent).
    if v.is_empty() || v.contains(URL_MARKER) {
        return true;
    }
    let b = v.as_bytes();
    if matches!(b[0], b'{' | b'<' | b'$')
        || starts_ci(b, "%7b")
        || starts_ci(b, "%3c")
        || starts_ci(b, "%24")
        || starts_ci(b, URL_MARKER)
        || (b.len() > 4 && starts_ci(b, "your"))
    {
        return true;
    }
    if b.len() >= 3 && b.iter().all(|c| *c == b[0]) && !b[0].is_ascii_alphanumeric()
        || b.len() >= 3 && b.iter().all(|c| matches!(c, b'x' | b'X'))
        || v.contains('\u{2026}')
    {
        return true;
    }
    // `API_KEY`, `ACCESS_TOKEN`: an environment variable's name, not its value.
    if b.contains(&b'_') && b.iter().all(|c| c.is_ascii_uppercase() || *c == b'_') {
        return true;
    }
    // `user:password@localhost`: the field's own name stands in for the value.
    const NAME_WORDS: &[&str] = &["password", "passwd", "secret", "token"];
    if NAME_WORDS.iter().any(|w| v.eq_ignore_ascii_case(w)) {
        return true;
    }
    placeholder_word(v)
}

/// Does `v` hold a documentation word as a separate part (`example-key`, `my_dummy_token`,
/// `your-api-key`, `changeme`)? Glued inside random characters (`...CYEXAMPLEKEY`,
/// `AKIA...7EXAMPLE`) it does not count: a real key may contain any letters.
fn placeholder_word(v: &str) -> bool {
    const WORDS: &[&str] = &[
        "example",
        "dummy",
        "changeme",
        "placeholder",
        "your",
        "yours",
        "here",
        "redacted",
    ];
    v.split(|c: char| !c.is_ascii_alphanumeric())
        .any(|part| WORDS.iter().any(|w| part.eq_ignore_ascii_case(w)))
}

/// Placeholders in free text: the URL ones plus `%VAR%`, `#{var}`, and values containing
/// `xxxx`, `****` or `...`.
fn is_placeholder_text(v: &str) -> bool {
    if is_placeholder_url(v) {
        return true;
    }
    let b = v.as_bytes();
    v.starts_with('%') && v.ends_with('%') && v.len() > 2
        || v.starts_with("#{")
        || contains_ci(b, "xxxx")
        || v.contains("****")
        || v.contains("...")
        || starts_ci(b, "changeme")
}

fn starts_ci(b: &[u8], p: &str) -> bool {
    b.len() >= p.len() && b[..p.len()].eq_ignore_ascii_case(p.as_bytes())
}

fn contains_ci(b: &[u8], p: &str) -> bool {
    b.windows(p.len())
        .any(|w| w.eq_ignore_ascii_case(p.as_bytes()))
}

/// Unquoted values that are code, not data: `process.env.TOKEN`, `os.getenv(...)`,
/// `[...]`, `{...}`.
fn code_like(v: &str) -> bool {
    let b = v.as_bytes();
    if matches!(b[0], b'(' | b'[' | b'{' | b'@' | b'&' | b'*' | b'!') || v.contains(['(', '[', '{'])
    {
        return true;
    }
    // A dotted path of identifiers.
    v.contains('.')
        && v.split('.').all(|seg| {
            let s = seg.as_bytes();
            !s.is_empty()
                && (s[0].is_ascii_alphabetic() || s[0] == b'_' || s[0] == b'$')
                && s.iter()
                    .all(|c| c.is_ascii_alphanumeric() || *c == b'_' || *c == b'$')
        })
}

/// A random-looking token: 16+ characters of a token alphabet with letters and digits and
/// no long run of one class (identifiers, words and version strings are not).
fn token_like(v: &str) -> bool {
    let b = v.as_bytes();
    if b.len() < 16
        || is_placeholder_text(v)
        || !b.iter().all(|c| {
            c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'~' | b'+' | b'/' | b'=' | b'-')
        })
    {
        return false;
    }
    let digits = b.iter().filter(|c| c.is_ascii_digit()).count();
    let letters = b.iter().filter(|c| c.is_ascii_alphabetic()).count();
    digits >= 2 && letters >= 2 && entropy(b) >= 3.0
}

/// Does a value taken from the requested URL (a sensitive parameter's value, a password)
/// look like a secret, so that it is worth scrubbing from everything, page text included?
/// Short values, words, numbers and placeholders are not: replacing every "python" of an
/// article because the URL said `?code=python` corrupts the page and hides nothing (such a
/// value is still hidden where it stands in a URL, by position). At least 8 characters,
/// no whitespace, a credential's mix of characters ([`credential_like`]), and not digits
/// alone unless 16 or more (dates, page numbers and ids are digits).
fn secret_like_value(v: &str) -> bool {
    let n = v.chars().count();
    if n < 8 || v.chars().any(char::is_whitespace) {
        return false;
    }
    if v.bytes().all(|b| b.is_ascii_digit()) {
        return n >= 16;
    }
    credential_like(v, true) || token_like(v)
}

/// Shannon entropy of `b`, in bits per byte.
fn entropy(b: &[u8]) -> f64 {
    if b.is_empty() {
        return 0.0;
    }
    let mut counts = [0u32; 256];
    for &c in b {
        counts[c as usize] += 1;
    }
    let n = b.len() as f64;
    counts
        .iter()
        .filter(|&&k| k > 0)
        .map(|&k| {
            let p = f64::from(k) / n;
            -p * p.log2()
        })
        .sum()
}

/// Does an assignment's or header's value look like a credential rather than a word?
/// Needs 6+ characters, no whitespace, not a placeholder, and a credential's mix: letters
/// with digits, six or more digits, symbols with both cases, or (quoted) 16+ letters.
fn credential_like(v: &str, quoted: bool) -> bool {
    let n = v.chars().count();
    if n < 6 || v.chars().any(char::is_whitespace) || is_placeholder_text(v) {
        return false;
    }
    if !quoted && code_like(v) {
        return false;
    }
    let (mut lower, mut upper, mut digit, mut symbol, mut other) = (0, 0, 0, 0, 0);
    for c in v.chars() {
        match c {
            'a'..='z' => lower += 1,
            'A'..='Z' => upper += 1,
            '0'..='9' => digit += 1,
            c if c.is_ascii_punctuation() => symbol += 1,
            _ => other += 1,
        }
    }
    let letters = lower + upper + other;
    (digit > 0 && letters > 0)
        || digit == n
        || (symbol > 0 && lower > 0 && upper > 0)
        || (quoted && letters == n && n >= 16)
        || (n >= 24 && lower > 0 && upper > 0)
}

// ---------------------------------------------------------------------------------------
// URLs.
// ---------------------------------------------------------------------------------------

/// Structural URL redaction on the string as given (no normalisation): the userinfo
/// password and the values of sensitive query and fragment parameters (names compared
/// percent-decoded and case-insensitively).
fn redact_url_parts<'t>(s: &'t str, marker: &str) -> Cow<'t, str> {
    let bytes = s.as_bytes();
    let mut edits: Vec<(usize, usize)> = Vec::new();
    let lead = s.len() - s.trim_start().len();
    let mut rest_start = lead;
    // scheme ":" ["//" authority]
    let scheme_len = s[lead..]
        .bytes()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'.' | b'-'))
        .count();
    if bytes.get(lead + scheme_len) == Some(&b':') {
        rest_start = lead + scheme_len + 1;
        if s[rest_start..].starts_with("//") {
            let auth_start = rest_start + 2;
            let auth_end = s[auth_start..]
                .find(['/', '?', '#', '\\'])
                .map_or(s.len(), |i| auth_start + i);
            if let Some(at) = s[auth_start..auth_end].rfind('@') {
                let ui = &s[auth_start..auth_start + at];
                if let Some(colon) = ui.find(':') {
                    let pw = &ui[colon + 1..];
                    if !is_placeholder_url(pw) {
                        edits.push((auth_start + colon + 1, auth_start + at));
                    }
                }
            }
            rest_start = auth_end;
        }
    }
    let hash = s[rest_start..].find('#').map(|i| rest_start + i);
    let qend = hash.unwrap_or(s.len());
    if let Some(q) = s[rest_start..qend].find('?') {
        params(s, rest_start + q + 1, qend, b"&;", &mut edits);
    }
    if let Some(h) = hash {
        params(s, h + 1, s.len(), b"&;?#", &mut edits);
    }
    if edits.is_empty() {
        return Cow::Borrowed(s);
    }
    edits.sort_unstable();
    let mut out = Out::new(s);
    for (a, b) in edits {
        out.replace(a, b, marker);
    }
    out.finish()
}

/// Split `s[from..to]` on `seps` and record the value range of each sensitive `name=value`.
fn params(s: &str, from: usize, to: usize, seps: &[u8], edits: &mut Vec<(usize, usize)>) {
    let bytes = s.as_bytes();
    let mut start = from;
    let mut i = from;
    while i <= to {
        if i == to || seps.contains(&bytes[i]) {
            if let Some(piece) = s.get(start..i) {
                if let Some(eq) = piece.find('=') {
                    let name = percent_decode(&piece[..eq]);
                    let val = &piece[eq + 1..];
                    let plausible = name
                        .bytes()
                        .all(|c| is_name_byte(c) || matches!(c, b'[' | b']'));
                    // Replaced whole unless it is exactly a marker (an earlier pass may
                    // have hidden only its first word).
                    let done = val == URL_MARKER
                        || val == TEXT_MARKER
                        || (!val.contains(URL_MARKER) && is_placeholder_url(val));
                    if plausible && url_param_sensitive(&name, &Norm::new(&name)) && !done {
                        edits.push((start + eq + 1, i));
                    } else if !done && nested_url_has_secret(val) {
                        // A URL carried inside a parameter (`?u=https%3A...%3Ftoken%3D...`):
                        // its own secrets are encoded out of reach, so the value goes whole.
                        edits.push((start + eq + 1, i));
                    }
                }
            }
            start = i + 1;
        }
        i += 1;
    }
}

/// Does `val`, percent-decoded, hold a URL whose query or fragment has a sensitive
/// parameter (at any depth)? Each level looks only at a strictly shorter string.
fn nested_url_has_secret(val: &str) -> bool {
    if !val.contains('%') && !val.contains("://") {
        return false;
    }
    let decoded = percent_decode(val);
    let Some(scheme_end) = decoded.find("://") else {
        return false;
    };
    let Some(q) = decoded[scheme_end..]
        .find(['?', '#'])
        .map(|q| q + scheme_end)
    else {
        return false;
    };
    let mut nested = Vec::new();
    params(&decoded, q + 1, decoded.len(), b"&;#?", &mut nested);
    !nested.is_empty()
}

/// Percent-decode without the form rule that turns `+` into a space.
fn percent_decode_keep_plus(s: &str) -> String {
    percent_decode(&s.replace('+', "%2B"))
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let hex = |c: u8| (c as char).to_digit(16);
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(if b[i] == b'+' { b' ' } else { b[i] });
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// In a string that starts like a URL but does not parse, the password of `scheme://user:
/// password@host`, found without trusting the delimiters: from the first `:` after `//`
/// to the last `@` (before any whitespace) that is followed by a host name.
fn unparsed_userinfo(s: &str) -> Cow<'_, str> {
    let Some(p) = s.find("://") else {
        return Cow::Borrowed(s);
    };
    let scheme = &s[..p];
    let scheme = scheme.trim_start();
    let scheme_ok = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'.' | b'-'));
    let auth = p + 3;
    let end = s[auth..]
        .find(char::is_whitespace)
        .map_or(s.len(), |i| auth + i);
    let region = &s[auth..end];
    let host_follows = |i: usize| {
        region[i + 1..]
            .bytes()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'[')
    };
    let Some(at) = region
        .char_indices()
        .rev()
        .find(|&(i, c)| c == '@' && host_follows(i))
        .map(|(i, _)| i)
    else {
        return Cow::Borrowed(s);
    };
    let Some(colon) = region[..at].find(':') else {
        return Cow::Borrowed(s);
    };
    let pw = &region[colon + 1..at];
    if !scheme_ok || is_placeholder_url(pw) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(format!(
        "{}{URL_MARKER}{}",
        &s[..auth + colon + 1],
        &s[auth + at..]
    ))
}

/// Last resort when surgery broke a URL that parsed: a minimal URL of the same scheme.
fn url_fallback(parsed: &url::Url) -> String {
    let scheme = parsed.scheme();
    for candidate in [
        format!("{scheme}://{URL_MARKER}/"),
        format!("{scheme}:{URL_MARKER}"),
        format!("{scheme}:///{URL_MARKER}"),
    ] {
        if url::Url::parse(&candidate).is_ok() {
            return candidate;
        }
    }
    format!("data:,{URL_MARKER}")
}

// ---------------------------------------------------------------------------------------
// Encodings of literal secrets.
// ---------------------------------------------------------------------------------------

/// Every form in which a URL library, a JSON encoder or an HTML page may carry `v`.
fn encodings(v: &str) -> Vec<String> {
    fn c0(b: u8) -> bool {
        !(0x20..0x7f).contains(&b)
    }
    fn fragment(b: u8) -> bool {
        c0(b) || matches!(b, b' ' | b'"' | b'<' | b'>' | b'`')
    }
    fn query(b: u8) -> bool {
        c0(b) || matches!(b, b' ' | b'"' | b'#' | b'<' | b'>')
    }
    fn special_query(b: u8) -> bool {
        query(b) || b == b'\''
    }
    fn path(b: u8) -> bool {
        query(b) || matches!(b, b'?' | b'^' | b'`' | b'{' | b'}')
    }
    // The url crate's path set, which leaves `^` (and `|`) as they are.
    fn url_crate_path(b: u8) -> bool {
        query(b) || matches!(b, b'?' | b'`' | b'{' | b'}')
    }
    fn userinfo(b: u8) -> bool {
        path(b)
            || matches!(
                b,
                b'/' | b':' | b';' | b'=' | b'@' | b'[' | b'\\' | b']' | b'|'
            )
    }
    fn component(b: u8) -> bool {
        userinfo(b) || matches!(b, b'$' | b'%' | b'&' | b'+' | b',')
    }
    fn strict(b: u8) -> bool {
        !(b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'))
    }
    fn pct(v: &str, enc: fn(u8) -> bool, upper: bool) -> String {
        let mut s = String::with_capacity(v.len() * 3);
        for b in v.bytes() {
            if enc(b) {
                if upper {
                    s.push_str(&format!("%{b:02X}"));
                } else {
                    s.push_str(&format!("%{b:02x}"));
                }
            } else {
                s.push(b as char);
            }
        }
        s
    }
    fn form(v: &str) -> String {
        let mut s = String::with_capacity(v.len() * 3);
        for b in v.bytes() {
            if b == b' ' {
                s.push('+');
            } else if b.is_ascii_alphanumeric() || matches!(b, b'*' | b'-' | b'.' | b'_') {
                s.push(b as char);
            } else {
                s.push_str(&format!("%{b:02X}"));
            }
        }
        s
    }
    let mut out: Vec<String> = vec![v.to_string()];
    let sets: [fn(u8) -> bool; 8] = [
        fragment,
        query,
        special_query,
        path,
        url_crate_path,
        userinfo,
        component,
        strict,
    ];
    for set in sets {
        out.push(pct(v, set, true));
        out.push(pct(v, set, false));
    }
    out.push(form(v));
    // Twice encoded: a URL carried inside another URL's parameter (`?u={url_encoded}`).
    let once = pct(v, strict, true);
    out.push(pct(&once, strict, true));
    out.push(pct(&form(v), strict, true));
    if let Ok(json) = serde_json::to_string(v) {
        let inner = json
            .strip_prefix('"')
            .and_then(|j| j.strip_suffix('"'))
            .unwrap_or(&json)
            .to_string();
        out.push(inner.replace('/', "\\/"));
        let mut ascii = String::with_capacity(inner.len());
        for c in inner.chars() {
            if c.is_ascii() {
                ascii.push(c);
            } else {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    ascii.push_str(&format!("\\u{u:04x}"));
                }
            }
        }
        out.push(ascii);
        out.push(inner);
    }
    let html = |apos: &str| {
        let mut s = String::with_capacity(v.len());
        for c in v.chars() {
            match c {
                '&' => s.push_str("&amp;"),
                '<' => s.push_str("&lt;"),
                '>' => s.push_str("&gt;"),
                '"' => s.push_str("&quot;"),
                '\'' => s.push_str(apos),
                c => s.push(c),
            }
        }
        s
    };
    out.push(html("&#39;"));
    out.push(html("&#x27;"));
    out.push(html("'"));
    let mut seen = std::collections::HashSet::new();
    out.retain(|f| seen.insert(f.clone()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The vendor range is where the vendor tokens are, and each has a literal prefix (or
    /// the full regex would serve every text, silently losing the cheaper start).
    #[test]
    fn vendor_shapes_have_literal_prefixes() {
        assert!(PARTS[VENDOR.start].starts_with("do[opr]_v1_"));
        assert!(PARTS[VENDOR.end - 1].contains("pat[A-Za-z0-9]{14}"));
        assert!(PARTS[VENDOR.start - 1].starts_with("hooks"));
        assert!(PARTS[VENDOR.end].starts_with("(?:Bearer"));
        assert!(VENDOR_SCAN.is_some());
        let got: Vec<Option<Vec<String>>> =
            PARTS[VENDOR].iter().map(|p| leading_literals(p)).collect();
        assert!(got.iter().all(Option::is_some), "{got:?}");
        let strs = |v: &[&str]| Some(v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        for (pattern, want) in [
            (
                r"do[opr]_v1_[a-f0-9]{64}",
                strs(&["doo_v1_", "dop_v1_", "dor_v1_"]),
            ),
            (r"(?-u:\b)key-[0-9a-f]{32}", strs(&["key-"])),
            (r"\.atlasv1\.[A-Za-z0-9_=-]{60}", strs(&[".atlasv1."])),
            (r"FLWSECK(?:_TEST)?-[a-fA-F0-9]{32}-X", strs(&["FLWSECK"])),
            (r"shp(?:at|ca)_[a-fA-F0-9]{32}", strs(&["shpat_", "shpca_"])),
            (r"sntry[su]_[A-Za-z0-9]", strs(&["sntrys_", "sntryu_"])),
            (r"(?-u:\b)pat[A-Za-z0-9]{14}\.", strs(&["pat"])),
            (r"abc?d", strs(&["ab"])),
            (r"ab{2}", strs(&["a"])),
            (r"ab+c", strs(&["ab"])),
            (r"a[b-d]", strs(&["a"])),
            (r"ab|cd", None),
            (r"(?i-u:secret)", None),
            (r"[a-z]+", None),
            (r"\bword", None),
            (r"(?:|x)y", strs(&["y", "xy"])),
        ] {
            assert_eq!(leading_literals(pattern), want, "{pattern}");
        }
    }

    /// Wherever the smaller regex would find something else than the full one, the vendor
    /// scan says a vendor token may be there (so the full one serves): on every family
    /// sample, with prose around it and cut anywhere, and on texts full of the words that
    /// hold a weak literal.
    #[test]
    fn the_vendor_scan_never_hides_a_difference() {
        let full = shape_regex(PARTS.iter().copied());
        let mut texts: Vec<String> = Vec::new();
        for (_, sample) in family_samples() {
            texts.push(format!("see the path {sample} and do it"));
            for cut in (0..sample.len()).step_by(7) {
                if let Some(head) = sample.get(..cut) {
                    texts.push(format!("pattern pat {head}"));
                }
            }
        }
        texts.push(format!("path pat{}.{}", alnum(14, 3), "ab".repeat(32)));
        texts.push(format!("xpat{}.{}", alnum(14, 3), "ab".repeat(32)));
        texts.push("do the glad pattern path: ghp_ key: value :AA".to_string());
        for t in &texts {
            let a: Vec<_> = full.find_iter(t).map(|m| m.range()).collect();
            let b: Vec<_> = HOT_LITE.find_iter(t).map(|m| m.range()).collect();
            if a != b {
                assert!(may_hold_vendor_token(t), "{t}");
            }
        }
        assert!(!may_hold_vendor_token(
            "do the glad pattern path, patents and EZ pieces"
        ));
        assert!(may_hold_vendor_token(&format!(
            "pat{}.{}",
            alnum(14, 3),
            "ab".repeat(32)
        )));
    }

    /// On a text without any vendor prefix the smaller regex finds exactly what the full
    /// one finds; a vendor token brings the full one in.
    #[test]
    fn the_regex_without_vendor_shapes_agrees_where_it_serves() {
        let full = shape_regex(PARTS.iter().copied());
        let ghp = format!("ghp_{}", alnum(36, 7));
        let texts = [
            "plain prose with no secrets at all, and a URL https://example.com/a?b=c".to_string(),
            format!("token: {ghp} and Authorization: Bearer abcdefgh12345678"),
            "https://user:hunter2hunter2@example.com/ password=swordfish123 state=xyz".into(),
            "-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----".into(),
            "AKIAABCDEFGHIJKLMNOP eyJhbGciOi.eyJzdWIiOi.sig sk-abcdefghijklmnopqrstuvwx".into(),
            "session_id=abc; Cookie: a=b; x-api-key: 1234567890abcdef".into(),
        ];
        for t in &texts {
            assert!(!may_hold_vendor_token(t), "{t}");
            let a: Vec<_> = full.find_iter(t).map(|m| m.range()).collect();
            let b: Vec<_> = HOT_LITE.find_iter(t).map(|m| m.range()).collect();
            assert!(!a.is_empty() || t.starts_with("plain"), "{t}");
            assert_eq!(a, b, "{t}");
            for pos in 0..t.len() {
                if t.is_char_boundary(pos) {
                    assert_eq!(
                        full.find_at(t, pos).map(|m| m.range()),
                        HOT_LITE.find_at(t, pos).map(|m| m.range()),
                        "{t} at {pos}"
                    );
                }
            }
        }
        let vendor = format!("rubygems_{}", "0a".repeat(24));
        assert!(may_hold_vendor_token(&vendor));
        assert_eq!(Redactor::new().redact_text(&vendor), TEXT_MARKER);
    }

    /// Deterministic pseudo-random alphanumerics (always some upper, lower and digit).
    fn alnum(n: usize, seed: u64) -> String {
        const CS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        let mut x = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let mut s = String::from("aZ7");
        while s.len() < n {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            s.push(CS[((x >> 33) % CS.len() as u64) as usize] as char);
        }
        s.truncate(n);
        s
    }

    fn hex(n: usize, seed: u64) -> String {
        let mut x = seed;
        (0..n)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                char::from(b"0123456789abcdef"[((x >> 33) % 16) as usize])
            })
            .collect()
    }

    /// (input, secrets that must vanish, substrings that must survive)
    fn secret_cases() -> Vec<(String, Vec<String>, Vec<&'static str>)> {
        let mut v: Vec<(String, Vec<String>, Vec<&'static str>)> = Vec::new();
        let mut add = |input: String, secrets: Vec<String>, keep: Vec<&'static str>| {
            v.push((input, secrets, keep));
        };
        // --- cloud keys
        add(
            "aws_access_key_id = AKIAIOSFODNN7EXAMPLE\n".into(),
            vec!["AKIAIOSFODNN7EXAMPLE".into()],
            vec!["aws_access_key_id = ", "\n"],
        );
        add(
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY".into(),
            vec!["wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY".into()],
            vec!["aws_secret_access_key = "],
        );
        add(
            "export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY; echo ok".into(),
            vec!["wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY".into()],
            vec!["export AWS_SECRET_ACCESS_KEY=", "; echo ok"],
        );
        add(
            r#"{"AccessKeyId": "ASIAY34FZKBOKMUTVV7A", "SecretAccessKey": "9drTJvcXLB89EXAMPLELB8923FB892xMFI", "SessionToken": "AQoXdzELDDY//////////wEaoAK1wvxJY12r2IrDFT2IvAzTCn3zHoZ7YNtpiQLF0MqZye/qwjzP2iEXAMPLE"}"#.into(),
            vec![
                "ASIAY34FZKBOKMUTVV7A".into(),
                "9drTJvcXLB89EXAMPLELB8923FB892xMFI".into(),
                "AQoXdzELDDY//////////wEaoAK1wvxJY12r2IrDFT2IvAzTCn3zHoZ7YNtpiQLF0MqZye".into(),
            ],
            vec![r#"{"AccessKeyId": ""#, r#"", "SecretAccessKey": ""#, r#""SessionToken": ""#],
        );
        add(
            "Key id AKIA2E0A8F3B244C9986 was rotated.".into(),
            vec!["AKIA2E0A8F3B244C9986".into()],
            vec!["Key id ", " was rotated."],
        );
        let goog = format!("AIza{}", alnum(35, 1));
        add(
            format!("const MAPS = \"{goog}\";"),
            vec![goog],
            vec!["const MAPS = \"", "\";"],
        );
        add(
            format!("client_secret: GOCSPX-{}", alnum(28, 2)),
            vec![alnum(28, 2)],
            vec!["client_secret: "],
        );
        add(
            format!("token ya29.{} expires", alnum(60, 3)),
            vec![alnum(60, 3)],
            vec!["token ", " expires"],
        );
        // --- VCS tokens
        for (i, p) in ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"].iter().enumerate() {
            let t = format!("{p}{}", alnum(36, 10 + i as u64));
            add(
                format!("use {t} to push"),
                vec![t],
                vec!["use ", " to push"],
            );
        }
        let pat = format!("github_pat_{}_{}", alnum(22, 20), alnum(59, 21));
        add(format!("GH_PAT={pat}"), vec![pat], vec!["GH_PAT="]);
        let gl = format!("glpat-{}", alnum(20, 22));
        add(
            format!("PRIVATE-TOKEN: {gl}"),
            vec![gl],
            vec!["PRIVATE-TOKEN: "],
        );
        let ghs = format!("ghs_{}", alnum(36, 23));
        add(
            format!("git clone https://x-access-token:{ghs}@github.com/o/r.git"),
            vec![ghs],
            vec!["git clone https://x-access-token:", "@github.com/o/r.git"],
        );
        let ghp = format!("ghp_{}", alnum(36, 24));
        add(
            format!("https://{ghp}@github.com/o/r.git"),
            vec![ghp],
            vec!["https://", "@github.com/o/r.git"],
        );
        // --- chat, payment, AI, package registries
        add(
            "SLACK_BOT_TOKEN=xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx".into(),
            vec!["xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx".into()],
            vec!["SLACK_BOT_TOKEN="],
        );
        add(
            "user token xoxp-2222222222-3333333333-4444444444-abcdef0123456789".into(),
            vec!["xoxp-2222222222-3333333333-4444444444-abcdef0123456789".into()],
            vec!["user token "],
        );
        add(
            format!(
                "webhook https://hooks.slack.com/services/T0000AAAA/B0000BBBB/{}",
                alnum(24, 30)
            ),
            vec![alnum(24, 30)],
            vec!["webhook https://hooks.slack.com/services/"],
        );
        for (i, p) in ["sk_live_", "rk_live_", "sk_test_", "rk_test_"]
            .iter()
            .enumerate()
        {
            let t = format!("{p}{}", alnum(24, 40 + i as u64));
            add(
                format!("stripe.api_key = '{t}'"),
                vec![t],
                vec!["stripe.api_key = '", "'"],
            );
        }
        let wh = format!("whsec_{}", alnum(32, 45));
        add(format!("secret {wh}."), vec![wh], vec!["secret ", "."]);
        let oa = format!("sk-{}", alnum(48, 50));
        add(
            format!("OPENAI_API_KEY={oa}"),
            vec![oa],
            vec!["OPENAI_API_KEY="],
        );
        let proj = format!(
            "sk-proj-{}-{}_{}",
            alnum(40, 51),
            alnum(20, 52),
            alnum(30, 53)
        );
        add(
            format!("key: {proj} (project)"),
            vec![proj],
            vec!["key: ", " (project)"],
        );
        let ant = format!("sk-ant-api03-{}-{}AA", alnum(80, 54), alnum(10, 55));
        add(
            format!("x-api-key: {ant}\n"),
            vec![ant],
            vec!["x-api-key: ", "\n"],
        );
        let hf = format!("hf_{}", alnum(34, 60));
        add(
            format!("huggingface-cli login --token {hf}"),
            vec![hf],
            vec!["huggingface-cli login --token "],
        );
        let npm = format!("npm_{}", alnum(36, 61));
        add(
            format!("//registry.npmjs.org/:_authToken={npm}"),
            vec![npm],
            vec!["//registry.npmjs.org/:_authToken="],
        );
        let sg = format!("SG.{}.{}", alnum(22, 62), alnum(43, 63));
        add(format!("SENDGRID={sg}"), vec![sg], vec!["SENDGRID="]);
        let tw = format!("SK{}", hex(32, 64));
        add(
            format!("twilio key {tw} ok"),
            vec![tw],
            vec!["twilio key ", " ok"],
        );
        let ac = format!("AC{}", hex(32, 65));
        add(format!("account {ac}"), vec![ac], vec!["account "]);
        // --- JWT, bearer, basic, headers
        let jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";
        add(
            format!("id_token was {jwt}, expired"),
            vec![jwt.into()],
            vec!["id_token was ", ", expired"],
        );
        add(
            "curl -H 'Authorization: Bearer abc123def456ghi789' https://api.example.com".into(),
            vec!["abc123def456ghi789".into()],
            vec![
                "curl -H 'Authorization: Bearer ",
                "' https://api.example.com",
            ],
        );
        add(
            "Authorization: Basic dXNlcjpwYXNzd29yZA==\r\nHost: x".into(),
            vec!["dXNlcjpwYXNzd29yZA==".into()],
            vec!["Authorization: Basic ", "\r\nHost: x"],
        );
        add(
            "sent Bearer 0a1b2c3d4e5f6a7b8c9d to the server".into(),
            vec!["0a1b2c3d4e5f6a7b8c9d".into()],
            vec!["sent Bearer ", " to the server"],
        );
        add(
            "header was Basic YWxhZGRpbjpvcGVuc2VzYW1l.".into(),
            vec!["YWxhZGRpbjpvcGVuc2VzYW1l".into()],
            vec!["header was Basic ", "."],
        );
        add(
            "Proxy-Authorization: Basic YWxhZGRpbjpvcGVuc2VzYW1l".into(),
            vec!["YWxhZGRpbjpvcGVuc2VzYW1l".into()],
            vec!["Proxy-Authorization: Basic "],
        );
        let ghp2 = format!("ghp_{}", alnum(36, 70));
        add(
            format!("Authorization: token {ghp2}"),
            vec![ghp2],
            vec!["Authorization: token "],
        );
        add(
            "Authorization: AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request, SignedHeaders=host, Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7\n".into(),
            vec!["5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7".into(), "AKIDEXAMPLE/20150830".into()],
            vec!["Authorization: AWS4-HMAC-SHA256 ", "\n"],
        );
        add(
            r#"{"headers": {"Authorization": "Bearer s3cr3tT0k3nValue", "Accept": "*/*"}}"#.into(),
            vec!["s3cr3tT0k3nValue".into()],
            vec![
                r#"{"headers": {"Authorization": "Bearer "#,
                r#"", "Accept": "*/*"}}"#,
            ],
        );
        add(
            "Cookie: sessionid=38afes7a8; csrftoken=Xyz123abc\n".into(),
            vec!["38afes7a8".into(), "Xyz123abc".into()],
            vec!["Cookie: sessionid=", "; csrftoken=", "\n"],
        );
        add(
            "Set-Cookie: id=a3fWa; Expires=Thu, 21 Oct 2021 07:28:00 GMT; Secure; HttpOnly".into(),
            vec!["a3fWa".into()],
            vec![
                "Set-Cookie: id=",
                "; Expires=Thu, 21 Oct 2021 07:28:00 GMT; Secure; HttpOnly",
            ],
        );
        add(
            "X-Api-Key: 9f8e7d6c5b4a39281706\nAccept: text/html".into(),
            vec!["9f8e7d6c5b4a39281706".into()],
            vec!["X-Api-Key: ", "\nAccept: text/html"],
        );
        add(
            "X-Auth-Token: tok_8d7f6e5c4b3a".into(),
            vec!["tok_8d7f6e5c4b3a".into()],
            vec!["X-Auth-Token: "],
        );
        // --- PEM
        add(
            "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB\naFDrBz9vFqU4yMU8W8C7fEzVAYfe8DA2CNn+9EqGq0dAwgMPGKVBrVxdQNMy3B09\n-----END RSA PRIVATE KEY-----\nend".into(),
            vec!["MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn".into(), "aFDrBz9vFqU4yMU8W8C7fEzVAYfe8DA2CNn".into()],
            vec!["-----BEGIN RSA PRIVATE KEY-----\n", "\n-----END RSA PRIVATE KEY-----\nend"],
        );
        add(
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----".into(),
            vec!["b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ".into()],
            vec!["-----BEGIN OPENSSH PRIVATE KEY-----\n", "\n-----END OPENSSH PRIVATE KEY-----"],
        );
        add(
            r#"{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----\n", "client_email": "a@b.iam"}"#.into(),
            vec!["MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7".into()],
            vec![r#""private_key": "-----BEGIN PRIVATE KEY-----\n"#, r#"\n-----END PRIVATE KEY-----\n", "client_email": "a@b.iam"}"#],
        );
        add(
            "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIIrYSSNQFaA2Hwf1duRSxKtLYX5CB04fSeQ6tF1aY/PuoAoGCCqGSM49".into(),
            vec!["MHcCAQEEIIrYSSNQFaA2Hwf1duRSxKtLYX5CB04fSeQ6tF1aY".into()],
            vec!["-----BEGIN EC PRIVATE KEY-----\n"],
        );
        // --- assignments
        add(
            "password=hunter22 ".into(),
            vec!["hunter22".into()],
            vec!["password=", " "],
        );
        add(
            r#"{"password": "correct-Horse-9"}"#.into(),
            vec!["correct-Horse-9".into()],
            vec![r#"{"password": ""#, r#""}"#],
        );
        add(
            "api_key: \"a1b2c3d4e5f6\"\n".into(),
            vec!["a1b2c3d4e5f6".into()],
            vec!["api_key: \"", "\"\n"],
        );
        add(
            "client_secret = 'Zq8~xP2!mN4'".into(),
            vec!["Zq8~xP2!mN4".into()],
            vec!["client_secret = '", "'"],
        );
        add(
            "DB_PASSWORD=s3cr3tP4ss\nDB_HOST=db".into(),
            vec!["s3cr3tP4ss".into()],
            vec!["DB_PASSWORD=", "\nDB_HOST=db"],
        );
        add(
            "$config['password'] => 'Tr0ub4dor&3';".into(),
            vec!["Tr0ub4dor&3".into()],
            vec!["$config['password'] => '", "';"],
        );
        add(
            "token := \"abc123xyz789\"".into(),
            vec!["abc123xyz789".into()],
            vec!["token := \""],
        );
        add(
            r#"{\"api_key\": \"a1b2c3d4e5f6g7\"}"#.into(),
            vec!["a1b2c3d4e5f6g7".into()],
            vec![r#"{\"api_key\": \""#, r#"\"}"#],
        );
        add(
            "mysql --password=Sup3rS3cret --host db".into(),
            vec!["Sup3rS3cret".into()],
            vec!["mysql --password=", " --host db"],
        );
        add(
            "auth_token=deadbeef1234&x".into(),
            vec!["deadbeef1234".into()],
            vec!["auth_token=", "&x"],
        );
        add(
            "SECRET_KEY = '7f3e9a0b1c2d3e4f5a6b7c8d9e0f'".into(),
            vec!["7f3e9a0b1c2d3e4f5a6b7c8d9e0f".into()],
            vec!["SECRET_KEY = '", "'"],
        );
        add(
            "Server=db;Database=app;User Id=sa;Password=P@ssw0rd1;".into(),
            vec!["P@ssw0rd1".into()],
            vec!["Server=db;Database=app;User Id=sa;Password=", ";"],
        );
        add(
            "passphrase: \"aVeryLongPassphraseWithoutDigits\"".into(),
            vec!["aVeryLongPassphraseWithoutDigits".into()],
            vec!["passphrase: \""],
        );
        add(
            "db.pass = 9981723364".into(),
            vec!["9981723364".into()],
            vec!["db.pass = "],
        );
        // --- URLs inside text
        add(
            "GET https://api.example.com/v1?api_key=abc123&page=2 200".into(),
            vec!["abc123".into()],
            vec!["GET https://api.example.com/v1?api_key=", "&page=2 200"],
        );
        add(
            "<script src=\"https://maps.googleapis.com/maps/api/js?key=qwerty&callback=init\"></script>".into(),
            vec!["qwerty".into()],
            vec!["js?key=", "&callback=init\"></script>"],
        );
        add(
            "redirected to https://example.com/cb#access_token=tok123xyz&state=xyzzy&token_type=bearer".into(),
            vec!["tok123xyz".into(), "xyzzy".into()],
            vec!["#access_token=", "&state=", "&token_type=bearer"],
        );
        add(
            "connect https://user:pa55w0rd@db.example.com:5432/app now".into(),
            vec!["pa55w0rd".into()],
            vec!["connect https://user:", "@db.example.com:5432/app now"],
        );
        add(
            "DATABASE_URL=postgres://admin:s3cret!x@localhost/db".into(),
            vec!["s3cret!x".into()],
            vec!["postgres://admin:", "@localhost/db"],
        );
        add(
            "redis://:redispass@cache:6379/0".into(),
            vec!["redispass".into()],
            vec!["redis://:", "@cache:6379/0"],
        );
        add(
            "<a href=\"/login?next=/home&amp;sessionid=qpwoeiruty\">log in</a>".into(),
            vec!["qpwoeiruty".into()],
            vec!["&amp;sessionid=", "\">log in</a>"],
        );
        add(
            "https://bucket.s3.amazonaws.com/f?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIDEXAMPLE%2F20240101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Signature=abcdef0123456789&X-Amz-Security-Token=FQoGZXIvYXdzEXAMPLE".into(),
            vec!["AKIDEXAMPLE%2F20240101".into(), "abcdef0123456789".into(), "FQoGZXIvYXdzEXAMPLE".into()],
            vec!["X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=", "&X-Amz-Signature="],
        );
        add(
            "see https://storage.googleapis.com/b/o?X-Goog-Signature=0a1b2c3d9f&X-Goog-Date=20240101".into(),
            vec!["0a1b2c3d9f".into()],
            vec!["X-Goog-Signature=", "&X-Goog-Date=20240101"],
        );
        add(
            "https://example.com/oauth/callback?code=4/P7q7W91&state=zzqqyy".into(),
            vec!["4/P7q7W91".into(), "zzqqyy".into()],
            vec!["callback?code=", "&state="],
        );
        add(
            "https://example.com/page;jsessionid=A1B2C3D4E5F6?x=1".into(),
            vec!["A1B2C3D4E5F6".into()],
            vec!["https://example.com/page;jsessionid=", "?x=1"],
        );
        add(
            "https://example.com/?sig=Zm9vYmFy&sid=s%3Aqwe&Password=letmein".into(),
            vec!["Zm9vYmFy".into(), "s%3Aqwe".into(), "letmein".into()],
            vec!["?sig=", "&sid=", "&Password="],
        );
        add(
            "POST body: grant_type=refresh_token&refresh_token=1%2F%2Fabc123&client_secret=plainwords".into(),
            vec!["1%2F%2Fabc123".into(), "plainwords".into()],
            vec!["grant_type=refresh_token&refresh_token=", "&client_secret="],
        );
        add(
            "ws://host/socket?token=abc. Then".into(),
            vec!["=abc".into()],
            vec!["ws://host/socket?token=", ". Then"],
        );
        // Bare URLs (also run through redact_url).
        add(
            "https://api.example.com/v2/items?access_token=Zx81mQ&limit=10".into(),
            vec!["Zx81mQ".into()],
            vec!["?access_token=", "&limit=10"],
        );
        add(
            "https://example.com/reset#id_token=qqq.www.eee&refresh_token=rrtt11".into(),
            vec!["qqq.www.eee".into(), "rrtt11".into()],
            vec!["#id_token=", "&refresh_token="],
        );
        add(
            "https://example.com/login?client_secret=Cs1Cs2Cs3&authorization=Authz9".into(),
            vec!["Cs1Cs2Cs3".into(), "Authz9".into()],
            vec!["?client_secret=", "&authorization="],
        );
        add(
            "https://example.com/?session=sEsS10n&cookie=c00kie1&passwd=pw0rd1".into(),
            vec!["sEsS10n".into(), "c00kie1".into(), "pw0rd1".into()],
            vec!["?session=", "&cookie=", "&passwd="],
        );
        add(
            "https://example.com/a?pwd=abcxyz&secret=qwertz&api-key=k3yk3y".into(),
            vec!["=abcxyz".into(), "qwertz".into(), "k3yk3y".into()],
            vec!["?pwd=", "&secret=", "&api-key="],
        );
        add(
            "https://example.com/?state=onlyletters&auth=lettersonly".into(),
            vec!["onlyletters".into(), "=lettersonly".into()],
            vec!["?state=", "&auth="],
        );
        add(
            "[docs](https://example.com/x?apikey=Q1W2E3R4)".into(),
            vec!["Q1W2E3R4".into()],
            vec!["[docs](https://example.com/x?apikey=", ")"],
        );
        v
    }

    #[test]
    fn secret_table() {
        let r = Redactor::new();
        let cases = secret_cases();
        assert!(cases.len() >= 60, "only {} secret cases", cases.len());
        for (input, secrets, keep) in &cases {
            let out = r.redact_text(input);
            for s in secrets {
                assert!(
                    !out.contains(s.as_str()),
                    "secret {s:?} survived in {out:?}"
                );
            }
            for k in keep {
                assert!(out.contains(k), "context {k:?} lost: {input:?} -> {out:?}");
            }
            assert!(out.contains(TEXT_MARKER), "no marker in {out:?}");
            assert_eq!(r.redact_text(&out), out, "not idempotent on {input:?}");
        }
    }

    /// Secret cases through `redact_url` (each of the URL inputs above that is a bare URL).
    #[test]
    fn secret_table_urls() {
        let r = Redactor::new();
        let mut n = 0;
        for (input, secrets, _) in secret_cases() {
            if input.contains(' ') || url::Url::parse(&input).is_err() {
                continue;
            }
            n += 1;
            let out = r.redact_url(&input);
            for s in &secrets {
                assert!(
                    !out.contains(s.as_str()),
                    "secret {s:?} survived in {out:?}"
                );
            }
            assert!(url::Url::parse(&out).is_ok(), "{out:?} no longer parses");
            assert!(!out.contains(TEXT_MARKER));
            assert_eq!(r.redact_url(&out), out);
        }
        assert!(n >= 8, "only {n} URL cases");
    }

    const BENIGN_TEXT: &[&str] = &[
        "Authentication: required.",
        "Set the token field to your API key",
        "See the password reset instructions.",
        "Follow the password reset instructions in the email.",
        "commit 3f786850e387550fdab836ed7e6dc881de23001b",
        "Merge pull request #42 from owner/branch (a94a8fe5ccb19ba61c4c0873d391e987982fbbd3)",
        "https://github.com/rust-lang/rust/commit/3f786850e387550fdab836ed7e6dc881de23001b",
        "id 550e8400-e29b-41d4-a716-446655440000 created",
        "sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "SHA256 (vetch-0.1.0.tar.gz) = e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "integrity=\"sha384-oqVuAfXRKap7fdgcCY5uykM6+R9GqQ8K/uxy9rx7HNQlGYl1kPzQho1wx4JwY8wC\"",
        "color: #ff5733; background: #fff; border-color: #A1B2C3;",
        ".token.keyword { color: #07a; } .token.string{color:#690}",
        "<img src=\"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==\" alt=\"dot\">",
        "version 1.2.3-beta.4+build.567, released v2.0.0-rc.1",
        "https://example.com/list?page=2&sort=desc&session_length=30",
        "?page=2&sort=desc&session_length=30",
        "api_key=YOUR_API_KEY",
        "curl https://api.example.com/v1/data?api_key=YOUR_API_KEY",
        "export OPENAI_API_KEY=\"YOUR_API_KEY\"",
        "Authorization: Bearer <token>",
        "Authorization: Bearer $TOKEN",
        "curl -H \"Authorization: Bearer ${GITHUB_TOKEN}\" https://api.github.com",
        "-H \"Authorization: Bearer YOUR_TOKEN\"",
        "password: ********",
        "token = xxx",
        "api_key: \"\"",
        "The bearer of this letter is a friend.",
        "Basic authentication is supported.",
        "basic usage and advanced topics",
        "Use Bearer tokens for the API.",
        "Token: required",
        "Password: must be at least 8 characters",
        "token_type: bearer",
        "max_tokens: 4096",
        "password_reset=true",
        "tokenizer=fast",
        "session_length=30",
        "The secret to good bread is patience.",
        "key: value",
        "{\"key\": \"user-name\", \"value\": 3}",
        "sk-learn-tutorial-for-beginners-2024",
        "https://example.com/blog/sk-learn-tutorial-for-beginners-2024",
        "task-1234567890abcdefghijKLMN",
        "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUX\n-----END CERTIFICATE-----",
        "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----",
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl user@host",
        "https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42s",
        "https://example.com/search?q=rust+async&lang=en&country_code=US",
        "mailto:someone@example.com?subject=Hello",
        "git@github.com:owner/repo.git",
        "http://localhost:8080/path and ftp://ftp.example.com/pub/file.txt",
        "Price: $1,234.56 on 2024-05-01T12:34:56Z",
        "x = a && b || c; if (token == null) return;",
        "const token = getToken();",
        "token = os.environ[\"TOKEN\"]",
        "api_key = process.env.API_KEY",
        "password = None",
        "secret: true",
        "docker pull vault:1.13.0",
        "Cookie: chocolate chip",
        "The Set-Cookie header is explained below.",
        "See RFC 6750 (Bearer Token Usage).",
        "ghp_ tokens start with ghp_ and gho_ ones with gho_.",
        "Error: invalid credentials: check the config",
        "Session: 2024 Spring",
        "code: 404, state: open",
        "#section-2 &nbsp;&amp;&lt;",
        "<code>let x = 1;</code>",
        "passwd: files systemd",
        "hash=5d41402abc4b2a76b9719d911017c592",
        "eyJhbGciOiJIUzI1NiJ9 is just a base64 header",
        "<span class=\"token keyword\">fn</span>",
        "{ key: 'id', state: 'open', code: 200 }",
        "Your API key: find it in the dashboard",
        "Keys: primary, secondary",
        "The auth flow: redirect, consent, callback.",
        "secretName: my-app-secret",
        "mysecret:v1.2.3",
        "Use the `--token` flag or the TOKEN environment variable.",
        "bypass=enabled1 compass=north2",
        "PWD=/home/user/project",
        "a.b.c.d = 10.0.0.1",
        "Über-long prose with ünïcödé: password reset für alle — token…",
        "日本語のテキスト token: 確認",
        "https://example.com/?next_page_token=abc123&pageToken=CAUQAA",
        "See https://example.com/a?b=c. Then continue.",
    ];

    #[test]
    fn benign_text_unchanged() {
        let r = Redactor::new();
        assert!(
            BENIGN_TEXT.len() >= 60,
            "only {} benign cases",
            BENIGN_TEXT.len()
        );
        for input in BENIGN_TEXT {
            assert_eq!(&r.redact_text(input), input);
        }
    }

    const BENIGN_URLS: &[&str] = &[
        "https://example.com/list?page=2&sort=desc&session_length=30",
        "https://github.com/o/r/commit/3f786850e387550fdab836ed7e6dc881de23001b",
        "https://example.com/items/550e8400-e29b-41d4-a716-446655440000?view=full",
        "https://example.com/?api_key=YOUR_API_KEY",
        "https://example.com/?token=",
        "https://example.com/?token={token}&key=<key>",
        "https://example.com/#section-2",
        "https://user@example.com/",
        "https://example.com:8443/a/b?c=d#e",
        "https://example.com/search?q=password+reset",
        "https://example.com/?keyword=rust&encoding=utf-8&barcode=3&statement=x",
        "http://[::1]:8080/x",
        "https://example.com/path%20with%20spaces?x=%E2%9C%93",
        "https://example.com/?next_page_token=abc123&pageToken=CAUQAA",
        "HTTPS://EXAMPLE.COM/A?B=C",
        "https://example.com/a/../b/./c",
        "https://example.com",
        "https://example.com/?utm_source=newsletter&utm_medium=email",
        "https://sk-learn.example.com/sk-learn-tutorial-for-beginners-2024",
        "https://example.com/?q=Authentication%3A+required.",
        "mailto:someone@example.com?subject=Hello",
        "https://example.com/?session_length=30&tokens=5&passwords_reset=1",
        "https://example.com/?color=%23ff5733",
        "file:///etc/hosts",
        "https://example.com/?code=",
    ];

    #[test]
    fn benign_urls_unchanged() {
        let r = Redactor::new();
        for input in BENIGN_URLS {
            assert_eq!(&r.redact_url(input), input);
            assert_eq!(&r.redact_text(input), input);
        }
    }

    #[test]
    fn url_exact_outputs() {
        let r = Redactor::new();
        let cases = [
            (
                "https://example.com/?token=abc",
                "https://example.com/?token=REDACTED",
            ),
            (
                "https://user:pass@example.com/",
                "https://user:REDACTED@example.com/",
            ),
            (
                "https://example.com/cb#access_token=x1&state=y&token_type=bearer",
                "https://example.com/cb#access_token=REDACTED&state=REDACTED&token_type=bearer",
            ),
            (
                "https://example.com/?API_KEY=abc&x=1",
                "https://example.com/?API_KEY=REDACTED&x=1",
            ),
            (
                "https://example.com/?api%5Fkey=abc",
                "https://example.com/?api%5Fkey=REDACTED",
            ),
            (
                "https://example.com/a?code=c&state=s#frag",
                "https://example.com/a?code=REDACTED&state=REDACTED#frag",
            ),
            (
                "https://example.com/#/cb?code=abc&other=1",
                "https://example.com/#/cb?code=REDACTED&other=1",
            ),
            (
                "https://example.com/?key=a%20b)c",
                "https://example.com/?key=REDACTED",
            ),
            (
                "https://EXAMPLE.com/?Sig=1",
                "https://EXAMPLE.com/?Sig=REDACTED",
            ),
        ];
        for (input, want) in cases {
            assert_eq!(r.redact_url(input), want);
            assert!(url::Url::parse(want).is_ok());
        }
        // Not a URL: redacted as text.
        assert_eq!(
            r.redact_url("not a url password=hunter22"),
            "not a url password=[REDACTED]"
        );
        // A token in the path.
        let t = format!("ghp_{}", alnum(36, 99));
        assert_eq!(
            r.redact_url(&format!("https://example.com/{t}/x")),
            "https://example.com/REDACTED/x"
        );
    }

    #[test]
    fn markers_and_kept_prefixes() {
        let r = Redactor::new();
        assert_eq!(
            r.redact_text("Authorization: Bearer abc123def456"),
            "Authorization: Bearer [REDACTED]"
        );
        assert_eq!(r.redact_text("password=hunter22"), "password=[REDACTED]");
        assert_eq!(
            r.redact_text("see https://u:p4ss@h.example/x?token=t&page=2"),
            "see https://u:[REDACTED]@h.example/x?token=[REDACTED]&page=2"
        );
        assert_eq!(
            r.redact_text("-----BEGIN PRIVATE KEY-----\nAAAA\nBBBB\n-----END PRIVATE KEY-----"),
            "-----BEGIN PRIVATE KEY-----\n[REDACTED]\n-----END PRIVATE KEY-----"
        );
        assert!(url::Url::parse(&r.redact_text("https://u:p4ss@h.example/?token=t")).is_ok());
    }

    const LITERAL: &str = "s3cr3t \"VALUE\"/with+chars&more\\end<é>";

    #[test]
    fn literal_secrets_in_every_encoding() {
        let mut r = Redactor::new();
        r.add_secret(LITERAL);
        let forms = encodings(LITERAL);
        assert!(forms.len() >= 6);
        let json = serde_json::to_string(LITERAL).unwrap_or_default();
        let json_inner = &json[1..json.len() - 1];
        let pct_strict: String = LITERAL
            .bytes()
            .map(|b| {
                if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                    (b as char).to_string()
                } else {
                    format!("%{b:02X}")
                }
            })
            .collect();
        let samples = [
            LITERAL.to_string(),
            pct_strict.clone(),
            LITERAL
                .bytes()
                .map(|b| {
                    if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                        (b as char).to_string()
                    } else {
                        format!("%{b:02x}")
                    }
                })
                .collect::<String>(),
            json_inner.to_string(),
            json_inner.replace('/', "\\/"),
            "s3cr3t &quot;VALUE&quot;/with+chars&amp;more\\end&lt;é&gt;".to_string(),
        ];
        for (i, form) in samples.iter().enumerate() {
            for (pre, post) in [("", ""), ("x", "y"), ("before ", " after"), ("\"", "\"")] {
                let text = format!("{pre}{form}{post}");
                let out = r.redact_text(&text);
                assert!(!out.contains(form.as_str()), "form {i} survived: {out:?}");
                assert_eq!(out, format!("{pre}{TEXT_MARKER}{post}"), "form {i}");
            }
        }
        // In a URL, as a query value and as a password.
        let url = format!("https://example.com/?q={pct_strict}&x=1");
        assert_eq!(r.redact_url(&url), "https://example.com/?q=REDACTED&x=1");
        let mut r2 = Redactor::new();
        r2.add_secret("hunter2hunter2");
        assert_eq!(
            r2.redact_url("https://me:hunter2hunter2@example.com/"),
            "https://me:REDACTED@example.com/"
        );
        assert_eq!(
            r2.redact_text("echo: path=/a/hunter2hunter2/b"),
            "echo: path=/a/[REDACTED]/b"
        );
        // In serialized JSON, where the value appears escaped.
        let doc = serde_json::json!({ "content": format!("got {LITERAL} back"), "n": 1 });
        let s = serde_json::to_string(&doc).unwrap_or_default();
        let out = r.redact_json_text(&s);
        assert!(!out.contains(json_inner));
        assert_eq!(out, r#"{"content":"got [REDACTED] back","n":1}"#);
    }

    /// One sample per vendor family (issue 11's list and gitleaks' prefixed rules): each is
    /// redacted in prose, in an assignment and in JSON, and its name or context survives.
    fn family_samples() -> Vec<(&'static str, String)> {
        let a = |n: usize, seed: u64| alnum(n, seed);
        let h = |n: usize, seed: u64| hex(n, seed);
        vec![
            ("digitalocean pat", format!("dop_v1_{}", h(64, 1))),
            ("digitalocean oauth", format!("doo_v1_{}", h(64, 2))),
            ("digitalocean refresh", format!("dor_v1_{}", h(64, 3))),
            ("mailgun", format!("key-{}", h(32, 4))),
            ("telegram", format!("123456789:AA{}", a(33, 5))),
            (
                "discord webhook",
                format!(
                    "https://discord.com/api/webhooks/123456789012345678/{}",
                    a(68, 6)
                ),
            ),
            ("pypi", format!("pypi-AgEIcHlwaS5vcmc{}", a(70, 7))),
            ("groq", format!("gsk_{}", a(52, 8))),
            ("twilio key", format!("SK{}", h(32, 9))),
            ("gitlab pat", format!("glpat-{}", a(20, 10))),
            ("gitlab deploy", format!("gldt-{}", a(20, 11))),
            ("gitlab runner", format!("glrt-{}", a(20, 12))),
            (
                "gitlab runner registration",
                format!("GR1348941{}", a(20, 13)),
            ),
            (
                "anthropic",
                format!("sk-ant-api03-{}-{}AA", a(80, 14), a(10, 15)),
            ),
            ("sendgrid", format!("SG.{}.{}", a(22, 16), a(43, 17))),
            ("npm", format!("npm_{}", a(36, 18))),
            ("hugging face", format!("hf_{}", a(34, 19))),
            ("hugging face org", format!("api_org_{}", a(34, 20))),
            ("shopify", format!("shpat_{}", h(32, 21))),
            ("shopify shared", format!("shpss_{}", h(32, 22))),
            ("linear", format!("lin_api_{}", a(40, 23))),
            ("notion", format!("secret_{}", a(43, 24))),
            ("notion ntn", format!("ntn_{}{}", "12345678901", a(35, 25))),
            ("doppler", format!("dp.pt.{}", a(43, 26))),
            ("vault service", format!("hvs.{}", a(95, 27))),
            ("vault batch", format!("hvb.{}", a(140, 28))),
            ("postman", format!("PMAK-{}-{}", h(24, 29), h(34, 30))),
            ("pulumi", format!("pul-{}", h(40, 31))),
            (
                "terraform cloud",
                format!("{}.atlasv1.{}", a(14, 32), a(67, 33)),
            ),
            ("databricks", format!("dapi{}", h(32, 34))),
            ("square access", format!("EAAA{}", a(60, 35))),
            ("square secret", format!("sq0csp-{}", a(43, 36))),
            ("planetscale", format!("pscale_tkn_{}", a(43, 37))),
            ("supabase", format!("sbp_{}", h(40, 38))),
            ("atlassian", format!("ATATT3{}", a(186, 39))),
            ("sentry user token", format!("sntryu_{}", h(64, 40))),
            ("heroku", format!("HRKU-{}", a(60, 41))),
            ("slack app", format!("xapp-1-{}", a(40, 42))),
            (
                "age",
                format!(
                    "AGE-SECRET-KEY-1{}",
                    "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7LQPZRY9X8GF2TVDW0S3JN54KHCE"
                ),
            ),
            ("grafana sa", format!("glsa_{}_{}", a(32, 43), h(8, 44))),
            (
                "new relic",
                format!("NRAK-{}", "ABCDEFGHIJ0123456789KLMNOPQ"),
            ),
            ("prefect", format!("pnu_{}", a(36, 45))),
            ("rubygems", format!("rubygems_{}", h(48, 46))),
            ("brevo", format!("xkeysib-{}-{}", h(64, 47), a(16, 48))),
            ("shippo", format!("shippo_live_{}", h(40, 49))),
            ("dynatrace", format!("dt0c01.{}.{}", a(24, 50), a(64, 51))),
            ("perplexity", format!("pplx-{}", a(48, 52))),
            ("contentful", format!("CFPAT-{}", a(43, 53))),
            ("easypost", format!("EZAK{}", a(54, 54))),
            ("alibaba", format!("LTAI{}", a(20, 55))),
            ("duffel", format!("duffel_live_{}", a(43, 56))),
            ("fly.io", format!("fo1_{}", a(43, 57))),
            ("artifactory", format!("AKCp{}", a(69, 58))),
            ("xai", format!("xai-{}", a(80, 59))),
            ("airtable", format!("pat{}.{}", a(14, 60), h(64, 61))),
        ]
    }

    #[test]
    fn every_family_is_redacted() {
        let r = Redactor::new();
        for (family, tok) in family_samples() {
            for (pre, post) in [
                ("see ", " for details."),
                ("TOKEN=", "\n"),
                ("{\"key\": \"", "\"}"),
                ("<td>", "</td>"),
            ] {
                let input = format!("{pre}{tok}{post}");
                let out = r.redact_text(&input);
                let secret = tok.rsplit('/').next().unwrap_or(&tok);
                assert!(!out.contains(secret), "{family}: survived in {out:?}");
                assert!(
                    out.starts_with(pre) && out.ends_with(post),
                    "{family}: context lost: {out:?}"
                );
                assert_eq!(r.redact_text(&out), out, "{family}: not idempotent");
            }
            // Escaped as a Markdown converter writes it.
            let md = tok.replace('_', "\\_").replace('.', "\\.");
            let out = r.redact_text(&format!("key {md} end"));
            let secret = tok.rsplit('/').next().unwrap_or(&tok);
            assert!(
                !reader_view(&out).contains(secret),
                "{family}: escaped form survived: {out:?}"
            );
        }
        // Tokens next to their names.
        for (input, secret) in [
            ("DD_API_KEY=0a1b2c3d4e5f60718293a4b5c6d7e8f9", "0a1b2c3d4e5f60718293a4b5c6d7e8f9"),
            ("DATADOG_APP_KEY: 0a1b2c3d4e5f60718293a4b5c6d7e8f901234567", "0a1b2c3d4e5f60718293a4b5c6d7e8f901234567"),
            ("HEROKU_API_KEY=01234567-89ab-cdef-0123-456789abcdef", "01234567-89ab-cdef-0123-456789abcdef"),
            ("TWILIO_AUTH_TOKEN=9f8e7d6c5b4a39281706f5e4d3c2b1a0", "9f8e7d6c5b4a39281706f5e4d3c2b1a0"),
            ("DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYmF6cQ==;EndpointSuffix=core.windows.net", "Zm9vYmFyYmF6cXV4Zm9vYmFy"),
            ("SENTRY_DSN=https://0123456789abcdef0123456789abcdef:fedcba9876543210fedcba9876543210@o1.ingest.sentry.io/2", "fedcba9876543210fedcba9876543210"),
            ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYzz9KEY", "wJalrXUtnFEMI/K7MDENG"),
            ("\"client_secret\": \"9dF3kQ2mX7pL1vB4nR8t\"", "9dF3kQ2mX7pL1vB4nR8t"),
            ("DB_PASSWORD=Tr0ub4dor-and-3", "Tr0ub4dor-and-3"),
            ("db:\n  password: s3cr3t-Pa55w0rd\n", "s3cr3t-Pa55w0rd"),
        ] {
            let out = r.redact_text(input);
            assert!(!out.contains(secret), "{input:?} -> {out:?}");
        }
    }

    /// Look-alikes of the families: identifiers, hashes, data, code and placeholders.
    const BENIGN_FAMILY_LOOKALIKES: &[&str] = &[
        "postgresql://user:password@localhost:5432/dbname",
        "mysql://root:password@127.0.0.1/app and redis://:secret@localhost:6379",
        "Set api_key to <your-api-key> or YOUR_TOKEN_HERE.",
        "OPENAI_API_KEY=sk-... and token: xxxxxxxx",
        "api_key=${API_KEY} password: changeme",
        "token = \"your-token-here\"; secret: example-secret-value",
        "DB_PASSWORD=dummy_password_123 or placeholder-token-9",
        "the token 550e8400-e29b-41d4-a716-446655440000 expired",
        "Token ID 550e8400-e29b-41d4-a716-446655440000",
        "key-value store, key-a1b2 and monkey-0123456789abcdef0123456789abcdef",
        "secret_santa_gift_exchange_planning_committee_2024",
        "dapi is a prefix; dapiversion=3",
        "secret_key_base is set in config/secrets.yml",
        "glpat- tokens are documented; gsk_ is Groq's prefix; dop_v1_ is DigitalOcean's.",
        "EAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "background:url(data:image/png;base64,iVBORw0KGgoEAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==)",
        "function(e){return e.token&&e.token.length>0?bearer(e):null}",
        "The bearer token is sent in the header; bearer tokens expire.",
        "bearer 3f786850e387550fdab836ed7e6dc881de23001b",
        "https://example.com/?page=2&sort=desc&token[]=",
        "https://example.com/?tags[]=rust&tags[]=web",
        "https://user@example.com/ and ssh://git@github.com/o/r.git",
        "https://john.doe.smith@example.com/profile",
        "-----BEGIN PRIVATE KEY----- ... -----END PRIVATE KEY-----",
        "-----BEGIN PUBLIC KEY----- MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE -----END PUBLIC KEY-----",
        "Authentication: required.",
        "x-amz-date: 20240101T000000Z; Authorization header required",
        "123456789:AB is a ratio; 12:AA is a time",
        "https://discord.com/api/webhooks/ is the endpoint",
        "pypi-AgEIcHlwaS5vcmc is the prefix of every PyPI token",
    ];

    #[test]
    fn family_lookalikes_unchanged() {
        let r = Redactor::new();
        for input in BENIGN_FAMILY_LOOKALIKES {
            assert_eq!(&r.redact_text(input), input);
        }
        assert_eq!(
            r.redact_url("postgresql://user:password@localhost:5432/dbname"),
            "postgresql://user:password@localhost:5432/dbname"
        );
    }

    /// Issue 11's red-team findings, one by one.
    #[test]
    fn red_team_cases() {
        let r = Redactor::new();
        let ghp = format!("ghp_{}", alnum(36, 301));
        let cases: Vec<(String, &str, &str)> = vec![
            ("https://x.example/?token[]=Zz9Yy8Xx7Ww6&b=1".into(), "Zz9Yy8Xx7Ww6", "&b=1"),
            ("see ?token[0]=Zz9Yy8Xx7Ww6 ok".into(), "Zz9Yy8Xx7Ww6", " ok"),
            ("https://x.example/?next=https%3A%2F%2Fa.example%2Fcb%3Ftoken%3DZz9Yy8Xx7Ww6%26x%3D1".into(), "Zz9Yy8Xx7Ww6", "%26x%3D1"),
            ("log: token%3DZz9Yy8Xx7Ww6 done".into(), "Zz9Yy8Xx7Ww6", " done"),
            ("GET /v1?api%5Fkey=Zz9Yy8Xx7Ww6 HTTP/1.1".into(), "Zz9Yy8Xx7Ww6", " HTTP/1.1"),
            ("send it as bearer k3VZp9QmX2rT7wLs8Yb4 in prose".into(), "k3VZp9QmX2rT7wLs8Yb4", " in prose"),
            ("clone http://k3VZp9QmX2rT7wLs8Yb4nM5q@git.example/r.git".into(), "k3VZp9QmX2rT7wLs8Yb4nM5q", "@git.example/r.git"),
            ("<p>-----BEGIN RSA PRIVATE KEY----- MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7 aFDrBz9vFqU4yMU8W8C7 -----END RSA PRIVATE KEY-----</p>".into(), "MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn", "-----END RSA PRIVATE KEY-----</p>"),
            ("-----BEGIN PRIVATE KEY-----<br>MIIEvQIBADANBgkqhkiG9w0BAQEFAASC<br/>BKcwggSjAgEAAoIBAQC7<br>-----END PRIVATE KEY-----".into(), "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", "-----END PRIVATE KEY-----"),
            ("<title>-----BEGIN EC PRIVATE KEY----- MHcCAQEEIIrYSSNQFaA2Hwf1duRSxKtLYX5CB04fSeQ6tF1aY".into(), "MHcCAQEEIIrYSSNQFaA2Hwf1duRSxKtLYX5CB04f", "<title>-----BEGIN EC PRIVATE KEY-----"),
            (format!("a soft-hyphenated {}", ghp.replacen('_', "_\u{AD}", 1)), "ghp_", "a soft-hyphenated "),
            ("<pre>{&quot;api_token&quot;: &quot;Zz9Yy8Xx7Ww6&quot;}</pre>".into(), "Zz9Yy8Xx7Ww6", "<pre>{&quot;api_token&quot;: &quot;"),
        ];
        for (input, secret, keep) in &cases {
            let out = r.redact_text(input);
            assert!(!reader_view(&out).contains(secret), "{input:?} -> {out:?}");
            assert!(out.contains(keep), "{keep:?} lost: {input:?} -> {out:?}");
            assert_eq!(r.redact_text(&out), out, "not idempotent on {input:?}");
        }
        // A requested URL that does not parse: the password goes before the echo.
        for url in [
            "https://admin:pa#ss/w?rd@db.example.com/x",
            "https://admin:pa?ss#w0rd@db.example.com:5432/x?y=1",
            "ftp://me:se/cr?et@files.example/",
        ] {
            assert!(url::Url::parse(url)
                .map(|u| u.host_str() != Some("db.example.com"))
                .unwrap_or(true));
            let out = r.redact_url(url);
            assert!(
                !out.contains("pa#ss") && !out.contains("ss#w0rd") && !out.contains("se/cr"),
                "{url} -> {out}"
            );
            assert!(out.contains("://admin:") || out.contains("://me:"), "{out}");
            assert_eq!(r.redact_url(&out), out);
        }
        // A token cut by the body cap.
        let cut = format!("page text ... export TOKEN={}", &ghp[..8]);
        let out = r.redact_truncated_tail(&cut);
        assert_eq!(out, "page text ... export TOKEN=[REDACTED]");
        assert_eq!(
            r.redact_truncated_tail("docs mention ghp_k3VZ"),
            "docs mention [REDACTED]"
        );
        assert_eq!(
            r.redact_truncated_tail("key dop_v1_0a1b2c"),
            "key [REDACTED]"
        );
        assert_eq!(
            r.redact_truncated_tail("Authorization: Bearer k3V"),
            "Authorization: Bearer [REDACTED]"
        );
        let mut lit = Redactor::new();
        lit.add_secret("team_prod_key_9f8e7d6c5b4a");
        assert_eq!(
            lit.redact_truncated_tail("echo team_prod_k"),
            "echo [REDACTED]"
        );
        for benign in [
            "ordinary prose that ends here",
            "see the docs at https://example.com/a",
            "sk-",
            "ghp_",
            "count: 42",
            "",
        ] {
            assert_eq!(r.redact_truncated_tail(benign), benign);
        }
    }

    #[test]
    fn operator_rules_apply_everywhere() {
        let mut r = Redactor::new();
        let rules = parse_gitleaks_rules(
            "[[rules]]\nid = \"acme\"\nregex = '(?i)acme_([a-z0-9]{24})'\nsecretGroup = 1\nkeywords = [\"acme\"]\n",
        )
        .unwrap_or_default();
        assert_eq!(rules.len(), 1);
        r.add_rules(rules);
        let out = r.redact_text("key acme_k3vzp9qmx2rt7wls8yb4nm5q end");
        assert_eq!(out, "key acme_[REDACTED] end");
        assert_eq!(r.redact_text(&out), out);
        let out = r.redact_text("key acme\\_k3vzp9qmx2rt7wls8yb4nm5q end");
        assert!(
            !reader_view(&out).contains("k3vzp9qmx2rt7wls8yb4nm5q"),
            "{out}"
        );
        let out = r.redact_url("https://x.example/acme_k3vzp9qmx2rt7wls8yb4nm5q/a");
        assert_eq!(out, "https://x.example/acme_REDACTED/a");
        assert!(format!("{r:?}").contains("extra_rules: 1"));
    }

    #[test]
    fn lone_userinfo_token_is_registered_from_the_requested_url() {
        let r = Redactor::new().with_url_secrets("https://k3VZp9QmX2rT7wLs8Yb4nM5q@git.example/r");
        assert_eq!(
            r.redact_text("echo: user k3VZp9QmX2rT7wLs8Yb4nM5q denied"),
            "echo: user [REDACTED] denied"
        );
        let plain = Redactor::new().with_url_secrets("https://john@example.com/");
        assert_eq!(plain.redact_text("hello john"), "hello john");
    }

    #[test]
    fn only_secret_like_values_of_the_requested_url_are_scrubbed_from_text() {
        // Regression (issue 23): `?code=python` replaced every "python" of the page.
        let page = "Learn python 3 today; python2 is gone. Docs 2026-11-02, page 12345678.";
        for url in [
            "https://docs.example/search?code=python",
            "https://docs.example/search?code=python2&state=documentation",
            "https://docs.example/?session=12345678&token=YOUR_TOKEN_HERE",
            "https://user:password@docs.example/?key=javascript#access_token=python",
        ] {
            let r = Redactor::new().with_url_secrets(url);
            assert_eq!(r.redact_text(page), page, "{url}");
            // The values are still hidden where they stand in the URL.
            assert!(!r.redact_url(url).contains("python"), "{url}");
        }
        // A value that looks like a secret is scrubbed wherever it is echoed.
        for url in [
            "https://api.example/v1?code=4/0AX4XfWjk3VZp9QmX2rT",
            "https://api.example/v1?api_key=hunter2hunter2",
            "https://bob:S3cr3t-Passw0rd@api.example/",
        ] {
            let r = Redactor::new().with_url_secrets(url);
            let secret = [
                "4/0AX4XfWjk3VZp9QmX2rT",
                "hunter2hunter2",
                "S3cr3t-Passw0rd",
            ]
            .into_iter()
            .find(|s| url.contains(s))
            .unwrap_or_default();
            let out = r.redact_text(&format!("the server said {secret} back"));
            assert_eq!(out, "the server said [REDACTED] back", "{url}");
        }
    }

    /// What a reader sees in `s`: its escapes undone, invisible characters dropped.
    fn reader_view(s: &str) -> String {
        escapes::View::build(s).map_or_else(|| s.to_string(), |v| v.text)
    }

    /// Issue 11: in raw HTML a token split by inline tags (`ghp_abc<b>def</b>ghi`) reads
    /// as one word in a browser; the text around the tags is replaced, the tags kept.
    #[test]
    fn tokens_split_by_inline_tags_are_redacted() {
        let r = Redactor::new();
        let ghp = format!("ghp_{}", alnum(36, 301));
        let (a, rest) = ghp.split_at(12);
        let (b, c) = rest.split_at(14);
        for tag in escapes::INLINE_TAGS {
            for (open, close) in [
                (format!("<{tag}>"), format!("</{tag}>")),
                (
                    format!("<{} class=\"k\" title='a>b'>", tag.to_uppercase()),
                    format!("</{}>", tag.to_uppercase()),
                ),
            ] {
                let input = format!("<p>key {a}{open}{b}{close}{c} end</p>");
                let out = r.redact_text(&input);
                let seen = reader_view(&out);
                assert!(
                    !seen.contains(b) && !out.contains(a),
                    "{input:?} -> {out:?}"
                );
                assert!(out.contains(&open) && out.contains(&close), "{out:?}");
                assert!(out.starts_with("<p>key [REDACTED]") && out.ends_with(" end</p>"));
                assert_eq!(r.redact_text(&out), out, "idempotent");
            }
        }
        // Two tag kinds in a row, and a `<wbr>` that only breaks the line.
        let input = format!("x {a}<b>{b}</b><em>{c}</em> y");
        assert_eq!(
            r.redact_text(&input),
            "x [REDACTED]<b>[REDACTED]</b><em>[REDACTED]</em> y"
        );
        let input = format!("x {a}<wbr>{b}<WBR/>{c}");
        assert_eq!(
            r.redact_text(&input),
            "x [REDACTED]<wbr>[REDACTED]<WBR/>[REDACTED]"
        );
        let input = format!("x {a}<!-- note -->{b}{c} y");
        assert_eq!(
            r.redact_text(&input),
            "x [REDACTED]<!-- note -->[REDACTED] y"
        );
        // A registered literal split the same way.
        let mut lit = Redactor::new();
        lit.add_secret("team_prod_key_9f8e7d6c5b4a");
        let out = lit.redact_text("v=team_prod<span>_key_9f8e</span>7d6c5b4a;");
        assert!(!reader_view(&out).contains("9f8e"), "{out}");
        // Inside a JSON string, attribute quotes are escaped and the document stays valid.
        let json = format!("{{\"html\":\"{a}<span class=\\\"k\\\">{b}</span>{c}\"}}");
        let out = r.redact_text(&json);
        assert!(
            serde_json::from_str::<serde_json::Value>(&out).is_ok(),
            "{out}"
        );
        assert!(!reader_view(&out).contains(b), "{out}");
        // A "tag" that straddles two JSON strings is never swallowed with its quotes.
        let json = format!("{{\"{a}<a b=\":\">{b}{c}\"}}");
        let out = r.redact_text(&json);
        assert!(
            serde_json::from_str::<serde_json::Value>(&out).is_ok(),
            "{out}"
        );
    }

    /// Issue 24 (item 5): a compound parameter name percent-encoded inside another URL
    /// (`%3Fapi_key%3D…`) was read from one character too late (`pi_key`): a name that
    /// starts with a hex letter right after `%3F` looked like part of the escape.
    #[test]
    fn encoded_compound_parameter_names_are_read_whole() {
        let r = Redactor::new();
        for name in [
            "api_key",
            "client_secret",
            "access_token",
            "auth_token",
            "db_password",
            "x-api-key",
            "token",
        ] {
            let url = format!(
                "GET https://r.example/?u=https%3A%2F%2Fh.example%2Fp%3F{name}%3DS3cr3tValue9xyz%26x%3D1"
            );
            let out = r.redact_text(&url);
            assert!(!out.contains("S3cr3tValue9xyz"), "{out}");
            assert!(
                out.contains(&format!("{name}%3D[REDACTED]%26x%3D1")),
                "{out}"
            );
            let out = r.redact_url(&url[4..]);
            assert!(!out.contains("S3cr3tValue9xyz"), "{out}");
        }
        // Not a sensitive name: kept.
        let benign = "https://r.example/?u=https%3A%2F%2Fh%2Fp%3Fcategory%3Dbooks";
        assert_eq!(r.redact_text(benign), benign);
    }

    /// Issue 24 (item 11): secrets a text names in prose, on a curl command line, or in a
    /// Telegram Bot API URL were readable.
    #[test]
    fn held_out_secrets_are_caught() {
        let r = Redactor::new();
        let tg = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1";
        let cases: &[(&str, &str)] = &[
            ("the password is hunter2.", "the password is [REDACTED]."),
            ("The admin Password was: Xk9#mP2$vL", "The admin Password was: [REDACTED]"),
            (
                "our API key is 'Sx9dK2mQ7vL4pR8t', keep it",
                "our API key is '[REDACTED]', keep it",
            ),
            (
                "access key AKIAIOSFODNN7EXAMPLF and secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY here",
                "access key [REDACTED] and secret [REDACTED] here",
            ),
            (
                "the session token k3VZ9mXq2LwP8nRt5YbH7jDf works",
                "the session token [REDACTED] works",
            ),
            (
                "curl -u ACCOUNT:Tk9x2LmQ8vR4pZ7w https://api.example.com/",
                "curl -u ACCOUNT:[REDACTED] https://api.example.com/",
            ),
            (
                "curl --user=admin:Zq8Xw7Vu6Ts5 -X POST https://x.example/",
                "curl --user=admin:[REDACTED] -X POST https://x.example/",
            ),
            (
                "$ curl -s \\\n    -u \"acct:tok3nV4lue99\" https://x.example/",
                "$ curl -s \\\n    -u \"acct:[REDACTED]\" https://x.example/",
            ),
            ("curl -uacct:tok3nV4lue99 x", "curl -uacct:[REDACTED] x"),
        ];
        for (input, want) in cases {
            assert_eq!(&r.redact_text(input), want, "{input}");
            assert_eq!(r.redact_text(want), *want, "idempotent: {want}");
        }
        let url = format!("https://api.telegram.org/bot{tg}/sendMessage?chat_id=42");
        let out = r.redact_text(&format!("<a href=\"{url}\">send</a> {url}"));
        assert!(
            !out.contains("AAHdqTcv") && !out.contains("123456789"),
            "{out}"
        );
        assert_eq!(
            r.redact_url(&url),
            "https://api.telegram.org/botREDACTED/sendMessage?chat_id=42"
        );
    }

    /// ... and the prose, command lines and URLs that only look like them stay.
    #[test]
    fn held_out_lookalikes_stay() {
        let r = Redactor::new();
        for s in [
            "the password is required",
            "The token is valid for one hour.",
            "the secret is base64-encoded",
            "The key is stored in Vault.",
            "The key is 42.",
            "The secret is out.",
            "the token is OAuth2.",
            "the password is at least 12 characters long",
            "The password is case-sensitive.",
            "the password is hashed with SHA256",
            "token 3f2a9c1d4e5b6a7f8e9d0c1b2a3f4e5d6c7b8a9f",
            "secret 550e8400-e29b-41d4-a716-446655440000",
            "the token RefreshTokenV2Handler is a class",
            "The next page token is CAESBggBEAIYAQ",
            "Use the token field, a secret santa gift, Token Ring networks.",
            "primary key abc123def456ghi789 in the table",
            "git push -u origin main && ps -u root",
            "curl -u user:password https://x.example/",
            "curl -u \"$USER:$TOKEN\" https://x.example/",
            "curl -u guest:guest http://localhost:15672/api/",
            "curl -u admin:changeme https://x.example/",
            "curl --user <user>:<password> https://x.example/",
            "curly -u a:hunter2zz",
            "https://t.me/bot12:AA",
        ] {
            assert_eq!(r.redact_text(s), s, "{s}");
        }
    }

    /// The content window a tool result carries is kept as the lookup made it; every other
    /// string is redacted as before.
    #[test]
    fn json_keeping_leaves_only_the_window() {
        let r = Redactor::new();
        let ghp = format!("ghp_{}", alnum(36, 601));
        let window = "sk_live_51Hq8Wv2Lm4Xz7Pb3Nc6Rd9Tf".to_string();
        let mut v = serde_json::json!({
            "content": [{"json": {"url": format!("https://x/?token={ghp}")}}, {"text": window}],
            "password": "hunter2hunter2",
            "other": window.clone() + " ",
        });
        r.redact_json_value_keeping(&mut v, Some(&window));
        assert_eq!(v["content"][1]["text"], window.as_str());
        assert!(!v.to_string().contains(&ghp[4..]), "{v}");
        assert_eq!(v["password"], "[REDACTED]");
        assert_eq!(v["other"], "[REDACTED] ");
    }

    /// The seven kinds of private key header a page may carry.
    const PEM_KINDS: &[&str] = &[
        "RSA PRIVATE KEY",
        "EC PRIVATE KEY",
        "DSA PRIVATE KEY",
        "OPENSSH PRIVATE KEY",
        "PRIVATE KEY",
        "ENCRYPTED PRIVATE KEY",
        "PGP PRIVATE KEY BLOCK",
    ];

    /// Issue 24 (item 3): a private key whose lines are separated by `<br>` (how forums and
    /// `nl2br` show a pasted key) came out whole in the Markdown output (`line  \n`) and in
    /// `raw` (`<br />\n`). Every line break a reader sees separates its lines.
    #[test]
    fn pem_keys_with_lines_broken_by_br_or_markdown_are_redacted() {
        let r = Redactor::new();
        let lines: Vec<String> = (0..4).map(|i| alnum(64, 500 + i)).collect();
        for (k, kind) in PEM_KINDS.iter().enumerate() {
            for sep in [
                "<br>",
                "<br />\n",
                "<br/>\n",
                "<BR>\r\n",
                "<br clear=\"all\">",
                "  \n",
                "\\\n",
                "\n",
                "\\n",
                " <br>\n ",
            ] {
                let mut body = lines.clone();
                body[3].truncate(20 + k);
                body[3].push_str("==");
                let key = format!(
                    "-----BEGIN {kind}-----{sep}{}{sep}-----END {kind}-----",
                    body.join(sep)
                );
                let out = r.redact_text(&format!("Key:\n{key}\nDone."));
                for line in &lines {
                    assert!(!out.contains(&line[..16]), "{kind} {sep:?}: {out}");
                }
                assert!(
                    out.contains(&format!("-----BEGIN {kind}-----"))
                        && out.contains(&format!("-----END {kind}-----"))
                        && out.contains(TEXT_MARKER)
                        && out.ends_with("\nDone."),
                    "{kind} {sep:?}: {out}"
                );
                assert_eq!(r.redact_text(&out), out, "idempotent: {kind} {sep:?}");
            }
        }
        // Cut before its END line, the `<br>` lines still go.
        let cut = format!(
            "-----BEGIN RSA PRIVATE KEY-----<br />\n{}<br />\n{}",
            lines[0], lines[1]
        );
        let out = r.redact_truncated_tail(&cut);
        assert!(!out.contains(&lines[1][..16]), "{out}");
        // Prose with breaks near a header that is not a key stays.
        let prose = "-----BEGIN PUBLIC KEY-----<br>MIIBIjANBgkq<br>-----END PUBLIC KEY-----";
        assert_eq!(r.redact_text(prose), prose);
    }

    /// Issue 24 (items 1, 2): a token split by a character or markup no reader sees was
    /// redacted up to the split, or not at all, and the rest stayed readable. The view is
    /// matched first, so the token goes whole, the split with it.
    #[test]
    fn tokens_split_by_unseen_characters_are_replaced_whole() {
        let r = Redactor::new();
        let out =
            r.redact_text("key xoxb-291333514093-&shy;6848001484442-WzBZAIggbO1OTXg2YUTs1dNm end");
        assert_eq!(out, "key [REDACTED] end");
        let tokens = [
            "xoxb-291333514093-6848001484442-WzBZAIggbO1OTXg2YUTs1dNm".to_string(),
            format!("sk-proj-{}", alnum(48, 411)),
            format!("sk-ant-api03-{}AA", alnum(80, 412)),
            format!("ghp_{}", alnum(36, 413)),
            format!("AKIA{}", alnum(16, 414).to_ascii_uppercase()),
        ];
        let splits = [
            "\u{AD}",
            "&shy;",
            "&#173;",
            "\u{200B}",
            "&#8203;",
            "&#x200B;",
            "\u{200C}",
            "\u{200D}",
            "\u{200E}",
            "\u{200F}",
            "\u{61C}",
            "\u{2060}",
            "\u{2061}",
            "\u{2062}",
            "\u{2063}",
            "\u{2064}",
            "\u{FEFF}",
            "\u{34F}",
            "\u{FE00}",
            "\u{FE0F}",
            "\u{E0100}",
            "\u{E0001}",
            "\u{E0041}",
            "&#xE0041;",
            "\u{202A}",
            "\u{202E}",
            "\u{2066}",
            "\u{2069}",
            "\u{3164}",
            "\u{115F}",
            "\u{FFA0}",
            "\u{180E}",
            "\u{7}",
            "\u{1b}[0m",
            "<!-- x -->",
            "<wbr>",
            "<x-k></x-k>",
            "<foo>",
        ];
        for token in &tokens {
            // Early (before any family's minimum length) and late (after it).
            for at in [6, token.len() - 5] {
                let (a, b) = token.split_at(at);
                for split in splits {
                    let input = format!("key {a}{split}{b} end");
                    let out = r.redact_text(&input);
                    assert!(
                        out.starts_with("key [REDACTED]") && out.ends_with(" end"),
                        "{input:?} -> {out:?}"
                    );
                    assert!(!out.contains(b) && !out.contains(a), "{input:?} -> {out:?}");
                    assert_eq!(r.redact_text(&out), out, "idempotent: {input:?}");
                }
            }
        }
        // A configured secret and a URL parameter, split the same way.
        let mut lit = Redactor::new();
        lit.add_secret("team_prod_key_9f8e7d6c5b4a");
        for split in splits {
            let out = lit.redact_text(&format!("v team_prod_key{split}_9f8e7d6c5b4a ok"));
            // Around markup the text is replaced piece by piece, the tags kept.
            assert!(
                out.starts_with("v [REDACTED]")
                    && out.ends_with("[REDACTED] ok")
                    && !out.contains("team_prod")
                    && !out.contains("9f8e"),
                "{split:?}: {out}"
            );
        }
        let out = r.redact_url("https://x.example/?api_key=AbC9dEf8\u{200B}GhI7&page=2");
        assert_eq!(out, "https://x.example/?api_key=REDACTED&page=2");
    }

    /// What the view drops is only matched across: a long token that is not a secret comes
    /// back byte for byte, its invisible characters and markup included (DESIGN 12).
    #[test]
    fn unseen_characters_in_benign_text_are_kept() {
        let r = Redactor::new();
        for s in [
            "commit 3f2a9c1d4e5b\u{AD}6a7f8e9d0c1b2a3f4e5d6c7b8a9f and more",
            "id 550e8400-e29b-41d4\u{200B}-a716-446655440000",
            "super\u{AD}cali\u{AD}fragilistic\u{200B}expiali\u{200D}docious",
            "emoji 👩\u{200D}💻 and ❤\u{FE0F} and \u{200F}rtl mark",
            "a&shy;b <x-k>custom</x-k> <foo>unknown</foo> word<wbr>break",
            "100%25 and %41%42%43 and path%2Fsegment",
        ] {
            assert_eq!(r.redact_text(s), s, "{s:?}");
        }
    }

    /// Issue 24 (item 12): `ghp%5F…` (a percent-encoded `_`) in a link or in text was not
    /// redacted. A percent-encoded unreserved character reads as the character (RFC 3986).
    #[test]
    fn percent_encoded_unreserved_characters_are_read_decoded() {
        let r = Redactor::new();
        let body = alnum(36, 415);
        let out = r.redact_text(&format!("see ghp%5F{body} now"));
        assert_eq!(out, "see [REDACTED] now");
        let out = r.redact_text(&format!("see gh%70%5f{body}"));
        assert_eq!(out, "see [REDACTED]");
        let url = format!("https://x.example/k/ghp%5F{body}?page=2");
        let out = r.redact_url(&url);
        assert_eq!(out, "https://x.example/k/REDACTED?page=2");
        let out = r.redact_text(&format!("<a href=\"https://x.example/ghp%5F{body}\">x</a>"));
        assert!(!out.contains(&body), "{out}");
        let key = format!("sk%2Dproj%2D{}", alnum(40, 416));
        assert_eq!(r.redact_text(&format!("k {key} .")), "k [REDACTED] .");
    }

    #[test]
    fn benign_markup_is_byte_identical() {
        let r = Redactor::new();
        for s in [
            "<p>Use <code>git</code> and <b>bold</b> text</p>",
            "if a<b && c>d",
            "two words abc<b>def</b> that are not a secret",
            "one</p><p>two",
            "<span class=\"token keyword\">const</span> client = new Client();",
            "see <a href=\"https://example.com/docs?page=2&amp;sort=desc\">the docs</a>.",
            "Markdown keeps \\<b\\> escaped: ghp\\_short<b>x</b>",
        ] {
            assert_eq!(r.redact_text(s), s);
        }
    }

    /// Issue 11: the Markdown converter escaped `_` and the redactor no longer saw tokens.
    #[test]
    fn escaped_secrets_are_redacted_as_read() {
        let mut r = Redactor::new();
        r.add_secret("tok_with_under_scores_77");
        r.add_secret("team_prod_key_9f8e7d6c5b4a");
        let ghp = format!("ghp_{}", alnum(36, 201));
        let sk = format!("sk_live_51{}", alnum(30, 202));
        let cases: Vec<(String, Vec<String>, &str)> = vec![
            (ghp.replace('_', "\\_"), vec![ghp.clone()], ""),
            (
                format!("use `{}` now", ghp.replace('_', "\\_")),
                vec![ghp.clone()],
                "use `",
            ),
            (sk.replace('_', "\\_"), vec![sk.clone()], ""),
            (
                "Bearer tok\\_with\\_under\\_scores\\_77".into(),
                vec!["tok_with_under_scores_77".into()],
                "Bearer ",
            ),
            (
                "?api\\_key=abc\\_def\\_ghi\\_123 and more".into(),
                vec!["abc_def_ghi_123".into()],
                " and more",
            ),
            (
                "api\\_key=abc\\_def\\_ghi\\_123".into(),
                vec!["abc_def_ghi_123".into()],
                "",
            ),
            (
                "x-api-key: team\\_prod\\_key\\_9f8e7d6c5b4a\n".into(),
                vec!["team_prod_key_9f8e7d6c5b4a".into()],
                "x-api-key: ",
            ),
            (
                "https://api.example.com/v1?page=1&amp;api&#95;key=AbC9xYz123 ok".into(),
                vec!["AbC9xYz123".into()],
                " ok",
            ),
            (
                "api&lowbar;key = \"Zz9Yy8Xx7Ww6\"".into(),
                vec!["Zz9Yy8Xx7Ww6".into()],
                "",
            ),
            (
                format!("token {}", ghp.replace('_', "&#x5f;")),
                vec![ghp.clone()],
                "token ",
            ),
            (
                r#"{"api\u005fkey": "s3cr3tValue99", "n": 1}"#.into(),
                vec!["s3cr3tValue99".into()],
                r#", "n": 1}"#,
            ),
            (ghp.replacen('_', "\\u005f", 1), vec![ghp.clone()], ""),
            (
                format!(
                    "a {} b",
                    ghp.replacen("p_", "p\u{AD}_", 1)
                        .replacen("_", "_\u{200B}", 1)
                ),
                vec![ghp.clone()],
                "a ",
            ),
            (
                "x tok_with\u{200D}_under\u{2060}_scores_77\u{FEFF} y".into(),
                vec!["tok_with_under_scores_77".into()],
                "x ",
            ),
            (
                format!(
                    "[key]({}) \\* \\[x\\] \\| \\`c\\` \\<b",
                    ghp.replace('_', "\\_")
                ),
                vec![ghp.clone()],
                "\\* \\[x\\] \\| \\`c\\` \\<b",
            ),
        ];
        for (input, secrets, keep) in &cases {
            let out = r.redact_text(input);
            let seen = reader_view(&out);
            for s in secrets {
                assert!(
                    !seen.contains(s.as_str()),
                    "{s:?} readable in {out:?} (from {input:?})"
                );
            }
            assert!(
                out.contains(keep),
                "context {keep:?} lost: {input:?} -> {out:?}"
            );
            assert!(out.contains(TEXT_MARKER), "{out:?}");
            assert_eq!(r.redact_text(&out), out, "not idempotent on {input:?}");
        }
        // Every CommonMark escape inside a registered secret.
        let mut r = Redactor::new();
        let secret = "p4ss_w*rd[x]|y`z<q\\r#s.t-u+v!w";
        r.add_secret(secret);
        let escaped: String = secret
            .chars()
            .flat_map(|c| {
                if c.is_ascii_punctuation() {
                    vec!['\\', c]
                } else {
                    vec![c]
                }
            })
            .collect();
        let out = r.redact_text(&format!("value {escaped} end"));
        assert_eq!(out, "value [REDACTED] end");
    }

    /// Escapes in ordinary text change nothing.
    #[test]
    fn escaped_benign_text_unchanged() {
        let r = Redactor::new();
        for s in [
            "snake\\_case\\_names and \\*emphasis\\* in \\[brackets\\]",
            "max\\_tokens: 4096 and token\\_type: bearer",
            "1\\. first item \\# not a heading",
            "&lt;your-api-key&gt; &amp; &#95;underscore&#95; &lowbar;",
            "{\"key\": \"user\\u005fname\"}",
            "soft\u{AD}hyphen\u{200B}zero width",
            "api\\_key=YOUR\\_API\\_KEY",
            "C:\\Users\\me\\token\\_file.txt",
        ] {
            assert_eq!(r.redact_text(s), s);
        }
    }

    #[test]
    fn short_and_marker_secrets_are_ignored() {
        let mut r = Redactor::new();
        r.add_secret("abc12");
        r.add_secret("   ");
        r.add_secret("REDACTED");
        assert_eq!(r.redact_text("abc12 REDACTED"), "abc12 REDACTED");
        assert!(format!("{r:?}").contains("secrets: 0"));
    }

    #[test]
    fn debug_never_prints_secrets() {
        let mut r = Redactor::new();
        r.add_secret("topsecretvalue42");
        let d = format!("{r:?} {:#?}", r.clone());
        assert!(!d.contains("topsecretvalue42"), "{d}");
        assert!(d.contains("secrets: 1"));
    }

    #[test]
    fn send_sync_and_cheap_new() {
        fn assert_send_sync<T: Send + Sync + Clone + Default>() {}
        assert_send_sync::<Redactor>();
        let r = Redactor::new();
        assert!(r.patterns.is_empty() && r.matcher.get().is_none());
    }

    #[test]
    fn json_text_stays_valid() {
        let mut r = Redactor::new();
        r.add_secret("123456789");
        let ghp = format!("ghp_{}", alnum(36, 5));
        let doc = serde_json::json!({
            "url": "https://example.com/?token=abc",
            "content": format!("token: {ghp}\nAuthorization: Bearer abc123def456\n{{\"password\": 123456789}}"),
            "content_chars": 123456789,
            "password": "hunter22",
            "headers": { "Authorization": "Bearer zz9zz9zz9", "Cookie": "sid=abc; theme=dark" },
            "list": ["-----BEGIN PRIVATE KEY-----\nAAAA\n", "-----END PRIVATE KEY-----"],
        });
        for pretty in [false, true] {
            let s = if pretty {
                serde_json::to_string_pretty(&doc).unwrap_or_default()
            } else {
                serde_json::to_string(&doc).unwrap_or_default()
            };
            let out = r.redact_json_text(&s);
            let back: serde_json::Value = serde_json::from_str(&out).unwrap_or_default();
            assert_eq!(back["content_chars"], 123456789, "{out}");
            assert_eq!(back["password"], TEXT_MARKER);
            assert_eq!(back["headers"]["Authorization"], "Bearer [REDACTED]");
            assert_eq!(
                back["headers"]["Cookie"],
                "sid=[REDACTED]; theme=[REDACTED]"
            );
            assert_eq!(back["url"], "https://example.com/?token=[REDACTED]");
            let content = back["content"].as_str().unwrap_or_default();
            assert!(!content.contains(&ghp) && !content.contains("abc123def456"));
            assert!(!content.contains("123456789"));
            assert_eq!(out.contains('\n'), pretty);
            assert_eq!(r.redact_json_text(&out), out);
        }
        // Benign JSON comes back byte for byte.
        let benign = r#"{"b":1,"a":[true,null,2.5],"s":"Authentication: required."}"#;
        assert_eq!(r.redact_json_text(benign), benign);
        assert_eq!(
            r.redact_json_text("not json token=abc123def"),
            "not json token=[REDACTED]"
        );
    }

    #[test]
    fn no_panic_on_odd_input() {
        let r = Redactor::new();
        for s in [
            "",
            "=",
            ":",
            "?",
            "&",
            "://",
            "://:@",
            "-----BEGIN PRIVATE KEY-----",
            "password=",
            "token:",
            "\\\"",
            "password=\"unterminated",
            "Bearer ",
            "Basic ====",
            "Authorization:",
            "Cookie: =;=;",
            "é=é",
            "tokén=é",
            "?token=é",
            "Bearer éééééééé",
            "-----BEGIN PRIVATE KEY-----é",
            "\u{0}token=\u{0}",
            "https://:@",
            "#token=",
        ] {
            let out = r.redact_text(s);
            assert_eq!(r.redact_text(&out), out);
            let _ = r.redact_url(s);
            let _ = r.redact_json_text(s);
        }
    }

    /// Pathological pages cost time linear in their size (no rescans of long spans).
    #[test]
    fn adversarial_inputs_stay_linear() {
        let r = Redactor::new();
        let n = 256 * 1024;
        let inputs = [
            "sk-".repeat(n / 3),
            "-----BEGIN PRIVATE KEY-----\"".repeat(n / 28) + "-----END PRIVATE KEY-----",
            "-----BEGIN PRIVATE KEY-----\n".repeat(n / 28),
            "&token=".repeat(n / 7),
            "Basic aaaaaaaaaaaaaaaa ".repeat(n / 23),
            format!("token{}:", " ".repeat(n)),
            format!("{}=", "token".repeat(n / 5)),
            "password=\"".repeat(n / 10),
            "key:".repeat(n / 4),
            "://a:@".repeat(n / 6),
        ];
        for input in inputs {
            // Quadratic work on these would take hours: a hang guard, not a speed test.
            let r = r.clone();
            let (input, out, r) = crate::test_support::within_hang_guard(move || {
                let out = r.redact_text(&input);
                let _ = r.redact_url(&format!("https://x/{}", &input[..input.len().min(50_000)]));
                (input, out, r)
            });
            assert_eq!(r.redact_text(&out), out, "{:?}...", &input[..20]);
        }
    }

    // ---------------------------------------------------------------- properties

    fn fragment() -> impl Strategy<Value = String> {
        prop_oneof![
            3 => "\\PC{0,8}",
            2 => "[A-Za-z0-9]{1,12}",
            1 => Just("token".to_string()),
            1 => Just("password=".to_string()),
            1 => Just("api_key: ".to_string()),
            1 => Just("?".to_string()),
            1 => Just("&".to_string()),
            1 => Just("&amp;".to_string()),
            1 => Just("#".to_string()),
            1 => Just("=".to_string()),
            1 => Just(":".to_string()),
            1 => Just(";".to_string()),
            1 => Just("\"".to_string()),
            1 => Just("'".to_string()),
            1 => Just("\\".to_string()),
            1 => Just("\\\"".to_string()),
            1 => Just(" ".to_string()),
            1 => Just("\n".to_string()),
            1 => Just("Bearer ".to_string()),
            1 => Just("Basic ".to_string()),
            1 => Just("Authorization: ".to_string()),
            1 => Just("Cookie: ".to_string()),
            1 => Just("https://".to_string()),
            1 => Just("://u:".to_string()),
            1 => Just("@".to_string()),
            1 => Just("-----BEGIN PRIVATE KEY-----".to_string()),
            1 => Just("-----END PRIVATE KEY-----".to_string()),
            1 => Just("[REDACTED]".to_string()),
            1 => Just("REDACTED".to_string()),
            1 => Just("sk-".to_string()),
            1 => Just("ghp_".to_string()),
            1 => Just("AIza".to_string()),
            1 => Just("eyJ".to_string()),
            1 => Just(".".to_string()),
            1 => Just("-".to_string()),
            1 => Just("_".to_string()),
            1 => Just("\\_".to_string()),
            1 => Just("&#95;".to_string()),
            1 => Just("&lowbar;".to_string()),
            1 => Just("\\u005f".to_string()),
            1 => Just("\u{AD}".to_string()),
            1 => Just("\u{200B}".to_string()),
            1 => Just("bearer ".to_string()),
            1 => Just("token[]=".to_string()),
            1 => Just("%3D".to_string()),
            1 => Just("dop_v1_".to_string()),
        ]
    }

    fn soup() -> impl Strategy<Value = String> {
        prop::collection::vec(fragment(), 0..24).prop_map(|v| v.concat())
    }

    const SAFE_WORDS: &[&str] = &[
        "the",
        "token",
        "password",
        "reset",
        "secret",
        "key",
        "API",
        "your",
        "field",
        "session",
        "length",
        "Authentication",
        "required",
        "bearer",
        "basic",
        "auth",
        "cookie",
        "state",
        "code",
        "page",
        "sort",
        "desc",
        "3f786850e387550fdab836ed7e6dc881de23001b",
        "550e8400-e29b-41d4-a716-446655440000",
        "#ff5733",
        "v1.2.3",
        "1.0.0-beta.2",
        "YOUR_API_KEY",
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "https://example.com/a/b",
        "(see",
        "below)",
        "42",
        "2024-05-01",
        "über",
        "naïve",
        "—",
        "sk-learn",
        "ghp_",
        "eyJ",
        "x",
        "a-b",
        "c_d",
    ];
    const SAFE_SEPS: &[&str] = &[" ", ", ", ". ", "\n", " - ", "; ", "/"];

    fn benign() -> impl Strategy<Value = String> {
        prop::collection::vec(
            (
                prop::sample::select(SAFE_WORDS),
                prop::sample::select(SAFE_SEPS),
            ),
            0..40,
        )
        .prop_map(|v| v.into_iter().map(|(w, s)| format!("{w}{s}")).collect())
    }

    proptest! {
        // PROPTEST_CASES raises the count for a longer hunt.
        #![proptest_config(ProptestConfig {
            cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(300),
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        #[test]
        fn prop_idempotent_text(s in soup()) {
            let r = Redactor::new();
            let once = r.redact_text(&s);
            prop_assert_eq!(r.redact_text(&once), once);
        }

        #[test]
        fn prop_idempotent_url(s in soup()) {
            let r = Redactor::new();
            let u = format!("https://example.com/{s}");
            let once = r.redact_url(&u);
            prop_assert_eq!(r.redact_url(&once), once.clone());
            if url::Url::parse(&u).is_ok() {
                prop_assert!(url::Url::parse(&once).is_ok(), "{} -> {}", u, once);
            }
        }

        #[test]
        fn prop_benign_unchanged(s in benign()) {
            let r = Redactor::new();
            let out = r.redact_text(&s);
            prop_assert!(out.len() <= s.len());
            prop_assert_eq!(out, s);
        }

        #[test]
        fn prop_planted_token_never_survives(pre in soup(), post in soup(), body in "[A-Za-z0-9]{36}") {
            let r = Redactor::new();
            let tok = format!("ghp_{body}");
            let out = r.redact_text(&format!("{pre}{tok}{post}"));
            prop_assert!(!out.contains(&tok), "{}", out);
            let out = r.redact_url(&format!("https://example.com/{pre}{tok}{post}"));
            prop_assert!(!out.contains(&tok), "{}", out);
        }

        #[test]
        fn prop_planted_literal_never_survives(
            pre in soup(),
            post in soup(),
            secret in "[A-Za-z0-9 !#$%&()*+,/:;=?@^_{|}~\"\\\\<>é-]{6,20}",
            form in 0usize..4,
        ) {
            prop_assume!(!TEXT_MARKER.contains(secret.as_str()) && !URL_MARKER.contains(secret.as_str()));
            prop_assume!(secret.trim().chars().count() >= MIN_SECRET_LEN);
            let mut r = Redactor::new();
            r.add_secret(&secret);
            let forms = encodings(&secret);
            let planted = &forms[form % forms.len()];
            let text = format!("{pre}{planted}{post}");
            let out = r.redact_text(&text);
            prop_assert!(!out.contains(planted.as_str()), "{:?} -> {:?}", text, out);
            prop_assert!(!out.contains(secret.as_str()));
            let out = r.redact_url(&format!("https://example.com/?q={pre}{planted}{post}"));
            prop_assert!(!out.contains(planted.as_str()), "{}", out);
        }

        #[test]
        fn prop_json_stays_valid(a in soup(), b in soup(), body in "[A-Za-z0-9]{36}") {
            let r = Redactor::new();
            let tok = format!("ghp_{body}");
            let doc = serde_json::json!({ "url": a, "content": format!("{b}{tok}{a}"), "n": 7 });
            let s = serde_json::to_string(&doc).unwrap_or_default();
            let out = r.redact_json_text(&s);
            let back = serde_json::from_str::<serde_json::Value>(&out);
            prop_assert!(back.is_ok(), "{}", out);
            prop_assert!(!out.contains(&tok));
            // redact_text on JSON text keeps it valid too.
            let out = r.redact_text(&s);
            prop_assert!(serde_json::from_str::<serde_json::Value>(&out).is_ok(), "{} -> {}", s, out);
        }

        #[test]
        fn prop_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
            let s = String::from_utf8_lossy(&bytes);
            let r = Redactor::new();
            let _ = r.redact_text(&s);
            let _ = r.redact_url(&s);
            let _ = r.redact_json_text(&s);
        }
    }
}
