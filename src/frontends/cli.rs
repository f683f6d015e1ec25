//! The command line, as clap derive types. Parsing only: no I/O here, so the
//! whole surface can be tested with `try_parse_from`.

use std::path::PathBuf;

use clap::builder::PossibleValue;
use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::model::kinds::ExtractMode;
use crate::model::robots::RobotsMode;
use crate::model::spec::{Flavor, SchemaName};

const ABOUT: &str =
    "Verified web lookup: fetch a URL through ordered providers and print an honest receipt.";

const AFTER_HELP: &str = "\
Examples:
  vetch lookup https://example.com                  tool result (JSON) with a receipt
  vetch lookup https://example.com -o text          just the page text, exit 1 if unusable
  vetch lookup example.com/docs -o human            https:// assumed; a summary for people
  echo '{\"url\": \"https://example.com\"}' | vetch tool
  vetch batch urls.txt > results.ndjson
  vetch providers                                   what is configured, and ready

Exit codes: 0 success, 1 the lookup ran and failed, 2 usage or config error (one line on
stderr), 130 batch interrupted by Ctrl-C, 70 internal error (a bug).";

#[derive(Debug, Parser)]
#[command(name = "vetch", version, about = ABOUT, after_help = AFTER_HELP)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// Flags that work before or after the subcommand.
#[derive(Debug, Clone, Args, Default)]
pub struct GlobalArgs {
    /// Config file (else $VETCH_CONFIG, else $XDG_CONFIG_HOME/vetch/config.toml, else built-in)
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Allow loopback and private addresses (cloud metadata stays refused)
    #[arg(long, global = true)]
    pub allow_private: bool,
    /// Diagnostics on stderr, redacted like everything else (-vv: also request lines and
    /// timings)
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// Pretty-print JSON (default on a terminal)
    #[arg(long, global = true, conflicts_with = "compact")]
    pub pretty: bool,
    /// One-line JSON (default when piped)
    #[arg(long, global = true)]
    pub compact: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum OutputFormat {
    /// The tool result envelope: {"status", "content": [{"json": receipt}, {"text": ...}]}
    #[default]
    ToolResult,
    /// The receipt alone
    Receipt,
    /// The page text alone on stdout; on failure one line on stderr
    Text,
    /// For a person at a terminal: status, provider, the attempts as a table, then the text
    Human,
}

/// The hint for `-o FILE`: `-o` is not curl's `--output FILE`.
pub const OUTPUT_HINT: &str =
    "`-o` selects the output kind: tool-result, receipt, text or human; to save the text use `> FILE`";

/// Parses `-o KIND` like the derived enum parser, but answers a file name with a hint.
#[derive(Debug, Clone, Copy)]
pub struct OutputParser;

impl clap::builder::TypedValueParser for OutputParser {
    type Value = OutputFormat;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        _arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<OutputFormat, clap::Error> {
        let v = value.to_string_lossy();
        OutputFormat::from_str(&v, true).map_err(|_| {
            clap::Error::raw(
                clap::error::ErrorKind::InvalidValue,
                format!("invalid output kind '{v}': {OUTPUT_HINT}\n"),
            )
            .with_cmd(cmd)
        })
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            OutputFormat::value_variants()
                .iter()
                .filter_map(ValueEnum::to_possible_value),
        ))
    }
}

/// `-H 'Name: value'`: one request header. `Debug` never shows the value (it may be a key).
#[derive(Clone, PartialEq, Eq)]
pub struct Header {
    pub name: String,
    pub value: String,
}

impl std::fmt::Debug for Header {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Header({}: (redacted))", self.name)
    }
}

impl std::str::FromStr for Header {
    type Err = String;

    fn from_str(s: &str) -> Result<Header, String> {
        let Some((name, value)) = s.split_once(':') else {
            return Err("expected 'Name: value' (a header name, a colon, a value)".into());
        };
        let name = name.trim();
        if name.is_empty() || reqwest::header::HeaderName::from_bytes(name.as_bytes()).is_err() {
            return Err(format!(
                "'{}' is not a valid header name",
                crate::model::receipt::clip_chars(name, 40).escape_debug()
            ));
        }
        let value = value.trim();
        if let Some(why) = crate::settings::keys::control_char(value) {
            return Err(format!("header '{name}': {why}"));
        }
        if reqwest::header::HeaderValue::from_str(value).is_err() {
            return Err(format!(
                "the value of header '{name}' has characters a header cannot carry"
            ));
        }
        Ok(Header {
            name: name.to_string(),
            value: value.to_string(),
        })
    }
}

