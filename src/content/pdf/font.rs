//! Fonts: from the bytes a text operator shows to characters and advance widths.
//!
//! Simple fonts (Type1, TrueType, Type3, MMType1) read one byte a code; their text comes
//! from `/ToUnicode`, else from the encoding (`/Differences` over a base encoding, glyph
//! names through the Adobe Glyph List). Composite fonts (Type0) read codes as their CMap
//! says (Identity-H/V: two bytes; an embedded CMap: its code space ranges) and get their
//! text from `/ToUnicode`, or from the code itself for the UCS-2/UTF-16 CMaps. Maps are
//! kept as ranges, never expanded, so a range `<0000> <FFFFFFFF>` costs one entry.

use std::collections::HashMap;

use super::cid;
use super::file::File;
use super::syntax::{Dict, Lexer, Obj, Tok};
use super::tables;
use super::truetype;

/// Entries read from one CMap at most.
const MAX_CMAP_ENTRIES: usize = 200_000;

/// A CMap: code space ranges, code → text (bfchar/bfrange) and code → CID
/// (cidchar/cidrange).
#[derive(Debug, Default, Clone)]
pub(super) struct CMap {
    /// (low, high) byte strings of equal length.
    space: Vec<(Vec<u8>, Vec<u8>)>,
    chars: HashMap<u32, String>,
    /// (low, high, UTF-16 units of low's text); sorted by low.
    ranges: Vec<(u32, u32, Vec<u16>)>,
    /// (low, high, first CID); sorted by low.
    cids: Vec<(u32, u32, u32)>,
}

fn code_of(b: &[u8]) -> u32 {
    b.iter().take(4).fold(0u32, |a, &x| a << 8 | u32::from(x))
}

fn utf16(b: &[u8]) -> Vec<u16> {
    if b.len() % 2 == 1 {
        return b.iter().map(|&x| u16::from(x)).collect();
    }
    b.chunks_exact(2)
        .map(|c| u16::from(c[0]) << 8 | u16::from(c[1]))
        .collect()
}

impl CMap {
    /// Parse a CMap program (ToUnicode or an encoding CMap).
    pub fn parse(data: &[u8]) -> CMap {
        let mut m = CMap::default();
        let mut lx = Lexer::new(data, 0);
        let mut entries = 0usize;
        let mut strs: Vec<Obj> = Vec::new();
        while let Some(t) = lx.next_tok() {
            entries += 1;
            if entries > MAX_CMAP_ENTRIES * 4 {
                break;
            }
            match t {
                Tok::Keyword(
                    b"begincodespacerange"
                    | b"beginbfchar"
                    | b"beginbfrange"
                    | b"begincidrange"
                    | b"begincidchar",
                ) => {
                    strs.clear();
                }
                Tok::Keyword(b"endcodespacerange") => {
                    for p in strs.chunks_exact(2) {
                        if let (Obj::Str(a), Obj::Str(b)) = (&p[0], &p[1]) {
                            if a.len() == b.len() && !a.is_empty() && a.len() <= 4 {
                                m.space.push((a.clone(), b.clone()));
                            }
                        }
                    }
                    strs.clear();
                }
                Tok::Keyword(b"endbfchar") => {
                    for p in strs.chunks_exact(2) {
                        if let Obj::Str(src) = &p[0] {
                            let text = match &p[1] {
                                Obj::Str(d) => String::from_utf16_lossy(&utf16(d)),
                                Obj::Name(n) => glyph_text(n).unwrap_or_default(),
                                _ => continue,
                            };
                            m.chars.insert(code_of(src), text);
                        }
                    }
                    strs.clear();
                }
                Tok::Keyword(b"endbfrange") => {
                    for p in strs.chunks_exact(3) {
                        let (Obj::Str(lo), Obj::Str(hi)) = (&p[0], &p[1]) else {
                            continue;
                        };
                        let (lo, hi) = (code_of(lo), code_of(hi));
                        if hi < lo {
                            continue;
                        }
                        match &p[2] {
                            Obj::Str(d) => m.ranges.push((lo, hi, utf16(d))),
                            Obj::Array(a) => {
                                for (i, d) in a.iter().enumerate().take((hi - lo) as usize + 1) {
                                    if let Obj::Str(d) = d {
                                        m.chars.insert(
                                            lo + i as u32,
                                            String::from_utf16_lossy(&utf16(d)),
                                        );
                                    }
                                }
                            }
                            _ => {}
                        }
                    }
                    strs.clear();
                }
                Tok::Keyword(b"endcidrange") => {
                    for p in strs.chunks_exact(3) {
                        if let (Obj::Str(lo), Obj::Str(hi), Some(cid)) =
                            (&p[0], &p[1], p[2].as_i64())
                        {
                            let (lo, hi) = (code_of(lo), code_of(hi));
                            if hi >= lo {
                                m.cids
                                    .push((lo, hi, cid.clamp(0, i64::from(u32::MAX)) as u32));
                            }
                        }
                    }
                    strs.clear();
                }
                Tok::Keyword(b"endcidchar") => {
                    for p in strs.chunks_exact(2) {
                        if let (Obj::Str(c), Some(cid)) = (&p[0], p[1].as_i64()) {
                            let c = code_of(c);
                            m.cids
                                .push((c, c, cid.clamp(0, i64::from(u32::MAX)) as u32));
                        }
                    }
                    strs.clear();
                }
                Tok::Str(s) if strs.len() < MAX_CMAP_ENTRIES => strs.push(Obj::Str(s)),
                Tok::Name(n) if strs.len() < MAX_CMAP_ENTRIES => strs.push(Obj::Name(n)),
                Tok::Int(i) if strs.len() < MAX_CMAP_ENTRIES => strs.push(Obj::Int(i)),
                Tok::ArrayOpen => {
                    let mut items = Vec::new();
                    while let Some(t) = lx.next_tok() {
                        match t {
                            Tok::ArrayClose => break,
                            Tok::Str(s) if items.len() < 65_536 => items.push(Obj::Str(s)),
                            _ => {}
                        }
                    }
                    if strs.len() < MAX_CMAP_ENTRIES {
                        strs.push(Obj::Array(items));
                    }
                }
                _ => {}
            }
        }
        m.ranges.sort_by_key(|r| r.0);
        m.cids.sort_by_key(|r| r.0);
        m
    }

