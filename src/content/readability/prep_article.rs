use std::cmp::Ordering;

use dom_query::{local_name, Matcher, NodeRef, Selection};
use flagset::FlagSet;

#[allow(clippy::wildcard_imports)]
use super::glob::*;
use super::grab_flags::GrabFlags;
#[allow(clippy::wildcard_imports)]
use super::helpers::*;
#[allow(clippy::wildcard_imports)]
use super::matching::*;
use super::picks::*;
use super::score::get_class_weight;
use super::Config;

/// Remove the elements of `junk` ([`CLEAN`]'s) but embedded videos.
fn clean(junk: &[NodeRef]) {
    for node in junk {
        // Allow youtube and vimeo videos through as people usually want to see those.

        if !node_name_in(node, &EMBED_ELEMENTS) {
            node.remove_from_parent();
            continue;
        }
        let mut should_remove = !node.attrs().iter().any(|attr| is_video_url(&attr.value));

        // For embed with <object> tag, check inner HTML as well.
        if should_remove && node.has_name("object") && is_video_url(&node.inner_html()) {
            should_remove = false;
        }

        if should_remove {
            node.remove_from_parent();
        }
    }
}

/// Removes presentational attributes from `n` and the elements under it (not inside an
/// `<svg>`). A walk with a stack, not recursion; an element is written to only when it
/// has an attribute to remove (one look at its attributes, no mutable borrow otherwise).
fn clean_styles(n: &NodeRef) {
    let mut stack = vec![*n];
    while let Some(node) = stack.pop() {
        if node.has_name("svg") {
            continue;
        }
        let (presentational, sized) = node.query_or((false, false), |t| {
            t.as_element().map_or((false, false), |el| {
                let has = |names: &[&str]| el.attrs.iter().any(|a| names.contains(&&*a.name.local));
                (
                    has(PRESENTATIONAL_ATTRIBUTES),
                    DEPRECATED_SIZE_ATTRIBUTE_ELEMS.contains(&el.name.local)
                        && has(&["width", "height"]),
                )
            })
        });
        if presentational {
            node.remove_attrs(PRESENTATIONAL_ATTRIBUTES);
        }
        if sized {
            node.remove_attrs(&["width", "height"]);
        }
        // The element children, last first (no list of them built).
        let first = stack.len();
        stack.extend(node.children_it(false).filter(NodeRef::is_element));
        stack[first..].reverse();
    }
}

/// Compares the text density of `matcher` matches against `threshold`, stopping early when possible.
/// Once the running density exceeds `threshold` the comparison is settled, so the scan ends there.
fn text_density_cmp(
    node: &NodeRef,
    matcher: &Matcher,
    char_count: usize,
    threshold: f32,
    ordering: Ordering,
) -> bool {
    if char_count == 0 {
        return 0.0_f32.partial_cmp(&threshold) == Some(ordering);
    }

    let text_length = char_count as f32;
    let mut children_length = 0usize;
    for descendant in Selection::from(*node).select_matcher_iter(matcher) {
        children_length += normalized_chars(&descendant);
        if children_length as f32 / text_length > threshold {
            return ordering == Ordering::Greater;
        }
    }
    (children_length as f32 / text_length).partial_cmp(&threshold) == Some(ordering)
}

