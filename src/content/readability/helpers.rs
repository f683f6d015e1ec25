use std::collections::HashSet;

use unicode_segmentation::UnicodeSegmentation;

use dom_query::{local_name, LocalName, NodeData, NodeRef};

use tendril::StrTendril;

use super::glob::{Names, COMMAS, MINI_ARIA_HIDDEN, MINI_FALLBACK_IMG, PHRASING_ELEMS};
use super::matching::is_invisible_style;
use crate::content::tidy::{ascii_chunks, CHUNK};

// `count_text` keeps byte-wide counts of a piece.
const _: () = assert!(CHUNK <= 255);

/// `node.normalized_char_count()`: the characters of the node's text, every run of
/// whitespace counted as one and leading and trailing whitespace as none, computed the same
/// way (text nodes in document order, an empty text node ending a run of whitespace), with
/// the node's commas ([`COMMAS`], what `score_text_content` counts) on the side. ASCII is
/// read byte by byte, without decoding (a third of the instructions of dom_query's walk).
pub(crate) fn text_counts(node: &NodeRef) -> TextCounts {
    let mut counts = TextCounts::default();
    let mut last_ws = true;
    for d in std::iter::once(*node).chain(node.descendants_it()) {
        d.query_or((), |t| {
            if let NodeData::Text { contents } = &t.data {
                last_ws = count_text(contents, last_ws, &mut counts);
            }
        });
    }
    if last_ws && counts.chars > 0 {
        counts.chars -= 1;
    }
    counts
}

/// See [`text_counts`].
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TextCounts {
    /// `normalized_char_count()`.
    pub(crate) chars: usize,
    /// Characters of [`COMMAS`].
    pub(crate) commas: usize,
}

/// `node.normalized_char_count()` (see [`text_counts`]).
pub(crate) fn normalized_chars(node: &NodeRef) -> usize {
    text_counts(node).chars
}

/// Whether `node`'s [`normalized_chars`] reach `n`, counted the same way but stopping
/// at the first text node past `n` (a trailing run of whitespace is taken back only at
/// the end: one more than `n` settles it).
pub fn normalized_chars_reach(node: &NodeRef, n: usize) -> bool {
    let mut counts = TextCounts::default();
    let mut last_ws = true;
    for d in std::iter::once(*node).chain(node.descendants_it()) {
        let reached = d.query_or(false, |t| {
            if let NodeData::Text { contents } = &t.data {
                last_ws = count_text(contents, last_ws, &mut counts);
            }
            counts.chars > n
        });
        if reached {
            return true;
        }
    }
    if last_ws && counts.chars > 0 {
        counts.chars -= 1;
    }
    counts.chars >= n
}

/// Adds one text node to `counts`, `last_ws` telling whether the text before it ended in
/// whitespace; returns whether this one does (`false` when it is empty, as dom_query's
/// `contents.ends_with(char::is_whitespace)`).
pub(crate) fn count_text(text: &str, mut last_ws: bool, counts: &mut TextCounts) -> bool {
    if text.is_empty() {
        return false;
    }
    for chunk in ascii_chunks(text) {
        let bytes = chunk.as_bytes();
        if bytes.iter().fold(0u8, |high, &b| high | b) < 0x80 {
            // All ASCII (whitespace for `char::is_whitespace`: 9..=13 and 32): a character
            // is counted unless it is whitespace after whitespace. Byte-wide counters (a
            // chunk has at most 64 bytes) over pairs of neighbours, which vectorises.
            let mut flags = [0u8; CHUNK];
            let mut commas = 0u8;
            for (flag, &b) in flags.iter_mut().zip(bytes) {
                *flag = u8::from(b == b' ' || b.wrapping_sub(9) < 5);
                commas += u8::from(b == b',');
            }
            let ws = flags.get(..bytes.len()).unwrap_or_default();
            let (Some(&first), Some(&last)) = (ws.first(), ws.last()) else {
                continue;
            };
            let mut repeated = u8::from(last_ws) & first;
            for (a, b) in ws.iter().zip(ws.get(1..).unwrap_or_default()) {
                repeated += a & b;
            }
            counts.chars += bytes.len() - usize::from(repeated);
            counts.commas += usize::from(commas);
            last_ws = last == 1;
        } else {
            for c in chunk.chars() {
                let ws = c.is_whitespace();
                if !(last_ws && ws) {
                    counts.chars += 1;
                }
                counts.commas += usize::from(COMMAS.contains(&c));
                last_ws = ws;
            }
        }
    }
    last_ws
}