/// A flag's error that does not quote the value: clap's own message (`invalid value '...'
/// for ...`) would print a header's credential, or a CR/LF that forges a line, on stderr,
/// which the redactor never sees (clap writes it before there is a printer).
fn unquoted_error(cmd: &clap::Command, flag: &str, why: &str) -> clap::Error {
    clap::Error::raw(
        clap::error::ErrorKind::InvalidValue,
        format!("{flag}: {why}\n"),
    )
    .with_cmd(cmd)
}

/// The flag's value as UTF-8, or an error that says so without quoting it.
fn utf8_value<'a>(
    cmd: &clap::Command,
    flag: &str,
    value: &'a std::ffi::OsStr,
) -> Result<&'a str, clap::Error> {
    value
        .to_str()
        .ok_or_else(|| unquoted_error(cmd, flag, "is not valid UTF-8"))
}

/// Parses `-H 'Name: value'` ([`Header`]'s rules), with errors that never quote the value.
#[derive(Debug, Clone, Copy)]
pub struct HeaderParser;

impl clap::builder::TypedValueParser for HeaderParser {
    type Value = Header;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        _arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<Header, clap::Error> {
        utf8_value(cmd, "-H/--header", value)?
            .parse()
            .map_err(|why: String| unquoted_error(cmd, "-H/--header", &why))
    }
}

/// Parses `--user-agent UA`: no control character but tab, as in the config file's
/// `user_agent` (a CR or LF would split every request it is sent with).
#[derive(Debug, Clone, Copy)]
pub struct UserAgentParser;

impl clap::builder::TypedValueParser for UserAgentParser {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        _arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        let v = utf8_value(cmd, "--user-agent", value)?;
        if let Some(why) = crate::settings::keys::control_char(v) {
            return Err(unquoted_error(cmd, "--user-agent", &why));
        }
        Ok(v.to_string())
    }
}

/// A positive number of seconds, at most a day (`--timeout`, `--deadline`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Seconds(pub f64);

impl std::str::FromStr for Seconds {
    type Err = String;

    fn from_str(s: &str) -> Result<Seconds, String> {
        match s.trim().parse::<f64>() {
            Ok(v) if v.is_finite() && v > 0.0 && v <= 86_400.0 => Ok(Seconds(v)),
            _ => Err(format!(
                "'{s}' is not a number of seconds in (0, 86400], e.g. 10 or 2.5"
            )),
        }
    }
}

/// The operator's flags for one run, shared by `lookup` and `batch`.
#[derive(Debug, Clone, Args, Default, PartialEq)]
pub struct RunArgs {
    /// Add a request header to http providers' requests (repeatable): -H 'Name: value'
    #[arg(short = 'H', long = "header", value_name = "'NAME: VALUE'", value_parser = HeaderParser)]
    pub headers: Vec<Header>,
    /// Time allowed for one attempt, in seconds (overrides lookup.attempt_timeout_secs)
    #[arg(long, value_name = "SECS", allow_negative_numbers = true)]
    pub timeout: Option<Seconds>,
    /// Time allowed for the whole lookup, in seconds (overrides lookup.deadline_secs)
    #[arg(long, value_name = "SECS", allow_negative_numbers = true)]
    pub deadline: Option<Seconds>,
    /// User-Agent for http and template providers (overrides network.user_agent)
    #[arg(long, value_name = "UA", value_parser = UserAgentParser)]
    pub user_agent: Option<String>,
    /// Do not use the HTTP cache for this run: neither read nor write it
    #[arg(long, conflicts_with = "max_age")]
    pub no_cache: bool,
    /// Use a cached copy only if it is at most SECS old, else revalidate (0: always ask)
    #[arg(long, value_name = "SECS")]
    pub max_age: Option<u64>,
    /// Append WARC 1.1 records of what was received to FILE (created 0600): page content as
    /// received, the request side redacted
    #[arg(long, value_name = "FILE")]
    pub warc: Option<std::path::PathBuf>,
    /// Respect or ignore robots.txt (overrides lookup.robots; by default batch respects it
    /// and lookup ignores it)
    #[arg(long, value_enum, value_name = "MODE")]
    pub robots: Option<RobotsMode>,
}

