//! `--warc FILE` (DESIGN §14): WARC 1.1 records of what vetch received, appended to a file
//! the operator names, for `lookup` and `batch`.
//!
//! A run opens the file once (created 0600 when missing, always appended to) and writes a
//! `warcinfo` record naming vetch and its version; then, for each lookup whose content came
//! over the network in this run, a `request` and a `response` record, each one gzip member
//! (so the file is a valid `.warc.gz` whatever was appended before, and one record can be
//! read without the others), with SHA-256 `WARC-Block-Digest` and, for the response,
//! `WARC-Payload-Digest` in lowercase hex (so the payload digest reads `sha256:` followed by
//! the receipt's `body_sha256`). A pair is written with one `write` call on a file opened
//! for appending, so pairs of two processes appending to one file do not interleave.
//!
//! What must never happen here: a secret written on the request side or in a header. The
//! exchange was redacted when the lookup made it (with the lookup's own redactor, which
//! also knows the secrets of its URL); here every start line, header and target URI goes
//! through the run's redactor once more, and a header whose name is credential-like has
//! its value replaced whole. Response bodies are written as received: they are the
//! evidence, and the file holds page content as such (the docs say so).
//!
//! Why not the `warc` crate: it writes 1.0 by default, computes no digest, gzips a whole
//! stream rather than one member per record, and brings chrono, nom, uuid 0.8 and libflate
//! into the build; the record format itself is a header block and a body.

use std::io::Write;
use std::path::{Path, PathBuf};

use flate2::write::GzEncoder;
use sha2::{Digest, Sha256};

use crate::fetch::evidence::{rfc3339, Evidence, HttpHead};
use crate::redact::Redactor;

/// The value a credential-like header is written with.
const HIDDEN: &str = "[REDACTED]";

/// An open WARC file for one run.
#[derive(Debug)]
pub struct WarcFile {
    file: std::fs::File,
    path: PathBuf,
    warcinfo_id: String,
    /// A write failed: nothing more is written this run (a record cut in the middle may
    /// end the file; what follows it would not be found).
    broken: bool,
}

/// A request and response record pair, encoded, and the id of its response record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Encoded {
    pub response_id: String,
    pub bytes: Vec<u8>,
}

