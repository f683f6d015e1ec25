//! Elements picked by a plain test instead of a CSS selector: [`Pick::under`] gives what
//! `Selection::select(css)` gives (the element descendants in document order), walking
//! the subtree once with a test of names and attributes instead of parsing the selector
//! and matching it against every node (about a tenth of the instructions). Each pick
//! keeps its selector, which the tests below hold it to on pages made to tell them apart,
//! and which is used as it stands on a selection of several nodes.

use dom_query::{local_name, Document, LocalName, NodeData, NodeRef, Selection};

/// A CSS selector and the test that picks the same elements.
pub(crate) struct Pick {
    pub(crate) css: &'static str,
    /// The element names it can pick (any element when empty): looked at first, in one
    /// look at the node (most nodes go no further).
    pub(crate) names: &'static [LocalName],
    /// The rest of the test, on an element of one of those names.
    pub(crate) keep: fn(&NodeRef) -> bool,
}

impl Pick {
    /// The element descendants of the one node of `sel` (not the node itself) that
    /// [`Pick::matches`], in document order; `sel.select(css)` when `sel` holds several
    /// nodes or none.
    pub(crate) fn under<'a>(&self, sel: &Selection<'a>) -> Vec<NodeRef<'a>> {
        match sel.nodes() {
            [root] => root.descendants_it().filter(|n| self.matches(n)).collect(),
            _ => sel.select(self.css).nodes().to_vec(),
        }
    }

    /// What `doc.select(css)` gives: [`Pick::under`] the document node.
    pub(crate) fn in_doc<'a>(&self, doc: &'a Document) -> Vec<NodeRef<'a>> {
        self.under(&Selection::from(doc.root()))
    }

    /// What [`Pick::under`] gives under `root` for each of `picks`, and the comment nodes
    /// under it, all in one walk: `out[i]` holds `picks[i]`'s elements in document order.
    /// Equal to separate walks only when acting on one list cannot change what another
    /// holds; the caller says why it cannot.
    pub(crate) fn each_under<'a, const N: usize>(
        root: &NodeRef<'a>,
        picks: [&Pick; N],
    ) -> ([Vec<NodeRef<'a>>; N], Vec<NodeRef<'a>>) {
        let mut out: [Vec<NodeRef<'a>>; N] = std::array::from_fn(|_| Vec::new());
        let mut comments = Vec::new();
        for node in root.descendants_it() {
            // One look at the node for its kind and name ([`Pick::matches`] would take one
            // for each pick).
            let name = node.query_or(None, |t| match &t.data {
                NodeData::Element(e) => Some(Some(e.name.local.clone())),
                NodeData::Comment { .. } => Some(None),
                _ => None,
            });
            let Some(name) = name else {
                continue;
            };
            let Some(name) = name else {
                comments.push(node);
                continue;
            };
            for (pick, found) in picks.iter().zip(out.iter_mut()) {
                if pick.takes_name(&name) && (pick.keep)(&node) {
                    found.push(node);
                }
            }
        }
        (out, comments)
    }

    /// Whether the selector matches `node` (an element of one of [`Pick::names`] that
    /// [`Pick::keep`] keeps).
    pub(crate) fn matches(&self, node: &NodeRef) -> bool {
        let named = node.query_or(false, |t| {
            t.as_element()
                .is_some_and(|el| self.takes_name(&el.name.local))
        });
        named && (self.keep)(node)
    }

    /// Whether an element of this name may be picked ([`Pick::names`]).
    fn takes_name(&self, name: &LocalName) -> bool {
        self.names.is_empty() || self.names.contains(name)
    }
}

/// The nodes of `nodes` that are still under `root` (neither they nor an ancestor removed
/// since they were found), in their order.
pub(crate) fn still_under<'a>(nodes: &[NodeRef<'a>], root: &NodeRef) -> Vec<NodeRef<'a>> {
    nodes
        .iter()
        .filter(|n| n.ancestors_it(None).any(|a| a.id == root.id))
        .copied()
        .collect()
}

