//! The article's headline on top of the extracted text.
//!
//! Readability renames the article's `<h1>` to `<h2>` and sometimes drops it when it
//! repeats the page title; its own idea of the title comes from `<title>`, which often
//! carries the site's name ("Release 2.0 | Dev Blog"). The page's own `<h1>` is the
//! headline when it is in the selected content or agrees with the `<title>`; the
//! `<title>` itself only goes to the receipt's `title` (and serves as the headline when
//! the page has no usable `<h1>`, as before). Plain text of a page that has a `<title>`
//! gets no headline on top (see `crate::content::extract`): it is the page's body.
//!
//! Must never: panic; it only reads the parsed page and rewrites the first lines.

use dom_query::Document;

use crate::content::find::named_within;

/// A `<h1>` longer than this (collapsed) is not a headline.
const MAX_HEADLINE: usize = 300;

/// The text of the page's headline `<h1>`, read before readability renames it: the first
/// `<h1>` of the body whose text is in the `<title>` (but is not the site's name after the
/// title's last separator), else the first non-empty one outside `<header>`/`<nav>` (a
/// lone `<h1>` in the page header is the site's logo as often as the headline). `None`
/// when there is no such `<h1>`.
pub(crate) fn page_h1(doc: &Document) -> Option<String> {
    // Walks, not `select` (see `crate::content::find`).
    let title = named_within(doc, "head", "title")
        .next()
        .map(|t| collapse(&t.text()))
        .unwrap_or_default();
    let h1s: Vec<_> = named_within(doc, "body", "h1").take(16).collect();
    let mut outside_chrome: Option<String> = None;
    for h1 in &h1s {
        let text = collapse(&h1.text());
        if text.is_empty() || text.chars().count() > MAX_HEADLINE {
            continue;
        }
        if agrees_with_title(&text, &title) {
            return Some(text);
        }
        let in_chrome = h1.ancestors_it(None).any(|a| {
            a.has_name("header")
                || a.has_name("nav")
                || a.attr("role")
                    .is_some_and(|r| r.trim().eq_ignore_ascii_case("banner"))
        });
        if !in_chrome && outside_chrome.is_none() {
            outside_chrome = Some(text);
        }
    }
    outside_chrome
}

/// The `<h1>` text is the `<title>`, or a part of it other than the site's name: "Release
/// 2.0" agrees with "Release 2.0 | Dev Blog", "Dev Blog" does not.
fn agrees_with_title(h1: &str, title: &str) -> bool {
    if title.is_empty() {
        return false;
    }
    let h1 = h1.to_lowercase();
    let title = title.to_lowercase();
    if h1 == title {
        return true;
    }
    if !title.contains(&h1) {
        return false;
    }
    // The part after the last separator is the site's name.
    let site = SEPARATORS
        .iter()
        .filter_map(|sep| title.rfind(sep).map(|i| title[i + sep.len()..].trim()))
        .min_by_key(|rest| rest.len());
    site != Some(h1.as_str())
}

/// Separators between an article's title and its site's name in `<title>`.
const SEPARATORS: &[&str] = &[" | ", " - ", " – ", " — ", " :: ", " · ", " » ", " / "];

/// Put the headline on top of `body` (the rendered selection).
///
/// - The page's `<h1>` (`h1`, from [`page_h1`]) among the first five lines: as a demoted
///   Markdown heading (`## X`) it is promoted to `# X`; otherwise `body` is kept.
/// - Else, when the `<h1>` agrees with `title` (readability's title, from `<title>`), or
///   `title` is empty: `# h1` is put on top.
/// - Else readability's `title` goes on top unless the first five lines contain it (the
///   behaviour before the `<h1>` was looked at).
///
/// `heading` renders a headline as a Markdown level-1 heading, escaped like the body.
pub(crate) fn headline_on_top(
    body: String,
    title: &str,
    h1: Option<&str>,
    text_mode: bool,
    heading: impl Fn(&str) -> String,
) -> String {
    let title = collapse(title);
    let top = |s: &str| {
        if text_mode {
            format!("{s}\n\n{body}")
        } else {
            format!("{}\n\n{body}", heading(s))
        }
    };
    if let Some(h1) = h1.filter(|h| !h.is_empty()) {
        let mut offset = 0;
        for line in body.split_inclusive('\n').take(64) {
            let start = offset;
            offset += line.len();
            if line.trim().is_empty() {
                continue;
            }
            if plain_line(line) == h1 {
                if text_mode || line.starts_with("# ") {
                    return body;
                }
                if line.starts_with('#') {
                    let end = start + line.trim_end_matches(['\n', '\r']).len();
                    let mut out = String::with_capacity(body.len());
                    out.push_str(&body[..start]);
                    out.push_str(&heading(h1));
                    out.push_str(&body[end..]);
                    return out;
                }
                return body;
            }
            if body[..offset]
                .lines()
                .filter(|l| !l.trim().is_empty())
                .count()
                >= 5
            {
                break;
            }
        }
        if title.is_empty() || agrees_with_title(h1, &title) {
            return top(h1);
        }
    }
    let has_title = title.is_empty()
        || body
            .lines()
            .filter(|l| !l.trim().is_empty())
            .take(5)
            .any(|l| l.contains(title.as_str()));
    if has_title {
        body
    } else {
        top(&title)
    }
}

