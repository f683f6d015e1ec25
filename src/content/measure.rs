//! The judge's measures of text: *symbol runs* (obfuscated JavaScript, base64 blobs,
//! minified CSS: sequences of non-word tokens, [`symbol_runs`]) and *readable* length (the
//! words a person reads, without symbol runs, [`readable_len`]). The detector weighs its
//! markers against them and the judge counts `min_chars` in them. They measure; they never
//! change the text handed out (DESIGN §12).
//!
//! Must never: panic (every slice is taken at a char boundary), or take more than linear
//! time.

/// Consecutive non-word tokens of this many characters or more are a symbol run, which is
/// not counted as readable text.
pub const SYMBOL_RUN: usize = 24;

/// Is this whitespace-free token a word a person reads? Half or more of its characters are
/// letters or digits, and it is not a long ASCII token (over 40 characters) that looks
/// like code or an encoding: one with punctuation (a minified stylesheet, a URL, a JSON
/// blob) or mixing upper case, lower case and digits (base64). A Markdown link
/// (`[text](url)`) is a word; so is a long run of one letter, which is odd but not code.
pub(crate) fn is_word(token: &str) -> bool {
    // The common case, a short ASCII token, in one pass over its bytes: the rule for long
    // ASCII tokens below cannot apply, and for ASCII `is_alphanumeric` is the ASCII test.
    if token.len() <= 40 && token.is_ascii() {
        let alnum = token.bytes().filter(u8::is_ascii_alphanumeric).count();
        return alnum * 2 >= token.len() || token.contains("](");
    }
    if token.contains("](") {
        return true;
    }
    let (mut n, mut alnum) = (0usize, 0usize);
    let (mut upper, mut lower, mut digit, mut punct) = (false, false, false, false);
    for c in token.chars() {
        n += 1;
        if c.is_alphanumeric() {
            alnum += 1;
        }
        upper |= c.is_ascii_uppercase();
        lower |= c.is_ascii_lowercase();
        digit |= c.is_ascii_digit();
        punct |= c.is_ascii_punctuation();
    }
    if n > 40 && token.is_ascii() && (punct || (upper && lower && digit)) {
        return false;
    }
    alnum * 2 >= n
}

/// A cheap necessary condition for [`scan_symbol_runs`] to find
/// a run of `min` characters or more in `text`: `false` means it finds none.
///
/// That scan splits the text into tokens at whitespace (`char::is_whitespace`) and
/// calls a token a non-word only if it has more than 40 characters or fewer than half of
/// its characters are alphanumeric (`char::is_alphanumeric`); a run is a sequence of
/// consecutive non-words (fenced code and fence lines only break runs) of `min`
/// characters together. Here tokens are split at the same whitespace and measured in
/// bytes, every byte of a non-ASCII character counting as not alphanumeric: a token's
/// bytes are at least its characters and its non-alphanumeric bytes at least its
/// non-alphanumeric characters plus its bytes beyond one per character, so every non-word
/// is counted as a possible one (more than 40 bytes, or more than half of its bytes not
/// alphanumeric), the runs counted contain the runs it finds, and one pass over the
/// bytes, with no allocation, decides. Prose has no such runs; obfuscated scripts and
/// base64 blobs do.
pub(crate) fn may_hold_symbol_run(text: &str, min: usize) -> bool {
    // Bytes of the current run of possible non-words; of the current token, its bytes and
    // those not ASCII alphanumeric.
    let mut run = 0usize;
    let (mut bytes, mut other) = (0usize, 0usize);
    let mut end_token = |bytes: usize, other: usize| {
        if bytes == 0 {
            return false;
        }
        if bytes > 40 || other * 2 > bytes {
            run += bytes;
            run >= min
        } else {
            run = 0;
            false
        }
    };
    let raw = text.as_bytes();
    let mut i = 0usize;
    while let Some(&b) = raw.get(i) {
        match BYTE_CLASS[usize::from(b)] {
            ALNUM => {
                bytes += 1;
                i += 1;
            }
            OTHER => {
                bytes += 1;
                other += 1;
                i += 1;
            }
            SPACE => {
                if end_token(bytes, other) {
                    return true;
                }
                (bytes, other) = (0, 0);
                i += 1;
            }
            _ => {
                // Not ASCII. `i` is on a character boundary: it only ever moves by whole
                // characters.
                let Some(c) = text.get(i..).and_then(|rest| rest.chars().next()) else {
                    return true;
                };
                let len = c.len_utf8();
                if c.is_whitespace() {
                    if end_token(bytes, other) {
                        return true;
                    }
                    (bytes, other) = (0, 0);
                } else {
                    bytes += len;
                    other += len;
                }
                i += len;
            }
        }
    }
    end_token(bytes, other)
}