fn should_clean_conditionally(node: &NodeRef, flags: &FlagSet<GrabFlags>) -> bool {
    let sel = Selection::from(*node);
    // keep element if it has a data tables
    if sel.select_single_matcher(&MATCHER_DATA_TABLE).exists() {
        return false;
    }

    let is_data_table = |n: &NodeRef| n.has_name("table") && n.has_attr("data-readability-table");

    if is_data_table(node) {
        return false;
    }
    // Next check if we're inside a data table, in which case don't remove it as well.
    if has_ancestor(node, None, is_data_table) {
        return false;
    }

    let weight = get_class_weight(node, flags.contains(GrabFlags::WeightClasses));

    if weight < 0.0 {
        // Utility classes (`scroll-mt-2`, `md:hidden`) must not drop code wrappers.
        return !node.descendants_it().any(|n| n.has_name("pre"));
    }

    let node_text = node.text();

    if node_text.matches(',').count() < 10 {
        // If there are not very many commas, and the number of
        // non-paragraph elements is more than paragraphs or other
        // ominous signs, remove the element.

        let mut embed_count = 0;

        let embeds_sel = sel.select_matcher(&MATCHER_EMBEDS);

        for embed in embeds_sel.nodes() {
            for attr in &embed.attrs() {
                if is_video_url(&attr.value) {
                    return false;
                }
            }
            if embed.has_name("object") && is_video_url(&embed.inner_html()) {
                return false;
            }
            embed_count += 1;
        }
        let text_low = node_text.trim().to_lowercase();
        if AD_WORDS.contains(&text_low) || is_loading_word(&text_low) {
            return true;
        }

        let char_count = normalized_chars(node);
        let Some(qual_name) = node.qual_name_ref() else {
            return false;
        };
        let tag = qual_name.local.as_ref();
        let mut is_list = matches!(tag, "ul" | "ol");
        if !is_list {
            is_list = text_density_cmp(node, &MATCHER_UL_OL, char_count, 0.9, Ordering::Greater);
        }

        // The four counts read below, in one walk of the node, not one walk each.
        let [img, p_count, li_count, input_count] = count_names(
            node,
            [
                local_name!("img"),
                local_name!("p"),
                local_name!("li"),
                local_name!("input"),
            ],
        );
        let img_f32 = img as f32;
        let should_remove = || {
            let is_figure_child = has_ancestor(node, None, |n| n.has_name("figure"));
            let p = p_count as f32;

            if !is_figure_child && img_f32 > 1.0 && p / img_f32 < 0.5 {
                return true;
            }

            // TODO: this check can probably be removed.
            // If this is a large menu block, article_content will likely not include it,
            // because it contains too little meaningful content.
            // Otherwise, the magic number '100' seems way too high; the flow usually works fine with 10–20.
            let li = li_count as f32 - 100.0;
            if !is_list && li > p {
                return true;
            }

            let input = input_count as f32;
            if input > (p / 3.0).floor() {
                return true;
            }

            let link_density = link_density(node, Some(char_count));

            if !is_list
                && !is_figure_child
                && char_count < 25
                && (img == 0 || img > 2)
                && link_density > 0.0
                && text_density_cmp(node, &MATCHER_H1_H6, char_count, 0.9, Ordering::Less)
            {
                return true;
            }
            if !is_list && weight < 25.0 && link_density > 0.2 {
                return true;
            }

            if weight >= 25.0 && link_density > 0.5 {
                return true;
            }

            if (embed_count == 1 && char_count < 75) || embed_count > 1 {
                return true;
            }

            if img == 0 && !text_density_cmp(node, &MATCHER_TEXTISH, 1, 0.0, Ordering::Greater) {
                return true;
            }
            false
        };
        let have_to_remove = should_remove();

        if is_list && have_to_remove {
            for child in node.children_it(false) {
                if child.element_children().len() > 1 {
                    return have_to_remove;
                }
            }
            return img != li_count;
        }

        return have_to_remove;
    }
    false
}

// shortcut: cleaning is O(depth x depth) on deeply nested wrappers; cap depth or precompute subtree stats when parsing untrusted input.
/// Remove the elements of `nodes` (in document order) that [`should_clean_conditionally`].
fn clean_conditionally(nodes: &[NodeRef], flags: &FlagSet<GrabFlags>) {
    if !flags.contains(GrabFlags::CleanConditionally) {
        return;
    }

    // traversing tag nodes in reverse order,
    // so that how children nodes will appear before parent nodes
    for tag_node in nodes.iter().rev() {
        if should_clean_conditionally(tag_node, flags) {
            tag_node.remove_from_parent();
        }
    }
}

fn set_data_readability_table(n: &NodeRef, is_data_table: bool) {
    if is_data_table {
        n.set_attr("data-readability-table", "true");
    } else {
        n.remove_attr("data-readability-table");
    }
}

