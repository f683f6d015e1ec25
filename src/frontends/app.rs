//! The dispatcher: turns a parsed [`Cli`] into work and an exit code. Exit codes are decided
//! here, once, from results (hurl's habit): 0 success, 1 a lookup ran and failed, 2 usage or
//! config error.

use std::io::Read;
use std::process::ExitCode;
use std::sync::Arc;

use clap::CommandFactory;

use crate::frontends::cli::{
    BatchArgs, Cli, Command, GlobalArgs, LookupArgs, OutputFormat, RunArgs,
};
use crate::frontends::exit::{self, AppError, Done};
use crate::frontends::output::{Layout, Printer};
use crate::frontends::warc::WarcFile;
use crate::lookup::{failure_line, Engine};
use crate::model::input::{complete_scheme, parse_tool_request, Envelope, ToolInput};
use crate::redact::Redactor;
use crate::settings::config;
use crate::settings::{Overrides, Settings};

/// Most bytes `vetch tool` reads from stdin.
const MAX_TOOL_INPUT: u64 = 1024 * 1024;

/// The runtime for many lookups at once (`batch`, `mcp`): one worker per core.
fn runtime() -> Result<tokio::runtime::Runtime, AppError> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(AppError::Runtime)
}

/// The cores this process may use (what tokio sizes its workers by).
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The runtime for one lookup (`lookup`, `tool`): the main thread drives it, and no worker
/// threads are started. Extraction (and name resolution, for a host name) still runs on a
/// blocking thread, started when it is needed, so the attempt deadline holds as in a batch.
fn single_runtime() -> Result<tokio::runtime::Runtime, AppError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(AppError::Runtime)
}

/// Load config and combine it with the flags.
fn settings(
    g: &GlobalArgs,
    providers: &[String],
    extract: Option<crate::model::kinds::ExtractMode>,
    run: &RunArgs,
) -> Result<Settings, AppError> {
    let config = config::load(g.config.as_deref())?;
    Settings::new(
        config,
        Overrides {
            allow_private: g.allow_private,
            providers: providers.to_vec(),
            extract,
            verbose: g.verbose,
            headers: run
                .headers
                .iter()
                .map(|h| {
                    (
                        h.name.clone(),
                        crate::model::secret::Secret::new(h.value.clone()),
                    )
                })
                .collect(),
            attempt_timeout_secs: run.timeout.map(|t| t.0),
            deadline_secs: run.deadline.map(|t| t.0),
            user_agent: run.user_agent.clone(),
            no_cache: run.no_cache,
            max_age_secs: run.max_age,
            robots: run.robots,
        },
    )
    .map_err(AppError::from)
}

/// Build the engine, wiring `-v` diagnostics to the printer. `by_program`: the URLs come
/// from a program (`tool`, `mcp`, `batch`), which `[lookup] robots = "auto"` respects
/// robots.txt for; a person typed them (`lookup`).
fn engine(settings: Settings, printer: &Printer, by_program: bool) -> Engine {
    let verbose = settings.verbose();
    if verbose {
        printer.diag(&format!("config: {}", settings.source()));
    }
    if settings.verbosity() >= 2 {
        printer.diag(&format!(
            "attempt timeout {}s ({}), lookup deadline {}s ({}), user agent '{}' ({})",
            settings.attempt_timeout().as_secs_f64(),
            settings.origin("lookup.attempt_timeout_secs"),
            settings.deadline().as_secs_f64(),
            settings.origin("lookup.deadline_secs"),
            settings.user_agent(),
            settings.origin("network.user_agent"),
        ));
        for p in settings.providers() {
            if let crate::fetch::spec::ProviderDetail::Http { headers, .. } = &p.detail {
                for (name, value) in headers {
                    // Names only for credentials; the printer redacts the rest anyway.
                    let shown = if crate::settings::sensitive_header(name) {
                        "(redacted)"
                    } else {
                        value.expose().as_str()
                    };
                    printer.diag(&format!("provider '{}': header {name}: {shown}", p.name));
                }
            }
        }
    }
    let cache = settings
        .cache_config()
        .map(|c| Arc::new(crate::fetch::cache::HttpCache::new(c)));
    if let Some(why) = cache.as_ref().and_then(|c| c.refused()) {
        if verbose {
            printer.diag(&format!("cache: not used: {why}"));
        }
    }
    let robots = settings
        .robots_mode()
        .respected(by_program)
        .then(|| Arc::new(robots(&settings, cache.clone())));
    if verbose {
        printer.diag(&match &robots {
            Some(r) => format!("robots.txt: respected (user-agent {})", r.agent()),
            None => "robots.txt: ignored".into(),
        });
    }
    let mut engine = Engine::new(Arc::new(settings));
    if let Some(cache) = cache {
        engine = engine.with_cache(cache);
    }
    if let Some(robots) = robots {
        engine = engine.with_robots(robots);
    }
    if verbose {
        let p = printer.clone();
        engine.with_diag(Arc::new(move |m: &str| p.diag(m)))
    } else {
        engine
    }
}

