//! Bounded parsing: an HTML page made safe for the parser before it is parsed. Nesting
//! deeper than [`MAX_DEPTH`] is unwrapped, an element keeps at most [`MAX_ATTRIBUTES`]
//! attributes and the page at most [`MAX_ELEMENTS`] start tags, deterministically, so the
//! quadratic corners of html5ever and the recursion of the writers stay bounded; and every
//! call into the HTML crates runs `guarded`, so a panic in them is a fallback, not a
//! crash. Every step of `content` that parses a page parses it with [`parse`].
//!
//! Must never: panic, or take more than linear time.

use std::panic::{catch_unwind, AssertUnwindSafe};

use dom_query::Document;

use crate::content::cancel::cancelled;

/// `html` parsed, its shape bounded first (see the module docs).
pub fn parse(html: &str) -> Document {
    PARSES.with(|n| n.set(n.get().saturating_add(1)));
    Document::from(&*cap_nesting(html, MAX_DEPTH))
}

thread_local! {
    /// How many times [`parse`] ran on this thread (see [`parses`]).
    static PARSES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// How many pages [`parse`] has parsed on this thread: the tests of the extraction hold
/// it to one parse per page (issue 27).
pub fn parses() -> usize {
    PARSES.with(std::cell::Cell::get)
}

/// Run `f`, turning a panic into `None`. Used around every call into the HTML crates.
pub(crate) fn guarded<T>(f: impl FnOnce() -> T) -> Option<T> {
    catch_unwind(AssertUnwindSafe(f)).ok()
}

/// Elements nested deeper than this are unwrapped (their content kept, the elements
/// dropped). The Markdown writer and dom_smoothie recurse once per level, and a stack
/// overflow aborts the process (`catch_unwind` cannot catch it): the writer needs less
/// than 4 KB of stack per level in a debug build (a test pins it), so 256 levels stay well
/// inside a 2 MB thread stack (the default for spawned and `spawn_blocking` threads). Real
/// pages rarely pass 60.
pub const MAX_DEPTH: usize = 256;

/// How the nesting pre-pass treats a tag name.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum TagClass {
    /// Void elements and those whose end tag is optional: they never count as depth.
    Flat,
    /// Raw-text elements: nothing inside them is a tag.
    RawText,
    /// Everything else nests.
    Nesting,
}

pub(crate) fn tag_class(name: &[u8]) -> TagClass {
    let mut buf = [0u8; 16];
    let Some(lower) = buf.get_mut(..name.len()) else {
        return TagClass::Nesting; // Longer than any name below.
    };
    lower.copy_from_slice(name);
    lower.make_ascii_lowercase();
    match &*lower {
        b"area" | b"base" | b"br" | b"col" | b"embed" | b"hr" | b"img" | b"input" | b"link"
        | b"meta" | b"source" | b"track" | b"wbr" | b"param" | b"keygen" | b"frame"
        | b"basefont" | b"bgsound" | b"p" | b"li" | b"dt" | b"dd" | b"tr" | b"td" | b"th"
        | b"option" | b"optgroup" | b"tbody" | b"thead" | b"tfoot" | b"colgroup" | b"caption"
        | b"rb" | b"rt" | b"rp" | b"html" | b"head" | b"body" => TagClass::Flat,
        b"script" | b"style" | b"textarea" | b"title" | b"xmp" | b"iframe" | b"noembed"
        | b"noframes" | b"plaintext" => TagClass::RawText,
        _ => TagClass::Nesting,
    }
}

