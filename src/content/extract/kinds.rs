//! What pages of every kind need before main-content selection (issue 27): the content a
//! page serves to readers without JavaScript (`<noscript>`), ids that only repeat a
//! heading, and the author lines of a thread's posts. Whole elements only are removed or
//! renamed; no word is cut (DESIGN §12).

use std::collections::{HashMap, HashSet};

use dom_query::{local_name, Document, NodeData, NodeId, NodeRef};

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

/// Keep a thread whose posts are named comments. Readability drops every block whose
/// `class` or `id` holds "comment" (unless it also names content), before it scores
/// anything: on a forum that calls each post, the first one included, a comment
/// (`div.MtnComment`, `div.MtnCommentText`), the thread went and the sidebar's list of
/// other threads came back. When the outermost blocks so named hold more than half of the
/// body's text and the page names no article (`<article>`, `itemprop="articleBody"`: an
/// article's comment section is left to readability), the comments are the page's
/// content: those names are set aside (the `class` and `id` of each block so named in
/// the thread are removed), so they are scored like any block.
pub(crate) fn keep_comment_thread(doc: &Document, comments: &[NodeRef]) {
    if comments.len() < 2 {
        return;
    }
    let named: HashSet<NodeId> = comments.iter().map(|n| n.id).collect();
    let outer: Vec<&NodeRef> = comments
        .iter()
        .filter(|n| !n.ancestors_it(None).any(|a| named.contains(&a.id)))
        .collect();
    let Some(body) = doc.select("body").nodes().first().copied() else {
        return;
    };
    let thread: usize = outer.iter().map(|n| text_chars(n)).sum();
    if thread.saturating_mul(2) <= text_chars(&body) {
        return;
    }
    if doc.select("article, [itemprop~=articleBody]").exists() {
        return;
    }
    for node in comments {
        node.remove_attrs(&["class", "id"]);
    }
}

