//! The Markdown writer: a parsed page (a [`dom_query`] tree) written as Markdown, without
//! serialising it to HTML and parsing it again.
//!
//! The rules follow those of htmd 0.5, the converter this replaced, so that the output
//! reads the same: ATX headings, `-` bullets, ordered lists numbered from their `start`,
//! nested lists indented under their item, `> ` block quotes, fenced code blocks with the
//! `language-X` class of the `<code>` or its `<pre>`, inline code with a delimiter longer
//! than any backtick run inside, `**strong**` and `*em*`, inline links (`[text](url)`,
//! a target with spaces in `<…>`, parentheses escaped), two-space hard breaks, pipe tables
//! when a table has header cells, and the same backslash escapes of Markdown syntax in
//! text (`\*`, `\_`, `\[`, a leading `\#`, `1\.`, `\<` before something tag-like). Those
//! escapes are all "backslash before ASCII punctuation", which the redactor's reader view
//! undoes ([`crate::redact`]), so a secret split by one is still found.
//!
//! Our own rules, which htmd needed custom handlers for: skipped elements (scripts, forms,
//! navigation, embeds: [`SKIPPED`]); `javascript:` links keep their text only; a link with
//! no visible text is dropped; an inline `data:` image becomes its alt text; and an image
//! is written as `![alt](src)` only when it has alt text (an image without one tells a
//! reader nothing). Adjacent inline siblings of the same kind with one text child each are
//! merged (`<b>x</b><b>y</b>` is `**xy**`), as htmd did.
//!
//! What it must never do: panic, or take more than linear time. It recurses once per level
//! of nesting, which the caller bounds ([`crate::content::parse::MAX_DEPTH`]).

use std::cell::RefCell;

use dom_query::{LocalName, NodeData, NodeRef};

use crate::content::inline::is_block_element;

/// Elements whose content is never written.
pub const SKIPPED: &[&str] = &[
    "head", "script", "style", "noscript", "template", "svg", "canvas", "iframe", "object",
    "embed", "video", "audio", "nav", "button", "select", "input", "textarea", "dialog",
];

/// Write `node` (itself included) as Markdown. The result still needs the caller's tidying
/// (blank-line runs, compact tables).
pub fn to_markdown(node: &NodeRef) -> String {
    merge_inline_siblings(node);
    let mut out = String::new();
    walk_node(node, &mut out, None, true, false);
    trim_newlines(&mut out);
    // Nothing is kept between pages.
    SPARE.take();
    out
}

thread_local! {
    /// Strings the walk has finished with, for the next node's content. Most nodes write
    /// their content into a string of their own and append it to their parent's: a fresh
    /// string grows by doubling (a paragraph's, six times), and a spare one has room.
    /// Emptied at the end of [`to_markdown`].
    static SPARE: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// The most strings [`SPARE`] holds, and the largest it keeps (in bytes of capacity).
const SPARE_COUNT: usize = 64;
const SPARE_BYTES: usize = 64 * 1024;

/// An empty string to write a node's content into: a spare one when there is one.
fn scratch() -> String {
    SPARE.with_borrow_mut(Vec::pop).unwrap_or_default()
}

/// Give a string the walk has finished with back to [`SPARE`].
fn recycle(mut s: String) {
    if s.capacity() == 0 || s.capacity() > SPARE_BYTES {
        return;
    }
    s.clear();
    SPARE.with_borrow_mut(|spare| {
        if spare.len() < SPARE_COUNT {
            spare.push(s);
        }
    });
}

/// Merge runs of adjacent inline siblings that read as one (`<b>x</b><b>y</b>`), before
/// the walk (whose iterators borrow the tree).
fn merge_inline_siblings(root: &NodeRef) {
    use crate::content::inline::{merge_inline_runs, mergeable, single_text_inline};
    let mut parents: Vec<NodeRef> = Vec::new();
    let mut stack: Vec<NodeRef> = vec![*root];
    while let Some(node) = stack.pop() {
        let mut prev: Option<NodeRef> = None;
        let mut marked = false;
        for child in node.children_it(false) {
            if !child.is_element() {
                prev = None;
                continue;
            }
            if !marked {
                if let Some(p) = prev {
                    if single_text_inline(&p) && mergeable(&p, &child) {
                        parents.push(node);
                        marked = true;
                    }
                }
            }
            prev = Some(child);
            stack.push(child);
        }
    }
    for parent in parents {
        merge_inline_runs(&parent);
    }
}

/// A heading line of `text` (a headline put back on top), escaped like body text.
pub fn heading(text: &str, level: u8) -> String {
    let mut content = String::new();
    write_text(text, &mut content, Some("h1"), true, false);
    let mut out = "#".repeat(usize::from(level.clamp(1, 6)));
    out.push(' ');
    out.push_str(content.trim_matches(is_document_whitespace));
    out
}

// --- the walk --------------------------------------------------------------------------

/// What kind of element a tag is, for the writer.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Tag {
    Skipped,
    Img,
    A,
    List {
        ordered: bool,
    },
    Li,
    Blockquote,
    Code,
    Strong,
    Em,
    Heading(u8),
    Br,
    Hr,
    Table,
    /// `td`, `th`, `tr`, `tbody`, `thead`, `caption`, `p`, `head`, `body`, `html` and the
    /// other block elements: content between blank lines.
    Block,
    Pre,
    Span,
    /// `sup` (true) or `sub` (false): marked so that `mc^2` does not read `mc2`.
    Script(bool),
    /// Unknown or purely inline elements: their content as is.
    Other,
}

fn classify(name: &str) -> Tag {
    if SKIPPED.contains(&name) {
        return Tag::Skipped;
    }
    match name {
        "img" => Tag::Img,
        "a" => Tag::A,
        "ul" => Tag::List { ordered: false },
        "ol" => Tag::List { ordered: true },
        "li" => Tag::Li,
        "blockquote" => Tag::Blockquote,
        "code" => Tag::Code,
        "strong" | "b" => Tag::Strong,
        "i" | "em" => Tag::Em,
        "h1" => Tag::Heading(1),
        "h2" => Tag::Heading(2),
        "h3" => Tag::Heading(3),
        "h4" => Tag::Heading(4),
        "h5" => Tag::Heading(5),
        "h6" => Tag::Heading(6),
        "br" => Tag::Br,
        "hr" => Tag::Hr,
        "table" => Tag::Table,
        "pre" => Tag::Pre,
        "span" => Tag::Span,
        "sup" => Tag::Script(true),
        "sub" => Tag::Script(false),
        "td" | "th" | "tr" | "tbody" | "thead" | "caption" | "p" | "body" | "html" => Tag::Block,
        _ if is_block_element(name) => Tag::Block,
        _ => Tag::Other,
    }
}

