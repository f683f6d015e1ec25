//! The text length, commas and links of every subtree of the body, counted in one walk.
//!
//! Scoring counts the text of each element it scores (a `<section>` and then each of its
//! paragraphs again), then the text and links of each candidate: every ancestor of a
//! scored element up to the body, so the body's whole text once more, the article's,
//! each section's. Each of those was a walk of its own subtree ([`text_counts`],
//! [`named_descendants`](super::helpers::named_descendants)): on a long page, each byte of
//! text was read four or five times. Here one walk of the body reads each text node once
//! and composes the counts upwards; the answers are the same numbers (a test holds them to
//! [`text_counts`] and to the walk for links on every element of its pages).

use dom_query::{NodeData, NodeId, NodeRef};
use foldhash::HashMap;

use super::helpers::{count_text, text_counts, TextCounts};

/// The counts of a run of text nodes in document order, as `text_counts` reads them: it
/// counts a character unless it is whitespace after whitespace, starting as if after
/// whitespace, an empty text node ending a run of whitespace.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Run {
    /// Characters and commas, counted as if the run came after a character that is not
    /// whitespace.
    counts: TextCounts,
    /// The run holds a text node (else it changes nothing, not even the state).
    any: bool,
    /// Its first text node starts with whitespace (dropped after whitespace).
    leads_ws: bool,
    /// It leaves the count after whitespace.
    trails_ws: bool,
}

impl Run {
    fn text(contents: &str) -> Run {
        let mut counts = TextCounts::default();
        let trails_ws = count_text(contents, false, &mut counts);
        Run {
            counts,
            any: true,
            leads_ws: contents.starts_with(char::is_whitespace),
            trails_ws,
        }
    }

    /// `self` then `next`.
    fn then(self, next: Run) -> Run {
        if !self.any {
            return next;
        }
        if !next.any {
            return self;
        }
        let joined = usize::from(self.trails_ws && next.leads_ws);
        Run {
            counts: TextCounts {
                chars: self.counts.chars + next.counts.chars - joined,
                commas: self.counts.commas + next.counts.commas,
            },
            any: true,
            leads_ws: self.leads_ws,
            trails_ws: next.trails_ws,
        }
    }

    /// What `text_counts` gives for a node whose text nodes make this run: started after
    /// whitespace, less a trailing run of whitespace.
    fn finish(self) -> TextCounts {
        if !self.any {
            return TextCounts::default();
        }
        let mut chars = self.counts.chars - usize::from(self.leads_ws);
        if self.trails_ws && chars > 0 {
            chars -= 1;
        }
        TextCounts {
            chars,
            commas: self.counts.commas,
        }
    }
}

/// What one walk of a subtree found: for each element asked for, its [`text_counts`]
/// and the range of its links; and every link (`a` element, nested ones too) in document
/// order, with its character count.
pub(crate) struct Subtrees<'a> {
    /// Only for the elements asked for: a map of every element of a long page cost more
    /// (fresh memory, and misses in it) than the walks it saved.
    kept: HashMap<NodeId, (Run, usize, usize)>,
    links: Vec<Link<'a>>,
}

/// A link under an element, and its [`text_counts`] characters.
pub(crate) type Link<'a> = (NodeRef<'a>, usize);

/// An element the walk is in: the run of its children so far, the number of links found
/// before its children, whether it is a link itself and whether its counts are kept.
struct Open<'a> {
    node: NodeRef<'a>,
    run: Run,
    first_link: usize,
    link: bool,
    wanted: bool,
}

