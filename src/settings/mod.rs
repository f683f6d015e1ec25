//! One value with everything a lookup needs: the loaded config, the operator's command-line
//! overrides, the network policy and the redactor, with every clamp applied in one place.
//!
//! Built once per process (ripgrep's "high-level args"); shared read-only afterwards.

pub mod config;
pub mod keys;
pub mod providers;

use std::sync::Arc;
use std::time::Duration;

use crate::fetch::guard::NetworkPolicy;
use crate::fetch::spec::{ProviderDetail, ProviderSpec};
use crate::model::input::ToolInput;
use crate::model::kinds::ExtractMode;
use crate::model::robots::RobotsMode;
use crate::model::secret::Secret;
use crate::redact::Redactor;
use crate::settings::config::Config;

/// What the operator said on the command line that changes the config.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub allow_private: bool,
    /// `--provider NAME`, repeatable: use these, in this order.
    pub providers: Vec<String>,
    pub extract: Option<ExtractMode>,
    /// `-v` count: 0 quiet, 1 diagnostics, 2 also request lines and timings.
    pub verbose: u8,
    /// `-H 'Name: value'`: added to every `http` provider's requests, after its own. The
    /// value is a [`Secret`]: a `{:?}` of the overrides never shows a credential.
    pub headers: Vec<(String, Secret)>,
    /// `--timeout SECS`: replaces `lookup.attempt_timeout_secs`.
    pub attempt_timeout_secs: Option<f64>,
    /// `--deadline SECS`: replaces `lookup.deadline_secs`.
    pub deadline_secs: Option<f64>,
    /// `--user-agent UA`: replaces `network.user_agent` and every provider's own.
    pub user_agent: Option<String>,
    /// `--no-cache`: the HTTP cache is neither read nor written this run.
    pub no_cache: bool,
    /// `--max-age SECS`: a stored copy at most this old is used, else revalidated.
    pub max_age_secs: Option<u64>,
    /// `--robots respect|ignore`: replaces `lookup.robots`.
    pub robots: Option<RobotsMode>,
}

/// Where a setting's value came from: the default, a line of the config file, or a flag of
/// this run (which wins over the file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    Default,
    File {
        path: std::path::PathBuf,
        line: usize,
    },
    Flag(&'static str),
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::Default => f.write_str("default"),
            Origin::File { path, line } => write!(f, "{}:{line}", path.display()),
            Origin::Flag(flag) => f.write_str(flag),
        }
    }
}

/// A usage problem found while combining config and flags (exit code 2).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// Everything a run needs, derived once from the config and the flags. Fields are private:
/// callers read what was derived (limits, policy, providers, extract mode, redactor)
/// through the methods below, never the raw file.
#[derive(Debug, Clone)]
pub struct Settings {
    config: Config,
    /// The providers to use, in order (after `--provider` selection), ready or not.
    providers: Vec<ProviderSpec>,
    policy: NetworkPolicy,
    extract: ExtractMode,
    /// 1 with `-v`, 2 or more with `-vv` (request lines and timings too).
    verbosity: u8,
    redactor: Arc<Redactor>,
    no_cache: bool,
    max_age_secs: Option<u64>,
    /// The keys a flag of this run set, and the flag (see [`Settings::origin`]).
    flagged: Vec<(&'static str, &'static str)>,
}

/// A lookup request with every model-facing number clamped into the operator's ranges.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LookupRequest {
    pub url: String,
    pub must_contain: Option<String>,
    /// In `1..=1_000_000`.
    pub min_chars: usize,
    /// In `1..=max_attempt_ceiling`.
    pub max_attempts: u32,
    /// In `0..`.
    pub start_index: usize,
    /// In `1..=max_chars_ceiling`.
    pub max_chars: usize,
}

pub use crate::fetch::spec::sensitive_header;

