//! The command line (DESIGN.md §2), as clap derive types. Parsing only: no I/O here, so the
//! whole surface can be tested with `try_parse_from`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::extract::ExtractMode;

const ABOUT: &str =
    "Verified web lookup: fetch a URL through ordered providers and print an honest receipt.";

const AFTER_HELP: &str = "\
Examples:
  vetch lookup https://example.com                  tool result (JSON) with a receipt
  vetch lookup https://example.com -o text          just the page text, exit 1 if unusable
  echo '{\"url\": \"https://example.com\"}' | vetch tool
  vetch batch urls.txt > results.ndjson
  vetch providers                                   what is configured, and ready

Exit codes: 0 success, 1 the lookup ran and failed, 2 usage or config error.";

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
    /// Diagnostics on stderr (redacted like everything else)
    #[arg(short, long, global = true)]
    pub verbose: bool,
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
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Flavor {
    Strands,
    Openai,
    Anthropic,
    Gemini,
    Mcp,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SchemaName {
    Receipt,
    ToolResult,
    ToolInput,
}

/// A model-facing integer flag: any integer is accepted and later clamped, so one too large
/// for 64 bits saturates instead of failing (DESIGN.md §3: clamped, never rejected).
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
    /// The http or https URL to fetch
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
    /// What to print
    #[arg(short, long, value_enum, default_value_t = OutputFormat::ToolResult)]
    pub output: OutputFormat,
    /// Use these providers, in this order (repeatable)
    #[arg(long = "provider", value_name = "NAME")]
    pub providers: Vec<String>,
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
    /// Read one tool input (or a Strands/Bedrock ToolUse) on stdin, print one tool result
    #[command(after_help = "\
Examples:
  echo '{\"url\": \"https://example.com\"}' | vetch tool
  echo '{\"toolUseId\": \"t1\", \"name\": \"verified_web_lookup\", \"input\": {\"url\": \"https://example.com\"}}' | vetch tool")]
    Tool,
    /// Print the tool's name, description and input schema for an agent framework
    #[command(after_help = "\
Examples:
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
  parallel --pipe -N1000 vetch batch < urls.txt")]
    Batch {
        /// Input file, or - for stdin
        #[arg(default_value = "-")]
        file: String,
        /// Lookups in flight at once
        #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=1024))]
        concurrency: u32,
        /// Lookups in flight per host
        #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=1024))]
        per_host: u32,
        /// How to turn pages into text
        #[arg(long, value_enum, value_name = "MODE")]
        extract: Option<ExtractMode>,
        /// Use these providers, in this order (repeatable)
        #[arg(long = "provider", value_name = "NAME")]
        providers: Vec<String>,
    },
    /// List the configured providers and whether each is ready
    Providers {
        /// JSON instead of a table
        #[arg(long)]
        json: bool,
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
    /// Print the man page (roff)
    Man,
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
        assert!(a.global.allow_private && a.global.verbose);
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

    #[test]
    fn bad_flags_fail() {
        assert!(Cli::try_parse_from(["vetch", "lookup"]).is_err());
        assert!(Cli::try_parse_from(["vetch", "lookup", "u", "-o", "xml"]).is_err());
        assert!(Cli::try_parse_from(["vetch", "lookup", "u", "--pretty", "--compact"]).is_err());
        assert!(Cli::try_parse_from(["vetch", "batch", "--concurrency", "0"]).is_err());
    }
}
