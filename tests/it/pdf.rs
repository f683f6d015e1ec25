//! PDF documents through the whole pipeline: fixtures served from a
//! loopback wiremock server, looked up in process and through the four front ends.
//!
//! The fixtures in tests/fixtures/pdf/ are made by scripts/make-pdf-fixtures.py.

use crate::common;

use common::{assert_envelope, config_file, engine, http_providers, json_out, vetch};
use serde_json::{json, Value};
use vetch::lookup::Lookup;
use vetch::model::input::ToolInput;
use vetch::model::receipt::Outcome;
use wiremock::matchers::path;
use wiremock::{Mock, MockServer, ResponseTemplate};

fn fixture(name: &str) -> Vec<u8> {
    crate::common::fixture(&format!("pdf/{name}"))
}

/// A server with every fixture at `/NAME` as `application/pdf`, and `/octet/NAME` as
/// `application/octet-stream`.
async fn server() -> MockServer {
    let server = MockServer::start().await;
    for name in [
        "text.pdf",
        "multipage.pdf",
        "cjk.pdf",
        "encrypted.pdf",
        "encrypted-no-user-password.pdf",
        "image-only.pdf",
        "truncated.pdf",
        "paper.pdf",
        "parser-panic.pdf",
    ] {
        Mock::given(path(format!("/{name}")))
            .respond_with(ResponseTemplate::new(200).set_body_raw(fixture(name), "application/pdf"))
            .mount(&server)
            .await;
        Mock::given(path(format!("/octet/{name}")))
            .respond_with(
                ResponseTemplate::new(200).set_body_raw(fixture(name), "application/octet-stream"),
            )
            .mount(&server)
            .await;
    }
    server
}

async fn look(server: &MockServer, p: &str, extra: &str) -> Lookup {
    let e = engine(&format!("{extra}{}", http_providers(&["direct"])));
    e.lookup(&ToolInput {
        max_chars: Some(100_000),
        ..ToolInput::for_url(format!("{}{p}", server.uri()))
    })
    .await
}

fn one_attempt(l: &Lookup) -> (Outcome, &str) {
    assert_eq!(l.receipt.attempts_log.len(), 1, "{:?}", l.receipt);
    let a = &l.receipt.attempts_log[0];
    (a.outcome, a.detail.as_str())
}

#[tokio::test]
async fn text_pdf_reads_as_paragraphs_with_title_ligatures_and_hyphens_joined() {
    let s = server().await;
    let l = look(&s, "/text.pdf", "").await;
    assert_eq!(
        one_attempt(&l),
        (Outcome::Ok, "usable content"),
        "{}",
        l.text
    );
    assert!(l.receipt.ok);
    assert_eq!(
        l.receipt.title.as_deref(),
        Some("Verified Lookups for Agents")
    );
    assert!(!l.receipt.truncated);
    let t = &l.text;
    assert!(t.contains("for the PDF extraction of vetch"), "{t}");
    assert!(
        t.contains("names the first offline check and the efficient path"),
        "{t}"
    );
    // Two paragraphs (and the heading), separated by blank lines; no page marker on page 1.
    assert!(
        t.contains("the first paragraph.\n\nThe second paragraph"),
        "{t}"
    );
    assert!(!t.contains("--- page"), "{t}");
    assert_eq!(
        l.receipt.content_sha256.as_deref().map(str::len),
        Some(64),
        "hash of the text"
    );
}

#[tokio::test]
async fn multipage_pdf_marks_pages_and_finds_the_phrase_on_page_three() {
    let s = server().await;
    let l = look(&s, "/multipage.pdf", "").await;
    assert_eq!(one_attempt(&l).0, Outcome::Ok, "{}", l.text);
    let t = &l.text;
    for n in 2..=4 {
        assert!(t.contains(&format!("\n\n--- page {n} ---\n\n")), "{t}");
    }
    let phrase = t.find("marmalade lighthouse protocol").expect("phrase");
    let p3 = t.find("--- page 3 ---").expect("page 3");
    let p4 = t.find("--- page 4 ---").expect("page 4");
    assert!(p3 < phrase && phrase < p4, "{t}");
    assert_eq!(l.receipt.title.as_deref(), Some("Four Pages"));
}