// The vocabulary types are plain data in `model`; how the command line spells them lives
// here, so the lower rooms never depend on clap.

impl ValueEnum for Flavor {
    fn value_variants<'a>() -> &'a [Self] {
        &[
            Flavor::Strands,
            Flavor::Bedrock,
            Flavor::Openai,
            Flavor::Anthropic,
            Flavor::Gemini,
            Flavor::Mcp,
        ]
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.as_str()))
    }
}

impl ValueEnum for SchemaName {
    fn value_variants<'a>() -> &'a [Self] {
        &[
            SchemaName::Receipt,
            SchemaName::ToolResult,
            SchemaName::ToolInput,
        ]
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.as_str()))
    }
}

impl ValueEnum for RobotsMode {
    fn value_variants<'a>() -> &'a [Self] {
        &[RobotsMode::Respect, RobotsMode::Ignore]
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        let help = match self {
            RobotsMode::Respect => {
                "Ask each site's robots.txt first; a disallowed URL is not fetched"
            }
            RobotsMode::Ignore => "Do not fetch robots.txt",
            RobotsMode::Auto => return None,
        };
        Some(PossibleValue::new(self.as_str()).help(help))
    }
}

impl ValueEnum for ExtractMode {
    fn value_variants<'a>() -> &'a [Self] {
        &[
            ExtractMode::Auto,
            ExtractMode::Markdown,
            ExtractMode::Text,
            ExtractMode::Raw,
        ]
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.as_str()).help(self.description()))
    }
}

/// A model-facing integer flag: any integer is accepted and later clamped, so one too large
/// for 64 bits saturates instead of failing (clamped, never rejected).
fn saturating_int(s: &str) -> Result<i64, String> {
    let t = s.trim();
    if let Ok(v) = t.parse::<i64>() {
        return Ok(v);
    }
    let digits = t.strip_prefix(['-', '+']).unwrap_or(t);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        return Ok(if t.starts_with('-') {
            i64::MIN
        } else {
            i64::MAX
        });
    }
    Err(format!("'{s}' is not an integer"))
}

/// Lookup options: the five model-facing fields, then the operator's.
#[derive(Debug, Clone, Args)]
pub struct LookupArgs {
    /// The http or https URL to fetch (`example.com/docs` means https://example.com/docs,
    /// `localhost:8080` means http://localhost:8080)
    pub url: String,
    /// Only succeed if the content contains this text (case-insensitive)
    #[arg(long, value_name = "TEXT")]
    pub must_contain: Option<String>,
    /// Minimum characters of usable content (clamped to 1..=1000000)
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = saturating_int)]
    pub min_chars: Option<i64>,
    /// Attempt budget (clamped to 1..=max_attempt_ceiling)
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = saturating_int)]
    pub max_attempts: Option<i64>,
    /// First character of the window to return
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = saturating_int)]
    pub start_index: Option<i64>,
    /// Window size in characters (clamped to 1..=max_chars_ceiling)
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = saturating_int)]
    pub max_chars: Option<i64>,
    /// How to turn the page into text
    #[arg(long, value_enum, value_name = "MODE")]
    pub extract: Option<ExtractMode>,
    /// What to print: tool-result, receipt, text or human (not a file: use `> FILE`)
    #[arg(short, long, value_name = "KIND", value_parser = OutputParser, default_value = "tool-result")]
    pub output: OutputFormat,
    /// Use these providers, in this order (repeatable)
    #[arg(long = "provider", value_name = "NAME")]
    pub providers: Vec<String>,
    #[command(flatten)]
    pub run: RunArgs,
}

