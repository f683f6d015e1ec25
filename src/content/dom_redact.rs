//! Redaction on the parsed page, before any Markdown or text is written.
//!
//! The converters add escapes and markup (`ghp\_…`, `**…**`, `[x](…)`) that can split a
//! token so that a pass over their output no longer recognises it, and a page can split a
//! token itself (`ghp_<b>abc</b>def…`, `ghp&#95;…`). So [`redact_document`] runs the
//! [`Redactor`] over what a reader of the page sees, on the tree itself:
//!
//! - the text of each *inline run* (the text nodes between two block boundaries, across
//!   inline elements such as `<b>`, `<code>` or `<a>`, unknown and custom elements, and
//!   comments), concatenated the way a reader reads it, with entities already decoded by
//!   the parser; a change is mapped back onto the run's text nodes (see `redact_run`);
//! - every attribute value the writers can print ([`PRINTED_ATTRS`]): link targets and
//!   image sources (as URLs), tooltips and alt text (as text).
//!
//! Control characters and terminal escape sequences (and tag and bidi control characters)
//! are removed from the same text first ([`strip_controls`]): the writers drop a bare ESC
//! but keep the rest of its sequence (`[2J`, `]52;c;…`), so it is done here, where the
//! sequence is still whole (entities such as `&#27;` are decoded by then too), and before
//! redaction, so that no removal can join a token after it was judged.
//!
//! What this module must never do: change a page that holds no secret (the redactor keeps
//! benign text byte for byte, and unchanged runs are not written back), recurse (the walk
//! uses an explicit stack, whatever the nesting), or panic (every slice is checked).

use std::borrow::Cow;

use dom_query::{Document, LocalName, NodeData, NodeRef};

use crate::content::find::is_json_ld;
use crate::redact::controls::strip_controls;
use crate::redact::unseen::element_breaks_words;
use crate::redact::{Pieces, Redactor};

/// Attribute values the Markdown writer ([`crate::content::markdown`]) or the text writer can print: `href` and
/// `src` as link and image targets, `title` as a link or image title, `alt` as image text;
/// and `content`, where readability finds a headline (`<meta property="og:title">`) that
/// is printed on top when the body lacks it.
pub const PRINTED_ATTRS: [&str; 5] = ["href", "src", "title", "alt", "content"];

/// Attributes that hold a URL: redacted with [`Redactor::redact_url`], which keeps a URL
/// parseable (the writers and readability resolve them against the page's base).
const URL_ATTRS: &[&str] = &["href", "src"];

/// Elements whose content neither writer prints: skipped. (A JSON-LD `<script>`, where
/// readability may find the headline, is redacted like a block.)
const SKIPPED: &[&str] = &["script", "style", "noscript", "template"];

enum Step<'a> {
    Visit(NodeRef<'a>),
    /// The end of a block: the run so far is complete.
    Boundary,
}

/// Redact every text run and every printable attribute value of `doc` in place.
///
/// The runs are gathered first and looked at once, joined by `\n`: only a run that holds a
/// place where redaction could change it ([`Redactor::change_spans`]) is redacted, whole
/// and alone, as every run was before; a page of prose with nothing to hide costs one
/// search of its text instead of one per paragraph. The printable attribute values are
/// looked at the same way, together ([`redact_attrs`]).
pub fn redact_document(doc: &Document, redactor: &Redactor) {
    let (runs, attrs) = gather_runs(doc);
    redact_attrs(&attrs, redactor);
    redact_runs(&runs, redactor);
}

/// A printable attribute of one element ([`PRINTED_ATTRS`]).
struct Attr<'a> {
    node: NodeRef<'a>,
    name: &'static str,
}

/// The printable attributes of a page, with their values, in the same order, as pieces of
/// one text (copied once, not each into a string of its own).
#[derive(Default)]
struct Attrs<'a> {
    attrs: Vec<Attr<'a>>,
    values: Pieces,
}