/// `ua`, with the robots.txt product token appended when it does not already contain it
/// (in any letter case): `Mozilla/5.0 (X11)` becomes `Mozilla/5.0 (X11) vetch`.
pub fn with_token(ua: &str, token: &str) -> String {
    if ua
        .to_ascii_lowercase()
        .contains(&token.to_ascii_lowercase())
    {
        ua.to_string()
    } else if ua.trim().is_empty() {
        token.to_string()
    } else {
        format!("{ua} {token}")
    }
}

/// Clamp `v` into `lo..=hi` (with `lo <= hi`).
pub fn clamp(v: i64, lo: i64, hi: i64) -> i64 {
    v.max(lo).min(hi.max(lo))
}

impl Settings {
    pub fn new(mut config: Config, o: Overrides) -> Result<Settings, UsageError> {
        if let Some(t) = o.attempt_timeout_secs {
            config.lookup.attempt_timeout_secs = crate::settings::config::Secs::Float(t);
        }
        if let Some(t) = o.deadline_secs {
            config.lookup.deadline_secs = crate::settings::config::Secs::Float(t);
        }
        if let Some(ua) = &o.user_agent {
            config.network.user_agent = ua.clone();
        }
        if let Some(mode) = o.robots {
            config.lookup.robots = mode;
        }
        // Every request says who it is in robots.txt's terms (DESIGN §13).
        let token = config.lookup.robots_agent.clone();
        config.network.user_agent = with_token(&config.network.user_agent, &token);
        for p in &mut config.providers {
            if let ProviderDetail::Http {
                user_agent: Some(ua),
                ..
            }
            | ProviderDetail::Template {
                user_agent: Some(ua),
                ..
            } = &mut p.detail
            {
                *ua = with_token(ua, &token);
            }
        }
        for p in &mut config.providers {
            match &mut p.detail {
                ProviderDetail::Http {
                    headers,
                    user_agent,
                    ..
                } => {
                    // Same name: the operator's value wins for this run.
                    for (name, value) in &o.headers {
                        headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
                        headers.push((name.clone(), value.clone()));
                    }
                    if o.user_agent.is_some() {
                        *user_agent = None;
                    }
                }
                ProviderDetail::Template { user_agent, .. } => {
                    if o.user_agent.is_some() {
                        *user_agent = None;
                    }
                }
                ProviderDetail::Command { .. } => {}
            }
        }
        let providers = if o.providers.is_empty() {
            config.providers.clone()
        } else {
            let mut chosen = Vec::new();
            for name in &o.providers {
                let Some(p) = config.providers.iter().find(|p| &p.name == name) else {
                    let known: Vec<&str> =
                        config.providers.iter().map(|p| p.name.as_str()).collect();
                    // Where the list comes from, so a wrong file is seen at once.
                    let source = match &config.source {
                        crate::settings::config::ConfigSource::File(p) => p.display().to_string(),
                        crate::settings::config::ConfigSource::BuiltIn => {
                            "the built-in default".to_string()
                        }
                    };
                    return Err(UsageError(format!(
                        "unknown provider '{name}' (--provider): the providers of {source} are {}",
                        if known.is_empty() {
                            "none".to_string()
                        } else {
                            known.join(", ")
                        }
                    )));
                };
                if !chosen.iter().any(|c: &ProviderSpec| &c.name == name) {
                    chosen.push(p.clone());
                }
            }
            chosen
        };
        let mut redactor = Redactor::new();
        for s in &config.secrets {
            redactor.add_secret(s.expose());
        }
        // A credential given on the command line is as secret as one in the config. Only
        // credential-like headers: scrubbing `text/html` from every page would corrupt it.
        for (n, v) in &o.headers {
            if sensitive_header(n) {
                let v = v.expose();
                redactor.add_secret(v);
                // `Bearer X`, `Token X`: the credential alone is what a server echoes.
                if let Some((_, cred)) = v.trim().split_once(' ') {
                    redactor.add_secret(cred.trim());
                }
            }
        }
        redactor.add_rules(config.redaction_rules.clone());
        let n = &config.network;
        let policy = NetworkPolicy {
            allow_private: n.allow_private || o.allow_private,
            allow_private_hosts: n.allow_private_hosts.clone(),
            allowed_domains: n.allowed_domains.clone(),
            blocked_domains: n.blocked_domains.clone(),
        };
        let extract = o.extract.unwrap_or(config.lookup.extract);
        let flagged = [
            (
                o.attempt_timeout_secs.is_some(),
                "lookup.attempt_timeout_secs",
                "--timeout",
            ),
            (
                o.deadline_secs.is_some(),
                "lookup.deadline_secs",
                "--deadline",
            ),
            (o.user_agent.is_some(), "network.user_agent", "--user-agent"),
            (o.allow_private, "network.allow_private", "--allow-private"),
            (o.extract.is_some(), "lookup.extract", "--extract"),
            (o.max_age_secs.is_some(), "cache.max_age_secs", "--max-age"),
        ]
        .into_iter()
        .filter(|(set, _, _)| *set)
        .map(|(_, key, flag)| (key, flag))
        .collect();
        Ok(Settings {
            flagged,
            providers,
            policy,
            extract,
            verbosity: o.verbose,
            redactor: Arc::new(redactor),
            no_cache: o.no_cache,
            max_age_secs: o.max_age_secs,
            config,
        })
    }

