//! dom_query's `formatted_text` (the text of a subtree, whitespace collapsed, a blank line
//! after each block and a line break after `br`, `hr`, `li`, `tr`), written as one walk
//! that copies each word straight into the result.
//!
//! Why: the judge measures the whole page's visible text ([`crate::content::visible`]),
//! and in raw mode it does so on every page. dom_query splits each text node with
//! `str::split_whitespace` (a Unicode test and a decode per character, about twenty
//! instructions a byte in callgrind) into a fresh string per node; here an ASCII byte
//! costs a table test, and only the rare non-ASCII character is decoded.
//!
//! Must never: give a different string than `Selection::formatted_text` on any tree
//! (`agrees_with_dom_query` pins it); recurse (a deep tree must not overflow the stack);
//! panic.

use dom_query::{NodeData, NodeRef};

/// `Selection::formatted_text` of the selection made of `nodes`: each node's text (the
/// node included) one after the other.
pub(crate) fn formatted_text(nodes: &[NodeRef]) -> String {
    let mut out = String::new();
    for node in nodes {
        if out.is_empty() {
            write_node(node, &mut out);
        } else {
            // Each node's text is made on its own (its first text follows nothing).
            let mut one = String::new();
            write_node(node, &mut one);
            out.push_str(&one);
        }
    }
    out
}

/// How an element shapes the text around it (dom_query's `elem_require_linebreak` and
/// `adjust_element_offset`), by its local name in any namespace.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// A block: a line break before it and a blank line after it.
    Block,
    /// `<pre>`: a block whose text is copied as it is.
    Pre,
    /// `br`, `hr`, `li`, `tr`: a line break after it.
    Line,
    /// `td`, `th`: a space after it.
    Cell,
    /// Anything else: its text only.
    Inline,
}

fn shape_of(node: &NodeRef) -> Shape {
    node.qual_name_ref()
        .map_or(Shape::Inline, |name| match &*name.local {
            "pre" => Shape::Pre,
            "article" | "blockquote" | "section" | "div" | "p" | "h1" | "h2" | "h3" | "h4"
            | "h5" | "h6" | "ul" | "ol" | "dl" | "table" => Shape::Block,
            "br" | "hr" | "li" | "tr" => Shape::Line,
            "td" | "th" => Shape::Cell,
            _ => Shape::Inline,
        })
}

/// dom_query's `format_text(node, true)` into `text` (which starts empty): the same walk in
/// document order, with a stack of the open elements instead of a stack of operations.
fn write_node(root: &NodeRef, text: &mut String) {
    // The open elements whose children are being written, with their shape.
    let mut open: Vec<(NodeRef, Shape)> = Vec::new();
    let mut next = Some(*root);
    while let Some(node) = next.take() {
        // Enter `node`: write a text, or open an element and go to its first child.
        let mut descend = None;
        if node.is_element() {
            let shape = shape_of(&node);
            if matches!(shape, Shape::Block | Shape::Pre)
                && !(text.is_empty() || text.ends_with("\n\n"))
            {
                text.push('\n');
            }
            if shape == Shape::Pre {
                push_all_text(&node, text);
            } else {
                descend = node.first_child();
            }
            open.push((node, shape));
        } else {
            node.query(|n| {
                if let NodeData::Text { contents } = &n.data {
                    push_normalized_text(text, contents);
                }
            });
        }
        if descend.is_some() {
            next = descend;
            continue;
        }
        // Leave: close every element whose last child this was, up to the next sibling.
        let mut done = node;
        loop {
            if open.last().is_some_and(|(n, _)| n.id == done.id) {
                if let Some((_, shape)) = open.pop() {
                    close(text, shape);
                }
            }
            if done.id == root.id {
                return;
            }
            if let Some(sibling) = done.next_sibling() {
                next = Some(sibling);
                break;
            }
            match open.last() {
                Some((parent, _)) => done = *parent,
                None => return,
            }
        }
    }
}

/// The text of every text node under `node`, as written (a `<pre>`).
fn push_all_text(node: &NodeRef, text: &mut String) {
    for d in node.descendants_it() {
        d.query(|n| {
            if let NodeData::Text { contents } = &n.data {
                text.push_str(contents);
            }
        });
    }
}

/// dom_query's `adjust_element_offset`: what follows an element.
fn close(text: &mut String, shape: Shape) {
    if text.is_empty() || text.ends_with("\n\n") {
        return;
    }
    match shape {
        Shape::Block | Shape::Pre => {
            trim_trailing_spaces(text);
            text.push_str("\n\n");
        }
        Shape::Line => {
            trim_trailing_spaces(text);
            text.push('\n');
        }
        Shape::Cell if !text.ends_with(['\n', ' ']) => text.push(' '),
        Shape::Cell | Shape::Inline => {}
    }
}

fn trim_trailing_spaces(text: &mut String) {
    text.truncate(text.trim_end_matches(' ').len());
}