#[tokio::test]
async fn page_limit_cuts_and_says_truncated() {
    let s = server().await;
    let l = look(&s, "/multipage.pdf", "[lookup]\nmax_pdf_pages = 2\n").await;
    assert_eq!(one_attempt(&l).0, Outcome::Ok);
    assert!(l.receipt.truncated);
    assert!(l.text.contains("--- page 2 ---"), "{}", l.text);
    assert!(!l.text.contains("--- page 3 ---"), "{}", l.text);
}

#[tokio::test]
async fn must_contain_applies_to_pdf_text() {
    let s = server().await;
    let e = engine(&http_providers(&["direct"]));
    let l = e
        .lookup(&ToolInput {
            must_contain: Some("not in this document".into()),
            ..ToolInput::for_url(format!("{}/multipage.pdf", s.uri()))
        })
        .await;
    let (outcome, detail) = one_attempt(&l);
    assert_eq!(outcome, Outcome::UnusableContent);
    assert!(detail.contains("not in this document"), "{detail}");
}

#[tokio::test]
async fn cjk_and_rtl_text_is_kept() {
    let s = server().await;
    let l = look(&s, "/cjk.pdf", "").await;
    assert_eq!(one_attempt(&l).0, Outcome::Ok, "{}", l.text);
    let t = &l.text;
    assert!(t.contains("可验证的网页查询工具"), "{t}");
    assert!(t.contains("日本語の文書"), "{t}");
    assert!(t.contains("שלום"), "{t}");
    assert!(t.contains("مرحبا"), "{t}");
    assert_eq!(l.receipt.title.as_deref(), Some("多语言文档"));
}

#[tokio::test]
async fn encrypted_pdf_is_unusable() {
    let s = server().await;
    let l = look(&s, "/encrypted.pdf", "").await;
    assert_eq!(one_attempt(&l), (Outcome::UnusableContent, "encrypted PDF"));
    assert!(!l.receipt.ok);
}

#[tokio::test]
async fn owner_password_only_opens_like_a_viewer() {
    let s = server().await;
    let l = look(&s, "/encrypted-no-user-password.pdf", "").await;
    assert_eq!(one_attempt(&l).0, Outcome::Ok, "{}", l.text);
    assert!(
        l.text.contains("for the PDF extraction of vetch"),
        "{}",
        l.text
    );
}

#[tokio::test]
async fn image_only_pdf_has_no_text_layer() {
    let s = server().await;
    let l = look(&s, "/image-only.pdf", "").await;
    assert_eq!(
        one_attempt(&l),
        (Outcome::UnusableContent, "no text layer (scanned PDF?)")
    );
}

#[tokio::test]
async fn truncated_pdf_is_malformed_with_a_short_detail() {
    let s = server().await;
    let l = look(&s, "/truncated.pdf", "").await;
    let (outcome, detail) = one_attempt(&l);
    assert_eq!(outcome, Outcome::MalformedResponse, "{detail}");
    assert!(detail.starts_with("malformed PDF: "), "{detail}");
    assert!(detail.chars().count() <= 200, "{detail}");
}

#[tokio::test]
async fn octet_stream_pdf_is_sniffed() {
    let s = server().await;
    let l = look(&s, "/octet/paper.pdf", "").await;
    assert_eq!(one_attempt(&l).0, Outcome::Ok, "{}", l.text);
    assert!(
        l.text.contains("Honest receipts make failures visible"),
        "{}",
        l.text
    );
}

