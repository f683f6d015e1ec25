//! Secrets a text names in words or on a command line rather than in an assignment:
//!
//! - prose: "the password is hunter2", "my API token was 'Xk9#mP2'", and a random token
//!   right after a sensitive name ("… AKIA… and secret wJalrXUtnFEMI/K7MDENG/…");
//! - basic-auth credentials on a curl command line (`curl -u ACCOUNT:TOKEN …`, `--user`),
//!   as gitleaks' `curl-auth-user` rule finds them.
//!
//! Both are classifiers of the redactor's one sweep (see `classify` in the parent): the
//! combined regex finds a sensitive word followed by a blank, or a `-u`/`--user` flag, and
//! the code here reads the words around it.
//!
//! Must never: hide ordinary prose. A name in prose is followed by a credential only when
//! the value looks like one: "the password is required", "the token is valid for an hour",
//! "the secret is base64-encoded", "the key is stored in Vault" and "token
//! 3f2a9c1d4e5b…" (a digest) stay; so do the placeholders of curl's documentation
//! (`-u user:password`, `-u "$USER:$TOKEN"`, `-u guest:guest`).

use super::names::{
    code_like, credential_like, is_name_byte, is_placeholder_text, text_name_sensitive, token_like,
    Norm,
};
use super::out::Out;

/// How far back a curl command may start before its `-u` (its logical line, continued by
/// `\` at line ends, as gitleaks reads up to five lines).
const CURL_LOOKBACK: usize = 2048;

/// A sensitive word, then blanks: "the password is …", "secret wJal…". `s..e` is the
/// regex match (the word and the blanks after it). Returns where scanning resumes after a
/// redaction, or `None` when what follows is not a secret.
pub(super) fn prose(out: &mut Out<'_, '_>, s: usize, e: usize, marker: &str) -> Option<usize> {
    let text = out.text;
    let b = text.as_bytes();
    // The name: the word the match starts in (read back over name characters), joined
    // to the word before it ("API key", "the password", "next page token").
    let mut word_end = e;
    while word_end > s && matches!(b[word_end - 1], b' ' | b'\t') {
        word_end -= 1;
    }
    let mut ns = s;
    while ns > 0 && s - ns < 64 && is_name_byte(b[ns - 1]) {
        ns -= 1;
    }
    let mut name = text.get(ns..word_end)?.to_string();
    let mut ps = ns;
    while ps > 0 && b[ps - 1] == b' ' && ns - ps < 2 {
        ps -= 1;
    }
    if ps < ns {
        let mut pw = ps;
        while pw > 0 && ps - pw < 24 && b[pw - 1].is_ascii_alphabetic() {
            pw -= 1;
        }
        if pw < ps && (pw == 0 || !is_name_byte(b[pw - 1])) {
            name = format!("{}_{name}", text.get(pw..ps)?);
        }
    }
    let name = name.trim_start_matches(['-', '.', '_']);
    if !text_name_sensitive(name, &Norm::new(name)) {
        return None;
    }
    // A linking verb ("is", "was", "are", with an optional colon) or nothing.
    let mut vs = e;
    let mut linked = false;
    for verb in ["is", "was", "are"] {
        let after = vs + verb.len();
        if b.get(vs..after)
            .is_some_and(|w| w.eq_ignore_ascii_case(verb.as_bytes()))
            && matches!(b.get(after), Some(b' ' | b'\t' | b':'))
        {
            vs = after;
            if b.get(vs) == Some(&b':') {
                vs += 1;
            }
            while matches!(b.get(vs), Some(b' ' | b'\t')) {
                vs += 1;
            }
            linked = true;
            break;
        }
    }
    let (a, z, quoted) = prose_value(text, vs)?;
    let v = text.get(a..z)?;
    let secret = if quoted {
        linked && credential_like(v, true)
    } else if linked {
        spoken_credential(v)
    } else {
        random_token(v)
    };
    if !secret {
        return None;
    }
    out.replace(a, z, marker);
    Some(z)
}

