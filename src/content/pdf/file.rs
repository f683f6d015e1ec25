//! The file structure: cross-reference tables and streams (with `/Prev` chains and
//! hybrid files), object streams, decryption, and repair by scanning for `N G obj` when
//! the table is missing or points at the wrong bytes.
//!
//! Nothing is sized from a number the file states: the table is a map filled entry by
//! entry as entries are read (at most [`MAX_XREF_ENTRIES`]), `/Count` and `/Size` size
//! nothing, and every object loaded is counted against the budget.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::ops::Deref;
use std::rc::Rc;

use super::crypt::{Crypt, NeedsPassword};
use super::filter::{self, DecodeError, Predictor, Stage};
use super::syntax::{parse_from, parse_object, Dict, Lexer, Obj, Stream, Tok};
use super::{Budget, Stop};

/// Entries read from cross-reference sections at most.
pub(super) const MAX_XREF_ENTRIES: usize = 500_000;
/// `/Prev` and `/XRefStm` links followed at most.
const MAX_SECTIONS: usize = 64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Entry {
    Offset(usize),
    InStream(u32, u32),
}

/// An object resolved from a reference, or the object itself.
pub(super) enum Res<'b> {
    Borrowed(&'b Obj),
    Owned(Rc<Obj>),
}

impl Deref for Res<'_> {
    type Target = Obj;
    fn deref(&self) -> &Obj {
        match self {
            Res::Borrowed(o) => o,
            Res::Owned(o) => o,
        }
    }
}

static NULL: Obj = Obj::Null;

/// Why the document did not open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum OpenError {
    Encrypted,
    Malformed(String),
    Stopped(Stop),
}

/// An open document.
pub(super) struct File<'a> {
    buf: &'a [u8],
    xref: HashMap<u32, Entry>,
    pub trailer: Dict,
    crypt: Option<Crypt>,
    cache: RefCell<HashMap<u32, Rc<Obj>>>,
    /// Object streams already unpacked.
    unpacked: RefCell<HashSet<u32>>,
    /// Objects being loaded (a `/Length` that refers to its own object, an object stream
    /// inside itself).
    loading: RefCell<HashSet<u32>>,
    /// The table rebuilt by scanning, made when the first lookup misses.
    scanned: RefCell<Option<HashMap<u32, Entry>>>,
    /// The table was rebuilt by scanning (the original was broken).
    pub repaired: Cell<bool>,
    pub budget: &'a Budget<'a>,
}

pub(super) fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() || hay.len() < needle.len() {
        return None;
    }
    let first = needle[0];
    let mut i = 0;
    while i + needle.len() <= hay.len() {
        match hay[i..=hay.len() - needle.len()]
            .iter()
            .position(|&b| b == first)
        {
            Some(p) => {
                i += p;
                if &hay[i..i + needle.len()] == needle {
                    return Some(i);
                }
                i += 1;
            }
            None => return None,
        }
    }
    None
}

fn rfind(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).rposition(|w| w == needle)
}

