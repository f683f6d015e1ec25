//! The extraction's tests: the single-attempt property of Readability's run and the
//! behaviour of the whole pipeline on fixtures.

use super::json::*;
use super::prepare::*;
use super::render::*;
use super::*;
use crate::content::inline::*;
use crate::content::parse::*;
use crate::content::tidy::*;
use crate::content::visible::*;

mod single_attempt_tests {
    use super::*;

    const PROSE: &str = "The river rose overnight and the ferry stayed in port until noon, \
                         when the harbour master judged the current safe again. ";

    /// Readability's run as `readable` makes it, and `Readability::parse` on the same
    /// prepared page: the same tree, article and root.
    fn both(html: &str) -> (Selected, Selected) {
        let base = absolute_http_url("https://news.example/2024/story");
        let prepared = parse_prepared_seen(html, None, false);
        let spare = prepared.doc.clone();
        let other = prepared.doc.clone();
        let ours = readability_article(prepared.doc, base.as_ref(), prepared.shape, || {
            spare.clone()
        })
        .expect("readability finds an article");
        let url = base.as_ref().map(url::Url::as_str);
        let full = full_parse(other, url, readability_config()).expect("parse finds one");
        let (a, b) = (&ours, &full);
        assert_eq!(a.readability.doc.html(), b.readability.doc.html());
        assert_eq!(a.root, b.root);
        assert_eq!(a.article.title, b.article.title);
        let article = |s: &Selected| NodeRef::new(s.root, &s.readability.doc.tree).html();
        assert_eq!(article(a), article(b));
        assert_eq!(a.article.excerpt, b.article.excerpt);
        (ours, full)
    }

    fn page(body: &str) -> String {
        format!(
            "<html><head><title>Story | News</title></head><body><nav><a href=\"/\">Home</a>\
             <a href=\"/world\">World</a></nav>{body}<footer>© News</footer></body></html>"
        )
    }

    #[test]
    fn one_attempt_when_the_first_attempt_is_long_enough() {
        let html = page(&format!(
            "<article><h1>Story</h1><p>{}</p><p>{}</p></article>",
            PROSE.repeat(4),
            PROSE.repeat(4)
        ));
        let (ours, _) = both(&html);
        assert!(!ours.full_run);
    }

    #[test]
    fn the_full_parse_when_the_first_attempt_is_short() {
        // About 130 characters: under the 500 of the first attempt, so `parse` tries all
        // four and keeps the longest.
        let html = page(&format!("<article><p>{PROSE}</p></article>"));
        let (ours, _) = both(&html);
        assert!(ours.full_run);
    }

    #[test]
    fn the_full_parse_when_the_page_uses_readabilitys_id() {
        let html = page(&format!(
            "<div id=\"READABILITY-page-1\">x</div><article><p>{}</p></article>",
            PROSE.repeat(8)
        ));
        let (ours, _) = both(&html);
        assert!(ours.full_run);
    }

    #[test]
    fn table_layouts_keep_a_margin_per_cell() {
        // A layout table whose row readability takes as the article: cells move in
        // post-processing, so the single attempt needs 5 more characters per cell.
        let cells: String = (0..4)
            .map(|i| format!("<td>{i} {}</td> ", PROSE.repeat(2)))
            .collect();
        let html = page(&format!("<table><tr>{cells}</tr></table>"));
        let (ours, _) = both(&html);
        assert!(!ours.full_run);
        let short: String = (0..3).map(|i| format!("<td>{i} {PROSE}</td> ")).collect();
        let html = page(&format!("<table><tr>{short}</tr></table>"));
        both(&html);
    }

    #[test]
    fn the_same_article_on_every_fixture() {
        let mut seen = 0;
        for (path, html) in fixture_files() {
            let base = absolute_http_url("https://news.example/2024/story");
            let prepared = parse_prepared_seen(&html, None, false);
            let spare = prepared.doc.clone();
            let other = prepared.doc.clone();
            let ours = readability_article(prepared.doc, base.as_ref(), prepared.shape, || {
                spare.clone()
            });
            let url = base.as_ref().map(url::Url::as_str);
            let full = full_parse(other, url, readability_config());
            match (ours, full) {
                (Some(a), Some(b)) => {
                    assert_eq!(
                        a.readability.doc.html(),
                        b.readability.doc.html(),
                        "{}",
                        path.display()
                    );
                    assert_eq!(a.article.title, b.article.title);
                    assert_eq!(a.root, b.root, "{}", path.display());
                }
                (None, None) => {}
                (a, b) => {
                    panic!("{}: {:?} vs {:?}", path.display(), a.is_some(), b.is_some())
                }
            }
            seen += 1;
        }
        assert!(seen >= 40, "{seen} fixtures");
    }

    fn count_matches(doc: &Document) {
        for node in std::iter::once(doc.root()).chain(doc.root().descendants_it()) {
            let count = node.normalized_char_count();
            for n in 0..count + 3 {
                assert_eq!(
                    normalized_chars_reach(&node, n),
                    count >= n,
                    "{n} of {count}"
                );
            }
        }
    }

    #[test]
    fn normalized_chars_reach_is_dom_querys_count() {
        for html in [
            "<div></div>",
            "<div> </div>",
            "<div>  a  b  </div>",
            "<div>a<span> </span> <b>b </b> c\n\n</div>",
            "<div>\u{a0}é ü\t<p>x</p>  </div>",
        ] {
            count_matches(&Document::from(html));
        }
        // An empty text node breaks a run of whitespace in dom_query's count.
        let doc = Document::from("<div><p>a </p><p>x</p><p> b</p></div>");
        for p in doc.select("p").nodes() {
            if p.text().as_ref() == "x" {
                p.set_text("");
            }
        }
        count_matches(&doc);
    }

    /// The selector-based versions the one-walk ones replaced, to check they agree.
    fn selection_text_by_selectors(sel: &Selection, doc: &Document) -> String {
        sel.select(
            "script, style, noscript, template, svg, canvas, iframe, object, embed, nav, button, \
             select, input, textarea, dialog",
        )
        .remove();
        sel.select(
            "figure, figcaption, main, header, footer, aside, address, details, summary, \
             fieldset, legend, hgroup, dl, dt, dd, center, form, caption",
        )
        .rename("div");
        for list in sel.select("ol").nodes() {
            let mut number = list
                .attr("start")
                .and_then(|s| s.trim().parse::<i64>().ok())
                .unwrap_or(1);
            for li in list.element_children().iter().filter(|c| c.has_name("li")) {
                li.prepend_child(&doc.tree.new_text(format!("{number}. ")));
                number = number.saturating_add(1);
            }
        }
        for li in sel.select("li").nodes() {
            if !li.parent().is_some_and(|p| p.has_name("ol")) {
                li.prepend_child(&doc.tree.new_text("- "));
            }
        }
        let scripts: Vec<NodeRef> = sel.select("sup, sub").nodes().to_vec();
        mark_scripts(doc, &scripts);
        mark_code_blocks(doc, sel.select("pre").nodes());
        for cell in sel.select("td, th").nodes() {
            let has_next = cell
                .next_element_sibling()
                .is_some_and(|s| s.has_name("td") || s.has_name("th"));
            if has_next {
                cell.append_child(&doc.tree.new_text(" |"));
            }
        }
        tidy_text(&sel.formatted_text())
    }

    fn absolutize_by_selectors(doc: &Document, base: &url::Url) {
        let base = doc
            .select("base[href]")
            .attr("href")
            .and_then(|href| base.join(href.trim()).ok())
            .unwrap_or_else(|| base.clone());
        for (selector, attr) in [("a[href]", "href"), ("img[src]", "src")] {
            for node in doc.select(selector).nodes() {
                let Some(value) = node.attr(attr) else {
                    continue;
                };
                let value = value.trim();
                if value.starts_with('#') || value.is_empty() {
                    continue;
                }
                let lower = value.to_ascii_lowercase();
                if lower.starts_with("javascript:") || lower.starts_with("data:") {
                    continue;
                }
                if let Ok(abs) = base.join(value) {
                    node.set_attr(attr, abs.as_str());
                }
            }
        }
    }

