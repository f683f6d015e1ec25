//! `vetch mcp`: a Model Context Protocol server on stdio, built on the official Rust SDK
//! (`rmcp`), exposing the one tool `verified_web_lookup`.
//!
//! - `tools/list` gives the tool with the model-facing `inputSchema` and the receipt as
//!   `outputSchema`, both from [`crate::model::spec`] (one source of truth).
//! - `tools/call` runs the same [`Engine::answer`] as `vetch tool` and maps the tool result:
//!   `structuredContent` is the receipt, `content` is [the receipt as JSON text, the page
//!   text or failure line], and `isError` is true exactly when the status is `error`.
//!   Anything wrong in the arguments (unknown field, wrong type, missing `url`, arguments
//!   missing or not an object) is answered with an `isError` result whose text names the
//!   field, never with a protocol error, so a model can correct its call. The arguments are
//!   the bare tool input: a Strands `toolUseId`/`input` wrapper is not unwrapped here.
//! - An unknown or missing tool name is a JSON-RPC error (`-32602`, as rmcp's own router
//!   answers). A line that is not JSON is ignored (rmcp, like the other SDKs); JSON that is
//!   not a JSON-RPC message gets `-32600` without an id.
//! - The tool carries annotations (`readOnlyHint`, `openWorldHint`, not destructive) so a
//!   client may treat it as a read-only fetch.
//!
//! stdout carries protocol frames only: rmcp is the only writer there, and it writes values
//! the engine has already redacted. Diagnostics go to stderr through [`Printer::diag`]. Each
//! request runs in its own task (rmcp spawns them), so slow lookups do not hold up others;
//! at most `[mcp] max_calls_in_flight` lookups run at once and further calls wait for a
//! slot, so a flood of calls costs bounded memory. At the end of stdin rmcp answers what is
//! in flight and the server returns `Ok`, so the process exits 0.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CustomRequest,
    CustomResult, ErrorCode, Implementation, JsonObject, ListToolsResult, PaginatedRequestParams,
    ProtocolVersion, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::{QuitReason, RequestContext, ServerInitializeError};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;

use crate::frontends::exit::AppError;
use crate::frontends::output::Printer;
use crate::lookup::Engine;
use crate::model::input::{Request, ToolInput};
use crate::model::receipt::{clip_chars, ToolResult};
use crate::model::spec;
use crate::redact::controls::{strip_controls, strip_controls_json};

/// Longest echo of a client-sent tool name in an error message, in characters.
const MAX_ECHO_CHARS: usize = 80;

/// The MCP handler: the shared engine and the tool definition, built once.
#[derive(Clone)]
struct Server {
    engine: Arc<Engine>,
    printer: Printer,
    tool: Tool,
    in_flight: Arc<InFlight>,
    /// `[mcp] max_calls_in_flight` permits: a lookup runs only while it holds one. rmcp
    /// spawns a task for every request as it arrives, so without this bound 400 calls on
    /// 2 MiB pages held 400 bodies at once (1.7 GiB).
    slots: Arc<tokio::sync::Semaphore>,
    max_calls: usize,
}

/// Tool calls not yet answered, running or waiting for a slot. At the end of stdin rmcp
/// gives running calls only a few seconds before cancelling them, less than a lookup's
/// deadline; so the reader holds back the end of stdin until they are done, for as long as
/// calls keep ending (each runs at most one lookup deadline once it has a slot).
#[derive(Default)]
struct InFlight {
    count: std::sync::atomic::AtomicUsize,
    /// `tools/call` requests read from stdin so far (as the reader saw them go by).
    read: std::sync::atomic::AtomicUsize,
    /// Calls that have started (reached the handler).
    started: std::sync::atomic::AtomicUsize,
    /// Notified each time a call starts or ends.
    ended: tokio::sync::Notify,
}

/// How long the end of stdin waits for a call that was read but has not started, with no
/// call starting meanwhile: a line rmcp refuses never starts one.
const START_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

/// Counts one call for as long as it lives.
struct CallGuard(Arc<InFlight>);

impl CallGuard {
    fn new(f: &Arc<InFlight>) -> CallGuard {
        f.count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        f.started.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        f.ended.notify_waiters();
        CallGuard(f.clone())
    }
}

