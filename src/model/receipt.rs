//! The output shapes: the receipt (`verified_web_lookup.receipt/v1`) and the tool result
//! envelope around it.
//!
//! These are typed serde structs so that the contract of the receipt and envelope cannot be broken
//! by accident: field order is declaration order, the envelope cannot hold an extra
//! top-level key, and every string an enum stands for comes from serde, never `format!`.
//! Nothing here redacts: values are redacted before they are put in (see `lookup`).

use serde::{Deserialize, Serialize};

/// The receipt's schema identifier; consumers switch on it.
pub const RECEIPT_SCHEMA: &str = "verified_web_lookup.receipt/v1";

/// How one attempt ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Usable content.
    Ok,
    /// The request never landed (DNS, connect, TLS, timeout, guard refusal, command failure).
    TransportError,
    /// It landed with a non-2xx status.
    HttpError,
    /// It landed but the body is of no use (empty, interstitial, too short, wrong type...).
    UnusableContent,
    /// The provider answered in a shape other than the one it declared.
    MalformedResponse,
}

impl Outcome {
    /// The receipt's spelling (`transport_error`, ...); the same string serde writes.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::TransportError => "transport_error",
            Outcome::HttpError => "http_error",
            Outcome::UnusableContent => "unusable_content",
            Outcome::MalformedResponse => "malformed_response",
        }
    }
}

/// Why a lookup produced no usable content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureReason {
    NoProvidersConfigured,
    AllProvidersFailed,
    AttemptBudgetExhausted,
    InvalidInput,
}

/// One record per attempt, in the order the attempts were made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttemptRecord {
    pub provider: String,
    pub outcome: Outcome,
    /// The status line received, when one was; always null for `command` providers.
    pub http_status: Option<u16>,
    /// Short, redacted, at most [`MAX_DETAIL_CHARS`] characters.
    pub detail: String,
    pub elapsed_ms: u64,
}

/// Longest `detail` an attempt record may carry, in characters.
pub const MAX_DETAIL_CHARS: usize = 200;

/// The receipt, fields in contract order (the first eleven are the v1 core).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Receipt {
    pub schema: String,
    pub ok: bool,
    pub url: String,
    pub attempts: u32,
    pub max_attempts: u32,
    pub providers_available: u32,
    pub provider_used: Option<String>,
    pub fallback_used: bool,
    pub failure_reason: Option<FailureReason>,
    pub content_chars: u64,
    pub attempts_log: Vec<AttemptRecord>,
    pub failure_detail: Option<String>,
    pub content_sha256: Option<String>,
    pub next_start_index: Option<u64>,
    pub elapsed_ms: u64,
    /// Optional: the page's `<title>`, redacted; absent when the page had none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Optional: present (and true) only when the body was cut at `max_body_bytes`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// Optional: how the attempt that was used went through the HTTP cache; absent when
    /// the cache played no part (disabled, a `command` provider, a POST template, or no
    /// attempt was used).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<CacheReport>,
    /// Optional (evidence): when the response whose body was used arrived, RFC 3339 UTC to
    /// the second; for a copy served from the HTTP cache (a hit, or one revalidated with a
    /// 304), when that stored copy was fetched. Absent on failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fetched_at: Option<String>,
    /// Optional (evidence): the URL whose response was used, after redirects, redacted.
    /// Only for `http` providers (a template's endpoint is the operator's, a command's
    /// route is the program's); absent on failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_url: Option<String>,
    /// Optional (evidence): the URLs the redirects led to, in order, each redacted (the last
    /// is `final_url`); empty when there was none. Present exactly when `final_url` is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redirects: Option<Vec<String>>,
    /// Optional (evidence): lowercase hex SHA-256 of the body as received, after
    /// Content-Encoding and chunking were undone and before charset decoding and
    /// extraction (of stdout for a `command` provider; of the prefix kept when the body was
    /// cut at the cap). Absent on failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body_sha256: Option<String>,
    /// Optional (evidence): the `WARC-Record-ID` of the response record written for this
    /// attempt by `--warc`; absent without `--warc`, for a copy from the cache and for a
    /// `command` provider (nothing was received over the network).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warc_record_id: Option<String>,
}

/// How one attempt used the private HTTP cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CacheStatus {
    /// A stored copy was fresh enough: no request was sent.
    Hit,
    /// A stored copy was revalidated: the server answered 304 and the stored body was used.
    Revalidated,
    /// No usable stored copy: the response came from the network (and may have been stored).
    Miss,
    /// The operator turned the cache off for this run (`--no-cache`): not read, not written.
    Bypass,
}

/// The receipt's optional `cache` field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheReport {
    pub status: CacheStatus,
    /// How old the content was when served, in whole seconds: the stored copy's age for a
    /// `hit`, 0 otherwise (a revalidated copy is as good as new).
    pub age_secs: u64,
}