/// The inline runs of a page, in document order: one list of text nodes, cut at `ends`
/// (no allocation per run: a page has hundreds).
struct Runs<'a> {
    nodes: Vec<NodeRef<'a>>,
    /// Where each run ends in `nodes` (exclusive); a run is never empty.
    ends: Vec<usize>,
}

impl<'a> Runs<'a> {
    /// Close the run being gathered (an empty one is no run).
    fn end_run(&mut self) {
        if self.nodes.len() > self.ends.last().copied().unwrap_or(0) {
            self.ends.push(self.nodes.len());
        }
    }

    /// The runs, in order.
    fn iter(&self) -> impl Iterator<Item = &[NodeRef<'a>]> + '_ {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts
            .zip(self.ends.iter().copied())
            .map(|(start, end)| self.nodes.get(start..end).unwrap_or(&[]))
    }
}

/// What the walk does with an element of each name: whether its name is [`SKIPPED`], and
/// whether it joins the run (does not [`element_breaks_words`]). Worked out once for each
/// name a page uses: a page has a few dozen names and tens of thousands of elements, and
/// the interned names compare as integers.
#[derive(Default)]
struct NameKinds(rustc_hash::FxHashMap<LocalName, (bool, bool)>);

impl NameKinds {
    fn of(&mut self, name: &LocalName) -> (bool, bool) {
        *self
            .0
            .entry(name.clone())
            .or_insert_with(|| (SKIPPED.contains(&&**name), !element_breaks_words(name)))
    }
}

/// The inline runs of `doc`, in document order, and every printable attribute value.
fn gather_runs(doc: &Document) -> (Runs<'_>, Attrs<'_>) {
    let mut runs = Runs {
        nodes: Vec::new(),
        ends: Vec::new(),
    };
    let mut attrs = Attrs::default();
    let mut kinds = NameKinds::default();
    let mut stack: Vec<Step> = vec![Step::Visit(doc.root())];
    while let Some(step) = stack.pop() {
        let node = match step {
            Step::Boundary => {
                runs.end_run();
                continue;
            }
            Step::Visit(node) => node,
        };
        if node.is_text() {
            runs.nodes.push(node);
            continue;
        }
        if node.is_comment() || node.is_doctype() {
            // Shows nothing, and a reader reads the text on both sides as one.
            continue;
        }
        let (skipped, inline) = match node.qual_name_ref() {
            // Inline and unknown or custom elements (`<b>`, `<wbr>`, `<x-k>`) join the run;
            // blocks, `<br>`, cells, items and form controls end it.
            Some(name) => {
                let (skipped_name, inline) = kinds.of(&name.local);
                (skipped_name && !is_json_ld(&node), inline)
            }
            // The document root and other non-elements: a container.
            None => (false, false),
        };
        if node.is_element() {
            printed_attrs(&node, &mut attrs);
        }
        if skipped {
            continue;
        }
        if !inline {
            // A block (or `<br>`): the run before it ends here, and so does its own.
            runs.end_run();
            stack.push(Step::Boundary);
        }
        let first = stack.len();
        stack.extend(node.children_it(false).map(Step::Visit));
        // Children were pushed in document order; the stack pops the last first.
        stack[first..].reverse();
    }
    runs.end_run();
    (runs, attrs)
}

/// Redact the runs that may change: those overlapping a span [`Redactor::change_spans`]
/// finds in their texts joined by `\n` (every run when it finds none to give).
fn redact_runs(runs: &Runs, redactor: &Redactor) {
    let mut pieces = Pieces::default();
    for run in runs.iter() {
        pieces.push_with(|joined| {
            for node in run {
                // The text node's own contents, copied once (`NodeRef::text` walks and
                // builds).
                node.query(|t| {
                    if let NodeData::Text { contents } = &t.data {
                        joined.push_str(contents);
                    }
                });
            }
        });
    }
    let touched = pieces
        .touched(redactor)
        .unwrap_or_else(|| vec![true; runs.ends.len()]);
    for (run, touched) in runs.iter().zip(touched) {
        if touched {
            redact_run(run, redactor);
        }
    }
}

/// The printable attribute values of `node`, appended to `attrs`: the first attribute of
/// each name, in the order of [`PRINTED_ATTRS`] (as one `attr` call per name finds them).
fn printed_attrs<'a>(node: &NodeRef<'a>, attrs: &mut Attrs<'a>) {
    // One look at the element's attributes: one `attr` per name cost a borrow of the tree
    // and a search of the attributes each, for every link and image of the page.
    node.query(|n| {
        let Some(e) = n.as_element() else {
            return;
        };
        let mut found: [Option<&str>; PRINTED_ATTRS.len()] = Default::default();
        for a in &e.attrs {
            let name: &str = &a.name.local;
            if let Some(i) = PRINTED_ATTRS.iter().position(|p| *p == name) {
                if let Some(slot) = found.get_mut(i).filter(|slot| slot.is_none()) {
                    *slot = Some(&a.value);
                }
            }
        }
        for (name, value) in PRINTED_ATTRS.iter().zip(found) {
            if let Some(value) = value {
                attrs.attrs.push(Attr { node: *node, name });
                attrs.values.push(value);
            }
        }
    });
}

