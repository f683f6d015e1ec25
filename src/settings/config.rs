//! The config file: discovery, TOML parsing, `${NAME}` expansion and validation.
//!
//! Everything here runs before any lookup and may fail: a bad config is the operator's
//! error and ends the process with exit code 2 and one line naming the file, the line (when
//! known), the key and the problem. Unknown keys are errors so that a typo is never silently
//! ignored. Secret values expanded from the environment are collected so the redactor can
//! scrub them; they are never put into an error message.

use crate::fetch::spec::{ProviderDetail, ProviderKind, ProviderSpec, Readiness};
use crate::model::secret::Secret;
use crate::settings::keys::{bad, control_char, KeyError};
use crate::settings::providers::{resolve_provider, ProviderTable};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;
use serde::Deserialize;
use toml::Spanned;

use crate::model::kinds::ExtractMode;
use crate::model::robots::RobotsMode;

/// The crate version, substituted for `VERSION` in `network.user_agent`.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// A config problem: where, which key, what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    pub path: Option<PathBuf>,
    pub line: Option<usize>,
    pub key: Option<String>,
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `config.toml:2: lookup.max_attempt_ceiling: expected an integer, ...` (DESIGN §9),
        // the shape compilers use, so editors can jump to the line.
        match &self.path {
            Some(p) => {
                write!(f, "{}", p.display())?;
                if let Some(l) = self.line {
                    write!(f, ":{l}")?;
                }
            }
            None => f.write_str("config")?,
        }
        f.write_str(": ")?;
        if let Some(k) = &self.key {
            write!(f, "{k}: ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for ConfigError {}

/// Where the loaded config came from (reported by `vetch providers` and `-v`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigSource {
    File(PathBuf),
    BuiltIn,
}

impl fmt::Display for ConfigSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigSource::File(p) => write!(f, "{}", p.display()),
            ConfigSource::BuiltIn => f.write_str("built-in default"),
        }
    }
}

/// Seconds, given in TOML as an integer or a float.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum Secs {
    Int(u64),
    Float(f64),
}

impl Secs {
    pub fn as_f64(self) -> f64 {
        match self {
            Secs::Int(i) => i as f64,
            Secs::Float(f) => f,
        }
    }
}

/// `[redaction]`: operator additions to the redactor.
#[derive(Debug, Clone, PartialEq, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct RedactionSection {
    /// A gitleaks-format rule file; relative paths are relative to the config file's
    /// directory.
    pub extra_rules: Option<String>,
}

/// `[lookup]`: defaults and operator ceilings.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LookupSection {
    pub default_max_attempts: u32,
    pub max_attempt_ceiling: u32,
    pub min_chars: u64,
    pub max_chars: u64,
    pub max_chars_ceiling: u64,
    pub attempt_timeout_secs: Secs,
    pub deadline_secs: Secs,
    pub max_body_bytes: u64,
    pub max_url_length: usize,
    pub extract: ExtractMode,
    /// Pages of a PDF read at most; later pages are dropped and the receipt says `truncated`.
    pub max_pdf_pages: usize,
    /// Whether robots.txt decides what may be fetched (DESIGN §13).
    pub robots: RobotsMode,
    /// The product token robots.txt groups are chosen by; every User-Agent contains it.
    pub robots_agent: String,
}

impl Default for LookupSection {
    fn default() -> Self {
        LookupSection {
            default_max_attempts: 3,
            max_attempt_ceiling: 5,
            min_chars: 40,
            max_chars: 20_000,
            max_chars_ceiling: 100_000,
            attempt_timeout_secs: Secs::Int(15),
            deadline_secs: Secs::Int(40),
            max_body_bytes: 5 * 1024 * 1024,
            max_url_length: 2048,
            extract: ExtractMode::Auto,
            max_pdf_pages: 200,
            robots: RobotsMode::Auto,
            robots_agent: "vetch".into(),
        }
    }
}

/// `[network]`: the guard and HTTP client settings.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NetworkSection {
    pub allow_private: bool,
    pub allow_private_hosts: Vec<String>,
    pub allowed_domains: Vec<String>,
    pub blocked_domains: Vec<String>,
    pub max_redirects: usize,
    pub user_agent: String,
}

impl Default for NetworkSection {
    fn default() -> Self {
        NetworkSection {
            allow_private: false,
            allow_private_hosts: vec![],
            allowed_domains: vec![],
            blocked_domains: vec![],
            max_redirects: 10,
            user_agent: "vetch/VERSION".into(),
        }
    }
}

