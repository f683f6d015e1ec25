//! Tidying of written text: runs of blank lines collapsed, line ends trimmed, the ends of
//! the text trimmed, and the Markdown writer's output made compact (tables, redaction
//! markers); code blocks are left byte for byte in both. Also the cheap character counts
//! the pipeline decides with.

/// Characters that are not whitespace, a cheap measure of how much text there is.
pub(crate) fn visible_chars(s: &str) -> usize {
    ascii_chunks(s).map(chunk_visible_chars).sum()
}

/// `visible_chars(s) >= n`, stopping as soon as it is known.
pub(crate) fn has_visible_chars(s: &str, n: usize) -> bool {
    let mut count = 0usize;
    n == 0
        || ascii_chunks(s).any(|chunk| {
            count += chunk_visible_chars(chunk);
            count >= n
        })
}

/// The bytes [`ascii_chunks`] takes at a time (fewer when a character would be cut).
pub(crate) const CHUNK: usize = 64;

/// `s` in pieces of at most [`CHUNK`] bytes, each ending at a character boundary.
pub(crate) fn ascii_chunks(s: &str) -> impl Iterator<Item = &str> {
    let mut rest = s;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let mut end = rest.len().min(CHUNK);
        // A character has at most four bytes, so `end` stays above zero.
        while !rest.is_char_boundary(end) {
            end -= 1;
        }
        let (head, tail) = rest.split_at_checked(end)?;
        rest = tail;
        Some(head)
    })
}

/// [`visible_chars`] of one piece of at most [`CHUNK`] bytes. Most text is ASCII: its
/// whitespace bytes are counted in one branch-free pass with byte-wide counters (which
/// vectorises: a `usize` counter did not, and cost ~7 instructions a byte), no UTF-8
/// decoding; else the piece is decoded. ASCII whitespace for `char::is_whitespace` is
/// 9..=13 and 32.
fn chunk_visible_chars(chunk: &str) -> usize {
    let bytes = chunk.as_bytes();
    let mut high = 0u8;
    let mut blank = 0u8;
    for &b in bytes {
        high |= b;
        blank += u8::from(b == b' ' || b.wrapping_sub(9) < 5);
    }
    if high < 0x80 {
        bytes.len() - usize::from(blank)
    } else {
        chunk.chars().filter(|c| !c.is_whitespace()).count()
    }
}

/// `s.split('\n')`, the line ends found with `memchr` (SIMD): the standard library's
/// search for a `char` reads a word at a time, and a page's Markdown is split into lines
/// more than once.
pub(crate) fn split_newlines(s: &str) -> impl Iterator<Item = &str> {
    let mut start = 0;
    let mut ends = memchr::memchr_iter(b'\n', s.as_bytes());
    let mut done = false;
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        // `\n` is ASCII: every cut is a char boundary.
        match ends.next() {
            Some(end) => {
                let line = s.get(start..end);
                start = end + 1;
                line
            }
            None => {
                done = true;
                s.get(start..)
            }
        }
    })
}