/// robots.txt for this run: the run's User-Agent, guard and attempt timeout, the way of its
/// first `http` provider (its proxy), and the run's cache.
fn robots(
    s: &Settings,
    cache: Option<Arc<crate::fetch::cache::HttpCache>>,
) -> crate::fetch::robots::Robots {
    use crate::fetch::spec::ProviderDetail;
    let first_http = s.ready_providers().find_map(|p| match &p.detail {
        ProviderDetail::Http {
            proxy, user_agent, ..
        } => Some((proxy.clone(), user_agent.clone())),
        _ => None,
    });
    let (proxy, user_agent) = first_http.unwrap_or_default();
    crate::fetch::robots::Robots::new(
        crate::fetch::robots::RobotsConfig {
            agent: s.robots_agent().to_string(),
            user_agent: user_agent.unwrap_or_else(|| s.user_agent().to_string()),
            policy: s.policy().clone(),
            proxy,
            timeout: s.attempt_timeout(),
        },
        cache,
    )
}

/// A command line clap refused: help and version are printed as clap prints them; any
/// other mistake is one line on stderr (DESIGN §2), redacted by shape (a mistyped flag's
/// value may be a key), and exit code 2.
pub fn usage_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind as K;
    if matches!(
        e.kind(),
        K::DisplayHelp | K::DisplayVersion | K::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        e.exit()
    }
    Printer::new(Arc::new(Redactor::new()), Layout::Compact)
        .diag(&crate::frontends::cli::one_line(&e));
    ExitCode::from(exit::EXIT_USAGE)
}

/// Run the command line; returns the process exit code (decided in one place,
/// [`exit::exit_code`]).
pub fn run(cli: Cli) -> ExitCode {
    let g = cli.global.clone();
    let layout = Layout::choose(g.pretty, g.compact);
    let result = dispatch(cli, layout);
    if let Err(e) = &result {
        // The secrets are not known when the config itself failed: redact by shape.
        Printer::new(Arc::new(Redactor::new()), layout).diag(&e.to_string());
    }
    exit::process_exit(&result)
}

