//! A problem with one key of the config file, found before its place in the file is known
//! (the loader adds the file, the line and the table's prefix), and the check every header
//! value and user agent goes through.

/// A problem with one key, found before its place in the file is known: the loader adds
/// the path, the line and any prefix (`providers[0].`) to make a [`crate::settings::config::ConfigError`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyError {
    /// The key as its table spells it (`lookup.min_chars`, `content_pointer`, `headers.X`).
    pub key: String,
    pub message: String,
}

pub(crate) fn bad(key: String, message: String) -> KeyError {
    KeyError { key, message }
}

/// Why a header value (or user agent) cannot be sent: CR, LF or another control character
/// (tab aside) would split or corrupt the request, so every lookup would fail. The value is
/// not quoted: it may hold an expanded secret.
pub fn control_char(value: &str) -> Option<String> {
    let c = value.chars().find(|c| c.is_control() && *c != '\t')?;
    let name = match c {
        '\r' => "a carriage return (CR)".to_string(),
        '\n' => "a line feed (LF)".to_string(),
        other => format!("the control character U+{:04X}", u32::from(other)),
    };
    Some(format!(
        "contains {name}, which cannot be sent in an HTTP header"
    ))
}