pub(crate) const ALNUM: u8 = 0;

pub(crate) const OTHER: u8 = 1;

pub(crate) const SPACE: u8 = 2;

pub(crate) const NON_ASCII: u8 = 3;

/// [`may_hold_symbol_run`]'s classes of bytes: ASCII letters and digits, ASCII whitespace
/// (what `char::is_whitespace` accepts in ASCII: tab, line feed, vertical tab, form feed,
/// carriage return, space), other ASCII, and bytes of non-ASCII characters.
pub(crate) const BYTE_CLASS: [u8; 256] = {
    let mut table = [NON_ASCII; 256];
    let mut b = 0usize;
    while b < 128 {
        let byte = b as u8;
        table[b] = if byte.is_ascii_alphanumeric() {
            ALNUM
        } else if matches!(byte, b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' ') {
            SPACE
        } else {
            OTHER
        };
        b += 1;
    }
    table
};

/// Byte ranges of the symbol runs in `text`: maximal sequences of consecutive non-word
/// tokens (tokens that are not words) with `min` or more non-space characters together, such as
/// `+((!+[]+(!![])+!![]…` or a base64 blob. Fenced Markdown code blocks (```` ``` ````)
/// are code, not runs.
pub fn symbol_runs(text: &str, min: usize) -> Vec<std::ops::Range<usize>> {
    // Prose (nearly every text) is passed over in one byte scan.
    if !may_hold_symbol_run(text, min) {
        return Vec::new();
    }
    scan_symbol_runs(text, min)
}

/// [`symbol_runs`] without its pre-check.
pub(crate) fn scan_symbol_runs(text: &str, min: usize) -> Vec<std::ops::Range<usize>> {
    let mut runs = Vec::new();
    let mut run: Option<(usize, usize, usize)> = None; // (start, end, chars)
    let mut in_fence = false;
    let mut line_start = 0usize;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = !in_fence;
        }
        if !in_fence && line.is_ascii() {
            ascii_line_runs(line, line_start, min, &mut run, &mut runs);
        } else if !in_fence {
            let mut pos = 0usize;
            for token in line.split(|c: char| c.is_whitespace()) {
                let start = line_start + pos;
                pos += token.len() + 1;
                if token.is_empty() {
                    continue;
                }
                let end = start + token.len();
                if is_word(token) {
                    if let Some((s, e, n)) = run.take() {
                        if n >= min {
                            runs.push(s..e);
                        }
                    }
                } else {
                    let n = token.chars().count();
                    run = Some(match run {
                        Some((s, _, m)) => (s, end, m + n),
                        None => (start, end, n),
                    });
                }
            }
        } else if let Some((s, e, n)) = run.take() {
            if n >= min {
                runs.push(s..e);
            }
        }
        line_start += line.len();
    }
    if let Some((s, e, n)) = run {
        if n >= min {
            runs.push(s..e);
        }
    }
    runs
}

/// [`symbol_runs`] over one line that is all ASCII, in one pass over its bytes: the same
/// tokens (split at every byte `char::is_whitespace` accepts), the same [`is_word`]
/// decisions and the same run bookkeeping as the general loop.
pub(crate) fn ascii_line_runs(
    line: &str,
    line_start: usize,
    min: usize,
    run: &mut Option<(usize, usize, usize)>,
    runs: &mut Vec<std::ops::Range<usize>>,
) {
    let b = line.as_bytes();
    for (tok_start, i, counted) in ascii_tokens(b) {
        let n = i - tok_start;
        let (start, end) = (line_start + tok_start, line_start + i);
        if ascii_is_word(&b[tok_start..i], counted) {
            if let Some((s, e, m)) = run.take() {
                if m >= min {
                    runs.push(s..e);
                }
            }
        } else {
            *run = Some(match *run {
                Some((s, _, m)) => (s, end, m + n),
                None => (start, end, n),
            });
        }
    }
}

