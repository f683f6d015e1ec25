//! The preparation of a parsed page before main-content selection, in one walk: the
//! `<title>` is read, consent banners dropped, code blocks given their language, data
//! tables reshaped so the writers keep every cell, link noise dropped, inline elements in a
//! line of text kept from Readability's name rules, and the inputs that make html5ever's
//! serializer quadratic defused. Whole elements only are removed (DESIGN §12).

use dom_query::{local_name, Document, LocalName, NodeData, NodeRef};

use crate::content::cancel::cancelled;
use crate::content::inline::{merge_inline_runs, unwrap_element};
use crate::content::parse::MAX_DEPTH;
use crate::content::tidy::collapse_whitespace;

use super::answers::itemtype_names;
use super::kinds::{
    flatten_author_lines, is_heading_slug, keep_comment_thread, names_author,
    unwrap_noscript_content,
};
use super::product::{
    is_cart_form, is_product_page, itemtype_names_product, json_ld_names_product, PageType,
};
use super::tabs::{is_tab_panel, TAB_MARK};
use crate::content::find::is_json_ld;

/// What the preparation learnt about the prepared tree, for [`readability_article`].
#[derive(Clone, Copy, Default)]
pub(crate) struct Shape {
    /// At least as many `<td>` elements as the tree has (`<th>` too).
    pub(crate) cells: usize,
    /// Some element has the id readability gives its article (any letter case).
    pub(crate) page_id: bool,
    /// Some element is a tab panel, marked [`super::tabs::TAB_MARK`].
    pub(crate) tabs: bool,
    /// The page names itself a product (see [`super::product`]).
    pub(crate) product: bool,
    /// Some element is a microdata `Question` item (see [`super::answers`]).
    pub(crate) question: bool,
}

/// The elements the preparation works on, found in one walk over the tree (each
/// `select` is a walk of its own, and the page is walked enough by readability).
#[derive(Default)]
pub(crate) struct Found<'a> {
    title: Option<NodeRef<'a>>,
    too_deep: Vec<NodeRef<'a>>,
    consent: Vec<NodeRef<'a>>,
    /// Dialogs (`<dialog>`, `role=dialog`/`alertdialog`, `aria-modal=true`): a consent
    /// banner when they speak of cookies (see [`remove_consent_dialogs`]).
    dialogs: Vec<NodeRef<'a>>,
    pres: Vec<NodeRef<'a>>,
    tables: Vec<NodeRef<'a>>,
    fragment_links: Vec<NodeRef<'a>>,
    /// Links and images, whose `title` tooltips repeat their text.
    titled: Vec<NodeRef<'a>>,
    headings: Vec<NodeRef<'a>>,
    /// Elements with many child elements (see [`merge_inline_runs`]).
    crowded: Vec<NodeRef<'a>>,
    /// Long text nodes dense in characters the serializer escapes (see [`split_text`]).
    dense_texts: Vec<NodeRef<'a>>,
    /// Elements with an attribute value too costly to serialize (see [`escape_cost`]).
    heavy_attrs: Vec<NodeRef<'a>>,
    /// Inline elements inside a line of text (see [`in_flow`]).
    in_flow: Vec<NodeRef<'a>>,
    /// `<noscript>` elements in the body (see [`unwrap_noscript_content`]).
    noscripts: Vec<NodeRef<'a>>,
    /// Blocks whose `id` is the slug of their heading (see [`is_heading_slug`]).
    slug_ids: Vec<NodeRef<'a>>,
    /// Elements that name a post's author (see [`flatten_author_lines`]).
    authors: Vec<NodeRef<'a>>,
    /// Blocks whose `class` or `id` holds "comment" (see [`keep_comment_thread`]).
    comments: Vec<NodeRef<'a>>,
    /// Tab panels (see [`super::tabs::is_tab_panel`]).
    tab_panels: Vec<NodeRef<'a>>,
    /// `<script>` elements, of which the JSON-LD ones may name a product.
    scripts: Vec<NodeRef<'a>>,
    /// Elements whose microdata `itemtype` is a product.
    product_items: usize,
    /// What the page's `og:type` says it is (see [`super::product::PageType`]).
    og_type: PageType,
    /// Forms that put a product in the cart (see [`super::product::is_cart_form`]).
    cart_forms: usize,
}