/// Redact the attribute values that may change: a value that overlaps no span
/// [`Redactor::change_spans`] finds in all of them joined by `\n` comes out of
/// [`strip_controls`] and [`Redactor::redact_text`] unchanged, and so out of
/// [`Redactor::redact_url`] unless [`Redactor::url_may_change`] says its structure may
/// hide something. Every value is redacted when no spans are given.
fn redact_attrs(attrs: &Attrs, redactor: &Redactor) {
    let touched = attrs
        .values
        .touched(redactor)
        .unwrap_or_else(|| vec![true; attrs.attrs.len()]);
    for (i, (attr, touched)) in attrs.attrs.iter().zip(touched).enumerate() {
        let Some(value) = attrs.values.get(i) else {
            continue;
        };
        let url = URL_ATTRS.contains(&attr.name);
        if touched || (url && Redactor::url_may_change(value)) {
            redact_attr(attr, value, redactor);
        }
    }
}

/// Redact one attribute's `value` (a URL as a URL) and write a change back.
fn redact_attr(attr: &Attr, value: &str, redactor: &Redactor) {
    let value_clean = strip_controls(value);
    let redacted = if URL_ATTRS.contains(&attr.name) {
        redactor.redact_url(&value_clean)
    } else {
        redactor.redact_text(&value_clean)
    };
    if redacted != value {
        attr.node.set_attr(attr.name, &redacted);
    }
}

/// Redact the text a reader reads across `run` (text nodes in document order, no boundary
/// between them) and write a change back.
///
/// The run's text is concatenated and redacted as one string. When it changed, the part
/// before the first changed byte and the part after the last stay in the nodes that held
/// them (so the inline markup around untouched text survives), and the changed middle goes
/// into the first node that overlaps it; the other nodes overlapping it lose that part.
/// The nodes' texts, concatenated, are then exactly the redacted text.
fn redact_run(run: &[NodeRef], redactor: &Redactor) {
    match run {
        [] => {}
        [only] => {
            let text = only.text();
            if let Cow::Owned(redacted) = clean(redactor, &text) {
                if redacted != *text {
                    only.set_text(redacted);
                }
            }
        }
        _ => {
            let texts: Vec<String> = run.iter().map(|n| n.text().to_string()).collect();
            let joined = texts.concat();
            let Cow::Owned(redacted) = clean(redactor, &joined) else {
                return;
            };
            if redacted == joined {
                return;
            }
            for (node, text) in run.iter().zip(map_back(&texts, &joined, &redacted)) {
                if let Some(text) = text {
                    node.set_text(text);
                }
            }
        }
    }
}

/// `text` without control characters (and tag and bidi characters), then redacted (so
/// that removing them cannot join a token after it was judged); borrowed when that
/// changes nothing.
fn clean<'t>(redactor: &Redactor, text: &'t str) -> Cow<'t, str> {
    match strip_controls(text) {
        Cow::Borrowed(same) => redactor.redact_text_cow(same),
        Cow::Owned(stripped) => Cow::Owned(redactor.redact_text_cow(&stripped).into_owned()),
    }
}

