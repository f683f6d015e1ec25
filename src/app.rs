//! The dispatcher: turns a parsed [`Cli`] into work and an exit code. Exit codes are decided
//! here, once, from results (hurl's habit): 0 success, 1 a lookup ran and failed, 2 usage or
//! config error.

use std::io::Read;
use std::sync::Arc;

use clap::CommandFactory;

use crate::cli::{Cli, Command, GlobalArgs, LookupArgs, OutputFormat};
use crate::config;
use crate::input::{parse_request, ToolInput};
use crate::lookup::{failure_line, Engine};
use crate::output::{Layout, Printer};
use crate::redact::Redactor;
use crate::settings::{Overrides, Settings};

pub const EXIT_SUCCESS: i32 = 0;
pub const EXIT_FAILURE: i32 = 1;
pub const EXIT_USAGE: i32 = 2;
/// Interrupted by Ctrl-C (128 + SIGINT).
pub const EXIT_INTERRUPTED: i32 = 130;

/// Most bytes `vetch tool` reads from stdin.
const MAX_TOOL_INPUT: u64 = 1024 * 1024;

/// A failure before any lookup: printed as one line on stderr, exit 2.
struct Usage(String);

fn runtime() -> Result<tokio::runtime::Runtime, Usage> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Usage(format!("cannot start the async runtime: {e}")))
}

/// Load config and combine it with the flags.
fn settings(
    g: &GlobalArgs,
    providers: &[String],
    extract: Option<crate::extract::ExtractMode>,
) -> Result<Settings, Usage> {
    let config = config::load(g.config.as_deref()).map_err(|e| Usage(e.to_string()))?;
    Settings::new(
        config,
        Overrides {
            allow_private: g.allow_private,
            providers: providers.to_vec(),
            extract,
            verbose: g.verbose,
        },
    )
    .map_err(|e| Usage(e.0))
}

/// Build the engine, wiring `-v` diagnostics to the printer.
fn engine(settings: Settings, printer: &Printer) -> Engine {
    let verbose = settings.verbose;
    if verbose {
        printer.diag(&format!("config: {}", settings.config.source));
    }
    let engine = Engine::new(Arc::new(settings));
    if verbose {
        let p = printer.clone();
        engine.with_diag(Arc::new(move |m: &str| p.diag(m)))
    } else {
        engine
    }
}

/// Run the command line; returns the process exit code.
pub fn run(cli: Cli) -> i32 {
    let g = cli.global.clone();
    let layout = Layout::choose(g.pretty, g.compact);
    match dispatch(cli, layout) {
        Ok(code) => code,
        Err(Usage(msg)) => {
            // The secrets are not known when the config itself failed: redact by shape.
            Printer::new(Arc::new(Redactor::new()), layout).diag(&msg);
            EXIT_USAGE
        }
    }
}