impl<'a> File<'a> {
    /// Open a document: read its cross-references (or rebuild them), then its
    /// encryption with the empty user password.
    pub fn open(buf: &'a [u8], budget: &'a Budget<'a>) -> Result<File<'a>, OpenError> {
        let mut f = File {
            buf,
            xref: HashMap::new(),
            trailer: Dict::default(),
            crypt: None,
            cache: RefCell::new(HashMap::new()),
            unpacked: RefCell::new(HashSet::new()),
            loading: RefCell::new(HashSet::new()),
            scanned: RefCell::new(None),
            repaired: Cell::new(false),
            budget,
        };
        f.read_xref();
        if let Some(stop) = budget.stopped() {
            return Err(OpenError::Stopped(stop));
        }
        f.setup_crypt()?;
        if !f.catalog_ok() {
            f.rebuild();
            if let Some(stop) = budget.stopped() {
                return Err(OpenError::Stopped(stop));
            }
            if f.crypt.is_none() {
                f.setup_crypt()?;
            }
        }
        if !f.catalog_ok() {
            if let Some(stop) = budget.stopped() {
                return Err(OpenError::Stopped(stop));
            }
            return Err(OpenError::Malformed(
                "no document catalog (the cross-reference table is broken and no object repairs it)".into(),
            ));
        }
        Ok(f)
    }

    /// Open the security handler named by the trailer's `/Encrypt`, if any.
    fn setup_crypt(&mut self) -> Result<(), OpenError> {
        let Some(enc) = self.trailer.get(b"Encrypt").cloned() else {
            return Ok(());
        };
        let enc = self.resolve(&enc).as_dict().cloned();
        let id0 = self
            .trailer
            .get(b"ID")
            .and_then(|o| {
                self.resolve(o)
                    .as_array()
                    .and_then(|a| a.first())
                    .and_then(Obj::as_str)
                    .map(<[u8]>::to_vec)
            })
            .unwrap_or_default();
        let Some(enc) = enc else {
            return Err(OpenError::Encrypted);
        };
        let c = Crypt::open(&enc, &id0).map_err(|NeedsPassword| OpenError::Encrypted)?;
        // Objects read so far were read in clear.
        self.cache.borrow_mut().clear();
        self.unpacked.borrow_mut().clear();
        self.crypt = Some(c);
        Ok(())
    }

    fn catalog_ok(&self) -> bool {
        let Some(root) = self.trailer.get(b"Root") else {
            return false;
        };
        let root = self.resolve(root);
        root.as_dict().is_some_and(|d| d.get(b"Pages").is_some())
    }

    /// Follow `startxref` through every section.
    fn read_xref(&mut self) {
        let buf = self.buf;
        let tail = buf.len().saturating_sub(4096);
        let Some(p) = rfind(&buf[tail..], b"startxref").map(|p| p + tail) else {
            return;
        };
        let mut lx = Lexer::new(buf, p + b"startxref".len());
        let Some(Tok::Int(off)) = lx.next_tok() else {
            return;
        };
        let mut queue = vec![usize::try_from(off).unwrap_or(usize::MAX)];
        let mut seen = HashSet::new();
        let mut first = true;
        while let Some(off) = queue.pop() {
            if off >= buf.len() || !seen.insert(off) || seen.len() > MAX_SECTIONS {
                continue;
            }
            let Some(trailer) = self.read_section(off) else {
                continue;
            };
            if let Some(prev) = trailer.get(b"Prev").and_then(Obj::as_i64) {
                queue.push(usize::try_from(prev).unwrap_or(usize::MAX));
            }
            if let Some(stm) = trailer.get(b"XRefStm").and_then(Obj::as_i64) {
                queue.push(usize::try_from(stm).unwrap_or(usize::MAX));
            }
            if first {
                self.trailer = trailer;
                first = false;
            } else {
                for (k, v) in trailer.0 {
                    if self.trailer.get(&k).is_none() && k != b"Prev" && k != b"XRefStm" {
                        self.trailer.0.push((k, v));
                    }
                }
            }
        }
    }

    fn add(&mut self, num: u32, e: Entry) -> bool {
        if self.xref.len() >= MAX_XREF_ENTRIES {
            return false;
        }
        self.xref.entry(num).or_insert(e);
        true
    }

    /// One section: a table and its trailer, or a cross-reference stream.
    fn read_section(&mut self, off: usize) -> Option<Dict> {
        let buf = self.buf;
        let mut lx = Lexer::new(buf, off);
        lx.skip_white();
        if buf[lx.pos..].starts_with(b"xref") {
            lx.pos += 4;
            loop {
                match lx.next_tok() {
                    Some(Tok::Int(start)) => {
                        let Some(Tok::Int(count)) = lx.next_tok() else {
                            return None;
                        };
                        let mut i = 0i64;
                        while i < count {
                            let at = lx.pos;
                            let (Some(Tok::Int(o)), Some(Tok::Int(_gen)), Some(Tok::Keyword(kind))) =
                                (lx.next_tok(), lx.next_tok(), lx.next_tok())
                            else {
                                // Fewer entries than the count says: the next subsection
                                // or the trailer starts here.
                                lx.pos = at;
                                break;
                            };
                            let num = u32::try_from(start.saturating_add(i)).ok()?;
                            if kind == b"n" && o > 0 {
                                if !self.add(num, Entry::Offset(usize::try_from(o).ok()?)) {
                                    break;
                                }
                            } else if kind == b"f" {
                                // Free: an older section must not bring it back.
                                if self.xref.len() < MAX_XREF_ENTRIES {
                                    self.xref.entry(num).or_insert(Entry::Offset(0));
                                }
                            }
                            i += 1;
                        }
                    }
                    Some(Tok::Keyword(b"trailer")) => {
                        return parse_object(&mut lx, 0).ok().and_then(|o| match o {
                            Obj::Dict(d) => Some(d),
                            _ => None,
                        });
                    }
                    _ => return None,
                }
            }
        }
        // A cross-reference stream.
        let (_, obj) = self.parse_at(off)?;
        let Obj::Stream(s) = obj else { return None };
        if s.dict.name(b"Type") != Some(b"XRef") {
            return None;
        }
        let data = self.decode_stream(&s).ok()?;
        let w: Vec<usize> = s
            .dict
            .get(b"W")
            .and_then(Obj::as_array)?
            .iter()
            .map(|o| o.as_i64().unwrap_or(0).clamp(0, 8) as usize)
            .collect();
        if w.len() < 3 {
            return None;
        }
        let row = w[0] + w[1] + w[2];
        if row == 0 {
            return None;
        }
        let index: Vec<i64> = match s.dict.get(b"Index").and_then(Obj::as_array) {
            Some(a) => a.iter().filter_map(Obj::as_i64).collect(),
            None => vec![0, s.dict.get(b"Size").and_then(Obj::as_i64).unwrap_or(0)],
        };
        let field = |b: &[u8]| b.iter().fold(0u64, |a, &x| a << 8 | u64::from(x));
        let mut rows = data.chunks_exact(row);
        'sections: for pair in index.chunks_exact(2) {
            for i in 0..pair[1].max(0) {
                let Some(r) = rows.next() else {
                    break 'sections;
                };
                let kind = if w[0] == 0 { 1 } else { field(&r[..w[0]]) };
                let a = field(&r[w[0]..w[0] + w[1]]);
                let b = field(&r[w[0] + w[1]..]);
                let Ok(num) = u32::try_from(pair[0].saturating_add(i)) else {
                    break 'sections;
                };
                let e = match kind {
                    1 if a > 0 => Entry::Offset(usize::try_from(a).unwrap_or(usize::MAX)),
                    2 => Entry::InStream(u32::try_from(a).unwrap_or(u32::MAX), b as u32),
                    _ => Entry::Offset(0),
                };
                if !self.add(num, e) {
                    break 'sections;
                }
            }
        }
        Some(s.dict.clone())
    }