    /// The ready providers, in order.
    /// Where the config came from (a file, or the built-in default).
    pub fn source(&self) -> &crate::settings::config::ConfigSource {
        &self.config.source
    }

    /// Where the value of `key` (`lookup.deadline_secs`, `network.user_agent`, ...) came
    /// from: a flag of this run, else the line of the config file that sets it, else the
    /// default.
    pub fn origin(&self, key: &str) -> Origin {
        if let Some((_, flag)) = self.flagged.iter().find(|(k, _)| *k == key) {
            return Origin::Flag(flag);
        }
        match (&self.config.source, self.config.written.get(key)) {
            (crate::settings::config::ConfigSource::File(path), Some(&line)) => Origin::File {
                path: path.clone(),
                line,
            },
            _ => Origin::Default,
        }
    }

    /// The providers to use, in order (after `--provider` selection), ready or not.
    pub fn providers(&self) -> &[ProviderSpec] {
        &self.providers
    }

    /// The network policy (guard) for every connection.
    pub fn policy(&self) -> &NetworkPolicy {
        &self.policy
    }

    /// How bodies are turned into text.
    pub fn extract(&self) -> ExtractMode {
        self.extract
    }

    /// `-v` or more: diagnostics on stderr.
    pub fn verbose(&self) -> bool {
        self.verbosity >= 1
    }

    /// 0 quiet, 1 with `-v`, 2 or more with `-vv`.
    pub fn verbosity(&self) -> u8 {
        self.verbosity
    }

    /// The redactor, with every configured secret registered.
    pub fn redactor(&self) -> &Arc<Redactor> {
        &self.redactor
    }

    /// The body cap, counted after decompression.
    pub fn max_body_bytes(&self) -> u64 {
        self.config.lookup.max_body_bytes
    }

    /// The longest requested URL accepted, in characters.
    pub fn max_url_length(&self) -> usize {
        self.config.lookup.max_url_length
    }

    /// At most this many PDF pages are read.
    pub fn max_pdf_pages(&self) -> usize {
        self.config.lookup.max_pdf_pages
    }

    /// The User-Agent for http and template providers (VERSION substituted).
    pub fn user_agent(&self) -> &str {
        &self.config.network.user_agent
    }

    /// `[lookup] robots` after `--robots`.
    pub fn robots_mode(&self) -> RobotsMode {
        self.config.lookup.robots
    }

    /// The robots.txt product token (`[lookup] robots_agent`).
    pub fn robots_agent(&self) -> &str {
        &self.config.lookup.robots_agent
    }

    /// Most redirects followed per attempt.
    pub fn max_redirects(&self) -> usize {
        self.config.network.max_redirects
    }