    /// Every `.html` file under tests/fixtures, with its path.
    fn fixture_files() -> Vec<(std::path::PathBuf, String)> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        walkdir::WalkDir::new(dir)
            .into_iter()
            .filter_map(Result::ok)
            .map(walkdir::DirEntry::into_path)
            .filter(|path| path.extension().is_some_and(|e| e == "html"))
            .map(|path| {
                let bytes = std::fs::read(&path).unwrap_or_default();
                let text = String::from_utf8_lossy(&bytes).into_owned();
                (path, text)
            })
            .collect()
    }

    fn fixture_pages() -> Vec<String> {
        let mut pages: Vec<String> = fixture_files().into_iter().map(|(_, t)| t).collect();
        pages.push(
            "<html><head><base href=\"/docs/\"><base href=\"/other/\"></head><body><main>\
             <ol start=\"3\"><li>a</li><li>b<ul><li>c</li></ul></li></ol>\
             <dl><dt>t</dt><dd>d</dd></dl><figure><img src=\"x.png\" alt=\"x\">\
             <figcaption>cap</figcaption></figure><nav><li>gone</li></nav>\
             <table><caption>c</caption><tr><th>h</th><td>1</td><td>2</td></tr></table>\
             <a href=\" rel \">r</a><a href=\"rel\">again</a><a href=\"#f\">f</a>\
             <a href=\"JavaScript:x\">j</a><img src=\"data:x\"><svg><a href=\"s\">s</a></svg>\
             <form><select><option>o</option></select><label>l</label></form></main></body></html>"
                .to_owned(),
        );
        pages
    }

    #[test]
    fn one_walk_text_and_links_match_the_selector_versions() {
        let base = absolute_http_url("https://news.example/2024/story").expect("a base");
        let mut seen = 0;
        for html in fixture_pages() {
            for root in ["body", "html", "main"] {
                let a = Document::from(html.as_str());
                let b = Document::from(html.as_str());
                absolutize_links(&a, &base);
                absolutize_by_selectors(&b, &base);
                assert_eq!(a.html(), b.html());
                let (sa, sb) = (a.select(root), b.select(root));
                assert_eq!(
                    selection_text(&sa, &a),
                    selection_text_by_selectors(&sb, &b)
                );
                assert_eq!(a.html(), b.html());
            }
            seen += 1;
        }
        assert!(seen > 40, "{seen} pages");
    }
}

mod pipeline {
    use super::*;

    /// A page names itself a product in JSON-LD, microdata or Open Graph; on such a page a
    /// pick with less than 70% of the body (without its boilerplate) becomes the body: the
    /// description beside the specs readability picked, and the price above them.
    #[test]
    fn a_small_pick_on_a_product_page_becomes_its_body() {
        let description = "The Lantern 2 is a camping light of folded aluminium that hangs from a \
                           tent loop or stands on its own feet, and runs for forty hours on one \
                           charge at its lowest setting.";
        let specs = "Weight: 180 g. Battery: 2600 mAh. Light: 20 to 300 lumen. Charging: USB-C.";
        let page = |marker: &str| {
            format!(
                "<html><head>{marker}</head><body><nav><a href=/>Home</a> <a href=/lights>Lights</a></nav>\
                 <main><h1>Lantern 2</h1><p class=price>$49.00</p>\
                 <div class=description><p>{description}</p></div>\
                 <div class=specs><p>{specs}</p></div>\
                 <form action=/review><label>How would you rate this light?</label>\
                 <textarea name=review></textarea></form></main>\
                 <footer><p>Copyright Hollowfield Outdoor</p></footer></body></html>"
            )
        };
        let found = |picked: usize| Readable {
            text: specs.to_owned(),
            title: "Lantern 2".to_owned(),
            page_h1: None,
            picked,
            anchor: None,
        };
        let top = Top {
            text_mode: true,
            headline: false,
        };
        let picked = visible_chars(specs);
        for marker in [
            r#"<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Lantern 2"}</script>"#,
            r#"<meta property="og:type" content="product">"#,
        ] {
            let prepared = parse_prepared_seen(&page(marker), None, false);
            assert!(prepared.shape.product, "{marker}");
            let body = wider_root(
                prepared.doc,
                None,
                prepared.shape,
                &found(picked),
                None,
                top,
            )
            .expect("the body is written");
            for line in ["$49.00", description, specs] {
                assert!(body.contains(line), "{line}\n{body}");
            }
            // The page's navigation and footer are not, nor the form where a reader
            // writes a review.
            assert!(!body.contains("Copyright"), "{body}");
            assert!(!body.contains("How would you rate"), "{body}");
            assert!(!body.contains("Lights"), "{body}");
            // A pick with most of the body stands.
            let prepared = parse_prepared_seen(&page(marker), None, false);
            let most = visible_chars(&body) * 3 / 4;
            assert_eq!(
                wider_root(prepared.doc, None, prepared.shape, &found(most), None, top),
                None
            );
        }
        // Microdata names it too.
        let microdata = page("").replace(
            "<main>",
            r#"<main itemscope itemtype="https://schema.org/Product">"#,
        );
        assert!(parse_prepared_seen(&microdata, None, false).shape.product);
        // So does its one form that adds it to the cart (Amazon's `addToCart`, Shopify's
        // `/cart/add`, Magento's `product_addtocart_form`); a page of many such forms is a
        // category, and an article is not a product for one.
        let cart = |forms: usize, marker: &str| {
            let form = r#"<form id="addToCart" action="/gp/product/handle-buy-box"><button>Add to Cart</button></form>"#;
            page(marker).replace(
                "<div class=specs>",
                &format!("{}<div class=specs>", form.repeat(forms)),
            )
        };
        assert!(parse_prepared_seen(&cart(1, ""), None, false).shape.product);
        assert!(!parse_prepared_seen(&cart(2, ""), None, false).shape.product);
        let article = r#"<meta property="og:type" content="article">"#;
        assert!(
            !parse_prepared_seen(&cart(1, article), None, false)
                .shape
                .product
        );
        // A page that names no product, or an article about one: the pick stands.
        for marker in [
            "",
            r#"<script type="application/ld+json">{"@type":"NewsArticle","about":{"@type":"Product"}}</script>"#,
        ] {
            let prepared = parse_prepared_seen(&page(marker), None, false);
            assert!(!prepared.shape.product, "{marker}");
            assert_eq!(
                wider_root(
                    prepared.doc,
                    None,
                    prepared.shape,
                    &found(picked),
                    None,
                    top
                ),
                None
            );
        }
    }