    /// Rebuild the table by scanning the whole file for `N G obj` (later definitions
    /// win, as incremental updates do), and the trailer from the last `trailer` with a
    /// `/Root`, else from a cross-reference stream's dictionary, else from the catalog.
    fn rebuild(&mut self) {
        self.repaired.set(true);
        let table = self.scan();
        let buf = self.buf;
        let mut trailer: Option<Dict> = None;
        let mut at = 0;
        while let Some(p) = find(&buf[at..], b"trailer") {
            let mut lx = Lexer::new(buf, at + p + 7);
            if let Ok(Obj::Dict(d)) = parse_object(&mut lx, 0) {
                if d.get(b"Root").is_some() {
                    trailer = Some(d);
                }
            }
            at += p + 7;
        }
        self.xref = table;
        self.cache.borrow_mut().clear();
        self.unpacked.borrow_mut().clear();
        if trailer.is_none() {
            let mut nums: Vec<u32> = self.xref.keys().copied().collect();
            nums.sort_unstable();
            for num in nums.into_iter().rev() {
                if self.budget.stopped().is_some() {
                    break;
                }
                let Some(o) = self.get(num) else { continue };
                let Some(d) = o.as_dict() else { continue };
                if d.name(b"Type") == Some(b"XRef") && d.get(b"Root").is_some() {
                    trailer = Some(d.clone());
                    break;
                }
                if d.name(b"Type") == Some(b"Catalog")
                    && d.get(b"Pages").is_some()
                    && trailer.is_none()
                {
                    let mut t = Dict::default();
                    t.0.push((b"Root".to_vec(), Obj::Ref(num, 0)));
                    trailer = Some(t);
                }
            }
        }
        if let Some(t) = trailer {
            // Keep `/Encrypt` and `/ID` from the old trailer when the found one lacks them.
            let old = std::mem::take(&mut self.trailer);
            self.trailer = t;
            for (k, v) in old.0 {
                if self.trailer.get(&k).is_none() && (k == b"Encrypt" || k == b"ID" || k == b"Info")
                {
                    self.trailer.0.push((k, v));
                }
            }
        }
    }

