//! Tab panels (issue 27): a product page often keeps its description, its specs and its
//! ingredients in sibling panels of one tab group (WooCommerce, Shopware, Bootstrap), of
//! which a browser shows one at a time and a reader without scripts sees all. Readability
//! scores containers one by one: it picks the description and leaves the specs in the
//! panel beside it. When its pick lies in one panel of a group, the whole group is written
//! instead (see `crate::content::extract`). Whole panels only; no word is cut (DESIGN §12).

use dom_query::{Document, NodeRef};

use crate::content::tidy::collapse_whitespace;

/// The attribute that marks a tab panel (see [`is_tab_panel`]), set while the page is
/// prepared, so that the copy of the tree kept for the wider selections carries it.
pub(crate) const TAB_MARK: &str = "data-vetch-tab";

/// The attribute that marks the tab group the extraction writes (see [`mark_group_of`]).
pub(crate) const GROUP_MARK: &str = "data-vetch-tabs";

/// Whether an element with this `role` and these lower-cased `id` and `class` values
/// (`names`, space-separated) is a tab panel: `role="tabpanel"`, or a class or id that is
/// one of the usual names of one (Bootstrap `tab-pane`, WooCommerce `wc-tab`, Shopware
/// `tab--container`, `tab-panel`, `tabs-panel`, `tabpanel`).
pub(crate) fn is_tab_panel(role: Option<&str>, names: &str) -> bool {
    role.is_some_and(|r| r.trim().eq_ignore_ascii_case("tabpanel"))
        || names.split_ascii_whitespace().any(|w| {
            matches!(
                w,
                "tab-pane" | "tabpanel" | "tab-panel" | "tabs-panel" | "tab--container" | "wc-tab"
            )
        })
}

/// Readability's pick is (mostly) one panel's when it has at most this share (in percent)
/// of the visible characters of the panel that holds its first sentence.
const PANEL_SHARE: usize = 110;

/// Mark with [`GROUP_MARK`] the tab group in `doc` whose panel holds `anchor` (the pick's
/// first text of some length, whitespace collapsed), when the pick of `picked` visible
/// characters is that panel's and the group has two panels or more, and return it; `None`
/// when there is none. `doc` is the copy of the prepared tree, whose panels carry
/// [`TAB_MARK`].
pub(crate) fn mark_group_of<'a>(
    doc: &'a Document,
    anchor: &str,
    picked: usize,
) -> Option<NodeRef<'a>> {
    let panels = doc.select(&format!("[{TAB_MARK}]"));
    let panels = panels.nodes();
    // The innermost panel holding the anchor (panels may nest: a tab group inside a tab).
    let panel = panels.iter().rev().find(|p| holds_anchor(p, anchor))?;
    if picked.saturating_mul(100) > super::kinds::text_chars(panel).saturating_mul(PANEL_SHARE) {
        return None;
    }
    let group = panel.parent()?;
    let siblings = panels
        .iter()
        .filter(|p| p.parent().is_some_and(|q| q.id == group.id))
        .count();
    if siblings < 2 {
        return None;
    }
    group.set_attr(GROUP_MARK, "");
    Some(group)
}

/// The text node of `doc` that is `anchor` (see [`anchor_of`]), whitespace collapsed: where
/// readability's pick begins in the copy of the tree.
pub(crate) fn anchor_text<'a>(doc: &'a Document, anchor: &str) -> Option<NodeRef<'a>> {
    doc.root()
        .descendants_it()
        .find(|d| d.is_text() && collapse_whitespace(&d.text()) == anchor)
}

/// Whether `node`'s text, whitespace collapsed, holds `anchor` (see [`anchor_of`]).
pub(crate) fn holds_anchor(node: &NodeRef, anchor: &str) -> bool {
    collapse_whitespace(&node.text()).contains(anchor)
}

/// The first text under `root` with at least `min` visible characters, whitespace
/// collapsed: what [`mark_group_of`] looks for.
pub(crate) fn anchor_of(root: &NodeRef, min: usize) -> Option<String> {
    root.descendants_it()
        .filter(|d| d.is_text())
        .map(|d| d.text())
        .find(|t| crate::content::tidy::visible_chars(t) >= min)
        .map(|t| collapse_whitespace(&t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tab_panels_by_role_and_by_name() {
        assert!(is_tab_panel(Some(" tabpanel "), ""));
        assert!(is_tab_panel(None, "description tab-pane fade show active"));
        assert!(is_tab_panel(None, "tab--container"));
        assert!(is_tab_panel(None, "woocommerce-tabs-panel wc-tab"));
        assert!(!is_tab_panel(None, "tab-content"));
        assert!(!is_tab_panel(None, "table"));
        assert!(!is_tab_panel(Some("tab"), "tabs"));
    }

    #[test]
    fn the_group_of_the_panel_that_holds_the_pick() {
        let page = "<body><div id=g><div data-vetch-tab><p>The first sentence of the description \
                    goes on.</p></div><div data-vetch-tab><table><tr><td>Weight</td><td>310 g\
                    </td></tr></table></div></div><p>Elsewhere a sentence long enough to be an \
                    anchor.</p></body>";
        let anchor = "The first sentence of the description goes on.";
        let doc = Document::from(page);
        let group = mark_group_of(&doc, anchor, 40);
        assert_eq!(group.and_then(|g| g.attr("id")).as_deref(), Some("g"));
        assert_eq!(
            doc.select("[data-vetch-tabs]").attr("id").as_deref(),
            Some("g")
        );
        // A pick much larger than the panel is not the panel's.
        assert!(mark_group_of(&Document::from(page), anchor, 400).is_none());
        // Text outside every panel: no group.
        let elsewhere = "Elsewhere a sentence long enough";
        assert!(mark_group_of(&Document::from(page), elsewhere, 30).is_none());
        // A lone panel is no group.
        let lone = Document::from(
            "<body><div><div data-vetch-tab><p>The first sentence of the description goes \
             on.</p></div></div></body>",
        );
        assert!(mark_group_of(&lone, anchor, 40).is_none());
    }
}
