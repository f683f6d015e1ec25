//! Threads (issue 27): a forum thread, a Q&A page's answers, a list of comments is a run of
//! sibling posts built alike (XenForo's `article.message`, Invision's `article.cPost`,
//! Stack Exchange's `div.answer`, Vanilla's `li.Item`). Readability scores containers one
//! by one and picks the best post: on 118 forum threads of 2025-2026 its pick was one post
//! on a third of them. When its pick lies in one post of such a run, the run's container
//! is written instead (see `crate::content::extract`). Whole posts only; no word is cut
//! (DESIGN §12).

use dom_query::{Document, NodeRef};

use super::kinds::text_chars;
use super::tabs::anchor_text;

/// The attribute that marks the thread the extraction writes (see [`mark_thread_of`]).
pub(crate) const THREAD_MARK: &str = "data-vetch-thread";

/// Readability's pick lies in one post when it has at most this share (in percent) of the
/// post's visible characters (as for a tab panel).
const POST_SHARE: usize = 110;

/// The posts built alike hold at least this share (in percent) of their container's
/// visible characters: the container is the thread, not a page of other things.
const THREAD_SHARE: usize = 60;

/// Another post counts when it holds at least this many visible characters (a line of
/// text, not an icon's label).
const POST_MIN_CHARS: usize = 40;

/// A run has at least this many posts with text (a post and one reply are a thread too,
/// but two blocks built alike are as often an article beside a box of other stories).
const MIN_POSTS: usize = 3;

/// A post is text, not a teaser: at most this share (in percent) of its visible
/// characters lie in links.
const POST_LINKS: usize = 50;

/// How many levels above the pick's first text a post may begin.
const MAX_LEVELS: usize = 16;

/// Mark with [`THREAD_MARK`] the container of the run of posts in `doc` one of which holds
/// `anchor` (the pick's first text of some length, whitespace collapsed), and return it;
/// `None` when the pick is no post of such a run. Walking up from that text, the first
/// element that holds the pick (which has `picked` visible characters) and has a sibling
/// built alike ([`shape_of`]) with text of its own is the post: its parent is the thread
/// when the posts built alike hold [`THREAD_SHARE`] percent of it.
pub(crate) fn mark_thread_of<'a>(
    doc: &'a Document,
    anchor: &str,
    picked: usize,
) -> Option<NodeRef<'a>> {
    let text = anchor_text(doc, anchor)?;
    let mut node = text.parent()?;
    for _ in 0..MAX_LEVELS {
        if node.has_name("body") {
            return None;
        }
        let parent = node.parent().filter(NodeRef::is_element)?;
        // The shape first: it reads two attributes, where counting the characters walks
        // the subtree (at every level up, often up to the whole page).
        if let Some(shape) = shape_of(&node) {
            let chars = text_chars(&node);
            if picked.saturating_mul(100) <= chars.saturating_mul(POST_SHARE) {
                // The siblings built alike, with their visible characters.
                let alike: Vec<(NodeRef, usize)> = parent
                    .element_children()
                    .into_iter()
                    .filter(|c| shape_of(c).as_ref() == Some(&shape))
                    .map(|c| {
                        let chars = text_chars(&c);
                        (c, chars)
                    })
                    .collect();
                let posts = alike.iter().filter(|(_, c)| *c >= POST_MIN_CHARS).count();
                let teasers = alike.iter().any(|(post, chars)| {
                    link_chars(post).saturating_mul(100) > chars.saturating_mul(POST_LINKS)
                });
                if posts >= MIN_POSTS && !teasers {
                    let posts: usize = alike.iter().map(|(_, c)| c).sum();
                    if posts.saturating_mul(100) >= text_chars(&parent).saturating_mul(THREAD_SHARE)
                    {
                        parent.set_attr(THREAD_MARK, "");
                        return Some(parent);
                    }
                }
            }
        }
        node = parent;
    }
    None
}