/// The element's local name, owned (no borrow of the tree is kept across the walk): the
/// interned atom itself, which for the names HTML knows is a copy, not an allocation.
fn tag_name(node: &NodeRef) -> Option<LocalName> {
    node.qual_name_ref().map(|n| n.local.clone())
}

/// Write one node into `output` (htmd's `walk_node`).
fn walk_node(
    node: &NodeRef,
    output: &mut String,
    parent_tag: Option<&str>,
    trim_leading_spaces: bool,
    in_pre: bool,
) {
    if node.is_text() {
        // Written from the text node's own contents (`NodeRef::text` walks and copies).
        node.query(|t| {
            if let NodeData::Text { contents } = &t.data {
                write_text(contents, output, parent_tag, trim_leading_spaces, in_pre);
            }
        });
        return;
    }
    let Some(local) = tag_name(node) else {
        // The document root or a fragment: its children; comments and doctypes: nothing.
        if node.is_document() || node.is_fragment() {
            walk_children_into(node, output, true, in_pre, Some("html"));
        }
        return;
    };
    let name: &str = &local;
    let tag = classify(name);
    if in_pre && !matches!(tag, Tag::Pre | Tag::Code | Tag::Skipped) {
        // Inside code every character is literal: markup within it (a link in a `<pre>`,
        // `<b>` in a listing) is written as its text, never as Markdown syntax that would
        // show up as `[x](url)` in the block.
        match tag {
            Tag::Br => output.push('\n'),
            Tag::Img => {}
            _ => walk_children_into(node, output, false, in_pre, Some(name)),
        }
        return;
    }
    match tag {
        Tag::Span => {
            let mut content = scratch();
            walk_children_into(node, &mut content, false, in_pre, Some(name));
            if !in_pre {
                trim_newlines(&mut content);
            }
            append_normalized(output, content, in_pre);
        }
        Tag::Other => {
            let mut content = scratch();
            walk_children_into(node, &mut content, false, in_pre, Some(name));
            append_normalized(output, content, in_pre);
        }
        Tag::Script(sup) => {
            let mut content = scratch();
            walk_children_into(node, &mut content, false, in_pre, Some(name));
            if in_pre {
                append_normalized(output, content, in_pre);
                return;
            }
            let body = content.trim_matches(is_document_whitespace);
            let Some((open, close)) = script_affixes(body, sup, output.chars().next_back()) else {
                append_normalized(output, content, in_pre);
                return;
            };
            // A `_` right after a letter or digit cannot open emphasis (CommonMark's
            // flanking rules); elsewhere it is escaped, as the page's own would be.
            let after_word = output
                .chars()
                .next_back()
                .is_some_and(char::is_alphanumeric);
            let mut marked = String::with_capacity(body.len() + 4);
            if !sup && !after_word && !open.is_empty() {
                marked.push('\\');
            }
            marked.push_str(open);
            marked.push_str(body);
            marked.push_str(close);
            append_normalized(output, marked, in_pre);
        }
        // A paragraph or another block, and a code block: appended in place rather than
        // framed in a string of its own first (see `append_block`). Spaces at a block's end
        // mean nothing: the one before a caption that was removed as boilerplate would
        // trail the image's line.
        Tag::Block => {
            let content = walk_children(node, name, in_pre);
            append_block(output, content.trim_end_matches(['\n', ' ']), in_pre);
            recycle(content);
        }
        Tag::Pre => {
            let content = walk_children(node, name, in_pre);
            append_block(output, &content, in_pre);
            recycle(content);
        }
        tag => {
            if let Some(content) = handle(node, name, tag, in_pre) {
                if !content.is_empty() || name != "head" {
                    append_normalized(output, content, in_pre);
                }
            }
        }
    }
}

/// A node written on its own (htmd's `Handlers::handle`): a list's child, a table cell.
fn handle_alone(node: &NodeRef, in_pre: bool) -> String {
    let mut out = scratch();
    walk_node(node, &mut out, None, true, in_pre);
    out
}

/// The children of `node` written into a new string (htmd's `Handlers::walk_children`).
fn walk_children(node: &NodeRef, name: &str, in_pre: bool) -> String {
    let mut out = scratch();
    let in_pre = in_pre || name == "pre" || name == "code";
    walk_children_into(node, &mut out, is_block_element(name), in_pre, Some(name));
    out
}

fn walk_children_into(
    node: &NodeRef,
    output: &mut String,
    parent_is_block: bool,
    in_pre: bool,
    tag: Option<&str>,
) {
    let mut trim_leading_spaces = !in_pre && parent_is_block;
    for child in node.children_it(false) {
        let is_block = child
            .qual_name_ref()
            .is_some_and(|n| is_block_element(&n.local));
        if is_block {
            let end = output.trim_end_matches(' ').len();
            output.truncate(end);
        }
        let before = output.len();
        walk_node(&child, output, tag, trim_leading_spaces, in_pre);
        if output.len() > before {
            trim_leading_spaces = is_block;
        }
    }
}

fn write_text(
    text: &str,
    output: &mut String,
    parent_tag: Option<&str>,
    trim_leading_spaces: bool,
    in_pre: bool,
) {
    if in_pre {
        // A line of a code block that starts like a fence would close it.
        if parent_tag == Some("pre") && text.starts_with(['`', '~']) {
            output.push('\\');
        }
        output.push_str(text);
        return;
    }
    let last_ends_with_space = output.ends_with(' ');
    if is_plain_text(text) {
        let text = if trim_leading_spaces || (text.starts_with(' ') && last_ends_with_space) {
            text.trim_start_matches(' ')
        } else {
            text
        };
        output.push_str(text);
        return;
    }
    if text.bytes().all(|b| b.is_ascii_whitespace()) {
        // Whitespace between blocks (the `\n` between two paragraphs), the commonest text
        // that is not plain: no escape applies and it compresses to one space, which is
        // written as below.
        if !(trim_leading_spaces || last_ends_with_space) {
            output.push(' ');
        }
        return;
    }
    let escaped = escape_text(text);
    let compressed = compress_whitespace(&escaped);
    let to_add = if trim_leading_spaces || (compressed.starts_with(' ') && last_ends_with_space) {
        compressed.trim_start_matches(' ')
    } else {
        &compressed
    };
    output.push_str(to_add);
}

