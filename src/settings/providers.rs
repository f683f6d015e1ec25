//! One `[[providers]]` table: its keys (which kinds take which, [`KEYS`]), the checks and
//! the `${NAME}` expansion common to all kinds, and one resolve function per kind, giving
//! a [`ProviderSpec`] with its [`Readiness`]. Expanded values are collected as secrets;
//! none is ever put into an error message.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;
use serde::Deserialize;

use crate::fetch::spec::{
    Method, ProviderDetail, ProviderKind, ProviderSpec, Readiness, ResponseKind,
};
use crate::model::secret::Secret;
use crate::settings::keys::{bad, control_char, KeyError};

/// One `[[providers]]` table as written. Flat on purpose: keys that do not belong to the
/// provider's kind are reported by name in [`resolve_provider`].
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderTable {
    pub name: String,
    pub kind: ProviderKind,
    pub url: Option<String>,
    pub method: Option<Method>,
    pub headers: Option<BTreeMap<String, String>>,
    pub body: Option<toml::Table>,
    pub response: Option<ResponseKind>,
    pub content_pointer: Option<String>,
    pub argv: Option<Vec<String>>,
    pub proxy: Option<String>,
    pub user_agent: Option<String>,
}

/// An opened `${` that does not close as `${NAME}`, e.g. `Bearer ${KEY`.
pub(crate) fn unterminated_var(s: &str) -> Option<String> {
    let mut rest = s;
    while let Some(i) = rest.find("${") {
        let after = &rest[i + 2..];
        let name_len = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        if !after[name_len..].starts_with('}') {
            return Some(format!(
                "unterminated `${{{}`: write ${{NAME}} to take an environment variable",
                crate::model::receipt::clip_chars(&after[..name_len], 40)
            ));
        }
        rest = &after[name_len..];
    }
    None
}

pub(crate) static VAR: LazyLock<Regex> = LazyLock::new(|| {
    #[allow(clippy::expect_used)]
    Regex::new(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}").expect("static regex")
});

/// Expand `${NAME}` in `s`. Missing (or empty) variables are collected in `missing`;
/// expanded values are collected in `secrets`.
pub(crate) fn expand(
    s: &str,
    env: &dyn Fn(&str) -> Option<String>,
    missing: &mut Vec<String>,
    secrets: &mut Vec<Secret>,
) -> String {
    VAR.replace_all(s, |caps: &regex::Captures<'_>| {
        let name = &caps[1];
        match env(name).filter(|v| !v.is_empty()) {
            Some(v) => {
                if !secrets.iter().any(|s| s.expose() == &v) {
                    secrets.push(Secret::new(v.clone()));
                }
                v
            }
            None => {
                if !missing.iter().any(|m| m == name) {
                    missing.push(name.to_string());
                }
                String::new()
            }
        }
    })
    .into_owned()
}

pub(crate) fn uses_placeholder(s: &str) -> bool {
    s.contains("{url}") || s.contains("{url_encoded}")
}

pub(crate) fn json_uses_placeholder(v: &serde_json::Value) -> bool {
    match v {
        serde_json::Value::String(s) => uses_placeholder(s),
        serde_json::Value::Array(a) => a.iter().any(json_uses_placeholder),
        serde_json::Value::Object(o) => o.values().any(json_uses_placeholder),
        _ => false,
    }
}

pub(crate) fn expand_json(
    v: &mut serde_json::Value,
    env: &dyn Fn(&str) -> Option<String>,
    missing: &mut Vec<String>,
    secrets: &mut Vec<Secret>,
) {
    match v {
        serde_json::Value::String(s) => *s = expand(s, env, missing, secrets),
        serde_json::Value::Array(a) => a
            .iter_mut()
            .for_each(|x| expand_json(x, env, missing, secrets)),
        serde_json::Value::Object(o) => o
            .values_mut()
            .for_each(|x| expand_json(x, env, missing, secrets)),
        _ => {}
    }
}

