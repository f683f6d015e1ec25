//! PDF syntax: the lexer and the object model, shared by the file structure (objects,
//! cross-references) and by content streams (operands and operators).
//!
//! Every loop here advances through the input, so work is linear in its length; nesting
//! of arrays and dictionaries is bounded by [`MAX_DEPTH`], so no input can overflow the
//! stack. Nothing is sized from a number the file states.

/// Arrays and dictionaries nested deeper than this are a syntax error.
pub(super) const MAX_DEPTH: usize = 64;

/// An object as parsed. Streams keep their raw bytes as a range of the file (never
/// copied) and the indirect object they belong to, for decryption.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Obj {
    Null,
    Bool(bool),
    Int(i64),
    Real(f64),
    Str(Vec<u8>),
    Name(Vec<u8>),
    Array(Vec<Obj>),
    Dict(Dict),
    Ref(u32, u16),
    Stream(Box<Stream>),
}

/// A stream: its dictionary, where its raw bytes lie in the file, and its object.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Stream {
    pub dict: Dict,
    pub start: usize,
    pub end: usize,
    pub id: (u32, u16),
}

/// A dictionary, in file order; the first of duplicate keys wins.
#[derive(Debug, Clone, PartialEq, Default)]
pub(super) struct Dict(pub Vec<(Vec<u8>, Obj)>);

impl Dict {
    pub fn get(&self, key: &[u8]) -> Option<&Obj> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub fn name(&self, key: &[u8]) -> Option<&[u8]> {
        self.get(key).and_then(Obj::as_name)
    }
}

impl Obj {
    pub fn as_name(&self) -> Option<&[u8]> {
        match self {
            Obj::Name(n) => Some(n),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Obj::Int(i) => Some(*i as f64),
            Obj::Real(r) if r.is_finite() => Some(*r),
            _ => None,
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Obj::Int(i) => Some(*i),
            Obj::Real(r) if r.is_finite() => Some(*r as i64),
            _ => None,
        }
    }