/// dom_query's `push_normalized_text`: the words of `new` joined by one space, a space
/// before them when `new` starts with whitespace and `text` does not end a line or a word,
/// and one after them when `new` ends with whitespace.
fn push_normalized_text(text: &mut String, new: &str) {
    let follows_newline = text.is_empty() || text.ends_with(['\n', ' ']);
    // `trim` takes off what `split_whitespace` splits on (`char::is_whitespace`).
    let words = new.trim();
    let starts_ws = new.trim_start().len() < new.len();
    let ends_ws = new.trim_end().len() < new.len();
    if words.is_empty() {
        if follows_newline {
            return;
        }
    } else {
        if !follows_newline && starts_ws {
            text.push(' ');
        }
        push_collapsed(text, words);
    }
    if ends_ws && !text.chars().next_back().is_some_and(char::is_whitespace) {
        text.push(' ');
    }
}

/// `words` (no whitespace at either end) with each run of whitespace made one space,
/// copied a stretch at a time: a lone space between words needs no change.
fn push_collapsed(text: &mut String, words: &str) {
    let b = words.as_bytes();
    let mut from = 0;
    let mut i = 0;
    // Printable ASCII is never whitespace: skip to the next byte that is not.
    let plain = |c: &u8| *c > b' ' && *c < 0x80;
    while let Some(skip) = b
        .get(i..)
        .and_then(|rest| rest.iter().position(|c| !plain(c)))
    {
        i += skip;
        // One ASCII space between two words stays as it is (the common case first).
        if b.get(i) == Some(&b' ') && b.get(i + 1).is_some_and(plain) {
            i += 2;
            continue;
        }
        let len = whitespace_at(words, i);
        if len == 0 {
            i += 1;
            continue;
        }
        if b.get(i) == Some(&b' ') && whitespace_at(words, i + 1) == 0 {
            i += 1;
            continue;
        }
        text.push_str(words.get(from..i).unwrap_or(""));
        text.push(' ');
        let mut j = i + len;
        loop {
            let len = whitespace_at(words, j);
            if len == 0 {
                break;
            }
            j += len;
        }
        from = j;
        i = j;
    }
    text.push_str(words.get(from..).unwrap_or(""));
}

/// The length in bytes of the whitespace character (`char::is_whitespace`) at byte `i` of
/// `s`; 0 when there is none there (another character, the end, or no boundary).
fn whitespace_at(s: &str, i: usize) -> usize {
    match s.as_bytes().get(i) {
        None => 0,
        Some(b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r') => 1,
        Some(&c) if c < 0x80 => 0,
        Some(_) => s
            .get(i..)
            .and_then(|rest| rest.chars().next())
            .filter(|c| c.is_whitespace())
            .map_or(0, char::len_utf8),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dom_query::Document;
    use proptest::prelude::*;

    fn agree(html: &str) {
        let doc = Document::from(html);
        for sel in ["body", "html", "div", "p, pre", "td"] {
            let s = doc.select(sel);
            let ours = formatted_text(s.nodes());
            assert_eq!(ours, s.formatted_text().to_string(), "{sel} of {html:?}");
        }
    }

    /// The same string as dom_query on the odd corners: blocks in inline elements, `pre`
    /// (nested, ending in whitespace), cells, line breaks, comments, Unicode and
    /// no-break spaces, empty and whitespace-only texts, foreign content.
    #[test]
    fn agrees_with_dom_query() {
        for html in [
            "",
            "<p>one</p>",
            "<body> a  b <b>c</b>d <i> </i> e\n\n<div>x<p>y</p> z</div>  </body>",
            "<div><pre> keep\n  this <b>bold </b>\n</pre>after</div><pre>\u{3000}</pre>x",
            "<table><tr><td>a</td><td> b </td><th>c</th></tr><tr><td></td></tr></table>tail",
            "<ul><li>one<li>two <br>three<hr>four</ul><ol><li> </ol>",
            "a<!-- c -->b <span>\u{a0}c\u{a0}</span>\u{85}d\u{2003}e\u{200b}f",
            "<p>x</p><p> </p><p>\n</p><section> <h1>T</h1> </section><span> </span>",
            "<svg><title>t</title><p>breaks</p></svg><math><mi>m</mi></math>",
            "<div><div><div>deep</div></div></div>\u{b}\u{c}\u{1c}x\u{1f}",
            "<dl><dt>a<dd>b</dl><blockquote>q</blockquote><article>r</article>",
            "<td>cell</td> <td>cell2</td><div>in<td>odd</td></div>",
            // A whitespace-only text after a word (found by the property test).
            "<b>word<b> ",
            "\u{3000}word </pre><!--c--><div>\u{3000}</p><b></h2>word</div></p> é</b><td> \t",
        ] {
            agree(html);
        }
        // A deep tree: no recursion.
        let deep = format!("{}x{}", "<span>".repeat(20_000), "</span>".repeat(20_000));
        agree(&deep);
    }

    proptest! {
        #[test]
        fn agrees_on_any_markup(
            parts in proptest::collection::vec(
                prop_oneof![
                    Just("<p>"), Just("</p>"), Just("<div>"), Just("</div>"),
                    Just("<pre>"), Just("</pre>"), Just("<br>"), Just("<li>"),
                    Just("<td>"), Just("<tr>"), Just("<table>"), Just("<b>"), Just("</b>"),
                    Just(" "), Just("\n"), Just("\t"), Just("\u{a0}"), Just("\u{3000}"),
                    Just("word"), Just("é"), Just("<!--c-->"), Just("<h2>"), Just("</h2>"),
                ],
                0..40,
            )
        ) {
            agree(&parts.concat());
        }
    }
}
