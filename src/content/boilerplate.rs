//! Boilerplate pruning before main-content selection: blocks that are never the article
//! (image captions and photo credits, related-story rails, newsletter and promo boxes, ads,
//! gallery widgets, link farms) are removed from the parsed page before readability scores
//! it, so they can neither be picked nor ride along inside the picked container.
//!
//! Each rule is kept because it raised shingle precision on the scrapinghub article
//! benchmark without lowering recall there (`scripts/score-corpus.sh`; the figures per rule
//! are in docs/reference.md, "HTML: how the main content is chosen"). Share bars, comment
//! threads and `<nav>`/`<aside>`/`<footer>` were measured too and left to readability,
//! which already drops them: as rules here they changed nothing or cost precision.
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

use dom_query::{Document, NodeRef};

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
    /// Blocks that are mostly link text: link farms and menus without markup.
    LinkDense,
}

/// Remove the boilerplate blocks of a parsed page (see the module docs).
pub(crate) fn prune(doc: &Document) {
    let body = doc.select("body");
    let Some(body) = body.nodes().first().copied() else {
        return;
    };
    let page_text = text_stats(&body).text;
    // The first <h1> and its ancestors are protected.
    let mut protected: Vec<dom_query::NodeId> = Vec::new();
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
            let rule = classify(&child, &tag, &mut names);
            let keep = rule.is_none()
                || protected.contains(&child.id)
                || is_content_root(&child, &tag)
                || holds_page_share(&child, page_text);
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

/// An element holding a third of the page's text or more is not a side block.
fn holds_page_share(node: &NodeRef, page_text: usize) -> bool {
    page_text > 0 && text_stats(node).text.saturating_mul(3) >= page_text
}

/// Which rule, if any, names `node` boilerplate. `names` is scratch space.
fn classify(node: &NodeRef, tag: &str, names: &mut String) -> Option<Rule> {
    if tag == "figcaption" {
        return Some(Rule::Caption);
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
    if matches!(tag, "div" | "section" | "ul" | "ol" | "table") && link_dense(node) {
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
#[derive(Default)]
struct TextStats {
    text: usize,
    link_text: usize,
    links: usize,
}

fn text_stats(node: &NodeRef) -> TextStats {
    let mut stats = TextStats::default();
    let mut stack: Vec<(NodeRef, bool)> = vec![(*node, false)];
    while let Some((n, in_link)) = stack.pop() {
        for child in n.children_it(false) {
            if child.is_text() {
                let chars = child.text().chars().filter(|c| !c.is_whitespace()).count();
                stats.text += chars;
                if in_link {
                    stats.link_text += chars;
                }
            } else if child.is_element() {
                let is_link = child.has_name("a") && child.has_attr("href");
                if child.has_name("script") || child.has_name("style") {
                    continue;
                }
                if is_link {
                    stats.links += 1;
                }
                stack.push((child, in_link || is_link));
            }
        }
    }
    stats
}

/// A block of at least three links whose text is 80% link text or more (after
/// trafilatura's link-density test).
fn link_dense(node: &NodeRef) -> bool {
    let s = text_stats(node);
    s.links >= 3 && s.text > 0 && s.link_text * 5 >= s.text * 4
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
