//! Shared test helpers: an isolated `vetch` command (isolated one way, [`Isolated`]), fixtures,
//! the pages several areas serve, configs that opt into loopback (the one
//! place tests lift the network guard), in-process engines, and the envelope contract check
//! used across the suite.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use serde_json::Value;
use vetch::lookup::Engine;
use vetch::settings::{Overrides, Settings};

/// The `[network]` section every loopback test needs: the guard refuses 127.0.0.1 otherwise.
pub const LOOPBACK_OK: &str = "[network]\nallow_private = true\n";

/// Proxy variables reqwest would honour: a proxy resolves names itself and would bypass the
/// guard and the local servers, so no spawned command inherits one.
const PROXY_VARS: &[&str] = &[
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
    "no_proxy",
];

/// An empty directory that stands in for HOME and XDG_CONFIG_HOME of every spawned
/// command. It lives under cargo's per-target temp dir and is never written to, so
/// no config from the machine running the tests can reach a test.
fn empty_home() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("vetch-isolated-home");
        std::fs::create_dir_all(&dir).expect("create the isolated home");
        assert!(
            !dir.join("vetch").exists() && !dir.join(".config").exists(),
            "{} must stay empty",
            dir.display()
        );
        dir
    })
}

/// A new, empty XDG_CACHE_HOME for one spawned command: the HTTP cache is on by default,
/// and two commands (two tests, or two runs of one URL in a test that counts requests)
/// must never share one unless a test says so by passing the same directory itself.
/// They live under cargo's per-target temp dir; ones older than an hour (earlier runs)
/// are removed the first time a test process asks for one.
pub fn fresh_cache_home() -> PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    static BASE: OnceLock<PathBuf> = OnceLock::new();
    let base = BASE.get_or_init(|| {
        let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join("vetch-isolated-caches");
        std::fs::create_dir_all(&base).expect("create the isolated caches dir");
        let hour = std::time::Duration::from_secs(3600);
        for e in std::fs::read_dir(&base).into_iter().flatten().flatten() {
            let old = e
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|age| age > hour);
            if old {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
        base
    });
    let dir = base.join(format!(
        "{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).expect("create an isolated cache home");
    dir
}

/// The one way a spawned command is isolated from the machine: HOME and XDG_CONFIG_HOME
/// point at an empty directory, XDG_CACHE_HOME at a fresh one of its own
/// ([`fresh_cache_home`]), VETCH_CONFIG is unset (pointed at a
/// directory it would be read as the config file) and no proxy variable is inherited. A test
/// that needs a config passes `--config` or sets one of these itself, after this.
pub trait Isolated {
    fn isolated(&mut self) -> &mut Self;
}

macro_rules! isolate {
    ($c:expr) => {{
        let home = empty_home();
        $c.env("HOME", home)
            .env("XDG_CONFIG_HOME", home)
            .env("XDG_CACHE_HOME", fresh_cache_home())
            .env_remove("VETCH_CONFIG");
        for v in PROXY_VARS {
            $c.env_remove(v);
        }
        $c
    }};
}

impl Isolated for std::process::Command {
    fn isolated(&mut self) -> &mut Self {
        isolate!(self)
    }
}

impl Isolated for assert_cmd::Command {
    fn isolated(&mut self) -> &mut Self {
        isolate!(self)
    }
}

/// The built `vetch` binary.
pub fn vetch_bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("vetch")
}

/// `vetch`, isolated (see [`Isolated`]).
pub fn vetch() -> assert_cmd::Command {
    let mut c = assert_cmd::Command::new(vetch_bin());
    c.isolated();
    c
}

/// `vetch` as a plain `std::process::Command`, isolated, for tests that drive the child's
/// pipes or signals themselves.
pub fn vetch_process() -> std::process::Command {
    let mut c = std::process::Command::new(vetch_bin());
    c.isolated();
    c
}

/// The bytes of `tests/fixtures/REL`.
pub fn fixture(rel: &str) -> Vec<u8> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Every file of `tests/fixtures/DIR` as `(file name, bytes)`, sorted by name.
pub fn fixture_dir(dir: &str) -> Vec<(String, Vec<u8>)> {
    let base = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(dir);
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(&base)
        .unwrap_or_else(|e| panic!("{}: {e}", base.display()))
        .map(|e| {
            let p = e.expect("dir entry").path();
            (
                p.file_name()
                    .expect("file name")
                    .to_string_lossy()
                    .into_owned(),
                std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display())),
            )
        })
        .collect();
    out.sort();
    out
}