/// `batch` options: the defaults for its URL lines, then the operator's.
#[derive(Debug, Clone, Args)]
pub struct BatchArgs {
    /// Input file, or - for stdin
    #[arg(default_value = "-")]
    pub file: String,
    /// Lookups in flight at once
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub concurrency: u32,
    /// Lookups in flight per host (per process: N batch processes make N times as many)
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub per_host: u32,
    /// The longest a host's Retry-After (on a 429 or 503) holds back its next lookups
    #[arg(long, value_name = "SECS", default_value_t = 60, value_parser = clap::value_parser!(u64).range(0..=3600))]
    pub max_host_wait: u64,
    /// How to turn pages into text
    #[arg(long, value_enum, value_name = "MODE")]
    pub extract: Option<ExtractMode>,
    /// Use these providers, in this order (repeatable)
    #[arg(long = "provider", value_name = "NAME")]
    pub providers: Vec<String>,
    /// For URL lines: only succeed if the content contains this text
    #[arg(long, value_name = "TEXT")]
    pub must_contain: Option<String>,
    /// For URL lines: minimum characters of usable content (clamped to 1..=1000000)
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = saturating_int)]
    pub min_chars: Option<i64>,
    /// For URL lines: attempt budget (clamped to 1..=max_attempt_ceiling)
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = saturating_int)]
    pub max_attempts: Option<i64>,
    /// For URL lines: window size in characters (clamped to 1..=max_chars_ceiling)
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = saturating_int)]
    pub max_chars: Option<i64>,
    #[command(flatten)]
    pub run: RunArgs,
}

#[derive(Debug, Clone, Subcommand)]
pub enum Command {
    /// Look up one URL and print the tool result
    #[command(after_help = "\
Examples:
  vetch lookup https://example.com
  vetch lookup https://docs.rs/tokio --must-contain Runtime -o text
  vetch lookup https://example.com --provider reader --provider direct -o receipt")]
    Lookup(LookupArgs),
    /// Read one tool input (or a Strands/Bedrock ToolUse, or a Converse toolUse) on stdin,
    /// print one tool result
    #[command(after_help = "\
Examples:
  echo '{\"url\": \"https://example.com\"}' | vetch tool
  echo '{\"toolUseId\": \"t1\", \"name\": \"verified_web_lookup\", \"input\": {\"url\": \"https://example.com\"}}' | vetch tool
  echo '{\"toolUse\": {\"toolUseId\": \"t2\", \"name\": \"verified_web_lookup\", \"input\": {\"url\": \"https://example.com\"}}}' | vetch tool")]
    Tool,
    /// Print the tool's name, description and input schema for an agent framework
    #[command(after_help = "\
Examples:
  vetch tool-spec --flavor strands      {name, description, inputSchema}: a Strands ToolSpec
  vetch tool-spec --flavor bedrock      the same under toolSpec, for Bedrock Converse's toolConfig
  vetch tool-spec --flavor openai
  vetch tool-spec --flavor anthropic")]
    ToolSpec {
        #[arg(long, value_enum, default_value_t = Flavor::Strands)]
        flavor: Flavor,
    },
    /// Run a Model Context Protocol server on stdio (tool: verified_web_lookup)
    Mcp,
    /// Many lookups: one URL or JSON tool input per line in, one tool result per line out
    #[command(after_help = "\
Examples:
  vetch batch urls.txt > results.ndjson
  cat inputs.ndjson | vetch batch --concurrency 32
  vetch batch urls.txt --must-contain Example --max-attempts 2
  parallel --pipe --keep-order -N1000 vetch batch < urls.txt")]
    Batch(BatchArgs),
    /// List the configured providers and whether each is ready
    Providers {
        /// JSON instead of a table
        #[arg(long)]
        json: bool,
    },
    /// Show or empty the private HTTP cache
    #[command(after_help = "\
Examples:
  vetch cache info
  vetch cache info --json
  vetch cache clear")]
    Cache {
        #[command(subcommand)]
        action: CacheAction,
    },
    /// Print a JSON Schema (draft 2020-12)
    Schema {
        #[arg(value_enum, default_value_t = SchemaName::Receipt)]
        name: SchemaName,
    },
    /// Print a shell completion script
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff) of vetch or of one subcommand; --dir writes them all
    #[command(after_help = "\
