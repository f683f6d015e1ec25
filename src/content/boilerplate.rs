//! Boilerplate before main-content selection: blocks that are never the article (photo
//! credits, related-story rails and teasers of other stories, newsletter and promo boxes,
//! ads, gallery widgets, link farms) are marked in the parsed page before readability
//! scores it, and removed from what was selected before it is written
//! ([`remove_marked`]), so they cannot ride along inside the picked container.
//!
//! Marked, not removed up front: readability then picks the container it would pick on the
//! page as served. Removing side blocks first lowered the link density of their ancestors
//! and made it climb to a wider container (on two of Readability's test pages a cookie
//! notice and a "make MSN my homepage" box rode along); with marks, text precision rose
//! on both corpora (scrapinghub +0.0003, Readability's pages +0.0011).
//!
//! Each rule is kept because it raised shingle precision on the scrapinghub article
//! benchmark without lowering recall there (`scripts/score-corpus.sh`; the figures per rule
//! are in docs/reference.md, "Note: main-content quality, measured"). Share bars, comment
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
//! What is never marked: the page's first `<h1>` and its ancestors, `<main>`,
//! `role="main"`, `itemprop="articleBody"`, any element holding a third or more of the
//! page's text (a site that calls its article wrapper `gallery` keeps its article),
//! captions that are labels or legends rather than credits ([`caption_is_credit`]), and
//! tables of contents and reference lists among link-dense blocks
//! ([`TextStats::link_dense`]).
//!
//! Must never: panic, or remove text that is the article's.

use std::collections::HashMap;

use dom_query::{Document, NodeId, NodeRef};

/// Why a block is boilerplate (each is one rule, measured on its own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rule {
    /// `<figcaption>` and `caption` blocks that are credits, not labels or legends.
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

/// The attribute that marks boilerplate (see [`prune`]).
const MARK: &str = "data-vetch-boilerplate";

/// Mark the boilerplate blocks of a parsed page (see the module docs); [`remove_marked`]
/// removes them once readability has chosen.
///
/// A block is marked with [`MARK`], and so is every element in it; every non-blank text in
/// it is wrapped in a marked `<span>`. Readability rewrites the tree as it scores it (a
/// `<div>` holding only text becomes a new `<p>`, which would carry no mark): the marks on
/// what is left of the block's elements and on each of its texts survive that. A `<span>`
/// around a text changes neither readability's scores nor its link densities.
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
        mark(doc, &node);
    }
}

/// Mark `node`, its elements and its texts (see [`prune`]).
fn mark(doc: &Document, node: &NodeRef) {
    node.set_attr(MARK, "");
    // Collected first: the iterators borrow the tree, which marking changes.
    for inner in node.descendants() {
        if inner.is_element() {
            inner.set_attr(MARK, "");
        } else if inner.is_text()
            && !inner.text().trim().is_empty()
            && !inner.parent().is_some_and(|p| {
                p.has_name("script")
                    || p.has_name("style")
                    || p.has_name("textarea")
                    || p.has_name("title")
            })
        {
            let span = doc.tree.new_element("span");
            span.set_attr(MARK, "");
            inner.wrap_node(&span);
        }
    }
}

/// Remove what [`prune`] marked: each marked node whose parent is not marked (the others
/// go with it). Called on readability's document after it has chosen, and on the whole
/// body before the fallback writes it.
pub(crate) fn remove_marked(doc: &Document) {
    for node in doc.select("[data-vetch-boilerplate]").nodes() {
        if !node.parent().is_some_and(|p| p.has_attr(MARK)) {
            node.remove_from_parent();
        }
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
        return caption_is_credit(node).then_some(Rule::Caption);
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
        if rule == Rule::Caption && !caption_is_credit(node) {
            return None;
        }
        return Some(rule);
    }
    if matches!(tag, "div" | "section" | "ul" | "ol" | "table") && own.link_dense() {
        return Some(Rule::LinkDense);
    }
    None
}

/// A caption of fewer words than this is a label, of this many or more a legend (see
/// [`caption_is_credit`]).
const LABEL_WORDS: usize = 10;

