//! Boilerplate pruning before main-content selection: blocks that are never the article
//! (image captions and photo credits, related-story rails and teasers of other stories,
//! newsletter and promo boxes, ads, gallery widgets, link farms) are removed from the parsed page before readability scores
//! it, so they can neither be picked nor ride along inside the picked container.
//!
//! Each rule is kept because it raised shingle precision on the scrapinghub article
//! benchmark without lowering recall there (`scripts/score-corpus.sh`; the figures per rule
//! are in docs/reference.md, "HTML: how the main content is chosen"). Share bars, comment
//! threads and `<nav>`/`<aside>`/`<footer>` were measured too and left to readability,
//! which already drops them: as rules here they changed nothing or cost precision; bylines
//! and post metadata (`byline`, `author`, `meta`, `timestamp`) cost recall.
//!
//! Matching is on whole words of `class` values and of short `id`s (split at `-`, `_`,
//! other non-alphanumerics and lower-to-upper case changes), so `related-posts` matches and
//! `unrelated` does not, `article-header` matches nothing, and an `id` of four words or
//! more (a slug of a heading, `sharing-with-a-single-developer`) is not read as a name.
//! Nothing inside `<pre>`/`<code>` is looked at.
//!
//! What is never removed: the page's first `<h1>` and its ancestors, `<main>`,
//! `role="main"`, `itemprop="articleBody"`, and any element holding a third or more of the
//! page's text (a site that calls its article wrapper `gallery` keeps its article).
//!
//! Must never: panic, or remove text that is the article's.

use std::collections::HashMap;

use dom_query::{Document, NodeId, NodeRef};

/// Why a block is boilerplate (each is one rule, measured on its own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rule {
    /// `<figcaption>` and `caption` blocks: image captions.
    Caption,
    /// `credit` blocks: photo credits.
    Credit,
    /// Related, recommended, trending and "more stories" rails.
    Related,
    /// Newsletter, subscribe, sign-up, promo and sponsored boxes.
    Promo,
    /// Advertising slots.
    Ad,
    /// Gallery and slideshow widgets (their counters and controls).
    Gallery,
    /// An `<article>` inside another one: a teaser of another story.
    Nested,
    /// Blocks that are mostly link text: link farms and menus without markup.
    LinkDense,
}

/// Remove the boilerplate blocks of a parsed page (see the module docs).
pub(crate) fn prune(doc: &Document) {
    let body = doc.select("body");
    let Some(body) = body.nodes().first().copied() else {
        return;
    };
    let Some(stats) = subtree_stats(&body) else {
        return;
    };
    let page_text = stats.get(&body.id).map_or(0, |s| s.text);
    // The first <h1> and its ancestors are protected.
    let mut protected: Vec<NodeId> = Vec::new();
    if let Some(h1) = doc.select("body h1").nodes().first() {
        let mut at = Some(*h1);
        while let Some(node) = at {
            protected.push(node.id);
            at = node.parent();
        }
    }
    let mut doomed: Vec<NodeRef> = Vec::new();
    let mut stack: Vec<NodeRef> = vec![body];
    let mut names = String::new();
    while let Some(node) = stack.pop() {
        if crate::content::extract::cancelled() {
            return;
        }
        for child in node.children_it(false) {
            if !child.is_element() {
                continue;
            }
            let Some(tag) = child.qual_name_ref().map(|n| n.local.to_string()) else {
                continue;
            };
            if matches!(
                tag.as_str(),
                "pre" | "code" | "kbd" | "samp" | "script" | "style" | "svg" | "math"
            ) {
                continue;
            }
            let own = stats.get(&child.id).copied().unwrap_or_default();
            let rule = classify(&child, &tag, &own, &mut names);
            let keep = rule.is_none()
                || protected.contains(&child.id)
                || is_content_root(&child, &tag)
                || (page_text > 0 && own.text.saturating_mul(3) >= page_text);
            if keep {
                stack.push(child);
            } else {
                doomed.push(child);
            }
        }
    }
    for node in doomed {
        node.remove_from_parent();
    }
}

/// `<main>`, `role="main"`, `itemprop="articleBody"`: the page says this is the content.
fn is_content_root(node: &NodeRef, tag: &str) -> bool {
    tag == "main"
        || node
            .attr("role")
            .is_some_and(|r| r.trim().eq_ignore_ascii_case("main"))
        || node
            .attr("itemprop")
            .is_some_and(|v| v.split_whitespace().any(|w| w == "articleBody"))
}

