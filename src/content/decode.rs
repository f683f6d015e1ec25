//! From response bytes to text: what counts as text, and the charset in the
//! web's order (BOM, Content-Type charset, `<meta>`, UTF-8).
//!
//! A body is never decoded lossily: bytes that do not decode in the declared charset are a
//! `malformed_response`, not silently replaced characters.

use std::sync::LazyLock;

use encoding_rs::Encoding;
use regex::bytes::Regex;

use crate::model::kinds::BodyKind;

/// The decoded body and what kind of text it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    pub text: String,
    pub kind: BodyKind,
}

/// Why a body could not be turned into text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeError {
    /// Not a text type: `unusable_content`. Holds the media type (or a description).
    Unsupported(String),
    /// Does not decode as declared: `malformed_response`. Holds a short detail.
    Malformed(String),
}

/// The media type of a Content-Type value, lower-cased, without parameters.
pub fn media_type(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// The `charset` parameter of a Content-Type value, if any.
pub fn charset_param(content_type: &str) -> Option<String> {
    content_type.split(';').skip(1).find_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| v.trim().trim_matches(['"', '\'']).to_string())
            .filter(|v| !v.is_empty())
    })
}

/// `text/*`, JSON, XML, JavaScript and their `+json`/`+xml` kin.
pub fn is_text_type(media: &str) -> bool {
    media.starts_with("text/")
        || matches!(
            media,
            "application/json"
                | "application/xml"
                | "application/javascript"
                | "application/x-javascript"
                | "application/ecmascript"
                | "application/x-ndjson"
        )
        || media.ends_with("+json")
        || media.ends_with("+xml")
}

fn kind_of(media: &str) -> BodyKind {
    if media == "text/html" || media == "application/xhtml+xml" {
        BodyKind::Html
    } else if media == "application/json" || media.ends_with("+json") {
        BodyKind::Json
    } else {
        BodyKind::OtherText
    }
}

static META_CHARSET: LazyLock<Regex> = LazyLock::new(|| {
    #[allow(clippy::expect_used)]
    Regex::new(r#"(?i-u)<meta[^>]{0,512}?charset\s*=\s*["']?\s*([a-z0-9_\-:.]{1,40})"#)
        .expect("static regex")
});

/// A charset named by `<meta charset>` or `http-equiv` in the first 1024 bytes.
fn meta_charset(bytes: &[u8]) -> Option<&'static Encoding> {
    let head = &bytes[..bytes.len().min(1024)];
    let caps = META_CHARSET.captures(head)?;
    let enc = Encoding::for_label(caps.get(1)?.as_bytes())?;
    // A page that says it is UTF-16 in ASCII bytes is not; the HTML spec reads it as UTF-8.
    if enc == encoding_rs::UTF_16LE || enc == encoding_rs::UTF_16BE {
        Some(encoding_rs::UTF_8)
    } else {
        Some(enc)
    }
}

/// Decode strictly. `truncated` bodies may end inside a character: that tail is dropped.
fn decode_strict(enc: &'static Encoding, bytes: &[u8], truncated: bool) -> Option<String> {
    let mut decoder = enc.new_decoder_without_bom_handling();
    let cap = decoder.max_utf8_buffer_length_without_replacement(bytes.len())?;
    let mut out = String::with_capacity(cap);
    let (result, _read) = decoder.decode_to_string_without_replacement(bytes, &mut out, !truncated);
    match result {
        encoding_rs::DecoderResult::InputEmpty => Some(out),
        _ => None,
    }
}

/// The body is a PDF document: declared `application/pdf`, or starting
/// with `%PDF-` when its type is missing or generic (`application/octet-stream`).
/// `content_type` is the header as received.
pub fn is_pdf_body(content_type: Option<&str>, body: &[u8]) -> bool {
    let media = content_type.map(media_type);
    crate::content::pdf::is_pdf(media.as_deref(), body)
}

