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
//!
//! The rooms: `families` (the token families, one row each), `shapes` (the one regex built
//! from them), `scan` (the sweep and the dispatch to a classifier), `out` (the output
//! builder), the classifiers `tokens`, `pem`, `assign` and `prose`, `names` (sensitive
//! names, credential-like values, placeholders), `url`, `encodings` (the forms of a literal
//! secret), `escapes` and `unseen` (the reader's view), `controls`, and `rules` (the
//! operator's gitleaks-format rules).

use assign::unescaped_quote;
use names::credential_like;
use names::secret_like_value;
use names::text_name_sensitive;
use names::token_like;
use names::url_param_sensitive;
use names::Norm;
use url_parts::percent_decode;
use url_parts::percent_decode_keep_plus;
use url_parts::redact_url_parts;
use url_parts::unparsed_userinfo;
use url_parts::url_fallback;

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use aho_corasick::{AhoCorasick, MatchKind};

use encodings::encodings;
use out::Out;
use scan::{scan, sweep};

mod assign;
pub mod controls;
mod encodings;
mod escapes;
mod families;
mod names;
mod out;
mod pem;
mod prose;
mod rules;
mod scan;
mod shape_search;
mod shapes;
mod tokens;
pub mod unseen;
mod url_parts;

#[cfg(test)]
mod tests;