/// Inline (phrasing) elements: inside a line of text they are part of a sentence.
pub(crate) static PHRASING: [LocalName; 26] = [
    local_name!("a"),
    local_name!("abbr"),
    local_name!("b"),
    local_name!("bdi"),
    local_name!("bdo"),
    local_name!("cite"),
    local_name!("data"),
    local_name!("del"),
    local_name!("dfn"),
    local_name!("em"),
    local_name!("font"),
    local_name!("i"),
    local_name!("ins"),
    local_name!("kbd"),
    local_name!("mark"),
    local_name!("q"),
    local_name!("s"),
    local_name!("samp"),
    local_name!("small"),
    local_name!("span"),
    local_name!("strong"),
    local_name!("sub"),
    local_name!("sup"),
    local_name!("time"),
    local_name!("u"),
    local_name!("var"),
];

/// Does `parent` hold words of its own (a line of text its inline children belong to)?
/// Separators alone (`September 10 | by Ann`) make no sentence.
pub(crate) fn in_flow(parent: &NodeRef) -> bool {
    parent.children_it(false).any(|c| {
        c.query_or(false, |n| {
            matches!(&n.data, NodeData::Text { contents } if contents.chars().any(char::is_alphanumeric))
        })
    })
}

/// A parent with at least this many child elements gets [`merge_inline_runs`].
pub(crate) const CROWDED: usize = 32;

/// What a microdata `itemtype` makes an element, for [`Shape`].
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Item {
    None,
    /// A product (see [`super::product`]).
    Product,
    /// A question (see [`super::answers`]).
    Question,
}

impl Item {
    fn of_itemtype(itemtype: &str) -> Self {
        if itemtype_names_product(itemtype) {
            Item::Product
        } else if itemtype_names(itemtype, "Question") {
            Item::Question
        } else {
            Item::None
        }
    }
}

#[derive(Clone, Copy)]
pub(crate) enum Kind {
    Title,
    Svg,
    Pre,
    Table,
    Img,
    Link,
    Heading,
    Cell,
    Container,
    Noscript,
    Script,
    Meta,
    Other,
}

