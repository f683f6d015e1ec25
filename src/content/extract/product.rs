//! Product pages (issue 27): a shop's page keeps the product's name, price, description,
//! specs and reviews in many sibling blocks (a gallery, a buy box, an accordion of details,
//! a reviews widget). Readability scores containers one by one and picks one of them:
//! the reviews, the specs table, or a list of other products. On 100 product pages of
//! 2025-2026 whose text people checked, its pick held 42% of the reference text, and the
//! whole body without its boilerplate held 59%.
//!
//! A page says it is a product in one of three standard ways, read while it is prepared:
//! schema.org JSON-LD (`"@type": "Product"`, also inside `@graph` or a type list),
//! schema.org microdata (`itemtype=".../Product"`), or Open Graph (`og:type` `product`).
//! A shop that uses none of them (Amazon) still has one form that adds the product to the
//! cart (see [`is_cart_form`]); a category page has one per product.
//! On such a page, when readability's pick holds less than [`PRODUCT_SHARE`] percent of
//! the visible characters of the body without its boilerplate, the body is written
//! instead (see `crate::content::extract`). Whole blocks only; no word is cut (DESIGN §12).
//!
//! A shop may keep the description in a drawer that opens over the page: an `<aside>` in a
//! non-modal `role="dialog"` (Gymshark's "Description" sheet), which are never content
//! elsewhere. When the page's JSON-LD declares the product's `description` and a text of
//! it stands in such a block, that block is written like any other (see
//! [`unhide_description`]): the page itself says the text is the product's.

use dom_query::{local_name, Document, NodeRef};
use serde_json::Value;

use super::kinds::text_chars;
use super::tabs::anchor_text;
use crate::content::boilerplate::{for_each_word, MARK};
use crate::content::find::{is_any, is_json_ld};
use crate::content::tidy::{collapse_whitespace, visible_chars};

/// The attribute that marks the `<body>` the extraction writes for a product page.
pub(crate) const PRODUCT_MARK: &str = "data-vetch-product";

/// The reviews block of a product page that holds readability's pick, found by `anchor`
/// (the pick's first text of some length, whitespace collapsed): the outermost element
/// below the `<body>` among those around that text that are reviews (see [`is_reviews`]);
/// `None` when the text lies in no reviews block, or when the pick (of `picked` visible
/// characters) is larger than the block by more than a tenth (a pick that holds the
/// reviews and more, whose first text is a review). Readability often picks a product's
/// reviews, which are not the product: the body without them is written instead (see
/// `crate::content::extract`).
pub(crate) fn reviews_holding<'a>(
    doc: &'a Document,
    anchor: &str,
    picked: usize,
) -> Option<NodeRef<'a>> {
    let text = anchor_text(doc, anchor)?;
    let reviews = text
        .ancestors_it(None)
        .take_while(|a| !a.has_name("body"))
        .filter(is_reviews)
        .last()?;
    let holds_pick = picked.saturating_mul(100) <= text_chars(&reviews).saturating_mul(110);
    holds_pick.then_some(reviews)
}

/// Whether `node` is a block of reviews or a review: a word of its `class` or `id` is
/// `review` or `reviews` (`product-reviews`, `ReviewList`), or it is a microdata review
/// (`itemprop="review"`, `itemtype=".../Review"`).
fn is_reviews(node: &NodeRef) -> bool {
    let named = ["class", "id"].into_iter().any(|name| {
        node.attr(name).is_some_and(|value| {
            let mut found = false;
            for_each_word(&value, |w| found |= matches!(w, "review" | "reviews"));
            found
        })
    });
    named
        || node
            .attr("itemprop")
            .is_some_and(|p| p.split_ascii_whitespace().any(|p| p == "review"))
        || node.attr("itemtype").is_some_and(|t| {
            t.split_ascii_whitespace()
                .any(|t| schema_type(t) == "Review")
        })
}

/// Readability's pick stands on a product page when it holds this share (in percent) of
/// the visible characters of the body without its boilerplate.
pub const PRODUCT_SHARE: usize = 70;

/// The schema.org types of a product (a type's last path segment, as JSON-LD and
/// microdata name it).
const PRODUCT_TYPES: &[&str] = &[
    "Product",
    "ProductGroup",
    "ProductModel",
    "IndividualProduct",
];