pub(crate) fn collapse_whitespace(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Markdown: outside fenced code blocks, whitespace-only lines become empty and runs of
/// blank lines collapse to one; fenced blocks are kept byte for byte. Ends are trimmed.
/// The redaction marker, put into the page before conversion, comes out of the converter
/// as `\[REDACTED\]`. It reads the same, but the backslashes are noise for a model reading
/// the Markdown as text: undo them, except where the bare brackets could start a link
/// (`[REDACTED](…)`, `[REDACTED][…]`, `[REDACTED]:`).
pub(crate) fn unescape_markers(md: &str) -> std::borrow::Cow<'_, str> {
    const ESCAPED: &str = "\\[REDACTED\\]";
    if !md.contains(ESCAPED) {
        return std::borrow::Cow::Borrowed(md);
    }
    let mut out = String::with_capacity(md.len());
    let mut rest = md;
    while let Some(i) = rest.find(ESCAPED) {
        out.push_str(&rest[..i]);
        let after = &rest[i + ESCAPED.len()..];
        if after.starts_with(['(', '[', ':']) {
            out.push_str(ESCAPED);
        } else {
            out.push_str("[REDACTED]");
        }
        rest = after;
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

pub(crate) fn tidy_markdown(md: &str) -> String {
    let md = &*unescape_markers(md);
    let mut out = String::with_capacity(md.len());
    let mut fence: Option<(char, usize)> = None;
    let mut blank_run = 0usize;
    let mut table_row = 0usize;
    for line in split_newlines(md) {
        match fence {
            Some((ch, len)) => {
                out.push_str(line);
                out.push('\n');
                if closes_fence(line, ch, len) {
                    fence = None;
                }
            }
            None => {
                if line.trim().is_empty() {
                    table_row = 0;
                    blank_run += 1;
                    if blank_run == 1 {
                        out.push('\n');
                    }
                    continue;
                }
                blank_run = 0;
                fence = opens_fence(line);
                if fence.is_none() && line.starts_with('|') {
                    push_compact_table_row(&mut out, line, table_row == 1);
                    table_row += 1;
                } else {
                    out.push_str(line);
                    table_row = 0;
                }
                out.push('\n');
            }
        }
    }
    trim_in_place(out)
}

/// Table rows: padding inside cells (from a converter that pads to the column width, or
/// from the page) costs a reader tokens on wide tables: one space is kept before each `|`,
/// and delimiter dashes are shortened to three.
pub(crate) fn push_compact_table_row(out: &mut String, line: &str, second_row: bool) {
    let line = line.trim_end();
    let is_delimiter = second_row
        && line.contains('-')
        && line.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '));
    if is_delimiter {
        let inner = line.strip_prefix('|').unwrap_or(line);
        let inner = inner.strip_suffix('|').unwrap_or(inner);
        out.push('|');
        for cell in inner.split('|') {
            let cell = cell.trim();
            out.push_str(
                match (cell.starts_with(':'), cell.ends_with(':') && cell.len() > 1) {
                    (true, true) => " :---: |",
                    (true, false) => " :--- |",
                    (false, true) => " ---: |",
                    (false, false) => " --- |",
                },
            );
        }
        return;
    }
    let mut pending_spaces = 0usize;
    for c in line.chars() {
        if c == ' ' {
            pending_spaces += 1;
            continue;
        }
        if pending_spaces > 0 {
            // Cells are single lines of prose: one space is enough anywhere.
            out.push(' ');
            pending_spaces = 0;
        }
        out.push(c);
    }
    // A `|` inside a cell written as `&#124;` (htmd did): GFM's escape reads better.
    if line.contains("&#124;") {
        let start = out.rfind('\n').map_or(0, |p| p + 1);
        let row = out.split_off(start).replace("&#124;", "\\|");
        out.push_str(&row);
    }
}

/// An opening code fence: up to 3 spaces, then 3+ backticks or tildes.
pub(crate) fn opens_fence(line: &str) -> Option<(char, usize)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let ch = rest.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = rest.len() - rest.trim_start_matches(ch).len();
    // A backtick fence's info string may not contain backticks.
    let info_ok = ch == '~' || !rest[len..].contains('`');
    (len >= 3 && info_ok).then_some((ch, len))
}

pub(crate) fn closes_fence(line: &str, ch: char, len: usize) -> bool {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return false;
    }
    let rest = &line[indent..];
    let run = rest.len() - rest.trim_start_matches(ch).len();
    run >= len && rest[run..].trim().is_empty()
}

/// Plain text: whitespace-only lines become empty, runs of blank lines collapse to one,
/// ends are trimmed; code blocks marked by [`mark_code_blocks`] are copied as they are.
pub(crate) fn tidy_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank_run = 0usize;
    // Where the last code block ends: nothing before it is trimmed at the end.
    let mut kept = 0usize;
    let mut rest = text;
    loop {
        let Some(open) = rest.find(VERBATIM_OPEN) else {
            tidy_lines(&mut out, rest, &mut blank_run, true);
            break;
        };
        tidy_lines(&mut out, &rest[..open], &mut blank_run, false);
        let after = &rest[open + VERBATIM_OPEN.len_utf8()..];
        let (code, next) = match after.find(VERBATIM_CLOSE) {
            Some(close) => (&after[..close], &after[close + VERBATIM_CLOSE.len_utf8()..]),
            None => (after, ""),
        };
        // A code block, byte for byte (DESIGN §12): no trimmed line ends, no collapsed
        // blank lines. Markers of blocks nested in it go.
        out.extend(code.chars().filter(|&c| c != VERBATIM_OPEN));
        blank_run = 0;
        kept = out.len();
        rest = next;
    }
    let end = kept + out[kept..].trim_end().len();
    out.truncate(end);
    out
}

