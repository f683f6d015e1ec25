//! What pages of every kind need before main-content selection (issue 27): the content a
//! page serves to readers without JavaScript (`<noscript>`), ids that only repeat a
//! heading, and the author lines of a thread's posts. Whole elements only are removed or
//! renamed; no word is cut (DESIGN §12).

use dom_query::{Document, NodeData, NodeRef};

/// A `<noscript>` holding at least this many non-whitespace characters may be the page's
/// content (see [`unwrap_noscript_content`]).
pub(crate) const NOSCRIPT_CONTENT: usize = 200;

/// Keep the content a page serves to readers without JavaScript. Discourse renders a whole
/// topic, every post, inside `<noscript>` and leaves the rest of its body empty for its
/// script; readability and the writers drop `<noscript>` (usually a "please enable
/// JavaScript" notice or a tracking pixel), and the page came back with no text. A
/// `<noscript>` in the body that holds [`NOSCRIPT_CONTENT`] characters or more, and more
/// text than all of the body outside its `<noscript>`s, is what a reader without scripts
/// sees of the page (vetch runs none): it becomes a `<div>`, so it is selected and written
/// like any block. Other `<noscript>`s stay and are dropped as before.
pub(crate) fn unwrap_noscript_content(noscripts: &[NodeRef]) {
    if noscripts.is_empty() {
        return;
    }
    let sized: Vec<(NodeRef, usize)> = noscripts
        .iter()
        .filter(|n| n.ancestors_it(None).any(|a| a.has_name("body")))
        .map(|n| (*n, text_chars(n)))
        .collect();
    let Some((_, largest)) = sized.iter().max_by_key(|(_, c)| *c) else {
        return;
    };
    if *largest < NOSCRIPT_CONTENT {
        return;
    }
    let Some(body) = noscripts
        .first()
        .and_then(|n| n.ancestors_it(None).find(|a| a.has_name("body")))
    else {
        return;
    };
    // Nested <noscript>s are counted in their outer one only (the sum is an upper bound of
    // the text inside them, which keeps `outside` a lower bound).
    let inside: usize = sized.iter().map(|(_, c)| c).sum();
    let outside = text_chars(&body).saturating_sub(inside);
    for (node, chars) in sized {
        if chars >= NOSCRIPT_CONTENT && chars > outside {
            node.rename("div");
        }
    }
}

/// Non-whitespace characters of the text under `node`, scripts and styles left out.
fn text_chars(node: &NodeRef) -> usize {
    node.descendants_it()
        .filter(|d| d.is_text())
        .filter(|d| {
            !d.parent()
                .is_some_and(|p| p.has_name("script") || p.has_name("style"))
        })
        .map(|d| {
            d.query_or(0, |n| match &n.data {
                NodeData::Text { contents } => {
                    contents.chars().filter(|c| !c.is_whitespace()).count()
                }
                _ => 0,
            })
        })
        .sum()
}

/// Whether `node`'s `id` is the slug of the heading it starts with (`replies-to-top-posting`
/// on a section whose first child is `<h2>Replies to top posting</h2>`), three words or
/// more: a name made from a title, not a name of what the block is.
pub(crate) fn is_heading_slug(node: &NodeRef) -> bool {
    let Some(id) = node.attr("id") else {
        return false;
    };
    let Some(heading) = node.element_children().into_iter().next().filter(|c| {
        matches!(
            c.node_name().as_deref(),
            Some("h1" | "h2" | "h3" | "h4" | "h5" | "h6")
        )
    }) else {
        return false;
    };
    let words = |s: &str| -> Vec<String> {
        s.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    };
    let id_words = words(&id);
    let title = heading.text();
    let title_words = words(&title);
    id_words.len() >= 3
        && title_words.len() >= id_words.len()
        && title_words.get(..id_words.len()) == Some(&id_words[..])
}

/// An author line holds at most this many non-whitespace characters.
pub(crate) const AUTHOR_LINE_MAX: usize = 200;