/// Whether a schema.org type name or IRI (`Product`, `schema:Product`,
/// `https://schema.org/Product`) is a product type.
pub(crate) fn names_product_type(value: &str) -> bool {
    PRODUCT_TYPES.contains(&schema_type(value))
}

/// A schema.org type's name: the last segment of its IRI (`schema:Product`,
/// `https://schema.org/Product` and `Product` all name `Product`).
pub(crate) fn schema_type(value: &str) -> &str {
    value
        .trim()
        .rsplit(['/', ':', '#'])
        .next()
        .unwrap_or_default()
}

/// Whether a microdata `itemtype` (one or more IRIs, space-separated) names a product.
pub(crate) fn itemtype_names_product(itemtype: &str) -> bool {
    itemtype.split_ascii_whitespace().any(names_product_type)
}

/// What a page's Open Graph `og:type` says it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum PageType {
    /// No `og:type`.
    #[default]
    Unnamed,
    /// `product`, `og:product`, `product.item`, `product.group`.
    Product,
    /// `article` (a blog post, a news story): a shop's magazine names the products it
    /// recommends beside the article in microdata.
    Article,
    Other,
}

impl PageType {
    pub(crate) fn of_og_type(content: &str) -> Self {
        let content = content.trim().to_ascii_lowercase();
        let content = content.strip_prefix("og:").unwrap_or(&content);
        if content == "product" || content.starts_with("product.") {
            Self::Product
        } else if content == "article" {
            Self::Article
        } else {
            Self::Other
        }
    }
}

/// Whether a page is a product's: its `og:type` or its JSON-LD (`json_ld`, asked last: it
/// parses the page's JSON-LD) says so, or one of its elements is a microdata product and
/// the page does not call itself an article (a shop's magazine recommends products
/// beside its articles; some shops call their product pages articles too, but they name
/// the product in JSON-LD).
pub(crate) fn is_product_page(
    og_type: PageType,
    product_items: usize,
    cart_forms: usize,
    json_ld: impl FnOnce() -> bool,
) -> bool {
    og_type == PageType::Product
        || ((product_items > 0 || cart_forms == 1) && og_type != PageType::Article)
        || json_ld()
}

/// Whether `node` is a form that puts a product in the cart: its `id`, `class` or `action`
/// says "add to cart" (`addToCart`, `product_addtocart_form`, `/cart/add`), whatever the
/// case and the `-` or `_` between the words.
pub(crate) fn is_cart_form(node: &NodeRef) -> bool {
    node.has_name("form")
        && ["id", "class", "action"].into_iter().any(|name| {
            node.attr(name).is_some_and(|value| {
                let squeezed: String = value
                    .chars()
                    .filter(|c| !matches!(c, '-' | '_'))
                    .map(|c| c.to_ascii_lowercase())
                    .collect();
                squeezed.contains("addtocart") || squeezed.contains("cart/add")
            })
        })
}

/// How deep [`json_ld_names_product`] looks into nested objects and arrays: a product is
/// at the top, in a list, in `@graph`, or one level under those (`mainEntity`).
const JSON_LD_DEPTH: usize = 4;

/// Whether a JSON-LD document names a product as the type of one of its items. Text that
/// is not JSON names nothing.
pub(crate) fn json_ld_names_product(text: &str) -> bool {
    serde_json::from_str::<Value>(text).is_ok_and(|v| value_names_product(&v, JSON_LD_DEPTH))
}

/// Whether a JSON-LD item's `@type` (one name or a list) names a product.
fn is_typed_product(map: &serde_json::Map<String, Value>) -> bool {
    match map.get("@type") {
        Some(Value::String(t)) => names_product_type(t),
        Some(Value::Array(ts)) => ts
            .iter()
            .any(|t| t.as_str().is_some_and(names_product_type)),
        _ => false,
    }
}

fn value_names_product(value: &Value, depth: usize) -> bool {
    match value {
        Value::Array(items) => depth > 0 && items.iter().any(|v| value_names_product(v, depth - 1)),
        Value::Object(map) => {
            let typed = is_typed_product(map);
            typed
                || (depth > 0
                    && ["@graph", "mainEntity"]
                        .iter()
                        .filter_map(|k| map.get(*k))
                        .any(|v| value_names_product(v, depth - 1)))
        }
        _ => false,
    }
}