/// The value starting at `vs`: a quoted string (`"…"`, `'…'`, `` `…` ``, `“…”`) on one line,
/// or one word without the punctuation that ends a sentence. `(start, end, quoted)`.
fn prose_value(text: &str, vs: usize) -> Option<(usize, usize, bool)> {
    let rest = text.get(vs..)?;
    let first = rest.chars().next()?;
    let close = match first {
        '"' => Some('"'),
        '\'' => Some('\''),
        '`' => Some('`'),
        '\u{201C}' => Some('\u{201D}'),
        '\u{2018}' => Some('\u{2019}'),
        _ => None,
    };
    if let Some(close) = close {
        let a = vs + first.len_utf8();
        let body = text.get(a..)?;
        let end = body.find([close, '\n'])?;
        if !body[end..].starts_with(close) || end == 0 {
            return None;
        }
        return Some((a, a + end, true));
    }
    let len = rest
        .find(|c: char| c.is_whitespace() || matches!(c, '<' | '"' | '\'' | '`'))
        .unwrap_or(rest.len())
        .min(256);
    let word = rest.get(..len)?;
    let word = word.trim_end_matches(['.', ',', ';', ':', '!', '?', ')', ']', '}']);
    (!word.is_empty()).then_some((vs, vs + word.len(), false))
}

/// A random-looking token, strictly: 16+ characters of a token alphabet with upper- and
/// lower-case letters (two of each at least, and a lower-case letter past `f`: a hex digest
/// or a UUID behind a word, `eyJ/e3b0…`, `API/550e8400-…`, is not one) and a digit,
/// changing character class often (a camel-case identifier such
/// as `RefreshTokenV2Handler` changes rarely).
pub(super) fn random_token(v: &str) -> bool {
    let b = v.as_bytes();
    if b.len() < 16
        || !b.iter().all(|c| {
            c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'=' | b'_' | b'-' | b'.' | b'~')
        })
        || is_placeholder_text(v)
    {
        return false;
    }
    let class = |c: u8| match c {
        b'a'..=b'z' => 0,
        b'A'..=b'Z' => 1,
        b'0'..=b'9' => 2,
        _ => 3,
    };
    let count = |k: u8| b.iter().filter(|&&c| class(c) == k).count();
    let changes = b.windows(2).filter(|w| class(w[0]) != class(w[1])).count();
    let past_hex = b.iter().any(|c| (b'g'..=b'z').contains(c));
    count(0) >= 2 && count(1) >= 2 && count(2) >= 1 && past_hex && changes * 5 >= b.len() * 2
}

/// Algorithm and format names that end in digits: a value made of one of them and a
/// number ("SHA256", "base64", "OAuth2") names a scheme, it is not a password.
const SCHEME_WORDS: &[&str] = &[
    "aes", "argon", "base", "blake", "crc", "des", "ecdsa", "ed", "es", "hs", "http", "int", "ipv",
    "md", "oauth", "pbkdf", "ps", "rc", "rs", "rsa", "secp", "sha", "tls", "uint", "utf", "v", "x",
];

/// Is the unquoted value after "the password is" a credential? A random token, or a
/// password's mix (letters with digits, or letters with symbols), one word, no hyphen or
/// slash (hyphenated words and paths are prose: "base64-encoded", "/etc/secret"), not a
/// scheme name with its number ("SHA256").
fn spoken_credential(v: &str) -> bool {
    let n = v.chars().count();
    if !(6..=128).contains(&n) || is_placeholder_text(v) || code_like(v) {
        return false;
    }
    if random_token(v) || token_like(v) {
        return true;
    }
    if v.contains(['-', '/']) || v.chars().any(|c| !c.is_ascii_graphic()) {
        return false;
    }
    let letters = v.bytes().filter(u8::is_ascii_alphabetic).count();
    let digits = v.bytes().filter(u8::is_ascii_digit).count();
    let symbols = v.bytes().filter(|c| b"!@#$%^&*+=?~".contains(c)).count();
    if letters == 0 || (digits == 0 && symbols == 0) {
        return false;
    }
    // `SHA256`, `base64`, `OAuth2`: a scheme word and its number.
    let head = v.trim_end_matches(|c: char| c.is_ascii_digit());
    let scheme = symbols == 0
        && head.bytes().all(|c| c.is_ascii_alphabetic())
        && SCHEME_WORDS.iter().any(|w| head.eq_ignore_ascii_case(w));
    !scheme
}