fn dispatch(cli: Cli, layout: Layout) -> Result<Done, AppError> {
    let g = cli.global;
    let plain = || Printer::new(Arc::new(Redactor::new()), layout);
    match cli.command {
        Command::Lookup(args) => lookup(&g, args, layout),
        Command::Tool => tool(&g, layout),
        Command::Batch(b) => {
            let s = settings(&g, &b.providers, b.extract, &b.run)?;
            let printer = Printer::new(s.redactor().clone(), Layout::Compact);
            let warc = open_warc(&b.run, "batch")?;
            let stop = crate::lookup::Stop::default();
            let opts = batch_options(&g, &b);
            let pacer = opts.pacer.clone();
            let mut engine = engine(s, &printer, true)
                .with_cpu_slots(cores())
                .with_stop(stop.clone())
                .with_retry_after(Arc::new(move |url: &url::Url, wait| {
                    if let Some(host) = crate::frontends::pacing::host_key(url) {
                        pacer.pause(&host, wait);
                    }
                }));
            if warc.is_some() {
                engine = engine.with_evidence();
            }
            crate::redact::compile_all_shapes();
            let rt = runtime()?;
            let report = rt.block_on(crate::frontends::batch::run(
                Arc::new(engine),
                stop,
                &b.file,
                opts,
                printer,
                warc,
            ));
            // After Ctrl-C a blocking read of stdin may still be pending: do not wait for it.
            rt.shutdown_background();
            report.map(|r| r.done())
        }
        Command::Mcp => {
            let s = settings(&g, &[], None, &RunArgs::default())?;
            let printer = Printer::new(s.redactor().clone(), Layout::Compact);
            let engine = engine(s, &printer, true).with_cpu_slots(cores());
            crate::redact::compile_all_shapes();
            let rt = runtime()?;
            // A session the client ended badly (e.g. no `initialize` first) is the client's
            // problem, not a usage error: say so on stderr and end as at end of stdin.
            match rt.block_on(crate::frontends::mcp::serve(
                Arc::new(engine),
                printer.clone(),
            )) {
                Ok(crate::frontends::mcp::SessionEnd::Closed) => {}
                Ok(crate::frontends::mcp::SessionEnd::ClientError(why)) => printer.diag(&why),
                Err(e) => return Err(e),
            }
            Ok(Done::Success)
        }
        Command::Providers { json } => {
            let s = settings(&g, &[], None, &RunArgs::default())?;
            let printer = Printer::new(s.redactor().clone(), layout);
            crate::frontends::providers::print(&s, json, &printer);
            Ok(Done::Success)
        }
        Command::Cache { action } => {
            let s = settings(&g, &[], None, &RunArgs::default())?;
            let printer = Printer::new(s.redactor().clone(), layout);
            crate::frontends::cache::run(&s, &action, &printer)
        }
        Command::ToolSpec { flavor } => {
            let _ = plain().json(&crate::model::spec::tool_spec(flavor));
            Ok(Done::Success)
        }
        Command::Schema { name } => {
            let _ = plain().text(crate::model::spec::schema_text(name));
            Ok(Done::Success)
        }
        Command::Completions { shell } => {
            let mut cmd = Cli::command();
            let mut buf = Vec::new();
            clap_complete::generate(shell, &mut cmd, "vetch", &mut buf);
            let _ = plain().text(&String::from_utf8_lossy(&buf));
            Ok(Done::Success)
        }
        Command::Man { subcommand, dir } => man(subcommand.as_deref(), dir.as_deref(), &plain()),
    }
}

/// `--warc FILE`, opened (and its `warcinfo` record written) before anything is looked up:
/// a file that cannot be opened is the operator's error (exit 2).
fn open_warc(run: &RunArgs, command: &str) -> Result<Option<WarcFile>, AppError> {
    run.warc
        .as_deref()
        .map(|p| WarcFile::open(p, command))
        .transpose()
        .map_err(AppError::Usage)
}

fn batch_options(g: &GlobalArgs, b: &BatchArgs) -> crate::frontends::batch::BatchOptions {
    crate::frontends::batch::BatchOptions {
        concurrency: b.concurrency as usize,
        per_host: b.per_host as usize,
        pacer: Arc::new(crate::frontends::pacing::Pacer::new(
            std::time::Duration::from_secs(b.max_host_wait),
        )),
        verbose: g.verbose > 0,
        defaults: ToolInput {
            url: String::new(),
            must_contain: b.must_contain.clone().filter(|m| !m.is_empty()),
            min_chars: b.min_chars,
            max_attempts: b.max_attempts,
            start_index: None,
            max_chars: b.max_chars,
        },
    }
}

/// The hint for a host refused on the command line that `--allow-private` would let
/// through (loopback, private ranges; never cloud metadata, which stays refused).
const ALLOW_PRIVATE_HINT: &str = "(pass --allow-private for local addresses)";

fn private_hint(s: &Settings, url: &str) -> bool {
    let Ok(u) = url::Url::parse(url) else {
        return false;
    };
    let mut open = s.policy().clone();
    open.allow_private = true;
    s.policy().check_url(&u, true).is_err() && open.check_url(&u, true).is_ok()
}

/// The stderr line for `-o text` when the window is not the whole content.
pub fn window_line(
    r: &crate::model::receipt::Receipt,
    start: usize,
    shown: usize,
) -> Option<String> {
    let total = r.content_chars;
    let start = start as u64;
    let end = start.saturating_add(shown as u64).min(total);
    if start == 0 && end >= total {
        return None;
    }
    Some(match r.next_start_index {
        Some(next) => format!("characters {start}-{end} of {total}; next: --start-index {next}"),
        None => format!("characters {start}-{end} of {total}"),
    })
}