/// Visible characters of the links under `node`.
fn link_chars(node: &NodeRef) -> usize {
    node.descendants_it()
        .filter(|d| d.has_name("a"))
        .map(|a| text_chars(&a))
        .sum()
}

/// How a post is built, for finding its siblings built alike: its tag and the first word
/// of its `class` (the rest are states: `is-unread`, `accepted-answer`). `None` without a
/// class (unnamed blocks are not posts of a run), and for a `<section>`: a page builder's
/// sections (Elementor's `section.elementor-section`) are built alike and hold the article,
/// its FAQ and its "more posts".
fn shape_of(node: &NodeRef) -> Option<(String, String)> {
    let name = node.qual_name_ref()?.local.to_string();
    if name == "section" {
        return None;
    }
    let class = node.attr("class")?;
    let first = class.split_ascii_whitespace().next()?.to_ascii_lowercase();
    Some((name, first))
}

#[cfg(test)]
mod tests {
    use super::*;

    const POST: &str = "I moved the tank to the garage and the heater has kept it at 25 degrees \
                        since, so the fish are doing fine again.";

    /// Readability's pick: the post's visible characters.
    fn picked() -> usize {
        crate::content::tidy::visible_chars(POST)
    }

    fn thread(posts: &[&str]) -> String {
        let posts: String = posts
            .iter()
            .map(|p| {
                format!(
                    "<article class=\"message is-unread\"><div class=user>Ann</div>\
                     <div class=body><p>{p}</p></div></article>"
                )
            })
            .collect();
        format!("<body><nav>Forums</nav><div id=posts>{posts}</div><footer>About</footer></body>")
    }

    #[test]
    fn the_thread_of_the_post_that_holds_the_pick() {
        let reply = "Good to hear it, the garage is warm enough in winter too?";
        let page = thread(&[
            POST,
            reply,
            "Yes, and it stays dry: the fish do not mind the car.",
            "Yes.",
        ]);
        let doc = Document::from(page.as_str());
        let marked = mark_thread_of(&doc, POST, picked());
        assert_eq!(marked.and_then(|t| t.attr("id")).as_deref(), Some("posts"));
        assert_eq!(
            doc.select("[data-vetch-thread]").attr("id").as_deref(),
            Some("posts")
        );
        // A pick much larger than the post is not the post's.
        let doc = Document::from(page.as_str());
        assert!(mark_thread_of(&doc, POST, picked() * 5).is_none());
        // A post with one reply, or others without text, make no run.
        let doc = Document::from(thread(&[POST, reply]).as_str());
        assert!(mark_thread_of(&doc, POST, picked()).is_none());
        let doc = Document::from(thread(&[POST, reply, "Yes."]).as_str());
        assert!(mark_thread_of(&doc, POST, picked()).is_none());
        // Teasers built alike (mostly a link each) are a list of other pages.
        let teaser = format!("<a href=/b>{reply}</a>");
        let doc = Document::from(thread(&[POST, &teaser, &teaser]).as_str());
        assert!(mark_thread_of(&doc, POST, picked()).is_none());
    }

    #[test]
    fn sections_of_a_page_are_no_thread() {
        // A page builder's sections, built alike.
        let page = thread(&[POST, POST, POST])
            .replace("<article", "<section")
            .replace("</article>", "</section>");
        let doc = Document::from(page.as_str());
        assert!(mark_thread_of(&doc, POST, picked()).is_none());
        // Two rows built alike, one the article and one a large block of other links: the
        // rows are the page, not a thread.
        let links = "<a href=/a>One story of the day that was read a lot</a> ".repeat(20);
        let page = format!(
            "<body><div id=page><div class=\"row top\"><p>{POST}</p></div>\
             <div class=\"row\"><p>A second section of the page that is long enough.</p></div>\
             <div class=other>{links}</div></div></body>"
        );
        let doc = Document::from(page.as_str());
        assert!(mark_thread_of(&doc, POST, picked()).is_none());
    }
}