/// The tokens of an ASCII line, split at every byte `char::is_whitespace` accepts, in one
/// pass over its bytes: (start, end, alphanumeric bytes) of each non-empty one. The last
/// token ends at the end of the line, as after a separator.
fn ascii_tokens(b: &[u8]) -> impl Iterator<Item = (usize, usize, usize)> + '_ {
    let (mut start, mut alnum) = (0usize, 0usize);
    b.iter()
        .map(|&c| BYTE_CLASS[usize::from(c)])
        .chain([SPACE])
        .enumerate()
        .filter_map(move |(i, class)| {
            if class != SPACE {
                alnum += usize::from(class == ALNUM);
                return None;
            }
            let token = (start, i, std::mem::take(&mut alnum));
            start = i + 1;
            (i > token.0).then_some(token)
        })
}

/// [`is_word`] for an ASCII token whose alphanumeric bytes were counted already.
pub(crate) fn ascii_is_word(token: &[u8], alnum: usize) -> bool {
    let n = token.len();
    let link = || token.windows(2).any(|w| w == b"](");
    if n <= 40 {
        return alnum * 2 >= n || link();
    }
    if link() {
        return true;
    }
    let (mut upper, mut lower, mut digit, mut punct) = (false, false, false, false);
    for &c in token {
        upper |= c.is_ascii_uppercase();
        lower |= c.is_ascii_lowercase();
        digit |= c.is_ascii_digit();
        punct |= c.is_ascii_punctuation();
    }
    if punct || (upper && lower && digit) {
        return false;
    }
    alnum * 2 >= n
}

/// `text` without its symbol runs of `min` characters or more; `None` when it has none.
pub fn strip_symbol_runs(text: &str, min: usize) -> Option<String> {
    let runs = symbol_runs(text, min);
    if runs.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0usize;
    for r in runs {
        out.push_str(text.get(at..r.start).unwrap_or(""));
        at = r.end;
    }
    out.push_str(text.get(at..).unwrap_or(""));
    Some(out)
}

/// Readable characters of `text`: its words, with one space between two, and no symbol
/// runs ([`SYMBOL_RUN`] characters or more; fenced code counts in full). Counting stops at
/// `cap`, so a long page costs only the reading of its first `cap` readable characters.
pub fn readable_len(text: &str, cap: usize) -> usize {
    let mut tally = Tally::default();
    let mut in_fence = false;
    for line in crate::content::tidy::split_newlines(text) {
        let trimmed = line.trim_start();
        let fence_line = trimmed.starts_with("```") || trimmed.starts_with("~~~");
        if fence_line {
            in_fence = !in_fence;
        }
        let words_only = in_fence || fence_line;
        if line.is_ascii() {
            // Nearly every line: the same tokens and the same `is_word` decisions in one
            // pass over the bytes, as in `ascii_line_runs` (a character is a byte).
            let b = line.as_bytes();
            for (start, end, counted) in ascii_tokens(b) {
                let token = &b[start..end];
                let word = words_only || ascii_is_word(token, counted);
                if tally.token(token.len(), word, cap) {
                    return cap;
                }
            }
        } else {
            for token in line.split_whitespace() {
                let word = words_only || is_word(token);
                if tally.token(token.chars().count(), word, cap) {
                    return cap;
                }
            }
        }
    }
    tally.finish().min(cap)
}

/// [`readable_len`]'s count as it reads tokens.
#[derive(Default)]
struct Tally {
    count: usize,
    /// Non-words waiting to be counted: (characters, tokens).
    pending: (usize, usize),
}

impl Tally {
    /// `chars` characters in `tokens` tokens, one space between two and one before them
    /// when something was counted already.
    fn add(&mut self, chars: usize, tokens: usize) {
        if tokens > 0 {
            self.count += chars + tokens - 1 + usize::from(self.count > 0);
        }
    }

    /// One more token of `n` characters; whether the count reached `cap`.
    fn token(&mut self, n: usize, word: bool, cap: usize) -> bool {
        if word {
            let (chars, tokens) = std::mem::take(&mut self.pending);
            if chars < SYMBOL_RUN {
                self.add(chars, tokens);
            }
            self.add(n, 1);
        } else {
            self.pending = (self.pending.0 + n, self.pending.1 + 1);
        }
        self.count >= cap
    }

