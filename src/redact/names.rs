//! Names, values and placeholders: which names are sensitive (in text and in URLs), which
//! values look like credentials, which are placeholders or code.

use super::URL_MARKER;

/// A name lower-cased with `_ - .` dropped, on the stack (the hot path must not allocate),
/// with the start of each segment marked (after a separator or at a camelCase hump). Only
/// the last [`NORM_MAX`] bytes of a longer name are kept: sensitivity is decided by suffix.
pub(super) struct Norm {
    buf: [u8; NORM_MAX],
    seg: [bool; NORM_MAX],
    len: usize,
    whole: bool,
}

pub(super) const NORM_MAX: usize = 160;

impl Norm {
    pub(super) fn new(name: &str) -> Norm {
        let b = name.as_bytes();
        let tail = &b[b.len().saturating_sub(NORM_MAX)..];
        let mut n = Norm {
            buf: [0; NORM_MAX],
            seg: [false; NORM_MAX],
            len: 0,
            whole: tail.len() == b.len(),
        };
        let mut boundary = true;
        let mut prev_lower = false;
        for &c in tail {
            if matches!(c, b'_' | b'-' | b'.') {
                boundary = true;
                prev_lower = false;
                continue;
            }
            n.seg[n.len] = boundary || (prev_lower && c.is_ascii_uppercase());
            n.buf[n.len] = c.to_ascii_lowercase();
            n.len += 1;
            prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
            boundary = false;
        }
        n
    }

    pub(super) fn bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    pub(super) fn is(&self, w: &str) -> bool {
        self.whole && self.bytes() == w.as_bytes()
    }

    pub(super) fn ends_with(&self, w: &str) -> bool {
        self.bytes().ends_with(w.as_bytes())
    }

    /// Ends with `w`, and `w` starts a segment.
    pub(super) fn ends_with_segment(&self, w: &str) -> bool {
        self.ends_with(w) && self.seg[self.len - w.len()]
    }
}

/// Suffixes that make a name sensitive on their own.
pub(super) const STRONG_SUFFIXES: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "secret",
    "token",
    "apikey",
    "accesskey",
    "secretkey",
    "privatekey",
    "signingkey",
    "masterkey",
    "encryptionkey",
    "accountkey",
    "authkey",
    "appkey",
    "applicationkey",
    "credential",
    "credentials",
    "authorization",
    "cookie",
    "sessionid",
    "sessid",
];
/// Short suffixes that count only as a whole segment (`db_pass`, `authPwd`; not `bypass`).
pub(super) const WEAK_SUFFIXES: &[&str] = &["auth", "pass", "pwd"];
/// Token-named things that are pagination cursors, not credentials.
pub(super) const NOT_SECRET: &[&str] = &[
    "pagetoken",
    "nexttoken",
    "prevtoken",
    "previoustoken",
    "continuationtoken",
    "synctoken",
    "paginationtoken",
    "cursortoken",
];

/// Is `name` (a key in an assignment or a header name) sensitive in free text?
pub(super) fn text_name_sensitive(name: &str, n: &Norm) -> bool {
    if name.is_empty() || name == "PWD" || name == "OLDPWD" {
        return false;
    }
    if NOT_SECRET.iter().any(|x| n.ends_with(x)) {
        return false;
    }
    STRONG_SUFFIXES.iter().any(|x| n.ends_with(x))
        || WEAK_SUFFIXES.iter().any(|x| n.ends_with_segment(x))
}