/// The description a product page declares in its JSON-LD (the `description` of its first
/// product item, found as [`json_ld_names_product`] finds the type), whitespace collapsed;
/// `None` without one of at least [`DESCRIBED_CHARS`] visible characters.
pub(crate) fn declared_description(doc: &Document) -> Option<String> {
    doc.root()
        .descendants_it()
        .filter(is_json_ld)
        .find_map(|script| {
            let value = serde_json::from_str::<Value>(&script.text()).ok()?;
            product_description(&value, JSON_LD_DEPTH)
        })
        .map(|d| collapse_whitespace(&d))
        .filter(|d| visible_chars(d) >= DESCRIBED_CHARS)
}

/// The shortest text of the page, and of its declared description, that
/// [`unhide_description`] takes for the description: a sentence, not a label.
pub(crate) const DESCRIBED_CHARS: usize = 40;

fn product_description(value: &Value, depth: usize) -> Option<String> {
    match value {
        Value::Array(items) if depth > 0 => {
            items.iter().find_map(|v| product_description(v, depth - 1))
        }
        Value::Object(map) => {
            let typed = is_typed_product(map);
            let own = map
                .get("description")
                .and_then(Value::as_str)
                .filter(|_| typed)
                .map(str::to_owned);
            own.or_else(|| {
                (depth > 0)
                    .then(|| {
                        ["@graph", "mainEntity"]
                            .iter()
                            .filter_map(|k| map.get(*k))
                            .find_map(|v| product_description(v, depth - 1))
                    })
                    .flatten()
            })
        }
        _ => None,
    }
}

/// Whether `node` is the page's navigation, header or footer, by tag or ARIA role.
fn is_page_chrome(node: &NodeRef) -> bool {
    is_any(
        node,
        &[
            local_name!("nav"),
            local_name!("header"),
            local_name!("footer"),
        ],
    ) || node.attr("role").is_some_and(|r| {
        matches!(
            r.trim(),
            "navigation" | "banner" | "contentinfo" | "menu" | "menubar" | "search"
        )
    })
}

