//! Extraction benchmark (not a test): `cargo bench --bench extract`.
//!
//! Builds realistic article pages of about 1 MB and 5 MB, generated deterministically: a
//! head with a script, a cookie banner, a header with navigation, an `<article>` of many
//! sections (paragraphs with links, inline markup, entities and inline code; nested and
//! ordered lists; block quotes; images with and without alt text; fenced code with a
//! language; data tables), a sidebar of related links and a footer. Each page goes through
//! `extract_redacted` with the default [`Redactor`], the lookup's own path, in `auto` and
//! `text` modes; the figure to watch is milliseconds per MB (target: < 30, release build).
//! A 5 MB page is past [`READABILITY_MAX_BYTES`], so it takes the whole-body path.
//!
//! `VETCH_BENCH_PAGE=path` adds a real page of your own.
//!
//! It also times the batch benchmark's page (`scripts/bench-batch.sh`: a 20 KB article of
//! plain paragraphs, the page `examples/bench_server.rs` serves), in `auto`: per-page CPU
//! is what bounds a batch. `VETCH_BENCH_SMALL=N` runs only that page, N times, and prints
//! the time per page: a fixed workload for `perf stat -e instructions:u` and `perf record`.
//! `VETCH_BENCH_BIG=N` does the same with the 1 MB page (`VETCH_BENCH_MB=5`: the 5 MB
//! one; `VETCH_BENCH_MODE=text`: in `text`).

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::{Duration, Instant};

use vetch::content::extract::{extract_redacted, READABILITY_MAX_BYTES};
use vetch::content::markdown::to_markdown;
use vetch::model::kinds::{BodyKind, ExtractMode};
use vetch::redact::Redactor;

fn section(out: &mut String, i: usize) {
    let _ = write!(
        out,
        "<section id=\"s{i}\"><h2>Section {i}: field notes</h2>"
    );
    for p in 0..6 {
        let _ = write!(
            out,
            "<p>Paragraph {p} of section {i}. The survey teams walked the <a href=\"/reports/{i}/{p}\">northern \
             transect</a> at dawn and recorded <strong>surface temperatures</strong>, humidity &amp; wind, \
             then compared them with the <em>satellite</em> readings taken the same morning. Differences \
             above two degrees were flagged for a second visit (see <code>flag_site()</code>), and the notes \
             were filed with the <a href=\"https://data.example.org/sets/{i}\" title=\"Open data\">open data \
             portal</a> before noon&nbsp;&mdash; usually.</p>"
        );
    }
    out.push_str("<ul>");
    for li in 0..5 {
        let _ = write!(
            out,
            "<li>Observation {li}: canopy cover at <a href=\"/sites/{i}-{li}\">site {i}-{li}</a> was lower than expected"
        );
        if li == 2 {
            out.push_str("<ul><li>north slope</li><li>south slope, <em>after</em> rain</li></ul>");
        }
        out.push_str("</li>");
    }
    out.push_str("</ul>");
    if i % 3 == 0 {
        let _ = write!(
            out,
            "<ol start=\"{}\"><li>Calibrate the sensor</li><li>Record the reading</li><li>Upload</li></ol>",
            i + 1
        );
        let _ = write!(
            out,
            "<blockquote><p>Shade is infrastructure, said the planner in section {i}.</p></blockquote>\
             <figure><img src=\"/img/{i}.jpg\" alt=\"Thermal map {i}\"><figcaption>Map {i}</figcaption></figure>\
             <img src=\"/img/spacer.gif\">"
        );
    }
    if i % 5 == 0 {
        let _ = write!(
            out,
            "<div class=\"highlight\"><pre><code class=\"language-python\">def mean(xs):\n    total = 0\n    for x in xs:\n        total += x  # a &lt; b &amp;&amp; c\n    return total / len(xs)  # section {i}\n</code></pre></div>"
        );
    }
    if i % 7 == 0 {
        out.push_str(
            "<table><thead><tr><th>Site</th><th>Surface</th><th>Air</th></tr></thead><tbody>",
        );
        for r in 0..6 {
            let _ = write!(
                out,
                "<tr><td>{i}-{r}</td><td>{}.5</td><td>{}.1</td></tr>",
                40 + r,
                30 + r
            );
        }
        out.push_str("</tbody></table>");
    }
    out.push_str("<div class=\"share\"><a href=\"/share/tw\">Share</a> <a href=\"/share/fb\">Post</a></div></section>");
}

fn page(target_bytes: usize) -> String {
    let mut out = String::with_capacity(target_bytes + 4096);
    out.push_str(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Field notes | Example Science</title>\
         <meta property=\"og:title\" content=\"Field notes from a hot summer\">\
         <style>body{font-family:sans-serif}.sidebar{float:right}</style>\
         <script>window.dataLayer=[];function gtag(){dataLayer.push(arguments)}</script></head><body>\
         <div class=\"cookie-banner\">We use cookies. <button>Accept</button></div>\
         <header><a href=\"/\"><img src=\"/logo.svg\" alt=\"Example Science\"></a><nav><ul>",
    );
    for n in 0..30 {
        let _ = write!(out, "<li><a href=\"/topic/{n}\">Topic {n}</a></li>");
    }
    out.push_str(
        "</ul></nav></header><main><article><h1>Field notes from a hot summer</h1>\
         <p class=\"byline\">By A. Writer, <time datetime=\"2024-07-01\">1 July 2024</time></p>",
    );
    let mut i = 0;
    while out.len() < target_bytes.saturating_sub(3000) {
        section(&mut out, i);
        i += 1;
    }
    out.push_str("</article></main><aside class=\"sidebar\"><h2>Related</h2><ul>");
    for n in 0..20 {
        let _ = write!(
            out,
            "<li><a href=\"/related/{n}\">Related story {n}</a></li>"
        );
    }
    out.push_str(
        "</ul></aside><footer><p>© 2024 Example Science. All rights reserved.</p>\
         <ul><li><a href=\"/privacy\">Privacy</a></li><li><a href=\"/terms\">Terms</a></li></ul>\
         </footer><script>gtag('config','G-1')</script></body></html>",
    );
    out
}

