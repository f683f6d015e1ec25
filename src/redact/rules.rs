//! Operator rules in gitleaks' TOML format (`[redaction] extra_rules = "FILE"`), so one rule
//! file serves a secret scanner and vetch.
//!
//! Honoured: `[[rules]]` with `id`, `regex`, `secretGroup`, `keywords`, `entropy`, and their
//! allowlists (`[[rules.allowlists]]` or the older `[rules.allowlist]`) with `regexes`,
//! `regexTarget` (`secret`, `match`, `line`), `stopwords` and `condition` (`OR`/`AND`); the
//! file's global `[allowlist]` / `[[allowlists]]` (regexes and stopwords) for every rule
//! of the file. Ignored (they mean nothing for a stream of text): `description`, `path`,
//! `tags`, `paths`, `commits`, `[extend]` (vetch's own families are always on), `title`.
//!
//! Must never: accept a rule whose regex does not compile (the error names the rule id), or
//! let a rule hide part of a marker (a match that holds one is skipped, which keeps
//! redaction idempotent).

use regex::Regex;
use serde::Deserialize;

/// One compiled operator rule.
#[derive(Debug, Clone)]
pub struct ExtraRule {
    pub id: String,
    regex: Regex,
    /// The capture group that holds the secret; 0 means "the first group that matched, else
    /// the whole match" (gitleaks' behaviour when `secretGroup` is unset).
    secret_group: usize,
    /// Lower-cased; when non-empty, the rule runs only on text containing one of them.
    keywords: Vec<String>,
    /// The secret must have more Shannon entropy (bits per character) than this.
    entropy: Option<f64>,
    allowlists: Vec<Allowlist>,
}