    /// A shop that keeps the description in a drawer over the page (Gymshark's sheet: an
    /// `<aside>` in a non-modal `role="dialog"`), blocks that are never content elsewhere:
    /// when the page's JSON-LD declares that description, the drawer is written with the
    /// body; the other drawers (a size guide) and the page's sidebar still are not, and
    /// without the declaration the description drawer goes as before.
    #[test]
    fn a_product_description_the_page_declares_is_kept_in_its_drawer() {
        let description = "Cut from a recycled cotton twill that softens with every wash, the \
                           Harbour Jacket keeps the wind out on a cold quay.";
        let care = "Machine wash at 30 degrees, inside out, and dry it flat.";
        let drawer = |testid: &str, body: &str| {
            format!(
                "<div class=sheet role=dialog aria-modal=false tabindex=-1>\
                 <aside class=sheet_aside data-testid={testid}><h5>{testid}</h5>\
                 <div class=sheet_content><p>{body}</p></div></aside></div>"
            )
        };
        let page = |declared: &str| {
            format!(
                "<html><head><script type=\"application/ld+json\">{{\"@context\":\"https://schema.org\",\
                 \"@graph\":[{{\"@type\":\"Organization\",\"description\":\"A shop by the sea, selling \
                 jackets and coats since 1990.\"}},{{\"@type\":\"Product\",\"name\":\"Harbour Jacket\"{declared}}}]}}\
                 </script></head><body><main><h1>Harbour Jacket</h1><p class=price>$120.00</p>\
                 <p>Sizes from XS to XXL, in navy, olive and sand.</p>\
                 <section class=accordion><button>Description</button>{}</section>\
                 <section class=accordion><button>Size guide</button>{}</section></main>\
                 <aside class=sidebar><p>Customers also bought the Harbour Scarf and the Quay Boots \
                 in the winter sale.</p></aside></body></html>",
                drawer("description", description),
                drawer("size-guide", care),
            )
        };
        let declared = format!(r#","description":"{description} Care: {care}""#);
        // Read with readability, and as a page too large for it (the whole body).
        let write = |html: &str, mode: ExtractMode, limit: usize| {
            assert!(parse_prepared_seen(html, None, false).shape.product);
            extract_with_limit(html, BodyKind::Html, mode, None, limit).text
        };
        for (mode, limit) in [ExtractMode::Text, ExtractMode::Markdown]
            .into_iter()
            .flat_map(|m| [(m, READABILITY_MAX_BYTES), (m, 100)])
        {
            let body = write(&page(&declared), mode, limit);
            assert!(body.contains(description), "{body}");
            assert!(body.contains("Sizes from XS"), "{body}");
            // The size guide's text is in the description too, but only the first text
            // of the description found in the body decides which drawer is the
            // description's.
            assert!(!body.contains("Machine wash"), "{body}");
            assert!(!body.contains("Customers also bought"), "{body}");
            // Not declared, or declared of something else than the product: as before.
            for html in [
                page(""),
                page(r#","review":{"@type":"Review","description":"x"}"#),
            ] {
                let body = write(&html, mode, limit);
                assert!(!body.contains("recycled cotton"), "{body}");
                assert!(body.contains("Sizes from XS"), "{body}");
            }
        }
    }

    /// A product page that is mostly its reviews (REI's: readability picked them, and they
    /// hold more than 70% of the body): the body without the reviews, so the description
    /// and the details come back rather than what customers wrote.
    #[test]
    fn a_product_page_picked_at_its_reviews_is_written_without_them() {
        let description = "Keep your gear within easy reach in the Trail 25 pack, designed to fit \
                           a wide range of body types, with pockets for all your essentials.";
        let review = "The straps are a game changer, so comfortable on a long day out, and the \
                      hip belt carries the weight well.";
        let reviews: String = (0..12)
            .map(|i| format!("<div class=review-item><p>{review} ({i})</p></div>"))
            .collect();
        let page = format!(
            "<html><head><meta property=\"og:type\" content=\"product\"></head><body>\
             <nav><a href=/>Home</a></nav><h1>Trail 25 Pack</h1><p>$99.95</p>\
             <div class=description><p>{description}</p><p>{description}</p>\
             <p>Capacity: 25 liters</p></div>\
             <div id=product-reviews-accordion><h2>Reviews</h2>{reviews}</div></body></html>"
        );
        let anchor = format!("{review} (0)");
        let found = Readable {
            text: anchor.clone(),
            title: "Trail 25 Pack".to_owned(),
            page_h1: None,
            picked: visible_chars("Reviews")
                + (0..12)
                    .map(|i| visible_chars(&format!("{review} ({i})")))
                    .sum::<usize>(),
            anchor: Some(anchor),
        };
        let top = Top {
            text_mode: true,
            headline: false,
        };
        let prepared = parse_prepared_seen(&page, None, false);
        let out = wider_root(prepared.doc, None, prepared.shape, &found, None, top)
            .expect("the body is written");
        for line in ["$99.95", description, "Capacity: 25 liters"] {
            assert!(out.contains(line), "{line}\n{out}");
        }
        assert!(!out.contains("game changer"), "{out}");
        // A pick that is the reviews and as much again is no pick of the reviews.
        let prepared = parse_prepared_seen(&page, None, false);
        let larger = Readable {
            picked: found.picked * 2,
            ..found
        };
        assert_eq!(
            wider_root(prepared.doc, None, prepared.shape, &larger, None, top),
            None
        );
    }

    /// A pick that is one tab panel's (readability's pick on a Shopware product page: the
    /// description) becomes the whole tab group: the details panel beside it comes too.
    #[test]
    fn a_pick_in_one_tab_panel_widens_to_its_group() {
        let page = include_str!("../../../tests/fixtures/kinds/product-shop-tabs.html");
        let description = "Der Hollowfield Riesling wächst auf den Schieferhängen über der \
                           Mosel, wo die Reben ihre Wurzeln tief in das steinige Erdreich \
                           schicken und die Sonne den ganzen Nachmittag auf den Trauben liegt.";
        let found = |anchor: &str, picked: usize| Readable {
            text: description.to_owned(),
            title: "Hollowfield Riesling trocken 2021".to_owned(),
            page_h1: None,
            picked,
            anchor: Some(anchor.to_owned()),
        };
        let top = Top {
            text_mode: true,
            headline: false,
        };
        let prepared = parse_prepared_seen(page, None, false);
        assert!(prepared.shape.tabs);
        let picked = visible_chars(description);
        let wider = wider_root(
            prepared.doc,
            None,
            prepared.shape,
            &found(description, picked),
            None,
            top,
        )
        .expect("the tab group is written");
        for line in [
            description,
            "Restzucker: | 6,2 g/l",
            "Allergene: | Enthält Sulfite",
        ] {
            assert!(wider.contains(line), "{line}\n{wider}");
        }
        // The panels' controls and the review form's fields are not content.
        assert!(!wider.contains("Menü schließen"), "{wider}");
        assert!(!wider.contains("Speichern"), "{wider}");
        // A pick much larger than the panel that holds it is not that panel's: it stands.
        let prepared = parse_prepared_seen(page, None, false);
        assert_eq!(
            wider_root(
                prepared.doc,
                None,
                prepared.shape,
                &found(description, picked * 6),
                None,
                top
            ),
            None
        );
        // A page without tab panels: readability's pick stands.
        let plain = page.replace("tab--container", "box");
        let prepared = parse_prepared_seen(&plain, None, false);
        assert!(!prepared.shape.tabs);
        assert_eq!(
            wider_root(
                prepared.doc,
                None,
                prepared.shape,
                &found(description, picked),
                None,
                top
            ),
            None
        );
    }

    #[test]
    fn redaction_markers_lose_the_converters_escapes_unless_they_could_start_a_link() {
        assert_eq!(
            unescape_markers("key \\[REDACTED\\] and \\[REDACTED\\](x) \\[REDACTED\\]:"),
            "key [REDACTED] and \\[REDACTED\\](x) \\[REDACTED\\]:"
        );
        assert_eq!(unescape_markers("plain \\[x\\]"), "plain \\[x\\]");
    }

    const ARTICLE: &str = include_str!("../../../tests/fixtures/extract/article.html");
    const DOCS: &str = include_str!("../../../tests/fixtures/extract/docs.html");
    const CP1252: &[u8] = include_bytes!("../../../tests/fixtures/extract/windows-1252.html");
    const SPA: &str = include_str!("../../../tests/fixtures/extract/spa.html");
    const BLOG: &str = include_str!("../../../tests/fixtures/extract/blog-h1.html");

    fn md(html: &str) -> Extracted {
        extract(
            html,
            BodyKind::Html,
            ExtractMode::Auto,
            Some("https://news.example.com/2024/05/urban-heat"),
        )
    }

    #[test]
    fn article_keeps_main_text() {
        let out = md(ARTICLE);
        assert!(
            out.text.contains("# How Cities Are Rethinking Urban Heat"),
            "{}",
            out.text
        );
        assert!(out.text.contains("Phoenix recorded 113 consecutive days"));
        assert!(out.text.contains("## Cool roofs and shade"));
        assert!(out.text.contains("- Reflective roof coatings"));
        assert!(out.text.contains("> Shade is infrastructure"));
        assert!(out
            .text
            .contains("[heat action plan](https://news.example.com/2024/05/heat-plan)"));
        assert!(out.text.contains("closing paragraph of the article"));
    }

    /// The page's own `<h1>` is the heading, not the `<title>` with the site's name (which
    /// goes to the receipt's `title`), and it is not demoted to `##`; share bar, newsletter
    /// box and related posts are gone; the caption keeps its credit, which is a part of its
    /// line. Snapshot:
    /// `tests/fixtures/extract/blog-h1.md` (`UPDATE_SNAPSHOTS=1` rewrites it).
    #[test]
    fn blog_keeps_its_h1_and_drops_boilerplate() {
        let out = extract(
            BLOG,
            BodyKind::Html,
            ExtractMode::Auto,
            Some("https://blog.example/2025/release-2"),
        );
        let snap = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/extract/blog-h1.md"
        );
        if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
            std::fs::write(snap, format!("{}\n", out.text)).expect("write the snapshot");
        }
        let want = std::fs::read_to_string(snap).unwrap_or_default();
        assert_eq!(out.text, want.trim_end(), "snapshot {snap}");
        assert!(out.text.starts_with("# Release 2.0\n\n"), "{}", out.text);
        assert!(!out.text.contains("## Release 2.0"), "{}", out.text);
        assert_eq!(out.title.as_deref(), Some("Release 2.0 | Dev Blog"));
        let text = extract(BLOG, BodyKind::Html, ExtractMode::Text, None).text;
        // Plain text is the body: the title is the receipt's, not repeated on top.
        assert!(text.starts_with("Version 2.0"), "{text}");
        for out in [&out.text, &text] {
            assert!(!out.contains("Dev Blog"), "{out}");
            assert!(out.contains("Thanks to everyone who tested"), "{out}");
            assert!(out.contains("p.feed(chunk);"), "{out}");
            // The credit is a part of the caption's line of text: it stays (DESIGN §12).
            assert!(
                out.contains("Throughput on the benchmark corpus. Photo: Jane Doe"),
                "{out}"
            );
            for junk in [
                "Share on",
                "Get the next release notes",
                "You may also like",
                "Release 1.9",
            ] {
                assert!(!out.contains(junk), "found {junk:?} in:\n{out}");
            }
        }
    }

