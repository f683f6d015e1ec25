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

use super::names::entropy;

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
    ///
    /// Linear in the text: the line of a match (for `regexTarget = "line"`) is found from
    /// where the previous match's line search stopped, and each allowlist's regexes run
    /// once per line, however many matches the line holds (a one-line page of a few
    /// megabytes with a match every few bytes would otherwise run them over the whole page
    /// once per match).
    pub(super) fn spans(&self, text: &str, lower: &str, out: &mut Vec<(usize, usize)>) {
        let _ = self.spans_with_work(text, lower, out);
    }

    /// [`spans`](Self::spans), and how much line work it took.
    fn spans_with_work(&self, text: &str, lower: &str, out: &mut Vec<(usize, usize)>) -> Work {
        let mut work = Work::default();
        if !self.keywords.is_empty() && !self.keywords.iter().any(|k| lower.contains(k.as_str())) {
            return work;
        }
        let mut lines = Lines::default();
        let mut verdicts: Vec<Option<((usize, usize), bool)>> = vec![None; self.allowlists.len()];
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
            if self.entropy.is_some_and(|min| entropy(s.as_bytes()) <= min) {
                continue;
            }
            let allowed = self
                .allowlists
                .iter()
                .zip(verdicts.iter_mut())
                .any(|(a, v)| {
                    a.allows(whole, s, || {
                        let line = lines.of(text, whole.start(), whole.end());
                        match *v {
                            Some((at, hit)) if at == line => hit,
                            _ => {
                                let target = text.get(line.0..line.1).unwrap_or_default();
                                work.line_bytes_matched += target.len();
                                let hit = a.regexes.iter().any(|r| r.is_match(target));
                                *v = Some((line, hit));
                                hit
                            }
                        }
                    })
                });
            if allowed {
                continue;
            }
            out.push((secret.start(), secret.end()));
        }
        work.line_bytes_searched = lines.read;
        work
    }
}

/// What finding lines cost one call of [`ExtraRule::spans_with_work`]: bytes searched for
/// line starts and ends, and bytes of lines given to allowlist regexes.
#[derive(Debug, Default, Clone, Copy)]
struct Work {
    line_bytes_searched: usize,
    line_bytes_matched: usize,
}

/// Finds the line of each match, for matches that come in order: the searches for line
/// starts and ends resume where the last one stopped, so all of them together read the
/// text about once.
#[derive(Default)]
struct Lines {
    /// Where the search for a line start has reached, and the start of the line there.
    start_scanned: usize,
    line_start: usize,
    /// The first `\n` at or after `end_from` (or the text's end), once searched.
    end_from: usize,
    line_end: Option<usize>,
    /// Bytes searched so far.
    read: usize,
}

impl Lines {
    /// The line (or lines) holding `start..end`: from after the last `\n` before `start`
    /// to the first `\n` at or after `end`.
    fn of(&mut self, text: &str, start: usize, end: usize) -> (usize, usize) {
        let b = text.as_bytes();
        if start >= self.start_scanned {
            let gap = &b[self.start_scanned..start];
            self.read += gap.len();
            if let Some(i) = gap.iter().rposition(|&c| c == b'\n') {
                self.line_start = self.start_scanned + i + 1;
            }
        } else {
            // Out of order (never, for one regex's matches): search afresh.
            self.read += start;
            self.line_start = b[..start]
                .iter()
                .rposition(|&c| c == b'\n')
                .map_or(0, |i| i + 1);
        }
        self.start_scanned = start;
        let known = self.line_end.filter(|&e| self.end_from <= end && end <= e);
        let line_end = match known {
            Some(e) => e,
            None => {
                let e = b[end..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .map_or(b.len(), |i| end + i);
                self.read += e - end;
                self.end_from = end;
                self.line_end = Some(e);
                e
            }
        };
        (self.line_start, line_end)
    }
}

impl Allowlist {
    /// Does this allowlist let the match `whole` (secret `secret`) through? `line_hit`
    /// says whether one of its regexes matches the match's line; it is asked only when
    /// the target is the line.
    fn allows(
        &self,
        whole: regex::Match<'_>,
        secret: &str,
        line_hit: impl FnOnce() -> bool,
    ) -> bool {
        let by_regex = match self.target {
            _ if self.regexes.is_empty() => false,
            Target::Secret => self.regexes.iter().any(|r| r.is_match(secret)),
            Target::Match => self.regexes.iter().any(|r| r.is_match(whole.as_str())),
            Target::Line => line_hit(),
        };
        let by_word = !self.stopwords.is_empty() && {
            let lower = secret.to_lowercase();
            self.stopwords.iter().any(|w| lower.contains(w.as_str()))
        };
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

    const LINE_RULE: &str = r#"
[[rules]]
id = "corp"
regex = '''corp_[a-z0-9]{8}'''
  [[rules.allowlists]]
  regexTarget = "line"
  regexes = ['''ALLOW''']
"#;

    fn found(rules: &[ExtraRule], t: &str) -> (Vec<String>, Work) {
        let mut v = Vec::new();
        let mut work = Work::default();
        for r in rules {
            let w = r.spans_with_work(t, &t.to_ascii_lowercase(), &mut v);
            work.line_bytes_searched += w.line_bytes_searched;
            work.line_bytes_matched += w.line_bytes_matched;
        }
        (
            v.into_iter().map(|(a, b)| t[a..b].to_string()).collect(),
            work,
        )
    }

    /// `regexTarget = "line"` reads the whole line of each match, as gitleaks does.
    #[test]
    fn line_allowlists_judge_the_whole_line() {
        let rules = parse_gitleaks_rules(LINE_RULE).unwrap_or_default();
        let text = "a corp_aaaa1111 ALLOW\nb corp_bbbb2222 x corp_cccc3333\n\
                    ALLOW first corp_dddd4444\ncorp_eeee5555";
        let (got, _) = found(&rules, text);
        assert_eq!(got, ["corp_bbbb2222", "corp_cccc3333", "corp_eeee5555"]);
    }

    /// Issue 24 (item 10): a line allowlist ran its regexes over the whole line once per
    /// match, and found the line by searching it from each match (a 3.6 MB one-line page
    /// took two minutes against a 12 s deadline). Now each line is found by one forward
    /// pass and matched once, however many matches it holds.
    #[test]
    fn line_allowlists_cost_one_pass_per_line() {
        let rules = parse_gitleaks_rules(LINE_RULE).unwrap_or_default();
        let n = 20_000;
        let line: String = (0..n).map(|i| format!("corp_{i:08} and ")).collect();
        let text = format!("{line}\n{line}ALLOW\n{line}");
        let (got, work) = found(&rules, &text);
        assert_eq!(got.len(), 2 * n);
        assert!(
            work.line_bytes_searched <= 2 * text.len(),
            "{work:?} for {} bytes",
            text.len()
        );
        assert!(
            work.line_bytes_matched <= text.len(),
            "{work:?} for {} bytes",
            text.len()
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