    fn finish(mut self) -> usize {
        let (chars, tokens) = self.pending;
        if chars < SYMBOL_RUN {
            self.add(chars, tokens);
        }
        self.count
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn symbol_runs_are_found_in_scripts_not_in_prose() {
        let jschl = "+((!+[]+(!![])+!![]+!![]+[])+(+!![]))/+((!+[]+!![]+[])+(!+[]+!![]))";
        assert!(may_hold_symbol_run(&jschl.repeat(2), 80));
        let base64 = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ejAx";
        assert!(may_hold_symbol_run(&format!("{base64}{base64}"), 80));
        assert!(!may_hold_symbol_run(&"The river rose overnight and the ferry stayed in port until noon, when the harbour master judged the current safe again. ".repeat(20), 80));
        assert!(!may_hold_symbol_run(
            "Prices rose 3% — from $10 to $10.30 (see § 4, “Costs”) — and fell again.",
            80
        ));
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 2000,
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        /// `false` from the pre-check means the real search finds nothing.
        #[test]
        fn the_symbol_run_check_is_a_necessary_condition(
            text in "([a-zA-Z0-9]{1,12}|[+!()\\[\\]{};=/*&%$#@^|~<>-]{1,12}|[ \t\n\u{a0}\u{2009}\u{3000}]{1,3}|[éü中ж]{1,4}|```|\\]\\(|[A-Za-z0-9+/]{30,60}){0,40}",
            min in prop::sample::select(vec![8usize, 24, 80]),
        ) {
            if !may_hold_symbol_run(&text, min) {
                prop_assert!(scan_symbol_runs(&text, min).is_empty(), "{:?}", text);
            }
        }

        /// The byte-wise reading of ASCII lines counts what the token-wise reading counts
        /// (the general loop, kept here as it was), at every cap.
        #[test]
        fn readable_len_agrees_with_the_token_loop(
            text in "([a-zA-Z0-9]{1,12}|[+!()\\[\\]{};=/*&%$#@^|~<>-]{1,12}|[ \t\n\u{b}\u{c}\r\u{a0}\u{2009}\u{3000}]{1,3}|[éü中ж]{1,4}|```|~~~| {0,3}```\n|\\]\\(|[A-Za-z0-9+/]{30,60}){0,40}",
            cap in prop::sample::select(vec![1usize, 7, 40, 400, usize::MAX]),
        ) {
            prop_assert_eq!(readable_len(&text, cap), token_loop_len(&text, cap), "{:?}", text);
        }
    }

    /// [`readable_len`] as it was before the byte-wise path: every line token by token.
    fn token_loop_len(text: &str, cap: usize) -> usize {
        let mut count = 0usize;
        let mut pending = (0usize, 0usize);
        let mut in_fence = false;
        let add = |count: &mut usize, chars: usize, tokens: usize| {
            if tokens > 0 {
                *count += chars + tokens - 1 + usize::from(*count > 0);
            }
        };
        for line in crate::content::tidy::split_newlines(text) {
            let trimmed = line.trim_start();
            let fence_line = trimmed.starts_with("```") || trimmed.starts_with("~~~");
            if fence_line {
                in_fence = !in_fence;
            }
            for token in line.split_whitespace() {
                let n = token.chars().count();
                if in_fence || fence_line || is_word(token) {
                    if pending.0 < SYMBOL_RUN {
                        add(&mut count, pending.0, pending.1);
                    }
                    pending = (0, 0);
                    add(&mut count, n, 1);
                } else {
                    pending = (pending.0 + n, pending.1 + 1);
                }
                if count >= cap {
                    return cap;
                }
            }
        }
        if pending.0 < SYMBOL_RUN {
            add(&mut count, pending.0, pending.1);
        }
        count.min(cap)
    }

    #[test]
    fn short_ascii_fast_path_agrees_with_the_general_rule() {
        // The general rule, as it was before the fast path.
        fn general(token: &str) -> bool {
            if token.contains("](") {
                return true;
            }
            let n = token.chars().count();
            let alnum = token.chars().filter(|c| c.is_alphanumeric()).count();
            alnum * 2 >= n
        }
        let samples = [
            "word",
            "a",
            "+",
            "+((!+[]",
            "x1",
            "[a](b)",
            "](",
            "--",
            "a-b",
            "!!a",
            "ab!!",
            "e.g.",
            "U.S.A.",
            "12.5",
            "|",
            "$5",
            "don't",
            "[]+",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        ];
        for t in samples {
            assert!(t.len() <= 40);
            assert_eq!(is_word(t), general(t), "{t}");
        }
    }

    /// `symbol_runs` as it was before its ASCII fast path: every line through the
    /// general loop.
    fn symbol_runs_reference(text: &str, min: usize) -> Vec<std::ops::Range<usize>> {
        let mut runs = Vec::new();
        let mut run: Option<(usize, usize, usize)> = None;
        let mut in_fence = false;
        let mut line_start = 0usize;
        for line in text.split_inclusive('\n') {
            let trimmed = line.trim_start();
            if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
                in_fence = !in_fence;
            }
            if !in_fence {
                let mut pos = 0usize;
                for token in line.split(|c: char| c.is_whitespace()) {
                    let start = line_start + pos;
                    pos += token.len() + 1;
                    if token.is_empty() {
                        continue;
                    }
                    let end = start + token.len();
                    if is_word(token) {
                        if let Some((s, e, n)) = run.take() {
                            if n >= min {
                                runs.push(s..e);
                            }
                        }
                    } else {
                        let n = token.chars().count();
                        run = Some(match run {
                            Some((s, _, m)) => (s, end, m + n),
                            None => (start, end, n),
                        });
                    }
                }
            } else if let Some((s, e, n)) = run.take() {
                if n >= min {
                    runs.push(s..e);
                }
            }
            line_start += line.len();
        }
        if let Some((s, e, n)) = run {
            if n >= min {
                runs.push(s..e);
            }
        }
        runs
    }