/// A caption that is a photo credit (or a player's status line) rather than part of the
/// article. What stays is
/// - a label of its figure, under [`LABEL_WORDS`] words and not all capitalised ("Flame
///   chart", "Memory leak in action", "Attach moss. (Lucy Akins)"): the article's text
///   refers to its figures by such names, and on how-to pages they carry the steps;
/// - a legend, [`LABEL_WORDS`] words or more and at most three in five capitalised ("A Con
///   Edison worker repairing underground cables this month in Flushing, Queens"): it says
///   what the picture shows, and a reader reads it as part of the article.
///
/// What goes: a credit, led by a credit word ("Photo illustration by Andrew B. Myers for
/// The New York Times", "© Reuters"), a short caption naming an agency or a photo ("Kevin
/// Frayer/Getty Images", "Mark Stout/iStock/Getty Images"), names only ("Lucy Akins"), or
/// a long one of mostly capitalised words; and a caption with no words.
///
/// Counted without its credit-named parts (the credit rule marks those) and without
/// credit parentheses ("(Photo: Getty Images)", "(Lucy Akins)"). Letters of scripts
/// without case count one word per two.
///
/// Measured (text mode): keeping labels, against pruning every caption, cost scrapinghub
/// 0.0010 P for +0.0037 R on Readability's pages; keeping legends as well cost scrapinghub
/// 0.0043 F1 (0.0085 P) for +0.0032 F1 (+0.0060 R) there. Scrapinghub's annotators leave
/// every caption out; Readability keeps every one, credits included.
fn caption_is_credit(node: &NodeRef) -> bool {
    // The caption's text in document order, without its credit-named parts.
    let mut text = String::new();
    let mut stack: Vec<NodeRef> = node.children_it(true).collect();
    let mut names = String::new();
    while let Some(at) = stack.pop() {
        if text.len() > 2048 {
            // A legend's worth, whatever follows.
            break;
        }
        if at.is_text() {
            text.push_str(&at.text());
            text.push(' ');
        } else if at.is_element() {
            names.clear();
            if let Some(value) = at.attr("class") {
                names.push_str(&value);
            }
            if rule_of_names(&names) != Some(Rule::Credit) {
                stack.extend(at.children_it(true));
            }
        }
    }
    let mut counts = WordCounts::default();
    // Parenthesised groups are counted only when they are not credits.
    let (mut outside, mut group) = (String::new(), String::new());
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '(' | '[' => {
                depth += 1;
                if depth == 1 {
                    group.clear();
                    continue;
                }
            }
            ')' | ']' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    let inner = WordCounts::of(&group);
                    let credit = inner.credit_words > 0 || inner.capitalised == inner.words;
                    if !credit {
                        counts.add(&inner);
                    }
                    continue;
                }
            }
            _ => {}
        }
        if depth > 0 {
            group.push(c);
        } else {
            outside.push(c);
        }
    }
    if depth > 0 {
        outside.push_str(&group);
    }
    let main = WordCounts::of(&outside);
    counts.add(&main);
    if main.first_is_credit || counts.words == 0 {
        return true;
    }
    if counts.words < LABEL_WORDS {
        main.credit_words > 0 || counts.capitalised == counts.words
    } else {
        counts.capitalised * 5 > counts.words * 3
    }
}

/// Words of a caption's text, for [`caption_is_credit`].
#[derive(Debug, Default)]
struct WordCounts {
    words: usize,
    capitalised: usize,
    credit_words: usize,
    first_is_credit: bool,
}

impl WordCounts {
    fn of(text: &str) -> WordCounts {
        let mut counts = WordCounts::default();
        let words = text
            .split(|c: char| !c.is_alphanumeric() && c != '©')
            .filter(|w| !w.is_empty());
        for (i, word) in words.enumerate() {
            let credit = word == "©" || is_credit_word(word);
            counts.credit_words += usize::from(credit);
            if i == 0 {
                counts.first_is_credit = credit;
            }
            let uncased = word
                .chars()
                .filter(|c| c.is_alphabetic() && !c.is_lowercase() && !c.is_uppercase())
                .count();
            counts.words += 1 + uncased / 2;
            if word.chars().next().is_some_and(char::is_uppercase) {
                counts.capitalised += 1;
            }
        }
        counts
    }

    fn add(&mut self, other: &WordCounts) {
        self.words += other.words;
        self.capitalised += other.capitalised;
        self.credit_words += other.credit_words;
    }
}

