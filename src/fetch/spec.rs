//! What a provider is, as the config described it once `${NAME}` values were expanded and
//! the keys checked: its kind (`http`, `template`, `command`) and the details of that kind.
//! `settings::config` builds these from the file; `fetch::provider` turns them into
//! working providers. Plain data, no I/O.

use serde::Deserialize;

use crate::model::secret::Secret;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProviderKind {
    Http,
    Template,
    Command,
}

impl ProviderKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ProviderKind::Http => "http",
            ProviderKind::Template => "template",
            ProviderKind::Command => "command",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Method {
    #[default]
    Get,
    Post,
}

/// How a provider's answer is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ResponseKind {
    #[default]
    Text,
    Json,
}

/// A provider ready to be built, after expansion and validation.
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderSpec {
    pub name: String,
    pub kind: ProviderKind,
    /// Whether the provider can run here, and if not, why.
    pub ready: Readiness,
    pub detail: ProviderDetail,
}

/// Whether a provider can run here. One that is not is skipped without spending budget,
/// not counted in `providers_available`, and `vetch providers` says why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Readiness {
    Ready,
    /// `${NAME}` variables that are unset or empty, in the order the config uses them.
    MissingEnv(Vec<String>),
    /// A `command` provider's program, found neither as a path nor along `$PATH`.
    ProgramNotFound(String),
}

impl Readiness {
    pub fn is_ready(&self) -> bool {
        *self == Readiness::Ready
    }
}

impl std::fmt::Display for Readiness {
    /// `ready`, `missing env JINA_API_KEY, OTHER`, `program not found: chromium`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Readiness::Ready => f.write_str("ready"),
            Readiness::MissingEnv(names) => write!(f, "missing env {}", names.join(", ")),
            Readiness::ProgramNotFound(program) => write!(f, "program not found: {program}"),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum ProviderDetail {
    Http {
        headers: Vec<(String, Secret)>,
        proxy: Option<String>,
        user_agent: Option<String>,
    },
    Template {
        url: Secret,
        method: Method,
        headers: Vec<(String, Secret)>,
        body: Option<Secret<serde_json::Value>>,
        response: ResponseKind,
        content_pointer: Option<String>,
        proxy: Option<String>,
        user_agent: Option<String>,
    },
    Command {
        argv: Vec<Secret>,
        response: ResponseKind,
        content_pointer: Option<String>,
    },
}

impl ProviderSpec {
    /// What the provider talks to, for `vetch providers`: the template's host, the command's
    /// program, or "the requested URL". Never contains a header, a query or a secret.
    pub fn target(&self) -> String {
        match &self.detail {
            ProviderDetail::Http { .. } => "the requested URL".into(),
            ProviderDetail::Template { url, .. } => {
                let scrubbed = url
                    .expose()
                    .replace("{url_encoded}", "x")
                    .replace("{url}", "x");
                match url::Url::parse(&scrubbed) {
                    Ok(u) => format!("{}://{}", u.scheme(), u.host_str().unwrap_or("?")),
                    Err(_) => "(unparseable template URL)".into(),
                }
            }
            ProviderDetail::Command { argv, .. } => {
                argv.first().map(|a| a.expose().clone()).unwrap_or_default()
            }
        }
    }
}

/// A header whose value is a credential: `Authorization`, `Cookie`, or a name that says
/// key, token, secret, auth, session, password or signature. Such a header goes to the
/// requested origin only: never on a redirect hop to another one.
pub fn sensitive_header(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n == "cookie"
        || [
            "auth",
            "key",
            "token",
            "secret",
            "session",
            "password",
            "signature",
        ]
        .iter()
        .any(|w| n.contains(w))
}