    /// The HTTP cache for this run: None when `[cache] enabled = false` or no directory
    /// can be found; with `--no-cache` a cache that is never read or written (attempts
    /// report `bypass`).
    pub fn cache_config(&self) -> Option<crate::fetch::cache::CacheConfig> {
        let c = &self.config.cache;
        if !c.enabled {
            return None;
        }
        Some(crate::fetch::cache::CacheConfig {
            dir: self.config.cache_dir.clone()?,
            max_bytes: c.max_size_mb.saturating_mul(1024 * 1024),
            default_ttl: Duration::from_secs(c.default_ttl_secs),
            max_age: self.max_age_secs.map(Duration::from_secs),
            bypass: self.no_cache,
        })
    }

    /// `[mcp] max_calls_in_flight`: tool calls `vetch mcp` runs at once (1..=1024).
    pub fn mcp_max_calls_in_flight(&self) -> usize {
        self.config.mcp.max_calls_in_flight
    }

    /// `[cache]` as configured, and its directory (for `vetch cache`).
    pub fn cache_section(
        &self,
    ) -> (
        &crate::settings::config::CacheSection,
        Option<&std::path::Path>,
    ) {
        (&self.config.cache, self.config.cache_dir.as_deref())
    }

    pub fn ready_providers(&self) -> impl Iterator<Item = &ProviderSpec> {
        self.providers.iter().filter(|p| p.ready.is_ready())
    }

    pub fn attempt_timeout(&self) -> Duration {
        Duration::from_secs_f64(self.config.lookup.attempt_timeout_secs.as_f64())
    }

    pub fn deadline(&self) -> Duration {
        Duration::from_secs_f64(self.config.lookup.deadline_secs.as_f64())
    }

