//! `--warc FILE` (DESIGN §14) through the binary, read back with warcio, a reader vetch did
//! not write (`scripts/warc_read.py`): digests, record ids and their links, payloads byte
//! for byte what the server sent (decoded, for a compressed response), no configured
//! secret anywhere in the file, mode 0600, a cache hit writing nothing, and a batch of 500
//! URLs (1,000 records and a warcinfo, in input order) that `warcio check` accepts.
//!
//! warcio comes from PyPI into a venv under cargo's target dir, made on first use (or set
//! `VETCH_WARCIO_PYTHON` to a Python that has it). Without python3 and its venv module the
//! warcio checks are skipped with a message on stderr, except under `CI=true`, where they
//! must run; the checks that need no reader (gzip members, modes, secrets) always run.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::common;

use common::{article, config_file, http_providers, json_out, sha256_hex, vetch};
use serde_json::Value;
use wiremock::matchers::{path, path_regex};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// The warcio the tests were written against.
const WARCIO: &str = "warcio==1.8.1";

/// A Python that can `import warcio`, or None (the reason said on stderr) when python3 or
/// its venv module is missing. Under `CI=true` a missing Python is a failure, not a skip.
fn warcio_python() -> Option<PathBuf> {
    static PY: OnceLock<Option<PathBuf>> = OnceLock::new();
    PY.get_or_init(|| {
        if let Some(p) = std::env::var_os("VETCH_WARCIO_PYTHON") {
            return Some(PathBuf::from(p));
        }
        let has_warcio = |py: &Path| {
            Command::new(py)
                .args(["-c", "import warcio"])
                .output()
                .is_ok_and(|o| o.status.success())
        };
        let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join("warcio-venv");
        let py = venv.join("bin").join("python");
        // Test processes (nextest runs one per test) make the venv one at a time.
        let _lock = VenvLock::take(&venv.with_extension("lock"));
        if has_warcio(&py) {
            return Some(py);
        }
        let skip = |why: String| -> Option<PathBuf> {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "the WARC checks need warcio under CI: {why}"
            );
            // Past the test harness's capture, so the skip is seen.
            let _ = writeln!(
                std::io::stderr(),
                "warc tests: SKIPPING the warcio checks: {why} (install python3 and its venv \
                 module, or set VETCH_WARCIO_PYTHON to a Python that has warcio)"
            );
            None
        };
        let _ = std::fs::remove_dir_all(&venv);
        match Command::new("python3")
            .args(["-m", "venv"])
            .arg(&venv)
            .output()
        {
            Ok(o) if o.status.success() => {}
            Ok(o) => {
                return skip(format!(
                    "`python3 -m venv` failed: {}",
                    String::from_utf8_lossy(&o.stderr).trim()
                ))
            }
            Err(e) => return skip(format!("no python3: {e}")),
        }
        let pip = Command::new(&py)
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                WARCIO,
            ])
            .output()
            .expect("run pip");
        assert!(
            pip.status.success() && has_warcio(&py),
            "pip install {WARCIO} into {} failed (it needs PyPI; or set VETCH_WARCIO_PYTHON): {}",
            venv.display(),
            String::from_utf8_lossy(&pip.stderr)
        );
        Some(py)
    })
    .clone()
}