    pub fn as_dict(&self) -> Option<&Dict> {
        match self {
            Obj::Dict(d) => Some(d),
            Obj::Stream(s) => Some(&s.dict),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Obj]> {
        match self {
            Obj::Array(a) => Some(a),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&[u8]> {
        match self {
            Obj::Str(s) => Some(s),
            _ => None,
        }
    }
}

/// A token of PDF syntax.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Tok<'a> {
    Int(i64),
    Real(f64),
    Str(Vec<u8>),
    Name(Vec<u8>),
    ArrayOpen,
    ArrayClose,
    DictOpen,
    DictClose,
    /// A bare word: `obj`, `R`, `true`, an operator; a stray delimiter is one byte of it.
    Keyword(&'a [u8]),
}

pub(super) fn is_white(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'\0')
}

pub(super) fn is_delim(b: u8) -> bool {
    matches!(
        b,
        b'(' | b')' | b'<' | b'>' | b'[' | b']' | b'{' | b'}' | b'/' | b'%'
    )
}

/// Hex digits up to `>` (whitespace and junk skipped, an odd last digit padded with 0),
/// as a hex string and the ASCIIHexDecode filter read them: the bytes, how much input was
/// used (the `>` included), and whether the output stopped at `cap` bytes.
pub(super) fn unhex(input: &[u8], cap: usize) -> (Vec<u8>, usize, bool) {
    let mut out = Vec::new();
    let mut hi: Option<u8> = None;
    let mut used = input.len();
    for (i, &c) in input.iter().enumerate() {
        let v = match c {
            b'>' => {
                used = i + 1;
                break;
            }
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            _ => continue,
        };
        match hi.take() {
            Some(h) => {
                if out.len() >= cap {
                    return (out, i, true);
                }
                out.push(h << 4 | v);
            }
            None => hi = Some(v),
        }
    }
    if let Some(h) = hi {
        if out.len() >= cap {
            return (out, used, true);
        }
        out.push(h << 4);
    }
    (out, used, false)
}

/// A lexer over a byte slice.
pub(super) struct Lexer<'a> {
    pub buf: &'a [u8],
    pub pos: usize,
}

impl<'a> Lexer<'a> {
    pub fn new(buf: &'a [u8], pos: usize) -> Lexer<'a> {
        Lexer { buf, pos }
    }

    fn peek(&self) -> Option<u8> {
        self.buf.get(self.pos).copied()
    }

    /// Skip whitespace and comments.
    pub fn skip_white(&mut self) {
        while let Some(b) = self.peek() {
            if is_white(b) {
                self.pos += 1;
            } else if b == b'%' {
                while let Some(c) = self.peek() {
                    if c == b'\n' || c == b'\r' {
                        break;
                    }
                    self.pos += 1;
                }
            } else {
                break;
            }
        }
    }

    /// The next token, or None at the end of the input.
    pub fn next_tok(&mut self) -> Option<Tok<'a>> {
        self.skip_white();
        let b = self.peek()?;
        match b {
            b'[' => {
                self.pos += 1;
                Some(Tok::ArrayOpen)
            }
            b']' => {
                self.pos += 1;
                Some(Tok::ArrayClose)
            }
            b'<' if self.buf.get(self.pos + 1) == Some(&b'<') => {
                self.pos += 2;
                Some(Tok::DictOpen)
            }
            b'>' if self.buf.get(self.pos + 1) == Some(&b'>') => {
                self.pos += 2;
                Some(Tok::DictClose)
            }
            b'<' => Some(Tok::Str(self.hex_string())),
            b'(' => Some(Tok::Str(self.literal_string())),
            b'/' => Some(Tok::Name(self.name())),
            b'0'..=b'9' | b'+' | b'-' | b'.' => Some(self.number()),
            _ if is_delim(b) => {
                self.pos += 1;
                Some(Tok::Keyword(&self.buf[self.pos - 1..self.pos]))
            }
            _ => {
                let start = self.pos;
                while self.peek().is_some_and(|c| !is_white(c) && !is_delim(c)) {
                    self.pos += 1;
                }
                Some(Tok::Keyword(&self.buf[start..self.pos]))
            }
        }
    }

    fn number(&mut self) -> Tok<'a> {
        let start = self.pos;
        let mut neg = false;
        while let Some(c @ (b'+' | b'-')) = self.peek() {
            neg ^= c == b'-';
            self.pos += 1;
        }
        let mut int: i64 = 0;
        let mut frac = 0.0f64;
        let mut scale = 1.0f64;
        let mut dot = false;
        let mut digits = 0usize;
        while let Some(c) = self.peek() {
            match c {
                b'0'..=b'9' if dot => {
                    scale /= 10.0;
                    frac += f64::from(c - b'0') * scale;
                    digits += 1;
                }
                b'0'..=b'9' => {
                    int = int.saturating_mul(10).saturating_add(i64::from(c - b'0'));
                    digits += 1;
                }
                b'.' if !dot => dot = true,
                _ => break,
            }
            self.pos += 1;
        }
        if digits == 0 {
            // `+`, `-` or `.` alone: not a number; read it as a keyword.
            while self.peek().is_some_and(|c| !is_white(c) && !is_delim(c)) {
                self.pos += 1;
            }
            return Tok::Keyword(&self.buf[start..self.pos.max(start + 1).min(self.buf.len())]);
        }
        if dot {
            let v = int as f64 + frac;
            Tok::Real(if neg { -v } else { v })
        } else {
            Tok::Int(if neg { -int } else { int })
        }
    }