/// A word that marks a photo credit: "Photo: AP", "(Image: Getty)", "Credit Chang W. Lee".
fn is_credit_word(word: &str) -> bool {
    const WORDS: &[&str] = &[
        "photo",
        "photos",
        "photograph",
        "photographer",
        "image",
        "images",
        "credit",
        "credits",
        "copyright",
        "courtesy",
        "source",
        "getty",
        "ap",
        "afp",
        "reuters",
        "epa",
        "shutterstock",
        "istock",
        "foto",
        "фото",
    ];
    WORDS.contains(&word.to_lowercase().as_str())
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
    /// Links to a place in the page itself (`href="#…"`).
    anchors: usize,
    /// Links that show their address as their text.
    shown_urls: usize,
}

impl TextStats {
    /// At least three links, and 80% or more of the text is link text (after
    /// trafilatura's link-density test); but not a table of contents (half or more of
    /// the links go to places in the page: the article's own outline) nor a list of
    /// references (half or more show their address, "https://nodejs.org/api/…"): neither
    /// leads away from the article the way menus and link farms do. (Readability keeps
    /// both; exempting them gave its test pages +0.0010 R and changed nothing on
    /// scrapinghub.)
    fn link_dense(&self) -> bool {
        self.links >= 3
            && self.text > 0
            && self.link_text * 5 >= self.text * 4
            && self.anchors * 2 < self.links
            && self.shown_urls * 2 < self.links
    }
}

