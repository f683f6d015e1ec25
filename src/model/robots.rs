//! The vocabulary of polite fetching (DESIGN §13): whether robots.txt is respected
//! ([`RobotsMode`]) and why it refuses a URL ([`RobotsRefusal`]). Plain data: the parser,
//! the access rules and the per-origin memo live in `fetch::robots`; the wording of a
//! refusal lives here, once, so that `failure_detail` and an attempt's `detail` say it the
//! same way.

use std::fmt;

/// `[lookup] robots` and `--robots`: whether robots.txt decides what may be fetched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RobotsMode {
    /// Respect robots.txt where a program chose the URL (`tool`, `mcp`, `batch`), ignore
    /// it where a person typed it (`lookup`).
    #[default]
    Auto,
    /// Always respect robots.txt.
    Respect,
    /// Never fetch robots.txt.
    Ignore,
}

impl RobotsMode {
    /// The lowercase name of the config file and the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            RobotsMode::Auto => "auto",
            RobotsMode::Respect => "respect",
            RobotsMode::Ignore => "ignore",
        }
    }

    /// Whether robots.txt is respected for a run whose URLs a program chose
    /// (`by_program`: `tool`, `mcp`, `batch`) or a person typed (`lookup`).
    pub fn respected(self, by_program: bool) -> bool {
        match self {
            RobotsMode::Auto => by_program,
            RobotsMode::Respect => true,
            RobotsMode::Ignore => false,
        }
    }
}

impl fmt::Display for RobotsMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why robots.txt could not be read, which RFC 9309 §2.3.1.4 makes a complete disallow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unreachable {
    /// A 5xx status (or a redirect chain that ended on one).
    Status(u16),
    /// No answer within the time allowed.
    Timeout,
    /// More than five redirects.
    TooManyRedirects,
    /// Connect, DNS, TLS, reset, a refused redirect hop: one short word for which.
    Network(&'static str),
}

impl fmt::Display for Unreachable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unreachable::Status(s) => write!(f, "{s}"),
            Unreachable::Timeout => f.write_str("timeout"),
            Unreachable::TooManyRedirects => f.write_str("too many redirects"),
            Unreachable::Network(what) => f.write_str(what),
        }
    }
}

/// Why robots.txt refuses a URL. `Display` is the `failure_detail` of a refused requested
/// URL (`disallowed by robots.txt (user-agent vetch: Disallow: /private)`); a refused
/// redirect hop prefixes it with `blocked: `.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RobotsRefusal {
    /// A rule decided: the group's user-agent value and the rule line, as written in the
    /// file (comment removed, trimmed, cut to a short length).
    Rule { agent: String, rule: String },
    /// The file could not be read: everything is disallowed.
    Unreachable(Unreachable),
}

impl fmt::Display for RobotsRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RobotsRefusal::Rule { agent, rule } => {
                write!(f, "disallowed by robots.txt (user-agent {agent}: {rule})")
            }
            RobotsRefusal::Unreachable(u) => {
                write!(f, "disallowed by robots.txt (unreachable: {u})")
            }
        }
    }
}

impl std::error::Error for RobotsRefusal {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_read_as_documented() {
        let cases = [
            (
                RobotsRefusal::Rule {
                    agent: "vetch".into(),
                    rule: "Disallow: /private".into(),
                },
                "disallowed by robots.txt (user-agent vetch: Disallow: /private)",
            ),
            (
                RobotsRefusal::Rule {
                    agent: "*".into(),
                    rule: "disallow: /".into(),
                },
                "disallowed by robots.txt (user-agent *: disallow: /)",
            ),
            (
                RobotsRefusal::Unreachable(Unreachable::Status(503)),
                "disallowed by robots.txt (unreachable: 503)",
            ),
            (
                RobotsRefusal::Unreachable(Unreachable::Timeout),
                "disallowed by robots.txt (unreachable: timeout)",
            ),
            (
                RobotsRefusal::Unreachable(Unreachable::TooManyRedirects),
                "disallowed by robots.txt (unreachable: too many redirects)",
            ),
            (
                RobotsRefusal::Unreachable(Unreachable::Network("connect error")),
                "disallowed by robots.txt (unreachable: connect error)",
            ),
        ];
        for (r, want) in cases {
            assert_eq!(r.to_string(), want);
        }
    }

    #[test]
    fn auto_respects_programs_not_people() {
        assert!(RobotsMode::Auto.respected(true));
        assert!(!RobotsMode::Auto.respected(false));
        assert!(RobotsMode::Respect.respected(false));
        assert!(!RobotsMode::Ignore.respected(true));
    }
}