#[tokio::test]
async fn a_header_after_leading_junk_is_read_as_viewers_do() {
    let s = MockServer::start().await;
    let mut body = b"\xef\xbb\xbfjunk a server put first\n".to_vec();
    body.extend(fixture("paper.pdf"));
    Mock::given(path("/junk.pdf"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(body, "application/pdf"))
        .mount(&s)
        .await;
    let l = look(&s, "/junk.pdf", "").await;
    assert_eq!(one_attempt(&l).0, Outcome::Ok, "{:?}", l.receipt);
    assert!(
        l.text.contains("Honest receipts make failures visible"),
        "{}",
        l.text
    );
}

#[tokio::test]
async fn octet_stream_that_is_not_a_pdf_stays_unsupported() {
    let s = MockServer::start().await;
    Mock::given(path("/blob"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_raw(b"PK\x03\x04 a zip".to_vec(), "application/octet-stream"),
        )
        .mount(&s)
        .await;
    let l = look(&s, "/blob", "").await;
    assert_eq!(
        one_attempt(&l),
        (
            Outcome::UnusableContent,
            "unsupported content type application/octet-stream"
        )
    );
}

#[tokio::test]
async fn pdf_cut_at_the_body_cap_says_so() {
    let s = server().await;
    let size = fixture("cjk.pdf").len();
    let cap = size / 2;
    let l = look(
        &s,
        "/cjk.pdf",
        &format!("[lookup]\nmax_body_bytes = {cap}\n"),
    )
    .await;
    let (outcome, detail) = one_attempt(&l);
    if outcome == Outcome::Ok {
        // The parser recovered the pages it could: a prefix, and the receipt says so.
        assert!(l.receipt.truncated);
    } else {
        assert_eq!(outcome, Outcome::MalformedResponse, "{detail}");
        assert!(
            detail.starts_with(&format!("PDF cut at the body cap ({cap} bytes)")),
            "{detail}"
        );
    }
}

#[tokio::test]
async fn command_stdout_pdf_is_read() {
    // A command provider whose program prints a PDF (no content type at all): the script
    // ignores the URL it is given and prints the fixture.
    let file = format!(
        "{}/tests/fixtures/pdf/paper.pdf",
        env!("CARGO_MANIFEST_DIR")
    );
    let cfg = format!(
        "[[providers]]\nname = \"cmd\"\nkind = \"command\"\nargv = [\"sh\", \"-c\", \"cat \\\"$0\\\"\", \"{file}\", \"{{url}}\"]\n"
    );
    let s = MockServer::start().await;
    let e = engine(&cfg);
    let l = e
        .lookup(&ToolInput::for_url(format!("{}/paper.pdf", s.uri())))
        .await;
    assert_eq!(one_attempt(&l).0, Outcome::Ok, "{:?}", l.receipt);
    assert!(
        l.text.contains("Honest receipts make failures visible"),
        "{}",
        l.text
    );
}

/// A document that made the first PDF parser (pdf-extract 0.12) panic, found by mutation: a
/// `Tf` whose operand is not a font name. It reads, and nothing reaches stderr.
#[tokio::test]
async fn a_document_that_panicked_pdf_extract_reads_and_is_silent() {
    let s = server().await;
    let cfg = config_file(&http_providers(&["direct"]));
    let out = vetch()
        .args(["lookup", "--config"])
        .arg(cfg.path())
        .arg(format!("{}/parser-panic.pdf", s.uri()))
        .assert()
        .code(0);
    let v = json_out(&out.get_output().stdout);
    assert_envelope(&v, false);
    let a = &v["content"][0]["json"]["attempts_log"][0];
    assert_eq!(a["outcome"], "ok", "{v}");
    let text = v["content"][1]["text"].as_str().unwrap_or("");
    assert!(
        text.contains("Honest receipts make failures visible"),
        "{text}"
    );
    let stderr = String::from_utf8_lossy(&out.get_output().stderr);
    assert!(stderr.trim().is_empty(), "stderr: {stderr}");
}

/// The paper-like PDF through `lookup`, `tool`, `batch` and `mcp`.
#[tokio::test]
async fn paper_pdf_through_the_four_front_ends() {
    let s = server().await;
    let url = format!("{}/paper.pdf", s.uri());
    let cfg = config_file(&http_providers(&["direct"]));
    let check = |v: &Value, text: &str| {
        let r = &v["content"][0]["json"];
        assert_eq!(r["ok"], true, "{v}");
        assert_eq!(r["title"], "Honest Receipts for Web Lookups", "{v}");
        assert!(
            text.contains("1 Introduction\n\nRetrieval quality"),
            "{text}"
        );
        assert!(text.contains("--- page 2 ---\n\n2 Method"), "{text}");
    };

    let out = vetch()
        .args(["lookup", "--config"])
        .arg(cfg.path())
        .arg(&url)
        .assert()
        .code(0);
    let v = json_out(&out.get_output().stdout);
    assert_envelope(&v, false);
    check(&v, v["content"][1]["text"].as_str().unwrap_or(""));

    let out = vetch()
        .args(["tool", "--config"])
        .arg(cfg.path())
        .write_stdin(json!({"url": url}).to_string())
        .assert()
        .code(0);
    let v = json_out(&out.get_output().stdout);
    assert_envelope(&v, false);
    check(&v, v["content"][1]["text"].as_str().unwrap_or(""));

    let out = vetch()
        .args(["batch", "--config"])
        .arg(cfg.path())
        .write_stdin(format!("{url}\n"))
        .assert()
        .code(0);
    let v = json_out(&out.get_output().stdout);
    assert_envelope(&v, false);
    check(&v, v["content"][1]["text"].as_str().unwrap_or(""));

    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "vetch-test", "version": "0.0.1"}}});
    let inited = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "verified_web_lookup", "arguments": {"url": url}}});
    let out = vetch()
        .args(["mcp", "--config"])
        .arg(cfg.path())
        .write_stdin(format!("{init}\n{inited}\n{call}\n"))
        .assert()
        .code(0);
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    let resp: Value = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["id"] == 2)
        .unwrap_or_else(|| panic!("no response to the call: {stdout}"));
    let result = &resp["result"];
    assert_eq!(result["isError"], false, "{resp}");
    let receipt = &result["structuredContent"];
    let text = result["content"][1]["text"].as_str().unwrap_or("");
    check(&json!({"content": [{"json": receipt}]}), text);
}