/// Prepare a parsed page (see the module docs) and return its title, and its [`Shape`].
pub(crate) fn prepare(doc: &Document) -> (Option<String>, Shape) {
    let mut found = Found::default();
    let mut shape = Shape::default();
    // (node, depth, inside <svg>)
    let mut stack: Vec<(NodeRef, usize, bool)> = vec![(doc.root(), 0, false)];
    let mut names = String::new();
    while let Some((node, depth, in_svg)) = stack.pop() {
        if cancelled() {
            return (None, shape);
        }
        let mut elements = 0usize;
        // Whether `node` holds text of its own, asked once, at its first inline child.
        let mut flow: Option<bool> = None;
        for child in node.children_it(true) {
            if !child.is_element() {
                let dense = child.query_or(false, |n| match &n.data {
                    NodeData::Text { contents } => needs_split(contents),
                    _ => false,
                });
                if dense {
                    found.dense_texts.push(child);
                }
                continue;
            }
            elements += 1;
            let (heavy, page_id, author, item, bare) =
                child.query_or((false, false, false, Item::None, false), |n| {
                    n.as_element()
                        .map_or((false, false, false, Item::None, false), |e| {
                            let heavy = e
                                .attrs
                                .iter()
                                .any(|a| escape_cost(&a.value) > MAX_ESCAPE_COST);
                            let page_id = e.attrs.iter().any(|a| {
                                &*a.name.local == "id"
                                    && a.value.eq_ignore_ascii_case("readability-page-1")
                            });
                            let author = e
                                .attrs
                                .iter()
                                .any(|a| names_author(&a.name.local, &a.value));
                            let item = e
                                .attrs
                                .iter()
                                .find(|a| &*a.name.local == "itemtype")
                                .map_or(Item::None, |a| Item::of_itemtype(&a.value));
                            (heavy, page_id, author, item, e.attrs.is_empty())
                        })
                });
            found.product_items += usize::from(item == Item::Product);
            shape.question |= item == Item::Question;
            if heavy {
                found.heavy_attrs.push(child);
            }
            if author && !in_svg {
                found.authors.push(child);
            }
            shape.page_id |= page_id;
            if elements == CROWDED {
                found.crowded.push(node);
            }
            let depth = depth + 1;
            if depth > MAX_DEPTH {
                found.too_deep.push(child);
            }
            let mut child_in_svg = in_svg;
            // Classify first: the name borrows the tree, which the arms below modify. (The
            // interned name, copied: the tests below compare integers, not strings.)
            let name = child.qual_name_ref().map(|q| q.local.clone());
            let phrasing = !in_svg && name.as_ref().is_some_and(|n| PHRASING.contains(n));
            let in_line = phrasing && *flow.get_or_insert_with(|| in_flow(&node));
            if in_line {
                found.in_flow.push(child);
            }
            let kind = name.map(|name| match name {
                local_name!("title") => Kind::Title,
                local_name!("svg") => Kind::Svg,
                local_name!("pre") => Kind::Pre,
                local_name!("table") => Kind::Table,
                local_name!("img") => Kind::Img,
                local_name!("a") => Kind::Link,
                local_name!("h1")
                | local_name!("h2")
                | local_name!("h3")
                | local_name!("h4")
                | local_name!("h5")
                | local_name!("h6") => Kind::Heading,
                local_name!("td") | local_name!("th") => Kind::Cell,
                local_name!("div")
                | local_name!("section")
                | local_name!("aside")
                | local_name!("dialog")
                | local_name!("form")
                | local_name!("footer")
                | local_name!("header")
                | local_name!("p")
                | local_name!("span")
                | local_name!("ins") => Kind::Container,
                local_name!("noscript") => Kind::Noscript,
                local_name!("script") => Kind::Script,
                local_name!("meta") => Kind::Meta,
                _ => Kind::Other,
            });
            if let Some(kind) = kind {
                match kind {
                    Kind::Title if !in_svg && found.title.is_none() => found.title = Some(child),
                    Kind::Svg => child_in_svg = true,
                    Kind::Pre => found.pres.push(child),
                    Kind::Table => found.tables.push(child),
                    Kind::Img => found.titled.push(child),
                    Kind::Heading => found.headings.push(child),
                    Kind::Cell => shape.cells += 1,
                    Kind::Link => {
                        found.titled.push(child);
                        if child.attr("href").is_some_and(|h| h.starts_with('#')) {
                            found.fragment_links.push(child);
                        }
                    }
                    Kind::Noscript => found.noscripts.push(child),
                    Kind::Script => found.scripts.push(child),
                    Kind::Meta => {
                        if child
                            .attr("property")
                            .is_some_and(|p| p.trim().eq_ignore_ascii_case("og:type"))
                        {
                            found.og_type = child
                                .attr("content")
                                .map_or(PageType::Other, |c| PageType::of_og_type(&c));
                        }
                    }
                    // A part of a sentence is never a banner. A container with no
                    // attributes (most `<p>`) has no id, class or role for the checks
                    // below to read.
                    Kind::Container if in_line || bare => {}
                    Kind::Container => {
                        found.cart_forms += usize::from(is_cart_form(&child));
                        if is_heading_slug(&child) {
                            found.slug_ids.push(child);
                        }
                        names.clear();
                        for attr in ["id", "class"] {
                            if let Some(value) = child.attr(attr) {
                                names.push_str(&value);
                                names.push(' ');
                            }
                        }
                        names.make_ascii_lowercase();
                        let role = child.attr("role");
                        if names_consent_banner(&names) {
                            found.consent.push(child);
                        } else if is_dialog(&child, role.as_deref()) {
                            found.dialogs.push(child);
                        }
                        if names.contains("comment") {
                            found.comments.push(child);
                        }
                        if is_tab_panel(role.as_deref(), &names) {
                            found.tab_panels.push(child);
                        }
                    }
                    Kind::Title | Kind::Other => {}
                }
            }
            stack.push((child, depth, child_in_svg));
        }
    }
    let title = found
        .title
        .map(|t| collapse_whitespace(&t.text()))
        .filter(|t| !t.is_empty());
    // The walk only reads (its iterators borrow the tree); all changes happen here.
    for node in found.titled {
        node.remove_attr("title");
    }
    // Readability drops any element whose class or id looks like boilerplate ("header",
    // "meta", "comment", ...), headings included: rustdoc's `<h4 class="code-header">`
    // holds every method signature. Headings need neither for Markdown.
    for node in found.headings {
        node.remove_attrs(&["class", "id"]);
    }
    // Readability also drops inline elements by those names ("share", "comment", "meta",
    // "sidebar", ...), which cuts words out of a sentence (DESIGN §12): inside a line of
    // text they lose the names, so only whole blocks can go.
    for node in found.in_flow {
        node.remove_attrs(&["class", "id"]);
    }
    // Readability also drops a block whose id merely contains "comment" or "replies" as a
    // substring: a section titled "Replies to top posting" has the id
    // `replies-to-top-posting`. An id that only repeats the block's heading names nothing.
    for node in found.slug_ids {
        node.remove_attr("id");
    }
    unwrap_noscript_content(&found.noscripts);
    keep_comment_thread(doc, &found.comments);
    flatten_author_lines(doc, &found.authors);
    shape.tabs = !found.tab_panels.is_empty();
    shape.product = is_product_page(found.og_type, found.product_items, found.cart_forms, || {
        found
            .scripts
            .iter()
            .any(|s| is_json_ld(s) && json_ld_names_product(&s.text()))
    });
    for node in found.tab_panels {
        node.set_attr(TAB_MARK, "");
    }
    for node in found.too_deep {
        unwrap_element(&node);
    }
    for node in found.crowded {
        merge_inline_runs(&node);
    }
    for node in found.dense_texts {
        split_text(doc, &node);
    }
    for node in found.heavy_attrs {
        node.update(|n| {
            if let Some(e) = n.as_element_mut() {
                e.attrs.retain(|a| escape_cost(&a.value) <= MAX_ESCAPE_COST);
            }
        });
    }
    remove_consent_banners(&found.consent);
    remove_consent_dialogs(&found.dialogs);
    normalize_code_blocks(doc, &found.pres);
    shape.cells += normalize_tables(doc, &found.tables);
    tidy_fragment_links(&found.fragment_links);
    (title, shape)
}

