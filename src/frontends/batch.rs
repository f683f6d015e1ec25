//! `vetch batch`: many lookups in one process, NDJSON out in input order.
//!
//! The input is read as a stream, one line at a time; a bad line becomes an `error` tool
//! result for that line and the batch goes on. In-flight lookups are bounded by
//! `--concurrency` (a semaphore taken before a line's task is spawned) and by `--per-host`
//! (one semaphore per host). Workers never print: the writer awaits the tasks in input
//! order, so results waiting for an earlier line are bounded by the concurrency too. With
//! `--warc`, each task encodes its lookup's records (on a blocking thread) and the writer
//! appends them to the one file in input order, before the line that names them.
//! Ctrl-C stops dispatching and, after a short grace, the lookups in flight; a second one
//! exits at once (see [`run`]).

use std::collections::HashMap;
use std::io::IsTerminal;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, BufReader};
use tokio::sync::{mpsc, Semaphore};
use tokio::task::JoinHandle;

use crate::frontends::exit::{AppError, Done};
use crate::frontends::output::{PreparedLine, Printer};
use crate::frontends::pacing::{host_key, Pacer};
use crate::frontends::warc::{encode_pair, Encoded, WarcFile};
use crate::lookup::{Engine, Stop};
use crate::model::input::{parse_request, InputError, Request, ToolInput};
use crate::model::receipt::ToolResult;

/// Longest input line, in bytes; longer lines are answered with an error.
pub const MAX_LINE_BYTES: usize = 1024 * 1024;

#[derive(Debug, Clone)]
pub struct BatchOptions {
    pub concurrency: usize,
    pub per_host: usize,
    /// The hosts' clocks (Crawl-delay, Retry-After); the engine tells it of every
    /// Retry-After (see [`Engine::with_retry_after`]).
    pub pacer: Arc<Pacer>,
    pub verbose: bool,
    /// `--must-contain`, `--min-chars`, `--max-attempts`, `--max-chars`: the fields of
    /// every URL line (JSON lines say their own). `url` is unused.
    pub defaults: ToolInput,
}

/// What one input line asks for. A URL line without a scheme is completed as on the
/// command line (`https://`, or `http://` for a local host); a JSON line is model-style
/// input and must say http or https itself.
fn request_for_line(line: &str, defaults: &ToolInput) -> Request {
    let t = line.trim();
    if t.starts_with('{') {
        parse_request(t)
    } else {
        Request {
            tool_use_id: None,
            input: Ok(ToolInput {
                url: crate::model::input::complete_scheme(t),
                ..defaults.clone()
            }),
        }
    }
}

/// A rate for people: three significant figures at most, no false precision.
pub fn format_rate(per_sec: f64) -> String {
    if !per_sec.is_finite() || per_sec <= 0.0 {
        "-/s".into()
    } else if per_sec >= 100.0 {
        format!("{per_sec:.0}/s")
    } else if per_sec >= 10.0 {
        format!("{per_sec:.1}/s")
    } else if per_sec >= 0.1 {
        format!("{per_sec:.2}/s")
    } else {
        format!("{:.1}/min", per_sec * 60.0)
    }
}

fn request_url(req: &Request) -> Option<url::Url> {
    url::Url::parse(&req.input.as_ref().ok()?.url).ok()
}

/// Wait for this lookup's turn at its host: robots.txt's `Crawl-delay` when it is respected
/// (learning the file, once per origin, within one attempt's time), and any `Retry-After`
/// the host gave. Before the lookup starts, so that its deadline does not run meanwhile; a
/// stopped run does not wait.
async fn pace(engine: &Engine, pacer: &Pacer, key: &str, url: &url::Url, stop: &Stop) {
    let wait = async {
        let delay = match engine.robots() {
            Some(r) => {
                let by = tokio::time::Instant::now() + engine.settings().attempt_timeout();
                r.crawl_delay(url, by).await
            }
            None => None,
        };
        pacer.wait_turn(key, delay).await;
    };
    tokio::select! {
        _ = stop.fired() => {}
        _ = wait => {}
    }
}

/// One line's lookup: its result, and the WARC records it encoded.
type Task = JoinHandle<(ToolResult, Option<Encoded>)>;

/// Most lines the writer gathers into one write (see [`run`]).
const MAX_LINES_PER_WRITE: usize = 32;