/// A rendered line as plain text: heading marks, link syntax and backslash escapes gone,
/// whitespace collapsed.
fn plain_line(line: &str) -> String {
    collapse(&strip_link_targets(line.trim().trim_start_matches('#')))
}

/// `[text](url)` → `text`, and backslash escapes undone.
fn strip_link_targets(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(i) = rest.find("](") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        match after.find(')') {
            Some(j) => rest = &after[j + 1..],
            None => {
                rest = after;
                break;
            }
        }
    }
    out.push_str(rest);
    let mut plain = String::with_capacity(out.len());
    let mut chars = out.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek().is_some_and(char::is_ascii_punctuation) => {
                if let Some(next) = chars.next() {
                    plain.push(next);
                }
            }
            '[' => {}
            _ => plain.push(c),
        }
    }
    plain
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn md(s: &str) -> String {
        format!("# {s}")
    }

    #[test]
    fn the_page_h1_is_chosen_over_a_logo() {
        let doc = Document::from(
            "<html><head><title>Release 2.0 | Dev Blog</title></head><body>\
             <header><h1>Dev Blog</h1></header><article><h1>Release 2.0</h1></article></body></html>",
        );
        assert_eq!(page_h1(&doc).as_deref(), Some("Release 2.0"));
        let logo_only = Document::from(
            "<html><head><title>Release 2.0 | Dev Blog</title></head><body>\
             <header><h1>Dev Blog</h1></header><article><h2>Release 2.0</h2></article></body></html>",
        );
        assert!(!agrees_with_title("Dev Blog", "Release 2.0 | Dev Blog"));
        assert_eq!(page_h1(&logo_only), None);
        let no_title = Document::from("<body><main><h1>Notes</h1></main></body>");
        assert_eq!(page_h1(&no_title).as_deref(), Some("Notes"));
        assert_eq!(page_h1(&Document::from("<p>x</p>")), None);
    }

    #[test]
    fn a_demoted_h1_is_promoted_not_replaced_by_the_title() {
        let body = "## Release 2.0\n\nText.".to_owned();
        assert_eq!(
            headline_on_top(
                body,
                "Release 2.0 | Dev Blog",
                Some("Release 2.0"),
                false,
                md
            ),
            "# Release 2.0\n\nText."
        );
        let linked = "## [Release\\_2](https://x.example/r)\n\nText.".to_owned();
        assert_eq!(
            headline_on_top(linked, "T", Some("Release_2"), false, md),
            "# Release_2\n\nText."
        );
    }

    #[test]
    fn a_missing_h1_goes_on_top_when_it_agrees_with_the_title() {
        let body = "Text.".to_owned();
        assert_eq!(
            headline_on_top(
                body.clone(),
                "Release 2.0 | Dev Blog",
                Some("Release 2.0"),
                false,
                md
            ),
            "# Release 2.0\n\nText."
        );
        assert_eq!(
            headline_on_top(
                body.clone(),
                "Release 2.0 | Dev Blog",
                Some("Release 2.0"),
                true,
                md
            ),
            "Release 2.0\n\nText."
        );
        // A logo h1 that is the site's name: the title goes on top, as before.
        assert_eq!(
            headline_on_top(body.clone(), "Release notes", Some("Dev Blog"), false, md),
            "# Release notes\n\nText."
        );
        // Already on top: unchanged.
        let top = "# Release 2.0\n\nText.".to_owned();
        assert_eq!(
            headline_on_top(
                top.clone(),
                "Release 2.0 | Dev Blog",
                Some("Release 2.0"),
                false,
                md
            ),
            top
        );
    }
}