/// `[cache]`: the private HTTP cache.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CacheSection {
    pub enabled: bool,
    /// None: `$XDG_CACHE_HOME/vetch`, else `~/.cache/vetch`. `~/` is the home directory;
    /// a relative path is relative to the config file's directory.
    pub dir: Option<String>,
    pub max_size_mb: u64,
    pub default_ttl_secs: u64,
}

impl Default for CacheSection {
    fn default() -> Self {
        CacheSection {
            enabled: true,
            dir: None,
            max_size_mb: 512,
            default_ttl_secs: 300,
        }
    }
}

/// `[mcp]`: the MCP server.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct McpSection {
    /// Tool calls that run at once (1..=1024); further calls wait for a free slot, so a
    /// flood of calls costs the memory of this many lookups, not of all of them.
    pub max_calls_in_flight: usize,
}

impl Default for McpSection {
    fn default() -> Self {
        McpSection {
            max_calls_in_flight: 16,
        }
    }
}

/// The whole file as written.
#[derive(Debug, Clone, PartialEq, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    #[serde(default)]
    pub lookup: LookupSection,
    #[serde(default)]
    pub network: NetworkSection,
    #[serde(default)]
    pub providers: Vec<Spanned<ProviderTable>>,
    #[serde(default)]
    pub redaction: RedactionSection,
    #[serde(default)]
    pub cache: CacheSection,
    #[serde(default)]
    pub mcp: McpSection,
}

/// The loaded config: sections, providers (all of them, ready or not), where it came from,
/// and the secret values expanded into it.
#[derive(Debug, Clone)]
pub struct Config {
    pub source: ConfigSource,
    pub lookup: LookupSection,
    pub network: NetworkSection,
    pub providers: Vec<ProviderSpec>,
    pub secrets: Vec<Secret>,
    /// Compiled `[redaction] extra_rules` (empty when none).
    pub redaction_rules: Vec<crate::redact::ExtraRule>,
    /// `[cache]`, its `dir` made absolute (None when no directory can be found).
    pub cache: CacheSection,
    pub cache_dir: Option<PathBuf>,
    /// `[mcp]`.
    pub mcp: McpSection,
    /// The line each `section.key` of the file is written on (keys of the `[section]`
    /// tables, not of `[[providers]]`): where a value came from, for `-vv` and errors.
    pub written: std::collections::BTreeMap<String, usize>,
}

impl Config {
    /// The built-in default: one `http` provider named `direct`.
    pub fn builtin() -> Config {
        Config {
            source: ConfigSource::BuiltIn,
            lookup: LookupSection::default(),
            network: finish_network(NetworkSection::default()),
            providers: vec![ProviderSpec {
                name: "direct".into(),
                kind: ProviderKind::Http,
                ready: Readiness::Ready,
                detail: ProviderDetail::Http {
                    headers: vec![],
                    proxy: None,
                    user_agent: None,
                },
            }],
            secrets: vec![],
            redaction_rules: vec![],
            cache: CacheSection::default(),
            cache_dir: default_cache_dir(),
            mcp: McpSection::default(),
            written: Default::default(),
        }
    }
}

/// `$XDG_CACHE_HOME/vetch`, else `~/.cache/vetch`; None when neither variable is set.
pub fn default_cache_dir() -> Option<PathBuf> {
    let from = |v: &str| {
        std::env::var_os(v)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    from("XDG_CACHE_HOME")
        .or_else(|| from("HOME").map(|h| h.join(".cache")))
        .map(|base| base.join("vetch"))
}

/// Where `[cache] dir` points: `~/` is the home directory, a relative path is relative to
/// the config file's directory.
fn cache_dir(written: &str, config_path: Option<&Path>) -> Option<PathBuf> {
    if let Some(rest) = written.strip_prefix("~/") {
        let home = std::env::var_os("HOME").filter(|v| !v.is_empty())?;
        return Some(PathBuf::from(home).join(rest));
    }
    let p = Path::new(written);
    Some(match config_path.and_then(Path::parent) {
        Some(dir) if p.is_relative() => dir.join(p),
        _ => p.to_path_buf(),
    })
}

/// Find the config file: `explicit` (from `--config`), else `$VETCH_CONFIG`, else
/// `$XDG_CONFIG_HOME/vetch/config.toml` (or `~/.config/vetch/config.toml`) if it exists.
/// An explicitly named file that is missing is an error, later, when it is read.
pub fn discover(explicit: Option<&Path>) -> Option<PathBuf> {
    if let Some(p) = explicit {
        return Some(p.to_path_buf());
    }
    if let Some(p) = std::env::var_os("VETCH_CONFIG").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|h| PathBuf::from(h).join(".config"))
        })?;
    let candidate = base.join("vetch").join("config.toml");
    candidate.is_file().then_some(candidate)
}