fn get_row_and_col_count(table: &Selection) -> (usize, usize) {
    let mut rows = 0usize;
    let mut cols = 0usize;
    for tr in &table.select_matcher(&MATCHER_TR) {
        // No need to adjust row count by the `row span` at all
        rows += 1;

        //Now look for column-related info
        let mut columns_in_this_row = 0usize;

        for cell in &tr.select_matcher(&MATCHER_TD) {
            // HTML clamps colspan to 1000; invalid and zero values count as 1.
            let raw = cell.attr_or("colspan", "1");
            let colspan = match raw.parse::<usize>() {
                Ok(value) => value.clamp(1, 1000),
                // A valid decimal beyond usize::MAX is still capped by HTML, not reset to 1.
                Err(_) if !raw.is_empty() && raw.bytes().all(|b| b.is_ascii_digit()) => 1000,
                Err(_) => 1,
            };
            columns_in_this_row = columns_in_this_row.saturating_add(colspan);
        }
        cols = std::cmp::max(cols, columns_in_this_row);
    }

    (rows, cols)
}

/// Mark each of `tables` as a data table or not (`data-readability-table`).
fn mark_data_tables(tables: &[NodeRef]) {
    for table_node in tables {
        if MINI_PRESENTATION.match_node(table_node) {
            set_data_readability_table(table_node, false);
            continue;
        }

        // TODO: Pretty rare case (not covered by tests). Probably should be removed.
        if MINI_AINT_DATA_TABLE.match_node(table_node) {
            set_data_readability_table(table_node, false);
            continue;
        }

        if table_node.has_attr("summary") {
            set_data_readability_table(table_node, true);
            continue;
        }

        let sel = Selection::from(*table_node);

        if sel.select_single_matcher(&MATCHER_TABLE_MEMBERS).exists() {
            set_data_readability_table(table_node, true);
            continue;
        }

        // nested tables indicate a layout table
        if sel.select_single_matcher(&MATCHER_TABLE).exists() {
            set_data_readability_table(table_node, false);
            continue;
        }

        let (rows, cols) = get_row_and_col_count(&sel);
        if rows == 1 || cols == 1 {
            set_data_readability_table(table_node, false);
            continue;
        }

        if rows >= 10 || cols > 4 {
            set_data_readability_table(table_node, true);
            continue;
        }
        set_data_readability_table(table_node, rows.saturating_mul(cols) > 10);
    }
}

/// Checks if the image address may be a placeholder that other attributes are
/// allowed to replace. A `lazy` class always means so, as in `Readability.js`;
/// `loading="lazy"` is only a rendering hint, so it counts while the node has
/// no usable address of its own -- otherwise an attribute that merely looks
/// like an image path (Wikipedia's `resource`) overwrites a working `src`.
fn is_lazy_image(node: &NodeRef) -> bool {
    node.is_match(&MATCHER_LAZY_CLASS)
        || (node.is_match(&MATCHER_LAZY_LOADING) && !has_image_address(node))
}

/// Give each of `images` ([`IMAGES`]'s) the address a lazy loader kept elsewhere.
fn fix_lazy_images(images: &[NodeRef]) {
    for node in images {
        // In some sites (e.g. Kotaku), they put 1px square image as base64 data uri in the src attribute.
        // So, here we check if the data uri is too short, just might as well remove it.
        if let Some(src) = node.attr("src") {
            if let Some((image_type, base64_data)) = split_base64_url(&src) {
                if image_type == "image/svg+xml" {
                    continue;
                }

                // Make sure this element has other attributes which contains image.
                // If it doesn't, then this src is important and shouldn't be removed.
                let mut src_could_be_removed = false;

                for attr in &node.attrs() {
                    if &attr.name.local == "src" {
                        continue;
                    }

                    if IMG_EXT.iter().any(|p| attr.value.contains(p)) {
                        src_could_be_removed = true;
                        break;
                    }
                }
                // Here we assume if image is less than 100 bytes (or 133 after encoded to base64)
                // it will be too small, therefore it might be placeholder image.
                if src_could_be_removed && base64_data.len() < 133 {
                    node.remove_attr("src");
                }
            }
        }

        if (node.has_attr("src") || node.has_attr("srcset")) && !is_lazy_image(node) {
            continue;
        }

        for attr in &node.attrs() {
            if matches!(attr.name.local.as_ref(), "src" | "srcset" | "alt") {
                continue;
            }

            let mut copy_to: Option<&str> = None;
            let val = attr.value.to_ascii_lowercase();
            if is_img_attr_to_srcset(&val) {
                copy_to = Some("srcset");
            } else if is_img_attr_to_src(&val) {
                copy_to = Some("src");
            }

            if let Some(copy_to) = copy_to {
                //if this is an img or picture, set the attribute directly
                let Some(tag_name) = node.node_name() else {
                    continue;
                };
                if matches!(tag_name.as_ref(), "img" | "picture") {
                    node.set_attr(copy_to, &attr.value);
                } else if tag_name.as_ref() == "figure" {
                    let figure_sel = Selection::from(*node);
                    if !figure_sel.select_matcher(&MATCHER_IMG_PICTURE).exists() {
                        //if the item is a <figure> that does not contain an image or picture,
                        //create one and place it inside the figure
                        //see the nytimes-3 testcase for an example
                        let img_node = node.tree.new_element("img");
                        img_node.set_attr(copy_to, &attr.value);
                        node.append_child(&img_node.id);
                    }
                }
            }
        }
    }
}