mod hostile {
    //! Documents built to hurt: loops, bombs and mutated bytes end as a failure value
    //! within a bound, never as a panic, a hang or a stack overflow.

    use std::io::Write;
    use std::sync::atomic::AtomicBool;

    use vetch::content::pdf::{extract_pdf, PdfFailure, PdfLimits};

    /// A stream object: `dict` (without `/Length`) and its bytes.
    pub(crate) fn stream(dict: &str, data: &[u8]) -> Vec<u8> {
        let mut o = format!("<< {dict} /Length {} >>\nstream\n", data.len()).into_bytes();
        o.extend_from_slice(data);
        o.extend_from_slice(b"\nendstream");
        o
    }

    /// A PDF of `objects` (object N is `objects[N - 1]`), with a correct cross-reference
    /// table and `/Root 1 0 R`.
    pub(crate) fn build(objects: &[Vec<u8>]) -> Vec<u8> {
        let mut out = b"%PDF-1.5\n".to_vec();
        let mut offsets = Vec::new();
        for (i, o) in objects.iter().enumerate() {
            offsets.push(out.len());
            out.extend_from_slice(format!("{} 0 obj\n", i + 1).as_bytes());
            out.extend_from_slice(o);
            out.extend_from_slice(b"\nendobj\n");
        }
        let xref = out.len();
        out.extend_from_slice(
            format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
        );
        for off in offsets {
            out.extend_from_slice(format!("{off:010} 00000 n \n").as_bytes());
        }
        out.extend_from_slice(
            format!(
                "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
                objects.len() + 1
            )
            .as_bytes(),
        );
        out
    }

    /// One page whose content is `content`; `xobjects` is its XObject dictionary's body
    /// and `extra` are objects 6, 7, ...
    pub(crate) fn one_page(content: &[u8], xobjects: &str, extra: Vec<Vec<u8>>) -> Vec<u8> {
        let mut objs = vec![
            b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
            format!(
                "<< /Type /Page /Parent 2 0 R /Contents 5 0 R /MediaBox [0 0 595 842] \
                 /Resources << /Font << /F1 4 0 R >> /XObject << {xobjects} >> >> >>"
            )
            .into_bytes(),
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_vec(),
            stream("", content),
        ];
        objs.extend(extra);
        build(&objs)
    }

    const HELLO: &[u8] = b"BT /F1 12 Tf 72 700 Td (Hello from a built page) Tj ET";

    fn run(bytes: &[u8], limits: &PdfLimits) -> Result<vetch::content::pdf::PdfText, PdfFailure> {
        extract_pdf(bytes, limits, &AtomicBool::new(false))
    }

    #[test]
    fn a_built_page_reads() {
        let pdf = one_page(HELLO, "", vec![]);
        let t = run(&pdf, &PdfLimits::default()).expect("text");
        assert_eq!(t.text, "Hello from a built page");
        assert_eq!(t.pages, 1);
        assert_eq!(t.title, None);
    }