/// Load the config found by [`discover`], or the built-in default when there is none.
pub fn load(explicit: Option<&Path>) -> Result<Config, ConfigError> {
    match discover(explicit) {
        None => Ok(Config::builtin()),
        Some(path) => load_file(&path),
    }
}

/// Read and parse one config file.
pub fn load_file(path: &Path) -> Result<Config, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
        path: Some(path.to_path_buf()),
        line: None,
        key: None,
        message: format!("cannot read file: {e}"),
    })?;
    parse(&text, ConfigSource::File(path.to_path_buf()), &|name| {
        std::env::var(name).ok()
    })
}

/// The line where `section.key` is set, found by reading the text: the key's line inside
/// its `[section]` table (see [`written_keys`]). None when it is not written (a default).
fn key_line(text: &str, dotted: &str) -> Option<usize> {
    written_keys(text).get(dotted).copied()
}

/// The line where `key` is set (`key = ...`) in the table whose header is on `header`
/// (1-based), looking no further than the next header.
fn key_line_in_entry(text: &str, header: usize, key: &str) -> Option<usize> {
    text.lines()
        .enumerate()
        .skip(header)
        .take_while(|(_, l)| !l.trim_start().starts_with('['))
        .find(|(_, l)| {
            l.trim()
                .strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with('='))
        })
        .map(|(i, _)| i + 1)
}

/// The dotted key set on `line` (`lookup.min_chars`, `providers[1].headers`), from the
/// nearest table header above it. None when the line sets no key.
fn key_at_line(text: &str, line: usize) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let here = lines.get(line.checked_sub(1)?)?.trim();
    if here.starts_with('[') {
        return None;
    }
    let key = here.split_once('=')?.0.trim().trim_matches(['"', '\'']);
    let mut table = None;
    for l in lines[..line - 1].iter().rev() {
        let l = l.trim();
        if l.starts_with('[') {
            table = Some(l);
            break;
        }
    }
    Some(match table {
        None => key.to_string(),
        Some(h) if h.starts_with("[[") => {
            let name = h.trim_matches(['[', ']', ' ']);
            let index = lines[..line - 1]
                .iter()
                .filter(|l| {
                    l.trim().trim_matches(['[', ']', ' ']) == name && l.trim().starts_with("[[")
                })
                .count()
                .saturating_sub(1);
            format!("{name}[{index}].{key}")
        }
        Some(h) => format!("{}.{key}", h.trim_matches(['[', ']', ' '])),
    })
}

/// serde's wording (`invalid type: string "five", expected u32`) in words a person uses
/// (`expected an integer, got the string "five"`). Other messages pass through.
fn in_words(message: &str) -> String {
    static SERDE: LazyLock<Regex> = LazyLock::new(|| {
        #[allow(clippy::expect_used)]
        Regex::new(r"^invalid (type|value): (.+?), expected (.+)$").expect("static regex")
    });
    if message.contains("untagged enum Secs") {
        return "expected a number of seconds (an integer or a float)".into();
    }
    let Some(c) = SERDE.captures(message) else {
        return message.to_string();
    };
    let got = &c[2];
    let unquote = |s: &str| s.trim_matches('`').to_string();
    let got = if let Some(v) = got.strip_prefix("string ") {
        format!("the string {v}")
    } else if let Some(v) = got.strip_prefix("integer ") {
        format!("the integer {}", unquote(v))
    } else if let Some(v) = got.strip_prefix("floating point ") {
        format!("the float {}", unquote(v))
    } else if let Some(v) = got.strip_prefix("boolean ") {
        format!("the boolean {}", unquote(v))
    } else {
        match got {
            "sequence" => "an array".into(),
            "map" => "a table".into(),
            other => other.to_string(),
        }
    };
    let expected = match &c[3] {
        "u8" | "u16" | "u32" | "u64" | "usize" if &c[1] == "value" => "a non-negative integer",
        "u8" | "u16" | "u32" | "u64" | "usize" | "i8" | "i16" | "i32" | "i64" | "isize" => {
            "an integer"
        }
        "f32" | "f64" => "a number",
        "a sequence" => "an array",
        "a map" => "a table",
        "a boolean" | "bool" => "true or false",
        other if other.starts_with("struct ") => "a table",
        other => other,
    };
    format!("expected {expected}, got {got}")
}

fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