/// Check that a proxy URL parses and has a scheme reqwest can use.
pub(crate) fn check_proxy(p: &str) -> Result<(), String> {
    let u = url::Url::parse(p).map_err(|e| format!("not a URL: {e}"))?;
    match u.scheme() {
        "http" | "https" | "socks5" | "socks5h" => Ok(()),
        other => Err(format!(
            "scheme '{other}' is not one of http, https, socks5, socks5h"
        )),
    }
}

/// Every key of a `[[providers]]` table besides `name` and `kind`, and the kinds it belongs
/// to: the one place that says which keys a kind takes (its error lists them in this order).
const KEYS: &[(&str, &[ProviderKind])] = &[
    ("argv", &[ProviderKind::Command]),
    ("url", &[ProviderKind::Template]),
    ("method", &[ProviderKind::Template]),
    ("headers", &[ProviderKind::Http, ProviderKind::Template]),
    ("body", &[ProviderKind::Template]),
    ("response", &[ProviderKind::Template, ProviderKind::Command]),
    (
        "content_pointer",
        &[ProviderKind::Template, ProviderKind::Command],
    ),
    ("proxy", &[ProviderKind::Http, ProviderKind::Template]),
    ("user_agent", &[ProviderKind::Http, ProviderKind::Template]),
];

impl ProviderTable {
    /// Whether the table sets `key` (one of [`KEYS`]).
    fn has(&self, key: &str) -> bool {
        match key {
            "argv" => self.argv.is_some(),
            "url" => self.url.is_some(),
            "method" => self.method.is_some(),
            "headers" => self.headers.is_some(),
            "body" => self.body.is_some(),
            "response" => self.response.is_some(),
            "content_pointer" => self.content_pointer.is_some(),
            "proxy" => self.proxy.is_some(),
            "user_agent" => self.user_agent.is_some(),
            _ => false,
        }
    }
}

/// What the resolution of one table collects as it expands `${NAME}`.
struct Expander<'a> {
    env: &'a dyn Fn(&str) -> Option<String>,
    /// Variables that are unset or empty (the provider is then not ready).
    missing: Vec<String>,
    secrets: &'a mut Vec<Secret>,
}

impl Expander<'_> {
    fn string(&mut self, s: &str) -> String {
        expand(s, self.env, &mut self.missing, self.secrets)
    }

    fn json(&mut self, v: &mut serde_json::Value) {
        expand_json(v, self.env, &mut self.missing, self.secrets);
    }
}

/// The parts every kind that sends HTTP shares: headers, proxy and user agent, expanded
/// and checked.
struct HttpParts {
    headers: Vec<(String, Secret)>,
    proxy: Option<String>,
    user_agent: Option<String>,
}

/// Validate one provider table for its kind and expand its variables.
pub fn resolve_provider(
    t: &ProviderTable,
    env: &dyn Fn(&str) -> Option<String>,
    secrets: &mut Vec<Secret>,
) -> Result<ProviderSpec, KeyError> {
    if t.name.trim().is_empty() {
        return Err(bad("name".into(), "must not be empty".into()));
    }
    let takes = |key: &str| {
        KEYS.iter()
            .any(|(k, kinds)| *k == key && kinds.contains(&t.kind))
    };
    if let Some((key, _)) = KEYS.iter().find(|(k, _)| t.has(k) && !takes(k)) {
        let its: Vec<&str> = KEYS
            .iter()
            .filter(|(k, _)| takes(k))
            .map(|(k, _)| *k)
            .collect();
        return Err(bad(
            (*key).into(),
            format!(
                "not a key of kind '{}' (its keys: {})",
                t.kind.as_str(),
                its.join(", ")
            ),
        ));
    }
    let response = check_response(t)?;
    check_variables(t)?;
    let mut ex = Expander {
        env,
        missing: Vec::new(),
        secrets,
    };
    let parts = http_parts(t, &mut ex)?;
    let detail = match t.kind {
        ProviderKind::Http => ProviderDetail::Http {
            headers: parts.headers,
            proxy: parts.proxy.clone(),
            user_agent: parts.user_agent,
        },
        ProviderKind::Template => resolve_template(t, parts, response, &mut ex)?,
        ProviderKind::Command => resolve_command(t, response, &mut ex)?,
    };
    let missing = ex.missing;
    if let Some(p) = proxy_of(&detail) {
        if missing.is_empty() {
            check_proxy(p).map_err(|m| bad("proxy".to_string(), m))?;
        }
    }
    let ready = if !missing.is_empty() {
        Readiness::MissingEnv(missing)
    } else if let ProviderDetail::Command { argv, .. } = &detail {
        match argv.first() {
            Some(program) if find_program(program.expose()).is_none() => {
                Readiness::ProgramNotFound(program.expose().clone())
            }
            _ => Readiness::Ready,
        }
    } else {
        Readiness::Ready
    };
    Ok(ProviderSpec {
        name: t.name.clone(),
        kind: t.kind,
        ready,
        detail,
    })
}