    #[test]
    fn a_form_that_draws_itself_is_drawn_once_not_a_stack_overflow() {
        // The form has no resources of its own: it inherits the page's, where X0 is itself.
        let form = stream(
            "/Type /XObject /Subtype /Form /BBox [0 0 10 10]",
            b"BT /F1 12 Tf 72 600 Td (inside the form) Tj ET /X0 Do",
        );
        let mut content = HELLO.to_vec();
        content.extend_from_slice(b" /X0 Do");
        let pdf = one_page(&content, "/X0 6 0 R", vec![form]);
        let t = run(&pdf, &PdfLimits::default()).expect("text");
        assert_eq!(t.text.matches("inside the form").count(), 1, "{}", t.text);
        assert!(t.text.contains("Hello from a built page"), "{}", t.text);
    }

    #[test]
    fn a_compression_bomb_is_refused() {
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        z.write_all(&vec![b' '; 4 << 20]).expect("compress");
        let bomb = z.finish().expect("finish");
        // The page's own content is the bomb: nothing else to read.
        let mut objs = vec![
            b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
            b"<< /Type /Page /Parent 2 0 R /Contents 4 0 R /MediaBox [0 0 595 842] >>".to_vec(),
        ];
        objs.push(stream("/Filter /FlateDecode", &bomb));
        let pdf = build(&objs);
        let limits = PdfLimits {
            max_stream_bytes: 1 << 20,
            ..PdfLimits::default()
        };
        match run(&pdf, &limits) {
            Err(PdfFailure::Malformed(d)) => assert!(d.contains("compression bomb"), "{d}"),
            other => panic!("{other:?}"),
        }
        let limits = PdfLimits {
            max_decoded_bytes: 1 << 20,
            ..PdfLimits::default()
        };
        match run(&pdf, &limits) {
            Err(PdfFailure::Malformed(d)) => assert!(d.contains("compression bomb"), "{d}"),
            other => panic!("{other:?}"),
        }
        // Under the default budget the same file decodes (to spaces: no text).
        assert_eq!(
            run(&pdf, &PdfLimits::default()),
            Err(PdfFailure::NoTextLayer)
        );
    }

    #[test]
    fn a_cancelled_extraction_stops() {
        let pdf = one_page(HELLO, "", vec![]);
        let r = extract_pdf(&pdf, &PdfLimits::default(), &AtomicBool::new(true));
        assert_eq!(r, Err(PdfFailure::Cancelled));
    }