/// Parse config text. `env` looks up `${NAME}` variables (the process environment in
/// production, a map in tests).
pub fn parse(
    text: &str,
    source: ConfigSource,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Config, ConfigError> {
    let path = match &source {
        ConfigSource::File(p) => Some(p.clone()),
        ConfigSource::BuiltIn => None,
    };
    let err = |line: Option<usize>, key: Option<String>, message: String| ConfigError {
        path: path.clone(),
        line,
        key,
        message,
    };
    let file: ConfigFile = toml::from_str(text).map_err(|e| {
        let mut line = e.span().map(|s| line_of(text, s.start));
        // An unknown key in an array-of-tables entry is reported at the entry's header:
        // point at the key's own line instead.
        if let (Some(l), Some(field)) = (line, e.message().strip_prefix("unknown field `")) {
            let field = field.split('`').next().unwrap_or("");
            line = key_line_in_entry(text, l, field).or(line);
        }
        let key = line.and_then(|l| key_at_line(text, l));
        err(line, key, in_words(e.message().trim()).replace('\n', " "))
    })?;

    validate_lookup(&file.lookup)
        .map_err(|KeyError { key, message }| err(key_line(text, &key), Some(key), message))?;
    if let Some(why) = control_char(&file.network.user_agent) {
        return Err(err(
            key_line(text, "network.user_agent"),
            Some("network.user_agent".into()),
            why,
        ));
    }
    if file.network.max_redirects > 100 {
        return Err(err(
            key_line(text, "network.max_redirects"),
            Some("network.max_redirects".into()),
            format!("{} is above the limit of 100", file.network.max_redirects),
        ));
    }

    let mut secrets = Vec::new();
    let mut providers: Vec<ProviderSpec> = Vec::new();
    for (i, spanned) in file.providers.iter().enumerate() {
        let line = Some(line_of(text, spanned.span().start));
        let table = spanned.get_ref();
        let spec =
            resolve_provider(table, env, &mut secrets).map_err(|KeyError { key, message }| {
                err(
                    line.and_then(|l| key_line_in_entry(text, l, &key)).or(line),
                    Some(format!("providers[{i}].{key}")),
                    format!("provider '{}': {message}", table.name),
                )
            })?;
        if providers.iter().any(|p| p.name == spec.name) {
            return Err(err(
                line,
                Some(format!("providers[{i}].name")),
                format!("duplicate provider name '{}'", spec.name),
            ));
        }
        providers.push(spec);
    }

    let redaction_rules = match &file.redaction.extra_rules {
        None => Vec::new(),
        Some(name) => load_rules(name, path.as_deref())
            .map_err(|(file, line, msg)| ConfigError {
                path: Some(file),
                line,
                key: Some("redaction.extra_rules".into()),
                message: msg,
            })
            .map_err(|mut e| {
                if e.path.is_none() {
                    e.line = key_line(text, "redaction.extra_rules");
                }
                e
            })?,
    };

    let cache_key = |k: &str| format!("cache.{k}");
    if file.cache.max_size_mb == 0 {
        let key = cache_key("max_size_mb");
        return Err(err(
            key_line(text, &key),
            Some(key),
            "must be at least 1".into(),
        ));
    }
    if file.cache.max_size_mb > 1024 * 1024 {
        let key = cache_key("max_size_mb");
        return Err(err(
            key_line(text, &key),
            Some(key),
            format!(
                "{} is above the limit of 1048576 (1 TiB)",
                file.cache.max_size_mb
            ),
        ));
    }
    if file.cache.default_ttl_secs > 365 * 86_400 {
        let key = cache_key("default_ttl_secs");
        return Err(err(
            key_line(text, &key),
            Some(key),
            format!(
                "{} is above the limit of 31536000 (a year)",
                file.cache.default_ttl_secs
            ),
        ));
    }
    if !(1..=1024).contains(&file.mcp.max_calls_in_flight) {
        let key = "mcp.max_calls_in_flight".to_string();
        return Err(err(
            key_line(text, &key),
            Some(key),
            format!("{} is outside 1..=1024", file.mcp.max_calls_in_flight),
        ));
    }
    let cache_dir = match file.cache.dir.as_deref() {
        None => default_cache_dir(),
        Some(d) if d.trim().is_empty() => {
            let key = cache_key("dir");
            return Err(err(
                key_line(text, &key),
                Some(key),
                "must not be empty".into(),
            ));
        }
        Some(d) => cache_dir(d, path.as_deref()),
    };

    Ok(Config {
        source,
        lookup: file.lookup,
        network: finish_network(file.network),
        providers,
        secrets,
        redaction_rules,
        cache: file.cache,
        cache_dir,
        mcp: file.mcp,
        written: written_keys(text),
    })
}

/// Every `key = …` written inside a `[section]` table, as `section.key`, with its line
/// (1-based; the first when written twice, which TOML refuses anyway).
fn written_keys(text: &str) -> std::collections::BTreeMap<String, usize> {
    let mut out = std::collections::BTreeMap::new();
    let mut section: Option<String> = None;
    for (i, line) in text.lines().enumerate() {
        let l = line.trim();
        if l.starts_with("[[") {
            section = None;
        } else if let Some(name) = l.strip_prefix('[') {
            section = Some(name.trim_end_matches(']').trim().to_string());
        } else if let (Some(sec), Some((k, _))) = (&section, l.split_once('=')) {
            let k = k.trim().trim_matches('"');
            if !k.is_empty() && !k.starts_with('#') {
                out.entry(format!("{sec}.{k}")).or_insert(i + 1);
            }
        }
    }
    out
}

/// Read and compile `[redaction] extra_rules`: `name` relative to the config file's
/// directory (or absolute). Errors name the rule file, the line when known and the rule id.
fn load_rules(
    name: &str,
    config_path: Option<&Path>,
) -> Result<Vec<crate::redact::ExtraRule>, (PathBuf, Option<usize>, String)> {
    let p = Path::new(name);
    let file = match config_path.and_then(Path::parent) {
        Some(dir) if p.is_relative() => dir.join(p),
        _ => p.to_path_buf(),
    };
    let text = std::fs::read_to_string(&file)
        .map_err(|e| (file.clone(), None, format!("cannot read rule file: {e}")))?;
    crate::redact::parse_gitleaks_rules(&text).map_err(|e| {
        let msg = match e.rule {
            Some(id) => format!("rule '{id}': {}", e.message),
            None => e.message,
        };
        (file.clone(), e.line, msg)
    })
}

fn finish_network(mut n: NetworkSection) -> NetworkSection {
    n.user_agent = n.user_agent.replace("VERSION", VERSION);
    n
}

fn validate_lookup(l: &LookupSection) -> Result<(), KeyError> {
    let key = |k: &str| format!("lookup.{k}");
    if l.max_attempt_ceiling == 0 {
        return Err(bad(key("max_attempt_ceiling"), "must be at least 1".into()));
    }
    if l.default_max_attempts == 0 || l.default_max_attempts > l.max_attempt_ceiling {
        return Err(bad(
            key("default_max_attempts"),
            format!(
                "{} is outside 1..={} (max_attempt_ceiling)",
                l.default_max_attempts, l.max_attempt_ceiling
            ),
        ));
    }
    if l.min_chars == 0 || l.min_chars > 1_000_000 {
        return Err(bad(
            key("min_chars"),
            format!("{} is outside 1..=1000000", l.min_chars),
        ));
    }
    if l.max_chars_ceiling == 0 {
        return Err(bad(key("max_chars_ceiling"), "must be at least 1".into()));
    }
    if l.max_chars == 0 || l.max_chars > l.max_chars_ceiling {
        return Err(bad(
            key("max_chars"),
            format!(
                "{} is outside 1..={} (max_chars_ceiling)",
                l.max_chars, l.max_chars_ceiling
            ),
        ));
    }
    for (name, v) in [
        ("attempt_timeout_secs", l.attempt_timeout_secs.as_f64()),
        ("deadline_secs", l.deadline_secs.as_f64()),
    ] {
        if !(v.is_finite() && v > 0.0 && v <= 86_400.0) {
            return Err(bad(
                key(name),
                format!("{v} is not a number of seconds in (0, 86400]"),
            ));
        }
    }
    if l.max_body_bytes == 0 {
        return Err(bad(key("max_body_bytes"), "must be at least 1".into()));
    }
    if l.max_url_length < 16 {
        return Err(bad(key("max_url_length"), "must be at least 16".into()));
    }
    if l.max_pdf_pages == 0 {
        return Err(bad(key("max_pdf_pages"), "must be at least 1".into()));
    }
    if !is_product_token(&l.robots_agent) {
        return Err(bad(
            key("robots_agent"),
            format!(
                "{:?} is not a product token (letters, '_' and '-' only, RFC 9309)",
                l.robots_agent
            ),
        ));
    }
    Ok(())
}

/// A robots.txt product token: `[A-Za-z_-]+` (RFC 9309 §2.2.1).
pub fn is_product_token(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.bytes()
            .all(|b| b.is_ascii_alphabetic() || b == b'_' || b == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::providers::unterminated_var;

    fn env_with(vars: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

    fn parse_str(text: &str) -> Result<Config, ConfigError> {
        parse(
            text,
            ConfigSource::File("/etc/vetch.toml".into()),
            &env_with(&[("READER_KEY", "sekrit-value-123")]),
        )
    }

    #[test]
    fn redaction_extra_rules_load_relative_to_the_config() {
        let dir = tempfile::tempdir().unwrap();
        let rules = dir.path().join("gitleaks.toml");
        std::fs::write(
            &rules,
            "[[rules]]\nid = \"acme\"\nregex = 'acme_[a-z0-9]{24}'\nkeywords = [\"acme_\"]\n",
        )
        .unwrap();
        let cfg = dir.path().join("config.toml");
        std::fs::write(&cfg, "[redaction]\nextra_rules = \"gitleaks.toml\"\n").unwrap();
        let c = load_file(&cfg).unwrap();
        assert_eq!(c.redaction_rules.len(), 1);
        assert_eq!(c.redaction_rules[0].id, "acme");

        std::fs::write(
            &rules,
            "[[rules]]\nid = \"broken-rule\"\nregex = '(unclosed'\n",
        )
        .unwrap();
        let e = load_file(&cfg).unwrap_err().to_string();
        assert!(
            e.contains("gitleaks.toml") && e.contains("broken-rule"),
            "{e}"
        );
        assert!(e.contains("redaction.extra_rules"), "{e}");

        std::fs::write(&cfg, "[redaction]\nextra_rules = \"missing.toml\"\n").unwrap();
        let e = load_file(&cfg).unwrap_err().to_string();
        assert!(
            e.contains("missing.toml") && e.contains("cannot read"),
            "{e}"
        );

        std::fs::write(&cfg, "[redaction]\nextra_rulez = \"x\"\n").unwrap();
        assert!(load_file(&cfg).is_err());
    }

    #[test]
    fn empty_file_has_no_providers_and_defaults() {
        let c = parse_str("").unwrap();
        assert!(c.providers.is_empty());
        assert_eq!(c.lookup, LookupSection::default());
        assert_eq!(c.network.user_agent, format!("vetch/{VERSION}"));
    }

    #[test]
    fn builtin_has_direct() {
        let c = Config::builtin();
        assert_eq!(c.providers.len(), 1);
        assert_eq!(c.providers[0].name, "direct");
        assert_eq!(c.providers[0].kind, ProviderKind::Http);
    }

    #[test]
    fn unknown_key_names_line_and_key() {
        let e = parse_str("[lookup]\nmin_chars = 3\nmax_attempt_ceilin = 4\n").unwrap_err();
        assert_eq!(e.line, Some(3));
        assert!(e.message.contains("max_attempt_ceilin"), "{e}");
        assert!(e.to_string().starts_with("/etc/vetch.toml:3: "), "{e}");
    }

    #[test]
    fn robots_keys_parse_and_bad_values_name_the_line() {
        let c = parse_str("[lookup]\nrobots = \"respect\"\nrobots_agent = \"My_Bot-2\"\n");
        let e = c.unwrap_err().to_string();
        assert!(
            e.starts_with(
                "/etc/vetch.toml:3: lookup.robots_agent: \"My_Bot-2\" is not a product token"
            ),
            "{e}"
        );
        let c = parse_str("[lookup]\nrobots = \"ignore\"\nrobots_agent = \"My_Bot\"\n").unwrap();
        assert_eq!(c.lookup.robots, RobotsMode::Ignore);
        assert_eq!(c.lookup.robots_agent, "My_Bot");
        let e = parse_str("\n[lookup]\nrobots = \"sometimes\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("/etc/vetch.toml:3: lookup.robots: "), "{e}");
        assert!(
            e.contains("auto") && e.contains("respect") && e.contains("ignore"),
            "{e}"
        );
        assert_eq!(parse_str("").unwrap().lookup.robots, RobotsMode::Auto);
    }

    #[test]
    fn wrong_type_is_reported() {
        let e = parse_str("[lookup]\nmin_chars = \"many\"\n").unwrap_err();
        assert_eq!(e.line, Some(2));
    }

    #[test]
    fn wrong_types_name_key_and_type_in_words() {
        let cases = [
            (
                "[lookup]\nmax_attempt_ceiling = \"five\"\n",
                "/etc/vetch.toml:2: lookup.max_attempt_ceiling: expected an integer, got the string \"five\"",
            ),
            (
                "# c\n[network]\nallow_private = 1\n",
                "/etc/vetch.toml:3: network.allow_private: expected true or false, got the integer 1",
            ),
            (
                "[lookup]\nmin_chars = -3\n",
                "/etc/vetch.toml:2: lookup.min_chars: expected a non-negative integer, got the integer -3",
            ),
            (
                "[lookup]\ndeadline_secs = \"ten\"\n",
                "/etc/vetch.toml:2: lookup.deadline_secs: expected a number of seconds",
            ),
            (
                "[[providers]]\nname = \"a\"\nkind = \"http\"\n\n[[providers]]\nname = \"b\"\nkind = \"http\"\nheaders = 5\n",
                "/etc/vetch.toml:8: providers[1].headers: expected a table, got the integer 5",
            ),
            (
                "[network]\nallowed_domains = \"a.example\"\n",
                "/etc/vetch.toml:2: network.allowed_domains: expected an array, got the string",
            ),
        ];
        for (text, want) in cases {
            let e = parse_str(text).unwrap_err().to_string();
            assert!(e.starts_with(want), "{text}\n got: {e}\nwant: {want}");
        }
    }

    #[test]
    fn key_of_other_kind_is_named_at_its_own_line() {
        let e = parse_str("[[providers]]\nname = \"d\"\nkind = \"http\"\nargv = [\"x\"]\n")
            .unwrap_err();
        assert_eq!(e.key.as_deref(), Some("providers[0].argv"));
        assert_eq!(e.line, Some(4));
        let e = parse_str("[[providers]]\nname = \"d\"\nkind = \"http\"\nbogus = 1\n").unwrap_err();
        assert_eq!(e.line, Some(4), "{e}");
        assert!(e.to_string().contains("bogus"), "{e}");
    }

    #[test]
    fn unterminated_variable_is_a_config_error() {
        for (text, key) in [
            ("[[providers]]\nname = \"r\"\nkind = \"template\"\nurl = \"https://r.example/{url}\"\nheaders = { A = \"Bearer ${READER_KEY\" }\n", "providers[0].headers"),
            ("[[providers]]\nname = \"r\"\nkind = \"template\"\nurl = \"https://r.example/{url}?k=${K\"\n", "providers[0].url"),
            ("[[providers]]\nname = \"c\"\nkind = \"command\"\nargv = [\"x\", \"{url}\", \"${A-B}\"]\n", "providers[0].argv"),
        ] {
            let e = parse_str(text).unwrap_err();
            assert_eq!(e.key.as_deref(), Some(key), "{e}");
            assert!(e.message.contains("unterminated"), "{e}");
        }
        assert!(unterminated_var("${A}${B}").is_none());
        assert!(unterminated_var("$HOME {url}").is_none());
    }

    #[test]
    fn no_providers_section_loads_with_no_providers() {
        let c = parse_str("[lookup]\nmin_chars = 3\n").unwrap();
        assert!(c.providers.is_empty());
    }

    #[test]
    fn secret_expanded_and_collected() {
        let c = parse_str(
            "[[providers]]\nname = \"r\"\nkind = \"template\"\nurl = \"https://r.example/{url}\"\nheaders = { Authorization = \"Bearer ${READER_KEY}\" }\n",
        )
        .unwrap();
        assert_eq!(c.secrets, vec![Secret::new("sekrit-value-123".to_string())]);
        assert!(!format!("{c:?}").contains("sekrit"), "{c:?}");
        assert_eq!(c.secrets[0].to_string(), "(redacted)");
        assert!(c.providers[0].ready.is_ready());
        match &c.providers[0].detail {
            ProviderDetail::Template { headers, .. } => {
                assert_eq!(headers[0].1.expose(), "Bearer sekrit-value-123")
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn missing_variable_makes_not_ready() {
        let c = parse_str(
            "[[providers]]\nname = \"r\"\nkind = \"template\"\nurl = \"https://r.example/{url}?key=${NOPE}\"\n",
        )
        .unwrap();
        assert_eq!(
            c.providers[0].ready,
            Readiness::MissingEnv(vec!["NOPE".to_string()])
        );
    }

    #[test]
    fn template_without_placeholder_is_an_error() {
        let e = parse_str(
            "[[providers]]\nname = \"r\"\nkind = \"template\"\nurl = \"https://r.example/\"\n",
        )
        .unwrap_err();
        assert!(e.message.contains("neither {url}"), "{e}");
    }

    #[test]
    fn json_needs_pointer_and_pointer_needs_slash() {
        let base = "[[providers]]\nname = \"r\"\nkind = \"template\"\nurl = \"https://r.example/{url}\"\nresponse = \"json\"\n";
        assert!(parse_str(base).is_err());
        assert!(parse_str(&format!("{base}content_pointer = \"data\"\n")).is_err());
        assert!(parse_str(&format!("{base}content_pointer = \"/data\"\n")).is_ok());
    }

    #[test]
    fn duplicate_names_rejected() {
        let t = "[[providers]]\nname = \"a\"\nkind = \"http\"\n[[providers]]\nname = \"a\"\nkind = \"http\"\n";
        let e = parse_str(t).unwrap_err();
        assert!(e.message.contains("duplicate"), "{e}");
        assert_eq!(e.line, Some(4));
    }

    #[test]
    fn crlf_in_header_value_or_user_agent_is_a_config_error() {
        let e = parse_str("[network]\nuser_agent = \"ua\\r\\nX-Evil: 1\"\n").unwrap_err();
        assert_eq!(e.line, Some(2));
        assert_eq!(e.key.as_deref(), Some("network.user_agent"));
        assert!(e.message.contains("carriage return"), "{}", e.message);
        let e = parse_str(
            "[[providers]]\nname = \"d\"\nkind = \"http\"\nheaders = { X-A = \"a\\nb\" }\n",
        )
        .unwrap_err();
        assert_eq!(e.key.as_deref(), Some("providers[0].headers.X-A"));
        assert!(e.message.contains("line feed"), "{}", e.message);
        let e =
            parse_str("[[providers]]\nname = \"d\"\nkind = \"http\"\nuser_agent = \"a\\u0000\"\n")
                .unwrap_err();
        assert_eq!(e.key.as_deref(), Some("providers[0].user_agent"));
        assert!(e.message.contains("U+0000"), "{}", e.message);
        // A tab is allowed in a header value.
        parse_str("[[providers]]\nname = \"d\"\nkind = \"http\"\nheaders = { X-A = \"a\\tb\" }\n")
            .unwrap();
    }

    #[test]
    fn range_errors_name_their_line() {
        let e = parse_str("# comment\n[lookup]\nmax_chars = 10\nmin_chars = 0\n").unwrap_err();
        assert_eq!(e.line, Some(4));
        assert_eq!(e.key.as_deref(), Some("lookup.min_chars"));
        let e = parse_str("[network]\nmax_redirects = 500\n").unwrap_err();
        assert_eq!(e.line, Some(2));
    }

    #[test]
    fn cache_section_defaults_keys_and_errors() {
        let c = parse_str("").unwrap();
        assert_eq!(c.cache, CacheSection::default());
        assert!(c.cache.enabled && c.cache.max_size_mb == 512 && c.cache.default_ttl_secs == 300);
        let c = parse_str(
            "[cache]\nenabled = false\ndir = \"/tmp/x\"\nmax_size_mb = 1\ndefault_ttl_secs = 0\n",
        )
        .unwrap();
        assert!(!c.cache.enabled);
        assert_eq!(c.cache_dir.as_deref(), Some(Path::new("/tmp/x")));
        let e = parse_str("[cache]\nenabled = true\nmax_size = 3\n").unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains(":3:") && msg.contains("max_size"), "{msg}");
        let e = parse_str("[cache]\n\nmax_size_mb = 0\n").unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains(":3: cache.max_size_mb"), "{msg}");
        let e = parse_str("[cache]\nenabled = \"yes\"\n").unwrap_err();
        assert!(e.to_string().contains("cache.enabled"), "{e}");
        assert!(parse_str("[cache]\ndir = \"\"\n").is_err());
    }

    #[test]
    fn mcp_section_bounds_calls_in_flight() {
        assert_eq!(parse_str("").unwrap().mcp.max_calls_in_flight, 16);
        let c = parse_str("[mcp]\nmax_calls_in_flight = 4\n").unwrap();
        assert_eq!(c.mcp.max_calls_in_flight, 4);
        for bad in ["0", "1025"] {
            let e = parse_str(&format!("[mcp]\n\nmax_calls_in_flight = {bad}\n")).unwrap_err();
            let msg = e.to_string();
            assert!(
                msg.contains(":3: mcp.max_calls_in_flight") && msg.contains("1..=1024"),
                "{msg}"
            );
        }
        let e = parse_str("[mcp]\nmax_calls = 4\n").unwrap_err();
        assert!(e.to_string().contains("max_calls"), "{e}");
    }

    #[test]
    fn ceilings_checked() {
        assert!(parse_str("[lookup]\ndefault_max_attempts = 9\n").is_err());
        assert!(parse_str("[lookup]\nmax_chars = 200000\n").is_err());
        assert!(parse_str("[lookup]\ndeadline_secs = 0\n").is_err());
        let c = parse_str("[lookup]\nattempt_timeout_secs = 0.5\n").unwrap();
        assert_eq!(c.lookup.attempt_timeout_secs.as_f64(), 0.5);
    }

    #[test]
    fn command_needs_placeholder_and_program() {
        assert!(parse_str(
            "[[providers]]\nname = \"c\"\nkind = \"command\"\nargv = [\"echo\", \"hi\"]\n"
        )
        .is_err());
        let c = parse_str(
            "[[providers]]\nname = \"c\"\nkind = \"command\"\nargv = [\"definitely-not-a-program-xyz\", \"{url}\"]\n",
        )
        .unwrap();
        assert_eq!(
            c.providers[0].ready.to_string(),
            "program not found: definitely-not-a-program-xyz"
        );
    }
}