/// Make the blocks around a product's declared `description` (see
/// [`declared_description`]) ordinary blocks, so that the body's writer keeps them: the
/// first text of the page's body of [`DESCRIBED_CHARS`] visible characters or more that
/// the description holds (whitespace collapsed), and each of its ancestors below the
/// `<body>` that `never_content` says is never content (a sidebar, a dialog, a block
/// the boilerplate pass marked) becomes a `<div>` without the `role`, `class` and `id`
/// that named it so. Returns how many blocks changed; nothing changes when no text of the
/// body is in the description, or when that text is in the page's navigation, header or
/// footer.
pub(crate) fn unhide_description(
    doc: &Document,
    description: &str,
    never_content: impl Fn(&NodeRef) -> bool,
) -> usize {
    let skipped = [
        local_name!("script"),
        local_name!("style"),
        local_name!("template"),
    ];
    let Some(text) = doc.root().descendants_it().find(|d| {
        d.is_text() && !d.parent().is_some_and(|p| is_any(&p, &skipped)) && {
            let text = collapse_whitespace(&d.text());
            visible_chars(&text) >= DESCRIBED_CHARS && description.contains(&text)
        }
    }) else {
        return 0;
    };
    // Collected first: the iterator borrows the tree, which renaming changes.
    let blocks: Vec<NodeRef> = text
        .ancestors_it(None)
        .take_while(|a| !is_any(a, &[local_name!("body"), local_name!("html")]))
        .collect();
    // A sentence of the description repeated in the page's navigation, header or footer
    // (a promise of free returns) is not where the description is.
    if blocks.iter().any(is_page_chrome) {
        return 0;
    }
    let mut changed = 0;
    for block in blocks {
        if never_content(&block) {
            block.rename("div");
            block.remove_attrs(&["role", "class", "id", "aria-modal", MARK]);
            changed += 1;
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The blocks around the description's first text that the judge calls hidden become
    /// plain `<div>`s; a text in the page's navigation, header or footer changes nothing,
    /// and neither does a description that no text of the page is in.
    #[test]
    fn the_blocks_around_a_declared_description_are_unhidden() {
        let description = "Brushed aluminium, forty hours on one charge, and a hook for the tent.";
        let aside =
            |n: &NodeRef| n.has_name("aside") || n.attr("role").is_some_and(|r| &*r == "dialog");
        let page = |wrap: &str| {
            let (open, close) = wrap.split_once('|').unwrap_or_default();
            Document::from(
                format!(
                    "<html><body><main><p>Lantern 2</p></main>{open}<div class=inner>\
                     <p>{description}</p></div>{close}</body></html>"
                )
                .as_str(),
            )
        };
        let doc = page(
            r#"<div role=dialog class=sheet aria-modal=false><aside class=drawer id=d>|</aside></div>"#,
        );
        assert_eq!(unhide_description(&doc, description, aside), 2);
        assert!(doc.select("aside, [role], .sheet, #d").is_empty());
        assert_eq!(doc.select("div.inner").length(), 1);
        for wrap in [
            "<footer>|</footer>",
            "<div role=navigation><aside>|</aside></div>",
        ] {
            let doc = page(wrap);
            assert_eq!(unhide_description(&doc, description, aside), 0, "{wrap}");
        }
        let doc = page("<aside>|</aside>");
        assert_eq!(
            unhide_description(
                &doc,
                "Another lantern, of another shop, and another page.",
                aside
            ),
            0
        );
        assert_eq!(doc.select("aside").length(), 1);
    }

    /// The product's own description, found where a product's type is (at the top, in a
    /// list, in `@graph`, under `mainEntity`), whitespace collapsed; none of another item,
    /// a short one, or text that is not JSON.
    #[test]
    fn the_description_a_page_declares_for_its_product() {
        let long = "A folding lantern of brushed aluminium,\\n  forty hours on one charge.";
        let want = "A folding lantern of brushed aluminium, forty hours on one charge.";
        let page = |json: &str| {
            Document::from(format!(
                r#"<html><head><script type="application/ld+json">{json}</script></head><body></body></html>"#
            ).as_str())
        };
        for json in [
            format!(r#"{{"@type":"Product","description":"{long}"}}"#),
            format!(
                r#"[{{"@type":"BreadcrumbList"}},{{"@type":["Thing","Product"],"description":"{long}"}}]"#
            ),
            format!(
                r#"{{"@graph":[{{"@type":"WebSite","description":"A shop of lanterns and lamps for camping."}},{{"@type":"schema:Product","description":"{long}"}}]}}"#
            ),
            format!(
                r#"{{"@type":"ItemPage","mainEntity":{{"@type":"ProductGroup","description":"{long}"}}}}"#
            ),
        ] {
            assert_eq!(
                declared_description(&page(&json)).as_deref(),
                Some(want),
                "{json}"
            );
        }
        for json in [
            format!(r#"{{"@type":"Article","description":"{long}"}}"#),
            r#"{"@type":"Product","description":"A lantern."}"#.to_owned(),
            format!(r#"{{"@type":"Product","description":"{long}""#),
        ] {
            assert_eq!(declared_description(&page(&json)), None, "{json}");
        }
    }

    #[test]
    fn reviews_by_name_and_by_microdata() {
        let doc = Document::from(
            "<body><div id=product-reviews-accordion><div class=ReviewList><p>Great pack, \
             comfortable straps.</p></div></div><div class=previews><p>Other packs you may \
             like, in every size.</p></div><div itemprop=review><p>Too small for a weekend \
             away.</p></div></body>",
        );
        let outer = reviews_holding(&doc, "Great pack, comfortable straps.", 10);
        assert_eq!(
            outer.and_then(|r| r.attr("id")).as_deref(),
            Some("product-reviews-accordion")
        );
        assert!(reviews_holding(&doc, "Great pack, comfortable straps.", 100).is_none());
        assert!(reviews_holding(&doc, "Other packs you may like, in every size.", 10).is_none());
        assert!(reviews_holding(&doc, "Too small for a weekend away.", 10).is_some());
    }

    #[test]
    fn a_product_is_named_by_json_ld_microdata_or_open_graph() {
        assert!(json_ld_names_product(
            r#"{"@context":"https://schema.org","@type":"Product","name":"Tee"}"#
        ));
        assert!(json_ld_names_product(
            r#"[{"@type":"BreadcrumbList"},{"@type":["Product","Thing"]}]"#
        ));
        assert!(json_ld_names_product(
            r#"{"@graph":[{"@type":"WebPage"},{"@type":"ProductGroup"}]}"#
        ));
        assert!(json_ld_names_product(
            r#"{"@type":"WebPage","mainEntity":{"@type":"schema:Product"}}"#
        ));
        // An article that mentions a product, a review of one, and text that is not JSON.
        assert!(!json_ld_names_product(
            r#"{"@type":"NewsArticle","about":{"@type":"Product"}}"#
        ));
        assert!(!json_ld_names_product(
            r#"{"@type":"Review","itemReviewed":{"@type":"Product"}}"#
        ));
        assert!(!json_ld_names_product(r#"{"@type": "Product""#));
        assert!(!json_ld_names_product("Product"));
        // Too deep to be the page's own item.
        assert!(!json_ld_names_product(r#"[[[[[{"@type":"Product"}]]]]]"#));

        assert!(itemtype_names_product("http://schema.org/Product"));
        assert!(itemtype_names_product(
            " https://schema.org/Thing https://schema.org/Product "
        ));
        assert!(!itemtype_names_product(
            "https://schema.org/ProductCollection"
        ));
        assert!(!itemtype_names_product("https://schema.org/Article"));

        assert_eq!(PageType::of_og_type("product"), PageType::Product);
        assert_eq!(PageType::of_og_type(" og:product "), PageType::Product);
        assert_eq!(PageType::of_og_type("Product.Item"), PageType::Product);
        assert_eq!(PageType::of_og_type("article"), PageType::Article);
        assert_eq!(PageType::of_og_type("products-blog"), PageType::Other);
    }

    #[test]
    fn a_page_is_a_product_by_its_own_word_not_by_a_box_of_recommendations() {
        let yes = || true;
        let no = || false;
        assert!(is_product_page(PageType::Product, 0, 0, no));
        assert!(is_product_page(PageType::Unnamed, 0, 0, yes));
        assert!(is_product_page(PageType::Article, 0, 0, yes));
        assert!(is_product_page(PageType::Other, 1, 0, no));
        assert!(is_product_page(PageType::Unnamed, 3, 0, no));
        // An article with products recommended beside it.
        assert!(!is_product_page(PageType::Article, 2, 0, no));
        assert!(!is_product_page(PageType::Unnamed, 0, 0, no));
        // One form that adds the product to the cart; not many (a category), not on an
        // article.
        assert!(is_product_page(PageType::Unnamed, 0, 1, no));
        assert!(!is_product_page(PageType::Unnamed, 0, 2, no));
        assert!(!is_product_page(PageType::Article, 0, 1, no));
    }

    #[test]
    fn a_cart_form_says_add_to_cart_in_its_id_class_or_action() {
        let doc = Document::from(
            r#"<form id=a1 action="/gp/product/handle-buy-box" id="addToCart"></form>
               <form id=a2 class="product_addtocart_form"></form>
               <form id=a3 action="https://shop.example/cart/add"></form>
               <form id=a4 action="/Add-To-Cart"></form>
               <form id=n1 action="/search"></form>
               <form id=n2 class="cart"></form>
               <div id=n3 class="add-to-cart"></div>"#,
        );
        for (id, want) in [
            ("a1", false), // the first `id` wins in HTML: "a1"
            ("a2", true),
            ("a3", true),
            ("a4", true),
            ("n1", false),
            ("n2", false),
            ("n3", false),
        ] {
            let sel = doc.select(&format!("#{id}"));
            let node = sel.nodes().first().expect("the element");
            assert_eq!(is_cart_form(node), want, "{id}");
        }
        let amazon = Document::from(r#"<form id="addToCart" method="post"></form>"#);
        let sel = amazon.select("form");
        assert!(is_cart_form(sel.nodes().first().expect("the form")));
    }
}