/// The element handlers; `None` writes nothing.
fn handle(node: &NodeRef, name: &str, tag: Tag, in_pre: bool) -> Option<String> {
    match tag {
        Tag::Skipped => None,
        Tag::Img => image(node),
        Tag::A => Some(anchor(node, name, in_pre)),
        Tag::List { ordered } => list(node, name, ordered, in_pre),
        Tag::Li => Some(list_item(node, name, in_pre)),
        Tag::Blockquote => {
            let whole = walk_children(node, name, in_pre);
            let content = whole
                .trim_start_matches('\n')
                .trim_end_matches(is_document_whitespace);
            let mut out = String::with_capacity(content.len() + 16);
            out.push_str("\n\n");
            for (i, line) in content.lines().enumerate() {
                if i > 0 {
                    out.push('\n');
                }
                out.push_str("> ");
                out.push_str(line);
            }
            out.push_str("\n\n");
            recycle(whole);
            Some(out)
        }
        Tag::Code => Some(code(node, name, in_pre)),
        Tag::Strong => emphasis(node, name, in_pre, "**"),
        Tag::Em => emphasis(node, name, in_pre, "*"),
        Tag::Heading(level) => {
            let whole = walk_children(node, name, in_pre);
            let content = whole
                .trim_matches(is_document_whitespace)
                .trim_matches('\n');
            let mut out = String::with_capacity(content.len() + 12);
            out.push_str("\n\n");
            for _ in 0..level {
                out.push('#');
            }
            out.push(' ');
            out.push_str(content);
            out.push_str("\n\n");
            recycle(whole);
            Some(out)
        }
        Tag::Br => Some("  \n".to_owned()),
        Tag::Hr => Some("\n\n* * *\n\n".to_owned()),
        Tag::Table => Some(table(node, name, in_pre)),
        // `walk_node` appends these two itself, in place (`append_block`).
        Tag::Block | Tag::Pre => None,
        Tag::Span | Tag::Other | Tag::Script(_) => Some(walk_children(node, name, in_pre)),
    }
}

/// The marks that set a superscript (`sup`) or subscript apart from its base text (DESIGN
/// §12): `mc^2`, `H_2O`, and in parentheses when it is more than one term (`x^(n+1)`,
/// `a_(i, j)`), unless it is bracketed already (a footnote's `^[1]`). `None` when it is
/// empty, and `("", "")` for an ordinal indicator after a digit (`21<sup>st</sup>`,
/// `1<sup>er</sup>`, `2<sup>o</sup>`): typesetting raises those, plain text writes them
/// inline, and `21st` means what it says. `before` is the character just before the
/// element. The text writer uses the same marks.
pub(crate) fn script_affixes(
    body: &str,
    sup: bool,
    before: Option<char>,
) -> Option<(&'static str, &'static str)> {
    let first = body.chars().next()?;
    if sup && before.is_some_and(|c| c.is_ascii_digit()) && ORDINALS.contains(&body) {
        return Some(("", ""));
    }
    let bracketed = (first == '(' && body.ends_with(')')) || (first == '[' && body.ends_with(']'));
    let several = !bracketed
        && body[first.len_utf8()..].chars().any(|c| {
            c.is_whitespace() || matches!(c, '+' | '-' | '*' | '/' | '=' | ',' | ';' | '^' | '_')
        });
    Some(match (sup, several) {
        (true, false) => ("^", ""),
        (true, true) => ("^(", ")"),
        (false, false) => ("_", ""),
        (false, true) => ("_(", ")"),
    })
}

/// Ordinal indicators that follow a number (English, French, Spanish, Italian,
/// Portuguese): written inline, not as superscripts.
const ORDINALS: &[&str] = &[
    "st", "nd", "rd", "th", "er", "re", "e", "ème", "eme", "es", "ers", "res", "o", "a", "os",
    "as", "º", "ª",
];

/// `append_normalized(output, block(content), in_pre)` without the string `block` makes:
/// the framed content is never empty and starts with two newlines, so `append_normalized`
/// only drops as many of them as `output` already ends with (two at most).
fn append_block(output: &mut String, content: &str, in_pre: bool) {
    let content = content.trim_matches('\n');
    if content.is_empty() {
        // Four newlines in a row: left to the general rule.
        append_normalized(output, block(content), in_pre);
        return;
    }
    let skip = if in_pre || output.is_empty() {
        0
    } else {
        (output.len() - output.trim_end_matches('\n').len()).min(2)
    };
    output.reserve(content.len() + 4 - skip);
    output.push_str(&"\n\n"[skip..]);
    output.push_str(content);
    output.push_str("\n\n");
}

fn block(content: &str) -> String {
    let content = content.trim_matches('\n');
    let mut out = String::with_capacity(content.len() + 4);
    out.push_str("\n\n");
    out.push_str(content);
    out.push_str("\n\n");
    out
}

fn emphasis(node: &NodeRef, name: &str, in_pre: bool, marker: &str) -> Option<String> {
    let content = walk_children(node, name, in_pre);
    let body = content.trim();
    if body.is_empty() {
        return None;
    }
    let lead = &content[..content.len() - content.trim_start().len()];
    let trail = &content[content.trim_end().len()..];
    let mut out = String::with_capacity(content.len() + 2 * marker.len());
    for part in [lead, marker, body, marker, trail] {
        out.push_str(part);
    }
    recycle(content);
    Some(out)
}

// --- links and images ------------------------------------------------------------------