    #[test]
    fn article_drops_boilerplate() {
        let out = md(ARTICLE);
        for junk in [
            "We use cookies",
            "Accept all",
            "Subscribe for $1",
            "Trending now",
            "All rights reserved",
            "Privacy policy",
            "Sports",
            "gtag(",
        ] {
            assert!(!out.text.contains(junk), "found {junk:?} in:\n{}", out.text);
        }
    }

    #[test]
    fn title_is_extracted_and_collapsed() {
        let out = md(ARTICLE);
        assert_eq!(
            out.title.as_deref(),
            Some("How Cities Are Rethinking Urban Heat | The Daily Example")
        );
        let tiny = extract(
            "<html><head><title>\n  A   spaced\ttitle </title></head><body>x</body></html>",
            BodyKind::Html,
            ExtractMode::Auto,
            None,
        );
        assert_eq!(tiny.title.as_deref(), Some("A spaced title"));
        let none = extract("<p>no title</p>", BodyKind::Html, ExtractMode::Auto, None);
        assert_eq!(none.title, None);
        let empty = extract(
            "<title>  </title><p>x</p>",
            BodyKind::Html,
            ExtractMode::Auto,
            None,
        );
        assert_eq!(empty.title, None);
    }

    #[test]
    fn docs_code_block_is_fenced_and_exact() {
        let out = md(DOCS);
        let rust = "```rust\nuse std::collections::HashMap;\n\nfn main() {\n    let mut counts: HashMap<&str, Vec<u8>> = HashMap::new();\n    if 1 < 2 && 3 > 2 {\n        counts.entry(\"a\").or_default().push(b'x');\n    }\n\n\n\n    // `three` blank lines above are kept *as is* [x](y)\n    println!(\"{counts:?}\");\n}\n```";
        assert!(out.text.contains(rust), "{}", out.text);
        assert!(
            out.text
                .contains("```toml\n[lookup]\nmax_chars = 20000\n```"),
            "{}",
            out.text
        );
        // A bare <pre> in a Sphinx-style wrapper: wrapped and labelled.
        assert!(
            out.text
                .contains("```shell\n$ cargo add vetch\n$ vetch lookup https://example.com\n```"),
            "{}",
            out.text
        );
    }

    #[test]
    fn docs_table_is_a_markdown_table() {
        let out = md(DOCS);
        let lines: Vec<&str> = out.text.lines().collect();
        let header = lines
            .iter()
            .position(|l| l.starts_with("| Option") && l.contains("| Default"))
            .unwrap_or_else(|| panic!("no table header in:\n{}", out.text));
        assert!(lines[header + 1].starts_with("| ---"));
        assert!(lines[header + 2].contains("`max_attempts`") && lines[header + 2].contains("| 3"));
        assert!(lines[header + 3].contains("`max_chars`"));
        assert!(!out.text.contains("On this page"), "{}", out.text);
    }

    #[test]
    fn windows_1252_page() {
        let (decoded, _, had_errors) = encoding_rs::WINDOWS_1252.decode(CP1252);
        assert!(!had_errors);
        let out = md(&decoded);
        assert_eq!(out.title.as_deref(), Some("Café crème – prix en €"));
        assert!(
            out.text.contains("Le café coûte 3,50 € au comptoir"),
            "{}",
            out.text
        );
        assert!(
            out.text.contains("“le meilleur de la ville”"),
            "{}",
            out.text
        );
        assert!(out.text.contains("œuvre"));
    }

    #[test]
    fn js_heavy_page_gives_little_and_no_script() {
        let out = md(SPA);
        assert!(out.text.contains("Loading dashboard"), "{}", out.text);
        assert!(visible_chars(&out.text) < 200, "{}", out.text);
        for junk in [
            "function",
            "__NEXT_DATA__",
            "window.",
            "enable JavaScript",
            "webpack",
        ] {
            assert!(!out.text.contains(junk), "found {junk:?} in:\n{}", out.text);
        }
        assert_eq!(out.title.as_deref(), Some("Acme Analytics"));
    }

    #[test]
    fn text_mode_has_no_markdown_syntax() {
        let out = extract(
            ARTICLE,
            BodyKind::Html,
            ExtractMode::Text,
            Some("https://news.example.com/"),
        );
        // The headline is the receipt's title in plain text, not a line on top.
        assert!(!out.text.contains("How Cities Are Rethinking Urban Heat"));
        assert!(out
            .title
            .as_deref()
            .is_some_and(|t| t.contains("How Cities Are Rethinking Urban Heat")));
        assert!(out.text.contains("Phoenix recorded 113 consecutive days"));
        assert!(out.text.contains("\n\n"), "paragraph breaks kept");
        assert!(out.text.contains("- Reflective roof coatings"));
        assert!(!out.text.contains('#'), "{}", out.text);
        assert!(!out.text.contains("**"), "{}", out.text);
        assert!(!out.text.contains("]("), "{}", out.text);
        assert!(!out.text.contains("We use cookies"));
        let docs = extract(DOCS, BodyKind::Html, ExtractMode::Text, None);
        assert!(!docs.text.contains("```"), "{}", docs.text);
        assert!(
            docs.text.contains("max_attempts | integer | 3"),
            "{}",
            docs.text
        );
        assert!(docs.text.contains("    let mut counts"), "{}", docs.text);
    }

    #[test]
    fn text_mode_lists_and_tables() {
        let html = "<body><h2>Steps</h2><ol start=\"3\"><li>mix</li><li>bake <b>hot</b></li></ol>\
                    <ul><li>salt</li></ul><table><tr><th>k</th><th>v</th></tr>\
                    <tr><td>a</td><td>1</td></tr></table><figure>fig</figure><p>end</p></body>";
        let out = extract(html, BodyKind::Html, ExtractMode::Text, None);
        assert_eq!(
            out.text,
            "Steps\n\n3. mix\n4. bake hot\n\n- salt\n\nk | v\na | 1\n\nfig\n\nend"
        );
    }

    #[test]
    fn raw_is_untouched() {
        for body in [ARTICLE, SPA, "  <p>odd\r\n\n\n\nspacing</p>  "] {
            let out = extract(body, BodyKind::Html, ExtractMode::Raw, None);
            assert_eq!(out.text, body);
        }
        let out = extract(ARTICLE, BodyKind::Html, ExtractMode::Raw, None);
        assert_eq!(
            out.title.as_deref(),
            Some("How Cities Are Rethinking Urban Heat | The Daily Example")
        );
        let json = "{\"a\":1}";
        assert_eq!(
            extract(json, BodyKind::Json, ExtractMode::Raw, None).text,
            json
        );
    }

    #[test]
    fn json_is_pretty_printed_exactly() {
        let body = r#"{"b":[1,2,{"c":null}],"a":"x\"y,{z}:","big":12345678901234567890123,"f":1.0,"e":{},"l":[ ],"b":true}"#;
        let expected = "{\n  \"b\": [\n    1,\n    2,\n    {\n      \"c\": null\n    }\n  ],\n  \"a\": \"x\\\"y,{z}:\",\n  \"big\": 12345678901234567890123,\n  \"f\": 1.0,\n  \"e\": {},\n  \"l\": [],\n  \"b\": true\n}";
        for mode in [ExtractMode::Auto, ExtractMode::Markdown, ExtractMode::Text] {
            let out = extract(body, BodyKind::Json, mode, None);
            assert_eq!(out.text, expected);
            assert_eq!(out.title, None);
        }
        let bad = "{\"a\": 1,}";
        assert_eq!(
            extract(bad, BodyKind::Json, ExtractMode::Auto, None).text,
            bad
        );
        assert_eq!(
            extract("\u{feff}[1]", BodyKind::Json, ExtractMode::Auto, None).text,
            "[\n  1\n]"
        );
    }