/// Remove the headings of `headers` whose class weighs negative.
fn clean_headers(headers: &[NodeRef], flags: &FlagSet<GrabFlags>) {
    for h_node in headers {
        if get_class_weight(h_node, flags.contains(GrabFlags::WeightClasses)) < 0.0 {
            h_node.remove_from_parent();
        }
    }
}

/// The picks [`prep_article`] works on, in the order it uses them.
const PREP_PICKS: [&Pick; 10] = [
    &WITH_CLASS_OR_ID,
    &TABLES,
    &IMAGES,
    &FORMS,
    &CLEAN,
    &H1_H2,
    &TABLES_LISTS_DIVS,
    &H1,
    &PARAGRAPHS,
    &BRS,
];

pub(crate) fn prep_article<'a>(
    article_node: &NodeRef<'a>,
    flags: &FlagSet<GrabFlags>,
    cfg: &Config,
) {
    // *Important*: Currently the order of calling 'cleaning' functions is matters.
    // It shouldn't be but it is.
    //
    // Every list the steps work on is found in one walk of the article, here, instead of a
    // walk for each step (ten of them). A step gets what that walk found that is still in
    // the article when the step begins ([`still_under`]): what a walk at that point would
    // find, in the same order. No step adds, renames or moves an element of a listed name
    // before the last list is used: `fix_lazy_images` adds `<img>`s, which no later list
    // names; the others remove elements or change attributes, and only the first list,
    // taken first, depends on attributes.
    let ([named, tables, images, forms, junk, headers, blocks, h1s, paragraphs, brs], _) =
        Pick::each_under(article_node, PREP_PICKS);
    let live = |nodes: &[NodeRef<'a>]| still_under(nodes, article_node);

    // Clean out elements with little content that have "share" in their id/class combinations from final top candidates,
    // which means we don't remove the top candidates even they have "share".
    remove_share_elements(&named, cfg.char_threshold);

    // Check for data tables before we continue, to avoid removing items in
    // those tables, which will often be isolated even though they're
    // visually linked to other content-ful elements (text, images, etc.).
    mark_data_tables(&live(&tables));

    fix_lazy_images(&live(&images));

    clean_conditionally(&live(&forms), flags);

    // Clean out junk from the article content
    clean(&live(&junk));

    clean_headers(&live(&headers), flags);

    // Do these last as the previous stuff may have removed junk
    // that will affect these
    clean_conditionally(&live(&blocks), flags);

    // replace H1 with H2 as H1 should be only title that is displayed separately
    for h1 in live(&h1s) {
        h1.rename("h2");
    }
    // remove all presentational attributes
    clean_styles(article_node);

    // Remove extra paragraphs

    // At this point, nasty iframes have been removed; only embedded video
    // ones remain.
    for p_node in &live(&paragraphs) {
        // Its text first: most paragraphs have some, which settles it without a search.
        if has_text(p_node) {
            continue;
        }
        let p_sel = Selection::from(*p_node);
        if p_sel.select_matcher(&MATCHER_IMG_EMBEDS).length() == 0 {
            p_sel.remove();
        }
    }

    for br_node in live(&brs) {
        if let Some(next_node) = br_node.next_element_sibling() {
            if next_node.has_name("p") {
                br_node.remove_from_parent();
            }
        }
    }

    fix_single_cell_tables(&live(&tables));
}

/// Replace each table of `tables` that has one cell with the cell's content.
fn fix_single_cell_tables(tables: &[NodeRef]) {
    for table_node in tables {
        let tbody = single_child_element(table_node, "tbody").unwrap_or(*table_node);

        if let Some(row) = single_child_element(&tbody, "tr") {
            if let Some(cell) = single_child_element(&row, "td") {
                let new_name = if cell.children_it(false).all(|c| is_phrasing_content(&c)) {
                    "p"
                } else {
                    "div"
                };
                cell.rename(new_name);
                table_node.replace_with(&cell);
            }
        }
    }
}

/// Remove the elements of `named` (those with a class or an id) named for sharing and
/// holding little text.
fn remove_share_elements(named: &[NodeRef], share_element_threshold: usize) {
    for child in named {
        let mut has_share_sign: bool;
        {
            let Some(el) = child.element_ref() else {
                continue;
            };
            let attrs = &el.attrs;
            has_share_sign = attrs
                .iter()
                .find(|a| &a.name.local == "class")
                .is_some_and(|s| contains_share_elements(&s.value));
            if !has_share_sign {
                has_share_sign = attrs
                    .iter()
                    .find(|a| &a.name.local == "id")
                    .is_some_and(|s| contains_share_elements(&s.value));
            }
        }

        if has_share_sign && normalized_chars(child) < share_element_threshold {
            child.remove_from_parent();
        }
    }
}

#[cfg(test)]
mod tests {

    use dom_query::Document;

    use super::*;

    #[test]
    fn test_text_density_cmp() {
        // Reference: the real helper short-circuits instead of computing the full density.
        let density = |node: &NodeRef, char_count: usize| {
            let children: usize = Selection::from(*node)
                .select_matcher(&MATCHER_UL_OL)
                .nodes()
                .iter()
                .map(|n| n.normalized_char_count())
                .sum();
            if char_count == 0 || children == 0 {
                0.0
            } else {
                children as f32 / char_count as f32
            }
        };

        let doc = Document::from(
            r#"<div id="list"><ul><li>one two</li></ul></div>
               <div id="mixed"><ul><li>one two</li></ul>three four</div>
               <div id="text">plain text</div>
               <div id="exact"><ul><li>abcdefghi</li></ul>x</div>
               <div id="empty"></div>"#,
        );

        for node in doc.select("div").nodes() {
            let char_count = node.normalized_char_count();
            let density = density(node, char_count);
            for threshold in [0.0, 0.1, 0.5, 0.9, 1.0, 2.0] {
                for ordering in [Ordering::Less, Ordering::Greater] {
                    assert_eq!(
                        text_density_cmp(node, &MATCHER_UL_OL, char_count, threshold, ordering),
                        density.partial_cmp(&threshold) == Some(ordering),
                        "id={:?}, density={density}, threshold={threshold}, ordering={ordering:?}",
                        node.attr_or("id", "")
                    );
                }
            }
        }

        let list = doc.select("#list").nodes()[0];
        let mixed = doc.select("#mixed").nodes()[0];
        let exact = doc.select("#exact").nodes()[0];
        assert!(text_density_cmp(
            &list,
            &MATCHER_UL_OL,
            list.normalized_char_count(),
            0.9,
            Ordering::Greater
        ));
        assert!(!text_density_cmp(
            &mixed,
            &MATCHER_UL_OL,
            mixed.normalized_char_count(),
            0.9,
            Ordering::Greater
        ));
        // Density is exactly 0.9: neither `<` nor `>` holds.
        let exact_char_count = exact.normalized_char_count();
        assert_eq!(
            density(&exact, exact_char_count).partial_cmp(&0.9),
            Some(Ordering::Equal)
        );
        for ordering in [Ordering::Less, Ordering::Greater] {
            assert!(!text_density_cmp(
                &exact,
                &MATCHER_UL_OL,
                exact_char_count,
                0.9,
                ordering
            ));
        }
    }

    /// [`prep_article`] as it was: each step walks the article for its own list.
    fn prep_article_in_separate_walks(article: &NodeRef, flags: &FlagSet<GrabFlags>, cfg: &Config) {
        let sel = Selection::from(*article);
        remove_share_elements(&WITH_CLASS_OR_ID.under(&sel), cfg.char_threshold);
        mark_data_tables(&TABLES.under(&sel));
        fix_lazy_images(&IMAGES.under(&sel));
        clean_conditionally(&FORMS.under(&sel), flags);
        clean(&CLEAN.under(&sel));
        clean_headers(&H1_H2.under(&sel), flags);
        clean_conditionally(&TABLES_LISTS_DIVS.under(&sel), flags);
        for h1 in H1.under(&sel) {
            h1.rename("h2");
        }
        clean_styles(article);
        for p_node in &PARAGRAPHS.under(&sel) {
            if has_text(p_node) {
                continue;
            }
            let p_sel = Selection::from(*p_node);
            if p_sel.select_matcher(&MATCHER_IMG_EMBEDS).length() == 0 {
                p_sel.remove();
            }
        }
        for br_node in named_descendants(article, "br") {
            if br_node
                .next_element_sibling()
                .is_some_and(|n| n.has_name("p"))
            {
                br_node.remove_from_parent();
            }
        }
        fix_single_cell_tables(&TABLES.under(&sel));
    }

    #[test]
    fn prep_article_in_one_walk_equals_a_walk_for_each_step() {
        let pages = [
            // Headings, paragraphs (empty, with an image), <br>s before paragraphs.
            "<div id=a><h1 align=center>t</h1><p>x<br></p><br><p>y</p><p> </p>\
             <p><img src=i.png></p><font size=3>f</font><br><div><br><p>z</p></div>\
             <h2 class=comment-meta>by</h2><h1 class=share>s</h1></div>",
            // Single-cell tables, nested; a data table; a layout table in a form.
            "<div id=a><table width=5><tr><td>one cell</td></tr></table>\
             <table><tbody><tr><td><table><tr><td><p>inner</p></td></tr></table></td></tr>\
             </tbody></table><table><tr><td>a</td><td>b</td></tr></table>\
             <form><table><tr><td>q</td><td>r</td></tr></table><input></form>\
             <table summary=s><tr><td>d</td></tr></table></div>",
            // Share bars holding tables, images and lists; junk holding headings; lazy
            // images and a figure given one.
            "<div id=a><div class=share-bar><table><tr><td>t</td></tr></table>\
             <img data-src=x.jpg><ul><li>l</li></ul></div><aside><h2>aside</h2><div>d</div>\
             </aside><figure data-src=f.jpg></figure><img class=lazy data-src=y.png src=z.gif>\
             <footer><table><tr><td>f</td></tr></table><p></p></footer>\
             <div class=sidebar><ul><li><a href=/1>1</a></li><li><a href=/2>2</a></li></ul></div>\
             <div class=sidebar><table><tr><td>1</td><td>2</td><td>3</td><td>4</td><td>5</td>\
             </tr><tr><td>6</td><td>7</td><td>8</td><td>9</td><td>0</td></tr></table></div>\
             <p>text, with, commas, enough, to, stay, here, as, content, and, more, words</p></div>",
            "<div id=a><svg><h1>x</h1></svg><p><br></p><br><p></p><center>c</center></div>",
        ];
        let cfg = Config::default();
        let all =
            GrabFlags::StripUnlikelys | GrabFlags::WeightClasses | GrabFlags::CleanConditionally;
        for flags in [all, FlagSet::default()] {
            for page in pages {
                let ours = Document::from(page);
                let theirs = Document::from(page);
                // An empty paragraph holding a <br>, as Readability's own rewriting leaves.
                for doc in [&ours, &theirs] {
                    if let Some(p) = doc.select("#a > p").nodes().first() {
                        let extra = doc.tree.new_element("p");
                        extra.append_child(&doc.tree.new_element("br"));
                        p.append_child(&extra);
                    }
                }
                prep_article(&ours.select("#a").nodes()[0], &flags, &cfg);
                prep_article_in_separate_walks(&theirs.select("#a").nodes()[0], &flags, &cfg);
                assert_eq!(ours.html(), theirs.html(), "{page}");
            }
        }
    }

    #[test]
    fn test_fix_lazy_images() {
        struct TestCase<'a> {
            fragment: String,
            expected_attr_name: &'a str,
        }

        // Long enough to survive the base64 length check in `fix_lazy_images`.
        let stub = format!("data:image/gif;base64,{}", "R0lGODlhAQABAAAA".repeat(9));
        let real = "https://example.com/real.jpg";
        let cases = [
            // `loading="lazy"` alone is no sign of a placeholder: wikipedia sets it on
            // images with a working `src`, next to a `resource` attribute pointing at
            // the file description page.
            TestCase {
                fragment: format!(r#"loading="lazy" src="{real}" resource="./File:Real.jpg""#),
                expected_attr_name: "src",
            },
            TestCase {
                fragment: format!(r#"loading="lazy" srcset="{real}" resource="./File:Real.jpg""#),
                expected_attr_name: "srcset",
            },
            // With no usable address of its own the hint still works.
            TestCase {
                fragment: format!(r#"loading="lazy" src="{stub}" data-src="{real}""#),
                expected_attr_name: "src",
            },
            TestCase {
                fragment: format!(r#"loading="lazy" srcset="{stub}" data-srcset="{real}""#),
                expected_attr_name: "src",
            },
            TestCase {
                fragment: format!(r#"loading="lazy" src=" {stub}" data-src="{real}""#),
                expected_attr_name: "src",
            },
            // Whitespace is not an address either.
            TestCase {
                fragment: format!(r#"loading="lazy" src="   " data-src="{real}""#),
                expected_attr_name: "src",
            },
            TestCase {
                fragment: format!(r#"loading="lazy" srcset="   " data-srcset="{real}""#),
                expected_attr_name: "src",
            },
            // A `lazy` class means a placeholder even when `src` looks usable.
            TestCase {
                fragment: format!(
                    r#"class="lazyload" src="https://example.com/ph.png" data-src="{real}""#
                ),
                expected_attr_name: "src",
            },
            // No lazy hint at all: the address stays as it is.
            TestCase {
                fragment: format!(r#"src="{real}" data-src="https://example.com/other.jpg""#),
                expected_attr_name: "src",
            },
        ];

        for case in cases {
            let attrs = case.fragment;
            let contents = format!("<html><body><img {attrs}></body></html>");
            let doc = Document::from(contents.as_str());
            fix_lazy_images(&IMAGES.under(&doc.select("body")));
            assert_eq!(
                doc.select("img")
                    .attr_or(case.expected_attr_name, "")
                    .to_string(),
                real,
                "<img {attrs}>"
            );
        }
    }

    #[test]
    fn test_should_clean_conditionally_keeps_pre() {
        let flags = FlagSet::full();
        for class in ["scroll-mt-2", "md:hidden", "overflow-hidden"] {
            let html = format!(r#"<div class="{class}"><pre><code>cargo test</code></pre></div>"#);
            let doc = Document::from(html.as_str());
            let pre_wrapper = doc.select("div").nodes()[0];
            assert!(
                !should_clean_conditionally(&pre_wrapper, &flags),
                "class={class:?} with <pre>"
            );

            let html =
                format!(r##"<div class="{class}"><a href="#">one</a><a href="#">two</a></div>"##);
            let doc = Document::from(html.as_str());
            let clutter = doc.select("div").nodes()[0];
            assert!(
                should_clean_conditionally(&clutter, &flags),
                "class={class:?} without <pre>"
            );
        }
    }

    #[test]
    fn test_textish_text() {
        let cases = [
            ("direct text", false),
            ("<div></div>", false),
            ("<p>text</p>", true),
            ("<span>text</span>", true),
            ("<span><p>text</p></span>", true),
            (r##"<a href="#">text</a>"##, false),
            ("<p> </p>", false),
        ];

        for (inner, expected) in cases {
            let html = format!(r#"<div id="node">{inner}</div>"#);
            let doc = Document::from(html.as_str());
            let node = doc.select("#node").nodes()[0];
            assert_eq!(
                text_density_cmp(&node, &MATCHER_TEXTISH, 1, 0.0, Ordering::Greater),
                expected,
                "inner={inner:?}"
            );
        }
    }

    #[test]
    fn test_colspan_values() {
        let cases = [
            // zero is clamped to 1
            ("0", 2),
            //oversized decimal is clamped
            ("99999999999999999999999", 1001),
            //usize::MAX is clamped
            (&usize::MAX.to_string(), 1001),
            // negative values give 1 colspan
            ("-1", 2),
            // bad value gives 1 colspan
            ("abc", 2),
        ];

        for (case, col_count) in cases {
            let html = format!(
                r#"<table><tr><td colspan="{case}">a</td><td colspan="1">b</td></tr></table>"#
            );
            let doc = Document::from(html);
            assert_eq!(get_row_and_col_count(&doc.select("table")), (1, col_count));
        }
    }
}