impl Drop for CallGuard {
    fn drop(&mut self) {
        self.0
            .count
            .fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
        self.0.ended.notify_waiters();
    }
}

impl InFlight {
    /// Wait until no call is left, or until `limit` passes without any call ending (a
    /// call that outlives its deadline by that much is not waited for). A queue of calls
    /// waiting for slots is drained however long it is, as long as it moves.
    async fn wait_idle(self: Arc<Self>, limit: std::time::Duration) {
        use std::sync::atomic::Ordering::SeqCst;
        // Let the calls that were read start (and count themselves) first: rmcp hands each
        // to a task of its own, which a loaded machine may not have run yet.
        loop {
            let started = self.ended.notified();
            if self.started.load(SeqCst) >= self.read.load(SeqCst) {
                break;
            }
            if tokio::time::timeout(START_GRACE, started).await.is_err() {
                break;
            }
        }
        loop {
            let ended = self.ended.notified();
            if self.count.load(std::sync::atomic::Ordering::SeqCst) == 0 {
                return;
            }
            if tokio::time::timeout(limit, ended).await.is_err() {
                return;
            }
        }
    }
}

/// Stdin that reports its end only once no tool call is running (see [`InFlight`]).
struct DrainingReader<R> {
    inner: R,
    in_flight: Arc<InFlight>,
    /// The last bytes read, so that a `"tools/call"` split across two reads is counted.
    tail: Vec<u8>,
    limit: std::time::Duration,
    waiting: Option<std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>>,
}

impl<R: tokio::io::AsyncRead + Unpin> tokio::io::AsyncRead for DrainingReader<R> {
    fn poll_read(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        use std::task::Poll;
        let this = self.get_mut();
        if let Some(w) = this.waiting.as_mut() {
            return match w.as_mut().poll(cx) {
                Poll::Ready(()) => {
                    this.waiting = None;
                    Poll::Ready(Ok(()))
                }
                Poll::Pending => Poll::Pending,
            };
        }
        let before = buf.filled().len();
        match std::pin::Pin::new(&mut this.inner).poll_read(cx, buf) {
            Poll::Ready(Ok(())) if buf.filled().len() == before => {
                let idle = this.in_flight.clone().wait_idle(this.limit);
                let mut w: std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>> =
                    Box::pin(idle);
                match w.as_mut().poll(cx) {
                    Poll::Ready(()) => Poll::Ready(Ok(())),
                    Poll::Pending => {
                        this.waiting = Some(w);
                        Poll::Pending
                    }
                }
            }
            Poll::Ready(Ok(())) => {
                let calls = count_calls(&mut this.tail, &buf.filled()[before..]);
                this.in_flight
                    .read
                    .fetch_add(calls, std::sync::atomic::Ordering::SeqCst);
                Poll::Ready(Ok(()))
            }
            other => other,
        }
    }
}

/// How many times `"tools/call"` occurs in `tail` + `bytes` (not wholly inside `tail`);
/// `tail` becomes the last bytes, for the next read.
fn count_calls(tail: &mut Vec<u8>, bytes: &[u8]) -> usize {
    const NEEDLE: &[u8] = b"\"tools/call\"";
    let mut window = std::mem::take(tail);
    let carried = window.len();
    window.extend_from_slice(bytes);
    let n = memchr::memmem::find_iter(&window, NEEDLE)
        .filter(|&at| at + NEEDLE.len() > carried)
        .count();
    let keep = window.len().min(NEEDLE.len() - 1);
    *tail = window[window.len() - keep..].to_vec();
    n
}

/// The longest request line `vetch mcp` reads (4 MiB). rmcp drops longer lines (past its
/// own 16 MiB) without a word, and the client waits forever; [`LineLimit`] answers them.
pub const MAX_REQUEST_LINE: usize = 4 * 1024 * 1024;

/// The method of the stand-in request [`LineLimit`] puts where an oversized line was.
const TOO_LARGE_METHOD: &str = "vetch/request_too_large";