/// Text nodes are split into pieces of about this many bytes by [`split_text`].
pub(crate) const TEXT_PIECE: usize = 512;

/// Whether a text node is long and dense in `&` and U+0080..U+00BF (the characters
/// html5ever's serializer escapes or inspects).
pub(crate) fn needs_split(text: &str) -> bool {
    text.len() > 2 * TEXT_PIECE && specials(text).nth(TEXT_PIECE / 8).is_some()
}

/// Where `text` has a `&` or a 0xC2 byte (memchr: every long text and script of a page
/// is counted).
fn specials(text: &str) -> impl Iterator<Item = usize> + '_ {
    memchr::memchr2_iter(b'&', 0xC2, text.as_bytes())
}

/// Attribute values costlier than this to serialize are dropped (see [`escape_cost`]).
pub(crate) const MAX_ESCAPE_COST: usize = 1 << 20;

/// What serializing an attribute value costs html5ever 0.40 (bytes rescanned): its length
/// times its `&` and 0xC2 bytes, as for text (see [`split_text`]). An attribute cannot be
/// split, so a value over [`MAX_ESCAPE_COST`] (1 KiB of `&amp;`s, or 64 KiB with 16 of
/// them) is dropped; real values are far below it.
pub(crate) fn escape_cost(value: &str) -> usize {
    if value.len() < 1024 {
        return 0;
    }
    specials(value).count().saturating_mul(value.len())
}