/// The result of a line's lookup once it has finished, its records appended to the WARC
/// file first (in input order, on a blocking thread like the line; the line names them
/// only once they are written). One result per input line, always: a task that died still
/// gets its line.
async fn settle(
    handle: Task,
    warc: Option<&Arc<Mutex<WarcFile>>>,
    printer: &Printer,
    bar: Option<&indicatif::ProgressBar>,
) -> ToolResult {
    let (mut result, pair) = match handle.await {
        Ok(r) => r,
        Err(_) => (
            ToolResult::new(
                crate::model::receipt::Receipt::start(String::new(), 0, 0).failed_internally(),
                "internal error: this lookup was aborted".into(),
                None,
            ),
            None,
        ),
    };
    if let (Some(w), Some(pair)) = (warc, pair) {
        let w = w.clone();
        let appended = tokio::task::spawn_blocking(move || {
            let mut w = match w.lock() {
                Ok(g) => g,
                Err(p) => p.into_inner(),
            };
            w.append(&pair).map(|done| done.then_some(pair.response_id))
        })
        .await
        .unwrap_or(Ok(None));
        match appended {
            Ok(id) => {
                if let Some(r) = result.receipt_mut() {
                    r.warc_record_id = id;
                }
            }
            Err(line) => match bar {
                Some(b) => b.suspend(|| printer.diag(&line)),
                None => printer.diag(&line),
            },
        }
    }
    result
}

/// Per-host semaphores; an entry is dropped when no task holds it.
#[derive(Default)]
struct Hosts {
    map: Mutex<HashMap<String, Arc<Semaphore>>>,
}

impl Hosts {
    fn get(&self, key: &str, permits: usize) -> Arc<Semaphore> {
        let mut m = match self.map.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        m.entry(key.to_string())
            .or_insert_with(|| Arc::new(Semaphore::new(permits)))
            .clone()
    }

    fn release(&self, key: &str, sem: Arc<Semaphore>) {
        let mut m = match self.map.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        // Ours plus the map's: nobody else is waiting on it.
        if Arc::strong_count(&sem) == 2 {
            m.remove(key);
        }
    }
}

enum Line {
    Text(String),
    Bad(String),
    Eof,
}

/// Read one line, at most [`MAX_LINE_BYTES`]; the rest of an overlong line is skipped.
async fn read_line<R: AsyncRead + Unpin>(r: &mut BufReader<R>) -> std::io::Result<Line> {
    let mut buf = Vec::new();
    let n = (&mut *r)
        .take(MAX_LINE_BYTES as u64 + 1)
        .read_until(b'\n', &mut buf)
        .await?;
    if n == 0 {
        return Ok(Line::Eof);
    }
    if buf.len() > MAX_LINE_BYTES && buf.last() != Some(&b'\n') {
        let mut skip = Vec::new();
        loop {
            skip.clear();
            let m = (&mut *r)
                .take(64 * 1024)
                .read_until(b'\n', &mut skip)
                .await?;
            if m == 0 || skip.last() == Some(&b'\n') {
                break;
            }
        }
        return Ok(Line::Bad(format!(
            "input line is longer than {MAX_LINE_BYTES} bytes"
        )));
    }
    match String::from_utf8(buf) {
        Ok(s) => Ok(Line::Text(s)),
        Err(_) => Ok(Line::Bad("input line is not UTF-8 text".into())),
    }
}

fn progress_bar(total: Option<u64>) -> indicatif::ProgressBar {
    let pb = match total {
        Some(n) => indicatif::ProgressBar::new(n),
        None => indicatif::ProgressBar::new_spinner(),
    };
    let style = match total {
        Some(_) => "{bar:30} {pos}/{len} {rate} ETA {eta} {msg}",
        None => "{spinner} {pos} done {rate} {msg}",
    };
    if let Ok(s) = indicatif::ProgressStyle::with_template(style) {
        pb.set_style(s.with_key(
            "rate",
            |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = w.write_str(&format_rate(state.per_sec()));
            },
        ));
    }
    pb.set_draw_target(indicatif::ProgressDrawTarget::stderr());
    pb.enable_steady_tick(Duration::from_millis(200));
    pb
}

/// Count the lookups a file will produce (for the progress bar), streaming.
async fn count_lines(path: &str) -> Option<u64> {
    let f = tokio::fs::File::open(path).await.ok()?;
    let mut r = BufReader::new(f);
    let mut n = 0u64;
    loop {
        match read_line(&mut r).await.ok()? {
            Line::Eof => return Some(n),
            Line::Text(t) => {
                let t = t.trim().trim_start_matches('\u{feff}').trim();
                if !t.is_empty() && !t.starts_with('#') {
                    n += 1;
                }
            }
            Line::Bad(_) => n += 1,
        }
    }
}

