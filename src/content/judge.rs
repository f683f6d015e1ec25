//! The usability judgement: is this text something the caller can use?
//!
//! Checks run in a fixed order (issue 2): empty body, then interstitial / challenge / consent
//! wall / script-only page, then no readable text, then `must_contain` (case-insensitive),
//! then `min_chars`. The first that fails decides, and its detail names what decided.
//! "Readable" text leaves out symbol runs (obfuscated script, base64 blobs, minified CSS
//! outside code blocks): they count neither as text nor towards `min_chars` (issue 18).
//! Pure functions: no I/O, no panics.

use crate::model::failure::FailureKind;

/// Judge `text` (what the caller would receive). `raw` is the decoded body and `visible`
/// all of its visible text (for HTML: the whole page, not only the extracted article; else
/// the same as `text`): the interstitial detector weighs its markers against those, since
/// extraction may drop exactly the wall or challenge widget it is looking for.
/// `Err` says which check failed (always an `unusable_content` kind).
pub fn judge(
    raw: &str,
    visible: &str,
    text: &str,
    must_contain: Option<&str>,
    min_chars: usize,
) -> Result<(), FailureKind> {
    let visible = Visible {
        text: visible,
        hidden_content: false,
    };
    judge_page(raw, visible, text, must_contain, min_chars)
}

/// What a person sees of a page, for the detector.
#[derive(Debug, Clone, Copy)]
pub struct Visible<'a> {
    /// The page's visible text (hidden elements left out, all of them).
    pub text: &'a str,
    /// Extraction kept text that markup hides until a script runs
    /// ([`crate::content::extract::Extracted::hidden_content`]): the page does show it to
    /// a reader with JavaScript, so it is no empty script-only shell. It may still be a
    /// challenge or a consent wall: those are judged on what is visible.
    pub hidden_content: bool,
}

/// [`judge`] with what the page shows ([`Visible`]).
pub fn judge_page(
    raw: &str,
    visible: Visible<'_>,
    text: &str,
    must_contain: Option<&str>,
    min_chars: usize,
) -> Result<(), FailureKind> {
    if raw.trim().is_empty() {
        return Err(FailureKind::Empty);
    }
    // A challenge page often extracts to no text at all: name the challenge, not the void.
    if let Some(found) = crate::content::interstitial::detect(raw, visible.text).filter(|f| {
        !(visible.hidden_content && f.kind == crate::content::interstitial::Kind::ScriptOnly)
    }) {
        return Err(found.failure());
    }
    if crate::content::measure::readable_len(text, 1) == 0 {
        return Err(FailureKind::NoReadableText);
    }
    if let Some(needle) = must_contain.filter(|n| !n.is_empty()) {
        if !contains_ignore_case(text, needle) {
            return Err(FailureKind::MissingText(needle.to_string()));
        }
    }
    // The words alone usually settle it, from the first line: only a short text is
    // measured whole (see `words_reach`).
    if !words_reach(text, min_chars) {
        let chars = readable_chars(text);
        if chars < min_chars {
            return Err(FailureKind::TooShort {
                chars,
                min: min_chars,
            });
        }
    }
    Ok(())
}

/// Characters of `text` that count towards `min_chars`: all of them but those in symbol
/// runs (obfuscated script, base64, minified CSS outside code blocks; see
/// [`crate::content::measure::symbol_runs`]).
pub fn readable_chars(text: &str) -> usize {
    let runs = crate::content::measure::symbol_runs(text, crate::content::measure::SYMBOL_RUN);
    let in_runs: usize = runs
        .into_iter()
        .map(|r| text.get(r).map_or(0, |s| s.chars().count()))
        .sum();
    text.chars().count().saturating_sub(in_runs)
}

/// Case-insensitive substring test (Unicode lower-casing on both sides).
/// Whether the words of `text` (its whitespace-separated tokens that `is_word` accepts)
/// have `n` characters or more together, stopping as soon as they do: then
/// [`readable_chars`] is `n` or more too. A symbol run is a sequence of non-word tokens
/// and the whitespace between them (and fenced code holds none), so no word is in a run,
/// and the characters outside the runs include every word's.
fn words_reach(text: &str, n: usize) -> bool {
    let mut count = 0usize;
    n == 0
        || text
            .split_whitespace()
            .filter(|t| crate::content::measure::is_word(t))
            .any(|t| {
                count += t.chars().count();
                count >= n
            })
}