/// Is a URL query or fragment parameter named `name` sensitive? (Case-insensitive; the
/// value is hidden whatever its shape.)
pub(super) fn url_param_sensitive(name: &str, n: &Norm) -> bool {
    // `token[]` / `token[0]`: a form array of `token`.
    if let Some(base) = name
        .strip_suffix(']')
        .and_then(|n| n.rsplit_once('['))
        .map(|(b, _)| b)
    {
        return url_param_sensitive(base, &Norm::new(base));
    }
    const EXACT: &[&str] = &[
        "key",
        "auth",
        "sig",
        "session",
        "sid",
        "state",
        "code",
        "ticket",
        "otp",
        "hmac",
        "signature",
        "jsessionid",
        "phpsessid",
        "samlresponse",
        "samlrequest",
        "clientassertion",
        "codeverifier",
        "oauthverifier",
        "pwd",
        "pass",
    ];
    if NOT_SECRET.iter().any(|x| n.ends_with(x)) {
        return false;
    }
    EXACT.iter().any(|x| n.is(x)) || n.ends_with("signature") || text_name_sensitive(name, n)
}

/// Placeholders a URL may carry instead of a secret: empty, our markers, templates
/// (`{token}`, `<key>`, `$TOKEN`), `YOUR_API_KEY`-style names, `xxx`, `***`, `...`.
pub(super) fn is_placeholder_url(v: &str) -> bool {
    // Anything holding a marker was redacted already (keeps redaction idempotent).
    if v.is_empty() || v.contains(URL_MARKER) {
        return true;
    }
    let b = v.as_bytes();
    if matches!(b[0], b'{' | b'<' | b'$')
        || starts_ci(b, "%7b")
        || starts_ci(b, "%3c")
        || starts_ci(b, "%24")
        || starts_ci(b, URL_MARKER)
        || (b.len() > 4 && starts_ci(b, "your"))
    {
        return true;
    }
    if b.len() >= 3 && b.iter().all(|c| *c == b[0]) && !b[0].is_ascii_alphanumeric()
        || b.len() >= 3 && b.iter().all(|c| matches!(c, b'x' | b'X'))
        || v.contains('\u{2026}')
    {
        return true;
    }
    // `API_KEY`, `ACCESS_TOKEN`: an environment variable's name, not its value.
    if b.contains(&b'_') && b.iter().all(|c| c.is_ascii_uppercase() || *c == b'_') {
        return true;
    }
    // `user:password@localhost`: the field's own name stands in for the value.
    const NAME_WORDS: &[&str] = &["password", "passwd", "secret", "token"];
    if NAME_WORDS.iter().any(|w| v.eq_ignore_ascii_case(w)) {
        return true;
    }
    placeholder_word(v)
}

/// Does `v` hold a documentation word as a separate part (`example-key`, `my_dummy_token`,
/// `your-api-key`, `changeme`)? Glued inside random characters (`...CYEXAMPLEKEY`,
/// `AKIA...7EXAMPLE`) it does not count: a real key may contain any letters.
pub(super) fn placeholder_word(v: &str) -> bool {
    const WORDS: &[&str] = &[
        "example",
        "dummy",
        "changeme",
        "placeholder",
        "your",
        "yours",
        "here",
        "redacted",
    ];
    v.split(|c: char| !c.is_ascii_alphanumeric())
        .any(|part| WORDS.iter().any(|w| part.eq_ignore_ascii_case(w)))
}

/// Placeholders in free text: the URL ones plus `%VAR%`, `#{var}`, and values containing
/// `xxxx`, `****` or `...`.
pub(super) fn is_placeholder_text(v: &str) -> bool {
    if is_placeholder_url(v) {
        return true;
    }
    let b = v.as_bytes();
    v.starts_with('%') && v.ends_with('%') && v.len() > 2
        || v.starts_with("#{")
        || contains_ci(b, "xxxx")
        || v.contains("****")
        || v.contains("...")
        || starts_ci(b, "changeme")
}

pub(super) fn starts_ci(b: &[u8], p: &str) -> bool {
    b.len() >= p.len() && b[..p.len()].eq_ignore_ascii_case(p.as_bytes())
}

pub(super) fn contains_ci(b: &[u8], p: &str) -> bool {
    b.windows(p.len())
        .any(|w| w.eq_ignore_ascii_case(p.as_bytes()))
}