fn anchor(node: &NodeRef, name: &str, in_pre: bool) -> String {
    let content = walk_children(node, name, in_pre);
    let Some(href) = node.attr("href") else {
        return content;
    };
    // `javascript:` leads nowhere, and a link with nothing to show (icon fonts, vote
    // arrows) is noise: the text only.
    let javascript = href
        .trim_start()
        .get(..11)
        .is_some_and(|s| s.eq_ignore_ascii_case("javascript:"));
    if javascript || content.trim().is_empty() {
        return content;
    }
    let title = node.attr("title").map(|t| quoted_title(&t));
    let text = content.trim_start_matches(is_document_whitespace);
    let trimmed = text.trim_end_matches(is_document_whitespace);
    let trailing = &text[trimmed.len()..];
    let mut out = inline_link("[", trimmed, &href, title.as_deref());
    out.push_str(trailing);
    recycle(content);
    out
}

/// `{open}{text}](dest "title")`: a link (`open` = `[`) or an image (`![`), the destination
/// in `<…>` when it holds a space.
fn inline_link(open: &str, text: &str, dest: &str, title: Option<&str>) -> String {
    // Escaping parentheses adds no space.
    let spaces = dest.contains(' ');
    let mut out =
        String::with_capacity(open.len() + text.len() + dest.len() + title.map_or(0, str::len) + 8);
    out.push_str(open);
    out.push_str(text);
    out.push_str("](");
    if spaces {
        out.push('<');
    }
    push_escaping_parens(&mut out, dest);
    if spaces {
        out.push('>');
    }
    if let Some(title) = title {
        out.push_str(" \"");
        out.push_str(title);
        out.push('"');
    }
    out.push(')');
    out
}

/// A link title: non-empty lines trimmed, `"` escaped.
fn quoted_title(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text
        .lines()
        .map(|l| l.trim_matches(is_document_whitespace))
        .filter(|l| !l.is_empty())
    {
        if !out.is_empty() {
            out.push('\n');
        }
        for ch in line.chars() {
            if ch == '"' {
                out.push('\\');
            }
            out.push(ch);
        }
    }
    out
}

/// `link` with a backslash before each `(` and `)`, appended to `out`: the text between
/// them copied whole (a link target is long and seldom holds one).
fn push_escaping_parens(out: &mut String, link: &str) {
    let mut from = 0;
    for (at, _) in link.match_indices(['(', ')']) {
        out.push_str(&link[from..at]);
        out.push('\\');
        from = at;
    }
    out.push_str(&link[from..]);
}

/// `![alt](src)` when the image has a source and alt text; an inline (`data:`) image is
/// its alt text alone.
fn image(node: &NodeRef) -> Option<String> {
    let src = node.attr("src")?;
    let alt = node
        .attr("alt")
        .map(|a| quoted_title(&a))
        .unwrap_or_default();
    if src
        .trim_start()
        .get(..5)
        .is_some_and(|s| s.eq_ignore_ascii_case("data:"))
    {
        return Some(collapse_whitespace(&alt));
    }
    if alt.is_empty() {
        return None;
    }
    let title = node.attr("title").map(|t| quoted_title(&t));
    Some(inline_link("![", &alt, &src, title.as_deref()))
}

fn collapse_whitespace(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

// --- code ------------------------------------------------------------------------------

fn code(node: &NodeRef, name: &str, in_pre: bool) -> String {
    let in_block = node.parent().is_some_and(|p| p.has_name("pre"));
    let content = walk_children(node, name, in_pre);
    if in_block {
        let content = content.strip_suffix('\n').unwrap_or(&content);
        let fence = "`".repeat(3.max(longest_run(content, b'`') + 1));
        let language =
            language_class(node).or_else(|| node.parent().and_then(|p| language_class(&p)));
        let mut out = String::with_capacity(content.len() + 2 * fence.len() + 16);
        out.push_str(&fence);
        if let Some(lang) = language {
            out.push_str(&lang);
        }
        out.push('\n');
        out.push_str(content);
        out.push('\n');
        out.push_str(&fence);
        return out;
    }
    let content = content.trim_matches(is_document_whitespace);
    let edge = content.starts_with('`') || content.ends_with('`');
    let delimiter_len = if edge {
        longest_run(content, b'`') + 1
    } else {
        // The shortest run length not used inside.
        let runs = run_lengths(content, b'`');
        (1..).find(|len| !runs.contains(len)).unwrap_or(1)
    };
    let delimiter = "`".repeat(delimiter_len);
    if edge {
        format!("{delimiter} {content} {delimiter}")
    } else {
        format!("{delimiter}{content}{delimiter}")
    }
}

/// The language of a `class="language-X"` token.
fn language_class(node: &NodeRef) -> Option<String> {
    let class = node.attr("class")?;
    let token = class.split(' ').find(|c| c.starts_with("language-"))?;
    Some(token.split('-').skip(1).collect::<Vec<_>>().join("-"))
}

fn longest_run(s: &str, b: u8) -> usize {
    run_lengths(s, b).into_iter().max().unwrap_or(0)
}

fn run_lengths(s: &str, b: u8) -> Vec<usize> {
    let mut runs = Vec::new();
    let mut current = 0;
    for byte in s.bytes() {
        if byte == b {
            current += 1;
        } else if current > 0 {
            runs.push(current);
            current = 0;
        }
    }
    if current > 0 {
        runs.push(current);
    }
    runs
}

// --- lists -----------------------------------------------------------------------------

fn list(node: &NodeRef, name: &str, ordered: bool, in_pre: bool) -> Option<String> {
    let in_li = node.parent().is_some_and(|p| p.has_name("li"));
    let content = if ordered {
        ordered_content(node, in_pre)
    } else {
        walk_children(node, name, in_pre)
    };
    let trimmed = content.trim_matches('\n');
    if trimmed.is_empty() {
        return None;
    }
    let sep = if in_li { "\n" } else { "\n\n" };
    let out = [sep, trimmed, sep].concat();
    recycle(content);
    Some(out)
}

fn ordered_content(node: &NodeRef, in_pre: bool) -> String {
    let start = node
        .attr("start")
        .map(|s| s.parse::<i32>().unwrap_or(1).max(1))
        .unwrap_or(1) as usize;
    let mut parts: Vec<(String, bool)> = Vec::new();
    let mut items = 0usize;
    for child in node.children_it(false) {
        let is_li = child.has_name("li");
        items += usize::from(is_li);
        parts.push((handle_alone(&child, in_pre), is_li));
    }
    let highest = start.saturating_add(items).saturating_sub(1);
    let width = digits(highest);
    let mut index = start.saturating_sub(1);
    let contents: Vec<String> = parts
        .into_iter()
        .map(|(text, is_li)| {
            if !is_li {
                return text;
            }
            index = index.saturating_add(1);
            let number = index.to_string();
            let spacing = " ".repeat(1 + width.saturating_sub(number.len()));
            let body = indent_except_first_line(
                text.trim_start_matches('\n'),
                number.len() + 1 + spacing.len(),
            );
            format!("\n{number}.{spacing}{body}")
        })
        .collect();
    join_blocks(&contents)
}

fn digits(n: usize) -> usize {
    n.checked_ilog10().map_or(1, |d| d as usize + 1)
}

fn list_item(node: &NodeRef, name: &str, in_pre: bool) -> String {
    let whole = walk_children(node, name, in_pre);
    let content = whole.trim_start_matches(is_document_whitespace);
    let out = if node.parent().is_some_and(|p| p.has_name("ol")) {
        ["\n", content, "\n"].concat()
    } else {
        let mut out = String::with_capacity(content.len() + 16);
        out.push_str("\n- ");
        push_indented_except_first_line(&mut out, content, 2);
        out
    };
    recycle(whole);
    out
}

/// Indent every line but the first by `indent` spaces (empty lines stay empty); line ends
/// are trimmed.
fn indent_except_first_line(text: &str, indent: usize) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    push_indented_except_first_line(&mut out, text, indent);
    out
}