/// `node.normalized_char_count() > 0`: whether the node's text holds a character that is
/// not whitespace, stopping at the first.
pub fn has_text(node: &NodeRef) -> bool {
    std::iter::once(*node).chain(node.descendants_it()).any(|d| {
        d.query_or(false, |t| {
            matches!(&t.data, NodeData::Text { contents } if contents.chars().any(|c| !c.is_whitespace()))
        })
    })
}

/// `node.find_descendants(name)` for one tag name: every descendant element of that name,
/// nested ones too, in document order; without parsing a mini selector on each call.
pub(crate) fn named_descendants<'a>(node: &NodeRef<'a>, name: &str) -> Vec<NodeRef<'a>> {
    node.descendants_it().filter(|n| n.has_name(name)).collect()
}

/// `node.find_descendants(name).len()` for each of `names`, in one walk.
pub(crate) fn count_names<const N: usize>(node: &NodeRef, names: [LocalName; N]) -> [usize; N] {
    let mut counts = [0; N];
    for d in node.descendants_it() {
        d.query_or((), |t| {
            if let Some(el) = t.as_element() {
                for (count, name) in counts.iter_mut().zip(&names) {
                    *count += usize::from(el.name.local == *name);
                }
            }
        });
    }
    counts
}

pub(crate) fn text_similarity(text_a: &str, text_b: &str) -> f64 {
    if text_a.is_empty() || text_b.is_empty() {
        return 0.0;
    }

    let a = text_a.to_lowercase();
    let b = text_b.to_lowercase();

    if a.contains(&b) {
        return 1.0;
    }

    let tokens_a: HashSet<&str> = a.unicode_words().collect();
    let tokens_b: Vec<&str> = b.unicode_words().collect();

    let b_chars_total: usize = tokens_b.iter().map(|s| s.chars().count()).sum();
    if b_chars_total == 0 {
        return 0.0;
    }
    let b_chars_unique: usize = tokens_b
        .iter()
        .filter(|&&s| !tokens_a.contains(s))
        .map(|s| s.chars().count())
        .sum();

    let distance_b = b_chars_unique as f64 / b_chars_total as f64;
    1.0 - distance_b
}

pub(crate) fn is_phrasing_content(node: &NodeRef) -> bool {
    if node.is_text() {
        return true;
    }

    // only elements has a node name
    let Some(qual_name) = node.qual_name_ref() else {
        return false;
    };
    if PHRASING_ELEMS.contains(&qual_name.local) {
        return true;
    }

    if matches!(qual_name.local.as_ref(), "a" | "del" | "ins") {
        // There is no big sense to consider link content as phrasing content if they doesn't have children element.
        let children = node.children();
        return !children.is_empty() && children.into_iter().all(|n| is_phrasing_content(&n));
    }
    false
}

pub(crate) fn is_whitespace(node: &NodeRef) -> bool {
    if node.is_text() && !node.is_nonempty_text() {
        return true;
    }
    // only an element node has a node_name
    node.has_name("br")
}

pub(crate) fn has_ancestor<F>(node: &NodeRef, max_depth: Option<usize>, filter_fn: F) -> bool
where
    F: Fn(&NodeRef) -> bool,
{
    let max_depth = max_depth.map(|max_depth| if max_depth == 0 { 3 } else { max_depth });
    node.ancestors_it(max_depth).any(|a| filter_fn(&a))
}

pub(crate) fn normalize_spaces(text: &str) -> String {
    let mut result = String::with_capacity(text.len());
    let mut iter = text.split_whitespace();

    if let Some(first) = iter.next() {
        result.push_str(first);
        for word in iter {
            result.push(' ');
            result.push_str(word);
        }
    }
    result
}