/// Drop start and end tags nested deeper than `max_depth`, keeping everything else
/// (text, entities, shallower markup) byte for byte.
///
/// html5ever checks element scopes by walking the stack of open elements, so parsing is
/// quadratic in nesting depth: 1 MB of nested `<div>`s takes about 40 s in a release
/// build, 5 MB about 20 minutes. This linear pre-pass (an approximate tokenizer that
/// knows comments, quoted attributes, raw-text elements, void elements and optional end
/// tags) keeps hostile pages cheap. Real pages are far shallower and come back borrowed,
/// untouched. [`prepare`] then enforces the exact bound on the parsed tree.
pub(crate) fn cap_nesting(html: &str, max_depth: usize) -> std::borrow::Cow<'_, str> {
    let bytes = html.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0usize;
    let mut depth = 0usize;
    let mut elements = 0usize;
    let mut i = 0usize;
    // `memchr` rather than `str::find`: this runs once a tag (67k times on a 1 MB page),
    // and `i` is always just after an ASCII byte, so a char boundary.
    while let Some(offset) = bytes.get(i..).and_then(|rest| memchr::memchr(b'<', rest)) {
        let start = i + offset;
        if elements % 1024 == 0 && cancelled() {
            break;
        }
        let rest = &bytes[start..];
        if rest.starts_with(b"<!--") {
            i = find_from(bytes, start + 4, b"-->").map_or(bytes.len(), |p| p + 3);
            continue;
        }
        let closing = rest.get(1) == Some(&b'/');
        let name_start = start + 1 + usize::from(closing);
        if !bytes.get(name_start).is_some_and(u8::is_ascii_alphabetic) {
            i = start + 1;
            continue;
        }
        let name_end = bytes[name_start..]
            .iter()
            .position(|b| !(b.is_ascii_alphanumeric() || *b == b'-' || *b == b':'))
            .map_or(bytes.len(), |p| name_start + p);
        let name = &bytes[name_start..name_end];
        let end = tag_end(bytes, name_end);
        let self_closing = bytes[..end].ends_with(b"/>");
        let class = tag_class(name);
        let mut drop_tag = false;
        if !closing {
            elements += 1;
        }
        if elements > MAX_ELEMENTS {
            // Past the element budget markup is dropped and text kept; a raw-text element
            // (script, style) goes whole, as its content was never text.
            let until = if class == TagClass::RawText && !closing {
                let mut close = Vec::with_capacity(name.len() + 2);
                close.extend_from_slice(b"</");
                close.extend_from_slice(name);
                find_from_ascii_ci(bytes, end, &close)
                    .map_or(bytes.len(), |p| tag_end(bytes, p + close.len()))
            } else {
                end
            };
            let buf = out.get_or_insert_with(|| String::with_capacity(html.len()));
            buf.push_str(html.get(copied..start).unwrap_or(""));
            copied = until;
            i = until;
            continue;
        }
        if closing {
            if class != TagClass::Flat && depth > 0 {
                drop_tag = depth > max_depth;
                depth -= 1;
            }
            i = end;
        } else if class == TagClass::RawText {
            // Skip to the matching end tag; raw text is a leaf.
            let mut close = Vec::with_capacity(name.len() + 2);
            close.extend_from_slice(b"</");
            close.extend_from_slice(name);
            i = find_from_ascii_ci(bytes, end, &close).unwrap_or(bytes.len());
        } else {
            if class == TagClass::Nesting && !self_closing {
                depth += 1;
                drop_tag = depth > max_depth;
            }
            i = end;
        }
        if drop_tag {
            let buf = out.get_or_insert_with(|| String::with_capacity(html.len()));
            // `<` and `>` are ASCII, so these are char boundaries; `get` keeps it panic-free.
            buf.push_str(html.get(copied..start).unwrap_or(""));
            copied = end;
        } else if !closing && end.saturating_sub(name_end) > MAX_ATTRIBUTES {
            // Every attribute takes at least one byte: a shorter tag cannot have too many.
            if let Some(cut) = attributes_cut(bytes, name_end, end, MAX_ATTRIBUTES) {
                // Keep the first MAX_ATTRIBUTES attributes and the tag's end (`>`). The cut
                // is at an attribute's first byte, an ASCII boundary after whitespace.
                let keep_from = if bytes[..end].ends_with(b">") {
                    end - 1
                } else {
                    end
                };
                let buf = out.get_or_insert_with(|| String::with_capacity(html.len()));
                buf.push_str(html.get(copied..cut).unwrap_or(""));
                copied = keep_from;
            }
        }
    }
    match out {
        None => std::borrow::Cow::Borrowed(html),
        Some(mut buf) => {
            buf.push_str(html.get(copied..).unwrap_or(""));
            std::borrow::Cow::Owned(buf)
        }
    }
}

/// Attributes kept per element; the rest are dropped before parsing. html5ever checks each
/// new attribute against all earlier ones of its element (to drop duplicates), which is
/// quadratic: one `<div a0 … a99999>` (1.2 MB) took 12.5 s. Real elements have a few dozen.
pub const MAX_ATTRIBUTES: usize = 256;

/// Start tags kept per page; past them tags are dropped (text kept, `<script>` and
/// `<style>` elements dropped whole). Bounds the tree's size, hence memory and every walk
/// over it: a 5 MiB body of `<b>`s would otherwise be 1.3 million nodes.
pub const MAX_ELEMENTS: usize = 100_000;

/// Where the `(max+1)`-th attribute of a start tag begins (its name ends at `from`, the tag
/// at `end`), or `None` when it has at most `max`. Attributes are read as the HTML
/// tokenizer reads them: a name, then optionally `=` and a quoted or unquoted value.
pub(crate) fn attributes_cut(bytes: &[u8], from: usize, end: usize, max: usize) -> Option<usize> {
    let mut k = from;
    let mut count = 0usize;
    let stop = end.min(bytes.len());
    loop {
        while k < stop && (bytes[k].is_ascii_whitespace() || bytes[k] == b'/') {
            k += 1;
        }
        if k >= stop || bytes[k] == b'>' {
            return None;
        }
        count += 1;
        if count > max {
            return Some(k);
        }
        // The name (a leading `=` belongs to it).
        k += 1;
        while k < stop && !matches!(bytes[k], b'=' | b'>' | b'/') && !bytes[k].is_ascii_whitespace()
        {
            k += 1;
        }
        let mut v = k;
        while v < stop && bytes[v].is_ascii_whitespace() {
            v += 1;
        }
        if v < stop && bytes[v] == b'=' {
            v += 1;
            while v < stop && bytes[v].is_ascii_whitespace() {
                v += 1;
            }
            match bytes.get(v) {
                Some(&q @ (b'"' | b'\'')) => {
                    v += 1;
                    while v < stop && bytes[v] != q {
                        v += 1;
                    }
                    v += 1;
                }
                _ => {
                    while v < stop && bytes[v] != b'>' && !bytes[v].is_ascii_whitespace() {
                        v += 1;
                    }
                }
            }
            k = v;
        }
    }
}