/// [`still_under`], and still a match of `pick` (renamed or changed since, it may not be).
pub(crate) fn still_matching<'a>(
    nodes: &[NodeRef<'a>],
    pick: &Pick,
    root: &NodeRef,
) -> Vec<NodeRef<'a>> {
    let mut found = still_under(nodes, root);
    found.retain(|n| pick.matches(n));
    found
}

/// Keeps every element of the pick's names.
fn any(_: &NodeRef) -> bool {
    true
}

/// The pick of the elements of one name.
macro_rules! one_name {
    ($name:tt) => {
        Pick {
            css: $name,
            names: &[local_name!($name)],
            keep: any,
        }
    };
}

/// `[name^="prefix"]`: case-sensitive, and an empty prefix matches nothing, as in CSS.
fn attr_starts_with(node: &NodeRef, name: &str, prefix: &str) -> bool {
    !prefix.is_empty() && node.attr(name).is_some_and(|v| v.starts_with(prefix))
}

/// Links whose target `fix_relative_uris` makes absolute, when the page's base is its
/// own address (in-page anchors stay).
pub(crate) static RELATIVE_LINKS_SAME_BASE: Pick = Pick {
    css: r##"a[href]:not([href^="#"]):not([href^="http"])"##,
    names: &[local_name!("a")],
    keep: |n| {
        n.attr("href")
            .is_some_and(|href| !(href.starts_with("http") || href.starts_with('#')))
    },
};

/// The same when the page names another base (`<base href>`): anchors move too.
pub(crate) static RELATIVE_LINKS: Pick = Pick {
    css: r#"a[href]:not([href^="http"])"#,
    names: &[local_name!("a")],
    keep: |n| n.attr("href").is_some_and(|href| !href.starts_with("http")),
};

pub(crate) static MEDIA: Pick = Pick {
    css: "img,picture,figure,video,audio,source",
    names: &[
        local_name!("img"),
        local_name!("picture"),
        local_name!("figure"),
        local_name!("video"),
        local_name!("audio"),
        local_name!("source"),
    ],
    keep: any,
};

pub(crate) static JS_LINKS: Pick = Pick {
    css: r#"a[href^="javascript:"]"#,
    names: &[local_name!("a")],
    keep: |n| attr_starts_with(n, "href", "javascript:"),
};

pub(crate) static LINKS_WITHOUT_HREF: Pick = Pick {
    css: "a:not([href])",
    names: &[local_name!("a")],
    keep: |n| !n.has_attr("href"),
};

pub(crate) static CELLS_OUTSIDE_ROWS: Pick = Pick {
    css: "*:not(tr) > td",
    names: &[local_name!("td")],
    keep: |n| {
        n.parent()
            .is_some_and(|p| p.is_element() && !p.has_name("tr"))
    },
};

pub(crate) static DIVS_AND_SECTIONS: Pick = Pick {
    css: "div, section",
    names: &[local_name!("div"), local_name!("section")],
    keep: any,
};

pub(crate) static EMPTY_DIVS_AND_SECTIONS: Pick = Pick {
    css: ":is(div, section):empty",
    names: &[local_name!("div"), local_name!("section")],
    keep: |n| n.is_empty_element(),
};

/// Readability's own marks, removed once the article is done.
pub(crate) const MARKS: [&str; 2] = ["data-readability-score", "data-readability-table"];

pub(crate) static MARKED: Pick = Pick {
    css: "*[data-readability-score], *[data-readability-table]",
    names: &[],
    // One look at the element's attributes (a `has_attr` for each mark took a borrow of
    // the tree and a search of the attributes each, for every element of the article).
    keep: |n| crate::content::find::has_any_attr(n, &MARKS),
};

pub(crate) static IMAGES: Pick = Pick {
    css: "img,picture,figure",
    names: &[
        local_name!("img"),
        local_name!("picture"),
        local_name!("figure"),
    ],
    keep: any,
};

pub(crate) static H1: Pick = one_name!("h1");

pub(crate) static PARAGRAPHS: Pick = one_name!("p");

pub(crate) static TABLES: Pick = one_name!("table");