    fn is_empty(&self) -> bool {
        self.chars.is_empty() && self.ranges.is_empty() && self.cids.is_empty()
    }

    /// The text of `code`, if mapped.
    pub fn text(&self, code: u32) -> Option<String> {
        if let Some(t) = self.chars.get(&code) {
            return Some(t.clone());
        }
        let i = self.ranges.partition_point(|r| r.0 <= code);
        let Some((lo, _, base)) = i
            .checked_sub(1)
            .and_then(|i| self.ranges.get(i))
            .filter(|r| code <= r.1)
        else {
            // Some writers put `cidrange` entries in a ToUnicode map: the "CID" is the
            // character (as pdfminer reads them).
            return self.cid(code).and_then(char::from_u32).map(String::from);
        };
        let mut units = base.clone();
        let last = units.last_mut()?;
        *last = last.wrapping_add((code - lo) as u16);
        Some(String::from_utf16_lossy(&units))
    }

    fn cid(&self, code: u32) -> Option<u32> {
        let i = self.cids.partition_point(|r| r.0 <= code);
        let (lo, hi, first) = self.cids.get(i.checked_sub(1)?)?;
        (code <= *hi).then(|| first.saturating_add(code - lo))
    }

    /// Split the next code off `s`: its value and length in bytes.
    fn next_code(&self, s: &[u8]) -> (u32, usize) {
        for n in 1..=4usize.min(s.len()) {
            let c = &s[..n];
            if self.space.iter().any(|(lo, hi)| {
                lo.len() == n
                    && c.iter()
                        .zip(lo.iter().zip(hi))
                        .all(|(b, (l, h))| l <= b && b <= h)
            }) {
                return (code_of(c), n);
            }
        }
        let n = self
            .space
            .iter()
            .map(|r| r.0.len())
            .min()
            .unwrap_or(2)
            .min(s.len())
            .max(1);
        (code_of(&s[..n]), n)
    }
}