    /// Every `N G obj` in the file, and the objects inside object streams found so.
    fn scan(&self) -> HashMap<u32, Entry> {
        let buf = self.buf;
        let mut table = HashMap::new();
        let mut at = 0;
        while let Some(p) = find(&buf[at..], b"obj") {
            let pos = at + p;
            at = pos + 3;
            if pos >= 3 && &buf[pos - 3..pos] == b"end" {
                continue;
            }
            if let Some(start) = obj_header_start(buf, pos) {
                let mut lx = Lexer::new(buf, start);
                if let Some(Tok::Int(n)) = lx.next_tok() {
                    if let Ok(n) = u32::try_from(n) {
                        if table.len() < MAX_XREF_ENTRIES || table.contains_key(&n) {
                            table.insert(n, Entry::Offset(start));
                        }
                    }
                }
            }
        }
        // Object streams: their members are found only inside them.
        let streams: Vec<(u32, usize)> = table
            .iter()
            .filter_map(|(n, e)| match e {
                Entry::Offset(o) => Some((*n, *o)),
                Entry::InStream(..) => None,
            })
            .collect();
        for (num, off) in streams {
            if self.budget.stopped().is_some() {
                break;
            }
            let Some((_, Obj::Stream(s))) = self.parse_at(off) else {
                continue;
            };
            if s.dict.name(b"Type") != Some(b"ObjStm") {
                continue;
            }
            let Ok(data) = self.decode_stream(&s) else {
                continue;
            };
            for (i, (member, _)) in objstm_header(&s.dict, &data).into_iter().enumerate() {
                if table.len() >= MAX_XREF_ENTRIES {
                    break;
                }
                table
                    .entry(member)
                    .or_insert(Entry::InStream(num, i as u32));
            }
        }
        table
    }

    /// Parse `N G obj ... [stream ... endstream]` at `off`.
    fn parse_at(&self, off: usize) -> Option<((u32, u16), Obj)> {
        if !self.budget.count_object() {
            return None;
        }
        let buf = self.buf;
        let mut lx = Lexer::new(buf, off);
        let (Some(Tok::Int(num)), Some(Tok::Int(gen)), Some(Tok::Keyword(b"obj"))) =
            (lx.next_tok(), lx.next_tok(), lx.next_tok())
        else {
            return None;
        };
        let id = (u32::try_from(num).ok()?, u16::try_from(gen).unwrap_or(0));
        let tok = lx.next_tok()?;
        let obj = match tok {
            // An empty object: `N G obj endobj`.
            Tok::Keyword(b"endobj") => Obj::Null,
            t => parse_from(&mut lx, t, 0).ok()?,
        };
        let obj = match (obj, lx.next_tok()) {
            (Obj::Dict(dict), Some(Tok::Keyword(b"stream"))) => {
                let mut start = lx.pos;
                if buf.get(start) == Some(&b'\r') {
                    start += 1;
                }
                if buf.get(start) == Some(&b'\n') {
                    start += 1;
                }
                let end = self.stream_end(&dict, start, id.0);
                Obj::Stream(Box::new(Stream {
                    dict,
                    start,
                    end,
                    id,
                }))
            }
            (o, _) => o,
        };
        Some((id, obj))
    }