/// The pages of `tests/fixtures/<dir>/`, each `<stem>.html` with its `<stem>.expect`:
/// `(stem, page bytes, expect text)`, in name order. A page without its `.expect` fails.
pub fn pages_with_expect(dir: &str) -> Vec<(String, Vec<u8>, String)> {
    let files = fixture_dir(dir);
    files
        .iter()
        .filter_map(|(name, bytes)| {
            let stem = name.strip_suffix(".html")?;
            let expect_name = format!("{stem}.expect");
            let expect = files
                .iter()
                .find(|(n, _)| *n == expect_name)
                .map(|(_, b)| String::from_utf8_lossy(b).into_owned())
                .unwrap_or_else(|| panic!("{name} has no {expect_name}"));
            Some((stem.to_owned(), bytes.clone(), expect))
        })
        .collect()
}

/// A 200 response with `body` as UTF-8 HTML.
pub fn html(body: impl Into<String>) -> wiremock::ResponseTemplate {
    wiremock::ResponseTemplate::new(200)
        .set_body_raw(body.into().into_bytes(), "text/html; charset=utf-8")
}

/// A Cloudflare "Just a moment..." challenge page: what a primary that is blocked serves.
pub const CHALLENGE: &str = r#"<!DOCTYPE html>
<html lang="en-US">
<head>
  <title>Just a moment...</title>
  <meta http-equiv="Content-Type" content="text/html; charset=UTF-8">
  <meta name="robots" content="noindex,nofollow">
</head>
<body>
  <div class="main-wrapper" role="main">
    <div class="main-content">
      <h1 class="zone-name-title h1">www.example.com</h1>
      <h2 class="h2" id="challenge-running">Checking if the site connection is secure</h2>
      <noscript><div class="h2">Enable JavaScript and cookies to continue</div></noscript>
      <div id="challenge-body-text" class="core-msg spacer">www.example.com needs to review
      the security of your connection before proceeding.</div>
    </div>
  </div>
  <script>(function(){window._cf_chl_opt={cvId: '3',cZone: "www.example.com",cType: 'managed'};})();</script>
</body>
</html>
"#;

/// A config file with loopback allowed, then `body`.
pub fn config_file(body: &str) -> tempfile::NamedTempFile {
    raw_config_file(&format!("{LOOPBACK_OK}{body}"))
}

/// A config file exactly as given (no loopback opt-in).
pub fn raw_config_file(text: &str) -> tempfile::NamedTempFile {
    let mut f = tempfile::Builder::new()
        .suffix(".toml")
        .tempfile()
        .expect("temp file");
    f.write_all(text.as_bytes()).expect("write config");
    f.flush().expect("flush config");
    f
}

/// An in-process engine from config text (loopback allowed) and an environment map.
pub fn engine_with_env(body: &str, env: &[(&str, &str)]) -> Engine {
    engine_exact(&format!("{LOOPBACK_OK}{body}"), env)
}

/// An in-process engine from config text exactly as given (the guard as configured).
pub fn engine_exact(text: &str, env: &[(&str, &str)]) -> Engine {
    let owned: Vec<(String, String)> = env
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let lookup = move |name: &str| {
        owned
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    let config = vetch::settings::config::parse(
        text,
        vetch::settings::config::ConfigSource::BuiltIn,
        &lookup,
    )
    .expect("test config parses");
    let settings = Settings::new(config, Overrides::default()).expect("settings");
    Engine::new(Arc::new(settings))
}

pub fn engine(body: &str) -> Engine {
    engine_with_env(body, &[])
}

/// `[[providers]]` tables of kind http, one per name.
pub fn http_providers(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("[[providers]]\nname = \"{n}\"\nkind = \"http\"\n"))
        .collect()
}

/// A page long enough to pass the default `min_chars`, with a title.
pub fn article(title: &str) -> String {
    format!(
        "<!doctype html><html><head><title>{title}</title></head><body><article><h1>{title}</h1>\
         <p>Rust is a language empowering everyone to build reliable and efficient software. \
         This paragraph is real content that a reader came for, and it goes on for a while so \
         that any sensible minimum length is met.</p><p>A second paragraph adds more detail about \
         ownership, borrowing and lifetimes, which together make memory safety possible without \
         a garbage collector.</p></article></body></html>"
    )
}