    #[test]
    fn deeply_nested_json_is_returned_as_is_not_blown_up() {
        // 20 000 levels: re-indenting made 800 million characters.
        let deep = format!("{}{}", "[".repeat(20_000), "]".repeat(20_000));
        assert_eq!(
            extract(&deep, BodyKind::Json, ExtractMode::Auto, None).text,
            deep
        );
        let at_limit = format!("{}1{}", "[".repeat(128), "]".repeat(128));
        let out = extract(&at_limit, BodyKind::Json, ExtractMode::Auto, None).text;
        assert_ne!(out, at_limit);
        let over = format!("{}1{}", "[".repeat(129), "]".repeat(129));
        assert_eq!(
            extract(&over, BodyKind::Json, ExtractMode::Auto, None).text,
            over
        );
        // Many values deep down: the output stays within a small multiple of the body.
        let wide = format!(
            "{}{}1{}",
            "[".repeat(120),
            "1,".repeat(100_000),
            "]".repeat(120)
        );
        let out = extract(&wide, BodyKind::Json, ExtractMode::Auto, None).text;
        assert!(out.len() <= max_pretty_len(wide.len()), "{}", out.len());
    }

    #[test]
    fn many_attributes_are_cut_before_parsing_not_quadratic() {
        let attrs: String = (0..5000).map(|i| format!(" a{i}=\"v\"")).collect();
        let html = format!("<html><body><div{attrs} id=last>kept text</div></body></html>");
        let capped = cap_nesting(&html, MAX_DEPTH);
        assert_eq!(capped.matches("=\"v\"").count(), MAX_ATTRIBUTES);
        assert!(!capped.contains("id=last"));
        assert!(capped.contains(">kept text</div>"));
        let out = extract(&html, BodyKind::Html, ExtractMode::Auto, None);
        assert_eq!(out.text, "kept text");
        // Quoted values may hold spaces and `>`; unquoted ones end at a space.
        let one = "<p a=\"x > y\" b='1 2' c=3 d>t</p>";
        assert_eq!(
            attributes_cut(one.as_bytes(), 2, one.find(">t").unwrap() + 1, 4),
            None
        );
        assert_eq!(
            attributes_cut(one.as_bytes(), 2, one.find(">t").unwrap() + 1, 3),
            Some(one.find(" d>").unwrap() + 1)
        );
    }

    #[test]
    fn elements_past_the_budget_lose_their_markup() {
        let mut html = "<b>x</b>".repeat(MAX_ELEMENTS);
        html.push_str("<i>tail</i><script>var secret = 1;</script><b>end</b>");
        let capped = cap_nesting(&html, MAX_DEPTH);
        assert_eq!(capped.matches("<b>").count(), MAX_ELEMENTS);
        assert!(
            capped.ends_with("x</b>tailend"),
            "{}",
            &capped[capped.len() - 40..]
        );
    }

    #[test]
    fn entity_dense_text_converts_exactly() {
        let n = 3000;
        let html = format!(
            "<html><body><p>{}</p></body></html>",
            "a &amp; b ".repeat(n)
        );
        let want = "a & b ".repeat(n);
        for mode in [ExtractMode::Auto, ExtractMode::Text] {
            assert_eq!(extract(&html, BodyKind::Html, mode, None).text, want.trim());
        }
    }

    #[test]
    fn attribute_values_too_costly_to_serialize_are_dropped() {
        let dense = "a &amp; b ".repeat(20_000);
        let html = format!(
            "<html><body><div data-x=\"{dense}\" data-y=\"?a=1&amp;b=2\">x</div></body></html>"
        );
        let (doc, _) = parse_prepared(&html, None);
        let div = doc.select("div");
        assert_eq!(div.attr("data-x"), None);
        assert_eq!(div.attr("data-y").as_deref(), Some("?a=1&b=2"));
        assert_eq!(escape_cost("&".repeat(1023).as_str()), 0);
        assert!(escape_cost("&".repeat(1024).as_str()) > MAX_ESCAPE_COST - 1);
        // A no-break space is C2 A0: one special per two bytes.
        assert_eq!(escape_cost(&"\u{a0}".repeat(512)), 512 * 1024);
        // A long text is split from its 65th special on.
        let text = |n: usize| format!("{}{}", "&".repeat(n), "x".repeat(2000));
        assert!(!needs_split(&text(64)));
        assert!(needs_split(&text(65)));
        assert!(!needs_split(&"&".repeat(1000)));
    }

    #[test]
    fn many_links_with_a_long_base_stay_relative() {
        let long_base = format!("https://a.example/{}/", "p".repeat(2000));
        let page = format!(
            "<html><body><p>{}</p></body></html>",
            "<a href=a>b</a> ".repeat(5000)
        );
        let out = extract(&page, BodyKind::Html, ExtractMode::Auto, Some(&long_base));
        assert!(out.text.len() < page.len(), "{}", out.text.len());
        let few = "<html><body><p><a href=a>b</a> and enough words to be a page</p></body></html>";
        let out = extract(few, BodyKind::Html, ExtractMode::Auto, Some(&long_base));
        assert!(out.text.contains(&long_base[..100]), "{}", out.text);
    }

    #[test]
    fn other_text_is_as_is() {
        let body = "plain\n\n\n\ntext  ";
        for mode in [ExtractMode::Auto, ExtractMode::Text, ExtractMode::Markdown] {
            assert_eq!(extract(body, BodyKind::OtherText, mode, None).text, body);
        }
    }

    #[test]
    fn tiny_page_falls_back_to_body() {
        let html = "<html><head><title>Tiny</title></head><body><nav><a href=\"/\">Home</a></nav>\
                    <p>Hello <b>world</b>, see <a href=\"/docs\">the docs</a>.</p>\
                    <footer>(c) Tiny</footer></body></html>";
        let out = extract(
            html,
            BodyKind::Html,
            ExtractMode::Auto,
            Some("https://tiny.example/a/"),
        );
        assert_eq!(
            out.text,
            "Hello **world**, see [the docs](https://tiny.example/docs)."
        );
        assert_eq!(out.title.as_deref(), Some("Tiny"));
        let text = extract(html, BodyKind::Html, ExtractMode::Text, None);
        assert_eq!(text.text, "Hello world, see the docs.");
    }

    #[test]
    fn blank_lines_collapse_outside_fences() {
        let md = "a\n\n\n\nb\n  \n\t\nc\n```\nx\n\n\n\ny\n```\n\n\n\nd\n";
        assert_eq!(tidy_markdown(md), "a\n\nb\n\nc\n```\nx\n\n\n\ny\n```\n\nd");
        assert_eq!(tidy_text("\n\n a\n\n\n\nb \n\n"), "a\n\nb");
    }

    #[test]
    fn tables_are_compact() {
        let md =
            "| a    | bb |\n| :--- | -: |\n| x  y | z  |\n| -    | -  |\n```\n| keep    |\n```";
        assert_eq!(
            tidy_markdown(md),
            "| a | bb |\n| :--- | ---: |\n| x y | z |\n| - | - |\n```\n| keep    |\n```"
        );
    }

    #[test]
    fn tables_keep_every_cell() {
        let md = |html: &str| extract(html, BodyKind::Html, ExtractMode::Auto, None).text;
        assert_eq!(
            md("<table><tr><th>Born</th><td>1971</td></tr><tr><th>Died</th><td>-</td></tr></table>"),
            "| Born | 1971 |\n| --- | --- |\n| Died | - |"
        );
        assert_eq!(
            md("<table><thead><tr><th>a</th><th>b</th></tr><tr><th>c</th><th>d</th></tr></thead>\
                <tbody><tr><td colspan=2>wide</td></tr><tr><td>1|2</td><td>3</td></tr></tbody></table>"),
            "| a | b |\n| --- | --- |\n| c | d |\n| wide | |\n| 1\\|2 | 3 |"
        );
        assert_eq!(
            md("<table><tr><td>A</td><td>B</td></tr><tr><td>C</td><td>D</td></tr></table>"),
            "| A | B |\n| --- | --- |\n| C | D |"
        );
        // A layout table (one column, or nesting another table) becomes blocks.
        assert_eq!(
            md("<table><tr><th>Menu</th></tr><tr><td>Body text</td></tr></table>"),
            "Menu\n\nBody text"
        );
    }

    #[test]
    fn consent_markers() {
        assert!(CONSENT_MARKERS
            .iter()
            .all(|m| m.starts_with(['c', 'g', 'o', 'q']) && *m == m.to_ascii_lowercase()));
        assert!(names_consent_banner("banner cookie-banner "));
        assert!(names_consent_banner("onetrust-consent-sdk "));
        assert!(!names_consent_banner("cookie-recipe card "));
        assert!(!names_consent_banner("content container "));
    }