/// [`indent_except_first_line`], appended to `out`.
fn push_indented_except_first_line(out: &mut String, text: &str, indent: usize) {
    // `lines()` but for its search: without a final line break the last line is the
    // same, and a `\r` before a break goes with the trimmed line end.
    let text = text.strip_suffix('\n').unwrap_or(text);
    for (i, line) in crate::content::tidy::split_newlines(text).enumerate() {
        let line = line.trim_end_matches(is_document_whitespace);
        if i > 0 {
            out.push('\n');
            if !line.is_empty() {
                out.extend(std::iter::repeat_n(' ', indent));
            }
        }
        out.push_str(line);
    }
}

/// Join blocks with at most one blank line between them (htmd's `join_blocks`).
fn join_blocks(contents: &[String]) -> String {
    let mut result = String::with_capacity(contents.iter().map(String::len).sum());
    for content in contents.iter().filter(|c| !c.is_empty()) {
        let left = result.trim_end_matches('\n').len();
        let right = content.trim_start_matches('\n');
        let newlines = (result.len() - left)
            .max(content.len() - right.len())
            .min(2);
        result.truncate(left);
        for _ in 0..newlines {
            result.push('\n');
        }
        result.push_str(right);
    }
    result
}

// --- tables ----------------------------------------------------------------------------

fn table(node: &NodeRef, name: &str, in_pre: bool) -> String {
    if !has_header_cells(node) || inside_table_cell(node) {
        // A layout table: its cells as blocks.
        return walk_children(node, name, in_pre);
    }
    let mut captions: Vec<String> = Vec::new();
    let mut headers: Vec<String> = Vec::new();
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut has_head = false;
    for child in node.children_it(false) {
        let Some(child_name) = tag_name(&child) else {
            continue;
        };
        match &*child_name {
            "caption" => {
                captions.push(
                    handle_alone(&child, in_pre)
                        .trim_matches(is_document_whitespace)
                        .to_owned(),
                );
            }
            "thead" => {
                let row = child
                    .children_it(false)
                    .find(|c| c.has_name("tr"))
                    .unwrap_or(child);
                has_head = true;
                headers = row_cells(&row, "th", in_pre);
                if headers.is_empty() {
                    headers = row_cells(&row, "td", in_pre);
                }
            }
            "tbody" | "tfoot" => {
                for row in child.children_it(false).filter(|r| r.has_name("tr")) {
                    if !has_head && headers.is_empty() {
                        headers = row_cells(&row, "th", in_pre);
                        has_head = !headers.is_empty();
                        if has_head {
                            continue;
                        }
                    }
                    let cells = row_cells(&row, "td", in_pre);
                    if !cells.is_empty() {
                        rows.push(cells);
                    }
                }
            }
            "tr" => {
                if !has_head && headers.is_empty() {
                    headers = row_cells(&child, "th", in_pre);
                    if headers.is_empty() {
                        headers = row_cells(&child, "td", in_pre);
                    }
                    has_head = !headers.is_empty();
                } else {
                    let cells = row_cells(&child, "td", in_pre);
                    if !cells.is_empty() {
                        rows.push(cells);
                    }
                }
            }
            _ => {}
        }
    }
    // Rows with nothing to read (spacer images, layout corners) are noise.
    rows.retain(|row| row.iter().any(|c| !c.is_empty()));
    if rows.is_empty() && headers.iter().all(String::is_empty) {
        headers.clear();
    }
    let columns = rows
        .iter()
        .map(Vec::len)
        .max()
        .unwrap_or(0)
        .max(headers.len());
    if columns == 0 {
        let content = walk_children(node, name, in_pre);
        let content = content.trim_matches('\n');
        if content.is_empty() {
            return String::new();
        }
        return block(content);
    }
    let mut out = String::from("\n\n");
    for caption in captions {
        out.push_str(&caption);
        out.push('\n');
    }
    if !headers.is_empty() {
        push_row(&mut out, &headers, columns);
        out.push('|');
        for _ in 0..columns {
            out.push_str(" --- |");
        }
        out.push('\n');
    }
    for row in &rows {
        push_row(&mut out, row, columns);
    }
    out.push('\n');
    out
}

fn push_row(out: &mut String, cells: &[String], columns: usize) {
    out.push('|');
    for i in 0..columns {
        out.push(' ');
        if let Some(cell) = cells.get(i) {
            for ch in cell.chars() {
                match ch {
                    '\n' => out.push(' '),
                    '\r' => {}
                    '|' => out.push_str("\\|"),
                    _ => out.push(ch),
                }
            }
        }
        out.push_str(" |");
    }
    out.push('\n');
}