/// How long the lookups in flight at the first Ctrl-C get to finish before they are
/// stopped (their lines then say `interrupted`).
pub const GRACE: Duration = Duration::from_secs(1);

/// Ctrl-C (SIGINT) as a stream of events. Made when the batch starts, so that from then on
/// Ctrl-C no longer kills the process: the first stops dispatching, the second exits.
struct Interrupts {
    #[cfg(unix)]
    sig: Option<tokio::signal::unix::Signal>,
}

impl Interrupts {
    fn new() -> Interrupts {
        #[cfg(unix)]
        {
            Interrupts {
                sig: tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt()).ok(),
            }
        }
        #[cfg(not(unix))]
        {
            Interrupts {}
        }
    }

    /// The next Ctrl-C; never, if they cannot be listened for.
    async fn next(&mut self) {
        #[cfg(unix)]
        {
            if let Some(sig) = &mut self.sig {
                if sig.recv().await.is_some() {
                    return;
                }
            }
        }
        #[cfg(not(unix))]
        {
            if tokio::signal::ctrl_c().await.is_ok() {
                return;
            }
        }
        std::future::pending::<()>().await
    }
}

/// Run a batch over `file` (`-` for stdin). Returns what was done; only an input that
/// cannot be opened or a writer that died is an error.
///
/// Ctrl-C: the first stops reading and dispatching, says so on stderr, gives the lookups in
/// flight [`GRACE`] to finish and then fires `stop` (the engine must watch it, see
/// [`Engine::with_stop`]), so every dispatched line is still answered, in order; the
/// report says `interrupted`. The second exits the process at once with 130
/// ([`Printer::exit_now`]: the lines written so far stay whole).
pub async fn run(
    engine: Arc<Engine>,
    stop: Stop,
    file: &str,
    opts: BatchOptions,
    printer: Printer,
    warc: Option<WarcFile>,
) -> Result<BatchReport, AppError> {
    let mut interrupts = Interrupts::new();
    let reader: Box<dyn AsyncRead + Unpin + Send> = if file == "-" {
        Box::new(tokio::io::stdin())
    } else {
        Box::new(
            tokio::fs::File::open(file)
                .await
                .map_err(|e| AppError::Usage(format!("cannot open batch input {file}: {e}")))?,
        )
    };
    let show_progress = std::io::stderr().is_terminal();
    let total = if show_progress && file != "-" {
        count_lines(file).await
    } else {
        None
    };
    let bar = show_progress.then(|| progress_bar(total));
    let mut input = BufReader::with_capacity(64 * 1024, reader);
    let concurrency = opts.concurrency.max(1);
    let per_host = opts.per_host.max(1);
    let global = Arc::new(Semaphore::new(concurrency));
    let hosts = Arc::new(Hosts::default());
    let (tx, mut rx) = mpsc::channel::<Task>(concurrency);
    // What a task needs to encode its records: the run's warcinfo id and the redactor.
    let warc_ctx = warc
        .as_ref()
        .map(|w| Arc::new((w.warcinfo_id().to_string(), printer.redactor().clone())));
    let warc = warc.map(|w| Arc::new(Mutex::new(w)));

    let started = Instant::now();
    let writer_bar = bar.clone();
    let writer_printer = printer.clone();
    let writer = tokio::spawn(async move {
        let printer = writer_printer;
        let (mut ok, mut failed) = (0u64, 0u64);
        let mut closed = false;
        // A lookup taken from the queue while gathering lines, not finished then: the next
        // one awaited.
        let mut next: Option<Task> = None;
        loop {
            let handle = match next.take() {
                Some(h) => h,
                None => match rx.recv().await {
                    Some(h) => h,
                    None => break,
                },
            };
            let mut results =
                vec![settle(handle, warc.as_ref(), &printer, writer_bar.as_ref()).await];
            // The lookups after it that have finished already are written with it, in one
            // blocking call and one write, instead of one each; an unfinished one is never
            // waited for here. Not with `--warc`: each of its lines waits for its records.
            if warc.is_none() {
                while results.len() < MAX_LINES_PER_WRITE {
                    match rx.try_recv() {
                        Ok(h) if h.is_finished() => {
                            results.push(settle(h, None, &printer, writer_bar.as_ref()).await);
                        }
                        Ok(h) => {
                            next = Some(h);
                            break;
                        }
                        Err(_) => break,
                    }
                }
            }
            let mut lines: Vec<PreparedLine> = Vec::with_capacity(results.len());
            for result in &results {
                if result.is_success() {
                    ok += 1;
                } else {
                    failed += 1;
                }
                lines.push(printer.prepare_tool_result_line(result));
            }
            // Written on a blocking thread: a reader that stops reading (a full pipe) holds
            // up this writer only, never an async worker, so Ctrl-C is still heard. The bar
            // steps aside while lines are written, so a terminal showing both streams never
            // gets a bar glued into the NDJSON.
            let (p, b) = (printer.clone(), writer_bar.clone());
            let written = tokio::task::spawn_blocking(move || match &b {
                Some(b) => b.suspend(|| p.write_prepared_all(&lines)),
                None => p.write_prepared_all(&lines),
            })
            .await
            .unwrap_or(Err(crate::frontends::output::Closed));
            if !closed && written.is_err() {
                // The reader of our stdout went away: finish quietly.
                closed = true;
            }
            if let Some(b) = &writer_bar {
                b.inc(results.len() as u64);
                b.set_message(format!("{failed} failed"));
            }
        }
        (ok, failed)
    });

    let mut interrupted = false;
    let mut read_error = None;
    loop {
        let line = tokio::select! {
            biased;
            _ = interrupts.next() => { interrupted = true; break; }
            l = read_line(&mut input) => l,
        };
        let request = match line {
            Err(e) => {
                read_error = Some(format!("reading batch input: {e}"));
                break;
            }
            Ok(Line::Eof) => break,
            Ok(Line::Bad(why)) => Request {
                tool_use_id: None,
                input: Err(InputError { message: why }),
            },
            Ok(Line::Text(t)) => {
                // A byte-order mark (first line of a file saved by some editors) is not text.
                let trimmed = t.trim().trim_start_matches('\u{feff}').trim();
                if trimmed.is_empty() || trimmed.starts_with('#') {
                    continue;
                }
                request_for_line(trimmed, &opts.defaults)
            }
        };
        let permit = tokio::select! {
            biased;
            _ = interrupts.next() => { interrupted = true; break; }
            p = global.clone().acquire_owned() => match p { Ok(p) => p, Err(_) => break },
        };
        let engine = engine.clone();
        let hosts = hosts.clone();
        let warc_ctx = warc_ctx.clone();
        let pacer = opts.pacer.clone();
        let stop = stop.clone();
        let handle = tokio::spawn(async move {
            let _permit = permit;
            let url = request_url(&request);
            let (result, evidence) = match url.as_ref().and_then(|u| Some((u, host_key(u)?))) {
                Some((url, key)) => {
                    let sem = hosts.get(&key, per_host);
                    let result = match sem.clone().acquire_owned().await {
                        Ok(_host_permit) => {
                            pace(&engine, &pacer, &key, url, &stop).await;
                            engine.answer_with_evidence(request).await
                        }
                        Err(_) => engine.answer_with_evidence(request).await,
                    };
                    hosts.release(&key, sem);
                    result
                }
                None => engine.answer_with_evidence(request).await,
            };
            // Compressing a body is CPU work: off the async workers, under this line's
            // permit (so at most `--concurrency` bodies are held at once).
            let pair = match (evidence, warc_ctx) {
                (Some(ev), Some(ctx)) => {
                    tokio::task::spawn_blocking(move || encode_pair(&ev, &ctx.0, &ctx.1))
                        .await
                        .ok()
                }
                _ => None,
            };
            (result, pair)
        });
        if tx.send(handle).await.is_err() {
            break;
        }
    }
    drop(tx);
    // Whatever is dispatched is answered and written; Ctrl-C is heard meanwhile too (the
    // input may have ended long before the last lookup does).
    let say = |msg: &str| match &bar {
        Some(b) => b.suspend(|| printer.diag(msg)),
        None => printer.diag(msg),
    };
    let in_flight = || concurrency - global.available_permits();
    let first_interrupt = |in_flight: usize| {
        if in_flight == 0 {
            say("interrupted: no new lookups; writing what is done (Ctrl-C again to exit now)");
        } else {
            say(&format!(
                "interrupted: no new lookups; the {in_flight} in flight get {}s to finish, then are stopped (Ctrl-C again to exit now)",
                GRACE.as_secs()
            ));
        }
        let stop = stop.clone();
        tokio::spawn(async move {
            tokio::time::sleep(GRACE).await;
            stop.fire();
        });
    };
    if interrupted {
        first_interrupt(in_flight());
    }
    let mut writer = writer;
    let written = loop {
        tokio::select! {
            w = &mut writer => break w,
            _ = interrupts.next() => {
                if interrupted {
                    say("interrupted again: exiting now");
                    printer.exit_now(crate::frontends::exit::EXIT_INTERRUPTED);
                }
                interrupted = true;
                first_interrupt(in_flight());
            }
        }
    };
    let (ok, failed) =
        written.map_err(|e| AppError::Internal(format!("the batch writer failed: {e}")))?;
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    if show_progress || opts.verbose || interrupted {
        printer.diag(&format!(
            "{} lookups: {ok} success, {failed} error in {:.1}s{}",
            ok + failed,
            started.elapsed().as_secs_f64(),
            if interrupted { " (interrupted)" } else { "" }
        ));
    }
    if let Some(e) = &read_error {
        printer.diag(e);
    }
    Ok(BatchReport {
        ok,
        failed,
        interrupted,
        input_failed: read_error.is_some(),
    })
}