#[derive(Debug, Clone, Default)]
struct Allowlist {
    regexes: Vec<Regex>,
    target: Target,
    /// Lower-cased.
    stopwords: Vec<String>,
    and: bool,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Target {
    #[default]
    Secret,
    Match,
    Line,
}

/// A rule file problem: the rule id when one is at fault, and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleError {
    pub rule: Option<String>,
    pub line: Option<usize>,
    pub message: String,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct FileToml {
    rules: Vec<RuleToml>,
    allowlist: Option<AllowToml>,
    allowlists: Vec<AllowToml>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct RuleToml {
    id: String,
    regex: Option<String>,
    secret_group: Option<i64>,
    keywords: Vec<String>,
    entropy: Option<f64>,
    allowlist: Option<AllowToml>,
    allowlists: Vec<AllowToml>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct AllowToml {
    regexes: Vec<String>,
    regex_target: Option<String>,
    stopwords: Vec<String>,
    condition: Option<String>,
}

/// Parse and compile a gitleaks rule file. A rule without a `regex` (gitleaks allows
/// path-only rules) is skipped: it can never match text.
pub fn parse_gitleaks_rules(text: &str) -> Result<Vec<ExtraRule>, RuleError> {
    let file: FileToml = toml::from_str(text).map_err(|e| RuleError {
        rule: None,
        line: e
            .span()
            .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1),
        message: e.message().trim().replace('\n', " "),
    })?;
    let global: Vec<Allowlist> = file
        .allowlist
        .into_iter()
        .chain(file.allowlists)
        .map(|a| allowlist(a, None))
        .collect::<Result<_, _>>()?;
    let mut out = Vec::new();
    for (i, r) in file.rules.into_iter().enumerate() {
        let id = if r.id.is_empty() {
            format!("rules[{i}]")
        } else {
            r.id.clone()
        };
        let fail = |message: String| RuleError {
            rule: Some(id.clone()),
            line: None,
            message,
        };
        let Some(src) = r.regex else {
            continue;
        };
        let regex = Regex::new(&src).map_err(|e| {
            let first = e.to_string();
            fail(format!(
                "regex does not compile: {}",
                first.lines().last().unwrap_or("").trim()
            ))
        })?;
        let secret_group = match r.secret_group {
            None => 0,
            Some(g) if g >= 0 && (g as usize) < regex.captures_len() => g as usize,
            Some(g) => {
                return Err(fail(format!(
                    "secretGroup {g} is not a group of the regex ({} groups)",
                    regex.captures_len() - 1
                )))
            }
        };
        let mut allowlists = global.clone();
        for a in r.allowlist.into_iter().chain(r.allowlists) {
            allowlists.push(allowlist(a, Some(&id))?);
        }
        out.push(ExtraRule {
            id,
            regex,
            secret_group,
            keywords: r.keywords.iter().map(|k| k.to_lowercase()).collect(),
            entropy: r.entropy.filter(|e| *e > 0.0),
            allowlists,
        });
    }
    Ok(out)
}

fn allowlist(a: AllowToml, id: Option<&str>) -> Result<Allowlist, RuleError> {
    let fail = |message: String| RuleError {
        rule: id.map(str::to_string),
        line: None,
        message,
    };
    let regexes = a
        .regexes
        .iter()
        .map(|r| Regex::new(r).map_err(|_| fail(format!("allowlist regex does not compile: {r}"))))
        .collect::<Result<_, _>>()?;
    let target = match a
        .regex_target
        .as_deref()
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        None | Some("secret") => Target::Secret,
        Some("match") => Target::Match,
        Some("line") => Target::Line,
        Some(other) => return Err(fail(format!("unknown regexTarget '{other}'"))),
    };
    Ok(Allowlist {
        regexes,
        target,
        stopwords: a.stopwords.iter().map(|s| s.to_lowercase()).collect(),
        and: a
            .condition
            .as_deref()
            .is_some_and(|c| c.eq_ignore_ascii_case("and")),
    })
}

impl ExtraRule {
    /// The secret spans this rule finds in `text` (`lower` is `text` lower-cased, ASCII
    /// only, for the keyword test), in order.
    pub(super) fn spans(&self, text: &str, lower: &str, out: &mut Vec<(usize, usize)>) {
        if !self.keywords.is_empty() && !self.keywords.iter().any(|k| lower.contains(k.as_str())) {
            return;
        }
        for caps in self.regex.captures_iter(text) {
            let Some(whole) = caps.get(0) else { continue };
            let secret = if self.secret_group > 0 {
                caps.get(self.secret_group)
            } else {
                (1..caps.len()).find_map(|i| caps.get(i)).or(Some(whole))
            };
            let Some(secret) = secret.filter(|m| !m.as_str().is_empty()) else {
                continue;
            };
            let s = secret.as_str();
            if s.contains(super::URL_MARKER) || whole.as_str().contains(super::URL_MARKER) {
                continue;
            }
            if self
                .entropy
                .is_some_and(|min| super::entropy(s.as_bytes()) <= min)
            {
                continue;
            }
            if self.allowlists.iter().any(|a| a.allows(text, whole, s)) {
                continue;
            }
            out.push((secret.start(), secret.end()));
        }
    }
}

impl Allowlist {
    fn allows(&self, text: &str, whole: regex::Match<'_>, secret: &str) -> bool {
        let target = match self.target {
            Target::Secret => secret,
            Target::Match => whole.as_str(),
            Target::Line => {
                let a = text[..whole.start()].rfind('\n').map_or(0, |i| i + 1);
                let b = text[whole.end()..]
                    .find('\n')
                    .map_or(text.len(), |i| whole.end() + i);
                &text[a..b]
            }
        };
        let by_regex = self.regexes.iter().any(|r| r.is_match(target));
        let lower = secret.to_lowercase();
        let by_word = self.stopwords.iter().any(|w| lower.contains(w.as_str()));
        if self.and {
            (self.regexes.is_empty() || by_regex)
                && (self.stopwords.is_empty() || by_word)
                && !(self.regexes.is_empty() && self.stopwords.is_empty())
        } else {
            by_regex || by_word
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = r#"
title = "team rules"
[extend]
useDefault = true

[allowlist]
stopwords = ["notasecret"]

[[rules]]
id = "acme-api-key"
description = "ACME API key"
regex = '''(?i)\b(acme_[a-z0-9]{24})\b'''
keywords = ["acme_"]
entropy = 3.0
tags = ["key"]

[[rules]]
id = "corp-token"
regex = '''corp[_-]token\s*[:=]\s*"?([A-Za-z0-9]{16,})'''
secretGroup = 1
  [[rules.allowlists]]
  regexes = ['''^TEST''']
  [rules.allowlist]
  stopwords = ["sample"]

[[rules]]
id = "path-only"
path = '''\.pem$'''
"#;

    #[test]
    fn parses_and_matches_a_gitleaks_file() {
        let rules = parse_gitleaks_rules(FILE).unwrap_or_default();
        assert_eq!(rules.len(), 2);
        let find = |t: &str| {
            let mut v = Vec::new();
            for r in &rules {
                r.spans(t, &t.to_ascii_lowercase(), &mut v);
            }
            v.into_iter()
                .map(|(a, b)| t[a..b].to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            find("key ACME_k3vzp9qmx2rt7wls8yb4nm5q end"),
            ["ACME_k3vzp9qmx2rt7wls8yb4nm5q"]
        );
        assert!(
            find("key acme_aaaaaaaaaaaaaaaaaaaaaaaa end").is_empty(),
            "low entropy"
        );
        assert!(
            find("key acme_notasecretnotasecret1234 end").is_empty(),
            "global stopword"
        );
        assert_eq!(
            find("corp_token = \"Zz9Yy8Xx7Ww6Vv5U\""),
            ["Zz9Yy8Xx7Ww6Vv5U"]
        );
        assert!(
            find("corp_token = TESTZz9Yy8Xx7Ww6Vv5U").is_empty(),
            "allowlist regex"
        );
        assert!(
            find("corp-token: sampleZz9Yy8Xx7Ww6").is_empty(),
            "allowlist stopword"
        );
    }

    #[test]
    fn bad_files_name_the_rule() {
        let e = parse_gitleaks_rules("[[rules]]\nid = \"bad-one\"\nregex = '''(?P<x'''\n")
            .err()
            .unwrap_or(RuleError {
                rule: None,
                line: None,
                message: String::new(),
            });
        assert_eq!(e.rule.as_deref(), Some("bad-one"));
        assert!(e.message.contains("regex does not compile"), "{e:?}");
        let e = parse_gitleaks_rules("[[rules]]\nid = \"g\"\nregex = 'a(b)'\nsecretGroup = 3\n")
            .err()
            .map(|e| e.message)
            .unwrap_or_default();
        assert!(e.contains("secretGroup 3"), "{e}");
        let e = parse_gitleaks_rules("[[rules]\nid=1").err();
        assert!(e.is_some_and(|e| e.rule.is_none() && e.line.is_some()));
    }
}