fn row_cells(row: &NodeRef, cell_tag: &str, in_pre: bool) -> Vec<String> {
    row.children_it(false)
        .filter(|c| c.has_name(cell_tag))
        .map(|cell| {
            handle_alone(&cell, in_pre)
                .trim_matches(is_document_whitespace)
                .to_owned()
        })
        .collect()
}

/// Whether the table has `th` or `thead` of its own (not in a nested table).
fn has_header_cells(table: &NodeRef) -> bool {
    let mut stack: Vec<NodeRef> = table.children_it(false).collect();
    while let Some(node) = stack.pop() {
        let Some(name) = tag_name(&node) else {
            continue;
        };
        match &*name {
            "table" => continue,
            "th" | "thead" => return true,
            _ => stack.extend(node.children_it(false)),
        }
    }
    false
}

fn inside_table_cell(node: &NodeRef) -> bool {
    node.ancestors_it(None)
        .any(|a| a.has_name("td") || a.has_name("th"))
}

// --- text ------------------------------------------------------------------------------

/// Text that needs no escape and no whitespace change.
///
/// Tested 32 bytes at a time with a branch-free test of each byte (which vectorises;
/// text nodes are most of a page's bytes and nearly all of them are plain), and two
/// spaces in a row looked for in a second such pass.
fn is_plain_text(text: &str) -> bool {
    let bytes = text.as_bytes();
    let Some(&first) = bytes.first() else {
        return true;
    };
    if matches!(first, b'=' | b'~' | b'>' | b'-' | b'+' | b'#' | b'0'..=b'9') {
        return false;
    }
    // Markdown syntax, and whitespace other than a space (9..=13: `\t \n` VT FF `\r`).
    let special = |c: u8| {
        (c == b'\\')
            | (c == b'*')
            | (c == b'_')
            | (c == b'`')
            | (c == b'[')
            | (c == b']')
            | (c == b'<')
            | (c.wrapping_sub(9) < 5)
    };
    for chunk in bytes.chunks(32) {
        if chunk.iter().fold(0u8, |hit, &c| hit | u8::from(special(c))) != 0 {
            return false;
        }
    }
    // Each byte beside the next: also branch-free.
    let (head, next) = (
        bytes.get(..bytes.len() - 1).unwrap_or(&[]),
        bytes.get(1..).unwrap_or(&[]),
    );
    let two_spaces = head.iter().zip(next).fold(0u8, |hit, (&a, &b)| {
        hit | u8::from((a == b' ') & (b == b' '))
    });
    two_spaces == 0
}

/// Backslash escapes of what Markdown would read as syntax: `\ * \` [ ]` anywhere, `_`
/// unless it stands between two letters or digits; at
/// the start of a text, `= ~ >`, a `- `/`+ ` bullet, an ATX `#`, and the dot of `1. `;
/// and `<` before something tag-like.
fn escape_text(text: &str) -> std::borrow::Cow<'_, str> {
    let Some(first) = text.chars().next() else {
        return std::borrow::Cow::Borrowed(text);
    };
    let structural = matches!(first, '=' | '~' | '>' | '-' | '+' | '#' | '0'..='9');
    let specials = text
        .bytes()
        .any(|b| matches!(b, b'\\' | b'*' | b'_' | b'`' | b'[' | b']'));
    if !structural && !specials {
        return escape_html_like(std::borrow::Cow::Borrowed(text));
    }
    let leading = match first {
        '=' | '~' | '>' => true,
        '-' | '+' => text[first.len_utf8()..].starts_with(' '),
        '#' => is_atx_heading(text),
        _ => false,
    };
    let mut escaped = String::with_capacity(text.len() + 8);
    if leading {
        escaped.push('\\');
    }
    let mut prev: Option<char> = None;
    let mut chars = text.chars().peekable();
    while let Some(ch) = chars.next() {
        let special = match ch {
            '\\' | '*' | '`' | '[' | ']' => true,
            // A `_` between two letters or digits is inert in CommonMark (it can neither
            // open nor close emphasis): `snake_case`, `linux-x86_64` stay as written.
            '_' => {
                !(prev.is_some_and(char::is_alphanumeric)
                    && chars.peek().is_some_and(|c| c.is_alphanumeric()))
            }
            _ => false,
        };
        if special {
            escaped.push('\\');
        }
        escaped.push(ch);
        prev = Some(ch);
    }
    if first.is_ascii_digit() {
        if let Some(dot) = ordered_item_dot(&escaped) {
            escaped.replace_range(dot..dot + 1, "\\.");
        }
    }
    escape_html_like(std::borrow::Cow::Owned(escaped))
}

fn is_atx_heading(text: &str) -> bool {
    let mut prev_hash = false;
    for ch in text.chars() {
        match ch {
            '#' => prev_hash = true,
            ' ' => return prev_hash,
            _ => return false,
        }
    }
    false
}

/// The byte offset of the dot in a leading `123. `.
fn ordered_item_dot(text: &str) -> Option<usize> {
    let mut prev_numeric = false;
    let mut prev_dot = false;
    let mut dot = 0;
    for (offset, ch) in text.char_indices() {
        if ch.is_numeric() {
            if prev_dot {
                return None;
            }
            prev_numeric = true;
        } else if ch == '.' {
            if !prev_numeric {
                return None;
            }
            dot = offset;
            prev_dot = true;
        } else if ch == ' ' {
            return prev_dot.then_some(dot);
        } else {
            return None;
        }
    }
    None
}