/// An exclusive lock on a file, held until dropped (`flock`; no lock off Unix).
struct VenvLock(#[allow(dead_code)] Option<std::fs::File>);

impl VenvLock {
    fn take(path: &Path) -> VenvLock {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .ok();
        #[cfg(unix)]
        if let Some(f) = &file {
            use std::os::fd::AsRawFd;
            // SAFETY: flock on a descriptor this File owns; released when it is closed.
            unsafe {
                libc::flock(f.as_raw_fd(), libc::LOCK_EX);
            }
        }
        VenvLock(file)
    }
}

/// A record as warcio read it.
struct Rec {
    kind: String,
    headers: Vec<(String, String)>,
    http: Option<Value>,
    payload: Vec<u8>,
    passed: Option<bool>,
}

impl Rec {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn http_header(&self, name: &str) -> Option<String> {
        self.http.as_ref()?["headers"]
            .as_array()?
            .iter()
            .find(|h| h[0].as_str().is_some_and(|n| n.eq_ignore_ascii_case(name)))
            .and_then(|h| h[1].as_str().map(str::to_string))
    }

    fn http_header_names(&self) -> Vec<String> {
        let mut v: Vec<String> = self.http.as_ref().map_or(vec![], |h| {
            h["headers"]
                .as_array()
                .unwrap()
                .iter()
                .map(|h| h[0].as_str().unwrap().to_ascii_lowercase())
                .collect()
        });
        v.sort();
        v
    }
}

/// The records of `file` as warcio reads them, or None when warcio is not to be had here.
fn read_with_warcio(file: &Path) -> Option<Vec<Rec>> {
    let py = warcio_python()?;
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/warc_read.py");
    let out = Command::new(&py).arg(script).arg(file).output().unwrap();
    assert!(
        out.status.success(),
        "warc_read.py: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let pair = |x: &Value| {
        (
            x[0].as_str().unwrap().to_string(),
            x[1].as_str().unwrap().to_string(),
        )
    };
    Some(
        v.as_array()
            .unwrap()
            .iter()
            .map(|r| Rec {
                kind: r["type"].as_str().unwrap().to_string(),
                headers: r["headers"].as_array().unwrap().iter().map(pair).collect(),
                http: r["http"].as_object().map(|_| r["http"].clone()),
                payload: hex::decode(r["payload_hex"].as_str().unwrap()).unwrap(),
                passed: r["digest_passed"].as_bool(),
            })
            .collect(),
    )
}

/// `warcio check -v FILE`: its exit code and output.
fn warcio_check(file: &Path) -> Option<(bool, String)> {
    let py = warcio_python()?;
    let out = Command::new(&py)
        .args(["-m", "warcio.cli", "check", "-v"])
        .arg(file)
        .output()
        .unwrap();
    Some((
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    ))
}

/// Each gzip member of `bytes`, decompressed on its own (no Python needed).
fn members(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let mut d = flate2::bufread::GzDecoder::new(rest);
        let mut m = Vec::new();
        d.read_to_end(&mut m).expect("a whole gzip member");
        out.push(m);
        rest = d.into_inner();
    }
    out
}

fn contains(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
}

#[cfg(unix)]
fn mode(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

/// The canary: a configured secret a provider header carries, and a token the caller put in
/// the URL. The server echoes both into response headers (never into the body: bodies are
/// evidence and written as received, which the docs say).
const CANARY: &str = "cAnArY-5ecret-0f-the-0perator-7d1e";
const CALLER_TOKEN: &str = "ghp_0123456789abcdefghijABCDEFGHIJ012345";

struct EchoingServer {
    body: Vec<u8>,
}

impl Respond for EchoingServer {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let got = |n: &str| {
            req.headers
                .get(n)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .to_string()
        };
        ResponseTemplate::new(200)
            .set_body_raw(self.body.clone(), "text/html; charset=utf-8")
            .insert_header("X-Echo-Canary", got("x-canary").as_str())
            .insert_header(
                "Set-Cookie",
                format!("sid={}; Path=/", got("x-canary")).as_str(),
            )
            .insert_header("X-Echo-Query", req.url.query().unwrap_or(""))
    }
}

