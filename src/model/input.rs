//! The model-facing tool input: parsing with errors a model can act on,
//! and unwrapping a Strands/Bedrock ToolUse.
//!
//! Nothing here clamps (that is `settings::Settings::request`) and nothing here may panic:
//! every mistake becomes an [`InputError`] naming the field and what is accepted.

use serde_json::{Map, Value};

/// The fields a caller may send, as sent (numbers not yet clamped).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolInput {
    pub url: String,
    pub must_contain: Option<String>,
    pub min_chars: Option<i64>,
    pub max_attempts: Option<i64>,
    pub start_index: Option<i64>,
    pub max_chars: Option<i64>,
}

/// Field names of the tool input, in schema order.
pub const INPUT_FIELDS: [&str; 6] = [
    "url",
    "must_contain",
    "min_chars",
    "max_attempts",
    "start_index",
    "max_chars",
];

/// A caller mistake, worded for the caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    pub message: String,
}

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

fn err(message: impl Into<String>) -> InputError {
    InputError {
        message: message.into(),
    }
}

/// How a JSON value's type reads in an error message ("an integer", "a string", ...).
pub(crate) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "an integer",
        Value::Number(_) => "a non-integer number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// An integer field. Integers of any size are accepted and later clamped; a float with no
/// fractional part (`3.0`) counts as an integer; anything else is a wrong-type error.
fn integer(field: &str, v: &Value) -> Result<i64, InputError> {
    if let Value::Number(n) = v {
        if let Some(i) = n.as_i64() {
            return Ok(i);
        }
        if n.as_u64().is_some() {
            return Ok(i64::MAX);
        }
        if let Some(f) = n.as_f64() {
            if f.is_finite() && f.fract() == 0.0 {
                // `as` saturates at the i64 bounds, which the clamp then handles.
                return Ok(f as i64);
            }
        }
    }
    Err(err(format!(
        "field `{field}` must be an integer, got {} ({})",
        type_name(v),
        short(v)
    )))
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    crate::model::receipt::clip_chars(&s, 40)
}

impl ToolInput {
    /// Parse a bare tool input object.
    pub fn from_value(v: &Value) -> Result<ToolInput, InputError> {
        let Value::Object(map) = v else {
            return Err(err(format!(
                "the tool input must be a JSON object like {{\"url\": \"https://example.com\"}}, got {}",
                type_name(v)
            )));
        };
        Self::from_map(map)
    }

    fn from_map(map: &Map<String, Value>) -> Result<ToolInput, InputError> {
        let unknown: Vec<&str> = map
            .keys()
            .map(String::as_str)
            .filter(|k| !INPUT_FIELDS.contains(k))
            .collect();
        if !unknown.is_empty() {
            return Err(err(format!(
                "unknown field{} {}; accepted fields: {}",
                if unknown.len() > 1 { "s" } else { "" },
                unknown
                    .iter()
                    .map(|k| format!("`{}`", crate::model::receipt::clip_chars(k, 40)))
                    .collect::<Vec<_>>()
                    .join(", "),
                INPUT_FIELDS.join(", ")
            )));
        }
        let url = match map.get("url") {
            None => {
                return Err(err(
                    "missing required field `url` (an http or https URL to fetch)",
                ))
            }
            Some(Value::String(s)) => s.clone(),
            Some(other) => {
                return Err(err(format!(
                    "field `url` must be a string, got {}",
                    type_name(other)
                )))
            }
        };
        let must_contain = match map.get("must_contain") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()).filter(|s| !s.is_empty()),
            Some(other) => {
                return Err(err(format!(
                    "field `must_contain` must be a string, got {}",
                    type_name(other)
                )))
            }
        };
        let num = |field: &str| -> Result<Option<i64>, InputError> {
            map.get(field).map(|v| integer(field, v)).transpose()
        };
        Ok(ToolInput {
            url,
            must_contain,
            min_chars: num("min_chars")?,
            max_attempts: num("max_attempts")?,
            start_index: num("start_index")?,
            max_chars: num("max_chars")?,
        })
    }

    /// Just a URL, every other field at its default.
    pub fn for_url(url: impl Into<String>) -> ToolInput {
        ToolInput {
            url: url.into(),
            ..ToolInput::default()
        }
    }
}

/// What a caller sent: a bare input or a ToolUse around one. The `toolUseId` is kept even
/// when the input inside is wrong, so the error can be routed back to the right call.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub tool_use_id: Option<String>,
    pub input: Result<ToolInput, InputError>,
}