/// The text of a glyph name: the Adobe Glyph List, `uniXXXX`, `uXXXX`, and the
/// components of `f_f_i` or `a.sc`.
pub(super) fn glyph_text(name: &[u8]) -> Option<String> {
    let name = std::str::from_utf8(name).ok()?;
    let base = name.split('.').next().unwrap_or(name);
    if base.is_empty() {
        return None;
    }
    if base.contains('_') {
        let parts: Option<String> = base.split('_').map(|p| glyph_text(p.as_bytes())).collect();
        return parts;
    }
    if let Ok(i) = tables::GLYPH_NAMES.binary_search_by(|(n, _)| (*n).cmp(base)) {
        return Some(tables::GLYPH_NAMES[i].1.to_string());
    }
    if let Some(hex) = base.strip_prefix("uni") {
        if hex.len() >= 4 && hex.len() % 4 == 0 && hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            let units: Vec<u16> = hex
                .as_bytes()
                .chunks(4)
                .filter_map(|c| u16::from_str_radix(std::str::from_utf8(c).ok()?, 16).ok())
                .collect();
            return Some(String::from_utf16_lossy(&units));
        }
    }
    if let Some(hex) = base.strip_prefix('u') {
        if (4..=6).contains(&hex.len()) && hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return u32::from_str_radix(hex, 16)
                .ok()
                .and_then(char::from_u32)
                .map(String::from);
        }
    }
    None
}

/// How a legacy CJK CMap (`90ms-RKSJ-H`, `GBK-EUC-H`, `H`, ...) splits its codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lead {
    /// Shift-JIS: 0x81-0x9F and 0xE0-0xFC lead two bytes.
    ShiftJis,
    /// EUC, GBK, Big5, UHC: a byte from 0x81 leads two bytes.
    High,
    /// ISO-2022 JIS X 0208 (`H`, `V`): two bytes, read as EUC-JP with the high bits set.
    Jis,
}

#[derive(Debug, Clone)]
enum Codes {
    /// One byte a code.
    Simple,
    /// A predefined CJK CMap over a legacy encoding: the code's bytes are the text in it.
    Legacy(&'static encoding_rs::Encoding, Lead),
    /// Two bytes a code, code = CID (Identity-H/V, and CMaps we only know the width of).
    TwoByte,
    /// An embedded CMap.
    Embedded(CMap),
}

/// A font as far as text needs it.
#[derive(Debug, Clone)]
pub(super) struct Font {
    codes: Codes,
    to_unicode: Option<CMap>,
    /// Simple fonts: text by code, from the encoding.
    encoding: Option<Box<[Option<char>; 256]>>,
    /// Composite fonts whose CMap is UCS-2 or UTF-16: the code is the text.
    code_is_unicode: bool,
    /// Composite fonts of an Adobe CJK collection: CIDs map to text without `/ToUnicode`.
    collection: Option<cid::Collection>,
    /// Composite TrueType fonts without `/ToUnicode`: glyph → character from the embedded
    /// font's cmap, and CID → glyph (`/CIDToGIDMap`; None is the identity).
    glyph_text: Option<HashMap<u16, char>>,
    cid_to_gid: Option<Vec<u16>>,
    /// Simple fonts: widths by code (text space units, already scaled).
    widths: Vec<f64>,
    first_char: u32,
    /// Composite fonts: (first CID, last CID, width).
    cid_widths: Vec<(u32, u32, f64)>,
    default_width: f64,
    /// Font descent, in text space units (negative).
    pub descent: f64,
    pub vertical: bool,
}

/// One glyph of a shown string.
pub(super) struct Glyph<'s> {
    pub code: u32,
    /// A one-byte code 32: word spacing applies.
    pub is_space: bool,
    pub text: Option<&'s str>,
    /// Advance width in text space units (per unit font size).
    pub width: f64,
}

fn base14_width(base: &[u8], code: usize) -> Option<f64> {
    let base = std::str::from_utf8(base).ok()?;
    let base = base.split_once('+').map_or(base, |(_, b)| b);
    if base.starts_with("Courier") {
        return Some(0.6);
    }
    let family = if base.starts_with("Times") {
        if base.contains("BoldItalic") {
            "Times-BoldItalic"
        } else if base.contains("Bold") {
            "Times-Bold"
        } else if base.contains("Italic") {
            "Times-Italic"
        } else {
            "Times-Roman"
        }
    } else if base.starts_with("Helvetica") || base.starts_with("Arial") {
        if base.contains("Bold") {
            "Helvetica-Bold"
        } else {
            "Helvetica"
        }
    } else {
        return None;
    };
    let (_, w) = tables::BASE14_WIDTHS.iter().find(|(n, _)| *n == family)?;
    code.checked_sub(32)
        .and_then(|i| w.get(i))
        .map(|&w| f64::from(w) / 1000.0)
}

