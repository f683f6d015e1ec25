//! Extraction benchmark (not a test): `cargo bench --bench extract`.
//!
//! Builds a realistic long article page of about 1 MB and 5 MB (navigation, many
//! sections of paragraphs with links and inline markup, lists, code blocks, tables,
//! a sidebar and a footer) and times `extract(.., Auto, ..)` on each, and
//! `extract_redacted` (the lookup's path: the page is redacted on the parsed tree before
//! conversion) to show what that pass costs.

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::{Duration, Instant};

use vetch::content::extract::{
    extract, extract_redacted, extract_with_limit, READABILITY_MAX_BYTES,
};
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
             transect</a> at dawn and recorded <strong>surface temperatures</strong>, humidity and wind, \
             then compared them with the <em>satellite</em> readings taken the same morning. Differences \
             above two degrees were flagged for a second visit, and the notes were filed with the \
             <a href=\"https://data.example.org/sets/{i}\">open data portal</a> before noon.</p>"
        );
    }
    out.push_str("<ul>");
    for li in 0..5 {
        let _ = write!(out, "<li>Observation {li}: canopy cover at <a href=\"/sites/{i}-{li}\">site {i}-{li}</a> was lower than expected</li>");
    }
    out.push_str("</ul>");
    if i % 5 == 0 {
        let _ = write!(
            out,
            "<pre><code class=\"language-python\">def mean(xs):\n    total = 0\n    for x in xs:\n        total += x\n    return total / len(xs)  # section {i}\n</code></pre>"
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
    out.push_str("</section>");
}

fn page(target_bytes: usize) -> String {
    let mut out = String::with_capacity(target_bytes + 4096);
    out.push_str(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Field notes | Example Science</title>\
         <script>window.dataLayer=[];function gtag(){dataLayer.push(arguments)}</script></head><body>\
         <div class=\"cookie-banner\">We use cookies. <button>Accept</button></div>\
         <header><nav><ul>",
    );
    for n in 0..30 {
        let _ = write!(out, "<li><a href=\"/topic/{n}\">Topic {n}</a></li>");
    }
    out.push_str("</ul></nav></header><main><article><h1>Field notes from a hot summer</h1>");
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
    out.push_str("</ul></aside><footer><p>© 2024 Example Science. All rights reserved.</p></footer></body></html>");
    out
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// `limit: None` runs `extract_redacted` (default readability limit) instead.
fn bench(label: &str, html: &str, runs: usize, limit: Option<usize>) {
    let redactor = Redactor::new();
    let mut times = Vec::with_capacity(runs);
    let mut out_len = 0;
    for _ in 0..runs {
        let start = Instant::now();
        let base = Some("https://science.example.org/notes");
        let out = match limit {
            Some(limit) => extract_with_limit(
                black_box(html),
                BodyKind::Html,
                ExtractMode::Auto,
                base,
                limit,
            ),
            None => extract_redacted(
                black_box(html),
                BodyKind::Html,
                ExtractMode::Auto,
                base,
                &redactor,
            ),
        };
        times.push(start.elapsed());
        out_len = out.text.len();
    }
    let best = times.iter().min().copied().unwrap_or_default();
    let med = median(times);
    let mb = html.len() as f64 / (1024.0 * 1024.0);
    println!(
        "{label:<34} {:>5.2} MB  median {:>6.1} ms {:>5.1} MB/s  best {:>6.1} ms  (output {} KB, {runs} runs)",
        mb,
        med.as_secs_f64() * 1000.0,
        mb / med.as_secs_f64(),
        best.as_secs_f64() * 1000.0,
        out_len / 1024
    );
}

fn main() {
    let one = page(1024 * 1024);
    let five = page(5 * 1024 * 1024);
    // Warm up (OnceLock converter, allocator).
    let _ = extract(&one, BodyKind::Html, ExtractMode::Auto, None);
    bench(
        "1 MB, auto (readability)",
        &one,
        11,
        Some(READABILITY_MAX_BYTES),
    );
    bench("1 MB, auto + DOM redaction", &one, 11, None);
    bench("1 MB, whole body (no readability)", &one, 11, Some(0));
    bench(
        "5 MB, auto (> 3 MiB: whole body)",
        &five,
        5,
        Some(READABILITY_MAX_BYTES),
    );
    bench("5 MB, auto + DOM redaction", &five, 5, None);
    bench("5 MB, readability forced", &five, 5, Some(usize::MAX));
    // A real page, when the htmd sources (which ship it as an example) are at hand.
    if let Ok(path) = std::env::var("VETCH_BENCH_PAGE") {
        if let Ok(real) = std::fs::read_to_string(&path) {
            bench("real page, auto", &real, 7, Some(READABILITY_MAX_BYTES));
            bench("real page, auto + DOM redaction", &real, 7, None);
        }
    }
}
