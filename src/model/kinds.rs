//! The content vocabulary shared by the rooms: how a caller wants a page turned into text
//! ([`ExtractMode`], chosen in the config or on the command line) and what kind of body an
//! attempt produced ([`BodyKind`], decided by `content::decode`). Plain data: the command
//! line's parsing of these lives in the front end, not here.

/// How a body is turned into the text the caller receives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ExtractMode {
    /// HTML: main content as Markdown; JSON: pretty-printed; other text: as is.
    #[default]
    Auto,
    /// Same as `auto` (Markdown for HTML), named for operators who want to be explicit.
    Markdown,
    /// HTML: main content as plain text, without Markdown syntax; JSON and other text as in `auto`.
    Text,
    /// The decoded body, untouched.
    Raw,
}

impl ExtractMode {
    /// One line saying what the mode does (the command line's help shows it).
    pub fn description(self) -> &'static str {
        match self {
            ExtractMode::Auto => "HTML: main content as Markdown; JSON: pretty-printed; other text: as is",
            ExtractMode::Markdown => "Same as `auto` (Markdown for HTML), named for operators who want to be explicit",
            ExtractMode::Text => "HTML: main content as plain text, without Markdown syntax; JSON and other text as in `auto`",
            ExtractMode::Raw => "The decoded body, untouched",
        }
    }

    /// The lowercase name used on the command line and in the config file.
    pub fn as_str(self) -> &'static str {
        match self {
            ExtractMode::Auto => "auto",
            ExtractMode::Markdown => "markdown",
            ExtractMode::Text => "text",
            ExtractMode::Raw => "raw",
        }
    }
}

impl std::fmt::Display for ExtractMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What kind of body this is; decided by the caller from the content type or by sniffing
/// (see `content::extract::looks_like_html`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyKind {
    Html,
    Json,
    OtherText,
}