pub(crate) fn link_density_fn<F>(node: &NodeRef, char_count: Option<usize>, mut count_fn: F) -> f32
where
    F: FnMut(&NodeRef) -> usize,
{
    let link_length = named_descendants(node, "a")
        .iter()
        .fold(0f32, |sum, a| sum + link_weight(a, count_fn(a)));
    density(link_length, || char_count.unwrap_or_else(|| count_fn(node)))
}

/// [`link_density_fn`] of a node with the links under it given, each with its character
/// count, and its own count when there are any (summed in the same order, so the same
/// number).
pub(crate) fn link_density_of(
    links: &[(NodeRef, usize)],
    text_length: impl FnOnce() -> usize,
) -> f32 {
    let link_length = links
        .iter()
        .fold(0f32, |sum, (a, chars)| sum + link_weight(a, *chars));
    density(link_length, text_length)
}

/// A link's share of the link length: its characters, three tenths of them for an
/// in-page anchor (`#section`).
fn link_weight(a: &NodeRef, chars: usize) -> f32 {
    let href = a.attr_or("href", "");
    let coeff = if href.len() > 1 && href.starts_with('#') {
        0.3
    } else {
        1.0
    };
    chars as f32 * coeff
}

/// The link length over the text length (counted only when there are links), `0` when
/// either is nothing.
fn density(link_length: f32, text_length: impl FnOnce() -> usize) -> f32 {
    if link_length == 0.0 {
        return 0.0;
    }
    let text_length = text_length() as f32;
    if text_length == 0.0 {
        return 0.0;
    }
    link_length / text_length
}

pub(crate) fn link_density(node: &NodeRef, char_count: Option<usize>) -> f32 {
    link_density_fn(node, char_count, normalized_chars)
}

/// Returns the child element if the node contains exactly one element child with the given tag
/// and no non-empty text nodes.
pub(crate) fn single_child_element<'a>(node: &NodeRef<'a>, tag: &str) -> Option<NodeRef<'a>> {
    // There should be exactly 1 element child with given tag
    let children = node.element_children();
    if children.len() != 1 {
        return None;
    }

    let first = children.first()?;

    if !first.has_name(tag) {
        return None;
    }
    if node.children_it(false).any(|n| n.is_nonempty_text()) {
        return None;
    }
    Some(*first)
}

pub(crate) fn is_element_without_content(node: &NodeRef) -> bool {
    // since this function calls only for elements check `node.is_element()` is redundant
    let has_text = node.descendants_it().any(|n| n.is_nonempty_text());
    if has_text {
        return false;
    }

    let el_children_count = node.children_it(false).filter(|n| n.is_element()).count();
    if el_children_count == 0 {
        return true;
    }

    let [br, hr] = count_names(node, [local_name!("br"), local_name!("hr")]);
    let line_breaks = br + hr;
    el_children_count == line_breaks
}

pub(crate) fn get_dir_attr(node: &NodeRef) -> Option<String> {
    if let Some(first_child) = node.first_child() {
        if let Some(dir_attr) = first_child.attr("dir") {
            return Some(dir_attr.to_string());
        }

        let dir_attr = first_child.ancestors_it(None).find_map(|a| a.attr("dir"));
        if let Some(dir_attr) = dir_attr {
            return Some(dir_attr.to_string());
        }
    }
    None
}

pub(crate) fn node_name_in(node: &NodeRef, names: &Names) -> bool {
    crate::content::find::is_any(node, names.0)
}

pub(crate) fn is_probably_visible(node: &NodeRef) -> bool {
    // One look at the attributes first: without `hidden`, `style` or `aria-hidden` (most
    // elements), none of the tests below can find the node hidden, and each would take a
    // borrow of the tree and a search of the attributes of its own.
    if !crate::content::find::has_any_attr(node, &["hidden", "style", "aria-hidden"]) {
        return true;
    }
    if node.has_attr("hidden") {
        return false;
    }
    if is_invisible_style(node) {
        return false;
    }
    !MINI_ARIA_HIDDEN.match_node(node) || MINI_FALLBACK_IMG.match_node(node)
}

pub(crate) fn get_node_matching_string(node: &NodeRef) -> StrTendril {
    let mut buf = StrTendril::new();
    let Some(el) = node.element_ref() else {
        return buf;
    };

    for attr in &el.attrs {
        if !matches!(attr.name.local.as_ref(), "class" | "id") {
            continue;
        }
        buf.push_tendril(&attr.value);
        buf.push_char(' ');
    }

    buf.make_ascii_lowercase();
    buf
}

