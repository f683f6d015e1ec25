//! Boilerplate before main-content selection: blocks that are never the article (photo
//! credits, related-story rails and teasers of other stories, newsletter and promo boxes,
//! ads) are marked in the parsed page before readability scores it, and removed from what
//! was selected before it is written ([`remove_marked`]), so they cannot ride along inside
//! the picked container.
//!
//! Marked, not removed up front: readability then picks the container it would pick on the
//! page as served. Removing side blocks first lowered the link density of their ancestors
//! and made it climb to a wider container (on two of Readability's test pages a cookie
//! notice and a "make MSN my homepage" box rode along); with marks, text precision rose
//! on both corpora (scrapinghub +0.0003, Readability's pages +0.0011).
//!
//! Each rule is kept because it raised shingle precision on the scrapinghub article
//! benchmark without lowering recall there, and cost at most 0.0008 of recall on
//! Readability's test pages (promo: newsletter boxes that Readability keeps)
//! (`scripts/score-corpus.sh`; the figures per rule are in docs/reference.md, "Note:
//! main-content quality, measured"). Link-dense blocks were a rule too and were dropped:
//! a list of links in the article may be its references. Captions and galleries were
//! dropped under issue 14 (they cost recall on Readability's pages, whose reference keeps
//! them) and came back under issue 27, once plain text stopped repeating the headline:
//! scrapinghub text F1 0.9451 → 0.9672, trafilatura's pages 0.8865 → 0.8915, Readability's
//! pages 0.9772 → 0.9878. Share bars, comment threads and `<nav>`/`<aside>`/`<footer>` were measured too
//! and left to readability, which already drops them: as rules here they changed nothing
//! or cost precision; bylines and post metadata (`byline`, `author`, `meta`, `timestamp`)
//! cost recall.
//!
//! Matching is on whole words of `class` values and of short `id`s (split at `-`, `_`,
//! other non-alphanumerics and lower-to-upper case changes), so `related-posts` matches and
//! `unrelated` does not, `article-header` matches nothing, and an `id` of four words or
//! more (a slug of a heading, `sharing-with-a-single-developer`) is not read as a name.
//! Nothing inside `<pre>`/`<code>` is looked at.
//!
//! What is never marked: the page's first `<h1>` and its ancestors, `<main>`,
//! `role="main"`, `itemprop="articleBody"`, any element holding a third or more of the
//! page's text (a site that calls its article wrapper `related` keeps its article).
//!
//! Issue 27 added two rules, each measured on both corpora: controls standing alone (links
//! and buttons named `button`/`btn` or with `role="button"`, three words or fewer: +0.0001
//! on scrapinghub, -0.0004 on Readability's pages, whose reference keeps a carousel's
//! `Next`), and a narrower nested rule (a forum post's body is an `<article>` inside the
//! post's: only teasers go). A third rule came later: a form where the reader writes (a
//! review, a comment: it holds a `<textarea>`), whose prompts are not the page's text
//! (trafilatura's product pages +0.0097; one 2026 service page whose reference keeps a
//! contact form's labels -0.03). The same walk finds the page's content root ([`content_root`])
//! for the extraction's check of readability's pick.
//!
//! Must never: panic, or remove text that is the article's.

use dom_query::{local_name, Document, NodeId, NodeRef};

/// Why a block is boilerplate (each is one rule, measured on its own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rule {
    /// `credit` blocks: photo credits.
    Credit,
    /// Related, recommended, trending and "more stories" rails.
    Related,
    /// Newsletter, subscribe, sign-up, promo and sponsored boxes.
    Promo,
    /// Advertising slots.
    Ad,
    /// Blocks named as captions (`caption`, `wp-caption-text`, `image-caption`): the
    /// words under a picture the reader of the text does not see. A `<figcaption>` with no
    /// such name stays.
    Caption,
    /// Galleries, slideshows, carousels and sliders: the slides' captions (often the same
    /// ones again) and their controls ("Image 1 of 8", "Close").
    Gallery,
    /// An `<article>` inside another one that reads like a teaser of another story: it has
    /// a heading, most of its text is links, or it holds less than half of the text of the
    /// article around it. (A forum post's body is an `<article>` inside the post's
    /// `<article>`, with none of these.)
    Nested,
    /// A control that stands alone: a link or `<button>` named `button`/`btn`, or with
    /// `role="button"`, of three words or fewer ("Add to cart", "Compare"). (Blocks so
    /// named were measured too: on Readability's pages they are share boxes and video
    /// players whose text its reference keeps.)
    Control,
    /// A skip link: a link to a place on the same page (`href="#main"`), named so
    /// (`skip-link`) or saying so ("Skip to main content", "Jump to content"). It is a
    /// keyboard user's way past the navigation, not the page's text.
    Skip,
    /// A form where the reader writes (it holds a `<textarea>`): a review, a comment, a
    /// message. Its headings and labels ("How would you rate this item?", "Nickname")
    /// ask the reader for text; they are not the page's.
    Writing,
}

/// The attribute that marks boilerplate (see [`prune`]).
pub(crate) const MARK: &str = "data-vetch-boilerplate";

/// The attribute that marks the page's content root (see [`content_root`]).
pub(crate) const ROOT_MARK: &str = "data-vetch-root";

/// The content root holds at least this share of the page's content weight (in percent).
const ROOT_SHARE: usize = 80;

/// A content root whose content is more than this share links (in percent) is none: it
/// holds lists of other pages (teasers, "latest news"), whose text is not the article's;
/// unless it is the page's `<main>`, which is then a list (see [`content_root`]).
const ROOT_LINKS: usize = 25;

/// The same bound on the root's content outside its link lists ([`is_link_list`]). Higher:
/// what is left once the lists are out is the page's own text with its inline links
/// (a product's manufacturer and ingredients). Measured: from 30 to 50 the same two pages
/// of trafilatura's corpus change (a drug's product page, a press release), and nothing
/// else on the three corpora.
const ROOT_OWN_LINKS: usize = 35;