fn proxy_of(detail: &ProviderDetail) -> Option<&String> {
    match detail {
        ProviderDetail::Http { proxy, .. } | ProviderDetail::Template { proxy, .. } => {
            proxy.as_ref()
        }
        ProviderDetail::Command { .. } => None,
    }
}

/// `response` and `content_pointer` agree: a pointer only with JSON, and JSON needs one.
fn check_response(t: &ProviderTable) -> Result<ResponseKind, KeyError> {
    let response = t.response.unwrap_or_default();
    if let Some(p) = &t.content_pointer {
        if response != ResponseKind::Json {
            return Err(bad(
                "content_pointer".into(),
                "only applies with response = \"json\"".into(),
            ));
        }
        if !(p.is_empty() || p.starts_with('/')) {
            return Err(bad(
                "content_pointer".into(),
                format!("'{p}' is not an RFC 6901 pointer (it must start with '/')"),
            ));
        }
    }
    if response == ResponseKind::Json && t.content_pointer.is_none() {
        return Err(bad(
            "content_pointer".into(),
            "is required with response = \"json\" (e.g. \"/data/content\")".into(),
        ));
    }
    Ok(response)
}

/// Every `${` opened in a string of the table closes as `${NAME}`.
fn check_variables(t: &ProviderTable) -> Result<(), KeyError> {
    let strings = [("url", t.url.iter().collect::<Vec<_>>())]
        .into_iter()
        .chain([(
            "headers",
            t.headers.iter().flat_map(|h| h.values()).collect(),
        )])
        .chain([("argv", t.argv.iter().flatten().collect())])
        .chain([("proxy", t.proxy.iter().collect())])
        .chain([("user_agent", t.user_agent.iter().collect())]);
    for (key, values) in strings {
        if let Some(why) = values.into_iter().find_map(|v| unterminated_var(v)) {
            return Err(bad(key.into(), why));
        }
    }
    if let Some(why) = t
        .body
        .as_ref()
        .and_then(|b| unterminated_var(&toml::Value::Table(b.clone()).to_string()))
    {
        return Err(bad("body".into(), why));
    }
    Ok(())
}

/// Headers, proxy and user agent, expanded; a header that cannot be sent is an error.
fn http_parts(t: &ProviderTable, ex: &mut Expander<'_>) -> Result<HttpParts, KeyError> {
    let headers: Vec<(String, Secret)> = t
        .headers
        .iter()
        .flatten()
        .map(|(k, v)| (k.clone(), Secret::new(ex.string(v))))
        .collect();
    for (k, v) in &headers {
        if reqwest::header::HeaderName::from_bytes(k.as_bytes()).is_err() {
            return Err(bad(
                "headers".into(),
                format!("'{k}' is not a valid header name"),
            ));
        }
        if let Some(why) = control_char(v.expose()) {
            return Err(bad(format!("headers.{k}"), why));
        }
    }
    let proxy = t.proxy.as_deref().map(|p| ex.string(p));
    let user_agent = t.user_agent.as_deref().map(|u| ex.string(u));
    if let Some(why) = user_agent.as_deref().and_then(control_char) {
        return Err(bad("user_agent".into(), why));
    }
    Ok(HttpParts {
        headers,
        proxy,
        user_agent,
    })
}