/// Unquoted values that are code, not data: `process.env.TOKEN`, `os.getenv(...)`,
/// `[...]`, `{...}`.
pub(super) fn code_like(v: &str) -> bool {
    let b = v.as_bytes();
    if matches!(b[0], b'(' | b'[' | b'{' | b'@' | b'&' | b'*' | b'!') || v.contains(['(', '[', '{'])
    {
        return true;
    }
    // A dotted path of identifiers.
    v.contains('.')
        && v.split('.').all(|seg| {
            let s = seg.as_bytes();
            !s.is_empty()
                && (s[0].is_ascii_alphabetic() || s[0] == b'_' || s[0] == b'$')
                && s.iter()
                    .all(|c| c.is_ascii_alphanumeric() || *c == b'_' || *c == b'$')
        })
}

/// A random-looking token: 16+ characters of a token alphabet with letters and digits and
/// no long run of one class (identifiers, words and version strings are not).
pub(super) fn token_like(v: &str) -> bool {
    let b = v.as_bytes();
    if b.len() < 16
        || is_placeholder_text(v)
        || !b.iter().all(|c| {
            c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'~' | b'+' | b'/' | b'=' | b'-')
        })
    {
        return false;
    }
    let digits = b.iter().filter(|c| c.is_ascii_digit()).count();
    let letters = b.iter().filter(|c| c.is_ascii_alphabetic()).count();
    digits >= 2 && letters >= 2 && entropy(b) >= 3.0
}

/// Does a value taken from the requested URL (a sensitive parameter's value, a password)
/// look like a secret, so that it is worth scrubbing from everything, page text included?
/// Short values, words, numbers and placeholders are not: replacing every "python" of an
/// article because the URL said `?code=python` corrupts the page and hides nothing (such a
/// value is still hidden where it stands in a URL, by position). At least 8 characters,
/// no whitespace, a credential's mix of characters ([`credential_like`]), and not digits
/// alone unless 16 or more (dates, page numbers and ids are digits).
pub(super) fn secret_like_value(v: &str) -> bool {
    let n = v.chars().count();
    if n < 8 || v.chars().any(char::is_whitespace) {
        return false;
    }
    if v.bytes().all(|b| b.is_ascii_digit()) {
        return n >= 16;
    }
    credential_like(v, true) || token_like(v)
}

/// Shannon entropy of `b`, in bits per byte.
pub(super) fn entropy(b: &[u8]) -> f64 {
    if b.is_empty() {
        return 0.0;
    }
    let mut counts = [0u32; 256];
    for &c in b {
        counts[c as usize] += 1;
    }
    let n = b.len() as f64;
    counts
        .iter()
        .filter(|&&k| k > 0)
        .map(|&k| {
            let p = f64::from(k) / n;
            -p * p.log2()
        })
        .sum()
}

/// Does an assignment's or header's value look like a credential rather than a word?
/// Needs 6+ characters, no whitespace, not a placeholder, and a credential's mix: letters
/// with digits, six or more digits, symbols with both cases, or (quoted) 16+ letters.
pub(super) fn credential_like(v: &str, quoted: bool) -> bool {
    let n = v.chars().count();
    if n < 6 || v.chars().any(char::is_whitespace) || is_placeholder_text(v) {
        return false;
    }
    if !quoted && code_like(v) {
        return false;
    }
    let (mut lower, mut upper, mut digit, mut symbol, mut other) = (0, 0, 0, 0, 0);
    for c in v.chars() {
        match c {
            'a'..='z' => lower += 1,
            'A'..='Z' => upper += 1,
            '0'..='9' => digit += 1,
            c if c.is_ascii_punctuation() => symbol += 1,
            _ => other += 1,
        }
    }
    let letters = lower + upper + other;
    (digit > 0 && letters > 0)
        || digit == n
        || (symbol > 0 && lower > 0 && upper > 0)
        || (quoted && letters == n && n >= 16)
        || (n >= 24 && lower > 0 && upper > 0)
}

pub(super) fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-')
}