/// Mark the boilerplate blocks of a parsed page (see the module docs); [`remove_marked`]
/// removes them once readability has chosen. Also marks the page's content root
/// ([`ROOT_MARK`], see [`content_root`]) and returns its content weight.
///
/// A block is marked with [`MARK`], and so is every element in it; every non-blank text in
/// it is wrapped in a marked `<span>`. Readability rewrites the tree as it scores it (a
/// `<div>` holding only text becomes a new `<p>`, which would carry no mark): the marks on
/// what is left of the block's elements and on each of its texts survive that. A `<span>`
/// around a text changes neither readability's scores nor its link densities.
pub(crate) fn prune(doc: &Document) -> Option<Root> {
    // Walks, not `select` (see `crate::content::find`).
    let body = crate::content::find::named(doc, "body").next()?;
    let stats = subtree_stats(&body)?;
    let page_text = stats.of(0).text;
    // The first <h1> and its ancestors are protected.
    let mut protected: Vec<NodeId> = Vec::new();
    if let Some(h1) = crate::content::find::named_within(doc, "body", "h1").next() {
        let mut at = Some(h1);
        while let Some(node) = at {
            protected.push(node.id);
            at = node.parent();
        }
    }
    let mut doomed: Vec<NodeRef> = Vec::new();
    // Each node with its place in `stats` and the place of the nearest `<article>` among
    // it and its ancestors.
    let mut stack: Vec<(NodeRef, usize, Option<usize>)> = vec![(body, 0, None)];
    let mut names = String::new();
    while let Some((node, at, article_at)) = stack.pop() {
        if crate::content::cancel::cancelled() {
            return None;
        }
        for (child, child_at) in stats.children(&node, at) {
            // The interned name (a copy, not an allocation; it must not borrow the tree).
            let Some(local) = child.qual_name_ref().map(|n| n.local.clone()) else {
                continue;
            };
            let tag: &str = &local;
            if matches!(
                tag,
                "pre" | "code" | "kbd" | "samp" | "script" | "style" | "svg" | "math"
            ) {
                continue;
            }
            let own = stats.of(child_at);
            let outer = article_at.map(|i| stats.of(i));
            let rule = classify(&child, tag, &own, outer.as_ref(), &mut names);
            let keep = rule.is_none()
                || protected.contains(&child.id)
                || is_content_root(&child, tag)
                || (page_text > 0 && own.text.saturating_mul(3) >= page_text);
            if keep {
                let article_at = if tag == "article" {
                    Some(child_at)
                } else {
                    article_at
                };
                stack.push((child, child_at, article_at));
            } else {
                doomed.push(child);
            }
        }
    }
    // Found before the marks change the tree (they wrap the texts of doomed blocks in
    // elements `stats` does not count); they never made a root either, having no weight.
    let root = content_root(&body, &stats);
    for node in doomed {
        mark(doc, &node);
    }
    let (root, found) = root?;
    root.set_attr(ROOT_MARK, "");
    Some(found)
}

/// What [`prune`] found of the page's content root ([`ROOT_MARK`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Root {
    /// Its content weight.
    pub(crate) weight: usize,
    /// It is a list: the page's `<main>`, holding no article, mostly links (see
    /// [`content_root`]). Only a short text beside it is its introduction.
    pub(crate) list: bool,
}

/// The page's content root: the deepest element that holds [`ROOT_SHARE`] percent or more
/// of the content weight of the body (visible characters outside links, and half of those
/// in links, leaving out navigation, sidebars, footers, comment sections, share bars, forms
/// and the blocks the rules here name), with its weight outside its link lists
/// ([`is_link_list`]); `None` when that is the body, when more than [`ROOT_OWN_LINKS`]
/// percent of its content outside link lists is links, or when it holds an `<article>` or
/// `itemprop="articleBody"`. A root that is the page's `<main>` holding no
/// article is a list when mostly links: it stays a root, weighed with its links whole, and
/// marked as a list ([`Root::list`]: only a short pick is its introduction).
/// Readability picks the best-scoring container, which on a page split into sibling
/// sections or page-builder widgets is one section; the extraction compares its pick
/// with this root (see `crate::content::extract`).
fn content_root<'a>(body: &NodeRef<'a>, stats: &Stats) -> Option<(NodeRef<'a>, Root)> {
    let total = stats.of(0).weight;
    if total == 0 {
        return None;
    }
    let (mut root, mut at) = (*body, 0);
    while let Some((child, child_at)) = stats
        .children(&root, at)
        .find(|&(_, i)| stats.of(i).weight.saturating_mul(100) >= total.saturating_mul(ROOT_SHARE))
    {
        (root, at) = (child, child_at);
    }
    let stats = stats.of(at);
    // A root the page names its main content (`<main>`, `role="main"`) holding no article
    // is a list when it is mostly links (a category's products, search results): its
    // links are its content and count whole.
    let main = root
        .qual_name_ref()
        .is_some_and(|n| is_content_root(&root, &n.local));
    let dense = link_chars(stats.content, stats.weight).saturating_mul(100)
        > stats.content.saturating_mul(ROOT_LINKS);
    if main && dense && !stats.article && root.id != body.id {
        let list = Root {
            weight: stats.content,
            list: true,
        };
        return Some((root, list));
    }
    // Otherwise the root is weighed without the link lists in it ("more products",
    // "related articles"): those are other pages, and a product's specs beside a long list
    // of related products must not read as a list of teasers.
    let content = stats.content.saturating_sub(stats.list_content);
    let weight = stats.weight.saturating_sub(stats.list_weight);
    let dense =
        link_chars(content, weight).saturating_mul(100) > content.saturating_mul(ROOT_OWN_LINKS);
    // A page that names its article (`<article>`, `itemprop="articleBody"`) inside the root
    // has said where its content is; the rest of the root is teasers of other stories.
    let found = Root {
        weight,
        list: false,
    };
    (root.id != body.id && content > 0 && !dense && !stats.article).then_some((root, found))
}