/// Check the tool result contract on any JSON the binary printed:
/// exactly `status` and `content` (plus `toolUseId` when `tool_use_id_allowed`), status in
/// {success, error}, content non-empty, block 0 a json receipt, every block exactly one of
/// text/json/image, and status success iff the receipt says ok.
pub fn assert_envelope(v: &Value, tool_use_id_allowed: bool) {
    let obj = v
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {v}"));
    for k in obj.keys() {
        let allowed = k == "status" || k == "content" || (tool_use_id_allowed && k == "toolUseId");
        assert!(allowed, "unexpected top-level key {k:?} in {v}");
    }
    let status = obj.get("status").and_then(Value::as_str).expect("status");
    assert!(status == "success" || status == "error", "status {status}");
    let content = obj
        .get("content")
        .and_then(Value::as_array)
        .expect("content array");
    assert!(!content.is_empty(), "empty content");
    for block in content {
        let b = block.as_object().expect("block is an object");
        assert_eq!(b.len(), 1, "block with {} keys: {block}", b.len());
        let key = b.keys().next().expect("one key");
        assert!(
            ["json", "text", "image"].contains(&key.as_str()),
            "block key {key}"
        );
    }
    let receipt = content[0].get("json").expect("block 0 is json");
    assert_eq!(receipt["schema"], "verified_web_lookup.receipt/v1");
    assert_eq!(
        receipt["ok"].as_bool(),
        Some(status == "success"),
        "status vs ok: {v}"
    );
    assert_schema("tool-result", v);
}

/// Validate `v` against one of the published schemas in `schemas/`.
pub fn assert_schema(name: &str, v: &Value) {
    let path = format!("{}/schemas/{name}.json", env!("CARGO_MANIFEST_DIR"));
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(&path).expect("schema file"))
        .expect("schema json");
    let validator = jsonschema::validator_for(&schema).expect("valid schema");
    let errors: Vec<String> = validator.iter_errors(v).map(|e| e.to_string()).collect();
    assert!(
        errors.is_empty(),
        "{name} schema violations: {errors:?}\nin {v}"
    );
}

/// Parse stdout bytes as exactly one JSON value.
pub fn json_out(stdout: &[u8]) -> Value {
    let s = std::str::from_utf8(stdout).expect("utf-8 stdout");
    serde_json::from_str(s.trim())
        .unwrap_or_else(|e| panic!("stdout is not one JSON value ({e}): {s}"))
}

/// Markdown backslash escapes undone as a CommonMark reader undoes them: a backslash before
/// ASCII punctuation stands for that character (`\\` for one backslash, `a\_b` for `a_b`).
pub fn md_unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(&n) = chars.peek().filter(|n| n.is_ascii_punctuation()) {
                out.push(n);
                chars.next();
                continue;
            }
        }
        out.push(c);
    }
    out
}

/// How long a test waits for something that must end before it calls it a hang. A guard
/// against a suite that never finishes, not a speed test: bounds in time are checked by
/// what the receipt says (an attempt `timed out`, a budget cut by the deadline), and speed
/// belongs to the benchmarks.
pub const HANG_GUARD: std::time::Duration = std::time::Duration::from_secs(120);

/// `f()`, run on a thread of its own; the test fails if it has not returned within
/// [`HANG_GUARD`] (a guard against a hang, not a speed test).
pub fn within_hang_guard<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(HANG_GUARD)
        .unwrap_or_else(|e| panic!("no result within the hang guard ({HANG_GUARD:?}): {e}"))
}

/// What a finished `vetch` command printed on stdout, as text.
pub fn stdout_of(out: &assert_cmd::assert::Assert) -> String {
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}

/// What a finished `vetch` command printed on stderr, as text.
pub fn stderr_of(out: &assert_cmd::assert::Assert) -> String {
    String::from_utf8(out.get_output().stderr.clone()).unwrap()
}

/// Hex SHA-256 of `b`, as the receipt writes its hashes.
pub fn sha256_hex(b: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    hex::encode(Sha256::digest(b))
}