    /// Where a stream's bytes end: its `/Length` when `endstream` follows there, else
    /// the next `endstream` (minus its end-of-line).
    fn stream_end(&self, dict: &Dict, start: usize, num: u32) -> usize {
        let buf = self.buf;
        let len = match dict.get(b"Length") {
            Some(Obj::Int(n)) => Some(*n),
            Some(Obj::Ref(r, _)) if *r != num && !self.loading.borrow().contains(r) => {
                self.loading.borrow_mut().insert(num);
                let v = self.get(*r).and_then(|o| o.as_i64());
                self.loading.borrow_mut().remove(&num);
                v
            }
            _ => None,
        };
        if let Some(end) = len
            .and_then(|n| usize::try_from(n).ok())
            .and_then(|n| start.checked_add(n))
            .filter(|&e| e <= buf.len())
        {
            let mut lx = Lexer::new(buf, end);
            lx.skip_white();
            if buf[lx.pos..].starts_with(b"endstream") {
                return end;
            }
        }
        match find(&buf[start..], b"endstream") {
            Some(p) => {
                let mut end = start + p;
                if end > start && buf[end - 1] == b'\n' {
                    end -= 1;
                }
                if end > start && buf[end - 1] == b'\r' {
                    end -= 1;
                }
                end
            }
            None => buf.len(),
        }
    }

    /// Every object number the tables know (the scanned one included when the stated one
    /// is missing objects), ascending.
    pub fn object_numbers(&self) -> Vec<u32> {
        if self.scanned.borrow().is_none() {
            let t = self.scan();
            *self.scanned.borrow_mut() = Some(t);
        }
        let mut nums: Vec<u32> = self.xref.keys().copied().collect();
        if let Some(t) = self.scanned.borrow().as_ref() {
            nums.extend(t.keys().copied());
        }
        nums.sort_unstable();
        nums.dedup();
        nums
    }

    /// The object `num`, loaded once and cached.
    pub fn get(&self, num: u32) -> Option<Rc<Obj>> {
        if let Some(o) = self.cache.borrow().get(&num) {
            return Some(o.clone());
        }
        if self.budget.stopped().is_some() || self.loading.borrow().contains(&num) {
            return None;
        }
        self.loading.borrow_mut().insert(num);
        let found = self.load(num);
        self.loading.borrow_mut().remove(&num);
        let o = Rc::new(found?);
        self.cache.borrow_mut().insert(num, o.clone());
        Some(o)
    }

    fn load(&self, num: u32) -> Option<Obj> {
        match self.xref.get(&num).copied() {
            Some(Entry::Offset(0)) => None,
            Some(Entry::Offset(off)) => match self.parse_at(off) {
                Some((id, o)) if id.0 == num => Some(self.decrypt(id, o)),
                _ => self.load_scanned(num),
            },
            Some(Entry::InStream(stm, _)) => {
                self.unpack(stm, num).or_else(|| self.load_scanned(num))
            }
            None => self.load_scanned(num),
        }
    }

    /// The object from the scanned table (the stated offset was wrong).
    fn load_scanned(&self, num: u32) -> Option<Obj> {
        if self.scanned.borrow().is_none() {
            let t = self.scan();
            *self.scanned.borrow_mut() = Some(t);
        }
        let e = self.scanned.borrow().as_ref()?.get(&num).copied()?;
        match e {
            Entry::Offset(off) => {
                let (id, o) = self.parse_at(off).filter(|(id, _)| id.0 == num)?;
                Some(self.decrypt(id, o))
            }
            Entry::InStream(stm, _) => self.unpack(stm, num),
        }
    }