/// Which rule, if any, names `node` boilerplate. `names` is scratch space.
fn classify(node: &NodeRef, tag: &str, own: &TextStats, names: &mut String) -> Option<Rule> {
    if tag == "figcaption" {
        return Some(Rule::Caption);
    }
    if tag == "article" && node.ancestors_it(None).any(|a| a.has_name("article")) {
        return Some(Rule::Nested);
    }
    if !matches!(
        tag,
        "div"
            | "section"
            | "ul"
            | "ol"
            | "li"
            | "p"
            | "span"
            | "figure"
            | "table"
            | "dl"
            | "center"
            | "header"
    ) {
        return None;
    }
    names.clear();
    if let Some(value) = node.attr("class") {
        names.push_str(&value);
        names.push(' ');
    }
    // Long ids are slugs of a heading ("sharing-with-a-single-developer"), not names.
    if let Some(value) = node.attr("id") {
        let mut words = 0;
        for_each_word(&value, |_| words += 1);
        if words <= 3 {
            names.push_str(&value);
        }
    }
    if let Some(rule) = rule_of_names(names) {
        return Some(rule);
    }
    if matches!(tag, "div" | "section" | "ul" | "ol" | "table") && own.link_dense() {
        return Some(Rule::LinkDense);
    }
    None
}

/// The rule named by the words of `class`/`id` values, if any.
pub(crate) fn rule_of_names(names: &str) -> Option<Rule> {
    let mut found = None;
    for_each_word(names, |word| {
        if found.is_none() {
            found = rule_of_word(word);
        }
    });
    found
}

fn rule_of_word(word: &str) -> Option<Rule> {
    Some(match word {
        "caption" | "captions" => Rule::Caption,
        "credit" | "credits" | "imagecredit" | "photocredit" => Rule::Credit,
        "related" | "relatedposts" | "recommended" | "recommendations" | "recirc" | "trending"
        | "outbrain" | "taboola" | "popular" | "mostpopular" | "rail" => Rule::Related,
        "newsletter" | "newsletters" | "subscribe" | "subscription" | "signup" | "promo"
        | "promos" | "promotion" | "sponsored" | "sponsor" => Rule::Promo,
        "ad" | "ads" | "advert" | "adverts" | "advertisement" | "advertising" | "adslot"
        | "adunit" | "dfp" | "gpt" => Rule::Ad,
        "gallery" | "slideshow" | "carousel" | "swiper" | "slider" | "lightbox" => Rule::Gallery,
        _ => return None,
    })
}

/// Call `f` with each lower-cased word of `names`: split at every non-alphanumeric
/// character and where a lower-case letter or digit is followed by an upper-case one.
fn for_each_word(names: &str, mut f: impl FnMut(&str)) {
    let mut word = String::new();
    let mut prev_lower = false;
    for c in names.chars() {
        if c.is_ascii_alphanumeric() {
            if c.is_ascii_uppercase() && prev_lower && !word.is_empty() {
                f(&word);
                word.clear();
            }
            prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
            word.push(c.to_ascii_lowercase());
        } else {
            if !word.is_empty() {
                f(&word);
                word.clear();
            }
            prev_lower = false;
        }
    }
    if !word.is_empty() {
        f(&word);
    }
}

/// Visible characters of a subtree, how many of them are inside links, and the links.
#[derive(Debug, Default, Clone, Copy)]
struct TextStats {
    text: usize,
    link_text: usize,
    links: usize,
}

impl TextStats {
    /// At least three links, and 80% or more of the text is link text (after
    /// trafilatura's link-density test).
    fn link_dense(&self) -> bool {
        self.links >= 3 && self.text > 0 && self.link_text * 5 >= self.text * 4
    }
}