Examples:
  vetch man | man -l -
  vetch man --dir ~/.local/share/man/man1")]
    Man {
        /// The subcommand whose page to print (default: the main page)
        #[arg(value_name = "SUBCOMMAND")]
        subcommand: Option<String>,
        /// Write vetch.1 and one vetch-SUBCOMMAND.1 per subcommand into this directory
        #[arg(long, value_name = "DIR", conflicts_with = "subcommand")]
        dir: Option<PathBuf>,
    },
}

/// clap's error as one line, as DESIGN §2 wants a usage error: the message (its
/// continuation lines joined), then clap's tips, then the usage it showed and where help
/// is, without its blank lines. A line break inside a quoted argument is joined too, so a
/// value cannot forge a second line.
pub fn one_line(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let mut message = String::new();
    let mut tips = Vec::new();
    let mut usage = None;
    for line in text.lines() {
        let t = line.trim();
        if t.is_empty() || t.starts_with("For more information") {
            continue;
        }
        if let Some(u) = t.strip_prefix("Usage: ") {
            usage = Some(u.to_string());
        } else if let Some(tip) = t.strip_prefix("tip: ") {
            tips.push(tip.to_string());
        } else {
            if !message.is_empty() {
                message.push(' ');
            }
            message.push_str(t.strip_prefix("error: ").unwrap_or(t));
        }
    }
    for tip in tips {
        message.push_str("; ");
        message.push_str(&tip);
    }
    match usage {
        Some(u) => {
            // The command path is the usage's words before its first option or argument.
            let command: Vec<&str> = u
                .split_whitespace()
                .take_while(|w| !w.starts_with(['[', '<', '-']))
                .collect();
            format!("{message} (usage: {u}; more: {} --help)", command.join(" "))
        }
        None => format!("{message} (more: --help)"),
    }
}

/// `vetch cache ...`
#[derive(Debug, Clone, Subcommand)]
pub enum CacheAction {
    /// Print the cache directory, its entry count and its size
    Info {
        /// JSON instead of lines of text
        #[arg(long)]
        json: bool,
    },
    /// Remove every cached entry
    Clear,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn global_flags_before_and_after() {
        let a =
            Cli::try_parse_from(["vetch", "--allow-private", "lookup", "http://x/", "-v"]).unwrap();
        assert!(a.global.allow_private && a.global.verbose == 1);
        let b = Cli::try_parse_from([
            "vetch",
            "lookup",
            "http://x/",
            "--config",
            "c.toml",
            "--compact",
        ])
        .unwrap();
        assert_eq!(
            b.global.config.as_deref(),
            Some(std::path::Path::new("c.toml"))
        );
        assert!(b.global.compact);
    }

    #[test]
    fn lookup_options() {
        let c = Cli::try_parse_from([
            "vetch",
            "lookup",
            "http://x/",
            "--max-attempts",
            "-1",
            "--provider",
            "a",
            "--provider",
            "b",
            "-o",
            "text",
        ])
        .unwrap();
        let Command::Lookup(l) = c.command else {
            panic!()
        };
        assert_eq!(l.max_attempts, Some(-1));
        assert_eq!(l.providers, ["a", "b"]);
        assert_eq!(l.output, OutputFormat::Text);
    }

    #[test]
    fn huge_numbers_saturate() {
        let c = Cli::try_parse_from([
            "vetch",
            "lookup",
            "u",
            "--max-chars",
            "99999999999999999999999",
            "--start-index",
            "-99999999999999999999",
        ])
        .unwrap();
        let Command::Lookup(l) = c.command else {
            panic!()
        };
        assert_eq!(l.max_chars, Some(i64::MAX));
        assert_eq!(l.start_index, Some(i64::MIN));
        assert!(Cli::try_parse_from(["vetch", "lookup", "u", "--max-chars", "2.5"]).is_err());
    }

    fn lookup_of(args: &[&str]) -> LookupArgs {
        let mut argv = vec!["vetch", "lookup", "example.com"];
        argv.extend_from_slice(args);
        match Cli::try_parse_from(argv).unwrap().command {
            Command::Lookup(l) => l,
            other => panic!("{other:?}"),
        }
    }