    /// Unpack object stream `stm` into the cache; return member `num`.
    fn unpack(&self, stm: u32, num: u32) -> Option<Obj> {
        if !self.unpacked.borrow_mut().insert(stm) {
            return None;
        }
        let s = self.get(stm)?;
        let Obj::Stream(s) = &*s else { return None };
        let data = self.decode_stream(s).ok()?;
        let first = s
            .dict
            .get(b"First")
            .and_then(Obj::as_i64)
            .unwrap_or(0)
            .max(0) as usize;
        let mut wanted = None;
        for (member, off) in objstm_header(&s.dict, &data) {
            if !self.budget.count_object() {
                break;
            }
            let Some(at) = first.checked_add(off).filter(|&a| a < data.len()) else {
                continue;
            };
            let Ok(o) = parse_object(&mut Lexer::new(&data, at), 0) else {
                continue;
            };
            let belongs = matches!(self.xref.get(&member), Some(Entry::InStream(s2, _)) if *s2 == stm)
                || !self.xref.contains_key(&member);
            if member == num {
                wanted = Some(o);
            } else if belongs {
                self.cache
                    .borrow_mut()
                    .entry(member)
                    .or_insert_with(|| Rc::new(o));
            }
        }
        wanted
    }

    fn decrypt(&self, id: (u32, u16), mut o: Obj) -> Obj {
        if let Some(c) = &self.crypt {
            decrypt_strings(c, id, &mut o, 0);
        }
        o
    }

    /// Follow a reference (chains included); a missing object is null.
    pub fn resolve<'b>(&'b self, o: &'b Obj) -> Res<'b> {
        let Obj::Ref(mut num, _) = o else {
            return Res::Borrowed(o);
        };
        for _ in 0..8 {
            match self.get(num) {
                Some(r) => match &*r {
                    Obj::Ref(n, _) => num = *n,
                    _ => return Res::Owned(r),
                },
                None => return Res::Borrowed(&NULL),
            }
        }
        Res::Borrowed(&NULL)
    }

    /// `dict[key]`, resolved.
    pub fn get_in<'b>(&'b self, d: &'b Dict, key: &[u8]) -> Res<'b> {
        match d.get(key) {
            Some(o) => self.resolve(o),
            None => Res::Borrowed(&NULL),
        }
    }

    /// A stream's bytes, decrypted and decoded through its filters.
    pub fn decode_stream(&self, s: &Stream) -> Result<Vec<u8>, DecodeError> {
        let raw = &self.buf[s.start.min(self.buf.len())
            ..s.end.min(self.buf.len()).max(s.start.min(self.buf.len()))];
        let decrypted;
        let data: &[u8] = match &self.crypt {
            Some(c)
                if s.dict.name(b"Type") != Some(b"XRef")
                    && (c.encrypt_metadata || s.dict.name(b"Type") != Some(b"Metadata")) =>
            {
                decrypted = c.decrypt_stream(s.id, raw);
                &decrypted
            }
            _ => raw,
        };
        let filters = self.get_in(&s.dict, b"Filter");
        let parms = self.get_in(&s.dict, b"DecodeParms");
        let names: Vec<&[u8]> = match &*filters {
            Obj::Name(n) => vec![n],
            Obj::Array(a) => a.iter().filter_map(Obj::as_name).collect(),
            _ => Vec::new(),
        };
        let parm_at = |i: usize| -> Option<Dict> {
            let p = match &*parms {
                Obj::Array(a) => a.get(i).map(|o| self.resolve(o).as_dict().cloned()),
                o => (i == 0).then(|| o.as_dict().cloned()),
            };
            p.flatten()
        };
        let stages: Vec<Stage<'_>> = names
            .iter()
            .take(8)
            .enumerate()
            .map(|(i, name)| {
                let p = parm_at(i).unwrap_or_default();
                let n = |k: &[u8], d: i64| p.get(k).and_then(Obj::as_i64).unwrap_or(d);
                Stage {
                    name,
                    predictor: Predictor {
                        predictor: n(b"Predictor", 1),
                        colors: n(b"Colors", 1).clamp(1, 32) as usize,
                        bpc: n(b"BitsPerComponent", 8).clamp(1, 16) as usize,
                        columns: n(b"Columns", 1).clamp(1, 1 << 20) as usize,
                    },
                    early_change: n(b"EarlyChange", 1) != 0,
                }
            })
            .collect();
        filter::decode(data, &stages, self.budget)
    }
}