    /// Three pages, each with a running header, a footer with its page number, and two
    /// columns drawn row by row (left, right, left, right: the order a naive reader keeps).
    fn report_pages() -> Vec<u8> {
        let left = [
            "The left column starts the argument",
            "and carries it over several lines",
            "until the column ends at the bottom.",
        ];
        let right = [
            "The right column is read second",
            "because a reader finishes the left",
            "column before moving across the page.",
        ];
        let mut objs = vec![
            b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
            b"<< /Type /Pages /Kids [4 0 R 6 0 R 8 0 R] /Count 3 >>".to_vec(),
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_vec(),
        ];
        for n in 1..=3 {
            let mut c = String::from(
                "BT /F1 9 Tf 72 800 Td (Quarterly Report of the Example Society) Tj ET\n",
            );
            for (i, (l, r)) in left.iter().zip(right).enumerate() {
                let y = 700 - 14 * i;
                c.push_str(&format!("BT /F1 11 Tf 72 {y} Td (Page {n}: {l}) Tj ET\n"));
                c.push_str(&format!("BT /F1 11 Tf 320 {y} Td (Page {n}: {r}) Tj ET\n"));
            }
            c.push_str(&format!("BT /F1 9 Tf 290 40 Td (- {n} -) Tj ET\n"));
            let page = objs.len() + 1;
            objs.push(
                format!(
                    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] \
                     /Resources << /Font << /F1 3 0 R >> >> /Contents {} 0 R >>",
                    page + 1
                )
                .into_bytes(),
            );
            objs.push(stream("", c.as_bytes()));
        }
        build(&objs)
    }

    #[test]
    fn two_columns_read_column_by_column_and_running_heads_are_said_once() {
        let t = run(&report_pages(), &PdfLimits::default()).expect("text");
        let text = &t.text;
        assert_eq!(
            text.matches("Quarterly Report of the Example Society")
                .count(),
            1,
            "{text}"
        );
        // The footer (`- 1 -`, digits aside the same on every page) is said once too.
        assert_eq!(
            text.matches("- 1 -").count()
                + text.matches("- 2 -").count()
                + text.matches("- 3 -").count(),
            1,
            "{text}"
        );
        for n in 1..=3 {
            let left_end = text
                .find(&format!("Page {n}: until the column ends at the bottom."))
                .expect("left column");
            let right_start = text
                .find(&format!("Page {n}: The right column is read second"))
                .expect("right column");
            assert!(left_end < right_start, "page {n}: {text}");
        }
    }

    /// The phrase every hostile file carries on a page that is fine (multipage.pdf, which
    /// the encrypted ones are made from, has it on page 3).
    const MARKER: &str = "marmalade lighthouse protocol";

    #[derive(Debug, Clone, Copy, PartialEq)]
    enum End {
        /// Reads, the marker is there, nothing was cut.
        Reads,
        /// Reads, the marker is there, and the receipt will say `truncated`.
        ReadsCut,
        /// Refused as a compression bomb.
        Bomb,
        /// A real user password: `encrypted PDF`.
        NeedsPassword,
    }

    /// How each file of tests/fixtures/pdf/hostile/ (scripts/make-hostile-pdfs.py) ends.
    const HOSTILE: &[(&str, End)] = &[
        ("ascii-chain-bomb.pdf", End::ReadsCut),
        ("deep-nesting.pdf", End::Reads),
        ("encrypted-aes-128.pdf", End::Reads),
        ("encrypted-aes-256-r5.pdf", End::Reads),
        ("encrypted-aes-256.pdf", End::Reads),
        ("encrypted-rc4-128.pdf", End::Reads),
        ("encrypted-rc4-40.pdf", End::Reads),
        ("encrypted-rc4-user-password.pdf", End::NeedsPassword),
        ("flate-chain-bomb.pdf", End::Bomb),
        ("font-range-lie.pdf", End::Reads),
        ("form-fanout.pdf", End::ReadsCut),
        ("form-nest-bomb.pdf", End::ReadsCut),
        ("lzw-bomb.pdf", End::ReadsCut),
        ("objstm-count-lie.pdf", End::Reads),
        ("operator-flood-pages.pdf", End::ReadsCut),
        ("operator-flood.pdf", End::ReadsCut),
        ("page-count-lie.pdf", End::Reads),
        ("page-tree-dag.pdf", End::Reads),
        ("page-tree-loop.pdf", End::Reads),
        ("rle-bomb.pdf", End::Bomb),
        ("xref-missing.pdf", End::Reads),
        ("xref-offsets-shifted.pdf", End::Reads),
        ("xref-size-lie.pdf", End::Reads),
        ("xref-startxref-wrong.pdf", End::Reads),
    ];

    #[test]
    fn the_hostile_set_ends_as_documented() {
        let files = crate::common::fixture_dir("pdf/hostile");
        let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
        let listed: Vec<&str> = HOSTILE.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, listed, "every hostile fixture has its row, in order");
        for ((name, bytes), (_, end)) in files.iter().zip(HOSTILE) {
            // The forty flooded pages would run ten million operators: a smaller document
            // budget shows the budget stopping them (the release figures use the default).
            let limits = if name == "operator-flood-pages.pdf" {
                PdfLimits {
                    max_operators: 1_000_000,
                    ..PdfLimits::default()
                }
            } else {
                PdfLimits::default()
            };
            let r = run(bytes, &limits);
            match (end, &r) {
                (End::Reads | End::ReadsCut, Ok(t)) => {
                    let want = if *name == "operator-flood.pdf" {
                        "aaaa"
                    } else {
                        MARKER
                    };
                    assert!(
                        t.text.contains(want),
                        "{name}: {}",
                        &t.text[..t.text.len().min(300)]
                    );
                    assert_eq!(t.truncated, *end == End::ReadsCut, "{name}");
                }
                (End::Bomb, Err(PdfFailure::Malformed(d))) => {
                    assert!(d.contains("compression bomb"), "{name}: {d}");
                }
                (End::NeedsPassword, Err(PdfFailure::Encrypted)) => {}
                _ => panic!("{name}: expected {end:?}, got {r:?}"),
            }
        }
    }

    #[test]
    fn broken_xref_files_read_every_page() {
        for name in [
            "xref-missing.pdf",
            "xref-offsets-shifted.pdf",
            "xref-startxref-wrong.pdf",
        ] {
            let t = run(
                &crate::common::fixture(&format!("pdf/hostile/{name}")),
                &PdfLimits::default(),
            )
            .expect(name);
            assert!(
                t.text.contains("--- page 2 ---\n\nSecond page."),
                "{name}: {}",
                t.text
            );
        }
    }

    #[test]
    fn empty_password_encryption_reads_every_kind() {
        for name in [
            "encrypted-rc4-40.pdf",
            "encrypted-rc4-128.pdf",
            "encrypted-aes-128.pdf",
            "encrypted-aes-256-r5.pdf",
            "encrypted-aes-256.pdf",
        ] {
            let t = run(
                &crate::common::fixture(&format!("pdf/hostile/{name}")),
                &PdfLimits::default(),
            )
            .expect(name);
            assert_eq!(t.title.as_deref(), Some("Four Pages"), "{name}");
            assert!(t.text.contains("--- page 4 ---"), "{name}: {}", t.text);
        }
    }

    /// A deterministic generator (xorshift64*), so a failure reproduces.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n.max(1) as u64) as usize
        }
    }

    fn mutate(rng: &mut Rng, src: &[u8]) -> Vec<u8> {
        let mut b = src.to_vec();
        match rng.below(4) {
            0 => {
                for _ in 0..1 + rng.below(16) {
                    let i = rng.below(b.len());
                    b[i] ^= 1 << rng.below(8);
                }
            }
            1 => b.truncate(rng.below(b.len())),
            2 => {
                let from = rng.below(b.len());
                let len = rng.below(2048).min(b.len() - from);
                let at = rng.below(b.len());
                let piece = b[from..from + len].to_vec();
                for _ in 0..1 + rng.below(8) {
                    b.splice(at..at, piece.iter().copied());
                }
            }
            _ => {
                // Overwrite a run with PDF syntax that opens and never closes.
                let at = rng.below(b.len());
                let junk: &[u8] = [
                    &b"<<<<[[[[(((("[..],
                    b" 1 0 R",
                    b"/Kids [1 0 R]",
                    b"stream\n",
                ][rng.below(4)];
                let end = (at + junk.len()).min(b.len());
                b.splice(at..end, junk.iter().copied());
            }
        }
        b
    }

    /// Hundreds of mutants of the fixtures (a bounded number, from a fixed seed): each ends
    /// as a value, never as a panic (which `extract_pdf` would catch and call "the reader
    /// failed"), an abort (which would end this test process) or a hang.
    #[test]
    fn mutated_fixtures_end_without_a_panic_or_an_abort() {
        let mut rng = Rng(0x5EED_0F15);
        let mut outcomes = std::collections::BTreeMap::new();
        let sets: [(&str, usize); 10] = [
            ("multipage.pdf", 100),
            ("text.pdf", 100),
            ("cjk.pdf", 100),
            ("paper.pdf", 100),
            ("hostile/encrypted-aes-256.pdf", 40),
            ("hostile/encrypted-rc4-40.pdf", 40),
            ("hostile/xref-missing.pdf", 40),
            ("hostile/page-tree-dag.pdf", 40),
            ("hostile/font-range-lie.pdf", 40),
            ("hostile/lzw-bomb.pdf", 20),
        ];
        for (name, count) in sets {
            let src = super::fixture(name);
            for i in 0..count {
                let bytes = mutate(&mut rng, &src);
                let r =
                    crate::common::within_hang_guard(move || run(&bytes, &PdfLimits::default()));
                let key = match r {
                    Ok(_) => "ok".to_string(),
                    Err(PdfFailure::Malformed(d)) => {
                        assert!(
                            !d.contains("the reader failed"),
                            "{name} mutant {i} panicked"
                        );
                        "malformed".into()
                    }
                    Err(e) => format!("{e:?}"),
                };
                *outcomes.entry(key).or_insert(0) += 1;
            }
        }
        // Both kinds of ending occur, so the mutations reach the reader.
        assert!(outcomes.contains_key("ok"), "{outcomes:?}");
        assert!(outcomes.contains_key("malformed"), "{outcomes:?}");
    }
}