fn dispatch(cli: Cli, layout: Layout) -> Result<i32, Usage> {
    let g = cli.global;
    let plain = || Printer::new(Arc::new(Redactor::new()), layout);
    match cli.command {
        Command::Lookup(args) => lookup(&g, args, layout),
        Command::Tool => tool(&g, layout),
        Command::Batch {
            file,
            concurrency,
            per_host,
            extract,
            providers,
        } => {
            let s = settings(&g, &providers, extract)?;
            let printer = Printer::new(s.redactor.clone(), Layout::Compact);
            let engine = engine(s, &printer);
            let rt = runtime()?;
            let opts = crate::batch::BatchOptions {
                concurrency: concurrency as usize,
                per_host: per_host as usize,
                verbose: g.verbose,
            };
            let code = rt.block_on(crate::batch::run(Arc::new(engine), &file, opts, printer));
            // After Ctrl-C a blocking read of stdin may still be pending: do not wait for it.
            rt.shutdown_background();
            code.map_err(Usage)
        }
        Command::Mcp => {
            let s = settings(&g, &[], None)?;
            let printer = Printer::new(s.redactor.clone(), Layout::Compact);
            let engine = engine(s, &printer);
            let rt = runtime()?;
            // A session the client ended badly (e.g. no `initialize` first) is the client's
            // problem, not a usage error: say so on stderr and end as at end of stdin.
            if let Err(e) = rt.block_on(crate::mcp::serve(Arc::new(engine), printer.clone())) {
                printer.diag(&e);
            }
            Ok(EXIT_SUCCESS)
        }
        Command::Providers { json } => {
            let s = settings(&g, &[], None)?;
            let printer = Printer::new(s.redactor.clone(), layout);
            crate::providers::print(&s, json, &printer);
            Ok(EXIT_SUCCESS)
        }
        Command::ToolSpec { flavor } => {
            let _ = plain().json(&crate::spec::tool_spec(flavor));
            Ok(EXIT_SUCCESS)
        }
        Command::Schema { name } => {
            let _ = plain().text(crate::spec::schema_text(name));
            Ok(EXIT_SUCCESS)
        }
        Command::Completions { shell } => {
            let mut cmd = Cli::command();
            let mut buf = Vec::new();
            clap_complete::generate(shell, &mut cmd, "vetch", &mut buf);
            let _ = plain().text(&String::from_utf8_lossy(&buf));
            Ok(EXIT_SUCCESS)
        }
        Command::Man => {
            let mut buf = Vec::new();
            clap_mangen::Man::new(Cli::command())
                .render(&mut buf)
                .map_err(|e| Usage(format!("cannot render the man page: {e}")))?;
            let _ = plain().text(&String::from_utf8_lossy(&buf));
            Ok(EXIT_SUCCESS)
        }
    }
}

fn lookup(g: &GlobalArgs, a: LookupArgs, layout: Layout) -> Result<i32, Usage> {
    let s = settings(g, &a.providers, a.extract)?;
    let printer = Printer::new(s.redactor.clone(), layout);
    let engine = engine(s, &printer);
    let input = ToolInput {
        url: a.url,
        must_contain: a.must_contain.filter(|m| !m.is_empty()),
        min_chars: a.min_chars,
        max_attempts: a.max_attempts,
        start_index: a.start_index,
        max_chars: a.max_chars,
    };
    let rt = runtime()?;
    let result = rt.block_on(engine.lookup(&input));
    let ok = result.receipt.ok;
    let _ = match a.output {
        OutputFormat::ToolResult => printer.json(&result.into_tool_result(None)),
        OutputFormat::Receipt => printer.json(&result.receipt),
        OutputFormat::Text => {
            if ok {
                printer.text(&result.text)
            } else {
                printer.err_line(&failure_line(&result.receipt));
                Ok(())
            }
        }
    };
    Ok(if ok { EXIT_SUCCESS } else { EXIT_FAILURE })
}

fn tool(g: &GlobalArgs, layout: Layout) -> Result<i32, Usage> {
    let s = settings(g, &[], None)?;
    let printer = Printer::new(s.redactor.clone(), layout);
    let engine = engine(s, &printer);
    let mut buf = Vec::new();
    let read = std::io::stdin()
        .lock()
        .take(MAX_TOOL_INPUT + 1)
        .read_to_end(&mut buf);
    let request = match read {
        Err(e) => crate::input::Request {
            tool_use_id: None,
            input: Err(crate::input::InputError {
                message: format!("cannot read stdin: {e}"),
            }),
        },
        Ok(_) if buf.len() as u64 > MAX_TOOL_INPUT => crate::input::Request {
            tool_use_id: None,
            input: Err(crate::input::InputError {
                message: format!("input is larger than {MAX_TOOL_INPUT} bytes"),
            }),
        },
        Ok(_) => match std::str::from_utf8(&buf) {
            Ok(text) => parse_request(text),
            Err(_) => crate::input::Request {
                tool_use_id: None,
                input: Err(crate::input::InputError {
                    message: "input is not UTF-8 text; expected one JSON object".into(),
                }),
            },
        },
    };
    let rt = runtime()?;
    let result = rt.block_on(engine.answer(request));
    let _ = printer.json(&result);
    Ok(if result.is_success() {
        EXIT_SUCCESS
    } else {
        EXIT_FAILURE
    })
}