/// What every receipt repeats of the request: the URL (redacted), the attempt ceiling and
/// the number of ready providers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Asked {
    pub url: String,
    pub max_attempts: u32,
    pub providers_available: u32,
}

/// The content a successful lookup returns, as the receipt describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Used {
    pub provider: String,
    pub content_chars: u64,
    pub content_sha256: String,
    pub next_start_index: Option<u64>,
    pub title: Option<String>,
    pub truncated: bool,
    pub cache: Option<CacheReport>,
}

impl Receipt {
    /// A request refused before any attempt: `invalid_input`, with why.
    pub fn refused(asked: Asked, detail: String) -> Receipt {
        let mut r = Receipt::start(asked.url, asked.max_attempts, asked.providers_available);
        r.failure_reason = Some(FailureReason::InvalidInput);
        r.failure_detail = Some(detail);
        r
    }

    /// A lookup whose last attempt (in `log`) returned usable content.
    pub fn succeeded(asked: Asked, log: Vec<AttemptRecord>, used: Used) -> Receipt {
        let mut r = Receipt::start(asked.url, asked.max_attempts, asked.providers_available);
        r.attempts = log.len() as u32;
        r.fallback_used = log.len() > 1;
        r.attempts_log = log;
        r.ok = true;
        r.provider_used = Some(used.provider);
        r.content_chars = used.content_chars;
        r.content_sha256 = Some(used.content_sha256);
        r.next_start_index = used.next_start_index;
        r.title = used.title;
        r.truncated = used.truncated;
        r.cache = used.cache;
        r
    }

    /// A lookup that got no usable content: the attempts it made, why it ended, and a
    /// detail where the reason alone does not say it.
    pub fn unanswered(
        asked: Asked,
        log: Vec<AttemptRecord>,
        reason: FailureReason,
        detail: Option<String>,
    ) -> Receipt {
        let mut r = Receipt::start(asked.url, asked.max_attempts, asked.providers_available);
        r.attempts = log.len() as u32;
        r.fallback_used = log.len() > 1;
        r.attempts_log = log;
        r.failure_reason = Some(reason);
        r.failure_detail = detail;
        r
    }

    /// Mark a receipt for a lookup that could not complete (a bug, never a caller's or a
    /// server's doing): no usable content, all providers failed.
    pub fn failed_internally(mut self) -> Receipt {
        self.ok = false;
        self.failure_reason = Some(FailureReason::AllProvidersFailed);
        self
    }

    /// A receipt that has obtained nothing yet: `ok` false, no attempts, every optional
    /// value null. The lookup fills it in as it goes.
    pub fn start(url: String, max_attempts: u32, providers_available: u32) -> Receipt {
        Receipt {
            schema: RECEIPT_SCHEMA.into(),
            ok: false,
            url,
            attempts: 0,
            max_attempts,
            providers_available,
            provider_used: None,
            fallback_used: false,
            failure_reason: None,
            content_chars: 0,
            attempts_log: vec![],
            failure_detail: None,
            content_sha256: None,
            next_start_index: None,
            elapsed_ms: 0,
            title: None,
            truncated: false,
            cache: None,
            fetched_at: None,
            final_url: None,
            redirects: None,
            body_sha256: None,
            warc_record_id: None,
        }
    }
}

/// `success` only when usable content is returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Success,
    Error,
}

/// One content block: exactly one key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum ContentBlock {
    Json(Box<Receipt>),
    Text(String),
}

/// The tool result: `status`, `content`, and `toolUseId` only when echoing a ToolUse.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolResult {
    #[serde(rename = "toolUseId", default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    pub status: Status,
    pub content: Vec<ContentBlock>,
}

impl ToolResult {
    /// Wrap a receipt and its text (page content on success, one failure line otherwise).
    /// The status follows `receipt.ok`, so the two can never disagree.
    pub fn new(receipt: Receipt, text: String, tool_use_id: Option<String>) -> Self {
        let status = if receipt.ok {
            Status::Success
        } else {
            Status::Error
        };
        ToolResult {
            tool_use_id,
            status,
            content: vec![
                ContentBlock::Json(Box::new(receipt)),
                ContentBlock::Text(text),
            ],
        }
    }

    /// The receipt in block 0.
    pub fn receipt(&self) -> Option<&Receipt> {
        match self.content.first() {
            Some(ContentBlock::Json(r)) => Some(r),
            _ => None,
        }
    }

    /// The receipt in block 0, to fill in what only the front end knows (the WARC record
    /// it wrote).
    pub fn receipt_mut(&mut self) -> Option<&mut Receipt> {
        match self.content.first_mut() {
            Some(ContentBlock::Json(r)) => Some(r),
            _ => None,
        }
    }

