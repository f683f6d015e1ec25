//! One value with everything a lookup needs: the loaded config, the operator's command-line
//! overrides, the network policy and the redactor, with every clamp applied in one place.
//!
//! Built once per process (ripgrep's "high-level args"); shared read-only afterwards.

use std::sync::Arc;
use std::time::Duration;

use crate::config::{Config, ProviderSpec};
use crate::extract::ExtractMode;
use crate::guard::NetworkPolicy;
use crate::input::ToolInput;
use crate::redact::Redactor;

/// What the operator said on the command line that changes the config.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub allow_private: bool,
    /// `--provider NAME`, repeatable: use these, in this order.
    pub providers: Vec<String>,
    pub extract: Option<ExtractMode>,
    pub verbose: bool,
}

/// A usage problem found while combining config and flags (exit code 2).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

#[derive(Debug, Clone)]
pub struct Settings {
    pub config: Config,
    /// The providers to use, in order (after `--provider` selection), ready or not.
    pub providers: Vec<ProviderSpec>,
    pub policy: NetworkPolicy,
    pub extract: ExtractMode,
    pub verbose: bool,
    pub redactor: Arc<Redactor>,
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

/// Clamp `v` into `lo..=hi` (with `lo <= hi`).
pub fn clamp(v: i64, lo: i64, hi: i64) -> i64 {
    v.max(lo).min(hi.max(lo))
}

impl Settings {
    pub fn new(config: Config, o: Overrides) -> Result<Settings, UsageError> {
        let providers = if o.providers.is_empty() {
            config.providers.clone()
        } else {
            let mut chosen = Vec::new();
            for name in &o.providers {
                let Some(p) = config.providers.iter().find(|p| &p.name == name) else {
                    let known: Vec<&str> =
                        config.providers.iter().map(|p| p.name.as_str()).collect();
                    return Err(UsageError(format!(
                        "unknown provider '{name}' (configured: {})",
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
            redactor.add_secret(s);
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
        Ok(Settings {
            providers,
            policy,
            extract,
            verbose: o.verbose,
            redactor: Arc::new(redactor),
            config,
        })
    }

    /// The ready providers, in order.
    pub fn ready_providers(&self) -> impl Iterator<Item = &ProviderSpec> {
        self.providers.iter().filter(|p| p.ready.is_ok())
    }

    pub fn attempt_timeout(&self) -> Duration {
        Duration::from_secs_f64(self.config.lookup.attempt_timeout_secs.as_f64())
    }

    pub fn deadline(&self) -> Duration {
        Duration::from_secs_f64(self.config.lookup.deadline_secs.as_f64())
    }

    /// Apply defaults and clamps (DESIGN.md §9 "Numbers"). Never fails.
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
    }
}