/// The new text of each piece of `original` (which `texts` concatenate to) such that they
/// concatenate to `redacted`; `None` for a piece that keeps its text.
fn map_back(texts: &[String], original: &str, redacted: &str) -> Vec<Option<String>> {
    let (a, b) = (original.as_bytes(), redacted.as_bytes());
    let mut prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    while !original.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let room = a.len().min(b.len()) - prefix;
    let mut suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(room)
        .take_while(|(x, y)| x == y)
        .count();
    while !original.is_char_boundary(a.len() - suffix) {
        suffix -= 1;
    }
    let (old_end, new_end) = (a.len() - suffix, b.len() - suffix);
    let middle = redacted.get(prefix..new_end).unwrap_or("");
    let mut out = Vec::with_capacity(texts.len());
    let mut start = 0usize;
    let mut middle_placed = false;
    for text in texts {
        let end = start + text.len();
        // Untouched: wholly before the change or wholly after it (an empty piece too).
        if end <= prefix || start >= old_end {
            out.push(None);
        } else {
            let mut new = String::new();
            new.push_str(original.get(start..prefix.max(start)).unwrap_or(""));
            if !middle_placed {
                new.push_str(middle);
                middle_placed = true;
            }
            new.push_str(original.get(old_end.min(end)..end).unwrap_or(""));
            out.push(Some(new));
        }
        start = end;
    }
    if !middle_placed && !middle.is_empty() {
        // A pure insertion exactly at a boundary between pieces: the first piece that
        // reaches the insertion point takes it at that point.
        let mut start = 0usize;
        for (text, slot) in texts.iter().zip(out.iter_mut()) {
            let end = start + text.len();
            if end >= prefix {
                let at = prefix - start;
                *slot = Some(format!(
                    "{}{middle}{}",
                    text.get(..at).unwrap_or(""),
                    text.get(at..).unwrap_or("")
                ));
                break;
            }
            start = end;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `printed_attrs` finds what one `attr` call per name finds, in the same order: on
    /// every element of two fixture pages and of a page whose elements repeat a name, carry
    /// the names in another order, in another case, or empty.
    #[test]
    fn printed_attrs_are_what_attr_finds_for_each_name() {
        let mut pages = vec![
            include_str!("../../tests/fixtures/kinds/product-woocommerce.html").to_owned(),
            include_str!("../../tests/fixtures/kinds/forum-discourse.html").to_owned(),
        ];
        pages.push(
            r##"<body><a title="t" href="/a" href="/b" ALT="x">a</a><img alt="" src="s.png">
               <meta content="c" name=n><p data-title="no">p</p><svg><a href="#s">s</a></svg></body>"##
                .to_owned(),
        );
        let mut seen = 0;
        for page in &pages {
            let doc = Document::from(page.as_str());
            for node in doc.root().descendants_it().filter(NodeRef::is_element) {
                let mut ours = Attrs::default();
                printed_attrs(&node, &mut ours);
                let ours: Vec<(&str, String)> = (ours.attrs.iter().enumerate())
                    .map(|(i, a)| (a.name, ours.values.get(i).unwrap_or("?").to_string()))
                    .collect();
                let want: Vec<(&str, String)> = PRINTED_ATTRS
                    .iter()
                    .filter_map(|name| node.attr(name).map(|v| (*name, v.to_string())))
                    .collect();
                seen += want.len();
                assert_eq!(ours, want, "{:?}", node.node_name());
            }
        }
        assert!(seen > 50, "{seen}");
    }

    fn pieces(texts: &[&str], redacted: &str) -> String {
        let texts: Vec<String> = texts.iter().map(|s| s.to_string()).collect();
        let joined = texts.concat();
        map_back(&texts, &joined, redacted)
            .into_iter()
            .zip(&texts)
            .map(|(n, o)| n.unwrap_or_else(|| o.clone()))
            .collect::<Vec<_>>()
            .join("|")
    }

    /// Redacting only the runs that overlap a change span gives the page that redacting
    /// every run gives: on pages of random prose, secrets, sensitive names, escapes,
    /// controls, invisible characters and inline tags that split tokens across runs.
    #[test]
    fn only_the_touched_runs_change() {
        use proptest::prelude::*;
        let ghp = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
        let piece = prop_oneof![
            Just("plain words about pages ".to_string()),
            Just("the key to it ".to_string()),
            Just("password=hunter2Xy9 ".to_string()),
            Just(format!("token {ghp} ")),
            Just(format!("{}<b>{}</b> ", &ghp[..10], &ghp[10..])),
            Just("ghp&#95;A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8 ".to_string()),
            // Only the reader's view reads this one as a token.
            Just("ghp%5FA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8 ".to_string()),
            Just("50% off &amp; Q&A \\_x ".to_string()),
            Just("bell\u{7}\u{1b}[2Jgone\r\n".to_string()),
            Just("zero\u{200b}width\u{E0041} ".to_string()),
            Just("https://u:pa55w0rdX@example.com/?code=abc123XYZ ".to_string()),
            Just("Authorization: Bearer abcDEF123456ghiJKL ".to_string()),
            Just("</p><p>".to_string()),
            Just("<br>".to_string()),
            Just("<td>cell</td>".to_string()),
            // Attribute values: links and images, plain, with a token, a password, a
            // sensitive parameter, an escape or the registered literal.
            Just("<a href=\"/docs/plain/path\" title=\"the key to it\">a</a> ".to_string()),
            Just(format!("<a href=\"/p/{ghp}\">b</a> ")),
            Just("<a href=\"https://example.com/a?token=abcDEF123456\">c</a> ".to_string()),
            Just("<a href=\"https://u:pa55w0rdX@example.com/\">d</a> ".to_string()),
            Just(format!("<a href=\"/{}\">e</a> ", &ghp.replace('_', "%5F"))),
            Just(
                "<img src=\"/s3cr3t-literal-value.png\" alt=\"password: hunter2Xy9\"> ".to_string()
            ),
        ];
        let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
            cases: 200,
            ..ProptestConfig::default()
        });
        let mut r = Redactor::new();
        r.add_secret("s3cr3t-literal-value");
        let result = runner.run(
            &(
                proptest::collection::vec((piece, any::<bool>()), 1..24),
                any::<bool>(),
            ),
            |(pieces, literal)| {
                // Each piece alone in its paragraph, or run on with the next.
                let mut body = String::new();
                for (p, close) in &pieces {
                    body.push_str(p);
                    if *close {
                        body.push_str("</p><p>");
                    }
                }
                if literal {
                    body.push_str("see s3cr3t-literal-value here");
                }
                let html = format!("<html><body><p>{body}</p></body></html>");
                let touched = Document::from(html.as_str());
                redact_document(&touched, &r);
                let every = Document::from(html.as_str());
                let (runs, attrs) = gather_runs(&every);
                for (i, attr) in attrs.attrs.iter().enumerate() {
                    redact_attr(attr, attrs.values.get(i).unwrap_or_default(), &r);
                }
                for run in runs.iter() {
                    redact_run(run, &r);
                }
                prop_assert_eq!(touched.html().to_string(), every.html().to_string());
                Ok(())
            },
        );
        if let Err(e) = result {
            panic!("{e}");
        }
    }

    #[test]
    fn map_back_keeps_untouched_nodes() {
        assert_eq!(
            pieces(&["see ", "ghp_", "abc", "def", " done"], "see [R] done"),
            "see |[R]||| done"
        );
        assert_eq!(pieces(&["a", "b"], "ab"), "a|b");
        assert_eq!(pieces(&["xé", "ab"], "xé[R]"), "xé|[R]");
        assert_eq!(pieces(&["k=", "secret", "!"], "k=[R]!"), "k=|[R]|!");
        assert_eq!(pieces(&["", "abc"], "[R]"), "|[R]");
    }

    #[test]
    fn map_back_concatenates_to_the_redaction() {
        let cases: &[(&[&str], &str)] = &[
            (&["ab", "cd", "ef"], "a[R]f"),
            (&["ab", "cd", "ef"], "abcdef[R]"),
            (&["ab", "cd", "ef"], "[R]abcdef"),
            (&["ab", "cd", "ef"], ""),
            (&["日本", "語"], "日[R]語"),
        ];
        for (texts, redacted) in cases {
            assert_eq!(pieces(texts, redacted).replace('|', ""), *redacted);
        }
    }

    fn redacted_html(html: &str) -> String {
        let doc = Document::from(html);
        redact_document(&doc, &Redactor::new());
        doc.select("body").html().to_string()
    }

    #[test]
    fn split_token_across_inline_tags_is_redacted() {
        let token = "ghp_k3VZabcdefghijklmnopqrstuvwxyz012345";
        let (a, b) = token.split_at(6);
        let out = redacted_html(&format!("<p>key <b>{a}</b>{b} here</p><p>next</p>"));
        assert!(!out.contains(b), "{out}");
        assert!(out.contains("key "), "{out}");
        assert!(out.contains(" here"), "{out}");
        assert!(out.contains("<p>next</p>"), "{out}");
    }

    #[test]
    fn entity_encoded_token_and_attributes_are_redacted() {
        let out = redacted_html(
            "<p>ghp&#95;k3VZabcdefghijklmnopqrstuvwxyz012345</p>\
             <a href=\"https://x.example/?api_key=AbC9dEf8GhI7\" title=\"sk_live_51Habcdefghijklmnopqrstu\">x</a>\
             <img src=\"/i.png?token=AbC9dEf8GhI7jk\" alt=\"AKIAIOSFODNN7EXAMPLF\">",
        );
        assert!(!out.contains("k3VZ"), "{out}");
        assert!(!out.contains("AbC9dEf8GhI7"), "{out}");
        assert!(!out.contains("51Habcdef"), "{out}");
        assert!(!out.contains("IOSFODNN7"), "{out}");
    }

    #[test]
    fn benign_page_is_untouched() {
        let html = "<p>Commit <code>3f2a9c1d4e5b6a7f8e9d0c1b2a3f4e5d6c7b8a9f</code>, colour \
                    <b>#ff8800</b>, <a href=\"/list?page=2&amp;sort=desc\" title=\"Next\">next</a>.</p>";
        let doc = Document::from(html);
        let before = doc.select("body").html().to_string();
        redact_document(&doc, &Redactor::new());
        assert_eq!(doc.select("body").html().to_string(), before);
    }

    #[test]
    fn escape_sequences_go_whole() {
        let out = redacted_html("<p>a &#27;[2Jb <i>c\u{1b}]52;c;eA==\u{7}d</i></p>");
        let doc = Document::from(out.as_str());
        assert_eq!(doc.select("p").text().to_string(), "a b cd", "{out}");
    }

    #[test]
    fn headline_sources_are_redacted() {
        let doc = Document::from(
            "<head><meta property=\"og:title\" content=\"T ghp_k3VZabcdefghijklmnopqrstuvwxyz012345\">\
             <script type=\"application/ld+json\">{\"headline\": \"ghp_k3VZabcdefghijklmnopqrstuvwxyz012345\"}</script>\
             <script>var keep = \"ghp_k3VZabcdefghijklmnopqrstuvwxyz012345\";</script></head>",
        );
        redact_document(&doc, &Redactor::new());
        let html = doc.html().to_string();
        assert_eq!(html.matches("k3VZ").count(), 1, "{html}");
        assert!(html.contains("var keep"), "{html}");
    }

    #[test]
    fn blocks_end_runs() {
        // Two halves in different paragraphs are two things a reader reads apart.
        let out = redacted_html("<p>Authentication:</p><p>required.</p>");
        assert!(out.contains("Authentication:") && out.contains("required."));
    }

    #[test]
    fn deep_nesting_does_not_recurse() {
        let html = format!(
            "{}ghp_k3VZabcdefghijklmnopqrstuvwxyz012345",
            "<span>".repeat(20_000)
        );
        let out = redacted_html(&html);
        assert!(!out.contains("k3VZ"));
    }
}