/// Markers around the text of a `<pre>` in the text writer (see [`mark_code_blocks`]), so
/// that [`tidy_text`] copies it as it is. Control characters: the DOM pass strips them from
/// the page before any writer runs, and the final pass strips any left.
pub(crate) const VERBATIM_OPEN: char = '\u{2}';

pub(crate) const VERBATIM_CLOSE: char = '\u{3}';

/// The tidying of prose lines for [`tidy_text`]: line ends trimmed, a run of blank lines
/// kept as one, nothing blank at the start of the output. `whole` when `text` runs to the
/// end of the output; otherwise its last, unfinished line is continued by a code block and
/// gets no line break.
pub(crate) fn tidy_lines(out: &mut String, text: &str, blank_run: &mut usize, whole: bool) {
    let mut lines = split_newlines(text).peekable();
    while let Some(line) = lines.next() {
        let last = lines.peek().is_none();
        let line = line.strip_suffix('\r').unwrap_or(line);
        let line = if out.is_empty() {
            line.trim_start()
        } else {
            line
        };
        if last && !whole {
            out.push_str(line.trim_end());
            return;
        }
        if line.trim().is_empty() {
            *blank_run += 1;
            if *blank_run == 1 && !out.is_empty() {
                out.push('\n');
            }
            continue;
        }
        *blank_run = 0;
        out.push_str(line.trim_end());
        out.push('\n');
    }
}

pub(crate) fn trim_in_place(mut s: String) -> String {
    let end = s.trim_end().len();
    s.truncate(end);
    let start = s.len() - s.trim_start().len();
    s.drain(..start);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// `split_newlines` cuts where `split('\n')` cuts, empty pieces included.
        #[test]
        fn split_newlines_is_split_at_newlines(s in "[a\n\r é]{0,40}") {
            let ours: Vec<&str> = split_newlines(&s).collect();
            let std: Vec<&str> = s.split('\n').collect();
            proptest::prop_assert_eq!(ours, std);
        }
    }

    /// The ASCII fast path counts what `char::is_whitespace` counts: every ASCII byte.
    #[test]
    fn visible_chars_agrees_with_char_whitespace() {
        let all_ascii: String = (0u8..128).map(char::from).collect();
        for s in [
            all_ascii.as_str(),
            "a\u{b}b\u{c}c\td\re\nf g",
            "caf\u{e9} \u{a0}x\u{2003}y\u{3000}z",
            "",
            "   ",
        ] {
            let want = s.chars().filter(|c| !c.is_whitespace()).count();
            assert_eq!(visible_chars(s), want, "{s:?}");
        }
    }

    /// Counted a piece at a time, the counts agree with `char::is_whitespace` on text of
    /// every length, whatever characters straddle a piece's end; `has_visible_chars`
    /// agrees with the count at every threshold.
    #[test]
    fn counts_agree_across_pieces() {
        let unit =
            "plain words of a line, in ASCII;\u{b}ab \u{a0}c\u{3000}d\t\u{1f600}e\u{2028}\u{e9}\n";
        let s = unit.repeat(20);
        for end in 0..=s.len() {
            let Some(t) = s.get(..end) else {
                continue;
            };
            let want = t.chars().filter(|c| !c.is_whitespace()).count();
            assert_eq!(visible_chars(t), want, "{t:?}");
            assert!(has_visible_chars(t, want));
            assert!(!has_visible_chars(t, want + 1));
        }
        assert!(has_visible_chars("", 0));
        assert!(!has_visible_chars("", 1));
    }
}