pub(crate) static WITH_CLASS_OR_ID: Pick = Pick {
    css: "*[class],*[id]",
    names: &[],
    keep: |n| n.has_attr("class") || n.has_attr("id"),
};

/// What `clean` removes or looks at (embedded videos may stay).
pub(crate) static CLEAN: Pick = Pick {
    css: "object,embed,footer,link,aside,iframe,input,textarea,select,button",
    names: &[
        local_name!("object"),
        local_name!("embed"),
        local_name!("footer"),
        local_name!("link"),
        local_name!("aside"),
        local_name!("iframe"),
        local_name!("input"),
        local_name!("textarea"),
        local_name!("select"),
        local_name!("button"),
    ],
    keep: any,
};

pub(crate) static FORMS: Pick = Pick {
    css: "form,fieldset",
    names: &[local_name!("form"), local_name!("fieldset")],
    keep: any,
};

pub(crate) static TABLES_LISTS_DIVS: Pick = Pick {
    css: "table,ul,div",
    names: &[local_name!("table"), local_name!("ul"), local_name!("div")],
    keep: any,
};

pub(crate) static H1_H2: Pick = Pick {
    css: "h1,h2",
    names: &[local_name!("h1"), local_name!("h2")],
    keep: any,
};

/// Dialogs, which the article walk drops (tested one node at a time with `keep`).
pub(crate) static DIALOGS: Pick = Pick {
    css: r#"dialog,[aria-modal="true"][role="dialog"]"#,
    names: &[],
    keep: |n| {
        n.has_name("dialog")
            || (n.attr("aria-modal").is_some_and(|v| &*v == "true")
                && n.attr("role").is_some_and(|v| &*v == "dialog"))
    },
};

/// An author's line by its markup (tested one node at a time with `keep`). `rel` is one
/// of the attributes whose values HTML matches without regard to ASCII case.
pub(crate) static BYLINE: Pick = Pick {
    css: r#"[rel="author"],[itemprop*="author"]"#,
    names: &[],
    keep: |n| {
        n.attr("rel")
            .is_some_and(|v| v.eq_ignore_ascii_case("author"))
            || n.attr("itemprop").is_some_and(|v| v.contains("author"))
    },
};

pub(crate) static SCRIPTS: Pick = Pick {
    css: "script, noscript",
    names: &[local_name!("script"), local_name!("noscript")],
    keep: any,
};

pub(crate) static STYLES: Pick = one_name!("style");

pub(crate) static FONTS: Pick = one_name!("font");

pub(crate) static BRS: Pick = one_name!("br");

pub(crate) static IMGS: Pick = one_name!("img");

pub(crate) static ANCHORS: Pick = one_name!("a");

pub(crate) static METAS_WITH_CONTENT: Pick = Pick {
    css: "meta[content]",
    names: &[local_name!("meta")],
    keep: |n| n.has_attr("content"),
};

#[cfg(test)]
mod tests {
    use super::*;
    use dom_query::Document;

    const ALL: &[&Pick] = &[
        &RELATIVE_LINKS_SAME_BASE,
        &RELATIVE_LINKS,
        &MEDIA,
        &JS_LINKS,
        &LINKS_WITHOUT_HREF,
        &CELLS_OUTSIDE_ROWS,
        &DIVS_AND_SECTIONS,
        &EMPTY_DIVS_AND_SECTIONS,
        &MARKED,
        &IMAGES,
        &H1,
        &PARAGRAPHS,
        &TABLES,
        &WITH_CLASS_OR_ID,
        &CLEAN,
        &FORMS,
        &TABLES_LISTS_DIVS,
        &H1_H2,
        &DIALOGS,
        &BYLINE,
        &SCRIPTS,
        &STYLES,
        &FONTS,
        &BRS,
        &IMGS,
        &ANCHORS,
        &METAS_WITH_CONTENT,
    ];