pub fn contains_ignore_case(haystack: &str, needle: &str) -> bool {
    if needle.is_ascii() {
        let n = needle.as_bytes();
        return n.is_empty()
            || haystack
                .as_bytes()
                .windows(n.len())
                .any(|w| w.eq_ignore_ascii_case(n));
    }
    haystack.to_lowercase().contains(&needle.to_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = "A real article about Rust tooling, long enough to be useful to anyone.";

    #[test]
    fn order_and_details() {
        assert_eq!(judge("", "", "", None, 1), Err(FailureKind::Empty));
        assert_eq!(
            judge("<p> </p>", " ", "  ", None, 1),
            Err(FailureKind::NoReadableText)
        );
        assert_eq!(
            judge(PAGE, PAGE, PAGE, Some("PYTHON"), 1),
            Err(FailureKind::MissingText("PYTHON".into()))
        );
        assert_eq!(judge(PAGE, PAGE, PAGE, Some("RUST tooling"), 1), Ok(()));
        assert_eq!(
            judge(PAGE, PAGE, PAGE, None, 500),
            Err(FailureKind::TooShort {
                chars: PAGE.chars().count(),
                min: 500
            })
        );
        // must_contain is checked before min_chars.
        assert!(matches!(
            judge(PAGE, PAGE, PAGE, Some("zzz"), 500),
            Err(FailureKind::MissingText(_))
        ));
    }

    #[test]
    fn just_a_moment_is_named() {
        let raw = "<html><head><title>Just a moment...</title></head><body>Checking your browser before accessing the site.</body></html>";
        assert_eq!(
            judge(
                raw,
                "Checking your browser before accessing the site.",
                "",
                None,
                1
            ),
            Err(FailureKind::Page {
                kind: crate::model::failure::PageKind::Interstitial,
                marker: "just a moment".into()
            })
        );
    }

    #[test]
    fn symbol_runs_are_not_readable_text() {
        let junk = "+((!+[]+(!![])+!![]+!![]+[])+(+!![]))/+((!+[]+!![]+[])+(!+[]+!![]))";
        assert_eq!(
            judge(junk, junk, junk, None, 1),
            Err(FailureKind::NoReadableText)
        );
        // min_chars counts what a person reads, not the escapes beside it.
        let text = format!("Short note. {}", junk.repeat(20));
        assert_eq!(
            judge(&text, &text, &text, None, 40),
            Err(FailureKind::TooShort { chars: 12, min: 40 })
        );
        // Code in a fenced block is content.
        let code = format!("Example:\n```js\n{junk}\n```");
        assert_eq!(judge(&code, &code, &code, None, 40), Ok(()));
        assert_eq!(readable_chars(&code), code.chars().count());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig {
            cases: 2000,
            failure_persistence: None,
            ..proptest::prelude::ProptestConfig::default()
        })]

        /// The words' shortcut never says "long enough" of a text that `readable_chars`
        /// finds too short.
        #[test]
        fn words_are_a_lower_bound_of_readable_chars(
            text in "([a-zA-Z0-9]{1,12}|[+!()\\[\\]{};=/*&%$#@^|~<>-]{1,12}|[ \t\n\u{a0}\u{3000}]{1,3}|[éü中ж]{1,4}|```|~~~|\n```\n|\\]\\(|[A-Za-z0-9+/]{30,60}){0,40}",
            n in 0usize..400,
        ) {
            if words_reach(&text, n) {
                proptest::prop_assert!(readable_chars(&text) >= n, "{:?}", text);
            }
        }
    }

    #[test]
    fn case_insensitive_unicode() {
        assert!(contains_ignore_case("Straße ÉCOLE", "école"));
        assert!(contains_ignore_case("abc", ""));
        assert!(!contains_ignore_case("ab", "abc"));
    }
}