/// `\<` before what Markdown would take for raw HTML (`<a`, `</a`, `<!`, `<?`).
fn escape_html_like(text: std::borrow::Cow<'_, str>) -> std::borrow::Cow<'_, str> {
    if !text.contains('<') {
        return text;
    }
    let src = text.as_ref();
    let mut out = String::with_capacity(src.len() + 8);
    let mut last = 0;
    let mut modified = false;
    for (i, _) in src.match_indices('<') {
        let rest = &src[i + 1..];
        let mut chars = rest.chars();
        let tag_like = match chars.next() {
            Some('!') => {
                !(rest[1..].starts_with("[CDATA[") || rest[1..].starts_with("\\[CDATA\\["))
            }
            Some('?') => true,
            Some('/') => chars.next().is_some_and(|c| c.is_ascii_alphabetic()),
            Some(c) => c.is_ascii_alphabetic(),
            None => false,
        };
        if tag_like {
            out.push_str(&src[last..i]);
            out.push('\\');
            last = i;
            modified = true;
        }
    }
    if !modified {
        return text;
    }
    out.push_str(&src[last..]);
    std::borrow::Cow::Owned(out)
}

/// Runs of ASCII whitespace become one space.
fn compress_whitespace(input: &str) -> String {
    let mut out = String::with_capacity(input.len());
    let mut in_space = false;
    for c in input.chars() {
        if c.is_ascii_whitespace() {
            if !in_space {
                out.push(' ');
            }
            in_space = true;
        } else {
            out.push(c);
            in_space = false;
        }
    }
    out
}

/// Append a handler's output, keeping at most one blank line where blocks meet and one
/// space where inline content meets (htmd's `append_normalized_content`).
fn append_normalized(output: &mut String, content: String, in_pre: bool) {
    if output.is_empty() {
        recycle(std::mem::replace(output, content));
        return;
    }
    if in_pre {
        output.push_str(&content);
        recycle(content);
        return;
    }
    let last_newlines = output.len() - output.trim_end_matches('\n').len();
    let content_newlines = content.len() - content.trim_start_matches('\n').len();
    let mut start = 0;
    let total = last_newlines + content_newlines;
    if total > 2 {
        start = (total - 2).min(content_newlines);
    }
    let whole = content;
    let mut content = &whole[start..];
    if last_newlines == 0 && content_newlines == 0 && output.ends_with(' ') {
        content = content.strip_prefix(' ').unwrap_or(content);
    }
    output.push_str(content);
    recycle(whole);
}

fn trim_newlines(content: &mut String) {
    let end = content.trim_end_matches('\n').len();
    content.truncate(end);
    let start = content.len() - content.trim_start_matches('\n').len();
    content.drain(..start);
}

fn is_document_whitespace(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | ' ')
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Appending a block in place writes what framing it first and appending the
        /// frame wrote, after any output, in and out of code.
        #[test]
        fn append_block_is_append_normalized_of_block(
            before in "[a \\n]{0,6}",
            content in "[a \\n]{0,6}",
            in_pre: bool,
        ) {
            let mut framed = before.clone();
            append_normalized(&mut framed, block(&content), in_pre);
            let mut direct = before;
            append_block(&mut direct, &content, in_pre);
            proptest::prop_assert_eq!(direct, framed);
        }

        /// Indenting splits lines as `str::lines` does: a last line break, `\r\n`, blank
        /// lines, no text at all.
        #[test]
        fn indenting_reads_the_lines_that_lines_reads(text in "[a \t\r\n]{0,16}", indent in 0usize..4) {
            let mut want = String::new();
            for (i, line) in text.lines().enumerate() {
                let line = line.trim_end_matches(is_document_whitespace);
                if i > 0 {
                    want.push('\n');
                    if !line.is_empty() {
                        want.push_str(&" ".repeat(indent));
                    }
                }
                want.push_str(line);
            }
            proptest::prop_assert_eq!(indent_except_first_line(&text, indent), want);
        }

        /// The chunked test agrees with the byte-by-byte definition on any text.
        #[test]
        fn plain_text_test_is_the_byte_rule(
            s in "(?s)([a é.,]{0,12}[ a\\t\\n\\r\\x0b\\x0c\\\\*_`\\[\\]<=~>+#0-9-]?){0,8}"
        ) {
            let slow = |text: &str| -> bool {
                let bytes = text.as_bytes();
                let Some(&first) = bytes.first() else {
                    return true;
                };
                if matches!(first, b'=' | b'~' | b'>' | b'-' | b'+' | b'#' | b'0'..=b'9') {
                    return false;
                }
                let mut previous_was_space = false;
                for &byte in bytes {
                    match byte {
                        b'\\' | b'*' | b'_' | b'`' | b'[' | b']' | b'<' => return false,
                        b' ' => {
                            if previous_was_space {
                                return false;
                            }
                            previous_was_space = true;
                        }
                        b'\t' | b'\n' | b'\r' | 0x0C | 0x0B => return false,
                        _ => previous_was_space = false,
                    }
                }
                true
            };
            let long = s.repeat(3);
            proptest::prop_assert_eq!(is_plain_text(&s), slow(&s));
            proptest::prop_assert_eq!(is_plain_text(&long), slow(&long));
        }
    }
    use dom_query::Document;

    /// The Markdown of a page's `<body>`.
    fn md(html: &str) -> String {
        let doc = Document::from(html);
        let body = doc.select("body");
        body.nodes().first().map(to_markdown).unwrap_or_default()
    }

    /// Each `(` and `)` gets a backslash before it, and nothing else changes: as the
    /// char-by-char copy it replaced.
    #[test]
    fn parentheses_in_a_link_target_are_escaped_in_place() {
        let by_char = |link: &str| {
            let mut out = String::new();
            for ch in link.chars() {
                if matches!(ch, '(' | ')') {
                    out.push('\\');
                }
                out.push(ch);
            }
            out
        };
        for link in [
            "",
            "(",
            "https://en.wikipedia.org/wiki/Rust_(programming_language)",
            "/a(b)c((d))é(ü)",
            "no parentheses at all",
            "))((",
        ] {
            let mut out = String::from("[x](");
            push_escaping_parens(&mut out, link);
            assert_eq!(out, format!("[x]({}", by_char(link)), "{link}");
        }
    }
    #[test]
    fn a_figure_whose_caption_went_leaves_no_trailing_space() {
        // The credit caption was removed as boilerplate; the space before it stayed.
        let doc = dom_query::Document::from(
            "<body><figure><img src=a.png alt=\"A ferry\">\n<figcaption>Photo: AP</figcaption>\
             </figure><p>Next <b>x</b> </p></body>",
        );
        doc.select("figcaption").remove();
        let out = to_markdown(&doc.select("body").nodes()[0]);
        assert_eq!(out, "![A ferry](a.png)\n\nNext **x**");
    }

    #[test]
    fn blocks_and_inline_markup() {
        assert_eq!(
            md("<h2>Title</h2><p>Some <b>bold</b>, <em>soft</em> and <code>a`b</code> text.</p><hr><p>x<br>y</p>"),
            "## Title\n\nSome **bold**, *soft* and ``a`b`` text.\n\n* * *\n\nx  \ny"
        );
    }

    #[test]
    fn superscripts_and_subscripts_are_told_from_the_base_text() {
        // Regression (issue 23): `mc<sup>2</sup>` read `mc2`.
        assert_eq!(
            md(
                "<p>E = mc<sup>2</sup>, H<sub>2</sub>O, x<sup>n+1</sup>, a<sub>i, j</sub>, \
                 A<sup>H</sup>, cite<sup>[1]</sup>, x<sup>-1</sup>, e<sup> </sup>.</p>"
            ),
            "E = mc^2, H_2O, x^(n+1), a_(i, j), A^H, cite^[1], x^-1, e .".replace("[1]", "\\[1\\]")
        );
        // Ordinal indicators after a number are written inline.
        assert_eq!(
            md("<p>the 21<sup>st</sup> and 1<sup>er</sup> but x<sup>th</sup></p>"),
            "the 21st and 1er but x^th"
        );
        // A subscript after a space is escaped: it could open emphasis.
        assert_eq!(md("<p>the <sub>2</sub> here</p>"), "the \\_2 here");
        // Inside code, as written.
        assert_eq!(md("<pre><code>x<sup>2</sup></code></pre>"), "```\nx2\n```");
    }

    #[test]
    fn escapes_markdown_syntax_in_text() {
        assert_eq!(md("<p>a_b *c* [d] \\ e</p>"), "a_b \\*c\\* \\[d\\] \\\\ e");
        // A `_` escapes only where CommonMark could read it as emphasis.
        assert_eq!(
            md("<p>_a_ __init__ x_ _y linux-x86_64 snake_case_name a__b</p>"),
            "\\_a\\_ \\_\\_init\\_\\_ x\\_ \\_y linux-x86_64 snake_case_name a\\_\\_b"
        );
        assert_eq!(md("<p># not a heading</p>"), "\\# not a heading");
        assert_eq!(md("<p>1. not a list</p>"), "1\\. not a list");
        assert_eq!(md("<p>- not a bullet</p>"), "\\- not a bullet");
        assert_eq!(
            md("<p>&lt;script&gt; and 1 &lt; 2</p>"),
            "\\<script> and 1 < 2"
        );
        assert_eq!(md("<p>&gt; quote</p>"), "\\> quote");
    }

    #[test]
    fn links_and_images() {
        assert_eq!(
            md("<p><a href=\"/a (1)\">x</a> <a href=\"javascript:go()\">menu</a> <a href=\"/i\"><i class=\"icon\"></i></a> <a href=\"/t\" title='say \"hi\"'>t</a></p>"),
            "[x](</a \\(1\\)>) menu [t](/t \"say \\\"hi\\\"\")"
        );
        assert_eq!(
            md("<p><img src=\"/a.png\" alt=\"A chart\"> <img src=\"/spacer.gif\"> <img src=\"data:image/png;base64,AAAA\" alt=\"inline  pic\"></p>"),
            "![A chart](/a.png) inline pic"
        );
    }

    #[test]
    fn lists_nest_and_number_from_start() {
        assert_eq!(
            md("<ul><li>a<ul><li>b</li></ul></li><li>c</li></ul>"),
            "- a\n  - b\n- c"
        );
        assert_eq!(
            md("<ol start=\"9\"><li>nine</li><li>ten<p>more</p></li></ol>"),
            "9.  nine\n10. ten\n\n    more"
        );
    }

    #[test]
    fn code_blocks_are_fenced_with_their_language() {
        assert_eq!(
            md("<pre><code class=\"language-rust\">fn main() {\n    x &lt; 1;\n}\n</code></pre>"),
            "```rust\nfn main() {\n    x < 1;\n}\n```"
        );
        assert_eq!(
            md("<pre class=\"language-sh\"><code>```\nnested\n```</code></pre>"),
            "````sh\n```\nnested\n```\n````"
        );
    }

    #[test]
    fn quotes_and_tables() {
        assert_eq!(
            md("<blockquote><p>one</p><p>two</p></blockquote>"),
            "> one\n> \n> two"
        );
        assert_eq!(
            md("<table><tr><th>k</th><th>v</th></tr><tr><td>a|b</td><td>1</td></tr></table>"),
            "| k | v |\n| --- | --- |\n| a\\|b | 1 |"
        );
        assert_eq!(
            md("<table><tr><th>k</th><th>v</th></tr><tr><td><img src=/c.gif></td><td></td></tr>\
                <tr><td>a</td><td>1</td></tr></table><table><tr><th><img src=/x.gif></th></tr></table>"),
            "| k | v |\n| --- | --- |\n| a | 1 |"
        );
        // No header cells: a layout table, written as blocks.
        assert_eq!(md("<table><tr><td>A</td><td>B</td></tr></table>"), "A\n\nB");
    }

    #[test]
    fn skipped_elements_and_merged_runs() {
        assert_eq!(
            md("<nav>menu</nav><p>x<script>var a</script><b>he</b><strong>llo</strong></p><button>b</button>"),
            "x**hello**"
        );
    }

    #[test]
    fn max_depth_fits_in_half_a_default_thread_stack() {
        // MAX_DEPTH levels of the costliest kinds of nesting, in a 1 MiB stack (threads
        // get 2 MiB): less than 4 KiB per level, even in a debug build.
        let depth = crate::content::parse::MAX_DEPTH / 4;
        let html = format!(
            "{}x{}",
            "<div><blockquote><ul><li>".repeat(depth),
            "</li></ul></blockquote></div>".repeat(depth)
        );
        let out = std::thread::Builder::new()
            .stack_size(1 << 20)
            .spawn(move || md(&html))
            .ok()
            .and_then(|h| h.join().ok());
        assert!(out.is_some_and(|o| o.ends_with('x')));
    }

    #[test]
    fn deep_nesting_stays_within_the_stack() {
        let html = format!(
            "{}x{}",
            "<div><span>".repeat(128),
            "</span></div>".repeat(128)
        );
        assert_eq!(md(&html), "x");
    }
}