pub(crate) fn next_child_or_sibling<'a>(
    node: &NodeRef<'a>,
    ignore_child: bool,
) -> Option<NodeRef<'a>> {
    if !ignore_child {
        if let Some(first_child) = node.first_element_child() {
            return Some(first_child);
        }
    }

    if let Some(sibling) = node.next_element_sibling() {
        return Some(sibling);
    }
    let mut parent = node.parent();
    while let Some(parent_node) = parent {
        if let Some(next_sibling) = parent_node.next_element_sibling() {
            return Some(next_sibling);
        }
        parent = parent_node.parent();
    }
    None
}

/// A lightweight byte-level pre-checker used to quickly skip patterns
/// that cannot occur in the haystack.
pub(crate) struct BytePatternCheck<'a> {
    haystack: &'a str,
    char_map: [u8; 256],
}

impl<'a> BytePatternCheck<'a> {
    pub(crate) fn new(haystack: &'a str) -> Self {
        let mut char_map = [0u8; 256];

        for &b in haystack.as_bytes() {
            char_map[b as usize] = 1;
        }
        Self { haystack, char_map }
    }
    #[inline]
    fn pre_check(&self, pat: &str) -> bool {
        for &b in pat.as_bytes() {
            if self.char_map[b as usize] == 0 {
                return false;
            }
        }
        true
    }
    /// Checks if the haystack contains any of the given patterns.
    /// Performs a cheap bitmap pre-check before `str::contains`.
    pub(crate) fn contains_any(&self, pats: &[&str]) -> bool {
        pats.iter()
            .any(|pat| self.pre_check(pat) && self.haystack.contains(pat))
    }
}

#[cfg(test)]
mod tests {

    use super::*;

    /// The look at the attributes first changes no answer: `is_probably_visible` says what
    /// the three tests alone say, on every node of a page of hidden and shown elements of
    /// every kind (and on text nodes).
    #[test]
    fn visibility_is_what_the_three_tests_say() {
        let alone = |node: &NodeRef| {
            !node.has_attr("hidden")
                && !is_invisible_style(node)
                && (!MINI_ARIA_HIDDEN.match_node(node) || MINI_FALLBACK_IMG.match_node(node))
        };
        let page = r#"<body><p>shown</p><p hidden>a</p><p hidden="">b</p>
            <div style="display: none">c</div><div style="DISPLAY:NONE">d</div>
            <div style="visibility:hidden">e</div><div style="color: red">f</div>
            <span aria-hidden="true">g</span><span aria-hidden="false">h</span>
            <img aria-hidden="true" class="wiki fallback-image" src="x.png">
            <img aria-hidden="true" class="image" src="y.png"><b class=x id=y>i</b></body>"#;
        let doc = dom_query::Document::from(page);
        let (mut hidden, mut shown) = (0, 0);
        for node in doc.root().descendants_it() {
            let want = alone(&node);
            assert_eq!(is_probably_visible(&node), want, "{:?}", node.html());
            if want {
                shown += 1;
            } else {
                hidden += 1;
            }
        }
        assert!(hidden >= 6 && shown >= 6, "{hidden} {shown}");
    }

    /// `named_descendants` and `count_names` agree with dom_query's `find_descendants`,
    /// nested and foreign elements included.
    #[test]
    fn named_descendants_agree_with_find_descendants() {
        let doc = dom_query::Document::from(
            r#"<div id="r"><a href="/1">x<a>y</a></a><p><a>z</a><br><hr></p>
            <svg><a href="/svg">s</a></svg><ul><li><ul><li>i</li></ul></li></ul><A>u</A></div>"#,
        );
        let root = doc.select("#r").nodes()[0];
        for name in ["a", "br", "hr", "li", "p", "img"] {
            let ours: Vec<_> = named_descendants(&root, name)
                .iter()
                .map(|n| n.id)
                .collect();
            let theirs: Vec<_> = root.find_descendants(name).iter().map(|n| n.id).collect();
            assert_eq!(ours, theirs, "{name}");
            let [count] = count_names(&root, [LocalName::from(name)]);
            assert_eq!(count, theirs.len(), "{name}");
        }
        let counts = count_names(
            &root,
            [
                local_name!("a"),
                local_name!("li"),
                local_name!("img"),
                local_name!("br"),
            ],
        );
        let expected = ["a", "li", "img", "br"].map(|name| root.find_descendants(name).len());
        assert_eq!(counts, expected);
        assert_eq!(count_names(&root, [local_name!("a")]), [5]);
    }