/// Replace a text node by adjacent text nodes of about [`TEXT_PIECE`] bytes (same text).
///
/// html5ever 0.40's serializer, which both readability and the whole-body path use,
/// rescans the rest of a text node for `<`/`>` at every `&` it escapes: quadratic in
/// the node's length. 5 MB of `a &amp; b ` took 9.4 s; in pieces each rescan is short.
pub(crate) fn split_text(doc: &Document, node: &NodeRef) {
    let text = node.text();
    let mut rest: &str = &text;
    while !rest.is_empty() {
        let mut cut = rest.len().min(TEXT_PIECE);
        while !rest.is_char_boundary(cut) {
            cut += 1;
        }
        node.insert_before(&doc.tree.new_text(&rest[..cut]));
        rest = &rest[cut..];
    }
    node.remove_from_parent();
}

/// Shape tables so that the writer renders every cell. It makes a pipe table only when the
/// table has `<th>` cells, takes its header from one row only, and silently drops `<th>`
/// cells in body rows (row headers such as "Born" in an infobox). So, for each data
/// table (two or more columns, no nested table): the first row becomes the header, `th`
/// elsewhere becomes `td`, extra header rows move into the body, and `colspan` is padded
/// with empty cells so columns stay aligned. Layout tables (nested, or one column) lose
/// their `th` so the writer renders their cells as blocks.
///
/// Returns how many cells it added.
pub(crate) fn normalize_tables(doc: &Document, tables: &[NodeRef]) -> usize {
    let mut added = 0usize;
    for table in tables {
        let rows = table_rows(table);
        let width = rows.iter().map(|r| row_cells(r).len()).max().unwrap_or(0);
        let nested = table.descendants_it().any(|d| d.has_name("table"));
        let Some((header, body_rows)) = rows.split_first() else {
            continue;
        };
        if nested || width < 2 {
            for cell in rows.iter().flat_map(row_cells) {
                if cell.has_name("th") {
                    cell.rename("td");
                }
            }
            continue;
        }
        for cell in row_cells(header) {
            if cell.has_name("td") {
                cell.rename("th");
            }
        }
        for cell in body_rows.iter().flat_map(row_cells) {
            if cell.has_name("th") {
                cell.rename("td");
            }
        }
        // The writer reads only the first row of a <thead>: move the others into the body.
        if let Some(thead) = header.parent().filter(|p| p.has_name("thead")) {
            let extra: Vec<NodeRef> = body_rows
                .iter()
                .filter(|r| r.parent().is_some_and(|p| p.id == thead.id))
                .copied()
                .collect();
            if !extra.is_empty() {
                let tbody = table
                    .element_children()
                    .into_iter()
                    .find(|c| c.has_name("tbody"))
                    .unwrap_or_else(|| {
                        let tbody = doc.tree.new_element("tbody");
                        thead.insert_after(&tbody);
                        tbody
                    });
                for row in extra.iter().rev() {
                    tbody.prepend_child(row);
                }
            }
        }
        // Pad each row up to the table's width at most, and never add more cells than
        // the table had: a hostile colspan cannot multiply the document.
        let mut budget: usize = rows.iter().map(|r| row_cells(r).len()).sum();
        for row in &rows {
            let cells = row_cells(row);
            let mut room = width.saturating_sub(cells.len());
            for cell in cells {
                let span = cell
                    .attr("colspan")
                    .and_then(|v| v.trim().parse::<usize>().ok())
                    .unwrap_or(1);
                let pad = span.saturating_sub(1).min(room).min(budget);
                room -= pad;
                budget -= pad;
                let tag = if cell.has_name("th") { "th" } else { "td" };
                for _ in 0..pad {
                    cell.insert_after(&doc.tree.new_element(tag));
                }
                added += pad;
                cell.remove_attr("colspan");
            }
        }
    }
    added
}

/// The rows of `table` itself (not of tables nested in it), in document order.
pub(crate) fn table_rows<'a>(table: &NodeRef<'a>) -> Vec<NodeRef<'a>> {
    let mut rows = Vec::new();
    for child in table.element_children() {
        if child.has_name("tr") {
            rows.push(child);
        } else if matches!(
            child.node_name().as_deref(),
            Some("thead" | "tbody" | "tfoot")
        ) {
            rows.extend(
                child
                    .element_children()
                    .into_iter()
                    .filter(|r| r.has_name("tr")),
            );
        }
    }
    rows
}