/// A new `WARC-Record-ID`: `<urn:uuid:…>` with a random (version 4) UUID.
pub fn record_id() -> String {
    let mut b = [0u8; 16];
    if getrandom::fill(&mut b).is_err() {
        // No system randomness (never seen on a supported system): time and a counter
        // still make ids unique within the run.
        use std::sync::atomic::{AtomicU64, Ordering};
        static N: AtomicU64 = AtomicU64::new(0);
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        b[..8].copy_from_slice(&(t as u64).to_le_bytes());
        b[8..].copy_from_slice(&N.fetch_add(1, Ordering::Relaxed).to_le_bytes());
    }
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h = hex::encode(b);
    format!(
        "<urn:uuid:{}-{}-{}-{}-{}>",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

impl WarcFile {
    /// Open `path` for appending (created 0600 when missing) and write this run's
    /// `warcinfo` record; `command` is the subcommand (`lookup`, `batch`). The error is
    /// one line for the operator.
    pub fn open(path: &Path, command: &str) -> Result<WarcFile, String> {
        let mut o = std::fs::OpenOptions::new();
        o.append(true).create(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            o.mode(0o600);
        }
        let file = o
            .open(path)
            .map_err(|e| format!("--warc {}: cannot open: {e}", path.display()))?;
        let mut w = WarcFile {
            file,
            path: path.to_path_buf(),
            warcinfo_id: record_id(),
            broken: false,
        };
        let info = warcinfo(&w.warcinfo_id, command);
        w.file
            .write_all(&info)
            .map_err(|e| format!("--warc {}: cannot write: {e}", path.display()))?;
        Ok(w)
    }

    /// The id of this run's `warcinfo` record (every record of the run refers to it).
    pub fn warcinfo_id(&self) -> &str {
        &self.warcinfo_id
    }

    /// Append an encoded pair; `Ok(false)` when an earlier write failed and nothing is
    /// written any more, `Err` (one line) when this write failed.
    pub fn append(&mut self, pair: &Encoded) -> Result<bool, String> {
        if self.broken {
            return Ok(false);
        }
        match self.file.write_all(&pair.bytes) {
            Ok(()) => Ok(true),
            Err(e) => {
                self.broken = true;
                Err(format!(
                    "--warc {}: cannot write: {e}; no further records are written this run",
                    self.path.display()
                ))
            }
        }
    }
}

/// Write the records of one lookup's evidence (through `redactor`) and return the id of
/// its response record, for the receipt: `Ok(None)` when the file is no longer written to,
/// `Err` (one line for stderr) when this write failed.
pub fn write_evidence(
    warc: &mut WarcFile,
    ev: &Evidence,
    redactor: &Redactor,
) -> Result<Option<String>, String> {
    let pair = encode_pair(ev, warc.warcinfo_id(), redactor);
    Ok(warc.append(&pair)?.then_some(pair.response_id))
}

/// The `warcinfo` record of a run.
fn warcinfo(id: &str, command: &str) -> Vec<u8> {
    let fields = format!(
        "software: vetch/{}\r\n\
         format: WARC File Format 1.1\r\n\
         conformsTo: http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n\
         description: vetch {command}: a request and a response record for each lookup whose content came over the network; response bodies as received (Content-Encoding undone), the request side and all headers redacted\r\n",
        env!("CARGO_PKG_VERSION")
    );
    record(
        &[
            ("WARC-Type", "warcinfo".into()),
            ("WARC-Record-ID", id.into()),
            ("WARC-Date", rfc3339(std::time::SystemTime::now())),
            ("Content-Type", "application/warc-fields".into()),
            ("WARC-Block-Digest", digest(fields.as_bytes())),
        ],
        fields.as_bytes(),
    )
}

/// The request and response records of one attempt: the request record points at the
/// response (`WARC-Concurrent-To`); the receipt names the response.
pub fn encode_pair(ev: &Evidence, warcinfo_id: &str, redactor: &Redactor) -> Encoded {
    let ex = &ev.exchange;
    let target = redactor.redact_url(&ex.target_uri);
    let response_id = record_id();

    // The body is redacted once more, and the head states the length of what follows.
    let request_body = ex.request_body.as_deref().map(|b| redact_body(b, redactor));
    let mut request_block = head_bytes(&ex.request, redactor, request_body.as_ref().map(Vec::len));
    request_block.extend_from_slice(request_body.as_deref().unwrap_or_default());

    let mut response_block = head_bytes(&ex.response, redactor, Some(ev.body.len()));
    response_block.extend_from_slice(&ev.body);

    let mut bytes = record(
        &[
            ("WARC-Type", "request".into()),
            ("WARC-Record-ID", record_id()),
            ("WARC-Warcinfo-ID", warcinfo_id.into()),
            ("WARC-Date", rfc3339(ex.sent_at)),
            ("WARC-Target-URI", target.clone()),
            ("WARC-Concurrent-To", response_id.clone()),
            ("Content-Type", "application/http;msgtype=request".into()),
            ("WARC-Block-Digest", digest(&request_block)),
        ],
        &request_block,
    );
    let mut headers = vec![
        ("WARC-Type", "response".to_string()),
        ("WARC-Record-ID", response_id.clone()),
        ("WARC-Warcinfo-ID", warcinfo_id.into()),
        ("WARC-Date", rfc3339(ex.received_at)),
        ("WARC-Target-URI", target),
    ];
    if let Some(ip) = ex.remote_ip {
        headers.push(("WARC-IP-Address", ip.to_string()));
    }
    headers.extend([
        ("Content-Type", "application/http;msgtype=response".into()),
        ("WARC-Block-Digest", digest(&response_block)),
        ("WARC-Payload-Digest", digest(&ev.body)),
    ]);
    if ev.truncated {
        headers.push(("WARC-Truncated", "length".into()));
    }
    bytes.extend(record(&headers, &response_block));
    Encoded { response_id, bytes }
}

/// `sha256:` and the lowercase hex digest (warcio and jwarc read base16 as well as the
/// base32 used for SHA-1; hex is what the receipt's `body_sha256` is).
fn digest(b: &[u8]) -> String {
    format!("sha256:{}", hex::encode(Sha256::digest(b)))
}

/// A start line and its headers, each redacted once more, then `content-length` when
/// given, and the blank line that ends a head. A credential-like header's value is hidden
/// whole; a `content-length` of the exchange is replaced by `length`.
fn head_bytes(head: &HttpHead, redactor: &Redactor, length: Option<usize>) -> Vec<u8> {
    let mut out = String::new();
    out.push_str(&one_line(&redactor.redact_text(&head.start_line)));
    out.push_str("\r\n");
    for (name, value) in &head.headers {
        if name.eq_ignore_ascii_case("content-length") {
            continue;
        }
        let hidden =
            crate::settings::sensitive_header(name) || name.eq_ignore_ascii_case("set-cookie");
        let value = if hidden {
            HIDDEN.to_string()
        } else {
            let line = redactor.redact_text(&format!("{name}: {value}"));
            match line.split_once(": ") {
                Some((n, v)) if n == name => v.to_string(),
                _ => HIDDEN.to_string(),
            }
        };
        out.push_str(&format!("{name}: {}\r\n", one_line(&value)));
    }
    if let Some(n) = length {
        out.push_str(&format!("content-length: {n}\r\n"));
    }
    out.push_str("\r\n");
    out.into_bytes()
}

/// A request body, redacted once more (JSON as JSON, so it stays valid).
fn redact_body(body: &[u8], redactor: &Redactor) -> Vec<u8> {
    let text = String::from_utf8_lossy(body);
    let redacted = if serde_json::from_str::<serde_json::Value>(&text).is_ok() {
        redactor.redact_json_text(&text)
    } else {
        redactor.redact_text(&text)
    };
    redacted.into_bytes()
}

fn one_line(v: &str) -> String {
    v.replace(['\r', '\n'], " ")
}

/// One record, `WARC/1.1`, its named headers then `Content-Length`, the block and the two
/// line ends that close it, as one gzip member.
fn record(headers: &[(&str, String)], block: &[u8]) -> Vec<u8> {
    let mut plain = Vec::with_capacity(block.len() + 512);
    plain.extend_from_slice(b"WARC/1.1\r\n");
    for (name, value) in headers {
        plain.extend_from_slice(format!("{name}: {}\r\n", one_line(value)).as_bytes());
    }
    plain.extend_from_slice(format!("Content-Length: {}\r\n\r\n", block.len()).as_bytes());
    plain.extend_from_slice(block);
    plain.extend_from_slice(b"\r\n\r\n");
    let mut gz = GzEncoder::new(
        Vec::with_capacity(block.len() / 3 + 256),
        flate2::Compression::default(),
    );
    // Writing to a Vec cannot fail.
    let _ = gz.write_all(&plain);
    gz.finish().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fetch::evidence::Exchange;
    use std::io::Read;
    use std::time::UNIX_EPOCH;

    fn members(bytes: &[u8]) -> Vec<String> {
        // Each member decoded on its own: a reader may start at any record.
        let mut out = Vec::new();
        let mut rest = bytes;
        while !rest.is_empty() {
            let mut d = flate2::bufread::GzDecoder::new(rest);
            let mut s = Vec::new();
            d.read_to_end(&mut s).unwrap();
            out.push(String::from_utf8_lossy(&s).into_owned());
            rest = d.into_inner();
        }
        out
    }

    fn evidence(body: &[u8]) -> Evidence {
        Evidence {
            exchange: Exchange {
                sent_at: UNIX_EPOCH,
                received_at: UNIX_EPOCH,
                target_uri: "https://a.example/p?q=1".into(),
                remote_ip: Some("127.0.0.1".parse().unwrap()),
                request: HttpHead {
                    start_line: "GET /p?q=1 HTTP/1.1".into(),
                    headers: vec![
                        ("host".into(), "a.example".into()),
                        ("x-api-key".into(), "literal-key-from-config".into()),
                    ],
                },
                request_body: None,
                response: HttpHead {
                    start_line: "HTTP/1.1 200 OK".into(),
                    headers: vec![
                        ("content-type".into(), "text/html".into()),
                        ("set-cookie".into(), "sid=abc; Path=/".into()),
                    ],
                },
            },
            body: body.to_vec(),
            truncated: false,
        }
    }

    #[test]
    fn a_pair_is_two_members_with_digests_and_ids() {
        let body = b"<p>hello\r\n\r\nworld</p>";
        let info = record_id();
        let pair = encode_pair(&evidence(body), &info, &Redactor::new());
        let m = members(&pair.bytes);
        assert_eq!(m.len(), 2);
        let (req, res) = (&m[0], &m[1]);
        assert!(
            req.starts_with("WARC/1.1\r\nWARC-Type: request\r\n"),
            "{req}"
        );
        assert!(req.contains(&format!("WARC-Concurrent-To: {}\r\n", pair.response_id)));
        assert!(req.contains(&format!("WARC-Warcinfo-ID: {info}\r\n")));
        assert!(req.contains("x-api-key: [REDACTED]\r\n"), "{req}");
        assert!(res.contains(&format!("WARC-Record-ID: {}\r\n", pair.response_id)));
        assert!(res.contains("WARC-IP-Address: 127.0.0.1\r\n"));
        let payload = format!(
            "WARC-Payload-Digest: sha256:{}\r\n",
            hex::encode(Sha256::digest(body))
        );
        assert!(res.contains(&payload), "{res}");
        assert!(res.contains("set-cookie: [REDACTED]\r\n"), "{res}");
        assert!(res.contains("content-length: 21\r\n\r\n<p>hello"), "{res}");
        assert!(res.ends_with("world</p>\r\n\r\n"));
        assert!(!res.contains("WARC-Truncated"));
        // The block digest is of the block (between the blank line and the two closing
        // line ends) and its length is the record's Content-Length.
        let (head, rest) = res.split_once("\r\n\r\n").unwrap();
        let block = &rest[..rest.len() - 4];
        assert!(head.contains(&format!("Content-Length: {}", block.len())));
        assert!(head.contains(&format!(
            "WARC-Block-Digest: sha256:{}",
            hex::encode(Sha256::digest(block.as_bytes()))
        )));
        let id = regex::Regex::new(
            r"^<urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}>$",
        )
        .unwrap();
        assert!(id.is_match(&pair.response_id), "{}", pair.response_id);
        assert_ne!(record_id(), record_id());
    }

    #[test]
    fn a_cut_body_says_so_and_a_post_body_is_counted_after_redaction() {
        let mut r = Redactor::new();
        r.add_secret("sk-live-0123456789abcdef");
        let mut ev = evidence(b"prefix");
        ev.truncated = true;
        ev.exchange.request.start_line = "POST /v1 HTTP/1.1".into();
        ev.exchange.request_body = Some(br#"{"key":"sk-live-0123456789abcdef"}"#.to_vec());
        ev.exchange
            .request
            .headers
            .push(("content-length".into(), "34".into()));
        let pair = encode_pair(&ev, &record_id(), &r);
        let m = members(&pair.bytes);
        assert!(m[1].contains("WARC-Truncated: length\r\n"));
        assert!(!m[0].contains("sk-live"), "{}", m[0]);
        let block = m[0].split_once("\r\n\r\n").unwrap().1;
        let (head, body) = block[..block.len() - 4].split_once("\r\n\r\n").unwrap();
        assert!(
            head.contains(&format!("content-length: {}", body.len())),
            "{head}"
        );
    }

    #[test]
    fn the_file_is_created_private_and_appended_to() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.warc.gz");
        let mut w = WarcFile::open(&path, "lookup").unwrap();
        let pair = encode_pair(&evidence(b"x"), w.warcinfo_id(), &Redactor::new());
        assert_eq!(w.append(&pair), Ok(true));
        drop(w);
        let w2 = WarcFile::open(&path, "batch").unwrap();
        drop(w2);
        let m = members(&std::fs::read(&path).unwrap());
        let types: Vec<&str> = m.iter().map(|r| r.lines().nth(1).unwrap_or("")).collect();
        assert_eq!(
            types,
            [
                "WARC-Type: warcinfo",
                "WARC-Type: request",
                "WARC-Type: response",
                "WARC-Type: warcinfo"
            ]
        );
        assert!(m[0].contains(&format!("software: vetch/{}", env!("CARGO_PKG_VERSION"))));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600);
        }
        assert!(WarcFile::open(&dir.path().join("no/such/dir"), "lookup").is_err());
    }
}