    fn name(&mut self) -> Vec<u8> {
        self.pos += 1;
        let mut out = Vec::new();
        while let Some(c) = self.peek() {
            if is_white(c) || is_delim(c) {
                break;
            }
            if c == b'#' {
                let h = self
                    .buf
                    .get(self.pos + 1..self.pos + 3)
                    .and_then(|h| std::str::from_utf8(h).ok())
                    .and_then(|h| u8::from_str_radix(h, 16).ok());
                if let Some(v) = h {
                    out.push(v);
                    self.pos += 3;
                    continue;
                }
            }
            out.push(c);
            self.pos += 1;
        }
        out
    }

    fn hex_string(&mut self) -> Vec<u8> {
        let (out, used, _) = unhex(&self.buf[self.pos + 1..], usize::MAX);
        self.pos += 1 + used;
        out
    }

    fn literal_string(&mut self) -> Vec<u8> {
        self.pos += 1;
        let mut out = Vec::new();
        let mut depth = 1usize;
        while let Some(c) = self.peek() {
            self.pos += 1;
            match c {
                b'(' => {
                    depth += 1;
                    out.push(c);
                }
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                    out.push(c);
                }
                b'\\' => {
                    let Some(e) = self.peek() else { break };
                    self.pos += 1;
                    match e {
                        b'n' => out.push(b'\n'),
                        b'r' => out.push(b'\r'),
                        b't' => out.push(b'\t'),
                        b'b' => out.push(8),
                        b'f' => out.push(12),
                        b'\r' => {
                            if self.peek() == Some(b'\n') {
                                self.pos += 1;
                            }
                        }
                        b'\n' => {}
                        b'0'..=b'7' => {
                            let mut v = u32::from(e - b'0');
                            for _ in 0..2 {
                                match self.peek() {
                                    Some(d @ b'0'..=b'7') => {
                                        v = v * 8 + u32::from(d - b'0');
                                        self.pos += 1;
                                    }
                                    _ => break,
                                }
                            }
                            out.push((v & 0xff) as u8);
                        }
                        other => out.push(other),
                    }
                }
                _ => out.push(c),
            }
        }
        out
    }
}

/// Why an object did not parse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum SyntaxError {
    /// The input ended inside the object.
    Eof,
    /// Arrays or dictionaries nested deeper than [`MAX_DEPTH`].
    TooDeep,
    /// A token that cannot start or continue an object here.
    Unexpected,
}

/// Parse one object from the lexer: a direct object, or `N G R`. A keyword that is not
/// `true`, `false`, `null` or `R` is [`SyntaxError::Unexpected`] (the lexer is left
/// after it).
pub(super) fn parse_object(lx: &mut Lexer<'_>, depth: usize) -> Result<Obj, SyntaxError> {
    let tok = lx.next_tok().ok_or(SyntaxError::Eof)?;
    parse_from(lx, tok, depth)
}