    /// A Q&A page marked up as Stack Exchange marks it: readability picks the longest answer
    /// (on Stack Exchange's pages, among votes, comments and user cards), and the answers
    /// built alike make a thread without the question; the question item is written, with
    /// the question and every answer.
    #[test]
    fn a_question_comes_with_its_answers() {
        let question = "My book gives Ich wurde ausgeraubt for I was robbed, but would that not \
                        translate to I became robbed, with the verb werden?";
        let long = "The passive voice in German is built with werden, and its simple past is \
                    wurde: so Ich wurde ausgeraubt says that someone robbed you.";
        let short = [
            "War would describe the state you were in afterwards, which is rarer.",
            "Compare Ich bin ausgeraubt worden, the perfect tense of the same passive.",
        ];
        let answer = |body: &str| {
            format!(
                "<div class=\"answer js-answer\" itemprop=suggestedAnswer itemscope \
                 itemtype=\"https://schema.org/Answer\"><div class=s-prose>{body}</div>\
                 <div class=user-details>answered by Ann</div></div>"
            )
        };
        let longest = (0..2).map(|_| format!("<p>{long}</p>")).collect::<String>();
        let page = format!(
            "<html><head><title>wurde or war?</title></head><body itemscope \
             itemtype=\"https://schema.org/QAPage\"><nav><a href=/>Home</a></nav>\
             <div id=content><div itemprop=mainEntity itemscope \
             itemtype=\"https://schema.org/Question\"><h1 itemprop=name>wurde or war?</h1>\
             <div class=question><div class=s-prose><p>{question}</p></div>\
             <div class=user-details>asked by Bo</div></div>\
             <div id=answers><h2>3 Answers</h2>{}{}{}</div>\
             <form id=post-form><h2>Your Answer</h2><textarea></textarea></form></div>\
             <div id=sidebar><p>Hot network questions</p></div></div></body></html>",
            answer(&longest),
            answer(&format!("<p>{}</p>", short[0])),
            answer(&format!("<p>{}</p>", short[1])),
        );
        // Readability's pick on such a page: the longest answer's body.
        let found = Readable {
            text: long.to_owned(),
            title: "wurde or war?".to_owned(),
            page_h1: None,
            picked: visible_chars(&longest),
            anchor: Some(long.to_owned()),
        };
        for text_mode in [true, false] {
            let prepared = parse_prepared_seen(&page, None, false);
            assert!(prepared.shape.question);
            let top = Top {
                text_mode,
                headline: false,
            };
            let out = wider_root(prepared.doc, None, prepared.shape, &found, None, top)
                .expect("the question is written");
            for line in [
                question,
                long,
                short[0],
                short[1],
                "asked by Bo",
                "answered by Ann",
            ] {
                assert!(out.contains(line), "{text_mode}: {line}\n{out}");
            }
            assert!(!out.contains("Your Answer"), "{text_mode}:\n{out}");
            assert!(!out.contains("Hot network"), "{text_mode}:\n{out}");
        }
    }

    /// A consent dialog no id or class names (Amazon's `<form role=dialog id=cos-banner>`)
    /// on a page whose product is written in spans and tables: readability picked the
    /// dialog's paragraphs, and the agent got a cookie notice as the page.
    #[test]
    fn an_unnamed_consent_dialog_is_not_the_page() {
        let cookie = "We use cookies and similar tools that are necessary to enable you to make \
                      purchases, to enhance your shopping experiences and to provide our services, \
                      as detailed in our Cookie notice. We also use these cookies to understand how \
                      customers use our services, for example, by measuring site visits, so we can \
                      make improvements.";
        let spec =
            |i: usize| format!("<tr><th>Feature {i}</th><td>Value {i}, rated, tested</td></tr>");
        let specs: String = (0..30).map(spec).collect();
        let page = format!(
            "<html><head><title>Earbuds</title></head><body>\
             <form method=post role=dialog id=cos-banner><h4>Select your cookie preferences</h4>\
             <p>{cookie}</p><p>{cookie}</p><p>{cookie}</p>\
             <span>Accept</span><span>Decline</span></form>\
             <div id=dp><span id=productTitle>Noise-cancelling earbuds, second generation</span>\
             <table>{specs}</table></div></body></html>"
        );
        for mode in [ExtractMode::Text, ExtractMode::Markdown] {
            let out = extract(&page, BodyKind::Html, mode, None);
            assert!(
                !out.text.contains("We use cookies"),
                "{mode:?}:\n{}",
                out.text
            );
            assert!(
                out.text.contains("Value 29, rated, tested"),
                "{mode:?}:\n{}",
                out.text
            );
        }
        // A dialog that says nothing of cookies stays where it is, and so does one that
        // holds the page's heading (it wraps the content).
        let doc = parse(
            "<body><div role=dialog id=a>Sign in to continue</div>\
             <div aria-modal=true id=b><h1>Cookies we bake</h1>Butter, sugar</div>\
             <dialog id=c>Accept cookies?</dialog></body>",
        );
        prepare(&doc);
        assert!(doc.select("#a").exists());
        assert!(doc.select("#b").exists());
        assert!(!doc.select("#c").exists());
    }

    #[test]
    fn a_pick_in_the_page_footer_gives_way_to_the_body() {
        let texts = "Sign up for texts and get special offers, product news, exclusive deals, \
                     and more. By submitting this form, you agree to receive recurring \
                     automated promotional and personalized marketing text messages from the \
                     shop at the number used when signing up. Consent is not a condition of \
                     any purchase. Reply HELP for help and STOP to cancel.";
        let page = |footer: &str| {
            format!(
                "<html><head><title>Not found</title></head><body>\
                 <nav><a href=/>Home</a> <a href=/brands>Brands</a></nav>\
                 <main><h1>404 Page Not Found</h1><p>The page you requested is either \
                 temporarily unavailable or no longer exists.</p><h2>Try one of these</h2>\
                 <ul><li>Check your spelling and try again</li><li><a href=/brands>Shop by \
                 brand</a></li></ul></main>{footer}</body></html>"
            )
        };
        for mode in [ExtractMode::Text, ExtractMode::Markdown] {
            // In a page footer, the pick gives way: the notice is the page.
            let html = page(&format!(
                "<footer><div class=signup><p>{texts}</p></div></footer>"
            ));
            let out = extract(&html, BodyKind::Html, mode, None).text;
            assert!(out.contains("no longer exists"), "{mode:?}:\n{out}");
            assert!(!out.contains("Sign up for texts"), "{mode:?}:\n{out}");
            // The same paragraph in a block of the page stays the pick.
            let html = page(&format!("<div class=signup><p>{texts}</p></div>"));
            let out = extract(&html, BodyKind::Html, mode, None).text;
            assert!(out.contains("Sign up for texts"), "{mode:?}:\n{out}");
        }
        // A pick that only begins in a footer (the footer before the content, in a wider
        // block) is not in it.
        let doc = parse("<body><footer id=f><p>Short footer line</p></footer><p id=p>x</p></body>");
        let text = doc.select("#f p").nodes()[0].first_child().unwrap();
        let block = render::stripped_block(&text).unwrap();
        assert_eq!(block.attr("id").as_deref(), Some("f"));
        let p = doc.select("#p").nodes()[0].first_child().unwrap();
        assert!(render::stripped_block(&p).is_none());
    }

    #[test]
    fn inline_runs_merge_before_writing() {
        let html = "<p>Say <b>he</b><strong>llo</strong><b class=\"x\">!</b> <i>a</i><em>b</em> \
                    <code>x</code><code>y</code><a href=\"/1\">1</a><a href=\"/2\">2</a></p>";
        // The preparation's merge (for crowded parents) and the writer's own agree.
        let direct = html_to_markdown(&Document::from(html).select("body"));
        let doc = Document::from(html);
        for p in doc.select("p").nodes() {
            merge_inline_runs(p);
        }
        let merged = html_to_markdown(&doc.select("body"));
        assert_eq!(merged, direct);
        assert_eq!(direct, "Say **hello****!** *ab* `xy`[1](/1)[2](/2)");
        // Many siblings stay linear (htmd, the converter before, was quadratic here).
        let many = format!("<p>{}</p>", "<b>x</b>".repeat(100_000));
        let out = crate::test_support::within_hang_guard(move || {
            extract(&many, BodyKind::Html, ExtractMode::Auto, None)
        });
        assert_eq!(out.text.len(), 100_004);
    }

