//! The requested URL, parsed once: [`CheckedUrl`] keeps the string as the caller gave it
//! (what a template's `{url}` means, and what the receipt echoes) beside the parsed
//! [`url::Url`] (what the http client requests and a command is given), so no room parses
//! it again and none can parse it differently.

use url::Url;

/// A URL that parsed. Built by the attempt loop's pre-flight check, which also applies the
/// length limit, the scheme rule and the network guard before any provider sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedUrl {
    given: String,
    parsed: Url,
}

impl CheckedUrl {
    /// Parse `given` (the only parse of the requested URL).
    pub fn parse(given: &str) -> Result<CheckedUrl, url::ParseError> {
        Ok(CheckedUrl {
            given: given.to_string(),
            parsed: Url::parse(given)?,
        })
    }

    /// The URL exactly as the caller gave it.
    pub fn as_given(&self) -> &str {
        &self.given
    }

    /// The parsed URL.
    pub fn parsed(&self) -> &Url {
        &self.parsed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_spelling_beside_the_parse() {
        let u = CheckedUrl::parse("HTTP://Example.COM/a b").ok();
        assert_eq!(
            u.as_ref().map(|u| u.as_given()),
            Some("HTTP://Example.COM/a b")
        );
        assert_eq!(
            u.as_ref().map(|u| u.parsed().as_str()),
            Some("http://example.com/a%20b")
        );
        assert!(CheckedUrl::parse("not a url").is_err());
    }
}