/// A link text that is a web address ("https://nodejs.org/api/inspector.html").
fn shows_url(text: &str) -> bool {
    let t = text.trim_start();
    let starts = |p: &str| t.get(..p.len()).is_some_and(|s| s.eq_ignore_ascii_case(p));
    starts("http://") || starts("https://") || starts("www.")
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
                own.anchors += c.anchors;
                own.shown_urls += c.shown_urls;
            }
        }
        if node.has_name("a") {
            if let Some(href) = node.attr("href") {
                own.link_text = own.text;
                own.links += 1;
                if href.trim_start().starts_with('#') {
                    own.anchors += 1;
                }
                // Long texts are not addresses; not worth collecting.
                if own.text <= 2048 && shows_url(&node.text()) {
                    own.shown_urls += 1;
                }
            }
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
        remove_marked(&doc);
        body_text(&doc)
    }

    fn body_text(doc: &Document) -> String {
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
             <figcaption>Kevin Frayer/Getty Images</figcaption></figure>\
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
        for junk in ["Kevin Frayer", "Sign up now", "One", "Alpha"] {
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
    fn marks_leave_the_page_as_readability_sees_it() {
        let html = format!(
            "<body><div id=wrap><article><p>{PROSE}</p><p>{PROSE}</p></article>\
             <div class=related-stories>Other story <a href=/1>one</a> <a href=/2>two</a></div>\
             <ul class=menu><li><a href=/a>Alpha</a><li><a href=/b>Beta</a><li><a href=/c>Gamma</a></ul>\
             </div></body>"
        );
        let doc = Document::from(html.as_str());
        let before = (body_text(&doc), doc.select("a").length());
        prune(&doc);
        // Same text, same links: readability scores the page as served and picks the same
        // container (removing the side blocks first lowered their ancestors' link density).
        assert_eq!((body_text(&doc), doc.select("a").length()), before);
        assert!(doc.select("div.related-stories").has_attr(MARK));
        // Readability turns a <div> holding only text into a new <p>, moving the text: the
        // text's own mark survives that.
        let related = doc.select("div.related-stories");
        let p = doc.tree.new_element("p");
        for child in related.nodes()[0].children() {
            p.append_child(&child);
        }
        related.nodes()[0].replace_with(&p);
        remove_marked(&doc);
        let text = body_text(&doc);
        assert_eq!(text.matches("harbour master").count(), 2, "{text}");
        for junk in ["Other story", "one", "Alpha", "Gamma"] {
            assert!(!text.contains(junk), "found {junk:?} in {text}");
        }
        // Scripts and styles inside a marked block are not wrapped (their text is raw).
        let doc =
            Document::from("<body><div class=promo><script>var a = 1;</script>x</div></body>");
        prune(&doc);
        assert_eq!(doc.select("script").text().to_string(), "var a = 1;");
        assert_eq!(doc.select("script span").length(), 0);
    }

    #[test]
    fn marked_blocks_are_left_out_of_either_path() {
        use crate::model::kinds::{BodyKind, ExtractMode};
        let extract = |html: &str| {
            crate::content::extract::extract(html, BodyKind::Html, ExtractMode::Text, None).text
        };
        // Readability's path: the related rail is inside the picked container.
        let long = format!(
            "<body><article><h1>Ferry news</h1><p>{PROSE}</p><p>{PROSE}</p><p>{PROSE}</p>\
             <div class=related-stories>Read next: the bridge reopens</div><p>{PROSE}</p></article></body>"
        );
        // The whole-body fallback: too little text for readability to be trusted.
        let short = format!(
            "<body><p>{PROSE}</p><div class=related-stories>Read next: the bridge reopens</div></body>"
        );
        for html in [long, short] {
            let text = extract(&html);
            assert!(text.contains("harbour master"), "{text}");
            assert!(!text.contains("bridge reopens"), "{text}");
        }
    }

    #[test]
    fn captions_that_are_credits_go_labels_and_legends_stay() {
        let kept = |caption: &str| {
            let html = format!(
                "<body><p>{PROSE}</p><figure><img src=a.png alt=x>{caption}</figure><p>{PROSE}</p></body>"
            );
            let text = pruned(&html);
            assert!(text.contains("harbour master"), "{text}");
            text.len() > pruned(&format!("<body><p>{PROSE}</p><p>{PROSE}</p></body>")).len()
        };
        // Labels and legends.
        for caption in [
            "<figcaption>Flame chart</figcaption>",
            "<figcaption>Memory leak in action</figcaption>",
            "<figcaption>Attach moss. (Lucy Akins)</figcaption>",
            "<figcaption>A Con Edison worker repairing underground cables this month in \
             Flushing, Queens. <span class=credit>Credit Chang W. Lee</span></figcaption>",
            "<div class=image-caption>The road to retiring early isn't easy.</div>",
            "<figcaption>Officials in Delhi handed out more than 5 million air filter masks \
             to schoolchildren (Photo: Getty Images)</figcaption>",
            "<figcaption>北京朝阳医院的医生正在检查一名病人的情况</figcaption>",
        ] {
            assert!(kept(caption), "{caption}");
        }
        // Credits and status lines.
        for caption in [
            "<figcaption>Kevin Frayer/Getty Images</figcaption>",
            "<figcaption>Mark Stout/iStock/Getty Images</figcaption>",
            "<figcaption>Photo illustration by Andrew B. Myers for The New York Times</figcaption>",
            "<figcaption>© Reuters</figcaption>",
            "<figcaption>Danielle Chenette</figcaption>",
            "<figcaption>(Lucy Akins)</figcaption>",
            "<figcaption><span class=credit>Photo: AP</span></figcaption>",
            "<div class=caption>Sheikh Mohammed Bin Rashid Al Maktoum, United Arab Emirates \
             Vice President And Prime Minister, Dubai</div>",
            "<figcaption>Фото: личный архив</figcaption>",
        ] {
            assert!(!kept(caption), "{caption}");
        }
        // In a kept caption, the credit-named part still goes.
        let text = pruned(&format!(
            "<body><p>{PROSE}</p><figure><figcaption>Flame chart <span class=credit>Photo: \
             Jane Doe</span></figcaption></figure></body>"
        ));
        assert!(
            text.contains("Flame chart") && !text.contains("Jane Doe"),
            "{text}"
        );
    }

    #[test]
    fn tables_of_contents_and_reference_lists_are_not_link_farms() {
        let with = |list: &str| pruned(&format!("<body><p>{PROSE}</p>{list}<p>{PROSE}</p></body>"));
        let toc = "<div class=toc><ul><li><a href=#one>Detecting anomalies</a>\
                   <li><a href=#two>Understanding z-score</a><li><a href=#three>Conclusion</a></ul></div>";
        assert!(with(toc).contains("Understanding z-score"));
        let refs = "<ul><li><a href=https://nodejs.org/api/inspector.html>https://nodejs.org/api/inspector.html</a>\
                    <li><a href=https://example.org/a>https://example.org/a</a>\
                    <li><a href=https://example.org/b>www.example.org/b</a></ul>";
        assert!(with(refs).contains("nodejs.org"));
        let menu = "<ul><li><a href=/news>News</a><li><a href=/sport>Sport</a><li><a href=#top>Top</a></ul>";
        assert!(!with(menu).contains("Sport"));
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