/// `curl … -u USER:PASSWORD` (or `--user`, `-uUSER:…`, `--user=…`, quoted): the password
/// goes and the user name is scanned like any text. `s..e` is the regex match (a blank,
/// the flag, and `=` or blanks). Needs `curl` earlier on the same command line (its
/// continuation lines included).
pub(super) fn curl_user(out: &mut Out<'_, '_>, s: usize, e: usize, marker: &str) -> Option<usize> {
    let text = out.text;
    let b = text.as_bytes();
    if !after_curl(b, s) {
        return None;
    }
    let (a, z) = match b.get(e)? {
        q @ (b'"' | b'\'') => {
            let a = e + 1;
            let end = b[a..b.len().min(a + 512)].iter().position(|c| c == q)?;
            (a, a + end)
        }
        _ => {
            let end = b[e..b.len().min(e + 512)]
                .iter()
                .position(|c| c.is_ascii_whitespace() || matches!(c, b'"' | b'\'' | b'<' | b'`'))
                .unwrap_or(b.len().min(e + 512) - e);
            (e, e + end)
        }
    };
    let cred = text.get(a..z)?;
    let colon = cred.find(':')?;
    let (user, pass) = (&cred[..colon], &cred[colon + 1..]);
    let pass_trim = pass.trim_matches(['"', '\'']);
    if pass_trim.chars().count() < 3
        || is_placeholder_text(pass_trim)
        || curl_placeholder(pass_trim)
        || pass_trim.eq_ignore_ascii_case(user.trim_matches(['"', '\'']))
    {
        return None;
    }
    out.rescan(a, a + colon, marker);
    out.replace(a + colon + 1, z, marker);
    Some(z)
}

/// The password placeholders of curl-auth-user's allowlist (and of curl's documentation):
/// `pass`, `password`, `pwd`, `test`, `token`, `secret`, `changeit`, `changeme`, runs of
/// `*` or `x`, `$VAR`, `${VAR}`, `$(cmd)`, `{{var}}`, `<var>`, `[var]`.
fn curl_placeholder(p: &str) -> bool {
    const WORDS: &[&str] = &[
        "pass", "password", "passwd", "pwd", "test", "token", "secret", "changeit", "changeme",
        "apikey", "api_key", "key",
    ];
    WORDS.iter().any(|w| p.eq_ignore_ascii_case(w))
        || p.bytes().all(|c| c == b'*' || c == b'x' || c == b'X')
        || p.starts_with(['$', '{', '<', '['])
}

/// Does the command line holding `at` start with (or hold, before `at`) the word `curl`?
/// The line is read back over continuation lines (ending in `\`), at most
/// [`CURL_LOOKBACK`] bytes.
fn after_curl(b: &[u8], at: usize) -> bool {
    let floor = at.saturating_sub(CURL_LOOKBACK);
    let mut start = at;
    while start > floor {
        if b[start - 1] == b'\n' {
            let mut k = start - 1;
            if k > 0 && b[k - 1] == b'\r' {
                k -= 1;
            }
            let continued = k > 0 && b[k - 1] == b'\\';
            if !continued {
                break;
            }
        }
        start -= 1;
    }
    let line = &b[start..at];
    line.windows(4).enumerate().any(|(i, w)| {
        w.eq_ignore_ascii_case(b"curl")
            && (i == 0 || !is_name_byte(line[i - 1]))
            && line.get(i + 4).is_none_or(|c| !is_name_byte(*c))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_tokens_and_spoken_credentials() {
        for v in [
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY",
            "k3VZ9mXq2LwP8nRt5YbH",
            "Ab3kQ9mX2pL7vB4n",
        ] {
            assert!(random_token(v), "{v}");
        }
        for v in [
            "RefreshTokenV2Handler",
            "SauceRecipe2024Edition",
            "3f2a9c1d4e5b6a7f8e9d0c1b2a3f4e5d6c7b8a9f",
            "550e8400-e29b-41d4-a716-446655440000",
            "ALLUPPERCASE12345678",
            "short1A",
            // A digest behind one capital (found by prop_benign_unchanged).
            "eyJ/e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            "API/550e8400-e29b-41d4-a716-446655440000",
        ] {
            assert!(!random_token(v), "{v}");
        }
        for v in [
            "hunter2",
            "P@ssw0rd!",
            "Tr0ub4dor&3",
            "Summer2024",
            "s3cr3tv4lu3",
        ] {
            assert!(spoken_credential(v), "{v}");
        }
        for v in [
            "required",
            "valid",
            "base64-encoded",
            "SHA256",
            "base64",
            "OAuth2",
            "/etc/secret",
            "12345678",
            "stored",
            "x509",
            "YOUR_PASSWORD",
            "process.env.PASSWORD",
        ] {
            assert!(!spoken_credential(v), "{v}");
        }
    }

    #[test]
    fn curl_lines() {
        let b = b"curl -s \\\n  -u a:b https://x";
        let at = b.iter().position(|&c| c == b'-').unwrap_or(0) + 4;
        assert!(after_curl(b, at));
        assert!(!after_curl(b"git push -u origin main", 8));
        assert!(!after_curl(b"curl x\nps -u root", 14));
        assert!(!after_curl(b"curly -u a:b", 5));
    }
}