fn lookup(g: &GlobalArgs, a: LookupArgs, layout: Layout) -> Result<Done, AppError> {
    let s = settings(g, &a.providers, a.extract, &a.run)?;
    let printer = Printer::new(s.redactor().clone(), layout);
    let input = ToolInput {
        url: complete_scheme(&a.url),
        must_contain: a.must_contain.filter(|m| !m.is_empty()),
        min_chars: a.min_chars,
        max_attempts: a.max_attempts,
        start_index: a.start_index,
        max_chars: a.max_chars,
    };
    let start_index = s.request(&input).start_index;
    let max_body = s.max_body_bytes();
    let hint = private_hint(&s, &input.url);
    let mut warc = open_warc(&a.run, "lookup")?;
    let mut engine = engine(s, &printer, false);
    if warc.is_some() {
        engine = engine.with_evidence();
    }
    let rt = single_runtime()?;
    let mut result = rt.block_on(engine.lookup(&input));
    if let (Some(w), Some(ev)) = (warc.as_mut(), result.evidence.take()) {
        match crate::frontends::warc::write_evidence(w, &ev, printer.redactor()) {
            Ok(id) => result.receipt.warc_record_id = id,
            Err(line) => printer.diag(&line),
        }
    }
    let ok = result.receipt.ok;
    let refused = !ok
        && ((hint
            && result.receipt.failure_reason
                == Some(crate::model::receipt::FailureReason::InvalidInput))
            || result.refused_private);
    let hints = if ok {
        String::new()
    } else {
        operator_hints(&result, refused)
    };
    let failure = format!("{}{hints}", failure_line(&result.receipt));
    let _ = match a.output {
        OutputFormat::ToolResult | OutputFormat::Receipt => {
            if !hints.is_empty() {
                printer.diag(&failure);
            }
            if a.output == OutputFormat::Receipt {
                printer.json(&result.receipt)
            } else {
                let tool_result = result.into_tool_result(None);
                printer.tool_result(&tool_result, &tool_result, false)
            }
        }
        OutputFormat::Text => {
            if ok {
                if let Some(line) =
                    window_line(&result.receipt, start_index, result.text.chars().count())
                {
                    printer.diag(&line);
                }
                if result.receipt.truncated {
                    printer.diag(&format!(
                        "the body was cut at {} bytes (lookup.max_body_bytes): the content is a prefix of the page",
                        max_body
                    ));
                }
                printer.content_window(&result.text)
            } else {
                printer.err_line(&failure);
                Ok(())
            }
        }
        OutputFormat::Human => {
            use std::io::IsTerminal;
            let color = crate::frontends::output::use_color(
                std::io::stdout().is_terminal(),
                std::env::var_os("NO_COLOR").as_deref(),
            );
            let window = window_line(&result.receipt, start_index, result.text.chars().count());
            printer.styled_text(&crate::frontends::output::human(
                &result.receipt,
                &result.text,
                &failure,
                window.as_deref(),
                color,
            ))
        }
    };
    Ok(Done::from_ok(ok))
}

/// What the person at the terminal could change, appended to the failure line they read
/// (`-o text`, `-o human`, or one stderr line beside the JSON kinds): each hint starts with
/// a space, so none at all is the empty string. The receipt the model sees never carries
/// one: its wording and fields are fixed, and a model has no flags to pass.
fn operator_hints(result: &crate::lookup::Lookup, refused: bool) -> String {
    let mut hints = String::new();
    if let Some((provider, host)) = &result.local_endpoint {
        // A reader on this machine: open that one host, not every local address.
        let host = serde_json::Value::String(host.clone());
        hints.push_str(&format!(
            " (provider '{provider}' calls a local address: add allow_private_hosts = [{host}] under [network] in the config, or pass --allow-private to open every local address)"
        ));
    } else if refused {
        hints.push_str(&format!(" {ALLOW_PRIVATE_HINT}"));
    }
    if let Some(chars) = result.too_short {
        hints.push_str(&format!(
            " (pass --min-chars {} to accept content this short)",
            chars.max(1)
        ));
    }
    hints
}