impl Font {
    /// Read a font dictionary.
    pub fn load(file: &File<'_>, dict: &Dict) -> Font {
        let subtype = dict.name(b"Subtype").unwrap_or_default();
        let base = dict.name(b"BaseFont").unwrap_or_default().to_vec();
        let tu = file.get_in(dict, b"ToUnicode");
        let to_unicode = match &*tu {
            Obj::Stream(s) => file
                .decode_stream(s)
                .ok()
                .map(|d| CMap::parse(&d))
                .filter(|m| !m.is_empty()),
            _ => None,
        };
        // `/ToUnicode /Identity-H`: the codes are the text (as pdfminer reads it).
        let identity_text = matches!(tu.as_name(), Some(b"Identity-H" | b"Identity-V"));
        if subtype == b"Type0" {
            let mut f = Font::composite(file, dict, to_unicode);
            f.code_is_unicode |= identity_text;
            return f;
        }
        let descriptor = file
            .get_in(dict, b"FontDescriptor")
            .as_dict()
            .cloned()
            .unwrap_or_default();
        let num = |d: &Dict, k: &[u8]| d.get(k).and_then(|o| file.resolve(o).as_f64());
        // Type3 glyph space is its /FontMatrix; everything else is 1/1000 of text space.
        let scale = if subtype == b"Type3" {
            file.get_in(dict, b"FontMatrix")
                .as_array()
                .and_then(|m| m.first())
                .and_then(Obj::as_f64)
                .filter(|v| v.abs() > 0.0 && v.abs() < 1.0e3)
                .unwrap_or(0.001)
        } else {
            0.001
        };
        let first_char = num(dict, b"FirstChar").unwrap_or(0.0).clamp(0.0, 255.0) as u32;
        let widths: Vec<f64> = file
            .get_in(dict, b"Widths")
            .as_array()
            .map(|a| {
                a.iter()
                    .take(256)
                    .map(|w| file.resolve(w).as_f64().unwrap_or(0.0) * scale)
                    .collect()
            })
            .unwrap_or_default();
        let missing = num(&descriptor, b"MissingWidth").map(|w| w * scale);
        let default_width = match (missing, widths.is_empty()) {
            (Some(w), _) if w > 0.0 => w,
            _ => 0.5,
        };
        let flags = num(&descriptor, b"Flags").unwrap_or(0.0) as i64;
        let symbolic = flags & 4 != 0 && flags & 32 == 0;
        let encoding = simple_encoding(file, dict, subtype, symbolic);
        let mut f = Font {
            codes: Codes::Simple,
            to_unicode,
            encoding: Some(encoding),
            code_is_unicode: false,
            collection: None,
            glyph_text: None,
            cid_to_gid: None,
            widths,
            first_char,
            cid_widths: Vec::new(),
            default_width,
            descent: num(&descriptor, b"Descent")
                .unwrap_or(0.0)
                .clamp(-1000.0, 0.0)
                / 1000.0,
            vertical: false,
        };
        if f.widths.is_empty() {
            // A base-14 font without /Widths: the standard metrics.
            f.widths = (0..256usize)
                .map(|c| base14_width(&base, c).unwrap_or(f.default_width))
                .collect();
            f.first_char = 0;
            if f.descent == 0.0 {
                f.descent = -0.2;
            }
        }
        f
    }