/// Whether an attribute names its element as a post's author: `itemprop="author"`,
/// `rel="author"`, or a class word `author`, `byline`, `username` or `creator`.
pub(crate) fn names_author(name: &str, value: &str) -> bool {
    match name {
        "itemprop" | "rel" => value.split_ascii_whitespace().any(|w| w == "author"),
        "class" => value.split(|c: char| !c.is_ascii_alphanumeric()).any(|w| {
            ["author", "byline", "username", "creator"]
                .iter()
                .any(|k| w.eq_ignore_ascii_case(k))
        }),
        _ => false,
    }
}

/// Keep the author line of every post of a thread. Readability drops small link-dense or
/// `meta`-named blocks, which is what the line naming a post's author is (`<div
/// class="user-details"><a href=/users/1>ana</a></div>`): a forum thread or a Q&A page
/// came back as posts without their authors. On a page with two or more elements naming
/// an author (a thread; an article's one byline is left alone), each one's author line,
/// the largest block around it of at most [`AUTHOR_LINE_MAX`] characters that holds no
/// `h1`–`h3` and no paragraph, becomes one paragraph: its blocks turn into inline runs
/// separated by a space, so readability keeps it as a line of the post. Every word stays.
pub(crate) fn flatten_author_lines(doc: &Document, authors: &[NodeRef]) {
    if authors.len() < 2 {
        return;
    }
    let mut lines: Vec<NodeRef> = Vec::new();
    for marker in authors {
        if !fits_author_line(marker) {
            continue;
        }
        let mut line = *marker;
        while let Some(parent) = line.parent() {
            if !parent.is_element() || !fits_author_line(&parent) {
                break;
            }
            line = parent;
        }
        if !lines.iter().any(|l| l.id == line.id) {
            lines.push(line);
        }
    }
    // A line inside another one goes with it.
    let inner: Vec<bool> = lines
        .iter()
        .map(|l| {
            l.ancestors_it(None)
                .any(|a| lines.iter().any(|o| o.id == a.id))
        })
        .collect();
    for (line, inner) in lines.iter().zip(inner) {
        if !inner {
            flatten(doc, line);
        }
    }
}

/// Could `node` be (a part of) an author line?
fn fits_author_line(node: &NodeRef) -> bool {
    let Some(name) = node.qual_name_ref().map(|n| n.local.to_string()) else {
        return false;
    };
    if matches!(
        name.as_str(),
        "html" | "body" | "main" | "article" | "p" | "pre" | "table" | "blockquote" | "form"
    ) || text_chars(node) > AUTHOR_LINE_MAX
    {
        return false;
    }
    !node.descendants_it().any(|d| {
        matches!(
            d.node_name().as_deref(),
            Some("h1" | "h2" | "h3" | "p" | "pre" | "table" | "blockquote" | "article")
        )
    })
}

/// Elements that [`flatten`] turns into inline runs.
const LINE_BLOCKS: &[&str] = &[
    "div",
    "section",
    "header",
    "footer",
    "h4",
    "h5",
    "h6",
    "dl",
    "dt",
    "dd",
    "ul",
    "ol",
    "li",
    "aside",
    "address",
    "figure",
    "figcaption",
    "nav",
];

/// `line` becomes a `<p>`; its block descendants become `<span>`s, each after a space.
fn flatten(doc: &Document, line: &NodeRef) {
    let blocks: Vec<NodeRef> = line
        .descendants_it()
        .filter(|d| {
            d.node_name()
                .is_some_and(|n| LINE_BLOCKS.contains(&n.as_ref()))
        })
        .collect();
    for block in blocks {
        block.insert_before(&doc.tree.new_text(" "));
        block.rename("span");
    }
    // The names no longer say what the parts are: readability weighs `meta` and `info`, and
    // takes the first element named as an author out of the page as the article's byline
    // (one post's author, on a thread).
    let named: Vec<NodeRef> = std::iter::once(*line)
        .chain(line.descendants_it().filter(NodeRef::is_element))
        .collect();
    for node in named {
        node.remove_attrs(&["class", "id", "itemprop", "rel"]);
    }
    line.rename("p");
}