/// What a batch did: counts, not an exit code (that is decided once, in `exit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchReport {
    /// Lines answered with status `success`.
    pub ok: u64,
    /// Lines answered with status `error` (bad lines included).
    pub failed: u64,
    /// Ctrl-C stopped the batch; what was done was flushed.
    pub interrupted: bool,
    /// Reading the input failed part way (said on stderr); the lines read were answered.
    pub input_failed: bool,
}

impl BatchReport {
    /// Interrupted wins; then any failed line or a broken input is a failure.
    pub fn done(&self) -> Done {
        if self.interrupted {
            Done::Interrupted
        } else {
            Done::from_ok(self.failed == 0 && !self.input_failed)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_urls_or_json() {
        assert_eq!(
            request_for_line("  https://a.example/  ", &ToolInput::default())
                .input
                .unwrap()
                .url,
            "https://a.example/"
        );
        let r = request_for_line(
            "{\"toolUseId\": \"x\", \"input\": {\"url\": \"u\"}}",
            &ToolInput::default(),
        );
        assert_eq!(r.tool_use_id.as_deref(), Some("x"));
        assert!(request_for_line("{broken", &ToolInput::default())
            .input
            .is_err());
    }

    #[test]
    fn url_lines_take_the_batch_defaults_and_https() {
        let d = ToolInput {
            must_contain: Some("x".into()),
            max_attempts: Some(2),
            min_chars: Some(5),
            max_chars: Some(100),
            ..ToolInput::default()
        };
        let i = request_for_line("example.com/docs", &d).input.unwrap();
        assert_eq!(i.url, "https://example.com/docs");
        assert_eq!(
            (
                i.must_contain.as_deref(),
                i.max_attempts,
                i.min_chars,
                i.max_chars
            ),
            (Some("x"), Some(2), Some(5), Some(100))
        );
        // A JSON line says what it wants; the defaults are not mixed in.
        let j = request_for_line("{\"url\": \"https://a.example/\"}", &d)
            .input
            .unwrap();
        assert_eq!(j.max_attempts, None);
        let k = request_for_line("{\"url\": \"a.example\"}", &d)
            .input
            .unwrap();
        assert_eq!(k.url, "a.example");
    }

    #[test]
    fn rates_have_sensible_precision() {
        let cases = [
            (0.0, "-/s"),
            (f64::NAN, "-/s"),
            (0.05, "3.0/min"),
            (1.23456, "1.23/s"),
            (12.3456, "12.3/s"),
            (123.456, "123/s"),
            (4567.8, "4568/s"),
        ];
        for (r, want) in cases {
            assert_eq!(format_rate(r), want, "{r}");
        }
    }

    #[test]
    fn host_keys_include_port() {
        let d = ToolInput::default();
        let key = |line| request_url(&request_for_line(line, &d)).and_then(|u| host_key(&u));
        assert_eq!(
            key("http://A.example:8080/x").as_deref(),
            Some("a.example:8080")
        );
        assert_eq!(key("https://b.example/").as_deref(), Some("b.example:443"));
        assert_eq!(key("not a url"), None);
    }

    #[tokio::test]
    async fn overlong_and_non_utf8_lines_are_bad_but_reading_goes_on() {
        let mut data = vec![b'a'; MAX_LINE_BYTES + 10];
        data.push(b'\n');
        data.extend_from_slice(b"\xff\xfe\n");
        data.extend_from_slice(b"https://ok.example/\n");
        let mut r = BufReader::new(&data[..]);
        assert!(matches!(read_line(&mut r).await.unwrap(), Line::Bad(m) if m.contains("longer")));
        assert!(matches!(read_line(&mut r).await.unwrap(), Line::Bad(m) if m.contains("UTF-8")));
        assert!(
            matches!(read_line(&mut r).await.unwrap(), Line::Text(t) if t.trim() == "https://ok.example/")
        );
        assert!(matches!(read_line(&mut r).await.unwrap(), Line::Eof));
    }
}