/// `vetch man`: the main page, one subcommand's page, or (`--dir`) every page as files.
fn man(
    subcommand: Option<&str>,
    dir: Option<&std::path::Path>,
    printer: &Printer,
) -> Result<Done, AppError> {
    let root = Cli::command();
    let render = |cmd: clap::Command| -> Result<Vec<u8>, AppError> {
        let mut buf = Vec::new();
        clap_mangen::Man::new(cmd)
            .render(&mut buf)
            .map_err(|e| AppError::Usage(format!("cannot render the man page: {e}")))?;
        Ok(buf)
    };
    // A subcommand's page is titled `vetch-NAME`, as git and cargo do, and carries the
    // global flags too.
    let page = |sub: &clap::Command| -> clap::Command {
        // clap's names are `&'static str` without its `string` feature; a few bytes per
        // page in a process that prints and exits.
        let name: &'static str = Box::leak(format!("vetch-{}", sub.get_name()).into_boxed_str());
        let mut cmd = sub.clone().name(name).bin_name(name);
        for arg in root.get_arguments().filter(|a| a.is_global_set()) {
            if cmd.get_arguments().all(|b| b.get_id() != arg.get_id()) {
                cmd = cmd.arg(arg.clone());
            }
        }
        cmd.display_name(name)
    };
    let subs: Vec<&clap::Command> = root
        .get_subcommands()
        .filter(|c| c.get_name() != "help")
        .collect();
    if let Some(dir) = dir {
        std::fs::create_dir_all(dir)
            .map_err(|e| AppError::Usage(format!("cannot create {}: {e}", dir.display())))?;
        let mut pages = vec![("vetch.1".to_string(), render(root.clone())?)];
        for sub in &subs {
            pages.push((format!("vetch-{}.1", sub.get_name()), render(page(sub))?));
        }
        for (file, bytes) in &pages {
            let path = dir.join(file);
            std::fs::write(&path, bytes)
                .map_err(|e| AppError::Usage(format!("cannot write {}: {e}", path.display())))?;
        }
        printer.diag(&format!(
            "wrote {} man pages to {}",
            pages.len(),
            dir.display()
        ));
        return Ok(Done::Success);
    }
    let buf = match subcommand {
        None => render(root.clone())?,
        Some(name) => {
            let Some(sub) = subs.iter().find(|c| c.get_name() == name) else {
                let known: Vec<&str> = subs.iter().map(|c| c.get_name()).collect();
                return Err(AppError::Usage(format!(
                    "no subcommand '{name}' (one of: {})",
                    known.join(", ")
                )));
            };
            render(page(sub))?
        }
    };
    let _ = printer.text(&String::from_utf8_lossy(&buf));
    Ok(Done::Success)
}

/// Shown when `vetch tool` would wait on a terminal for input nobody is typing.
const TOOL_TERMINAL_HINT: &str = "reading one JSON tool input from stdin (e.g. {\"url\": \"https://example.com\"}), end with Ctrl-D; or try `vetch lookup URL`";

fn tool(g: &GlobalArgs, layout: Layout) -> Result<Done, AppError> {
    let s = settings(g, &[], None, &RunArgs::default())?;
    let printer = Printer::new(s.redactor().clone(), layout);
    let engine = engine(s, &printer, true);
    {
        use std::io::IsTerminal;
        if std::io::stdin().is_terminal() {
            printer.diag(TOOL_TERMINAL_HINT);
        }
    }
    let mut buf = Vec::new();
    let read = std::io::stdin()
        .lock()
        .take(MAX_TOOL_INPUT + 1)
        .read_to_end(&mut buf);
    let failed = |message: String| {
        (
            Envelope::Plain,
            crate::model::input::Request {
                tool_use_id: None,
                input: Err(crate::model::input::InputError { message }),
            },
        )
    };
    let (envelope, request) = match read {
        Err(e) => failed(format!("cannot read stdin: {e}")),
        Ok(_) if buf.len() as u64 > MAX_TOOL_INPUT => {
            failed(format!("input is larger than {MAX_TOOL_INPUT} bytes"))
        }
        Ok(_) => match std::str::from_utf8(&buf) {
            Ok(text) => parse_tool_request(text),
            Err(_) => failed("input is not UTF-8 text; expected one JSON object".into()),
        },
    };
    let rt = single_runtime()?;
    let result = rt.block_on(engine.answer(request));
    let done = Done::from_ok(result.is_success());
    let _ = match envelope {
        Envelope::Plain => printer.tool_result(&result, &result, false),
        // Bedrock Converse: the same shape it was given, one level down.
        Envelope::Converse => {
            printer.tool_result(&serde_json::json!({ "toolResult": result }), &result, false)
        }
    };
    Ok(done)
}