/// Stdin with a bound on each line. The bytes of a line pass through until it grows past
/// `limit`; then the part already passed is ended with `!\n` (so it cannot parse), the rest
/// of the line is read and dropped, and in its place comes one small line that rmcp
/// answers with a JSON-RPC error: a request for `TOO_LARGE_METHOD` carrying the
/// original id when the line's head shows one, else JSON that is not JSON-RPC (answered
/// `-32600` with a null id). `report` says so on stderr.
pub struct LineLimit<R> {
    inner: R,
    limit: usize,
    /// Bytes of the current line passed on so far.
    line_len: usize,
    /// The first bytes of the current line, to find its id.
    head: Vec<u8>,
    discarding: bool,
    out: Vec<u8>,
    out_pos: usize,
    report: Arc<dyn Fn(&str) + Send + Sync>,
}

/// How much of a line's start is kept to look for its `"id"`.
const HEAD_KEEP: usize = 64 * 1024;

impl<R> LineLimit<R> {
    pub fn new(inner: R, limit: usize, report: Arc<dyn Fn(&str) + Send + Sync>) -> Self {
        LineLimit {
            inner,
            limit,
            line_len: 0,
            head: Vec::new(),
            discarding: false,
            out: Vec::new(),
            out_pos: 0,
            report,
        }
    }

    /// Pass `data` through the line bound into `self.out`.
    fn feed(&mut self, mut data: &[u8]) {
        while !data.is_empty() {
            let newline = data.iter().position(|b| *b == b'\n');
            if self.discarding {
                match newline {
                    None => return,
                    Some(p) => {
                        self.discarding = false;
                        self.line_len = 0;
                        self.head.clear();
                        data = &data[p + 1..];
                        continue;
                    }
                }
            }
            let seg_end = newline.unwrap_or(data.len());
            let room = self.limit - self.line_len;
            if seg_end > room {
                // The line is too long: pass what fits, then end it unparseable.
                self.keep_head(&data[..room]);
                self.out.extend_from_slice(&data[..room]);
                self.out.extend_from_slice(b"!\n");
                let id = request_id(&self.head);
                let line = match &id {
                    Some(id) => format!(
                        "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"{TOO_LARGE_METHOD}\"}}\n"
                    ),
                    None => "{\"vetch\":\"request line too long\"}\n".to_string(),
                };
                self.out.extend_from_slice(line.as_bytes());
                (self.report)(&format!(
                    "mcp: a request line longer than {} bytes was refused (id {})",
                    self.limit,
                    id.as_deref().unwrap_or("unknown")
                ));
                self.discarding = true;
                data = &data[room..];
                continue;
            }
            let take = newline.map_or(data.len(), |p| p + 1);
            self.keep_head(&data[..seg_end]);
            self.out.extend_from_slice(&data[..take]);
            if newline.is_some() {
                self.line_len = 0;
                self.head.clear();
            } else {
                self.line_len += take;
            }
            data = &data[take..];
        }
    }

    fn keep_head(&mut self, bytes: &[u8]) {
        let room = HEAD_KEEP.saturating_sub(self.head.len());
        self.head.extend_from_slice(&bytes[..bytes.len().min(room)]);
    }
}

impl<R: tokio::io::AsyncRead + Unpin> tokio::io::AsyncRead for LineLimit<R> {
    fn poll_read(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        use std::task::Poll;
        let this = self.get_mut();
        loop {
            if this.out_pos < this.out.len() {
                let n = buf.remaining().min(this.out.len() - this.out_pos);
                buf.put_slice(&this.out[this.out_pos..this.out_pos + n]);
                this.out_pos += n;
                if this.out_pos == this.out.len() {
                    this.out.clear();
                    this.out_pos = 0;
                }
                return Poll::Ready(Ok(()));
            }
            let mut chunk = [0u8; 16 * 1024];
            let mut rb = tokio::io::ReadBuf::new(&mut chunk);
            match std::pin::Pin::new(&mut this.inner).poll_read(cx, &mut rb) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Ready(Ok(())) if rb.filled().is_empty() => return Poll::Ready(Ok(())),
                Poll::Ready(Ok(())) => {
                    let filled = rb.filled().to_vec();
                    this.feed(&filled);
                }
            }
        }
    }
}