pub(crate) fn row_cells<'a>(row: &NodeRef<'a>) -> Vec<NodeRef<'a>> {
    row.element_children()
        .into_iter()
        .filter(|c| c.has_name("td") || c.has_name("th"))
        .collect()
}

/// Link noise: tooltips repeat the link text, heading self-links wrap the heading, and
/// permalink markers (`¶`, `#`, `§`, `🔗`) are not content.
pub(crate) fn tidy_fragment_links(links: &[NodeRef]) {
    for link in links {
        let text = link.text();
        let text = text.trim();
        let has_media = link.descendants_it().any(|d| d.has_name("img"));
        if !has_media && matches!(text, "" | "¶" | "#" | "§" | "🔗" | "⁋") {
            link.remove_from_parent();
        } else if link.ancestors_it(Some(4)).any(|a| {
            matches!(
                a.node_name().as_deref(),
                Some("h1" | "h2" | "h3" | "h4" | "h5" | "h6")
            )
        }) {
            unwrap_element(link);
        }
    }
}

/// The page's `<title>` (not an SVG one), whitespace-collapsed; `None` when empty.
pub(crate) fn page_title(doc: &Document) -> Option<String> {
    // A walk, not `select` (see `crate::content::find`).
    let node = crate::content::find::named(doc, "title")
        .find(|n| !n.ancestors_it(None).any(|a| a.has_name("svg")))?;
    let collapsed = collapse_whitespace(&node.text());
    (!collapsed.is_empty()).then_some(collapsed)
}

/// id/class fragments of cookie and consent banners (lowercase).
pub(crate) const CONSENT_MARKERS: &[&str] = &[
    "gdpr",
    "onetrust",
    "cookiebot",
    "cookieconsent",
    "cookie-consent",
    "cookie_consent",
    "cookiebanner",
    "cookie-banner",
    "cookie_banner",
    "cookienotice",
    "cookie-notice",
    "cookie_notice",
    "cookiebar",
    "cookie-bar",
    "cookie-popup",
    "cookie-law",
    "cookie-wall",
    "cookie-modal",
    "cookie-dialog",
    "cookie-message",
    "consent-banner",
    "consent_banner",
    "consent-manager",
    "consent-popup",
    "cc-window",
    "cc-banner",
    "cmp-banner",
    "qc-cmp",
];

/// Whether lowercase id/class names contain one of [`CONSENT_MARKERS`]. Every marker
/// starts with `c`, `g`, `o` or `q`, so only those positions are tried (most class names
/// never get past the first byte).
pub(crate) fn names_consent_banner(names: &str) -> bool {
    names
        .match_indices(['c', 'g', 'o', 'q'])
        .any(|(i, _)| CONSENT_MARKERS.iter().any(|m| names[i..].starts_with(m)))
}

/// Drop cookie/consent banners: elements whose id or class names one, that are short and
/// do not wrap the page's main content.
pub(crate) fn remove_consent_banners(candidates: &[NodeRef]) {
    for node in candidates {
        let wraps_content = node
            .descendants_it()
            .any(|d| d.has_name("article") || d.has_name("main") || d.has_name("h1"));
        if !wraps_content && node.normalized_char_count() < 3000 {
            node.remove_from_parent();
        }
    }
}

/// A dialog: `<dialog>`, `role=dialog` or `alertdialog` (`role` is the node's), or
/// `aria-modal=true`.
pub(crate) fn is_dialog(node: &NodeRef, role: Option<&str>) -> bool {
    node.has_name("dialog")
        || role.is_some_and(|r| {
            r.split_ascii_whitespace()
                .any(|r| r.eq_ignore_ascii_case("dialog") || r.eq_ignore_ascii_case("alertdialog"))
        })
        || node
            .attr("aria-modal")
            .is_some_and(|m| m.trim().eq_ignore_ascii_case("true"))
}

/// Drop consent dialogs that no id or class names: dialogs that speak of cookies, are short
/// and do not wrap the page's main content (Amazon's `<form role=dialog id=cos-banner>`
/// "Select your cookie preferences", which readability would otherwise pick on a page whose
/// product is written in spans and tables).
pub(crate) fn remove_consent_dialogs(candidates: &[NodeRef]) {
    for node in candidates {
        if node.normalized_char_count() < 3000 && mentions_cookies(&node.text()) {
            remove_consent_banners(std::slice::from_ref(node));
        }
    }
}

