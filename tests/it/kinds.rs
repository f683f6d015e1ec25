//! Main content of every kind of page (issue 27): articles, forum threads, documentation,
//! product pages, category and search-result listings, Q&A pages, through the whole
//! pipeline (fetch, extract, judge).
//!
//! The fixtures under `tests/fixtures/kinds/` are pages of our own, shaped like the markup
//! of the software that makes such pages (Discourse, XenForo, WooCommerce, Elementor,
//! Sphinx, a Q&A site, a government health page), each with a `.expect` file: lines
//! starting with `+ ` are the page's content, each of which must be in the text (whitespace
//! collapsed), and lines starting with `- ` are chrome that must not be. Lines starting with
//! `~ ` are content vetch does not keep yet: reported, not required. A line starting with
//! `= ` is the page's headline: on top of the Markdown, and in plain text (the page's body)
//! the receipt's `title` carries it. The `+` and `~` lines are the reference text
//! `scripts/score-corpus.sh` scores each kind against (the headline is left out, as the
//! other corpora leave the title out).

use vetch::model::input::ToolInput;
use wiremock::matchers::path;
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::common::{engine, http_providers, pages_with_expect};

/// One fixture: its name, its bytes, and what its text must and must not hold.
struct Fixture {
    name: String,
    body: Vec<u8>,
    must: Vec<String>,
    headline: Option<String>,
    must_not: Vec<String>,
    not_yet: Vec<String>,
}

fn fixtures() -> Vec<Fixture> {
    let mut out = Vec::new();
    for (stem, body, expect) in pages_with_expect("kinds") {
        let (mut must, mut must_not, mut not_yet) = (Vec::new(), Vec::new(), Vec::new());
        let mut headline = None;
        for line in expect.lines() {
            if let Some(s) = line.strip_prefix("+ ") {
                must.push(collapse(s));
            } else if let Some(s) = line.strip_prefix("- ") {
                must_not.push(collapse(s));
            } else if let Some(s) = line.strip_prefix("= ") {
                headline = Some(collapse(s));
            } else if let Some(s) = line.strip_prefix("~ ") {
                not_yet.push(collapse(s));
            }
        }
        out.push(Fixture {
            name: format!("{stem}.html"),
            body,
            must,
            headline,
            must_not,
            not_yet,
        });
    }
    out
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

async fn serve(fixtures: &[Fixture]) -> MockServer {
    let server = MockServer::start().await;
    for f in fixtures {
        Mock::given(path(format!("/{}", f.name)))
            .respond_with(
                ResponseTemplate::new(200).set_body_raw(f.body.clone(), "text/html; charset=utf-8"),
            )
            .mount(&server)
            .await;
    }
    server
}

/// Every fixture is usable; in text mode every `+` line is in the text and no `-` line is;
/// in Markdown mode no `-` line is either.
#[tokio::test]
async fn every_kind_of_page_keeps_its_content_and_drops_its_chrome() {
    let fixtures = fixtures();
    assert!(fixtures.len() >= 9, "{} fixtures", fixtures.len());
    let server = serve(&fixtures).await;
    let mut problems = Vec::new();
    for extract in ["text", "markdown"] {
        let e = engine(&format!(
            "[lookup]\nextract = \"{extract}\"\nmax_chars = 100000\n{}",
            http_providers(&["direct"])
        ));
        for f in &fixtures {
            let out = e
                .lookup(&ToolInput::for_url(format!("{}/{}", server.uri(), f.name)))
                .await;
            if !out.receipt.ok {
                problems.push(format!(
                    "{extract} {}: refused: {}",
                    f.name, out.receipt.attempts_log[0].detail
                ));
                continue;
            }
            let text = collapse(&out.text);
            if let Some(h) = &f.headline {
                let title = collapse(out.receipt.title.as_deref().unwrap_or_default());
                let found = if extract == "text" {
                    text.contains(h.as_str()) || title.contains(h.as_str())
                } else {
                    text.contains(h.as_str())
                };
                if !found {
                    problems.push(format!("{extract} {}: lost the headline {h:?}", f.name));
                }
            }
            if extract == "text" {
                for s in f.must.iter().filter(|s| !text.contains(s.as_str())) {
                    problems.push(format!("{extract} {}: lost {s:?}", f.name));
                }
                let missed = f.not_yet.iter().filter(|s| !text.contains(s.as_str()));
                eprintln!("{}: not kept yet: {}", f.name, missed.count());
            }
            for s in f.must_not.iter().filter(|s| text.contains(s.as_str())) {
                problems.push(format!("{extract} {}: kept {s:?}", f.name));
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}