    /// `text_counts` and `has_text` agree with dom_query's `normalized_char_count` and
    /// Readability's own comma count on every element of pages that mix whitespace runs
    /// across text nodes, empty text nodes, non-ASCII whitespace and commas.
    #[test]
    fn text_counts_agree_with_dom_query() {
        let pages = [
            "<div> a  b <span> </span> c\t\n<p>d,e</p>  </div>",
            "<p>caf\u{e9}\u{a0}\u{a0}x\u{2003} y\u{3000}z\u{ff0c}w\u{60c}v , u</p>",
            "<div><b></b> <i>x</i><!-- c --> <i>y</i>\u{85}</div><p>   </p><p>\u{2028}</p>",
            "<article><p>\u{b}\u{c}\r a</p><p>b\u{1c}c</p><ul><li> 1,2 </li><li>3</li></ul></article>",
            // Runs of whitespace across the 64-byte pieces the count reads at a time.
            "<p>xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx  \t  y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, y, \u{e9}                                                                      z</p>",
        ];
        for page in pages {
            let doc = dom_query::Document::from(page);
            // An empty text node between two runs of whitespace (the parser never makes one).
            if let Some(div) = doc.select("div").nodes().first() {
                div.append_child(&doc.tree.new_text(""));
                div.append_child(&doc.tree.new_text("  tail  "));
            }
            let mut checked = 0;
            for node in doc.select("*").nodes() {
                let counts = text_counts(node);
                assert_eq!(
                    counts.chars,
                    node.normalized_char_count(),
                    "{page}: {}",
                    node.html()
                );
                assert_eq!(
                    counts.commas,
                    super::super::score::score_text_content(node),
                    "{page}: {}",
                    node.html()
                );
                assert_eq!(has_text(node), node.normalized_char_count() > 0);
                checked += 1;
            }
            assert!(checked > 3, "{page}");
        }
    }

    const FLOAT_TOLERANCE: f64 = 0.00001;

    #[test]
    fn test_text_similarity() {
        let text_a = "The quick brown fox";
        let text_b = "The quick fox";
        let similarity = text_similarity(text_a, text_b);
        assert!(similarity > 0.75);
    }

    #[test]
    fn test_text_similarity_contains() {
        let text_a = "the quick brown fox jumps over the lazy dog";
        let text_b = "The Quick Brown Fox";
        let similarity = text_similarity(text_a, text_b);
        assert!(1.0 - similarity < FLOAT_TOLERANCE);
    }

    #[test]
    fn test_text_similarity_similar() {
        let text_a = "DeepMind新电脑已可利用记忆自学 人工智能迈上新台阶_科技_腾讯网";
        let text_b = "DeepMind新电脑已可利用记忆自学 人工智能迈上新台阶";
        let similarity = text_similarity(text_a, text_b);
        assert!(1.0 - similarity < FLOAT_TOLERANCE);
    }

    #[test]
    fn test_text_similarity_no_words() {
        // `text_b` has no unicode words, so the char totals are zero.
        let similarity = text_similarity("Some title", "...");
        assert!(similarity < FLOAT_TOLERANCE);
    }

    #[test]
    fn test_normalize_spaces() {
        let text = "    The quick  brown  fox\n jumps over the lazy dog. ";
        let normalized_text = normalize_spaces(text);
        let expected = "The quick brown fox jumps over the lazy dog.";
        assert_eq!(expected, normalized_text);
    }

    #[test]
    fn test_ascii_pattern_check() {
        let class = "article primary main äußerlich konnen";
        let check = BytePatternCheck::new(class);
        assert!(check.contains_any(&["äußerlich"]));
        assert!(check.contains_any(&["article", "post"]));
        assert!(!check.contains_any(&["können"]));
    }
}