/// Parse one JSON text (a `vetch tool` stdin, or one batch line that starts with `{`).
pub fn parse_request(text: &str) -> Request {
    if text.trim().is_empty() {
        return Request {
            tool_use_id: None,
            input: Err(err(
                "empty input: expected one JSON object like {\"url\": \"https://example.com\"}",
            )),
        };
    }
    let value: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            return Request {
                tool_use_id: None,
                input: Err(err(format!(
                    "input is not valid JSON ({e}); expected an object like {{\"url\": \"https://example.com\"}}"
                ))),
            }
        }
    };
    request_from_value(&value)
}

/// Complete a URL typed by a person (command line, batch URL lines) as a browser's address
/// bar does. A host that is local, where a server rarely speaks TLS, gets `http://`:
/// `localhost` (and `*.localhost`), a loopback, private, link-local, CGNAT or unique-local
/// IP literal (`127.0.0.1:8080`, `[::1]`, `10.0.0.5`), and a single-label name
/// (`intranet:8080`). Any other name with a dot (`example.com/docs`) or a public IP literal
/// gets `https://`. Anything else (a URL with a scheme, `mailto:x@y.example`, text with
/// spaces) is returned as is, for the URL check to judge. Model input never goes through
/// this: a model must say what it means.
pub fn complete_scheme(raw: &str) -> String {
    let s = raw.trim();
    if s.contains("://") || s.is_empty() {
        return s.to_string();
    }
    let segment = s.split(['/', '?', '#']).next().unwrap_or("");
    if segment.contains('@') {
        return s.to_string();
    }
    let host = if segment.starts_with('[') {
        // An IPv6 literal, maybe with a port.
        match segment.find(']') {
            Some(end) if port_ok(&segment[end + 1..]) => &segment[..=end],
            _ => return s.to_string(),
        }
    } else {
        match segment.split_once(':') {
            Some((h, rest)) if port_ok(&format!(":{rest}")) => h,
            Some(_) => return s.to_string(),
            None => segment,
        }
    };
    let looks_like_a_host = host.starts_with('[')
        || (!host.is_empty()
            && !host.starts_with('.')
            && host
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '.' | '-' | '_')));
    if !looks_like_a_host {
        return s.to_string();
    }
    // Let the URL parser say what the host is: it reads every IPv4 spelling (`127.1`,
    // `2130706433`) as the address it means.
    let Ok(parsed) = url::Url::parse(&format!("http://{s}")) else {
        return s.to_string();
    };
    let local = match parsed.host() {
        Some(url::Host::Ipv4(ip)) => local_ip(std::net::IpAddr::V4(ip)),
        Some(url::Host::Ipv6(ip)) => local_ip(std::net::IpAddr::V6(ip)),
        Some(url::Host::Domain(name)) => {
            let name = name.trim_end_matches('.');
            name == "localhost" || name.ends_with(".localhost") || !name.contains('.')
        }
        None => return s.to_string(),
    };
    if local {
        format!("http://{s}")
    } else {
        format!("https://{s}")
    }
}

/// An address a server on this machine or its network has: loopback, private, link-local,
/// CGNAT (100.64.0.0/10), unique-local or unspecified; IPv4-mapped IPv6 judged as IPv4.
fn local_ip(ip: std::net::IpAddr) -> bool {
    use std::net::IpAddr;
    match ip {
        IpAddr::V4(v4) => {
            let [a, b, ..] = v4.octets();
            v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || (a == 100 && (64..128).contains(&b))
        }
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => local_ip(IpAddr::V4(v4)),
            None => {
                let first = v6.segments()[0];
                v6.is_loopback()
                    || v6.is_unspecified()
                    || (first & 0xfe00) == 0xfc00
                    || (first & 0xffc0) == 0xfe80
            }
        },
    }
}

/// Empty, or `:` and 1-5 digits.
fn port_ok(rest: &str) -> bool {
    rest.is_empty()
        || rest
            .strip_prefix(':')
            .is_some_and(|p| !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit()))
}

/// How a `vetch tool` request was wrapped, so the answer can be wrapped the same way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Envelope {
    /// A bare input or a Strands/Bedrock ToolUse: answered with a bare tool result.
    Plain,
    /// A Bedrock Converse block `{"toolUse": {...}}`: answered with `{"toolResult": {...}}`.
    Converse,
}