/// The batch benchmark's page (the same as `examples/bench_server.rs` serves).
fn small_page(bytes: usize) -> String {
    let mut s = String::from(
        "<!doctype html><html><head><title>Bench page</title></head><body><article><h1>Bench page</h1>",
    );
    let para = "<p>Benchmark paragraph with ordinary words about fetching pages, judging them and printing receipts for agents.</p>\n";
    while s.len() + para.len() + 30 < bytes {
        s.push_str(para);
    }
    s.push_str("</article></body></html>");
    s
}

/// Extract the batch page `n` times (auto, default redactor); returns the time per page.
fn small_loop(html: &str, n: usize) -> Duration {
    let redactor = Redactor::new();
    let base = Some("http://127.0.0.1:8080/page/1");
    let start = Instant::now();
    for _ in 0..n {
        let out = extract_redacted(
            black_box(html),
            BodyKind::Html,
            ExtractMode::Auto,
            base,
            &redactor,
        );
        black_box(out);
    }
    start.elapsed() / u32::try_from(n.max(1)).unwrap_or(u32::MAX)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn bench(label: &str, html: &str, mode: ExtractMode, runs: usize) {
    let redactor = Redactor::new();
    let base = Some("https://science.example.org/notes/2024/field-notes");
    let mut times = Vec::with_capacity(runs);
    let mut out_len = 0;
    for _ in 0..runs {
        let start = Instant::now();
        let out = extract_redacted(black_box(html), BodyKind::Html, mode, base, &redactor);
        times.push(start.elapsed());
        out_len = out.text.len();
    }
    let best = times.iter().min().copied().unwrap_or_default();
    let med = median(times);
    let mb = html.len() as f64 / (1024.0 * 1024.0);
    let ms = med.as_secs_f64() * 1000.0;
    println!(
        "{label:<22} {mb:>5.2} MB  median {ms:>6.1} ms  {:>5.1} ms/MB  best {:>6.1} ms  (output {} KB, {runs} runs)",
        ms / mb,
        best.as_secs_f64() * 1000.0,
        out_len / 1024
    );
}

fn main() {
    // The binary's allocator settings (see `vetch::frontends::heap`).
    vetch::frontends::heap::tune();
    let small = small_page(20 * 1024);
    if let Some(n) = std::env::var("VETCH_BENCH_SMALL")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    {
        let per = small_loop(&small, n);
        println!(
            "20 KB batch page, auto: {:.3} ms per page ({n} runs)",
            per.as_secs_f64() * 1000.0
        );
        return;
    }
    if let Some(n) = std::env::var("VETCH_BENCH_BIG")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    {
        let mb = std::env::var("VETCH_BENCH_MB")
            .ok()
            .and_then(|v| v.parse::<usize>().ok())
            .unwrap_or(1);
        let mode = match std::env::var("VETCH_BENCH_MODE").as_deref() {
            Ok("text") => ExtractMode::Text,
            _ => ExtractMode::Auto,
        };
        bench(
            &format!("{mb} MB, {mode}"),
            &page(mb * 1024 * 1024),
            mode,
            n,
        );
        return;
    }
    let one = page(1024 * 1024);
    let five = page(5 * 1024 * 1024);
    assert!(one.len() <= READABILITY_MAX_BYTES && five.len() > READABILITY_MAX_BYTES);
    // Warm up (lazily built tables, the allocator).
    let _ = extract_redacted(
        &one,
        BodyKind::Html,
        ExtractMode::Auto,
        None,
        &Redactor::new(),
    );
    bench("1 MB, auto", &one, ExtractMode::Auto, 11);
    bench("1 MB, text", &one, ExtractMode::Text, 11);
    bench("5 MB, auto", &five, ExtractMode::Auto, 5);
    bench("5 MB, text", &five, ExtractMode::Text, 5);
    // The stages a reader of the figures above asks about: parsing alone, and the
    // Markdown writer alone on the parsed body (no readability, no redaction).
    let mut parse = Vec::new();
    let mut write = Vec::new();
    for _ in 0..11 {
        let start = Instant::now();
        let doc = dom_query::Document::from(black_box(one.as_str()));
        parse.push(start.elapsed());
        let body = doc.select("body");
        let start = Instant::now();
        let md = body.nodes().first().map(to_markdown).unwrap_or_default();
        write.push(start.elapsed());
        black_box(md);
    }
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "1 MB, parse alone: median {:.1} ms; Markdown writer alone (whole body): median {:.1} ms",
        ms(median(parse)),
        ms(median(write))
    );
    let _ = small_loop(&small, 50);
    let per: Vec<Duration> = (0..7).map(|_| small_loop(&small, 200)).collect();
    println!(
        "20 KB batch page, auto: median {:.3} ms per page (7 x 200 runs)",
        median(per).as_secs_f64() * 1000.0
    );
    if let Ok(path) = std::env::var("VETCH_BENCH_PAGE") {
        if let Ok(real) = std::fs::read_to_string(&path) {
            bench("real page, auto", &real, ExtractMode::Auto, 7);
            bench("real page, text", &real, ExtractMode::Text, 7);
        }
    }
}