    /// The text in block 1.
    pub fn text(&self) -> &str {
        match self.content.get(1) {
            Some(ContentBlock::Text(t)) => t,
            _ => "",
        }
    }

    pub fn is_success(&self) -> bool {
        self.status == Status::Success
    }
}

/// Cut `s` to at most `max` characters on a char boundary, marking the cut with `…`.
pub fn clip_chars(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let keep = max.saturating_sub(1);
    let mut out: String = s.chars().take(keep).collect();
    out.push('…');
    out
}

/// A small receipt for unit tests elsewhere in the crate.
#[cfg(test)]
pub(crate) fn sample_receipt(ok: bool) -> Receipt {
    let mut r = Receipt::start("https://example.com/".into(), 3, 1);
    r.ok = ok;
    r.attempts = 1;
    r.provider_used = ok.then(|| "direct".into());
    r.failure_reason = (!ok).then_some(FailureReason::AllProvidersFailed);
    r.elapsed_ms = 1;
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn receipt(ok: bool) -> Receipt {
        sample_receipt(ok)
    }

    #[test]
    fn envelope_keys_and_order() {
        let r = ToolResult::new(receipt(true), "body".into(), None);
        let v = serde_json::to_value(&r).unwrap();
        let keys: Vec<_> = v.as_object().unwrap().keys().cloned().collect();
        assert_eq!(keys, ["status", "content"]);
        assert_eq!(v["status"], "success");
        assert_eq!(v["content"][1]["text"], "body");
        assert!(v["content"][0]["json"]["ok"].as_bool().unwrap());
    }

    #[test]
    fn receipt_field_order_is_the_contract() {
        let v = serde_json::to_value(receipt(false)).unwrap();
        let keys: Vec<_> = v.as_object().unwrap().keys().cloned().collect();
        assert_eq!(
            keys,
            [
                "schema",
                "ok",
                "url",
                "attempts",
                "max_attempts",
                "providers_available",
                "provider_used",
                "fallback_used",
                "failure_reason",
                "content_chars",
                "attempts_log",
                "failure_detail",
                "content_sha256",
                "next_start_index",
                "elapsed_ms"
            ]
        );
        assert_eq!(v["failure_reason"], "all_providers_failed");
    }

    /// The optional fields follow the fifteen, in DESIGN's order, and only when set: a
    /// receipt without them is byte for byte what it was before they existed.
    #[test]
    fn optional_fields_follow_the_core_in_order() {
        let mut r = receipt(true);
        let bare = serde_json::to_value(&r).unwrap();
        assert_eq!(bare.as_object().unwrap().len(), 15);
        r.title = Some("T".into());
        r.truncated = true;
        r.cache = Some(CacheReport {
            status: CacheStatus::Miss,
            age_secs: 0,
        });
        r.fetched_at = Some("2024-05-01T12:00:00Z".into());
        r.final_url = Some("https://example.com/".into());
        r.redirects = Some(vec![]);
        r.body_sha256 = Some("0".repeat(64));
        r.warc_record_id = Some("<urn:uuid:00000000-0000-4000-8000-000000000000>".into());
        let v = serde_json::to_value(&r).unwrap();
        let keys: Vec<_> = v.as_object().unwrap().keys().cloned().collect();
        assert_eq!(
            keys[15..],
            [
                "title",
                "truncated",
                "cache",
                "fetched_at",
                "final_url",
                "redirects",
                "body_sha256",
                "warc_record_id"
            ]
        );
        assert_eq!(
            keys[..15],
            bare.as_object()
                .unwrap()
                .keys()
                .cloned()
                .collect::<Vec<_>>()[..]
        );
        let back: Receipt = serde_json::from_value(v).unwrap();
        assert_eq!(back, r);
    }

    #[test]
    fn tool_use_id_only_when_given() {
        let r = ToolResult::new(receipt(false), "x".into(), Some("t-1".into()));
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v["toolUseId"], "t-1");
        assert_eq!(v["status"], "error");
    }

    #[test]
    fn outcome_as_str_is_the_serde_spelling() {
        for o in [
            Outcome::Ok,
            Outcome::TransportError,
            Outcome::HttpError,
            Outcome::UnusableContent,
            Outcome::MalformedResponse,
        ] {
            assert_eq!(
                serde_json::to_value(o).ok(),
                Some(serde_json::Value::from(o.as_str())),
                "{o:?}"
            );
        }
    }

    #[test]
    fn clip_chars_respects_boundaries() {
        assert_eq!(clip_chars("abc", 5), "abc");
        assert_eq!(clip_chars("ééééé", 3), "éé…");
        assert_eq!(clip_chars("ééééé", 3).chars().count(), 3);
    }
}