/// `kind = "template"`: a URL (and maybe a body) built from `{url}` / `{url_encoded}`.
fn resolve_template(
    t: &ProviderTable,
    parts: HttpParts,
    response: ResponseKind,
    ex: &mut Expander<'_>,
) -> Result<ProviderDetail, KeyError> {
    let Some(raw_url) = &t.url else {
        return Err(bad("url".into(), "is required for kind 'template'".into()));
    };
    let url = Secret::new(ex.string(raw_url));
    let mut body = match &t.body {
        None => None,
        Some(table) => Some(
            serde_json::to_value(table)
                .map_err(|e| bad("body".to_string(), format!("cannot be sent as JSON: {e}")))?,
        ),
    };
    if let Some(b) = body.as_mut() {
        ex.json(b);
    }
    let anywhere = uses_placeholder(raw_url)
        || t.headers.iter().flatten().any(|(_, v)| uses_placeholder(v))
        || body.as_ref().is_some_and(json_uses_placeholder);
    if !anywhere {
        return Err(bad(
            "url".into(),
            "the template uses neither {url} nor {url_encoded} anywhere".into(),
        ));
    }
    let probe = url
        .expose()
        .replace("{url_encoded}", "x")
        .replace("{url}", "x");
    match url::Url::parse(&probe) {
        Ok(u) if matches!(u.scheme(), "http" | "https") => {}
        Ok(u) => {
            return Err(bad(
                "url".into(),
                format!("scheme '{}' is not http or https", u.scheme()),
            ))
        }
        // With an unset variable the URL may be incomplete; readiness reports that.
        Err(_) if !ex.missing.is_empty() => {}
        Err(e) => return Err(bad("url".into(), format!("does not parse as a URL: {e}"))),
    }
    let method = t.method.unwrap_or_default();
    if body.is_some() && method == Method::Get {
        return Err(bad("body".into(), "needs method = \"POST\"".into()));
    }
    Ok(ProviderDetail::Template {
        url,
        method,
        headers: parts.headers,
        body: body.map(Secret::new),
        response,
        content_pointer: t.content_pointer.clone(),
        proxy: parts.proxy,
        user_agent: parts.user_agent,
    })
}

/// `kind = "command"`: a program and its arguments, one of which holds the URL.
fn resolve_command(
    t: &ProviderTable,
    response: ResponseKind,
    ex: &mut Expander<'_>,
) -> Result<ProviderDetail, KeyError> {
    let Some(argv) = &t.argv else {
        return Err(bad("argv".into(), "is required for kind 'command'".into()));
    };
    if argv.is_empty() || argv[0].trim().is_empty() {
        return Err(bad("argv".into(), "must name a program first".into()));
    }
    if !argv.iter().any(|a| uses_placeholder(a)) {
        return Err(bad(
            "argv".into(),
            "uses neither {url} nor {url_encoded} in any argument".into(),
        ));
    }
    let argv: Vec<Secret> = argv.iter().map(|a| Secret::new(ex.string(a))).collect();
    Ok(ProviderDetail::Command {
        argv,
        response,
        content_pointer: t.content_pointer.clone(),
    })
}

/// Find an executable: a path with a separator is checked as is, a bare name along `$PATH`.
pub fn find_program(program: &str) -> Option<PathBuf> {
    fn is_exec(p: &Path) -> bool {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            p.metadata()
                .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
                .unwrap_or(false)
        }
        #[cfg(not(unix))]
        {
            p.is_file()
        }
    }
    if program.contains(std::path::MAIN_SEPARATOR) || program.contains('/') {
        let p = PathBuf::from(program);
        return is_exec(&p).then_some(p);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|p| is_exec(p))
}