pub(super) fn parse_from(
    lx: &mut Lexer<'_>,
    tok: Tok<'_>,
    depth: usize,
) -> Result<Obj, SyntaxError> {
    if depth > MAX_DEPTH {
        return Err(SyntaxError::TooDeep);
    }
    Ok(match tok {
        Tok::Int(i) => {
            // `N G R`: look ahead two tokens, and step back when it is not a reference.
            let save = lx.pos;
            if let (Ok(num), Some(Tok::Int(gen))) = (u32::try_from(i), lx.next_tok()) {
                if let Some(Tok::Keyword(b"R")) = lx.next_tok() {
                    return Ok(Obj::Ref(num, u16::try_from(gen).unwrap_or(0)));
                }
            }
            lx.pos = save;
            Obj::Int(i)
        }
        Tok::Real(r) => Obj::Real(r),
        Tok::Str(s) => Obj::Str(s),
        Tok::Name(n) => Obj::Name(n),
        Tok::ArrayOpen => {
            let mut items = Vec::new();
            loop {
                let save = lx.pos;
                let Some(t) = lx.next_tok() else { break };
                match t {
                    Tok::ArrayClose => break,
                    Tok::Keyword(b"endobj" | b"stream" | b"endstream" | b"obj") => {
                        lx.pos = save;
                        break;
                    }
                    Tok::DictClose => return Err(SyntaxError::Unexpected),
                    t => items.push(parse_from(lx, t, depth + 1)?),
                }
            }
            Obj::Array(items)
        }
        Tok::DictOpen => {
            let mut d = Dict::default();
            loop {
                let save = lx.pos;
                let Some(t) = lx.next_tok() else { break };
                match t {
                    Tok::DictClose => break,
                    // An unclosed dictionary (a damaged file): it ends where the object
                    // does, as lenient readers read it.
                    Tok::Keyword(
                        b"endobj" | b"stream" | b"endstream" | b"obj" | b"trailer" | b"xref",
                    ) => {
                        lx.pos = save;
                        break;
                    }
                    Tok::Name(k) => {
                        let save = lx.pos;
                        let Some(t) = lx.next_tok() else { break };
                        if t == Tok::DictClose {
                            // A key without a value at the end: treat as null, as readers do.
                            break;
                        }
                        if let Tok::Keyword(b"endobj" | b"stream" | b"endstream" | b"obj") = t {
                            lx.pos = save;
                            break;
                        }
                        let v = parse_from(lx, t, depth + 1)?;
                        if d.get(&k).is_none() {
                            d.0.push((k, v));
                        }
                    }
                    // Junk where a key should be: skip it, as lenient readers do.
                    Tok::ArrayClose => return Err(SyntaxError::Unexpected),
                    t => {
                        parse_from(lx, t, depth + 1).ok();
                    }
                }
            }
            Obj::Dict(d)
        }
        Tok::Keyword(b"true") => Obj::Bool(true),
        Tok::Keyword(b"false") => Obj::Bool(false),
        Tok::Keyword(b"null") => Obj::Null,
        Tok::ArrayClose | Tok::DictClose | Tok::Keyword(_) => return Err(SyntaxError::Unexpected),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Obj, SyntaxError> {
        parse_object(&mut Lexer::new(s.as_bytes(), 0), 0)
    }

    #[test]
    fn objects_parse() {
        assert_eq!(parse("12 0 R"), Ok(Obj::Ref(12, 0)));
        assert_eq!(parse("12 0 obj"), Ok(Obj::Int(12)));
        assert_eq!(parse("-.5"), Ok(Obj::Real(-0.5)));
        assert_eq!(
            parse("(a\\(b\\)\\101\\\nc)"),
            Ok(Obj::Str(b"a(b)Ac".to_vec()))
        );
        assert_eq!(parse("<48 65 6c6>"), Ok(Obj::Str(b"Hel`".to_vec())));
        assert_eq!(parse("/A#20B"), Ok(Obj::Name(b"A B".to_vec())));
        let d = parse("<< /Type /Page /Kids [1 0 R 2 0 R] /N null >>").unwrap_or(Obj::Null);
        let d = d.as_dict().cloned().unwrap_or_default();
        assert_eq!(d.name(b"Type"), Some(&b"Page"[..]));
        assert_eq!(
            d.get(b"Kids"),
            Some(&Obj::Array(vec![Obj::Ref(1, 0), Obj::Ref(2, 0)]))
        );
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let s = "[".repeat(100_000);
        assert_eq!(parse(&s), Err(SyntaxError::TooDeep));
        // Dictionaries skip what does not parse as a key: bounded, and no overflow.
        let s = "<<".repeat(100_000);
        assert!(matches!(parse(&s), Err(_) | Ok(Obj::Dict(_))));
        // Unclosed at the end of the input: what was read is kept.
        assert_eq!(
            parse("[1 2"),
            Ok(Obj::Array(vec![Obj::Int(1), Obj::Int(2)]))
        );
    }

    #[test]
    fn huge_numbers_saturate() {
        assert_eq!(parse("99999999999999999999999"), Ok(Obj::Int(i64::MAX)));
        assert!(matches!(parse("--5"), Ok(Obj::Int(5))));
    }
}