/// Non-whitespace characters of the text under `node`, scripts and styles left out.
///
/// One look at each node: a text's parent is known from the text itself, and compared
/// with the scripts and styles met so far (a parent comes before its children in the
/// walk). The page walks this often (the pick, its panels, posts and blocks), and a
/// look at each text's parent cost as much as counting its characters.
pub(crate) fn text_chars(node: &NodeRef) -> usize {
    let is_code = |e: &dom_query::Element| {
        e.name.local == local_name!("script") || e.name.local == local_name!("style")
    };
    let mut code: rustc_hash::FxHashSet<NodeId> = rustc_hash::FxHashSet::default();
    if node.query_or(false, |t| t.as_element().is_some_and(is_code)) {
        code.insert(node.id);
    }
    let mut chars = 0usize;
    for d in node.descendants_it() {
        chars += d.query_or(0, |t| match &t.data {
            NodeData::Text { contents } => {
                if t.parent.is_some_and(|p| code.contains(&p)) {
                    0
                } else {
                    crate::content::tidy::visible_chars(contents)
                }
            }
            NodeData::Element(e) => {
                if is_code(e) {
                    code.insert(t.id);
                }
                0
            }
            _ => 0,
        });
    }
    chars
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

/// A page has at least this many author lines when it is a thread (an article has a
/// byline, and perhaps its author's box or a second byline).
pub(crate) const AUTHOR_LINES: usize = 3;

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
/// came back as posts without their authors. A thread repeats one template per post: when
/// [`AUTHOR_LINES`] or more elements naming an author have the same tag, `class` and
/// `itemprop` (an article's byline, author box and meta line do not), each one's author
/// line (the largest block around it of at most [`AUTHOR_LINE_MAX`] characters that holds
/// no other of them, no `h1`-`h3` and no paragraph) becomes one paragraph (not in an
/// `<article>` that has an `h1`-`h3` of its own: a card of a list of stories): its blocks turn
/// into inline runs separated by a space, so readability keeps it as a line of the post.
/// Every word stays.
pub(crate) fn flatten_author_lines(doc: &Document, authors: &[NodeRef]) {
    if authors.len() < AUTHOR_LINES {
        return;
    }
    let signature = |n: &NodeRef| {
        (
            n.node_name().map(|t| t.to_string()),
            n.attr("class").map(|c| c.to_string()),
            n.attr("itemprop").map(|c| c.to_string()),
        )
    };
    // A card of a list of stories (an `<article>` with its own headline) names its author
    // too: those are teasers, not posts.
    let mut cards: HashMap<NodeId, bool> = HashMap::new();
    let authors: Vec<NodeRef> = authors
        .iter()
        .filter(|m| {
            let Some(article) = m.ancestors_it(None).find(|a| a.has_name("article")) else {
                return true;
            };
            !*cards.entry(article.id).or_insert_with(|| {
                article
                    .descendants_it()
                    .any(|d| matches!(d.node_name().as_deref(), Some("h1" | "h2" | "h3")))
            })
        })
        .copied()
        .collect();
    let signatures: Vec<_> = authors.iter().map(signature).collect();
    let posts: Vec<NodeRef> = authors
        .iter()
        .zip(&signatures)
        .filter(|(_, sig)| signatures.iter().filter(|s| s == sig).count() >= AUTHOR_LINES)
        .map(|(n, _)| *n)
        .collect();
    // A marker inside another one (a `username` inside an `author` block) is a part of it.
    let all: HashSet<NodeId> = posts.iter().map(|p| p.id).collect();
    let posts: Vec<NodeRef> = posts
        .into_iter()
        .filter(|m| !m.ancestors_it(None).any(|a| all.contains(&a.id)))
        .collect();
    if posts.len() < AUTHOR_LINES {
        return;
    }
    let ids: HashSet<NodeId> = posts.iter().map(|p| p.id).collect();
    let is_post = |n: &NodeRef| ids.contains(&n.id);
    let mut lines: Vec<NodeRef> = Vec::new();
    for marker in &posts {
        if !fits_author_line(marker, &is_post) {
            continue;
        }
        let mut line = *marker;
        while let Some(parent) = line.parent() {
            if !parent.is_element() || !fits_author_line(&parent, &is_post) {
                break;
            }
            line = parent;
        }
        if !lines.iter().any(|l| l.id == line.id) {
            lines.push(line);
        }
    }
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

/// Could `node` be (a part of) an author line? At most [`AUTHOR_LINE_MAX`] characters,
/// no paragraph, table, quote, article or `h1`-`h3`, and at most one author marker of the
/// thread (`is_post`): it stops reading as soon as one of these fails, so that climbing
/// from every post costs no more than the lines themselves.
fn fits_author_line(node: &NodeRef, is_post: &impl Fn(&NodeRef) -> bool) -> bool {
    let Some(name) = node.qual_name_ref().map(|n| n.local.to_string()) else {
        return false;
    };
    if BARRIERS.contains(&name.as_str()) || matches!(name.as_str(), "html" | "body" | "main") {
        return false;
    }
    let mut chars = 0usize;
    let mut markers = usize::from(is_post(node));
    for d in node.descendants_it() {
        if d.is_text() {
            chars += d.query_or(0, |n| match &n.data {
                NodeData::Text { contents } => crate::content::tidy::visible_chars(contents),
                _ => 0,
            });
        } else if d
            .qual_name_ref()
            .is_some_and(|n| BARRIERS.contains(&n.local.as_ref()))
        {
            return false;
        } else if is_post(&d) {
            markers += 1;
        }
        if chars > AUTHOR_LINE_MAX || markers > 1 {
            return false;
        }
    }
    true
}

/// Elements an author line never holds.
const BARRIERS: &[&str] = &[
    "h1",
    "h2",
    "h3",
    "p",
    "pre",
    "table",
    "blockquote",
    "article",
    "form",
];

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