/// Parse a `vetch tool` stdin: like [`parse_request`], and a Bedrock Converse
/// `{"toolUse": {"toolUseId", "name", "input"}}` block is unwrapped one level.
pub fn parse_tool_request(text: &str) -> (Envelope, Request) {
    if let Ok(Value::Object(map)) = serde_json::from_str::<Value>(text) {
        if let Some(inner) = map.get("toolUse") {
            let mut request = match inner {
                Value::Object(_) => request_from_value(inner),
                other => Request {
                    tool_use_id: None,
                    input: Err(err(format!(
                        "`toolUse` must be an object like {{\"toolUseId\": \"t1\", \"name\": \"{}\", \"input\": {{\"url\": \"https://example.com\"}}}}, got {}",
                        crate::model::spec::TOOL_NAME,
                        type_name(other)
                    ))),
                },
            };
            if map.len() > 1 && request.input.is_ok() {
                let extra: Vec<String> = map
                    .keys()
                    .filter(|k| *k != "toolUse")
                    .map(|k| format!("`{}`", crate::model::receipt::clip_chars(k, 40)))
                    .collect();
                request.input = Err(err(format!(
                    "unknown field{} {} next to `toolUse`; a Converse block has only `toolUse`",
                    if extra.len() > 1 { "s" } else { "" },
                    extra.join(", ")
                )));
            }
            return (Envelope::Converse, request);
        }
    }
    (Envelope::Plain, parse_request(text))
}