/// The index just past the `>` that ends a tag whose name ends at `from`, honouring
/// quoted attribute values: a quote opens a value only right after `=` (spaces allowed in
/// between). The next `>` or quote is found with `memchr3`, the end of a value with
/// `memchr`: long values (inline styles, JSON in data attributes) are not read a byte at
/// a time.
pub(crate) fn tag_end(bytes: &[u8], from: usize) -> usize {
    let mut k = from;
    while let Some(p) = bytes
        .get(k..)
        .and_then(|rest| memchr::memchr3(b'>', b'"', b'\'', rest))
        .map(|off| k + off)
    {
        let Some(&q) = bytes.get(p) else {
            break;
        };
        if q == b'>' {
            return p + 1;
        }
        // The last byte before the quote that is not a blank, within the tag.
        let opens = bytes
            .get(from..p)
            .and_then(|before| before.iter().rposition(|c| !c.is_ascii_whitespace()))
            .is_some_and(|i| bytes.get(from + i) == Some(&b'='));
        k = if opens {
            match bytes.get(p + 1..).and_then(|rest| memchr::memchr(q, rest)) {
                Some(off) => p + 1 + off + 1,
                None => return bytes.len(),
            }
        } else {
            p + 1
        };
    }
    bytes.len()
}

/// Where `needle` first occurs in `bytes` at or after `from`.
pub(crate) fn find_from(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(bytes.get(from..)?, needle).map(|p| from + p)
}

/// Where `needle` first occurs in `bytes` at or after `from`, ASCII letters in any case.
/// Candidates are found by their first byte with `memchr` (the pre-pass skips every
/// script and style of a page this way: a byte-by-byte comparison there cost more than
/// the rest of the pass).
pub(crate) fn find_from_ascii_ci(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    let hay = bytes.get(from..)?;
    let (&first, rest) = needle.split_first()?;
    memchr::memchr2_iter(first.to_ascii_lowercase(), first.to_ascii_uppercase(), hay)
        .find(|&p| {
            hay.get(p + 1..p + needle.len())
                .is_some_and(|w| w.eq_ignore_ascii_case(rest))
        })
        .map(|p| from + p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn naive(bytes: &[u8], from: usize, needle: &[u8], ci: bool) -> Option<usize> {
        let hay = bytes.get(from..)?;
        (0..hay.len())
            .find(|&p| {
                hay.get(p..p + needle.len()).is_some_and(|w| {
                    if ci {
                        w.eq_ignore_ascii_case(needle)
                    } else {
                        w == needle
                    }
                })
            })
            .map(|p| from + p)
    }

    /// `tag_end` as it was written first: a byte at a time.
    fn tag_end_bytewise(bytes: &[u8], from: usize) -> usize {
        let mut quote: Option<u8> = None;
        let mut after_equals = false;
        for (k, &b) in bytes.iter().enumerate().skip(from) {
            match quote {
                Some(q) if b == q => quote = None,
                Some(_) => {}
                None if after_equals && (b == b'"' || b == b'\'') => quote = Some(b),
                None if b == b'>' => return k + 1,
                None => {}
            }
            if !b.is_ascii_whitespace() {
                after_equals = quote.is_none() && b == b'=';
            }
        }
        bytes.len()
    }

    proptest! {
        /// The end of a tag is where a byte-at-a-time reading puts it, on tags made of
        /// names, `=`, both quotes, blanks and `>`.
        #[test]
        fn tag_end_agrees_with_a_bytewise_reading(
            pieces in proptest::collection::vec(prop::sample::select(vec![
                "a", "b=", "=", "\"", "'", ">", " ", "\t", "= ", "=\"x>y\"", "='", "é",
            ]), 0..24),
            from in 0usize..40,
        ) {
            let tag = pieces.concat().into_bytes();
            prop_assert_eq!(tag_end(&tag, from), tag_end_bytewise(&tag, from));
        }

        /// Both searches find what a plain scan finds, on text made of pieces of the needles
        /// in both cases (so matches, near misses and overlaps are common).
        #[test]
        fn searches_agree_with_a_plain_scan(
            pieces in proptest::collection::vec(prop::sample::select(vec![
                "<", "-", "->", "-->", "</", "</sc", "</SCRIPT", "</script", "Script",
                "sCRIPT", "scrip", "x", " ", "</style", "é",
            ]), 0..24),
            from in 0usize..70,
            needle in prop::sample::select(vec![&b"-->"[..], b"</script", b"</Style", b"Script", b"<"]),
        ) {
            let hay = pieces.concat().into_bytes();
            prop_assert_eq!(find_from(&hay, from, needle), naive(&hay, from, needle, false));
            prop_assert_eq!(
                find_from_ascii_ci(&hay, from, needle),
                naive(&hay, from, needle, true)
            );
        }
    }
}