/// Whether `node` is a block that is never the page's content whatever readability makes
/// of it: navigation, a sidebar, a footer, a comment section, a share bar, a control, a block
/// the rules here name (by tag, ARIA role, or a whole word of its `class` or short `id`).
pub(crate) fn is_aside(node: &NodeRef) -> bool {
    aside_as(node, Comments::Aside)
}

/// What a block named a comment section (`comments`, `comment-list`) is where it is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Comments {
    /// Readers' comments under an article: never the content.
    Aside,
    /// On a product page, the customers' reviews of the product (a training course's
    /// testimonials in `lf_pdp_fundamentals-testimonials-comments`, eBay's seller feedback):
    /// part of the product's page, as its other reviews are (see `extract::product`).
    Reviews,
}

/// [`is_aside`], with blocks named as comments taken for `comments`.
fn aside_as(node: &NodeRef, comments: Comments) -> bool {
    // One look at the element: this runs for every element of the page, and an `attr` call
    // per name (a borrow of the tree and a copy of the value each) cost more than the test.
    let aside = node.query_or(Aside::No, |n| {
        n.as_element()
            .map_or(Aside::No, |e| element_aside(e, comments))
    });
    match aside {
        Aside::No => false,
        Aside::Yes => true,
        // A "gallery" that holds prose is content (see `classify`).
        Aside::Gallery => !holds_prose_within(node),
    }
}

/// What [`element_aside`] makes of an element.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Aside {
    No,
    Yes,
    /// Named a gallery only: an aside unless it holds prose.
    Gallery,
}

/// Elements [`holds_prose_within`] looks at, at most: a block that does not show its prose
/// by then is taken for a gallery (the bound keeps nested galleries linear).
const PROSE_LOOK: usize = 2000;

/// Whether `node` holds [`GALLERY_PROSE`] visible characters outside links and figures,
/// found within its first [`PROSE_LOOK`] nodes (links, figures, blocks another rule names
/// such as captions, scripts and styles are not entered: a photo gallery's long captions
/// are no prose of its own).
fn holds_prose_within(node: &NodeRef) -> bool {
    let mut chars = 0usize;
    let mut looked = 0usize;
    let mut stack: Vec<NodeRef> = node.children_it(true).collect();
    while let Some(n) = stack.pop() {
        looked += 1;
        if looked > PROSE_LOOK {
            return false;
        }
        if n.is_text() {
            chars += n.query_or(0, |t| match &t.data {
                dom_query::NodeData::Text { contents } => {
                    crate::content::tidy::visible_chars(contents)
                }
                _ => 0,
            });
            if chars >= GALLERY_PROSE {
                return true;
            }
        } else if n.qual_name_ref().is_some_and(|name| {
            !matches!(
                &*name.local,
                "a" | "figure" | "figcaption" | "script" | "style" | "template"
            )
        }) && !named_by_a_rule(&n)
        {
            stack.extend(n.children_it(true));
        }
    }
    false
}

/// Whether the `class` or `id` of `node` names one of the rules here other than a gallery
/// (a caption, a credit, an ad).
fn named_by_a_rule(node: &NodeRef) -> bool {
    ["class", "id"].into_iter().any(|name| {
        node.attr(name).is_some_and(|v| {
            let mut found = false;
            for_each_word(&v, |w| {
                found |= rule_of_word(w).is_some_and(|r| r != Rule::Gallery);
            });
            found
        })
    })
}