    fn composite(file: &File<'_>, dict: &Dict, to_unicode: Option<CMap>) -> Font {
        let enc = file.get_in(dict, b"Encoding");
        let (codes, code_is_unicode, vertical) = match &*enc {
            Obj::Name(n) => {
                let has = |w: &[u8]| n.windows(w.len()).any(|x| x == w);
                let unicode = has(b"UCS2") || has(b"UTF16");
                let vertical = n.ends_with(b"-V") || n.as_slice() == b"V";
                let codes = if unicode || n.starts_with(b"Identity") {
                    Codes::TwoByte
                } else if has(b"RKSJ") {
                    Codes::Legacy(encoding_rs::SHIFT_JIS, Lead::ShiftJis)
                } else if has(b"GB") {
                    Codes::Legacy(encoding_rs::GBK, Lead::High)
                } else if has(b"B5") || has(b"CNS") {
                    Codes::Legacy(encoding_rs::BIG5, Lead::High)
                } else if has(b"KSC") {
                    Codes::Legacy(encoding_rs::EUC_KR, Lead::High)
                } else if has(b"EUC") {
                    Codes::Legacy(encoding_rs::EUC_JP, Lead::High)
                } else if matches!(n.as_slice(), b"H" | b"V") {
                    Codes::Legacy(encoding_rs::EUC_JP, Lead::Jis)
                } else {
                    Codes::TwoByte
                };
                (codes, unicode, vertical)
            }
            Obj::Stream(s) => {
                let m = file
                    .decode_stream(s)
                    .ok()
                    .map(|d| CMap::parse(&d))
                    .unwrap_or_default();
                let v = s.dict.get(b"WMode").and_then(Obj::as_i64) == Some(1);
                (Codes::Embedded(m), false, v)
            }
            _ => (Codes::TwoByte, false, false),
        };
        let desc_font = file
            .get_in(dict, b"DescendantFonts")
            .as_array()
            .and_then(|a| a.first().cloned())
            .and_then(|o| file.resolve(&o).as_dict().cloned())
            .unwrap_or_default();
        let descriptor = file
            .get_in(&desc_font, b"FontDescriptor")
            .as_dict()
            .cloned()
            .unwrap_or_default();
        let default_width = desc_font
            .get(b"DW")
            .and_then(|o| file.resolve(o).as_f64())
            .unwrap_or(1000.0)
            / 1000.0;
        let mut cid_widths = Vec::new();
        if let Some(w) = file.get_in(&desc_font, b"W").as_array() {
            let mut i = 0;
            while i < w.len() && cid_widths.len() < MAX_CMAP_ENTRIES {
                let Some(first) = w[i].as_i64() else { break };
                let first = first.clamp(0, i64::from(u32::MAX)) as u32;
                match w.get(i + 1).map(|o| file.resolve(o)) {
                    Some(a) if a.as_array().is_some() => {
                        for (k, v) in a.as_array().unwrap_or_default().iter().enumerate() {
                            let c = first.saturating_add(k as u32);
                            cid_widths.push((c, c, v.as_f64().unwrap_or(0.0) / 1000.0));
                        }
                        i += 2;
                    }
                    Some(last) => {
                        let (Some(last), Some(v)) =
                            (last.as_i64(), w.get(i + 2).and_then(Obj::as_f64))
                        else {
                            break;
                        };
                        cid_widths.push((
                            first,
                            last.clamp(0, i64::from(u32::MAX)) as u32,
                            v / 1000.0,
                        ));
                        i += 3;
                    }
                    None => break,
                }
            }
        }
        cid_widths.sort_by_key(|r| r.0);
        let descent = descriptor
            .get(b"Descent")
            .and_then(|o| file.resolve(o).as_f64())
            .unwrap_or(0.0)
            .clamp(-1000.0, 0.0)
            / 1000.0;
        let collection = file
            .get_in(&desc_font, b"CIDSystemInfo")
            .as_dict()
            .and_then(|d| d.get(b"Ordering").and_then(|o| o.as_str().or(o.as_name())))
            .and_then(cid::Collection::from_ordering);
        let (glyph_text, cid_to_gid) =
            if to_unicode.is_none() && !code_is_unicode && collection.is_none() {
                embedded_cmap(file, &desc_font, &descriptor)
            } else {
                (None, None)
            };
        Font {
            codes,
            to_unicode,
            encoding: None,
            code_is_unicode,
            collection,
            glyph_text,
            cid_to_gid,
            widths: Vec::new(),
            first_char: 0,
            cid_widths,
            default_width,
            descent,
            vertical,
        }
    }