    /// Apply defaults and clamps. Never fails.
    pub fn request(&self, input: &ToolInput) -> LookupRequest {
        let l = &self.config.lookup;
        let ceiling = i64::from(l.max_attempt_ceiling);
        let chars_ceiling = i64::try_from(l.max_chars_ceiling).unwrap_or(i64::MAX);
        LookupRequest {
            url: input.url.clone(),
            must_contain: input.must_contain.clone(),
            min_chars: clamp(
                input
                    .min_chars
                    .unwrap_or(i64::try_from(l.min_chars).unwrap_or(1)),
                1,
                1_000_000,
            ) as usize,
            max_attempts: clamp(
                input
                    .max_attempts
                    .unwrap_or(i64::from(l.default_max_attempts)),
                1,
                ceiling,
            ) as u32,
            start_index: usize::try_from(input.start_index.unwrap_or(0).max(0))
                .unwrap_or(usize::MAX),
            max_chars: usize::try_from(clamp(
                input
                    .max_chars
                    .unwrap_or(i64::try_from(l.max_chars).unwrap_or(1)),
                1,
                chars_ceiling,
            ))
            .unwrap_or(usize::MAX),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> Settings {
        Settings::new(Config::builtin(), Overrides::default()).unwrap()
    }

    /// A value's origin: the flag that set it this run, else the file's line, else the
    /// default; keys of `[[providers]]` are not taken for a section's.
    #[test]
    fn every_value_knows_where_it_came_from() {
        let text = "# vetch\n[lookup]\ndeadline_secs = 20\n\"attempt_timeout_secs\" = 5\n\n[[providers]]\nname = \"direct\"\nkind = \"http\"\n[network]\nuser_agent = \"me/1\"\n";
        let path = std::path::PathBuf::from("/etc/vetch.toml");
        let config = || {
            crate::settings::config::parse(
                text,
                crate::settings::config::ConfigSource::File(path.clone()),
                &|_| None,
            )
            .unwrap()
        };
        let s = Settings::new(config(), Overrides::default()).unwrap();
        let at = |line| Origin::File {
            path: path.clone(),
            line,
        };
        assert_eq!(s.origin("lookup.deadline_secs"), at(3));
        assert_eq!(s.origin("lookup.attempt_timeout_secs"), at(4));
        assert_eq!(s.origin("network.user_agent"), at(10));
        assert_eq!(s.origin("lookup.min_chars"), Origin::Default);
        assert_eq!(s.origin("providers.name"), Origin::Default);
        assert_eq!(at(3).to_string(), "/etc/vetch.toml:3");
        let flags = Overrides {
            deadline_secs: Some(9.0),
            allow_private: true,
            ..Overrides::default()
        };
        let s = Settings::new(config(), flags).unwrap();
        assert_eq!(s.origin("lookup.deadline_secs"), Origin::Flag("--deadline"));
        assert_eq!(
            s.origin("network.allow_private"),
            Origin::Flag("--allow-private")
        );
        assert_eq!(s.origin("lookup.attempt_timeout_secs"), at(4));
        assert_eq!(
            settings().origin("lookup.deadline_secs").to_string(),
            "default"
        );
    }

    #[test]
    fn clamps_table() {
        let s = settings();
        let cases: [(Option<i64>, u32); 6] = [
            (None, 3),
            (Some(0), 1),
            (Some(-4), 1),
            (Some(2), 2),
            (Some(99), 5),
            (Some(i64::MAX), 5),
        ];
        for (asked, want) in cases {
            let r = s.request(&ToolInput {
                max_attempts: asked,
                ..ToolInput::for_url("https://a.example/")
            });
            assert_eq!(r.max_attempts, want, "{asked:?}");
        }
        let r = s.request(&ToolInput {
            min_chars: Some(0),
            max_chars: Some(10_000_000),
            start_index: Some(-3),
            ..ToolInput::for_url("u")
        });
        assert_eq!((r.min_chars, r.max_chars, r.start_index), (1, 100_000, 0));
        let r = s.request(&ToolInput {
            min_chars: Some(5_000_000),
            max_chars: Some(0),
            ..ToolInput::for_url("u")
        });
        assert_eq!((r.min_chars, r.max_chars), (1_000_000, 1));
        let r = s.request(&ToolInput::for_url("u"));
        assert_eq!((r.min_chars, r.max_chars), (40, 20_000));
    }

    #[test]
    fn operator_overrides_reach_config_and_http_providers() {
        let mut c = Config::builtin();
        if let ProviderDetail::Http {
            headers,
            user_agent,
            ..
        } = &mut c.providers[0].detail
        {
            headers.push((
                "x-keep".into(),
                crate::model::secret::Secret::new("1".into()),
            ));
            headers.push((
                "Accept".into(),
                crate::model::secret::Secret::new("old".into()),
            ));
            *user_agent = Some("per-provider/1".into());
        }
        let o = Overrides {
            headers: vec![
                ("accept".into(), Secret::new("text/html".into())),
                (
                    "Authorization".into(),
                    Secret::new("Bearer operator-secret-123456".into()),
                ),
            ],
            attempt_timeout_secs: Some(2.5),
            deadline_secs: Some(7.0),
            user_agent: Some("cli/2".into()),
            verbose: 2,
            ..Overrides::default()
        };
        // A `{:?}` of the flags never shows a credential given with -H (issue 26).
        assert!(!format!("{o:?}").contains("operator-secret"), "{o:?}");
        let s = Settings::new(c, o).unwrap();
        assert_eq!(s.attempt_timeout(), Duration::from_millis(2500));
        assert_eq!(s.deadline(), Duration::from_secs(7));
        // Every User-Agent carries the robots.txt product token (DESIGN §13).
        assert_eq!(s.config.network.user_agent, "cli/2 vetch");
        assert!(s.verbose() && s.verbosity() == 2);
        let ProviderDetail::Http {
            headers,
            user_agent,
            ..
        } = &s.providers[0].detail
        else {
            panic!()
        };
        assert_eq!(user_agent, &None, "the operator's UA wins for this run");
        let names: Vec<&str> = headers.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["x-keep", "accept", "Authorization"]);
        // A credential header is a secret; an ordinary value is not (it would corrupt pages).
        assert!(!s
            .redactor
            .redact_text("key operator-secret-123456")
            .contains("operator-secret"));
        assert_eq!(s.redactor.redact_text("text/html"), "text/html");
        assert!(!format!("{s:?}").contains("operator-secret"));
    }

    #[test]
    fn every_user_agent_carries_the_robots_token() {
        assert_eq!(with_token("vetch/0.1.0", "vetch"), "vetch/0.1.0");
        assert_eq!(
            with_token("Mozilla/5.0 (X11)", "vetch"),
            "Mozilla/5.0 (X11) vetch"
        );
        assert_eq!(with_token("MyVETCH-fork/2", "vetch"), "MyVETCH-fork/2");
        assert_eq!(with_token("", "mybot"), "mybot");
        let mut c = Config::builtin();
        c.lookup.robots_agent = "mybot".into();
        if let ProviderDetail::Http { user_agent, .. } = &mut c.providers[0].detail {
            *user_agent = Some("own/1".into());
        }
        let s = Settings::new(c, Overrides::default()).unwrap();
        assert_eq!(s.user_agent(), format!("vetch/{} mybot", config::VERSION));
        let ProviderDetail::Http { user_agent, .. } = &s.providers[0].detail else {
            panic!()
        };
        assert_eq!(user_agent.as_deref(), Some("own/1 mybot"));
    }

    #[test]
    fn robots_flag_wins_over_the_file() {
        let mut c = Config::builtin();
        c.lookup.robots = RobotsMode::Ignore;
        let s = Settings::new(c.clone(), Overrides::default()).unwrap();
        assert_eq!(s.robots_mode(), RobotsMode::Ignore);
        let o = Overrides {
            robots: Some(RobotsMode::Respect),
            ..Overrides::default()
        };
        assert_eq!(
            Settings::new(c, o).unwrap().robots_mode(),
            RobotsMode::Respect
        );
        assert_eq!(settings().robots_mode(), RobotsMode::Auto);
        assert_eq!(settings().robots_agent(), "vetch");
    }

    #[test]
    fn cache_follows_config_and_flags() {
        let mut c = Config::builtin();
        c.cache_dir = Some("/tmp/vetch-test-cache".into());
        let on = Settings::new(c.clone(), Overrides::default()).unwrap();
        let cfg = on.cache_config().unwrap();
        assert_eq!(cfg.dir, std::path::Path::new("/tmp/vetch-test-cache"));
        assert_eq!(cfg.max_bytes, 512 * 1024 * 1024);
        assert_eq!(cfg.default_ttl, Duration::from_secs(300));
        assert!(!cfg.bypass && cfg.max_age.is_none());
        let flags = Settings::new(
            c.clone(),
            Overrides {
                no_cache: true,
                max_age_secs: Some(7),
                ..Overrides::default()
            },
        )
        .unwrap();
        let cfg = flags.cache_config().unwrap();
        assert!(cfg.bypass);
        assert_eq!(cfg.max_age, Some(Duration::from_secs(7)));
        c.cache.enabled = false;
        assert!(Settings::new(c.clone(), Overrides::default())
            .unwrap()
            .cache_config()
            .is_none());
        c.cache.enabled = true;
        c.cache_dir = None;
        assert!(Settings::new(c, Overrides::default())
            .unwrap()
            .cache_config()
            .is_none());
    }

    #[test]
    fn provider_selection_orders_and_rejects_unknown() {
        let mut c = Config::builtin();
        let mut b = c.providers[0].clone();
        b.name = "backup".into();
        c.providers.push(b);
        let s = Settings::new(
            c.clone(),
            Overrides {
                providers: vec!["backup".into(), "direct".into()],
                ..Overrides::default()
            },
        )
        .unwrap();
        let names: Vec<_> = s.providers.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["backup", "direct"]);
        let e = Settings::new(
            c,
            Overrides {
                providers: vec!["nope".into()],
                ..Overrides::default()
            },
        )
        .unwrap_err();
        assert!(e.0.contains("unknown provider 'nope'"), "{e}");
        assert!(
            e.0.ends_with("(--provider): the providers of the built-in default are direct, backup"),
            "{e}"
        );
    }
}
