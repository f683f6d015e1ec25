//! Elements picked by a plain test instead of a CSS selector: [`Pick::under`] gives what
//! `Selection::select(css)` gives (the element descendants in document order), walking
//! the subtree once with a test of names and attributes instead of parsing the selector
//! and matching it against every node (about a tenth of the instructions). Each pick
//! keeps its selector, which the tests below hold it to on pages made to tell them apart,
//! and which is used as it stands on a selection of several nodes.

use dom_query::{local_name, Document, NodeRef, Selection};

/// A CSS selector and the test that picks the same elements.
pub(crate) struct Pick {
    pub(crate) css: &'static str,
    pub(crate) keep: fn(&NodeRef) -> bool,
}

impl Pick {
    /// The element descendants of the one node of `sel` (not the node itself) that
    /// [`Pick::keep`] keeps, in document order; `sel.select(css)` when `sel` holds several
    /// nodes or none.
    pub(crate) fn under<'a>(&self, sel: &Selection<'a>) -> Vec<NodeRef<'a>> {
        match sel.nodes() {
            [root] => root
                .descendants_it()
                .filter(|n| n.is_element() && (self.keep)(n))
                .collect(),
            _ => sel.select(self.css).nodes().to_vec(),
        }
    }

    /// What `doc.select(css)` gives: [`Pick::under`] the document node.
    pub(crate) fn in_doc<'a>(&self, doc: &'a Document) -> Vec<NodeRef<'a>> {
        self.under(&Selection::from(doc.root()))
    }
}

/// The pick of the elements of one name.
macro_rules! one_name {
    ($name:literal) => {
        Pick {
            css: $name,
            keep: |n| n.has_name($name),
        }
    };
}

/// `[name^="prefix"]`: case-sensitive, and an empty prefix matches nothing, as in CSS.
fn attr_starts_with(node: &NodeRef, name: &str, prefix: &str) -> bool {
    !prefix.is_empty() && node.attr(name).is_some_and(|v| v.starts_with(prefix))
}

fn named(node: &NodeRef, names: &[&str]) -> bool {
    node.qual_name_ref()
        .is_some_and(|name| names.iter().any(|n| &*name.local == *n))
}

fn is_div_or_section(n: &NodeRef) -> bool {
    n.qual_name_ref()
        .is_some_and(|name| matches!(name.local, local_name!("div") | local_name!("section")))
}

/// Links whose target `fix_relative_uris` makes absolute, when the page's base is its
/// own address (in-page anchors stay).
pub(crate) static RELATIVE_LINKS_SAME_BASE: Pick = Pick {
    css: r##"a[href]:not([href^="#"]):not([href^="http"])"##,
    keep: |n| {
        n.has_name("a")
            && n.attr("href")
                .is_some_and(|href| !(href.starts_with("http") || href.starts_with('#')))
    },
};

/// The same when the page names another base (`<base href>`): anchors move too.
pub(crate) static RELATIVE_LINKS: Pick = Pick {
    css: r#"a[href]:not([href^="http"])"#,
    keep: |n| n.has_name("a") && n.attr("href").is_some_and(|href| !href.starts_with("http")),
};

pub(crate) static MEDIA: Pick = Pick {
    css: "img,picture,figure,video,audio,source",
    keep: |n| named(n, &["img", "picture", "figure", "video", "audio", "source"]),
};

pub(crate) static JS_LINKS: Pick = Pick {
    css: r#"a[href^="javascript:"]"#,
    keep: |n| n.has_name("a") && attr_starts_with(n, "href", "javascript:"),
};

pub(crate) static LINKS_WITHOUT_HREF: Pick = Pick {
    css: "a:not([href])",
    keep: |n| n.has_name("a") && !n.has_attr("href"),
};

pub(crate) static CELLS_OUTSIDE_ROWS: Pick = Pick {
    css: "*:not(tr) > td",
    keep: |n| {
        n.has_name("td")
            && n.parent()
                .is_some_and(|p| p.is_element() && !p.has_name("tr"))
    },
};

pub(crate) static DIVS_AND_SECTIONS: Pick = Pick {
    css: "div, section",
    keep: is_div_or_section,
};

pub(crate) static EMPTY_DIVS_AND_SECTIONS: Pick = Pick {
    css: ":is(div, section):empty",
    keep: |n| is_div_or_section(n) && n.is_empty_element(),
};

/// Readability's own marks, removed once the article is done.
pub(crate) const MARKS: [&str; 2] = ["data-readability-score", "data-readability-table"];

pub(crate) static MARKED: Pick = Pick {
    css: "*[data-readability-score], *[data-readability-table]",
    keep: |n| MARKS.iter().any(|m| n.has_attr(m)),
};

pub(crate) static IMAGES: Pick = Pick {
    css: "img,picture,figure",
    keep: |n| named(n, &["img", "picture", "figure"]),
};

pub(crate) static H1: Pick = one_name!("h1");

pub(crate) static PARAGRAPHS: Pick = one_name!("p");

pub(crate) static TABLES: Pick = one_name!("table");

pub(crate) static WITH_CLASS_OR_ID: Pick = Pick {
    css: "*[class],*[id]",
    keep: |n| n.has_attr("class") || n.has_attr("id"),
};

/// What `clean` removes or looks at (embedded videos may stay).
pub(crate) static CLEAN: Pick = Pick {
    css: "object,embed,footer,link,aside,iframe,input,textarea,select,button",
    keep: |n| {
        named(
            n,
            &[
                "object", "embed", "footer", "link", "aside", "iframe", "input", "textarea",
                "select", "button",
            ],
        )
    },
};

pub(crate) static FORMS: Pick = Pick {
    css: "form,fieldset",
    keep: |n| named(n, &["form", "fieldset"]),
};

pub(crate) static TABLES_LISTS_DIVS: Pick = Pick {
    css: "table,ul,div",
    keep: |n| named(n, &["table", "ul", "div"]),
};

pub(crate) static H1_H2: Pick = Pick {
    css: "h1,h2",
    keep: |n| named(n, &["h1", "h2"]),
};

/// Dialogs, which the article walk drops (tested one node at a time with `keep`).
pub(crate) static DIALOGS: Pick = Pick {
    css: r#"dialog,[aria-modal="true"][role="dialog"]"#,
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
    keep: |n| {
        n.attr("rel")
            .is_some_and(|v| v.eq_ignore_ascii_case("author"))
            || n.attr("itemprop").is_some_and(|v| v.contains("author"))
    },
};

pub(crate) static SCRIPTS: Pick = Pick {
    css: "script, noscript",
    keep: |n| named(n, &["script", "noscript"]),
};

pub(crate) static STYLES: Pick = one_name!("style");

pub(crate) static FONTS: Pick = one_name!("font");

pub(crate) static BRS: Pick = one_name!("br");

pub(crate) static IMGS: Pick = one_name!("img");

pub(crate) static METAS_WITH_CONTENT: Pick = Pick {
    css: "meta[content]",
    keep: |n| n.has_name("meta") && n.has_attr("content"),
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