/// [`TextStats`] of every element under `root` (scripts and styles not counted), in one
/// post-order walk: linear in the page, however deep it nests. `None` when cancelled.
fn subtree_stats(root: &NodeRef) -> Option<HashMap<NodeId, TextStats>> {
    let mut map: HashMap<NodeId, TextStats> = HashMap::new();
    let mut stack: Vec<(NodeRef, bool)> = vec![(*root, false)];
    while let Some((node, children_done)) = stack.pop() {
        if !children_done {
            if crate::content::extract::cancelled() {
                return None;
            }
            stack.push((node, true));
            for child in node.children_it(false) {
                if child.is_element() && !child.has_name("script") && !child.has_name("style") {
                    stack.push((child, false));
                }
            }
            continue;
        }
        let mut own = TextStats::default();
        for child in node.children_it(false) {
            if child.is_text() {
                own.text += child.text().chars().filter(|c| !c.is_whitespace()).count();
            } else if let Some(c) = map.get(&child.id) {
                own.text += c.text;
                own.link_text += c.link_text;
                own.links += c.links;
            }
        }
        if node.has_name("a") && node.has_attr("href") {
            own.link_text = own.text;
            own.links += 1;
        }
        map.insert(node.id, own);
    }
    Some(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_of_names() {
        let words = |s: &str| {
            let mut v = Vec::new();
            for_each_word(s, |w| v.push(w.to_owned()));
            v
        };
        assert_eq!(
            words("article-header relatedPosts x_y  SHARE2bar"),
            [
                "article",
                "header",
                "related",
                "posts",
                "x",
                "y",
                "share2bar"
            ]
        );
    }

    fn pruned(html: &str) -> String {
        let doc = Document::from(html);
        prune(&doc);
        doc.select("body")
            .text()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    }

    const PROSE: &str = "The river rose overnight and the ferry stayed in port until noon, \
                         when the harbour master judged the current safe again. ";

    #[test]
    fn side_blocks_go_and_the_article_stays() {
        let html = format!(
            "<body><div class=\"promo-box\"><h1>Ferry news</h1></div>\
             <div class=\"story\"><p>{p}</p><figure><img src=a.png alt=x>\
             <figcaption>A ferry. <span class=credit>Photo: AP</span></figcaption></figure>\
             <p>{p}</p><div class=\"newsletter\">Sign up now</div></div>\
             <section class=\"related-posts\"><a href=/1>One</a> <a href=/2>Two</a></section>\
             <ul><li><a href=/a>Alpha</a></li><li><a href=/b>Beta</a></li><li><a href=/c>Gamma</a></li></ul>\
             <pre><code><span class=\"hljs-comment\">// related ad</span></code></pre></body>",
            p = PROSE
        );
        let text = pruned(&html);
        // The h1's container is kept whatever its name.
        assert!(text.starts_with("Ferry news"), "{text}");
        assert_eq!(text.matches("harbour master").count(), 2, "{text}");
        assert!(text.ends_with("// related ad"), "{text}");
        for junk in ["A ferry.", "Photo: AP", "Sign up now", "One", "Alpha"] {
            assert!(!text.contains(junk), "found {junk:?} in {text}");
        }
        // Teasers of other stories, as <article>s inside the article, go.
        let nested = format!(
            "<body><article><h1>Main</h1><p>{PROSE}</p>\
             <article class=teaser><h3>Other story</h3><p>Its summary.</p></article></article></body>"
        );
        let text = pruned(&nested);
        assert!(
            text.contains("harbour master") && !text.contains("Other story"),
            "{text}"
        );
        // A wrapper named like a side block but holding the page's text is kept.
        let wrapped = format!("<body><div class=gallery><p>{PROSE}</p></div><p>short</p></body>");
        assert!(pruned(&wrapped).contains("harbour master"));
    }

    #[test]
    fn deep_nesting_is_measured_in_one_walk() {
        // 250 nested link-dense candidates around 1 MB of links: each is measured once,
        // not by re-walking its subtree.
        let depth = 250;
        let html = format!(
            "<body>{}{}{}</body>",
            "<div>".repeat(depth),
            "<a href=/x>link text</a> ".repeat(1024 * 1024 / 26),
            "</div>".repeat(depth)
        );
        let start = std::time::Instant::now();
        let text = pruned(&html);
        // The outermost div holds the whole page: protected, like every div inside it.
        assert!(text.starts_with("link text"));
        assert!(start.elapsed() < std::time::Duration::from_secs(20));
    }

    #[test]
    fn names_to_rules() {
        assert_eq!(rule_of_names("article-header "), None);
        assert_eq!(rule_of_names("hljs-keyword "), None);
        assert_eq!(rule_of_names("related-content "), Some(Rule::Related));
        assert_eq!(rule_of_names("unrelated "), None);
        assert_eq!(rule_of_names("figure-caption "), Some(Rule::Caption));
        assert_eq!(rule_of_names("photoCredit "), Some(Rule::Credit));
        assert_eq!(rule_of_names("swiper-slide "), Some(Rule::Gallery));
        assert_eq!(rule_of_names("jp-relatedposts "), Some(Rule::Related));
        assert_eq!(rule_of_names("ad-container mobile "), Some(Rule::Ad));
        assert_eq!(rule_of_names("add-to-cart header "), None);
        assert_eq!(rule_of_names("newsletterSignup "), Some(Rule::Promo));
    }
}