    fn batch_of(args: &[&str]) -> BatchArgs {
        let mut argv = vec!["vetch", "batch"];
        argv.extend_from_slice(args);
        match Cli::try_parse_from(argv).unwrap().command {
            Command::Batch(b) => b,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn operator_flags_on_lookup_and_batch() {
        let run = RunArgs {
            headers: vec![
                Header {
                    name: "X-A".into(),
                    value: "1".into(),
                },
                Header {
                    name: "Authorization".into(),
                    value: "Bearer a:b".into(),
                },
            ],
            timeout: Some(Seconds(2.5)),
            deadline: Some(Seconds(30.0)),
            user_agent: Some("me/1".into()),
            no_cache: false,
            max_age: Some(60),
            warc: Some("run.warc.gz".into()),
            robots: Some(RobotsMode::Respect),
        };
        let flags = [
            "-H",
            "X-A: 1",
            "--header",
            "Authorization:Bearer a:b",
            "--timeout",
            "2.5",
            "--deadline",
            "30",
            "--user-agent",
            "me/1",
            "--max-age",
            "60",
            "--warc",
            "run.warc.gz",
            "--robots",
            "respect",
        ];
        assert_eq!(lookup_of(&flags).run, run);
        assert_eq!(batch_of(&flags).run, run);
        // Each flag alone, and none.
        assert_eq!(lookup_of(&[]).run, RunArgs::default());
        assert_eq!(
            lookup_of(&["--timeout", "1"]).run.timeout,
            Some(Seconds(1.0))
        );
        assert_eq!(
            lookup_of(&["--deadline", "0.5"]).run.deadline,
            Some(Seconds(0.5))
        );
        assert_eq!(
            lookup_of(&["--user-agent", "x"]).run.user_agent.as_deref(),
            Some("x")
        );
        assert_eq!(lookup_of(&["-H", "a: "]).run.headers[0].value, "");
        assert!(batch_of(&["--no-cache"]).run.no_cache);
        assert_eq!(
            batch_of(&["--robots", "ignore"]).run.robots,
            Some(RobotsMode::Ignore)
        );
        // `auto` is the file's word for the default, not a flag value.
        assert!(Cli::try_parse_from(["vetch", "batch", "--robots", "auto"]).is_err());
        assert_eq!(batch_of(&[]).max_host_wait, 60);
        assert_eq!(batch_of(&["--max-host-wait", "5"]).max_host_wait, 5);
        assert_eq!(lookup_of(&["--max-age", "0"]).run.max_age, Some(0));
        // Not reading the cache and bounding the age of what is read contradict.
        assert!(
            Cli::try_parse_from(["vetch", "lookup", "u", "--no-cache", "--max-age", "1"]).is_err()
        );
        assert!(Cli::try_parse_from(["vetch", "lookup", "u", "--max-age", "-1"]).is_err());
        // Debug never shows a header value.
        assert!(!format!("{run:?}").contains("Bearer"));
    }

    #[test]
    fn bad_operator_values_fail_at_parse_time() {
        for bad in [
            &["-H", "no-colon"][..],
            &["-H", ": v"],
            &["-H", "Bad Name: v"],
            &["-H", "X: a\nb"],
            &["--timeout", "0"],
            &["--timeout", "-1"],
            &["--timeout", "NaN"],
            &["--deadline", "86401"],
            &["--deadline", "inf"],
        ] {
            let mut argv = vec!["vetch", "lookup", "u"];
            argv.extend_from_slice(bad);
            assert!(Cli::try_parse_from(&argv).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn batch_takes_tool_input_defaults() {
        let b = batch_of(&[
            "urls.txt",
            "--must-contain",
            "x",
            "--min-chars",
            "5",
            "--max-attempts",
            "99",
            "--max-chars",
            "-1",
            "--concurrency",
            "2",
            "--per-host",
            "1",
            "--provider",
            "a",
            "--extract",
            "text",
        ]);
        assert_eq!(b.file, "urls.txt");
        assert_eq!(b.must_contain.as_deref(), Some("x"));
        assert_eq!(
            (b.min_chars, b.max_attempts, b.max_chars),
            (Some(5), Some(99), Some(-1))
        );
        assert_eq!((b.concurrency, b.per_host), (2, 1));
        assert_eq!(b.providers, ["a"]);
        let d = batch_of(&[]);
        assert_eq!(d.file, "-");
        assert_eq!((d.must_contain, d.max_attempts), (None, None));
        // --start-index is per line, not a batch default.
        assert!(Cli::try_parse_from(["vetch", "batch", "--start-index", "3"]).is_err());
    }

    #[test]
    fn verbose_counts_and_output_kinds() {
        for (flags, want) in [
            (&[][..], 0u8),
            (&["-v"], 1),
            (&["-vv"], 2),
            (&["-v", "-v", "-v"], 3),
        ] {
            let mut argv = vec!["vetch", "lookup", "u"];
            argv.extend_from_slice(flags);
            assert_eq!(Cli::try_parse_from(&argv).unwrap().global.verbose, want);
        }
        let g = Cli::try_parse_from(["vetch", "-vv", "batch"])
            .unwrap()
            .global;
        assert_eq!(g.verbose, 2);
        for (kind, want) in [
            ("tool-result", OutputFormat::ToolResult),
            ("receipt", OutputFormat::Receipt),
            ("text", OutputFormat::Text),
            ("human", OutputFormat::Human),
            ("HUMAN", OutputFormat::Human),
        ] {
            assert_eq!(lookup_of(&["-o", kind]).output, want);
        }
        assert_eq!(lookup_of(&[]).output, OutputFormat::ToolResult);
        let e = Cli::try_parse_from(["vetch", "lookup", "u", "-o", "out.txt"]).unwrap_err();
        assert!(
            e.to_string().contains("to save the text use `> FILE`"),
            "{e}"
        );
    }

    #[test]
    fn man_takes_a_subcommand_or_a_dir() {
        let c = Cli::try_parse_from(["vetch", "man", "lookup"]).unwrap();
        assert!(
            matches!(c.command, Command::Man { subcommand: Some(ref s), dir: None } if s == "lookup")
        );
        let c = Cli::try_parse_from(["vetch", "man", "--dir", "/tmp/m"]).unwrap();
        assert!(matches!(
            c.command,
            Command::Man {
                subcommand: None,
                dir: Some(_)
            }
        ));
        assert!(Cli::try_parse_from(["vetch", "man", "lookup", "--dir", "d"]).is_err());
    }

    #[test]
    fn usage_errors_are_one_line() {
        let cases: [(&[&str], &str); 5] = [
            (
                &["vetch", "lookup", "u", "--max-char", "3"],
                "unexpected argument '--max-char' found; a similar argument exists: '--max-chars' (usage: vetch lookup --max-chars <N> <URL>; more: vetch lookup --help)",
            ),
            (
                &["vetch", "lookup"],
                "the following required arguments were not provided: <URL> (usage: vetch lookup <URL>; more: vetch lookup --help)",
            ),
            (
                &["vetch", "completions", "nope"],
                "invalid value 'nope' for '<SHELL>' [possible values: bash, elvish, fish, powershell, zsh] (more: --help)",
            ),
            (
                &["vetch", "lookup", "u", "-o", "page.txt"],
                "invalid output kind 'page.txt': `-o` selects the output kind: tool-result, receipt, text or human; to save the text use `> FILE` (more: --help)",
            ),
            (
                &["vetch", "lookup", "u", "--bad\nforged: line"],
                "unexpected argument '--bad",
            ),
        ];
        for (argv, want) in cases {
            let e = Cli::try_parse_from(argv).unwrap_err();
            let line = one_line(&e);
            assert!(line.starts_with(want), "{argv:?}: {line}");
            assert!(!line.contains('\n'), "{line:?}");
        }
    }

    #[test]
    fn bad_flags_fail() {
        assert!(Cli::try_parse_from(["vetch", "lookup"]).is_err());
        assert!(Cli::try_parse_from(["vetch", "lookup", "u", "-o", "xml"]).is_err());
        assert!(Cli::try_parse_from(["vetch", "lookup", "u", "--pretty", "--compact"]).is_err());
        assert!(Cli::try_parse_from(["vetch", "batch", "--concurrency", "0"]).is_err());
    }
}