/// Whether `text` names cookies (any letter case).
pub(crate) fn mentions_cookies(text: &str) -> bool {
    text.as_bytes()
        .windows(6)
        .any(|w| w.eq_ignore_ascii_case(b"cookie"))
}

/// Make every `<pre>` hold one `<code>` (so the writer fences it) and put the language, when
/// the page names it, on that `<code>` as `language-X` (which the writer reads).
pub(crate) fn normalize_code_blocks(doc: &Document, pres: &[NodeRef]) {
    for pre in pres {
        let lang = code_language(pre);
        let children = pre.element_children();
        let code = match children.as_slice() {
            [only] if only.has_name("code") && !has_direct_text(pre) => *only,
            _ => {
                // Wrap the whole content of the <pre> in a new <code>.
                let code = doc.tree.new_element("code");
                if let Some(first) = pre.first_child() {
                    code.append_children(&first);
                }
                pre.append_child(&code);
                code
            }
        };
        if let Some(lang) = lang {
            let has_lang = code
                .class()
                .is_some_and(|c| c.split_whitespace().any(|t| t.starts_with("language-")));
            if !has_lang {
                code.add_class(&format!("language-{lang}"));
            }
        }
    }
}

/// Non-whitespace text directly inside `node` (outside its child elements).
pub(crate) fn has_direct_text(node: &NodeRef) -> bool {
    node.children_it(false)
        .any(|c| c.is_text() && !c.text().trim().is_empty())
}

/// The language a code block declares, from the `<pre>`, its `<code>` child, or the two
/// nearest ancestors (highlighters put it on a wrapper `<div>`).
pub(crate) fn code_language(pre: &NodeRef) -> Option<String> {
    let mut nodes: Vec<NodeRef> = Vec::new();
    if let Some(code) = pre
        .element_children()
        .into_iter()
        .find(|c| c.has_name("code"))
    {
        nodes.push(code);
    }
    nodes.push(*pre);
    for node in &nodes {
        for attr in ["data-lang", "data-language"] {
            if let Some(lang) = node.attr(attr).and_then(|v| clean_language(&v)) {
                return Some(lang);
            }
        }
    }
    if let Some(lang) = pre.attr("lang").and_then(|v| clean_language(&v)) {
        return Some(lang);
    }
    nodes.extend(pre.ancestors_it(Some(2)));
    nodes
        .iter()
        .filter_map(|n| n.class())
        .find_map(|class| language_from_class(&class))
}

pub(crate) fn language_from_class(class: &str) -> Option<String> {
    let mut tokens = class.split_whitespace().peekable();
    while let Some(token) = tokens.next() {
        let lower = token.to_ascii_lowercase();
        if lower == "brush:" {
            if let Some(lang) = tokens
                .peek()
                .and_then(|t| clean_language(t.trim_end_matches(';')))
            {
                return Some(lang);
            }
            continue;
        }
        if let Some(rest) = lower.strip_prefix("brush:") {
            if let Some(lang) = clean_language(rest.trim_end_matches(';')) {
                return Some(lang);
            }
        }
        for prefix in ["language-", "lang-", "highlight-source-", "highlight-"] {
            if let Some(lang) = token
                .get(prefix.len()..)
                .filter(|_| lower.starts_with(prefix))
            {
                if let Some(lang) = clean_language(lang) {
                    return Some(lang);
                }
            }
        }
    }
    None
}

/// A plausible language name, or `None` for empty, odd or "no language" values.
pub(crate) fn clean_language(raw: &str) -> Option<String> {
    let lang = raw.trim();
    let plausible = !lang.is_empty()
        && lang.len() <= 32
        && lang
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '_' | '.' | '#'));
    let meaningless = matches!(
        lang.to_ascii_lowercase().as_str(),
        "default" | "none" | "notranslate" | "plain" | "nohighlight"
    );
    (plausible && !meaningless).then(|| lang.to_owned())
}