    #[test]
    fn headings_survive_boilerplate_classes() {
        let para = "<p>Returns true if the option is a Some value, and false otherwise. \
                    This is a long enough paragraph to make a real article body.</p>";
        let html = format!(
            "<html><body><nav><a href=\"/\">Home</a></nav><main><h1>Option</h1>{}\
             <section class=\"method\"><h4 class=\"code-header\">pub fn is_some(&amp;self) -&gt; bool</h4>{}</section>\
             </main></body></html>",
            para.repeat(3),
            para
        );
        let out = extract(&html, BodyKind::Html, ExtractMode::Auto, None);
        assert!(
            out.text.contains("#### pub fn is_some(&self) -> bool"),
            "{}",
            out.text
        );
    }

    #[test]
    fn link_noise_is_dropped() {
        let html = "<article><h2 id=\"s\"><a href=\"#s\">Setup</a><a class=\"headerlink\" href=\"#s\">¶</a></h2>\
                    <p><a href=\"/vote\"><span class=\"icon\"></span></a>Read the \
                    <a href=\"/guide\" title=\"The guide\">guide</a> first.</p></article>";
        let out = extract(
            html,
            BodyKind::Html,
            ExtractMode::Auto,
            Some("https://d.example/"),
        );
        assert_eq!(
            out.text,
            "## Setup\n\nRead the [guide](https://d.example/guide) first."
        );
    }

    #[test]
    fn sniffs_html() {
        assert!(looks_like_html(
            "<!DOCTYPE html><html><body>x</body></html>"
        ));
        assert!(looks_like_html("\u{feff}\n  <HTML lang=\"en\">"));
        assert!(looks_like_html(
            "<?xml version=\"1.0\"?>\n<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0 Strict//EN\">"
        ));
        assert!(looks_like_html("<!-- hi --><head><title>x</title></head>"));
        assert!(looks_like_html("<body>"));
        assert!(!looks_like_html("{\"html\": \"<html><body>\"}"));
        assert!(!looks_like_html("plain text mentioning <html> tags"));
        assert!(!looks_like_html("<htmlfoo>"));
        assert!(!looks_like_html(""));
    }

    #[test]
    fn odd_input_never_panics() {
        let mut inputs: Vec<String> = vec![
            String::new(),
            "<".into(),
            "<<<>>>".into(),
            "<pre>".into(),
            "<pre><code class=\"language-\">x".into(),
            "<table><tr><td><table><th>x</table>".into(),
            "<a href=\"javascript:alert(1)\">x</a><img src=\"data:image/png;base64,AAAA\" alt=\"pic\">".into(),
            "<svg><title>s</title></svg><math><mi>x</mi></math>".into(),
            "\u{0}\u{feff}<html>\u{202e}</html>".into(),
            "<ol start=\"-9223372036854775808\"><li>a</li><li>b</li></ol>".into(),
            "<ol start=\"9223372036854775807\"><li>a</li><li>b</li></ol>".into(),
        ];
        for (open, close) in [
            ("<div>", "</div>"),
            ("<ul><li>", "</li></ul>"),
            ("<ol><li>", "</li></ol>"),
            ("<table><tr><td>", "</td></tr></table>"),
            ("<blockquote>", "</blockquote>"),
            ("<b><i>", "</i></b>"),
            ("<a href=\"/x\">", "</a>"),
            ("<span>", "</span>"),
            ("<section><h2>h</h2><p>", "</p></section>"),
        ] {
            inputs.push(format!(
                "<html><body>{}deep text{}</body></html>",
                open.repeat(1000),
                close.repeat(1000)
            ));
        }
        inputs.push(format!("<p>{}</p>", "é".repeat(10_000)));
        for input in &inputs {
            for mode in [ExtractMode::Auto, ExtractMode::Text, ExtractMode::Raw] {
                let _ = extract(input, BodyKind::Html, mode, Some("not a url"));
                let _ = extract(input, BodyKind::Json, mode, None);
            }
        }
    }

    #[test]
    fn nesting_cap_keeps_text_and_shallow_markup() {
        let shallow = "<div><p>a<br>b</p><ul><li>x<li>y</ul><script>if (a<b) {}</script></div>";
        assert!(matches!(
            cap_nesting(shallow, 3),
            std::borrow::Cow::Borrowed(_)
        ));
        let deep = format!(
            "<div title='a>b'>{}t&amp;u<!-- <div> -->{}</div>",
            "<div>".repeat(5),
            "</div>".repeat(5)
        );
        let capped = cap_nesting(&deep, 3);
        assert_eq!(
            capped,
            "<div title='a>b'><div><div>t&amp;u<!-- <div> --></div></div></div>"
        );
        // A quote inside an unquoted value does not open a quoted string.
        assert_eq!(
            cap_nesting("<p class=it's><div><div><DIV><div>x", 2),
            "<p class=it's><div><div>x"
        );
        // Raw text is skipped whatever its letter case.
        assert_eq!(
            cap_nesting("<div><SCRIPT>'<div><div>'</script><div>y", 2),
            "<div><SCRIPT>'<div><div>'</script><div>y"
        );
        // Parsing hostile nesting stays fast (quadratic in html5ever without the cap).
        let hostile = format!("<body>{}x", "<div><span>".repeat(100_000));
        let out = crate::test_support::within_hang_guard(move || {
            extract(&hostile, BodyKind::Html, ExtractMode::Auto, None)
        });
        assert_eq!(out.text, "x");
    }

    #[test]
    fn base_url_validation() {
        assert!(absolute_http_url("https://a.example/x").is_some());
        assert!(absolute_http_url("ftp://a.example/x").is_none());
        assert!(absolute_http_url("/relative").is_none());
    }

    #[test]
    fn inline_images_keep_alt_only() {
        let html = "<p>Look: <img src=\"data:image/png;base64,AAAA\" alt=\"a chart\"> and \
                    <img src=\"/p.png\" alt=\"photo\"> <a href=\"javascript:void(0)\">menu</a></p>";
        let out = extract(
            html,
            BodyKind::Html,
            ExtractMode::Auto,
            Some("https://x.example/"),
        );
        assert_eq!(
            out.text,
            "Look: a chart and ![photo](https://x.example/p.png) menu"
        );
    }

    #[test]
    fn mode_names() {
        assert_eq!(ExtractMode::default(), ExtractMode::Auto);
        assert_eq!(ExtractMode::Text.to_string(), "text");
        let parsed: ExtractMode = serde_json::from_str("\"markdown\"").unwrap_or_default();
        assert_eq!(parsed, ExtractMode::Markdown);
    }
}

mod unseen {
    use super::*;

    fn md(html: &str) -> String {
        extract(html, BodyKind::Html, ExtractMode::Auto, None).text
    }

    const PROSE: &str = "The river rose overnight and the ferry stayed in port until noon, \
                         when the harbour master judged the current safe again.";

    #[test]
    fn hidden_elements_are_not_content() {
        let jschl = "+((!+[]+(!![])+!![]+!![]+[])+(+!![]))/+((!+[]+!![]+[])+(!+[]+!![]))";
        for hidden in [
            "<div hidden>SECRET-A</div>",
            "<div aria-hidden=\"true\">SECRET-A</div>",
            "<div style=\"color:red; DISPLAY : none !important\">SECRET-A</div>",
            "<span style=\"visibility:hidden\">SECRET-A</span>",
            "<template><p>SECRET-A</p></template>",
        ] {
            let html = format!("<html><body><p>{PROSE}</p>{hidden}<p>{PROSE}</p></body></html>");
            let text = md(&html);
            assert!(!text.contains("SECRET-A"), "{hidden}: {text}");
            assert!(text.contains("harbour master"), "{hidden}: {text}");
            let seen = visible_text(&html);
            assert!(!seen.contains("SECRET-A"), "{hidden}: {seen}");
        }
        let html = format!(
            "<html><body><p>{PROSE}</p><div style=\"display:none\">{}</div></body></html>",
            jschl.repeat(40)
        );
        assert!(!md(&html).contains("!!"), "{}", md(&html));
    }

    #[test]
    fn a_large_hidden_article_is_kept() {
        // Pages that hide their article until a script has run show it to every reader
        // with JavaScript.
        let html = format!(
            "<html><body><div id=\"content\" style=\"display:none\"><p>{}</p></div></body></html>",
            PROSE.repeat(20)
        );
        assert!(md(&html).contains("harbour master"));
    }

