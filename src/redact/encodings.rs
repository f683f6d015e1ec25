//! Encodings of literal secrets: every form in which a URL library, a JSON encoder or an
//! HTML page may carry a registered value.

/// Every form in which a URL library, a JSON encoder or an HTML page may carry `v`.
pub(super) fn encodings(v: &str) -> Vec<String> {
    fn c0(b: u8) -> bool {
        !(0x20..0x7f).contains(&b)
    }
    fn fragment(b: u8) -> bool {
        c0(b) || matches!(b, b' ' | b'"' | b'<' | b'>' | b'`')
    }
    fn query(b: u8) -> bool {
        c0(b) || matches!(b, b' ' | b'"' | b'#' | b'<' | b'>')
    }
    fn special_query(b: u8) -> bool {
        query(b) || b == b'\''
    }
    fn path(b: u8) -> bool {
        query(b) || matches!(b, b'?' | b'^' | b'`' | b'{' | b'}')
    }
    // The url crate's path set, which leaves `^` (and `|`) as they are.
    fn url_crate_path(b: u8) -> bool {
        query(b) || matches!(b, b'?' | b'`' | b'{' | b'}')
    }
    fn userinfo(b: u8) -> bool {
        path(b)
            || matches!(
                b,
                b'/' | b':' | b';' | b'=' | b'@' | b'[' | b'\\' | b']' | b'|'
            )
    }
    fn component(b: u8) -> bool {
        userinfo(b) || matches!(b, b'$' | b'%' | b'&' | b'+' | b',')
    }
    fn strict(b: u8) -> bool {
        !(b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'))
    }
    fn pct(v: &str, enc: fn(u8) -> bool, upper: bool) -> String {
        let mut s = String::with_capacity(v.len() * 3);
        for b in v.bytes() {
            if enc(b) {
                if upper {
                    s.push_str(&format!("%{b:02X}"));
                } else {
                    s.push_str(&format!("%{b:02x}"));
                }
            } else {
                s.push(b as char);
            }
        }
        s
    }
    fn form(v: &str) -> String {
        let mut s = String::with_capacity(v.len() * 3);
        for b in v.bytes() {
            if b == b' ' {
                s.push('+');
            } else if b.is_ascii_alphanumeric() || matches!(b, b'*' | b'-' | b'.' | b'_') {
                s.push(b as char);
            } else {
                s.push_str(&format!("%{b:02X}"));
            }
        }
        s
    }
    let mut out: Vec<String> = vec![v.to_string()];
    let sets: [fn(u8) -> bool; 8] = [
        fragment,
        query,
        special_query,
        path,
        url_crate_path,
        userinfo,
        component,
        strict,
    ];
    for set in sets {
        out.push(pct(v, set, true));
        out.push(pct(v, set, false));
    }
    out.push(form(v));
    // Twice encoded: a URL carried inside another URL's parameter (`?u={url_encoded}`).
    let once = pct(v, strict, true);
    out.push(pct(&once, strict, true));
    out.push(pct(&form(v), strict, true));
    if let Ok(json) = serde_json::to_string(v) {
        let inner = json
            .strip_prefix('"')
            .and_then(|j| j.strip_suffix('"'))
            .unwrap_or(&json)
            .to_string();
        out.push(inner.replace('/', "\\/"));
        let mut ascii = String::with_capacity(inner.len());
        for c in inner.chars() {
            if c.is_ascii() {
                ascii.push(c);
            } else {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    ascii.push_str(&format!("\\u{u:04x}"));
                }
            }
        }
        out.push(ascii);
        out.push(inner);
    }
    let html = |apos: &str| {
        let mut s = String::with_capacity(v.len());
        for c in v.chars() {
            match c {
                '&' => s.push_str("&amp;"),
                '<' => s.push_str("&lt;"),
                '>' => s.push_str("&gt;"),
                '"' => s.push_str("&quot;"),
                '\'' => s.push_str(apos),
                c => s.push(c),
            }
        }
        s
    };
    out.push(html("&#39;"));
    out.push(html("&#x27;"));
    out.push(html("'"));
    let mut seen = std::collections::HashSet::new();
    out.retain(|f| seen.insert(f.clone()));
    out
}