/// Turn a body into text. `content_type` is the header as received (None when absent, as
/// for a command's stdout).
pub fn decode_body(
    bytes: &[u8],
    content_type: Option<&str>,
    truncated: bool,
) -> Result<Decoded, DecodeError> {
    let media = content_type.map(media_type).filter(|m| !m.is_empty());
    if let Some(m) = &media {
        if !is_text_type(m) {
            return Err(DecodeError::Unsupported(m.clone()));
        }
    }
    let (bom_enc, body) = match Encoding::for_bom(bytes) {
        Some((enc, len)) => (Some(enc), &bytes[len..]),
        None => (None, bytes),
    };
    let declared = content_type
        .and_then(charset_param)
        .and_then(|label| Encoding::for_label(label.as_bytes()));
    let maybe_html = match &media {
        Some(m) => kind_of(m) == BodyKind::Html,
        None => true,
    };
    let meta = if bom_enc.is_none() && declared.is_none() && maybe_html {
        meta_charset(body)
    } else {
        None
    };
    let enc = bom_enc.or(declared).or(meta).unwrap_or(encoding_rs::UTF_8);

    let Some(text) = decode_strict(enc, body, truncated) else {
        return Err(match &media {
            Some(_) => DecodeError::Malformed(format!("body does not decode as {}", enc.name())),
            None => DecodeError::Unsupported("none declared, and the body is not text".into()),
        });
    };
    let kind = match &media {
        Some(m) => kind_of(m),
        None if text.contains('\0') => {
            return Err(DecodeError::Unsupported(
                "none declared, and the body is not text".into(),
            ))
        }
        None if crate::content::extract::looks_like_html(&text) => BodyKind::Html,
        None => BodyKind::OtherText,
    };
    Ok(Decoded { text, kind })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_types() {
        for t in [
            "text/html",
            "text/plain",
            "application/json",
            "application/ld+json",
            "application/rss+xml",
            "application/xml",
            "application/javascript",
        ] {
            assert!(is_text_type(t), "{t}");
        }
        for t in [
            "image/png",
            "application/pdf",
            "application/zip",
            "application/octet-stream",
        ] {
            assert!(!is_text_type(t), "{t}");
        }
    }

    #[test]
    fn binary_type_is_unsupported() {
        assert_eq!(
            decode_body(b"\x89PNG", Some("image/png"), false),
            Err(DecodeError::Unsupported("image/png".into()))
        );
    }

    #[test]
    fn charset_order() {
        // Content-Type charset wins over meta.
        let body = b"<meta charset=\"utf-8\"><p>caf\xe9</p>";
        let d = decode_body(body, Some("text/html; charset=windows-1252"), false).unwrap();
        assert!(d.text.contains("café"));
        // Meta is used when the header has none.
        let body = b"<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=windows-1252\"></head><p>\x93quoted\x94 \x80</p>";
        let d = decode_body(body, Some("text/html"), false).unwrap();
        assert!(d.text.contains("\u{201c}quoted\u{201d} €"), "{}", d.text);
        // A BOM beats everything.
        let body = b"\xef\xbb\xbf<p>caf\xc3\xa9</p>";
        let d = decode_body(body, Some("text/html; charset=windows-1252"), false).unwrap();
        assert!(d.text.contains("café"));
        assert!(!d.text.starts_with('\u{feff}'));
        // Shift_JIS.
        let (bytes, _, _) = encoding_rs::SHIFT_JIS.encode("日本語のページ");
        let d = decode_body(&bytes, Some("text/plain; charset=Shift_JIS"), false).unwrap();
        assert_eq!(d.text, "日本語のページ");
    }

    #[test]
    fn invalid_utf8_is_malformed() {
        let r = decode_body(b"ok \xff\xfe bad", Some("text/html; charset=utf-8"), false);
        assert!(matches!(r, Err(DecodeError::Malformed(_))), "{r:?}");
    }

    #[test]
    fn truncated_tail_is_dropped_not_malformed() {
        let bytes = "héllo".as_bytes();
        let cut = &bytes[..2]; // inside é
        let d = decode_body(cut, Some("text/plain"), true).unwrap();
        assert_eq!(d.text, "h");
        assert!(decode_body(cut, Some("text/plain"), false).is_err());
    }

    #[test]
    fn sniffing_without_content_type() {
        assert_eq!(
            decode_body(b"<!doctype html><p>hi</p>", None, false)
                .unwrap()
                .kind,
            BodyKind::Html
        );
        assert_eq!(
            decode_body(b"plain", None, false).unwrap().kind,
            BodyKind::OtherText
        );
        assert!(matches!(
            decode_body(b"\x00\x01\x02\xff", None, false),
            Err(DecodeError::Unsupported(_))
        ));
    }
}