pub use shapes::compile_all_shapes;

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

    /// Where redacting a piece of `text` (`text` is many pieces joined by `\n`: the text
    /// runs of a page) could change that piece, as byte spans of `text`, unsorted: every
    /// match of the shape regex, every registered literal, every escape, invisible
    /// character or inline tag the reader's view undoes, and every character
    /// [`controls::strip_controls`] removes or changes. A piece that overlaps none of them
    /// comes out of `strip_controls` and then [`Redactor::redact_text`] unchanged: whatever
    /// matches inside a piece alone matches at the same place in `text` (a `\n` is no word
    /// character, starts no escape, and the regex has no other assertion), and a search
    /// that steps over it reports a span that covers it. `None` when that does not hold:
    /// operator rules (their anchors would see `text`, not the piece).
    pub fn change_spans(&self, text: &str) -> Option<Vec<(usize, usize)>> {
        if !self.rules.is_empty() || (self.matcher().is_none() && !self.patterns.is_empty()) {
            return None;
        }
        let mut spans: Vec<(usize, usize)> = shape_search::ShapeSearch::new(text).all().collect();
        if let Some(ac) = self.matcher() {
            spans.extend(ac.find_iter(text).map(|m| (m.start(), m.end())));
        }
        spans.extend(
            escapes::View::decoded_at(text)
                .into_iter()
                .map(|at| (at, at + 1)),
        );
        spans.extend(controls::changed_spans(text));
        Some(spans)
    }

    /// [`redact_text`](Self::redact_text) without the copy: the text itself, borrowed,
    /// when nothing in it is a secret (the common case for the many short texts of a page).
    pub fn redact_text_cow<'t>(&self, text: &'t str) -> Cow<'t, str> {
        self.redact_str(text)
    }

    /// Whether [`redact_url`](Self::redact_url) may change `url` where
    /// [`redact_text`](Self::redact_text) would not: its structure rules hide a password
    /// in the authority (before an `@`) and sensitive parameters of the query or the
    /// fragment (after a `?` or a `#`). A URL without any of those three characters that
    /// `redact_text` leaves as it is, `redact_url` leaves as it is too (the test
    /// `prop_url_unchanged_where_text_is`).
    pub fn url_may_change(url: &str) -> bool {
        url.contains(['@', '?', '#'])
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
        // At most nine rounds, from the URL itself: one that changes nothing is the
        // fixpoint (for most URLs of a page, the first; `url` itself parsed).
        let mut out = url.to_owned();
        for _ in 0..9 {
            let next = round(&out);
            if next == out {
                break;
            }
            out = next;
        }
        if out == url || url::Url::parse(&out).is_ok() {
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
    ///
    /// Every key and string is one piece of a text joined by `\n`; only the pieces that
    /// [`Redactor::change_spans`] finds a place to change in are redacted (each alone, as
    /// every piece was before), so a receipt of fifty short strings costs one search.
    pub fn redact_json_value_keeping(&self, value: &mut serde_json::Value, keep: Option<&str>) {
        let mut pieces = Pieces::default();
        json_pieces(value, keep, &mut pieces);
        let Some(touched) = pieces.touched(self) else {
            return self.redact_json_each(value, keep);
        };
        let mut next = 0;
        self.redact_json_touched(value, keep, &touched, &mut next);
    }

    /// [`Redactor::redact_json_value_keeping`] for the pieces marked in `touched`, in the
    /// order [`json_pieces`] gave them; `next` is the index of the next piece.
    fn redact_json_touched(
        &self,
        value: &mut serde_json::Value,
        keep: Option<&str>,
        touched: &[bool],
        next: &mut usize,
    ) {
        use serde_json::Value;
        let take = |next: &mut usize| {
            let t = touched.get(*next).copied().unwrap_or(true);
            *next += 1;
            t
        };
        match value {
            Value::String(s) => {
                if keep != Some(s.as_str()) && take(next) {
                    if let Cow::Owned(r) = self.redact_str(s) {
                        *s = r;
                    }
                }
            }
            Value::Array(items) => items
                .iter_mut()
                .for_each(|v| self.redact_json_touched(v, keep, touched, next)),
            Value::Object(map) => {
                // Values are redacted in place; the map is rebuilt (in order, as before)
                // only when a key is to be redacted: rebuilding rehashes every key.
                let mut keys: Vec<(usize, String)> = Vec::new();
                for (i, (key, v)) in map.iter_mut().enumerate() {
                    if take(next) {
                        keys.push((i, self.redact_text(key)));
                    }
                    if let Value::String(s) = v {
                        if keep != Some(s.as_str()) {
                            if let Some(r) = redact_pair_value(key, s) {
                                // Changed by its name: judged again whole, wherever it is.
                                *s = r;
                                if let Cow::Owned(again) = self.redact_str(s) {
                                    *s = again;
                                }
                                *next += 1;
                                continue;
                            }
                        }
                    }
                    self.redact_json_touched(v, keep, touched, next);
                }
                if !keys.is_empty() {
                    let mut keys = keys.into_iter().peekable();
                    for (i, (key, v)) in std::mem::take(map).into_iter().enumerate() {
                        let key = match keys.next_if(|(j, _)| *j == i) {
                            Some((_, redacted)) => redacted,
                            None => key,
                        };
                        map.insert(key, v);
                    }
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }

    /// Every key and string of `value` judged alone (with operator rules, whose anchors a
    /// joined text would move).
    fn redact_json_each(&self, value: &mut serde_json::Value, keep: Option<&str>) {
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
                .for_each(|v| self.redact_json_each(v, keep)),
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
                    self.redact_json_each(&mut v, keep);
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
        self.redact_truncated_tail_owned(text.to_owned())
    }

    /// [`redact_truncated_tail`](Self::redact_truncated_tail) on a text the caller gives
    /// up: no copy of it is made where redaction leaves it as it is. A body cut at the cap
    /// is megabytes, and each copy counted in the peak memory of a lookup.
    pub fn redact_truncated_tail_owned(&self, text: String) -> String {
        let changed = match self.redact_text_cow(&text) {
            Cow::Owned(s) => Some(s),
            Cow::Borrowed(_) => None,
        };
        let mut whole = changed.unwrap_or(text);
        // Trailing whitespace (a converter's final newline) is not where the cut was.
        let body_len = whole.trim_end().len();
        if body_len < whole.len() {
            let ws = whole.split_off(body_len);
            let mut out = self.redact_cut_tail(whole);
            out.push_str(&ws);
            return out;
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
            let joined = format!("{whole}{tail}");
            let probe = self.redact_text_cow(&joined);
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
            // A round that changed nothing leaves the text the next round would see: its
            // view would find nothing again (each pass is a function of the text alone).
            if !changed && scanned.is_none() {
                break;
            }
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

/// The keys and strings of `value` (those equal to `keep` left out) as pieces, in the
/// order [`Redactor::redact_json_value_keeping`] visits them: an object's key, then its
/// value.
fn json_pieces(value: &serde_json::Value, keep: Option<&str>, pieces: &mut Pieces) {
    use serde_json::Value;
    match value {
        Value::String(s) if keep != Some(s.as_str()) => pieces.push(s),
        Value::Array(items) => items.iter().for_each(|v| json_pieces(v, keep, pieces)),
        Value::Object(map) => {
            for (key, v) in map {
                pieces.push(key);
                json_pieces(v, keep, pieces);
            }
        }
        _ => {}
    }
}

/// Many short texts (a page's text runs, a receipt's keys and strings) joined by `\n`,
/// for one [`Redactor::change_spans`] search instead of one search each.
#[derive(Debug, Default)]
pub struct Pieces {
    joined: String,
    ranges: Vec<(usize, usize)>,
}

impl Pieces {
    /// Add one piece: `write` appends its text.
    pub fn push_with(&mut self, write: impl FnOnce(&mut String)) {
        let start = self.joined.len();
        write(&mut self.joined);
        self.ranges.push((start, self.joined.len()));
        self.joined.push('\n');
    }

    /// Add one piece.
    pub fn push(&mut self, text: &str) {
        self.push_with(|j| j.push_str(text));
    }

    /// The `i`-th piece.
    pub fn get(&self, i: usize) -> Option<&str> {
        let &(a, b) = self.ranges.get(i)?;
        self.joined.get(a..b)
    }

    /// For each piece, in order: may redacting it alone change it? `None` when every piece
    /// must be redacted ([`Redactor::change_spans`] gives no spans).
    pub fn touched(&self, redactor: &Redactor) -> Option<Vec<bool>> {
        let mut spans = redactor.change_spans(&self.joined)?;
        spans.sort_unstable();
        let mut merged: Vec<(usize, usize)> = Vec::with_capacity(spans.len());
        for (s, e) in spans {
            match merged.last_mut() {
                Some(last) if s <= last.1 => last.1 = last.1.max(e),
                _ => merged.push((s, e)),
            }
        }
        let mut next = 0;
        Some(
            self.ranges
                .iter()
                .map(|&(a, b)| {
                    while merged.get(next).is_some_and(|&(_, e)| e <= a) {
                        next += 1;
                    }
                    merged.get(next).is_some_and(|&(s, _)| s < b)
                })
                .collect(),
        )
    }
}

/// A JSON string `value` stored under `key`: judged like `key: "value"` in text.
fn redact_pair_value(key: &str, value: &str) -> Option<String> {
    let norm = Norm::new(key);
    if !text_name_sensitive(key, &norm) || value.starts_with(TEXT_MARKER) {
        return None;
    }
    let mut out = Out::sweeping(value, None, scan::scan);
    let done = match assign::header_kind(&norm) {
        assign::HeaderKind::Authorization => {
            assign::auth_header(&mut out, 0, value.len(), TEXT_MARKER)
        }
        assign::HeaderKind::Cookie => assign::cookie_header(&mut out, 0, value.len(), TEXT_MARKER),
        assign::HeaderKind::None => credential_like(value, true).then(|| {
            out.replace(0, value.len(), TEXT_MARKER);
            value.len()
        }),
    };
    done.map(|_| out.finish().into_owned())
}
