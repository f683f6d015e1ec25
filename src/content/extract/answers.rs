//! Q&A pages (issue 27): a question and its answers, marked up with schema.org microdata
//! (Stack Exchange's `<div itemprop=mainEntity itemtype=https://schema.org/Question>`,
//! whose answers are `itemtype=https://schema.org/Answer` items inside it). Readability
//! scores containers one by one and picks the question or one answer; the run of answers
//! is no thread either, since the question is not built like them (see
//! [`super::posts`]). When the pick lies in a `Question` item that holds an `Answer` item,
//! that item is written instead (see `crate::content::extract`). Whole blocks only; no
//! word is cut (DESIGN §12).

use dom_query::{Document, NodeRef};

use super::kinds::text_chars;
use super::product::schema_type;
use super::tabs::anchor_text;

/// The attribute that marks the question the extraction writes (see [`mark_question_of`]).
pub(crate) const QUESTION_MARK: &str = "data-vetch-question";

/// Whether a microdata `itemtype` (one or more IRIs, space-separated) names `name`
/// (`Question`, `Answer`).
pub(crate) fn itemtype_names(itemtype: &str, name: &str) -> bool {
    itemtype
        .split_ascii_whitespace()
        .any(|t| schema_type(t) == name)
}

/// Readability's pick stands when it holds this share (in percent) of the visible
/// characters of the `Question` item it lies in: it is the question with its answers
/// already, and the item adds only its chrome (views, tags, "2 Answers").
const QUESTION_SHARE: usize = 60;

/// Mark with [`QUESTION_MARK`] the `Question` item of `doc` that holds `anchor` (the pick's
/// first text of some length, whitespace collapsed) and at least one `Answer` item, and
/// return it; `None` when no such item holds the pick's first text, or when the pick
/// (of `picked` visible characters) holds [`QUESTION_SHARE`] percent of the item.
pub(crate) fn mark_question_of<'a>(
    doc: &'a Document,
    anchor: &str,
    picked: usize,
) -> Option<NodeRef<'a>> {
    let text = anchor_text(doc, anchor)?;
    let question = text.ancestors_it(None).find(|a| is_item(a, "Question"))?;
    if !question.descendants_it().any(|d| is_item(&d, "Answer")) {
        return None;
    }
    if picked.saturating_mul(100) >= text_chars(&question).saturating_mul(QUESTION_SHARE) {
        return None;
    }
    question.set_attr(QUESTION_MARK, "");
    Some(question)
}

/// Whether `node` is a microdata item of the schema.org type `name`.
fn is_item(node: &NodeRef, name: &str) -> bool {
    node.is_element()
        && node
            .attr("itemtype")
            .is_some_and(|t| itemtype_names(&t, name))
}

#[cfg(test)]
mod tests {
    use super::*;

    const QUESTION: &str = "Why is RAID not a backup, when it keeps a second copy of every disk?";

    fn page(answers: &str) -> String {
        format!(
            "<body><div id=q itemprop=mainEntity itemscope itemtype=\"https://schema.org/Question\">\
             <h1 itemprop=name>Why is RAID not a backup?</h1><div class=post><p>{QUESTION}</p></div>\
             <div id=answers>{answers}</div></div>\
             <div id=side><p>Hot network questions, and a sentence long enough.</p></div></body>"
        )
    }

    #[test]
    fn the_question_that_holds_the_pick_and_answers() {
        let answer = "<div class=answer itemprop=acceptedAnswer itemscope \
                      itemtype=\"http://schema.org/Answer\"><p>Because a deletion is \
                      mirrored at once.</p></div>";
        let doc = Document::from(page(answer).as_str());
        let marked = mark_question_of(&doc, QUESTION, 40);
        assert_eq!(marked.and_then(|q| q.attr("id")).as_deref(), Some("q"));
        assert_eq!(
            doc.select("[data-vetch-question]").attr("id").as_deref(),
            Some("q")
        );
        // A pick outside the question, or a question without answers: nothing.
        let doc = Document::from(page(answer).as_str());
        let side = "Hot network questions, and a sentence long enough.";
        assert!(mark_question_of(&doc, side, 40).is_none());
        let doc = Document::from(page("").as_str());
        assert!(mark_question_of(&doc, QUESTION, 40).is_none());
        // A pick that is most of the item already stands.
        let doc = Document::from(page(answer).as_str());
        assert!(mark_question_of(&doc, QUESTION, 150).is_none());
        assert!(!doc.select("[data-vetch-question]").exists());
    }

    #[test]
    fn item_types_by_their_last_segment() {
        assert!(itemtype_names("https://schema.org/Question", "Question"));
        assert!(itemtype_names(
            " http://schema.org/Thing  schema:Answer ",
            "Answer"
        ));
        assert!(!itemtype_names("https://schema.org/QAPage", "Question"));
        assert!(!itemtype_names("https://example.com/Questions", "Question"));
    }
}