    /// Pages with every near miss: attributes present but empty, prefixes in other case,
    /// the same names in SVG, cells in and out of rows, empty and nearly empty blocks.
    const PAGES: &[&str] = &[
        r##"<div id="root"><a href="#top">a</a><a href="/x">b</a><a href="http://h/">c</a>
            <a href="https://h/">d</a><a href="HTTP://h">e</a><a href="">f</a><a>g</a>
            <a href="javascript:void(0)">h</a><a href="JavaScript:x">i</a><a name="n"></a>
            <svg><a href="/svg">j</a><image href="/i.png"/></svg>
            <p class="">p1</p><p id="x">p2</p><p>  </p><h1>t</h1><H1 class="c">u</H1>
            <img src="a.png"><picture><source srcset="b.png"></picture><figure></figure>
            <video></video><audio></audio><embed src="e">
            <table><tr><td>1</td></tr></table><table><tbody><tr><td>2</td></tr></tbody></table>
            <div><span>loose</span></div>
            <section></section><div>   </div><div><!-- c --></div><div> x </div>
            <div><p></p></div><section><div></div></section>
            <div data-readability-score="1" data-readability-table="true">s</div>
            <span data-readability-table="false"></span><i data-readability-score=""></i>
            <dialog>d</dialog><div role="dialog" aria-modal="true">m</div><div role="dialog">r</div>
            <div aria-modal="TRUE" role="dialog">u</div><div role="Dialog" aria-modal="true">v</div>
            <a rel="author">by</a><a rel="Author">By</a><a rel="author nofollow">x</a>
            <span itemprop="coAuthor">y</span><span itemprop="author">z</span><i itemprop="">e</i>
            <form><fieldset></fieldset></form><ul><li>l</li></ul><h2>h</h2><footer></footer>
            <aside></aside><link rel="x"><iframe></iframe><input><textarea></textarea>
            <select></select><button>b</button><object></object>
            <script>s</script><noscript>n</noscript><style>x</style><font>f</font><br>
            <meta content="c"><meta name="n"><meta content="">
        </div>"##,
        r#"<section id="root"><div><table><tr><td>in a row</td></tr></table></div>
            <ul><li class="share">x</li><li id="">y</li></ul></section>"#,
    ];

    /// The page parsed, with a cell outside a row (which the parser never makes) added in
    /// its first `<div>`, as Readability's renaming of rows can leave one.
    fn parsed(page: &str) -> Document {
        let doc = Document::from(page);
        if let Some(div) = doc.select("#root div").nodes().first() {
            let td = doc.tree.new_element("td");
            td.append_child(&doc.tree.new_text("stray cell"));
            div.append_child(&td);
        }
        doc
    }

    #[test]
    fn each_pick_gives_what_its_selector_gives() {
        for page in PAGES {
            let doc = parsed(page);
            let root = doc.select("#root");
            assert_eq!(root.length(), 1);
            for pick in ALL {
                let ours: Vec<_> = pick.under(&root).iter().map(|n| n.id).collect();
                let css: Vec<_> = root.select(pick.css).nodes().iter().map(|n| n.id).collect();
                assert_eq!(ours, css, "{} on {page}", pick.css);
            }
            // A selection of several nodes takes the selector itself.
            let two = doc.select("#root > *");
            for pick in ALL {
                let ours: Vec<_> = pick.under(&two).iter().map(|n| n.id).collect();
                let css: Vec<_> = two.select(pick.css).nodes().iter().map(|n| n.id).collect();
                assert_eq!(ours, css, "{} on several nodes", pick.css);
            }
        }
    }

    #[test]
    fn each_pick_in_a_document_gives_what_the_document_selects() {
        for page in PAGES {
            let doc = parsed(page);
            for pick in ALL {
                let ours: Vec<_> = pick.in_doc(&doc).iter().map(|n| n.id).collect();
                let css: Vec<_> = doc.select(pick.css).nodes().iter().map(|n| n.id).collect();
                assert_eq!(ours, css, "{} in {page}", pick.css);
            }
        }
    }

    #[test]
    fn the_pages_tell_every_pick_apart_from_none() {
        let doc = parsed(PAGES[0]);
        let root = doc.select("#root");
        for pick in ALL {
            assert!(!pick.under(&root).is_empty(), "{} picks nothing", pick.css);
        }
    }
}