#[tokio::test]
async fn lookup_writes_a_pair_that_warcio_reads_and_checks() {
    let server = MockServer::start().await;
    let body = article("Evidence page").into_bytes();
    Mock::given(path("/page"))
        .respond_with(EchoingServer { body: body.clone() })
        .expect(1)
        .mount(&server)
        .await;
    let cfg = config_file(
        "[[providers]]\nname = \"direct\"\nkind = \"http\"\n\
         headers = { X-Canary = \"${VETCH_TEST_CANARY}\", Authorization = \"Bearer ${VETCH_TEST_CANARY}\" }\n",
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("out.warc.gz");
    let url = format!("{}/page?token={CALLER_TOKEN}&page=2", server.uri());
    let out = vetch()
        .env("VETCH_TEST_CANARY", CANARY)
        .args(["lookup", "-o", "receipt", "--warc"])
        .arg(&file)
        .arg("--config")
        .arg(cfg.path())
        .arg(&url)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let r = json_out(&out.stdout);
    common::assert_schema("receipt", &r);
    let id = r["warc_record_id"]
        .as_str()
        .expect("the receipt names its record");

    // Without a reader: three members, private, and no secret in any of them.
    let bytes = std::fs::read(&file).unwrap();
    let plain = members(&bytes);
    assert_eq!(plain.len(), 3);
    for m in &plain {
        for secret in [CANARY, CALLER_TOKEN] {
            assert!(
                !contains(m, secret),
                "{secret} in {}",
                String::from_utf8_lossy(m)
            );
        }
    }
    #[cfg(unix)]
    assert_eq!(mode(&file), 0o600);

    let Some(recs) = read_with_warcio(&file) else {
        return;
    };
    let kinds: Vec<&str> = recs.iter().map(|r| r.kind.as_str()).collect();
    assert_eq!(kinds, ["warcinfo", "request", "response"]);
    for rec in &recs {
        assert_eq!(rec.passed, Some(true), "digests of {}", rec.kind);
    }
    let (info, req, res) = (&recs[0], &recs[1], &recs[2]);
    assert!(String::from_utf8_lossy(&info.payload)
        .contains(&format!("software: vetch/{}", env!("CARGO_PKG_VERSION"))));
    let info_id = info.header("WARC-Record-ID").unwrap();
    assert_eq!(res.header("WARC-Record-ID"), Some(id));
    assert_eq!(req.header("WARC-Concurrent-To"), Some(id));
    for rec in [req, res] {
        assert_eq!(rec.header("WARC-Warcinfo-ID"), Some(info_id));
        assert_eq!(rec.header("WARC-Target-URI"), r["final_url"].as_str());
    }
    assert_eq!(res.header("WARC-Date"), r["fetched_at"].as_str());
    assert_eq!(res.header("WARC-IP-Address"), Some("127.0.0.1"));
    // The payload is the body the server sent, byte for byte; for this uncompressed
    // response the receipt's body_sha256 is the payload digest.
    assert_eq!(res.payload, body);
    assert_eq!(
        res.header("WARC-Payload-Digest").unwrap(),
        format!("sha256:{}", r["body_sha256"].as_str().unwrap())
    );
    assert_eq!(r["body_sha256"], sha256_hex(&body).as_str());
    assert_eq!(
        res.http_header("content-length"),
        Some(body.len().to_string())
    );
    assert_eq!(res.http_header("set-cookie").as_deref(), Some("[REDACTED]"));
    // The request record is the request the server received: the same headers (the
    // secret-bearing ones hidden), the caller's token gone from the request line.
    let seen = server.received_requests().await.unwrap();
    let mut names: Vec<String> = seen[0]
        .headers
        .keys()
        .map(|k| k.as_str().to_string())
        .collect();
    names.sort();
    assert_eq!(req.http_header_names(), names);
    assert_eq!(req.http_header("x-canary").as_deref(), Some("[REDACTED]"));
    assert_eq!(
        req.http_header("authorization").as_deref(),
        Some("[REDACTED]")
    );
    let statusline = req.http.as_ref().unwrap()["statusline"].as_str().unwrap();
    assert_eq!(
        statusline, "/page?token=REDACTED&page=2 HTTP/1.1",
        "warcio reads the method as the protocol"
    );
    assert_eq!(req.http.as_ref().unwrap()["protocol"], "GET");
    let (ok, report) = warcio_check(&file).unwrap();
    assert!(ok, "{report}");
}

/// A gzip response: the record holds the body decoded (the documented form), with
/// Content-Encoding gone and Content-Length its decoded size; the digests still hold.
#[tokio::test]
async fn a_gzip_response_is_recorded_decoded() {
    let server = MockServer::start().await;
    let body = article("Compressed evidence").into_bytes();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&body).unwrap();
    Mock::given(path("/gz"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_raw(gz.finish().unwrap(), "text/html")
                .insert_header("Content-Encoding", "gzip"),
        )
        .expect(1)
        .mount(&server)
        .await;
    let cfg = config_file(&http_providers(&["direct"]));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("gz.warc.gz");
    let out = vetch()
        .args(["lookup", "-o", "receipt", "--warc"])
        .arg(&file)
        .arg("--config")
        .arg(cfg.path())
        .arg(format!("{}/gz", server.uri()))
        .output()
        .unwrap();
    let r = json_out(&out.stdout);
    assert_eq!(r["ok"], true, "{r}");
    let Some(recs) = read_with_warcio(&file) else {
        return;
    };
    let res = recs.iter().find(|r| r.kind == "response").unwrap();
    assert_eq!(res.passed, Some(true));
    assert_eq!(res.payload, body);
    assert_eq!(res.http_header("content-encoding"), None);
    assert_eq!(
        res.http_header("content-length"),
        Some(body.len().to_string())
    );
    assert_eq!(
        res.header("WARC-Payload-Digest").unwrap(),
        format!("sha256:{}", r["body_sha256"].as_str().unwrap())
    );
}

/// After a redirect to another host, the request record is the one that host received:
/// the client leaves credentials out of such a hop, and so does the record.
#[tokio::test]
async fn the_request_record_is_what_the_last_hop_received() {
    let first = MockServer::start().await;
    let second = MockServer::start().await;
    Mock::given(path("/from"))
        .respond_with(
            ResponseTemplate::new(302).insert_header("Location", format!("{}/to", second.uri())),
        )
        .expect(1)
        .mount(&first)
        .await;
    Mock::given(path("/to"))
        .respond_with(common::html(article("Landed elsewhere")))
        .expect(1)
        .mount(&second)
        .await;
    let cfg = config_file(
        "[[providers]]\nname = \"direct\"\nkind = \"http\"\n\
         headers = { Authorization = \"Bearer ${VETCH_TEST_CANARY}\", X-Plain = \"kept\" }\n",
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("hop.warc.gz");
    let out = vetch()
        .env("VETCH_TEST_CANARY", CANARY)
        .args(["lookup", "-o", "receipt", "--warc"])
        .arg(&file)
        .arg("--config")
        .arg(cfg.path())
        .arg(format!("{}/from", first.uri()))
        .output()
        .unwrap();
    let r = json_out(&out.stdout);
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(r["final_url"], format!("{}/to", second.uri()).as_str());
    let Some(recs) = read_with_warcio(&file) else {
        return;
    };
    let req = recs.iter().find(|r| r.kind == "request").unwrap();
    let seen = second.received_requests().await.unwrap();
    let mut names: Vec<String> = seen[0]
        .headers
        .keys()
        .map(|k| k.as_str().to_string())
        .collect();
    names.sort();
    assert!(!names.contains(&"authorization".to_string()), "{names:?}");
    assert_eq!(req.http_header_names(), names);
    assert_eq!(req.http_header("x-plain").as_deref(), Some("kept"));
    assert_eq!(req.header("WARC-Target-URI"), r["final_url"].as_str());
}

/// A copy from the cache was not received in this run: the run writes its warcinfo and
/// nothing else, and the receipt names no record. A command provider writes none either.
#[tokio::test]
async fn a_cache_hit_and_a_command_write_no_records() {
    let server = MockServer::start().await;
    Mock::given(path("/once"))
        .respond_with(common::html(article("Fetched once")))
        .expect(1)
        .mount(&server)
        .await;
    let home = tempfile::tempdir().unwrap();
    let cfg = config_file(&http_providers(&["direct"]));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cache.warc.gz");
    let run = |cfg: &Path, url: &str| {
        let out = vetch()
            .env("XDG_CACHE_HOME", home.path())
            .args(["lookup", "-o", "receipt", "--warc"])
            .arg(&file)
            .arg("--config")
            .arg(cfg)
            .arg(url)
            .output()
            .unwrap();
        json_out(&out.stdout)
    };
    let url = format!("{}/once", server.uri());
    let miss = run(cfg.path(), &url);
    assert!(miss["warc_record_id"].is_string(), "{miss}");
    let hit = run(cfg.path(), &url);
    assert_eq!(hit["cache"]["status"], "hit", "{hit}");
    assert!(hit.get("warc_record_id").is_none(), "{hit}");
    let command = config_file(
        "[[providers]]\nname = \"cmd\"\nkind = \"command\"\nargv = [\"sh\", \"-c\", \"printf 'Output of a program with a long enough body of useful text.'\", \"{url}\"]\n",
    );
    let cmd = run(command.path(), "https://example.com/x");
    assert_eq!(cmd["ok"], true, "{cmd}");
    assert!(cmd.get("warc_record_id").is_none(), "{cmd}");
    let kinds: Vec<String> = members(&std::fs::read(&file).unwrap())
        .iter()
        .map(|m| {
            let text = String::from_utf8_lossy(m);
            text.lines().nth(1).unwrap_or("").to_string()
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "WARC-Type: warcinfo",
            "WARC-Type: request",
            "WARC-Type: response",
            "WARC-Type: warcinfo",
            "WARC-Type: warcinfo"
        ]
    );
}

/// A body cut at the cap is recorded as the prefix that was kept, marked
/// `WARC-Truncated: length`; its digest is still the receipt's body_sha256.
#[tokio::test]
async fn a_body_cut_at_the_cap_is_marked_truncated() {
    let server = MockServer::start().await;
    let body = "All work and no play makes a long page. "
        .repeat(200)
        .into_bytes();
    Mock::given(path("/long"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(body.clone(), "text/plain"))
        .expect(1)
        .mount(&server)
        .await;
    let cfg = config_file(&format!(
        "[lookup]\nmax_body_bytes = 1024\n{}",
        http_providers(&["direct"])
    ));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cut.warc.gz");
    let out = vetch()
        .args(["lookup", "-o", "receipt", "--warc"])
        .arg(&file)
        .arg("--config")
        .arg(cfg.path())
        .arg(format!("{}/long", server.uri()))
        .output()
        .unwrap();
    let r = json_out(&out.stdout);
    assert_eq!(
        (r["ok"].as_bool(), r["truncated"].as_bool()),
        (Some(true), Some(true)),
        "{r}"
    );
    assert_eq!(r["body_sha256"], sha256_hex(&body[..1024]).as_str());
    let plain = members(&std::fs::read(&file).unwrap());
    let response = String::from_utf8_lossy(&plain[2]);
    assert!(
        response.contains("WARC-Truncated: length\r\n"),
        "{response}"
    );
    let Some(recs) = read_with_warcio(&file) else {
        return;
    };
    let res = &recs[2];
    assert_eq!(res.passed, Some(true));
    assert_eq!(res.payload, body[..1024]);
    assert_eq!(res.header("WARC-Truncated"), Some("length"));
}

/// A file that cannot be opened is the operator's error: exit 2, nothing looked up.
#[test]
fn a_warc_file_that_cannot_be_opened_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("no/such/dir/out.warc.gz");
    let out = vetch()
        .args(["lookup", "https://example.com/", "--warc"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--warc") && err.contains("cannot open"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}

/// Each page says which line it is, so a payload can be matched to its line.
struct NumberedPages;

impl Respond for NumberedPages {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let n = req.url.query().unwrap_or("");
        ResponseTemplate::new(200).set_body_raw(numbered(n), "text/html; charset=utf-8")
    }
}

fn numbered(n: &str) -> Vec<u8> {
    article(&format!("Page number {n}")).into_bytes()
}

/// 500 URLs through one batch: 1,000 records and a warcinfo, written in input order
/// through the one writer, each line naming its response record; `warcio check` accepts
/// the file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_of_500_writes_1000_records_in_input_order() {
    let server = MockServer::start().await;
    Mock::given(path_regex("^/p$"))
        .respond_with(NumberedPages)
        .expect(500)
        .mount(&server)
        .await;
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("urls.txt");
    let urls: Vec<String> = (0..500)
        .map(|i| format!("{}/p?{i}", server.uri()))
        .collect();
    std::fs::write(&input, urls.join("\n")).unwrap();
    let file = dir.path().join("batch.warc.gz");
    let cfg = config_file(&http_providers(&["direct"]));
    let out = common::within_hang_guard({
        let (input, file, cfg) = (input.clone(), file.clone(), cfg.path().to_path_buf());
        move || {
            vetch()
                .args(["batch", "--warc"])
                .arg(&file)
                .arg("--config")
                .arg(&cfg)
                .arg(&input)
                .output()
                .unwrap()
        }
    });
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 500);
    let ids: Vec<&str> = lines
        .iter()
        .map(|l| l["content"][0]["json"]["warc_record_id"].as_str().unwrap())
        .collect();

    // Without a reader: 1,001 gzip members, a warcinfo then request/response pairs.
    let plain = members(&std::fs::read(&file).unwrap());
    assert_eq!(plain.len(), 1001);
    #[cfg(unix)]
    assert_eq!(mode(&file), 0o600);

    let Some(recs) = read_with_warcio(&file) else {
        return;
    };
    assert_eq!(recs.len(), 1001);
    assert_eq!(recs[0].kind, "warcinfo");
    let info_id = recs[0].header("WARC-Record-ID").unwrap();
    for (i, pair) in recs[1..].chunks(2).enumerate() {
        let (req, res) = (&pair[0], &pair[1]);
        assert_eq!(
            (req.kind.as_str(), res.kind.as_str()),
            ("request", "response")
        );
        assert_eq!(res.header("WARC-Record-ID"), Some(ids[i]), "line {i}");
        assert_eq!(req.header("WARC-Concurrent-To"), Some(ids[i]));
        assert_eq!(res.header("WARC-Target-URI"), Some(urls[i].as_str()));
        assert_eq!(res.header("WARC-Warcinfo-ID"), Some(info_id));
        assert_eq!(res.payload, numbered(&i.to_string()), "line {i}");
        assert_eq!(
            (req.passed, res.passed),
            (Some(true), Some(true)),
            "digests of line {i}"
        );
        let receipt = &lines[i]["content"][0]["json"];
        assert_eq!(
            res.header("WARC-Payload-Digest").unwrap(),
            format!("sha256:{}", receipt["body_sha256"].as_str().unwrap())
        );
    }
    let (ok, report) = warcio_check(&file).unwrap();
    let passes = report.matches("digest pass").count();
    // Past the capture: the figures of the check, for whoever runs the suite.
    let _ = writeln!(
        std::io::stderr(),
        "warcio check -v on a 500-URL batch: exit {}, {} records with \"digest pass\", {} lines",
        if ok { 0 } else { 1 },
        passes,
        report.lines().count()
    );
    assert!(ok, "{report}");
    assert_eq!(passes, 1001, "{report}");
}