    #[test]
    fn a_streamed_hidden_segment_is_selected_like_visible_content() {
        // React streams a server-rendered page as `<div hidden id="S:0">` segments that its
        // script moves into place at once: shown, so readability (which skips hidden
        // elements) weighs it. Other hidden page data in a script is no text.
        let data = format!(
            "<script>self.__next_f.push([1,\"{}\"])</script>",
            "word ".repeat(20_000)
        );
        let html = format!(
            "<html><body><div class=\"promo\"><p>{}</p></div>\
             <template id=\"B:0\"></template>\
             <div hidden id=\"S:0\">{data}<article><h2>Harbour</h2><p>{}</p></article></div></body></html>",
            "Sign up for our weekly letter of deals and news from the shop. ".repeat(12),
            PROSE.repeat(20)
        );
        let out = extract(&html, BodyKind::Html, ExtractMode::Text, None);
        assert!(out.text.contains("harbour master"), "{}", out.text);
        assert!(!out.hidden_content);
        // Any other hidden element is hidden (kept for its text, and marked so).
        let other = html.replace("id=\"S:0\"", "id=\"later\"");
        assert!(extract(&other, BodyKind::Html, ExtractMode::Text, None).hidden_content);
        // Hidden page data alone is nothing a reader is shown.
        let html = format!("<html><body><p>{PROSE}</p><div hidden>{data}</div></body></html>");
        assert!(!extract(&html, BodyKind::Html, ExtractMode::Text, None).hidden_content);
    }

    #[test]
    fn the_main_content_behind_a_modal_dialog_is_shown() {
        // eBay's item page marks `<main>` `aria-hidden` while its consent dialog is open:
        // the inert background of a modal, which a person sees. It is content, and the
        // judge's measure of the page holds it, so the page is no consent wall.
        let dialog = "<div role=\"dialog\" aria-modal=\"true\"><p>We use cookies to improve \
                      your experience. Accept all cookies or manage your choices.</p>\
                      <button>Accept all</button></div>";
        let page = |main: &str| {
            format!(
                "<html><body>{dialog}<main {main}><h1>Clutch kit</h1><p>{}</p></main></body></html>",
                PROSE.repeat(20)
            )
        };
        for main in [
            "aria-hidden=\"true\"",
            "role=\"presentation\" aria-hidden=\"true\"",
        ] {
            let html = page(main);
            let out = extract(&html, BodyKind::Html, ExtractMode::Text, None);
            assert!(out.text.contains("harbour master"), "{main}: {}", out.text);
            assert!(!out.hidden_content, "{main}");
            assert!(visible_text(&html).contains("harbour master"), "{main}");
        }
        let role_main = format!(
            "<html><body>{dialog}<div role=\"main\" aria-hidden=\"true\"><p>{}</p></div></body></html>",
            PROSE.repeat(20)
        );
        assert!(visible_text(&role_main).contains("harbour master"));
        // Hidden from everyone, it stays hidden: kept for its text, and marked so.
        for main in [
            "hidden aria-hidden=\"true\"",
            "aria-hidden=\"true\" style=\"display:none\"",
            "aria-hidden=\"true\" inert",
        ] {
            let html = page(main);
            assert!(!visible_text(&html).contains("harbour master"), "{main}");
        }
        // Any other block under `aria-hidden` is not shown.
        let aside = page("").replace("<main >", "<main><div aria-hidden=\"true\">");
        let aside = aside.replace("</main>", "</div></main>");
        assert!(!visible_text(&aside).contains("harbour master"), "{aside}");
    }

    #[test]
    fn symbol_runs_are_text_the_page_shows() {
        // Regression (issue 23): runs of 80+ non-space characters outside code were cut
        // from the text. Whatever a person sees stays, in prose and in code; the judge
        // discounts such runs when it measures the page, it never deletes them.
        let run = "+((!+[]+(!![])+!![]+[])+(+!![]))".repeat(5);
        let base64 =
            "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ejAxMjM0NTY3ODk=";
        let url = "https://downloads.example.org/releases/2026/11/project-name/artifacts/\
                   linux-x86_64/project-name-1.2.3-linux-x86_64.tar.gz";
        let html = format!(
            "<html><body><p>{PROSE}</p><p>{run}</p><p>Blob: {base64}</p>\
             <p>The download lives at {url} and its checksum is below.</p>\
             <pre><code>{run}</code></pre><p>Inline <code>{run}</code> code.</p><p>{PROSE}</p></body></html>"
        );
        let plain = extract(&html, BodyKind::Html, ExtractMode::Text, None).text;
        assert_eq!(plain.matches(&run).count(), 3, "{plain}");
        assert!(plain.contains(&format!("Blob: {base64}")), "{plain}");
        assert!(
            plain.contains(&format!("The download lives at {url} and its checksum")),
            "{plain}"
        );
        let text = md(&html);
        assert!(text.contains(base64), "{text}");
        assert!(
            text.contains(&url.replace('_', "\\_")) || text.contains(url),
            "{text}"
        );
    }

    #[test]
    fn nested_hidden_elements_cost_linear_time() {
        // 200 nested hidden containers around 2 MB of text: each is measured on a
        // bounded sample, not on all the text below it.
        let depth = 200;
        let html = format!(
            "<html><body>{}<p>{}</p>{}</body></html>",
            "<div style=\"display:none\">".repeat(depth),
            PROSE.repeat(2 * 1024 * 1024 / PROSE.len()),
            "</div>".repeat(depth)
        );
        // Kept as content (a large hidden block), and left out of what a person sees.
        let (seen, hidden_content) =
            crate::test_support::within_hang_guard(move || page_view(&html).unwrap_or_default());
        assert!(hidden_content);
        assert!(!seen.contains("harbour master"));
    }

    #[test]
    fn the_judges_measure_comes_from_the_extraction_parse_when_text_is_short() {
        let r = Redactor::new();
        let html = format!(
            "<html><head><title>T</title><script>var x=1;</script></head><body>\
             <div class=\"cookie-banner\">We use cookies.</div><nav>Menu</nav>\
             <p>{PROSE}</p><div hidden>SECRET-A</div></body></html>"
        );
        for mode in [ExtractMode::Auto, ExtractMode::Text] {
            let out = extract_redacted(&html, BodyKind::Html, mode, None, &r);
            // Exactly what a separate parse measures: banners and navigation included.
            assert_eq!(out.visible, Some(visible_text(&html)), "{mode}");
            assert!(out.visible.is_some_and(|v| v.contains("We use cookies")));
        }
        // Long text: the judge does not need the measure, so it is not taken.
        let long = format!("<html><body><p>{}</p></body></html>", PROSE.repeat(80));
        let out = extract_redacted(&long, BodyKind::Html, ExtractMode::Auto, None, &r);
        assert_eq!(out.visible, None);
        // Only the lookup's path takes it.
        assert_eq!(
            extract(&html, BodyKind::Html, ExtractMode::Auto, None).visible,
            None
        );
    }

    #[test]
    fn visible_text_keeps_noscript_and_drops_head_and_scripts() {
        let html = "<html><head><title>T</title><style>p{color:red}</style></head><body>\
                    <noscript>Please enable JavaScript.</noscript><script>var x=1;</script>\
                    <p>Shown.</p></body></html>";
        let seen = visible_text(html);
        assert_eq!(seen, "Please enable JavaScript.\nShown.");
    }
}

/// A `<video>`'s or `<audio>`'s content is the fallback that a browser playing it never
/// shows: broken `<source src=x> type="video/mp4">` markup put `type="video/mp4">` into
/// the text of a product page (parallels.com, one of trafilatura's evaluation pages).
#[test]
fn video_and_audio_fallback_is_not_text() {
    let prose = "The desktop app runs the other system side by side with this one. ".repeat(6);
    let html = format!(
        "<html><body><article><h1>Run it on a Mac</h1><p>{prose}</p>\
         <video autoplay><source src=a.m4v> type=\"video/mp4\"><source src=a.ogv> type=\"video/ogg\"></video>\
         <audio controls>Your browser cannot play this clip.</audio><p>{prose}</p></article></body></html>"
    );
    for mode in [ExtractMode::Text, ExtractMode::Markdown] {
        let out = extract(&html, BodyKind::Html, mode, None).text;
        assert!(out.contains("side by side"), "{out}");
        for junk in ["video/mp4", "video/ogg", "cannot play"] {
            assert!(!out.contains(junk), "{mode:?} kept {junk:?}: {out}");
        }
    }
    // The whole-body fallback too.
    let short = "<html><body><p>Short.</p><video><source src=a.m4v> type=\"video/mp4\"></video></body></html>";
    let out = extract(short, BodyKind::Html, ExtractMode::Text, None).text;
    assert!(!out.contains("video/mp4"), "{out}");
}