impl<'a> Subtrees<'a> {
    /// Walks `root`'s subtree once (with a stack, not recursion: no depth is too deep),
    /// keeping the counts of the elements of `scored` and of their ancestors up to `up`
    /// levels. `scored` is in document order, as the walk meets them, so telling whether
    /// an element is one of them is one comparison, and its ancestors are the top of the
    /// walk's stack: no set to build. An element met out of that order, or not under
    /// `root`, is not kept (counted on its own when asked for). The tree must not change
    /// while the result is used.
    pub(crate) fn of(root: &NodeRef<'a>, scored: &[NodeRef<'a>], up: usize) -> Self {
        let mut kept = HashMap::default();
        let mut links: Vec<Link<'a>> = Vec::new();
        let mut next_scored = 0;
        let mut open = vec![Open {
            node: *root,
            run: Run::default(),
            first_link: 0,
            link: false,
            wanted: false,
        }];
        let mut next = root.first_child();
        loop {
            if let Some(node) = next {
                let text = node.query_or(None, |t| match &t.data {
                    NodeData::Text { contents } => Some(Run::text(contents)),
                    _ => None,
                });
                if let Some(run) = text {
                    if let Some(top) = open.last_mut() {
                        top.run = top.run.then(run);
                    }
                    next = node.next_sibling();
                    continue;
                }
                let mut wanted = false;
                while scored.get(next_scored).is_some_and(|s| s.id == node.id) {
                    wanted = true;
                    next_scored += 1;
                }
                if wanted {
                    open.iter_mut().rev().take(up).for_each(|o| o.wanted = true);
                }
                let link = node.has_name("a");
                if link {
                    links.push((node, 0));
                }
                open.push(Open {
                    node,
                    run: Run::default(),
                    first_link: links.len(),
                    link,
                    wanted,
                });
                next = node.first_child();
                continue;
            }
            // The last child of the innermost open element is done: close it.
            let Some(done) = open.pop() else {
                break;
            };
            if done.link {
                // Pushed just before it was opened.
                let own = done.first_link.checked_sub(1);
                if let Some(own) = own.and_then(|i| links.get_mut(i)) {
                    own.1 = done.run.finish().chars;
                }
            }
            if done.wanted {
                kept.insert(done.node.id, (done.run, done.first_link, links.len()));
            }
            let Some(parent) = open.last_mut() else {
                break;
            };
            parent.run = parent.run.then(done.run);
            next = done.node.next_sibling();
        }
        Subtrees { kept, links }
    }

    /// Whether the walk kept `node`'s counts.
    #[cfg(test)]
    pub(crate) fn holds(&self, node: &NodeRef) -> bool {
        self.kept.contains_key(&node.id)
    }

    /// `text_counts(node)`, walked again for a node not asked for.
    pub(crate) fn counts(&self, node: &NodeRef) -> TextCounts {
        self.kept
            .get(&node.id)
            .map_or_else(|| text_counts(node), |(run, ..)| run.finish())
    }

    /// `named_descendants(node, "a")`, each with its character count; `None` for a node
    /// not asked for.
    pub(crate) fn links(&self, node: &NodeRef) -> Option<&[Link<'a>]> {
        let &(_, start, end) = self.kept.get(&node.id)?;
        self.links.get(start..end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::readability::helpers::named_descendants;

    /// On every element of pages that mix runs of whitespace across text nodes, empty
    /// text nodes, nested links and non-ASCII text, the one walk gives what the walk of
    /// each element gives: its text counts and its links.
    #[test]
    fn one_walk_counts_as_each_element_walked() {
        let pages = [
            "<div> a  b <span> </span> c\t\n<p>d,e</p>  </div><p>  </p><p></p>",
            "<p>caf\u{e9}\u{a0}\u{a0}x\u{2003} y\u{3000}z\u{ff0c}w\u{60c}v , u</p>",
            "<div><b></b> <i>x</i><!-- c --> <i>y</i>\u{85}</div><p>   </p><p>\u{2028}</p>",
            "<section> <h2> T </h2><p><a href=\"#x\">in</a> page, <a href=\"/o\">out <a>nested</a></a> end </p> \
             <ul><li> 1,2 </li><li>3 <a>x</a></li></ul> </section><table><tr><td> a </td><td>b</td></tr></table>",
        ];
        for page in pages {
            let doc = dom_query::Document::from(page);
            // Empty text nodes (the parser never makes one), at the start, between runs of
            // whitespace and at the end.
            for div in doc.select("div, section").nodes() {
                div.prepend_child(&doc.tree.new_text(""));
                div.append_child(&doc.tree.new_text(""));
                div.append_child(&doc.tree.new_text("  tail  "));
                div.append_child(&doc.tree.new_text(""));
            }
            let Some(body) = doc.body() else {
                panic!("no body: {page}");
            };
            let every: Vec<_> = body.descendants_it().filter(|n| n.is_element()).collect();
            let walked = Subtrees::of(&body, &every, 1);
            let mut checked = 0;
            for node in std::iter::once(body).chain(body.descendants_it()) {
                if !node.is_element() {
                    continue;
                }
                assert!(walked.holds(&node), "{page}: {}", node.html());
                assert_eq!(
                    walked.counts(&node),
                    text_counts(&node),
                    "{page}: {}",
                    node.html()
                );
                let links: Vec<_> = walked
                    .links(&node)
                    .unwrap_or_default()
                    .iter()
                    .map(|(n, chars)| (n.id, *chars))
                    .collect();
                let expected: Vec<_> = named_descendants(&node, "a")
                    .iter()
                    .map(|n| (n.id, text_counts(n).chars))
                    .collect();
                assert_eq!(links, expected, "{page}: {}", node.html());
                checked += 1;
            }
            assert!(checked >= 2, "{page}");
        }
        // A node not asked for is counted on its own.
        let doc = dom_query::Document::from("<p>one two</p><div>three</div>");
        let p = doc.select("p").nodes()[0];
        let div = doc.select("div").nodes()[0];
        let body = doc.body().unwrap_or(p);
        let walked = Subtrees::of(&body, &[p], 5);
        assert!(walked.holds(&p) && walked.holds(&body) && !walked.holds(&div));
        for node in [p, div] {
            assert_eq!(walked.counts(&node), text_counts(&node));
        }
        assert_eq!(walked.counts(&div).chars, 5);
        assert!(walked.links(&p).is_some_and(|links| links.is_empty()));
        assert!(walked.links(&div).is_none());
    }
}