    /// The ASCII fast path finds exactly the runs of the general loop, on random soups of
    /// words, symbols, long tokens, links, fences and every whitespace byte.
    #[test]
    fn symbol_runs_fast_path_agrees_with_reference() {
        let pieces = [
            "word",
            " ",
            "  ",
            "\n",
            "\t",
            "\r",
            "\u{b}",
            "\u{c}",
            "+((!+[]",
            "!![])",
            "=",
            "[a](http://x.y/z)",
            "](",
            "```",
            "~~~",
            "```js",
            "QUJDREVGR0hJSktMTU5PUFFSU1RVVldY",
            "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopq",
            "aB3",
            "{}",
            ";",
            "x",
            "é",
            "\u{a0}",
            "日本",
            "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
            "a.b-c_d/e",
            "__",
            "--",
            "\u{2003}",
        ];
        let mut seed = 0x1234_5678_9abc_def1u64;
        for len in 0..120 {
            for _ in 0..30 {
                let mut t = String::new();
                for _ in 0..len {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    t.push_str(pieces[(seed % pieces.len() as u64) as usize]);
                }
                for min in [1, 5, SYMBOL_RUN] {
                    assert_eq!(
                        symbol_runs(&t, min),
                        symbol_runs_reference(&t, min),
                        "{t:?} min {min}"
                    );
                }
            }
        }
    }

    #[test]
    fn symbol_runs_are_not_readable() {
        let jschl = "+((!+[]+(!![])+!![]+!![]+[])+(+!![]))";
        assert_eq!(symbol_runs(jschl, SYMBOL_RUN), vec![0..jschl.len()]);
        assert_eq!(readable_len(&jschl.repeat(100), usize::MAX), 0);
        // Short operator tokens between words are no run.
        assert!(symbol_runs("let x = a + b * (c - 1); // sum", SYMBOL_RUN).is_empty());
        assert!(symbol_runs("| 12.5 | 13.1 | 14.0 | 15.2 | 16.9 | 17.4 |", SYMBOL_RUN).is_empty());
        // Long ASCII tokens (base64, minified CSS) are not words; long words in other
        // scripts are.
        let b64 = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5eg==";
        assert_eq!(readable_len(&format!("Blob {b64} end"), usize::MAX), 8);
        // A plain-text body of one repeated letter (the body-cap fault tests) or a hex
        // checksum is odd, but not code: it counts.
        assert_eq!(readable_len(&"x".repeat(1000), usize::MAX), 1000);
        let sha = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
        assert_eq!(readable_len(sha, usize::MAX), 64);
        let ja = "人間であることを確認しています。これには数秒かかる場合があります。";
        assert_eq!(readable_len(ja, usize::MAX), ja.chars().count());
        // Markdown links are words; fenced code is never a run.
        assert!(symbol_runs(
            "- [Home](https://example.com/a/very/long/path/to/the/home/page.html)",
            SYMBOL_RUN
        )
        .is_empty());
        let fenced = format!("Intro text here.\n```js\n{}\n```\nOutro.", jschl.repeat(3));
        assert!(symbol_runs(&fenced, SYMBOL_RUN).is_empty());
        assert_eq!(
            strip_symbol_runs(&format!("a {jschl} b"), SYMBOL_RUN).as_deref(),
            Some("a  b")
        );
    }
}