/// Interpret a parsed value as a bare input or a ToolUse (`toolUseId`/`name`/`input`).
pub fn request_from_value(value: &Value) -> Request {
    let Value::Object(map) = value else {
        return Request {
            tool_use_id: None,
            input: ToolInput::from_value(value),
        };
    };
    let is_tool_use = map.contains_key("toolUseId") || map.contains_key("input");
    if !is_tool_use {
        return Request {
            tool_use_id: None,
            input: ToolInput::from_map(map),
        };
    }
    let tool_use_id = match map.get("toolUseId") {
        Some(Value::String(s)) => Some(s.clone()),
        _ => None,
    };
    let input = (|| {
        match map.get("toolUseId") {
            Some(Value::String(_)) | None => {}
            Some(other) => {
                return Err(err(format!(
                    "ToolUse field `toolUseId` must be a string, got {}",
                    type_name(other)
                )))
            }
        }
        let extra: Vec<&str> = map
            .keys()
            .map(String::as_str)
            .filter(|k| !["toolUseId", "name", "input"].contains(k))
            .collect();
        if !extra.is_empty() {
            return Err(err(format!(
                "unknown ToolUse field{} {}; a ToolUse has toolUseId, name and input",
                if extra.len() > 1 { "s" } else { "" },
                extra
                    .iter()
                    .map(|k| format!("`{}`", crate::model::receipt::clip_chars(k, 40)))
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        match map.get("name") {
            None => {}
            Some(Value::String(n)) if n == crate::model::spec::TOOL_NAME => {}
            Some(other) => {
                return Err(err(format!(
                    "ToolUse `name` must be \"{}\", got {}",
                    crate::model::spec::TOOL_NAME,
                    short(other)
                )))
            }
        }
        match map.get("input") {
            None => Err(err(
                "ToolUse is missing `input` (an object like {\"url\": \"https://example.com\"})",
            )),
            Some(v) => ToolInput::from_value(v),
        }
    })();
    Request { tool_use_id, input }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(v: Value) -> Result<ToolInput, InputError> {
        request_from_value(&v).input
    }

    #[test]
    fn bare_input() {
        let i = parse(json!({"url": "https://a.example/", "max_attempts": 2, "must_contain": "x"}))
            .unwrap();
        assert_eq!(i.url, "https://a.example/");
        assert_eq!(i.max_attempts, Some(2));
        assert_eq!(i.must_contain.as_deref(), Some("x"));
    }

    #[test]
    fn tool_use_keeps_id_even_on_error() {
        let r = request_from_value(
            &json!({"toolUseId": "t1", "name": "verified_web_lookup", "input": {"nope": 1}}),
        );
        assert_eq!(r.tool_use_id.as_deref(), Some("t1"));
        let e = r.input.unwrap_err();
        assert!(e.message.contains("`nope`"), "{e}");
        assert!(e.message.contains("accepted fields"), "{e}");
    }

    #[test]
    fn mistakes_are_named() {
        let cases = [
            (json!([1]), "must be a JSON object"),
            (json!({}), "missing required field `url`"),
            (json!({"url": 5}), "field `url` must be a string"),
            (
                json!({"url": "u", "max_attempts": 2.5}),
                "field `max_attempts` must be an integer",
            ),
            (
                json!({"url": "u", "min_chars": "3"}),
                "field `min_chars` must be an integer",
            ),
            (
                json!({"url": "u", "max_chars": null}),
                "field `max_chars` must be an integer",
            ),
            (
                json!({"url": "u", "must_contain": 3}),
                "field `must_contain` must be a string",
            ),
            (
                json!({"toolUseId": "a", "name": "other", "input": {"url": "u"}}),
                "`name` must be",
            ),
            (json!({"toolUseId": "a"}), "missing `input`"),
            (
                json!({"toolUseId": 7, "input": {"url": "u"}}),
                "`toolUseId` must be a string",
            ),
        ];
        for (v, want) in cases {
            let e = parse(v.clone()).unwrap_err();
            assert!(e.message.contains(want), "{v}: {e}");
        }
    }

    #[test]
    fn whole_floats_and_huge_numbers_are_integers() {
        let i = parse(json!({"url": "u", "max_attempts": 3.0, "start_index": 1e30, "max_chars": 18446744073709551615u64})).unwrap();
        assert_eq!(i.max_attempts, Some(3));
        assert_eq!(i.start_index, Some(i64::MAX));
        assert_eq!(i.max_chars, Some(i64::MAX));
    }

    #[test]
    fn urls_without_a_scheme_get_https_or_http_for_local_hosts() {
        let cases = [
            ("example.com/docs", "https://example.com/docs"),
            ("example.com", "https://example.com"),
            ("  docs.rs/tokio?x=1 ", "https://docs.rs/tokio?x=1"),
            ("8.8.8.8/dns", "https://8.8.8.8/dns"),
            ("[2606:4700::1111]:443/x", "https://[2606:4700::1111]:443/x"),
            // Local servers rarely speak TLS: http, as a browser's address bar does.
            ("localhost", "http://localhost"),
            ("LOCALHOST:8080/x", "http://LOCALHOST:8080/x"),
            ("app.localhost:3000", "http://app.localhost:3000"),
            ("127.0.0.1:3000", "http://127.0.0.1:3000"),
            ("127.1:3000/x", "http://127.1:3000/x"),
            ("10.0.0.5/health", "http://10.0.0.5/health"),
            ("192.168.1.1", "http://192.168.1.1"),
            ("172.16.0.9:81", "http://172.16.0.9:81"),
            ("169.254.10.1", "http://169.254.10.1"),
            ("100.64.0.1", "http://100.64.0.1"),
            ("0.0.0.0:8000", "http://0.0.0.0:8000"),
            ("[::1]:8080/a", "http://[::1]:8080/a"),
            ("[fd00::5]/x", "http://[fd00::5]/x"),
            ("[fe80::1]", "http://[fe80::1]"),
            ("[::ffff:10.0.0.1]", "http://[::ffff:10.0.0.1]"),
            ("intranet:8080", "http://intranet:8080"),
            ("intranet/wiki", "http://intranet/wiki"),
            ("notaurl", "http://notaurl"),
            // Left as typed, for the URL check to judge.
            ("http://example.com/", "http://example.com/"),
            ("ftp://example.com/", "ftp://example.com/"),
            ("mailto:x@y.example", "mailto:x@y.example"),
            ("user@host.example/", "user@host.example/"),
            ("file:/etc/passwd", "file:/etc/passwd"),
            ("javascript:alert(1)", "javascript:alert(1)"),
            ("not a url", "not a url"),
            ("//example.com/x", "//example.com/x"),
            ("", ""),
            (".hidden", ".hidden"),
            ("[::1", "[::1"),
        ];
        for (given, want) in cases {
            assert_eq!(complete_scheme(given), want, "{given}");
        }
    }

    #[test]
    fn converse_tool_use_is_unwrapped() {
        let (env, r) = parse_tool_request(
            r#"{"toolUse": {"toolUseId": "c1", "name": "verified_web_lookup", "input": {"url": "https://a.example/"}}}"#,
        );
        assert_eq!(env, Envelope::Converse);
        assert_eq!(r.tool_use_id.as_deref(), Some("c1"));
        assert_eq!(r.input.unwrap().url, "https://a.example/");
        let (env, r) = parse_tool_request(r#"{"toolUse": {"toolUseId": "c2", "input": {"u": 1}}}"#);
        assert_eq!(env, Envelope::Converse);
        assert_eq!(r.tool_use_id.as_deref(), Some("c2"));
        assert!(r.input.unwrap_err().message.contains("`u`"));
        let (env, r) = parse_tool_request(r#"{"toolUse": 3}"#);
        assert_eq!(env, Envelope::Converse);
        assert!(r.input.unwrap_err().message.contains("must be an object"));
        let (_, r) = parse_tool_request(
            r#"{"toolUse": {"toolUseId": "c3", "input": {"url": "u"}}, "x": 1}"#,
        );
        assert_eq!(r.tool_use_id.as_deref(), Some("c3"));
        assert!(r.input.unwrap_err().message.contains("`x`"));
        let (env, _) = parse_tool_request(r#"{"url": "https://a.example/"}"#);
        assert_eq!(env, Envelope::Plain);
    }

    #[test]
    fn text_level_errors() {
        assert!(parse_request("")
            .input
            .unwrap_err()
            .message
            .contains("empty input"));
        assert!(parse_request("{nope")
            .input
            .unwrap_err()
            .message
            .contains("not valid JSON"));
    }
}