    fn width(&self, code: u32, cid: u32) -> f64 {
        match self.codes {
            Codes::Simple => code
                .checked_sub(self.first_char)
                .and_then(|i| self.widths.get(i as usize))
                .copied()
                .filter(|w| *w != 0.0 || !self.widths.is_empty())
                .unwrap_or(self.default_width),
            _ => {
                let i = self.cid_widths.partition_point(|r| r.0 <= cid);
                match i.checked_sub(1).and_then(|i| self.cid_widths.get(i)) {
                    Some((_, hi, w)) if cid <= *hi => *w,
                    _ => self.default_width,
                }
            }
        }
    }

    /// Walk the glyphs of a shown string. `buf` holds each glyph's text while `f` runs.
    pub fn glyphs(&self, s: &[u8], buf: &mut String, mut f: impl FnMut(Glyph<'_>)) {
        let mut i = 0;
        while i < s.len() {
            let (code, n) = match &self.codes {
                Codes::Simple => (u32::from(s[i]), 1),
                Codes::TwoByte => {
                    let n = 2.min(s.len() - i);
                    (code_of(&s[i..i + n]), n)
                }
                Codes::Embedded(m) => m.next_code(&s[i..]),
                Codes::Legacy(_, lead) => {
                    let b = s[i];
                    let two = match lead {
                        Lead::ShiftJis => matches!(b, 0x81..=0x9F | 0xE0..=0xFC),
                        Lead::High => b >= 0x81,
                        Lead::Jis => true,
                    };
                    let n = if two { 2.min(s.len() - i) } else { 1 };
                    (code_of(&s[i..i + n]), n)
                }
            };
            i += n;
            let cid = match &self.codes {
                Codes::Embedded(m) => m.cid(code).unwrap_or(code),
                _ => code,
            };
            buf.clear();
            let text = self.to_unicode.as_ref().and_then(|m| m.text(code));
            match text {
                Some(t) => buf.push_str(&t),
                None => {
                    if let Some(enc) = &self.encoding {
                        if let Some(c) = enc.get(code as usize).copied().flatten() {
                            buf.push(c);
                        }
                    } else if self.code_is_unicode {
                        if let Some(c) = char::from_u32(code) {
                            buf.push(c);
                        }
                    } else if let Codes::Legacy(enc, lead) = &self.codes {
                        let mut bytes = s[i - n..i].to_vec();
                        if *lead == Lead::Jis {
                            bytes.iter_mut().for_each(|b| *b |= 0x80);
                        }
                        let (t, _) = enc.decode_without_bom_handling(&bytes);
                        buf.push_str(t.trim_end_matches('\u{FFFD}'));
                    } else if let Some(c) =
                        self.collection.and_then(|coll| cid::to_unicode(coll, cid))
                    {
                        buf.push(c);
                    } else if let Some(map) = &self.glyph_text {
                        let gid = match &self.cid_to_gid {
                            Some(t) => t.get(cid as usize).copied(),
                            None => u16::try_from(cid).ok(),
                        };
                        if let Some(c) = gid.and_then(|g| map.get(&g)) {
                            buf.push(*c);
                        }
                    }
                }
            }
            f(Glyph {
                code,
                is_space: n == 1 && code == 32,
                text: (!buf.is_empty()).then_some(buf.as_str()),
                width: self.width(code, cid),
            });
        }
    }
}

/// The embedded TrueType program's cmap read backwards, and `/CIDToGIDMap` (a stream of
/// two-byte glyph ids, at most 65,536 of them; absent or `/Identity` is the identity).
type GlyphMaps = (Option<HashMap<u16, char>>, Option<Vec<u16>>);

fn embedded_cmap(file: &File<'_>, cid_font: &Dict, descriptor: &Dict) -> GlyphMaps {
    let Obj::Stream(s) = &*file.get_in(descriptor, b"FontFile2") else {
        return (None, None);
    };
    let Ok(program) = file.decode_stream(s) else {
        return (None, None);
    };
    let map = truetype::glyph_chars(&program);
    if map.is_empty() {
        return (None, None);
    }
    let gids = match &*file.get_in(cid_font, b"CIDToGIDMap") {
        Obj::Stream(m) => file.decode_stream(m).ok().map(|d| {
            d.chunks_exact(2)
                .take(65_536)
                .map(|c| u16::from_be_bytes([c[0], c[1]]))
                .collect()
        }),
        _ => None,
    };
    (Some(map), gids)
}

/// The code → character table of a simple font: `/Differences` over the base encoding.
fn simple_encoding(
    file: &File<'_>,
    dict: &Dict,
    subtype: &[u8],
    symbolic: bool,
) -> Box<[Option<char>; 256]> {
    let enc = file.get_in(dict, b"Encoding");
    let (base_name, diffs): (Option<&[u8]>, Option<&[Obj]>) = match &*enc {
        Obj::Name(n) => (Some(n.as_slice()), None),
        Obj::Dict(d) => (
            d.name(b"BaseEncoding"),
            d.get(b"Differences").and_then(Obj::as_array),
        ),
        _ => (None, None),
    };
    let base: &[char; 256] = match base_name {
        Some(b"WinAnsiEncoding") => &tables::WIN_ANSI,
        Some(b"MacRomanEncoding") => &tables::MAC_ROMAN,
        Some(b"StandardEncoding") => &tables::STANDARD,
        _ if subtype == b"TrueType" || symbolic => &tables::WIN_ANSI,
        _ => &tables::STANDARD,
    };
    let mut table: Box<[Option<char>; 256]> = Box::new([None; 256]);
    for (i, c) in base.iter().enumerate() {
        if *c != '\0' {
            table[i] = Some(*c);
        }
    }
    if symbolic && base_name.is_none() {
        // A symbolic font's codes are its own; Latin-1 is the least wrong guess.
        for (i, t) in table.iter_mut().enumerate().skip(32) {
            if t.is_none() {
                *t = char::from_u32(i as u32);
            }
        }
    }
    if let Some(diffs) = diffs {
        let mut code = 0usize;
        for d in diffs {
            match d {
                Obj::Int(n) => code = (*n).clamp(0, 256) as usize,
                Obj::Name(n) => {
                    if code < 256 {
                        table[code] = glyph_text(n).and_then(|t| {
                            let mut it = t.chars();
                            let c = it.next();
                            if it.next().is_none() {
                                c
                            } else {
                                // A ligature name (`f_i`): keep its presentation form if
                                // there is one, else the first letter.
                                match t.as_str() {
                                    "ff" => Some('\u{FB00}'),
                                    "fi" => Some('\u{FB01}'),
                                    "fl" => Some('\u{FB02}'),
                                    "ffi" => Some('\u{FB03}'),
                                    "ffl" => Some('\u{FB04}'),
                                    _ => c,
                                }
                            }
                        });
                    }
                    code += 1;
                }
                _ => {}
            }
        }
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glyph_names() {
        assert_eq!(glyph_text(b"A").as_deref(), Some("A"));
        assert_eq!(glyph_text(b"fi").as_deref(), Some("\u{FB01}"));
        assert_eq!(glyph_text(b"uni00410042").as_deref(), Some("AB"));
        assert_eq!(glyph_text(b"u1F600").as_deref(), Some("\u{1F600}"));
        assert_eq!(glyph_text(b"f_f_i").as_deref(), Some("ffi"));
        assert_eq!(glyph_text(b"a.sc").as_deref(), Some("a"));
        assert_eq!(glyph_text(b"g123"), None);
    }

    #[test]
    fn tounicode_cmap() {
        let m = CMap::parse(
            b"1 begincodespacerange <0000> <FFFF> endcodespacerange\n\
              2 beginbfchar <0003> <0020> <0011> <00660069> endbfchar\n\
              1 beginbfrange <0024> <0026> <0041> endbfrange\n\
              1 beginbfrange <0030> <0031> [<0078> <0079>] endbfrange\n\
              1 beginbfrange <00000000> <FFFFFFFF> <0041> endbfrange",
        );
        assert_eq!(m.text(3).as_deref(), Some(" "));
        assert_eq!(m.text(0x11).as_deref(), Some("fi"));
        assert_eq!(m.text(0x25).as_deref(), Some("B"));
        assert_eq!(m.text(0x31).as_deref(), Some("y"));
        assert_eq!(m.next_code(&[0, 0x24, 1]), (0x24, 2));
    }
}