/// The raw JSON of the top-level `"id"` of a (possibly cut) JSON-RPC line, when it is a
/// string or an integer.
fn request_id(head: &[u8]) -> Option<String> {
    let mut depth = 0usize;
    let mut i = 0usize;
    while i < head.len() {
        match head[i] {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            b'"' => {
                let start = i;
                i += 1;
                while i < head.len() && head[i] != b'"' {
                    i += if head[i] == b'\\' { 2 } else { 1 };
                }
                let is_id = depth == 1 && head.get(start..i) == Some(&b"\"id"[..]);
                let value = head
                    .get(i + 1..)
                    .map(<[u8]>::trim_ascii_start)
                    .and_then(|r| r.strip_prefix(b":"));
                if let (true, Some(rest)) = (is_id, value) {
                    return id_token(rest.trim_ascii_start());
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The JSON token at the start of `rest`, when it is a string or an integer.
fn id_token(rest: &[u8]) -> Option<String> {
    let token_len = if rest.first() == Some(&b'"') {
        let mut k = 1;
        while k < rest.len() && rest[k] != b'"' {
            k += if rest[k] == b'\\' { 2 } else { 1 };
        }
        k + 1
    } else {
        rest.iter()
            .position(|b| !(b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E')))
            .unwrap_or(rest.len())
    };
    let v: Value = serde_json::from_slice(rest.get(..token_len)?).ok()?;
    (v.is_string() || v.is_i64() || v.is_u64()).then(|| v.to_string())
}

/// A JSON value as a JSON object; anything else (which the embedded schemas never are)
/// becomes an empty object rather than a panic.
fn object(v: Value) -> JsonObject {
    match v {
        Value::Object(m) => m,
        _ => JsonObject::new(),
    }
}

/// The tool as `tools/list` shows it.
pub fn tool() -> Tool {
    Tool::new(
        spec::TOOL_NAME,
        spec::DESCRIPTION,
        Arc::new(object(spec::input_schema())),
    )
    .with_raw_output_schema(Arc::new(object(spec::output_schema())))
    .with_annotations(
        ToolAnnotations::with_title("Verified web lookup")
            .read_only(true)
            .destructive(false)
            .open_world(true),
    )
}

/// The server's identity and capabilities, as `initialize` reports them.
pub fn server_config() -> ServerConfig {
    ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
        .with_server_info(Implementation::new("vetch", env!("CARGO_PKG_VERSION")))
        .with_instructions(format!(
            "Call `{}` to fetch a web page. Trust its content only when isError is false; \
             structuredContent is the receipt explaining every attempt.",
            spec::TOOL_NAME
        ))
}

/// The tool call's arguments as a request. Missing (or null) arguments are an empty object,
/// which the input parser answers with "missing required field `url`"; arguments that are
/// not an object are answered with what was expected. The arguments are a bare
/// tool input: a Strands-style `toolUseId`/`input` wrapper is not unwrapped here, so those
/// keys are reported as unknown fields like any other.
pub fn request_from_arguments(arguments: Option<&Value>) -> Request {
    let input = match arguments {
        None | Some(Value::Null) => ToolInput::from_value(&Value::Object(JsonObject::new())),
        Some(v) => ToolInput::from_value(v),
    };
    Request {
        tool_use_id: None,
        input,
    }
}

/// Map a tool result onto MCP's shape.
/// Everything goes through `redactor` here, as the printer does for the other front ends:
/// rmcp writes stdout itself, so this is MCP's choke point.
pub fn call_tool_result(
    result: &ToolResult,
    redactor: &crate::redact::Redactor,
) -> Result<CallToolResult, ErrorData> {
    let Some(receipt) = result.receipt() else {
        // `ToolResult::new` always puts the receipt first; never reached in practice.
        return Err(ErrorData::internal_error(
            "the tool result has no receipt",
            None,
        ));
    };
    let structured = serde_json::to_value(receipt).map_err(|e| {
        ErrorData::internal_error(format!("cannot serialize the receipt: {e}"), None)
    })?;
    let mut structured = structured;
    redactor.redact_json_value(&mut structured);
    strip_controls_json(&mut structured);
    // Both constructors put `structured` as compact JSON text in content[0].
    let mut out = if result.is_success() {
        CallToolResult::structured(structured)
    } else {
        CallToolResult::structured_error(structured)
    };
    // The content window of a success was redacted by the lookup in the context of the
    // whole content; judged again alone, its cut ends could change (see
    // `Printer::tool_result`). A failure line is redacted here like everything else.
    let text = strip_controls(result.text());
    out.content.push(ContentBlock::text(if result.is_success() {
        text.into_owned()
    } else {
        redactor.redact_text(&text)
    }));
    Ok(out)
}

impl Server {
    /// Answer a `tools/call` for `name` with `arguments` (absent, or any JSON value as
    /// sent): a tool result, `isError` for every mistake in the arguments; a protocol error
    /// only for a missing or unknown tool name.
    async fn call(
        &self,
        name: Option<&str>,
        arguments: Option<&Value>,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let _running = CallGuard::new(&self.in_flight);
        let name = match name {
            Some(n) => n,
            None => {
                return Err(ErrorData::invalid_params(
                    format!(
                        "tools/call needs `name` (a string): this server has one tool, {}",
                        spec::TOOL_NAME
                    ),
                    None,
                ))
            }
        };
        if name != spec::TOOL_NAME {
            let name = clip_chars(
                &self.printer.redactor().redact_text(&strip_controls(name)),
                MAX_ECHO_CHARS,
            );
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown tool '{name}'; this server has one tool: {}",
                    spec::TOOL_NAME
                ),
                None,
            ));
        }
        let req = request_from_arguments(arguments);
        // Wait for a slot, then look up: the lookup's deadline starts when it runs. A
        // `notifications/cancelled` for this call ends the wait or stops the lookup; rmcp
        // drops the answer.
        let run = async {
            let _slot = match self.slots.try_acquire() {
                Ok(slot) => Some(slot),
                Err(_) => {
                    if self.engine.settings().verbose() {
                        let id = clip_chars(&context.id.to_string(), MAX_ECHO_CHARS);
                        self.printer.diag(&format!(
                            "mcp: call {id} waits for a free slot ({} calls are running, \
                             [mcp] max_calls_in_flight)",
                            self.max_calls
                        ));
                    }
                    // Never closed; should it be, the call runs without a slot.
                    self.slots.acquire().await.ok()
                }
            };
            self.engine.answer(req).await
        };
        let result = tokio::select! {
            r = run => r,
            _ = context.ct.cancelled() => {
                return Err(ErrorData::internal_error("request cancelled", None));
            }
        };
        call_tool_result(&result, self.printer.redactor())
    }
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        server_config()
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![self.tool.clone()]))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        (name == spec::TOOL_NAME).then(|| self.tool.clone())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = request.arguments.map(Value::Object);
        self.call(Some(&request.name), arguments.as_ref(), &context)
            .await
            .map(CallToolResponse::from)
    }

    /// rmcp hands over a `tools/call` whose params do not fit its typed shape (arguments
    /// that are not an object, such as a JSON-encoded string, or a `name` that is not a
    /// string) as a custom request. Such a call still gets a tool result with `isError` and
    /// a text naming what was wrong, as a well-formed call with bad arguments does.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        if request.method == TOO_LARGE_METHOD {
            return Err(ErrorData::new(
                ErrorCode::INVALID_REQUEST,
                format!(
                    "request too large: the line is longer than {MAX_REQUEST_LINE} bytes, \
                     the most this server reads"
                ),
                None,
            ));
        }
        if request.method != "tools/call" {
            return Err(ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                format!(
                    "method not found: {}",
                    clip_chars(
                        &self
                            .printer
                            .redactor()
                            .redact_text(&strip_controls(&request.method)),
                        MAX_ECHO_CHARS
                    )
                ),
                None,
            ));
        }
        let params = request.params.unwrap_or(Value::Null);
        let name = params.get("name").and_then(Value::as_str);
        let mut result = self.call(name, params.get("arguments"), &context).await?;
        // Typed results get `resultType` only on 2026-07-28+ sessions; do the same here.
        let modern = context
            .protocol_version()
            .is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
        if !modern {
            result.result_type = None;
        }
        serde_json::to_value(result)
            .map(CustomResult::new)
            .map_err(|e| {
                ErrorData::internal_error(format!("cannot serialize the result: {e}"), None)
            })
    }
}