/// [`aside_as`] of the element itself.
fn element_aside(e: &dom_query::Element, comments: Comments) -> Aside {
    let by_tag = matches!(
        &*e.name.local,
        "nav" | "aside" | "footer" | "select" | "button" | "dialog" | "noscript"
    );
    if by_tag {
        return Aside::Yes;
    }
    // The first attribute of that name, as `NodeRef::attr` finds it.
    let attr = |name: &str| crate::content::find::first_attr(e, name);
    if attr("role").is_some_and(|r| {
        matches!(
            r.trim(),
            "navigation" | "complementary" | "contentinfo" | "search" | "menu" | "menubar"
        )
    }) {
        return Aside::Yes;
    }
    let mut aside = false;
    let mut gallery = false;
    let mut check = |value: &str| {
        for_each_word(value, |w| {
            let rule = rule_of_word(w);
            gallery |= rule == Some(Rule::Gallery);
            let comment = matches!(w, "comment" | "comments") && comments == Comments::Aside;
            aside |= comment
                || matches!(
                    w,
                    "sidebar"
                        | "footer"
                        | "nav"
                        | "navbar"
                        | "navigation"
                        | "menu"
                        | "breadcrumb"
                        | "breadcrumbs"
                        | "share"
                        | "sharing"
                        | "social"
                        | "disqus"
                        | "respond"
                        | "pagination"
                        | "pager"
                        | "tags"
                )
                || rule.is_some_and(|r| r != Rule::Gallery);
        });
    };
    if let Some(class) = attr("class") {
        check(class);
    }
    if let Some(id) = attr("id") {
        let mut words = 0;
        for_each_word(id, |_| words += 1);
        if words <= 3 {
            check(id);
        }
    }
    match (aside, gallery) {
        (true, _) => Aside::Yes,
        (false, true) => Aside::Gallery,
        (false, false) => Aside::No,
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

/// Remove every [`is_aside`] block under `root` (see `crate::content::extract`), blocks
/// named as comments taken for `comments`.
pub(crate) fn remove_asides(root: &NodeRef, comments: Comments) {
    let mut doomed: Vec<NodeRef> = Vec::new();
    let mut stack: Vec<NodeRef> = vec![*root];
    while let Some(node) = stack.pop() {
        for child in node.children_it(false) {
            if !child.is_element() {
                continue;
            }
            if aside_as(&child, comments) {
                doomed.push(child);
            } else {
                stack.push(child);
            }
        }
    }
    for node in doomed {
        node.remove_from_parent();
    }
}

/// Remove what [`prune`] marked: each marked node whose parent is not marked (the others
/// go with it). Called on readability's document after it has chosen, and on the whole
/// body before the fallback writes it.
pub(crate) fn remove_marked(doc: &Document) {
    for node in crate::content::find::with_attr(doc, MARK) {
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
fn classify(
    node: &NodeRef,
    tag: &str,
    own: &TextStats,
    outer: Option<&TextStats>,
    names: &mut String,
) -> Option<Rule> {
    if tag == "article" {
        // `outer`: the nearest `<article>` around `node`.
        let outer_text = outer?.text;
        let teaser = own.heading
            || own.link_text.saturating_mul(2) > own.text
            || own.text.saturating_mul(2) < outer_text;
        return teaser.then_some(Rule::Nested);
    }
    if is_control(node, tag, own) {
        return Some(Rule::Control);
    }
    if is_skip_link(node, tag, own) {
        return Some(Rule::Skip);
    }
    if tag == "form" {
        return is_writing_form(node).then_some(Rule::Writing);
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
            | "figcaption"
            | "table"
            | "dl"
            | "center"
            | "header"
    ) {
        return None;
    }
    // A `<span>` inside a line of text is part of a sentence: only one that stands as a
    // block of its own (no text beside it) may go (DESIGN §12).
    if tag == "span" && !stands_alone(node) {
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
    // A "gallery" that holds prose is a run of feature blocks (Lenovo's `feature-gallery`
    // of headed paragraphs), not pictures with their captions.
    rule_of_names(names).filter(|rule| *rule != Rule::Gallery || !holds_prose_within(node))
}

/// Visible characters outside links and figures from which a block named a gallery holds
/// prose, not pictures with their captions (see [`classify`]): a paragraph. Lenovo's
/// features are one `feature-gallery` each, a heading and a paragraph of 250 to 350
/// characters; 400 lost all but the longest (2026 product pages 0.5645 at 400, 0.5704 at
/// 200, 0.5710 at 150, 0.5725 at 120; scrapinghub and Readability's pages the same at all four).
const GALLERY_PROSE: usize = 150;

/// A form holding a `<textarea>` (see [`Rule::Writing`]).
fn is_writing_form(node: &NodeRef) -> bool {
    node.descendants_it().any(|d| d.has_name("textarea"))
}

/// Words of text at most in a [`Rule::Control`].
const CONTROL_WORDS: usize = 3;

/// A control standing alone (see [`Rule::Control`]): never a part of a sentence.
fn is_control(node: &NodeRef, tag: &str, own: &TextStats) -> bool {
    if !matches!(tag, "a" | "button") || own.words > CONTROL_WORDS {
        return false;
    }
    // One look at the attributes (the first `role` and the first `class`, as `attr` finds
    // them): this runs for every short link of the page.
    let said = node.query_or(false, |n| {
        let Some(e) = n.as_element() else {
            return false;
        };
        let first = |name: &str| crate::content::find::first_attr(e, name);
        let role = first("role").is_some_and(|r| r.trim().eq_ignore_ascii_case("button"));
        let named = first("class").is_some_and(|class| {
            let mut found = false;
            for_each_word(class, |w| found |= matches!(w, "button" | "btn" | "close"));
            found
        });
        role || named
    });
    said && stands_alone(node)
}

/// Visible characters at most in a [`Rule::Skip`] link ("Skip to Shop REI categories").
const SKIP_CHARS: usize = 60;

/// A skip link standing alone (see [`Rule::Skip`]).
fn is_skip_link(node: &NodeRef, tag: &str, own: &TextStats) -> bool {
    if tag != "a" || own.text > SKIP_CHARS {
        return false;
    }
    let in_page = node.attr("href").is_some_and(|h| {
        let h = h.trim();
        h.len() > 1 && h.starts_with('#')
    });
    if !in_page || !stands_alone(node) {
        return false;
    }
    let mut named = false;
    for attr in ["class", "id"] {
        if let Some(value) = node.attr(attr) {
            for_each_word(&value, |w| {
                named |= matches!(w, "skip" | "skiplink" | "skipnav" | "skiptocontent")
            });
        }
    }
    let text = node.text().to_lowercase();
    let mut words = text.split_whitespace();
    let says = matches!(
        (words.next(), words.next()),
        (Some("skip"), Some("to" | "navigation" | "nav")) | (Some("jump" | "back"), Some("to"))
    );
    named || says
}

/// No text stands beside `node` in its parent: an inline element that is a block of its
/// own, not a part of a sentence.
fn stands_alone(node: &NodeRef) -> bool {
    node.parent().is_none_or(|parent| {
        parent
            .children_it(false)
            .all(|c| c.id == node.id || !c.is_text() || c.text().trim().is_empty())
    })
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
        "credit" | "credits" | "imagecredit" | "photocredit" => Rule::Credit,
        "related" | "relatedposts" | "recommended" | "recommendations" | "recirc" | "trending"
        | "outbrain" | "taboola" | "popular" | "mostpopular" | "rail" | "upsell" | "upsells"
        | "crosssell" | "crosssells" | "recentlyviewed" => Rule::Related,
        "newsletter" | "newsletters" | "subscribe" | "subscription" | "signup" | "promo"
        | "promos" | "promotion" | "sponsored" | "sponsor" => Rule::Promo,
        "ad" | "ads" | "advert" | "adverts" | "advertisement" | "advertising" | "adslot"
        | "adunit" | "dfp" | "gpt" => Rule::Ad,
        "caption" | "captions" | "figcaption" | "imagecaption" | "photocaption" => Rule::Caption,
        "gallery" | "galleries" | "slideshow" | "lightbox" | "carousel" | "slider" | "swiper" => {
            Rule::Gallery
        }
        _ => return None,
    })
}

/// Call `f` with each lower-cased word of `names`: split at every non-alphanumeric
/// character and where a lower-case letter or digit is followed by an upper-case one.
pub(crate) fn for_each_word(names: &str, mut f: impl FnMut(&str)) {
    // A word in a buffer on the stack (this runs for every element with a class). No rule
    // word is this long, so a longer word is passed cut (it still counts as a word and
    // still matches nothing).
    let mut word = [0u8; 32];
    let mut len = 0usize;
    let mut prev_lower = false;
    let mut emit = |word: &[u8], len: &mut usize| {
        if *len > 0 {
            f(std::str::from_utf8(&word[..*len]).unwrap_or(""));
            *len = 0;
        }
    };
    for b in names.bytes() {
        if b.is_ascii_alphanumeric() {
            if b.is_ascii_uppercase() && prev_lower {
                emit(&word, &mut len);
            }
            prev_lower = b.is_ascii_lowercase() || b.is_ascii_digit();
            if let Some(slot) = word.get_mut(len) {
                *slot = b.to_ascii_lowercase();
                len += 1;
            }
        } else {
            emit(&word, &mut len);
            prev_lower = false;
        }
    }
    emit(&word, &mut len);
}

/// What a subtree holds.
#[derive(Debug, Default, Clone, Copy)]
struct TextStats {
    /// Visible characters (not whitespace).
    text: usize,
    /// Of those, in links.
    link_text: usize,
    /// Whitespace-separated words, counted up to a few (a bound, not a count, past
    /// [`CONTROL_WORDS`]).
    words: usize,
    /// It holds a heading (`h1`–`h6`) or is one.
    heading: bool,
    /// Content weight: characters outside links, and half of those in links, blocks that
    /// are [`is_aside`] left out.
    weight: usize,
    /// Characters of the content the weight measures (links counted whole).
    content: usize,
    /// It is or holds an `<article>` or `itemprop="articleBody"`.
    article: bool,
    /// Of `content` and `weight`, what lies in link lists (see [`is_link_list`]).
    list_content: usize,
    list_weight: usize,
}

/// [`TextStats`] of a root element and every element under it that counts ([`counted`]),
/// in document order, each with the number of entries its subtree takes (itself
/// included): an element's first counted child is the entry after its own, and each
/// further one follows its older sibling's subtree. So a walk of the tree finds each
/// element's entry by position ([`Stats::children`]), and reads the entries in the order
/// they lie in memory; a map by node id cost a hash lookup with a cache miss each.
struct Stats(Vec<(TextStats, usize)>);

impl Stats {
    /// The stats of the entry at `at` (the root's is 0).
    fn of(&self, at: usize) -> TextStats {
        self.0.get(at).map(|e| e.0).unwrap_or_default()
    }

    /// The counted element children of `node`, whose entry is at `at`, each with its entry.
    /// The tree must be as it was when the stats were taken.
    fn children<'a, 'b>(
        &'b self,
        node: &NodeRef<'a>,
        at: usize,
    ) -> impl Iterator<Item = (NodeRef<'a>, usize)> + 'b
    where
        'a: 'b,
    {
        let mut next = at + 1;
        node.children_it(false).filter(counted).map(move |child| {
            let child_at = next;
            next += self.0.get(child_at).map_or(1, |e| e.1.max(1));
            (child, child_at)
        })
    }
}

/// Whether [`subtree_stats`] counts `node`: an element, not a script or a style.
fn counted(node: &NodeRef) -> bool {
    node.is_element()
        && !crate::content::find::is_any(node, &[local_name!("script"), local_name!("style")])
}

/// [`Stats`] of `root` (an element) and the elements under it, scripts and styles not
/// counted, in one walk: linear in the page, however deep it nests. `None` when cancelled.
fn subtree_stats(root: &NodeRef) -> Option<Stats> {
    let mut all: Vec<(TextStats, usize)> = Vec::new();
    // A node is numbered when first met (document order: its children are pushed last
    // first) and measured once its subtree is done.
    let mut stack: Vec<(NodeRef, Option<usize>)> = vec![(*root, None)];
    while let Some((node, numbered)) = stack.pop() {
        let Some(at) = numbered else {
            if crate::content::cancel::cancelled() {
                return None;
            }
            stack.push((node, Some(all.len())));
            all.push((TextStats::default(), 1));
            let first = stack.len();
            stack.extend(node.children_it(false).filter(counted).map(|c| (c, None)));
            stack[first..].reverse();
            continue;
        };
        // Name and `itemprop` in one look at the element (as `NodeRef::attr`, the first
        // attribute of that name).
        let (heading, article) = node.query_or((false, false), |n| {
            n.as_element().map_or((false, false), |e| {
                let tag = &*e.name.local;
                let article_body = || {
                    e.attrs
                        .iter()
                        .find(|a| &*a.name.local == "itemprop")
                        .is_some_and(|a| a.value.split_whitespace().any(|w| w == "articleBody"))
                };
                (
                    matches!(tag, "h1" | "h2" | "h3" | "h4" | "h5" | "h6"),
                    tag == "article" || article_body(),
                )
            })
        });
        let mut own = TextStats {
            heading,
            article,
            ..TextStats::default()
        };
        let mut own_text = 0usize;
        let mut next = at + 1;
        for child in node.children_it(false) {
            if child.is_text() {
                // Read in place: `text()` would copy it into a new string.
                let words = own.words;
                let (chars, more_words) = child.query_or((0, 0), |n| match &n.data {
                    dom_query::NodeData::Text { contents } => (
                        crate::content::tidy::visible_chars(contents),
                        if words <= CONTROL_WORDS {
                            // Past `CONTROL_WORDS` the count is only ever compared with
                            // it: a paragraph's words need not all be counted.
                            contents
                                .split_whitespace()
                                .take(CONTROL_WORDS + 1 - words)
                                .count()
                        } else {
                            0
                        },
                    ),
                    _ => (0, 0),
                });
                own_text += chars;
                own.words += more_words;
            } else if counted(&child) {
                let Some(&(c, size)) = all.get(next) else {
                    continue;
                };
                next += size;
                let c = &c;
                own.text += c.text;
                own.link_text += c.link_text;
                own.words = own.words.saturating_add(c.words).min(CONTROL_WORDS + 1);
                own.heading |= c.heading;
                own.article |= c.article;
                let control = child
                    .qual_name_ref()
                    .is_some_and(|n| is_control(&child, &n.local, c));
                if !control && !is_aside(&child) {
                    own.weight += c.weight;
                    own.content += c.content;
                    own.list_content += c.list_content;
                    own.list_weight += c.list_weight;
                }
            }
        }
        own.text += own_text;
        own.weight += own_text;
        own.content += own_text;
        if node.has_name("a") {
            own.link_text = own.text;
            own.weight /= 2;
        } else if is_link_list(&own) {
            own.list_content = own.content;
            own.list_weight = own.weight;
        }
        let size = all.len() - at;
        if let Some(entry) = all.get_mut(at) {
            *entry = (own, size);
        }
    }
    Some(Stats(all))
}

/// A link list (see [`is_link_list`]) holds at least this many characters of content...
const LINK_LIST_MIN: usize = 150;
/// ...and at least this share of them (in percent) in links.
const LINK_LIST_SHARE: usize = 80;

/// Whether an element's subtree is a list of links to other pages ("more products",
/// "related articles", a category menu): [`LINK_LIST_MIN`] characters of content or more,
/// [`LINK_LIST_SHARE`] percent of them in links. Measured only, never removed: a list of
/// links in an article may be its references.
fn is_link_list(s: &TextStats) -> bool {
    s.content >= LINK_LIST_MIN
        && link_chars(s.content, s.weight).saturating_mul(100)
            >= s.content.saturating_mul(LINK_LIST_SHARE)
}

/// The characters in links of a subtree with this `content` and `weight` ([`TextStats`]):
/// link characters weigh half, so `content - weight` is half of them.
fn link_chars(content: usize, weight: usize) -> usize {
    content.saturating_sub(weight).saturating_mul(2)
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

    /// Every counted element, reached by `Stats::children` from the body, has the entry
    /// numbered in document order, a size that is its own plus its children's, and the
    /// text of its own subtree (as `text_chars` counts it): the positions hold even with
    /// scripts, styles, comments and text between the elements.
    #[test]
    fn stats_are_found_by_position_in_document_order() {
        let pages = [
            "<body><div>a<script>x</script><p>bb <b>c</b></p><style>p{}</style>\
             <!-- c --><ul><li>d</li><li><a href=/e>ee</a> f</li></ul></div>\
             <section><article><h2>g</h2><p>hh</p></article><script>y</script></section>\
             <table><tr><td>1</td><td><div><span>2</span></div></td></tr></table></body>",
            "<body>only text</body>",
            "<body><div><div><div><div><p>deep</p></div></div></div></div><p>after</p></body>",
        ];
        for page in pages {
            let doc = Document::from(page);
            let body = doc.select("body").nodes()[0];
            let stats = subtree_stats(&body).unwrap();
            let document_order: Vec<NodeRef> = std::iter::once(body)
                .chain(body.descendants_it().filter(counted))
                .collect();
            assert_eq!(stats.0.len(), document_order.len(), "{page}");
            let mut stack = vec![(body, 0usize)];
            let mut seen = 0;
            while let Some((node, at)) = stack.pop() {
                seen += 1;
                assert_eq!(node.id, document_order[at].id, "{page}");
                let text: usize = node
                    .descendants_it()
                    .filter(|d| d.is_text() && d.parent().is_some_and(|p| counted(&p)))
                    .map(|d| crate::content::tidy::visible_chars(&d.text()))
                    .sum();
                assert_eq!(stats.of(at).text, text, "{page}");
                let children: Vec<_> = stats.children(&node, at).collect();
                let sizes: usize = children.iter().map(|&(_, i)| stats.0[i].1).sum();
                assert_eq!(stats.0[at].1, 1 + sizes, "{page}");
                stack.extend(children);
            }
            assert_eq!(seen, document_order.len(), "{page}");
        }
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
        for junk in ["Sign up now", "One"] {
            assert!(!text.contains(junk), "found {junk:?} in {text}");
        }
        // Captions (credits too) and lists of links are what a reader sees: they stay.
        for kept in ["Kevin Frayer", "Alpha"] {
            assert!(text.contains(kept), "lost {kept:?} in {text}");
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
        let wrapped = format!("<body><div class=related><p>{PROSE}</p></div><p>short</p></body>");
        assert!(pruned(&wrapped).contains("harbour master"));
    }

    #[test]
    fn deep_nesting_is_measured_in_one_walk() {
        // 250 nested candidates around 1 MB of links: each is measured once, not by
        // re-walking its subtree.
        let depth = 250;
        let html = format!(
            "<body>{}{}{}</body>",
            "<div>".repeat(depth),
            "<a href=/x>link text</a> ".repeat(1024 * 1024 / 26),
            "</div>".repeat(depth)
        );
        let text = crate::test_support::within_hang_guard(move || pruned(&html));
        // The outermost div holds the whole page: protected, like every div inside it.
        assert!(text.starts_with("link text"));
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
        for junk in ["Other story", "one"] {
            assert!(!text.contains(junk), "found {junk:?} in {text}");
        }
        assert!(text.contains("Gamma"), "{text}");
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
    fn captions_and_galleries_named_so_go_and_link_lists_stay() {
        let with =
            |block: &str| pruned(&format!("<body><p>{PROSE}</p>{block}<p>{PROSE}</p></body>"));
        for (block, text, kept) in [
            // A <figcaption> that no class names a caption stays.
            ("<figure><img src=a.png alt=x><figcaption>Kevin Frayer/Getty Images</figcaption></figure>", "Kevin Frayer", true),
            ("<figure><img src=a.png alt=x><figcaption class=wp-caption-text>Kevin Frayer/Getty Images</figcaption></figure>", "Kevin Frayer", false),
            ("<div class=image-caption>The road to retiring early isn't easy.</div>", "retiring early", false),
            ("<div class=gallery><p>Slide 1 of 12: the harbour at dawn</p></div>", "Slide 1 of 12", false),
            ("<div class=\"swiper-container\"><p>Image 1 of 8</p><p>Close</p></div>", "Image 1 of 8", false),
            ("<div class=toc><ul><li><a href=#one>Detecting anomalies</a>\
              <li><a href=#two>Understanding z-score</a><li><a href=#three>Conclusion</a></ul></div>", "Understanding z-score", true),
            ("<ul><li><a href=/news>News</a><li><a href=/sport>Sport</a><li><a href=#top>Top</a></ul>", "Sport", true),
        ] {
            let out = with(block);
            assert_eq!(out.contains(text), kept, "{text:?} of {block}: {out}");
            assert_eq!(out.matches("harbour master").count(), 2, "{out}");
        }
        // A caption inside a sentence is a part of it (DESIGN §12): only a block goes.
        let text = with("<p>The chart <span class=caption>(left)</span> shows the flood.</p>");
        assert!(text.contains("The chart (left) shows the flood."), "{text}");
        // A credit that stands as a block of its own goes; one that is a part of the
        // caption's line of text stays (DESIGN §12: never a word out of a sentence).
        let text = with(
            "<figure><img src=a.png alt=x><span class=credit>Photo: Jane Doe</span>\
             <figcaption>Flame chart</figcaption></figure>",
        );
        assert!(
            text.contains("Flame chart") && !text.contains("Jane Doe"),
            "{text}"
        );
        let text = with(
            "<figure><figcaption>Flame chart <span class=credit>Photo: Jane Doe</span></figcaption></figure>",
        );
        assert!(text.contains("Flame chart Photo: Jane Doe"), "{text}");
    }

    /// A block named a gallery that holds prose of its own is a run of feature blocks
    /// (Lenovo's `feature-gallery` of headed paragraphs) and stays, in the marks and in the
    /// asides alike; a gallery of pictures goes, however long their captions.
    #[test]
    fn a_gallery_of_prose_stays_and_one_of_pictures_goes() {
        let long = PROSE.repeat(4);
        let page = |block: &str| {
            let around = format!("<p>{}</p>", PROSE.repeat(10));
            format!("<body>{around}{block}{around}</body>")
        };
        for (block, kept) in [
            (
                format!(
                    "<div class=feature-gallery><div class=gallery-content><h3>Power \
                      Unpacked</h3><p>{long}</p></div></div>"
                ),
                true,
            ),
            (
                format!(
                    "<ul class=article-gallery><li><figure><img src=a.png alt=x>\
                      <figcaption>{long}</figcaption></figure></li></ul>"
                ),
                false,
            ),
            (
                format!(
                    "<div class=gallery><div class=slide><div class=caption>{long}</div>\
                      </div></div>"
                ),
                false,
            ),
            // One feature of a product's features, a headed paragraph: prose.
            (
                format!(
                    "<div class=feature-gallery><div role=heading>Power Unpacked</div>\
                      <p>{PROSE}{PROSE}</p></div>"
                ),
                true,
            ),
            (format!("<div class=gallery><p>{}</p></div>", PROSE), false),
            (
                format!("<div class=carousel><a href=/b>{long}</a></div>"),
                false,
            ),
        ] {
            let out = pruned(&page(&block));
            assert_eq!(
                out.matches("harbour master").count() > 20,
                kept,
                "{block}: {out}"
            );
            let doc = Document::from(page(&block).as_str());
            let body = doc.select("body");
            remove_asides(body.nodes().first().expect("a body"), Comments::Aside);
            let text = body_text(&doc);
            assert_eq!(
                text.matches("harbour master").count() > 20,
                kept,
                "{block}: {text}"
            );
        }
    }

    #[test]
    fn controls_standing_alone_go_and_words_in_a_sentence_stay() {
        let with = |block: &str| pruned(&format!("<body><p>{PROSE}</p>{block}</body>"));
        let text = with(
            "<ul><li><a href=/p/1>Trail Runner 2</a> <a href=?add=1 class=\"button add_to_cart_button\">Add to cart</a>\
             <a href=# class=\"compare button\">Compare</a></li></ul>",
        );
        assert!(text.contains("Trail Runner 2"), "{text}");
        assert!(
            !text.contains("Add to cart") && !text.contains("Compare"),
            "{text}"
        );
        // A link named as a button inside a line of text is a part of the sentence.
        let text = with("<p>Read <a class=btn href=/guide>the guide</a> first.</p>");
        assert!(text.contains("Read the guide first."), "{text}");
        // Longer than three words: a call to action with something to say.
        let text = with("<a class=button href=/dl>Download vetch 1.2 for Linux</a>");
        assert!(text.contains("Download vetch 1.2 for Linux"), "{text}");
        // Named by its ARIA role, whatever the case: the same; and a role that is not a
        // button names nothing.
        let text = with(
            "<div><a href=/wish role=\" Button \">Add to wishlist</a></div>\
             <div><a href=/share role=link>Share this page</a></div>",
        );
        assert!(!text.contains("Add to wishlist"), "{text}");
        assert!(text.contains("Share this page"), "{text}");
    }

    #[test]
    fn skip_links_go_and_links_to_sections_stay() {
        let with = |block: &str| pruned(&format!("<body>{block}<p>{PROSE}</p></body>"));
        for skip in [
            "<a class=\"skip-link screen-reader-text\" href=#content>Skip to content</a>",
            "<a href=#main-content class=sr-only>Skip to main content</a>",
            "<div><a href=#bd><span>Skip to Main Content</span></a></div>",
            // Named so, in any language.
            "<a class=skip-link href=#inhalt>Zum Inhalt springen</a>",
            "<a href=#story-continues-1 class=skip>Continue reading the main story</a>",
            "<a href=#recipe>Jump to Recipe</a>",
            "<p><a href=#top>Back to top</a></p>",
            "<a href=#nav-menu>Back to navigation</a>",
        ] {
            let text = with(skip);
            assert!(text.contains("The river rose"), "{skip}: {text}");
            for word in ["Skip", "Zum Inhalt", "Continue", "Jump to", "Back to"] {
                assert!(!text.contains(word), "{skip}: {text}");
            }
        }
        // In a sentence, to another page, or a heading of a table of contents: kept.
        for kept in [
            "<p>You can <a href=#setup>skip to the setup</a> if vetch is installed.</p>",
            "<a href=/skip-hire>Skip to main content of our hire catalogue</a>",
            "<ul><li><a href=#history>History of the skip lorry</a></li></ul>",
            "<a href=/results>Back to results</a>",
        ] {
            let text = with(kept);
            let words = Document::from(kept).select("body").text();
            assert!(text.contains(words.trim()), "{kept}: {text}");
        }
    }

    #[test]
    fn a_form_where_the_reader_writes_goes_and_other_forms_stay() {
        let with = |block: &str| pruned(&format!("<body><p>{PROSE}</p>{block}</body>"));
        let review =
            "<form action=/review/post id=review-form><h3>How would you rate this item?</h3>\
                      <label>Nickname <input name=nick></label>\
                      <label>Your review <textarea name=body></textarea></label></form>";
        let text = with(review);
        assert!(text.contains("The river rose"), "{text}");
        assert!(
            !text.contains("How would you rate") && !text.contains("Nickname"),
            "{text}"
        );
        // A form with no text area (a product's options and its cart button) stays.
        let cart = review.replace("<textarea name=body></textarea>", "<input name=qty>");
        let text = with(&cart);
        assert!(
            text.contains("How would you rate") && text.contains("Nickname"),
            "{text}"
        );
        // A form that holds a third of the page's text or more is the page (a whole page
        // wrapped in one form, as ASP.NET writes it): it stays.
        let text = pruned(&format!(
            "<body><form id=aspnetForm><p>{PROSE}</p><textarea name=c></textarea></form></body>"
        ));
        assert!(text.contains("The river rose"), "{text}");
    }

    #[test]
    fn the_content_root_is_the_deepest_element_with_most_of_the_weight() {
        let root_of = |html: &str| {
            let doc = Document::from(html);
            prune(&doc);
            let marked = doc.select("[data-vetch-root]");
            marked.attr("id").map(|id| id.to_string())
        };
        let section =
            format!("<section><h2>Part</h2><div><div><p>{PROSE}</p></div></div></section>");
        let page = format!(
            "<body><nav id=menu><a href=/>Home</a> <a href=/a>About</a></nav>\
             <main id=main><div id=col><h1>Title</h1>{s}{s}{s}</div></main>\
             <div class=footer><p>{PROSE}</p></div></body>",
            s = section
        );
        assert_eq!(root_of(&page).as_deref(), Some("col"));
        // A page that names its article inside the root: no root.
        let named = page
            .replace("<div id=col>", "<div id=col><article>")
            .replace("</div></main>", "</article></div></main>");
        assert_eq!(root_of(&named), None);
        // Mostly links: no root.
        let links = format!(
            "<body><div id=list>{}</div></body>",
            "<p><a href=/x>An other story with a long headline</a> by Ann</p>".repeat(12)
        );
        assert_eq!(root_of(&links), None);
        // Unless the page names it its main content: a list is what that page is about (a
        // category's products, search results).
        let listing = format!(
            "<body><nav><a href=/>Home</a></nav><main id=list><h1>Rain jackets</h1>{}</main></body>",
            "<p><a href=/x>An other story with a long headline</a> by Ann</p>".repeat(12)
        );
        assert_eq!(root_of(&listing).as_deref(), Some("list"));
        // A product's facts (short rows, a few inline links) beside a longer list of other
        // products: the list is weighed apart, and the facts are the root's own content.
        let row = "<div class=row><div>Active substance</div><div><a href=/s/1>Calendula</a> \
                   (herbal)</div></div><div class=row><div>Pack size</div><div>80 tablets, \
                   pharmacy only</div></div>";
        let others = "<li><a href=/p/2><span>Arnica C30 Globules</span> <span>Westbrook \
                      Homeopathics GmbH</span></a></li>";
        let product = format!(
            "<body><nav><a href=/>Home</a></nav><div id=product><h1>Calendula D6</h1>{}\
             <div id=same><div>Products with more information</div><ul>{}</ul></div></div>\
             <footer><p>{PROSE}</p></footer></body>",
            row.repeat(6),
            others.repeat(12)
        );
        assert_eq!(root_of(&product).as_deref(), Some("product"));
        // Its weight leaves the list out: a pick of the product's facts is most of it.
        let doc = Document::from(product.as_str());
        let found = prune(&doc).map(|r| r.weight).unwrap_or_default();
        let facts = doc.select("#product").text().chars().count()
            - doc.select("#same").text().chars().count();
        assert!(found <= facts, "{found} > {facts}");
    }

    #[test]
    fn names_to_rules() {
        assert_eq!(rule_of_names("article-header "), None);
        assert_eq!(rule_of_names("hljs-keyword "), None);
        assert_eq!(rule_of_names("related-content "), Some(Rule::Related));
        assert_eq!(rule_of_names("unrelated "), None);
        assert_eq!(rule_of_names("figure-caption "), Some(Rule::Caption));
        assert_eq!(rule_of_names("wp-caption-text "), Some(Rule::Caption));
        assert_eq!(rule_of_names("captioned "), None);
        assert_eq!(rule_of_names("photoCredit "), Some(Rule::Credit));
        assert_eq!(rule_of_names("swiper-slide "), Some(Rule::Gallery));
        assert_eq!(rule_of_names("photo-gallery "), Some(Rule::Gallery));
        assert_eq!(rule_of_names("jp-relatedposts "), Some(Rule::Related));
        // A shop's rails of other products: WooCommerce's up-sells, Magento's cross-sells.
        assert_eq!(
            rule_of_names("up-sells upsells products "),
            Some(Rule::Related)
        );
        assert_eq!(rule_of_names("crosssell block "), Some(Rule::Related));
        assert_eq!(rule_of_names("up-sells "), None);
        assert_eq!(rule_of_names("ad-container mobile "), Some(Rule::Ad));
        assert_eq!(rule_of_names("add-to-cart header "), None);
        assert_eq!(rule_of_names("newsletterSignup "), Some(Rule::Promo));
    }
}