/// The start of `N G ` before `obj` at `pos`, if the bytes there are that.
fn obj_header_start(buf: &[u8], pos: usize) -> Option<usize> {
    let mut i = pos;
    let back_ws = |i: &mut usize| {
        let s = *i;
        while *i > 0 && super::syntax::is_white(buf[*i - 1]) {
            *i -= 1;
        }
        *i < s
    };
    let back_digits = |i: &mut usize| {
        let s = *i;
        while *i > 0 && buf[*i - 1].is_ascii_digit() && s - *i < 10 {
            *i -= 1;
        }
        *i < s
    };
    if !back_ws(&mut i) || !back_digits(&mut i) || !back_ws(&mut i) || !back_digits(&mut i) {
        return None;
    }
    if i > 0 && !super::syntax::is_white(buf[i - 1]) && !super::syntax::is_delim(buf[i - 1]) {
        return None;
    }
    Some(i)
}

/// The `(object number, offset)` pairs at the head of an object stream, at most `/N`
/// and never more than the data can hold.
fn objstm_header(dict: &Dict, data: &[u8]) -> Vec<(u32, usize)> {
    let n = dict.get(b"N").and_then(Obj::as_i64).unwrap_or(0).max(0) as usize;
    let n = n.min(data.len() / 4 + 1);
    let mut lx = Lexer::new(data, 0);
    let mut out = Vec::new();
    for _ in 0..n {
        match (lx.next_tok(), lx.next_tok()) {
            (Some(Tok::Int(num)), Some(Tok::Int(off))) => {
                if let (Ok(num), Ok(off)) = (u32::try_from(num), usize::try_from(off)) {
                    out.push((num, off));
                }
            }
            _ => break,
        }
    }
    out
}

fn decrypt_strings(c: &Crypt, id: (u32, u16), o: &mut Obj, depth: usize) {
    if depth > super::syntax::MAX_DEPTH {
        return;
    }
    match o {
        Obj::Str(s) => *s = c.decrypt_string(id, s),
        Obj::Array(a) => a
            .iter_mut()
            .for_each(|x| decrypt_strings(c, id, x, depth + 1)),
        Obj::Dict(d) => {
            d.0.iter_mut()
                .for_each(|(_, x)| decrypt_strings(c, id, x, depth + 1))
        }
        Obj::Stream(s) => s
            .dict
            .0
            .iter_mut()
            .for_each(|(_, x)| decrypt_strings(c, id, x, depth + 1)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;

    #[test]
    fn header_start_is_found_backwards() {
        let b = b"junk\n12 0 obj\n<<>>";
        assert_eq!(obj_header_start(b, 10), Some(5));
        assert_eq!(obj_header_start(b"x12 0 obj", 6), None);
    }

    #[test]
    fn a_file_without_xref_is_rebuilt() {
        let pdf = b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\n";
        let cancel = AtomicBool::new(false);
        let budget = Budget::new(&cancel, 1 << 20, 1 << 20);
        let f = File::open(pdf, &budget);
        assert!(f.as_ref().is_ok_and(|f| f.repaired.get()), "{:?}", f.err());
    }
}