/// How a session ended when vetch itself did not fail. Both end the process with 0, as at
/// the end of stdin: a client that broke the protocol has been answered, and its problem
/// is said on stderr.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionEnd {
    /// End of stdin (or cancelled): a clean stop.
    Closed,
    /// The client ended the session badly (no `initialize` first, a failed handshake).
    ClientError(String),
}

/// Serve MCP on stdin/stdout until the client closes stdin.
pub async fn serve(engine: Arc<Engine>, printer: Printer) -> Result<SessionEnd, AppError> {
    let verbose = engine.settings().verbose();
    let limit = engine.settings().deadline() + std::time::Duration::from_secs(5);
    let in_flight = Arc::new(InFlight::default());
    let slots = engine.settings().mcp_max_calls_in_flight().max(1);
    let server = Server {
        engine,
        printer: printer.clone(),
        tool: tool(),
        in_flight: in_flight.clone(),
        slots: Arc::new(tokio::sync::Semaphore::new(slots)),
        max_calls: slots,
    };
    if verbose {
        printer.diag(&format!(
            "mcp: serving '{}' on stdio (vetch {}), at most {slots} calls at once",
            spec::TOOL_NAME,
            env!("CARGO_PKG_VERSION")
        ));
    }
    // Non-blocking pipes when launched by a client (no blocking stdin reader left behind at
    // exit); plain stdio handles on a terminal.
    let (reader, writer) = rmcp::transport::stdio_pipes();
    let report = {
        let printer = printer.clone();
        Arc::new(move |msg: &str| printer.diag(msg)) as Arc<dyn Fn(&str) + Send + Sync>
    };
    let reader = DrainingReader {
        inner: LineLimit::new(reader, MAX_REQUEST_LINE, report),
        in_flight,
        tail: Vec::new(),
        limit,
        waiting: None,
    };
    let running = match server.serve((reader, writer)).await {
        Ok(r) => r,
        // Stdin ended before (or during) the handshake: nothing to serve, not an error.
        Err(ServerInitializeError::ConnectionClosed(_)) => {
            if verbose {
                printer.diag("mcp: stdin closed before initialize");
            }
            return Ok(SessionEnd::Closed);
        }
        // The initialize request itself was answered with an error (e.g. no common
        // protocol version); the client has been told, and the session is over.
        Err(ServerInitializeError::InitializeFailed(e)) => {
            return Ok(SessionEnd::ClientError(format!(
                "mcp: initialize failed: {}",
                e.message
            )));
        }
        Err(ServerInitializeError::ExpectedInitializeRequest(_)) => {
            return Ok(SessionEnd::ClientError(
                "mcp: the client's first message was not an initialize request".to_string(),
            ));
        }
        Err(e) => {
            let why = clip_chars(&e.to_string(), 300);
            return Ok(SessionEnd::ClientError(format!(
                "mcp: the session could not start: {why}"
            )));
        }
    };
    match running.waiting().await {
        Ok(QuitReason::JoinError(e)) | Err(e) => Err(AppError::Internal(format!(
            "mcp: the server task failed: {e}"
        ))),
        // Closed (end of stdin), Cancelled, or a reason a later rmcp adds: a clean stop.
        Ok(_) => {
            if verbose {
                printer.diag("mcp: stdin closed; server stopped");
            }
            Ok(SessionEnd::Closed)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `"tools/call"` is counted once, split across reads or not.
    #[test]
    fn calls_are_counted_across_reads() {
        let line = br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{}}"#;
        let mut stream = Vec::new();
        for _ in 0..3 {
            stream.extend_from_slice(line);
            stream.push(b'\n');
        }
        for size in [1, 2, 5, 7, 13, 64, stream.len()] {
            let mut tail = Vec::new();
            let n: usize = stream.chunks(size).map(|c| count_calls(&mut tail, c)).sum();
            assert_eq!(n, 3, "reads of {size}");
        }
        let mut tail = Vec::new();
        assert_eq!(count_calls(&mut tail, br#"{"method":"tools/list"}"#), 0);
    }
    use crate::model::receipt::Receipt;
    use serde_json::json;

    fn receipt(ok: bool) -> Receipt {
        let mut r = crate::model::receipt::sample_receipt(ok);
        r.content_chars = 4;
        r
    }

    fn texts(r: &CallToolResult) -> Vec<String> {
        r.content
            .iter()
            .map(|c| {
                serde_json::to_value(c).unwrap()["text"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect()
    }

    #[test]
    fn request_id_reads_the_top_level_id() {
        let id = |s: &str| request_id(s.as_bytes());
        assert_eq!(
            id(r#"{"jsonrpc":"2.0","id":7,"method":"x","params":{"#),
            Some("7".into())
        );
        assert_eq!(id(r#"{"id" : "a\"b","method""#), Some(r#""a\"b""#.into()));
        assert_eq!(id(r#"{"params":{"id":3},"id":4"#), Some("4".into()));
        assert_eq!(id(r#"{"method":"x","params":{"id":3,"#), None);
        assert_eq!(id(r#"{"id":1.5}"#), None);
        assert_eq!(id(r#"{"id":"#), None);
        assert_eq!(id(r#"{"method":"id","id":2"#), Some("2".into()));
    }

    #[test]
    fn oversized_lines_become_one_small_line() {
        let said = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
        let s2 = said.clone();
        let mut l = LineLimit::new(
            &b""[..],
            16,
            Arc::new(move |m: &str| s2.lock().unwrap().push(m.to_string())),
        );
        l.feed(b"{\"id\":5,\"method\":\"abcdefghijklmnop");
        l.feed(b"qrstuvwxyz\"}\n{\"ok\":1}\n");
        let out = String::from_utf8(l.out.clone()).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "{\"id\":5,\"method\"!");
        assert!(lines[1].contains("\"id\":5") && lines[1].contains(TOO_LARGE_METHOD));
        assert_eq!(lines[2], "{\"ok\":1}");
        assert_eq!(lines.len(), 3);
        assert_eq!(said.lock().unwrap().len(), 1);
    }

    #[test]
    fn tool_carries_both_schemas() {
        let v = serde_json::to_value(tool()).unwrap();
        assert_eq!(v["name"], spec::TOOL_NAME);
        assert_eq!(v["inputSchema"], spec::input_schema());
        assert_eq!(v["outputSchema"], spec::output_schema());
        assert_eq!(v["annotations"]["readOnlyHint"], true);
    }

    #[test]
    fn server_identifies_as_vetch() {
        let c = server_config();
        assert_eq!(c.server_info.name, "vetch");
        assert_eq!(c.server_info.version, env!("CARGO_PKG_VERSION"));
        assert!(c.capabilities.tools.is_some());
    }

    #[test]
    fn result_mapping_follows_the_status() {
        for ok in [true, false] {
            let tr = ToolResult::new(receipt(ok), "page or failure".into(), None);
            let r = call_tool_result(&tr, &crate::redact::Redactor::new()).unwrap();
            assert_eq!(r.is_error, Some(!ok));
            let structured = r.structured_content.clone().unwrap();
            assert_eq!(structured, serde_json::to_value(receipt(ok)).unwrap());
            let t = texts(&r);
            assert_eq!(t.len(), 2);
            assert_eq!(serde_json::from_str::<Value>(&t[0]).unwrap(), structured);
            assert_eq!(t[1], "page or failure");
        }
    }

    #[test]
    fn arguments_become_requests_with_field_errors() {
        let msg = |a: Option<&Value>| request_from_arguments(a).input.unwrap_err().message;
        assert!(msg(None).contains("`url`"));
        assert!(msg(Some(&Value::Null)).contains("`url`"));
        assert!(msg(Some(&json!("https://example.com/"))).contains("JSON object"));
        assert!(msg(Some(&json!({"url": 5}))).contains("`url`"));
        assert!(msg(Some(&json!({"input": {"url": "https://example.com/"}}))).contains("`input`"));
        let ok = request_from_arguments(Some(&json!({"url": "https://example.com/"})));
        assert_eq!(ok.input.unwrap().url, "https://example.com/");
        assert_eq!(ok.tool_use_id, None);
    }
}
