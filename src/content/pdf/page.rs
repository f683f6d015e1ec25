//! Pages: the page tree, and the content stream interpreter that turns a page into
//! positioned characters.
//!
//! Bounds: the page tree is walked iteratively with a set of visited nodes (a loop or a
//! node shared by two parents is read once), operators per page and characters per page
//! are capped, form XObjects nest at most [`MAX_FORM_DEPTH`] deep and never recurse into
//! themselves, the graphics state stack is capped, and the budget (cancel flag, document
//! operator count) is polled as operators run.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use super::file::File;
use super::font::Font;
use super::syntax::{parse_from, Dict, Lexer, Obj, Tok};

/// Form XObjects nested deeper than this are not drawn.
pub(super) const MAX_FORM_DEPTH: usize = 16;
/// Operators run on one page at most (form XObjects included).
pub(super) const MAX_PAGE_OPS: u64 = 1_000_000;
/// Characters kept from one page at most.
pub(super) const MAX_PAGE_CHARS: usize = 200_000;
/// Decoded content held at once while a page runs (its content streams and the forms
/// it is inside of): a form that would go past this is not drawn and the page is `cut`.
pub(super) const MAX_LIVE_CONTENT: usize = 64 * 1024 * 1024;
/// Page tree nodes visited at most.
const MAX_TREE_NODES: usize = 200_000;
/// `q` nested deeper than this is ignored (its `Q` too).
const MAX_STATE_DEPTH: usize = 256;

/// A page: its dictionary and the attributes it inherits.
pub(super) struct PageRef {
    pub dict: Dict,
    pub resources: Option<Obj>,
    pub media_box: [f64; 4],
    /// `/Rotate`, normalised to 0, 90, 180 or 270.
    pub rotate: i64,
}

/// The pages of the document in order, at most `max + 1` of them (so a cut can be
/// told). When the page tree gives none (its root is missing or damaged), every object
/// of `/Type /Page` is a page, in object order, as pdfminer reads such files.
pub(super) fn pages(file: &File<'_>, max: usize) -> Vec<PageRef> {
    let out = page_tree(file, max);
    if !out.is_empty() || file.budget.stopped().is_some() {
        return out;
    }
    let mut out = Vec::new();
    for num in file.object_numbers() {
        if out.len() > max || file.budget.stopped().is_some() {
            break;
        }
        let Some(o) = file.get(num) else { continue };
        let Some(d) = o.as_dict() else { continue };
        if d.name(b"Type") == Some(b"Page") {
            out.push(PageRef {
                resources: d.get(b"Resources").cloned(),
                media_box: d
                    .get(b"MediaBox")
                    .and_then(|m| rect(&file.resolve(m)))
                    .unwrap_or([0.0, 0.0, 612.0, 792.0]),
                rotate: d
                    .get(b"Rotate")
                    .and_then(|r| file.resolve(r).as_i64())
                    .unwrap_or(0)
                    .rem_euclid(360)
                    / 90
                    * 90,
                dict: d.clone(),
            });
        }
    }
    out
}

fn page_tree(file: &File<'_>, max: usize) -> Vec<PageRef> {
    let mut out = Vec::new();
    let root = file.get_in(&file.trailer, b"Root");
    let Some(cat) = root.as_dict() else {
        return out;
    };
    let Some(top) = cat.get(b"Pages").cloned() else {
        return out;
    };
    // (node, inherited resources, media box, rotation)
    type Inherited = (Option<Obj>, Option<[f64; 4]>, Option<i64>);
    let mut stack: Vec<(Obj, Inherited)> = vec![(top, (None, None, None))];
    let mut seen: HashSet<u32> = HashSet::new();
    let mut visited = 0usize;
    while let Some((node, (res, mb, rot))) = stack.pop() {
        visited += 1;
        if visited > MAX_TREE_NODES || out.len() > max || file.budget.stopped().is_some() {
            break;
        }
        if let Obj::Ref(n, _) = node {
            if !seen.insert(n) {
                continue;
            }
        }
        let node = file.resolve(&node);
        let Some(d) = node.as_dict() else { continue };
        let res = d.get(b"Resources").cloned().or(res);
        let mb = d
            .get(b"MediaBox")
            .and_then(|o| rect(&file.resolve(o)))
            .or(mb);
        let rot = d
            .get(b"Rotate")
            .and_then(|o| file.resolve(o).as_i64())
            .or(rot);
        let kids = d.get(b"Kids").map(|k| file.resolve(k));
        let kind = d.name(b"Type");
        let is_pages = kind == Some(b"Pages") || (kind != Some(b"Page") && kids.is_some());
        if !is_pages && kind.is_some_and(|k| k != b"Page") {
            // A catalog or a font where a kid should be: not a page.
            continue;
        }
        if is_pages {
            if let Some(kids) = kids.as_ref().and_then(|k| k.as_array()) {
                for k in kids.iter().rev() {
                    if stack.len() >= MAX_TREE_NODES {
                        break;
                    }
                    stack.push((k.clone(), (res.clone(), mb, rot)));
                }
            }
        } else {
            out.push(PageRef {
                dict: d.clone(),
                resources: res,
                media_box: mb.unwrap_or([0.0, 0.0, 612.0, 792.0]),
                rotate: rot.unwrap_or(0).rem_euclid(360) / 90 * 90,
            });
        }
    }
    out
}

fn rect(o: &Obj) -> Option<[f64; 4]> {
    let a = o.as_array()?;
    if a.len() < 4 {
        return None;
    }
    let v: Vec<f64> = a.iter().take(4).filter_map(Obj::as_f64).collect();
    (v.len() == 4).then(|| {
        [
            v[0].min(v[2]),
            v[1].min(v[3]),
            v[0].max(v[2]),
            v[1].max(v[3]),
        ]
    })
}

/// A character placed on the page (device space, y up), with its text in the page's
/// text arena.
#[derive(Debug, Clone, Copy)]
pub(super) struct Char {
    pub x0: f32,
    pub y0: f32,
    pub x1: f32,
    pub y1: f32,
    pub start: u32,
    pub len: u16,
    /// The text is one space (a space glyph): it separates words, it is not a word.
    pub space: bool,
}

/// What one page gave.
#[derive(Default)]
pub(super) struct PageText {
    pub chars: Vec<Char>,
    pub text: String,
    /// Text-showing glyphs met, and how many of them had no text.
    pub glyphs: u64,
    pub undecoded: u64,
    /// The page was cut (operator or character cap).
    pub cut: bool,
    /// Content the page refers to is not in the file.
    pub missing: bool,
}

type Matrix = [f64; 6];

fn mul(a: &Matrix, b: &Matrix) -> Matrix {
    [
        a[0] * b[0] + a[1] * b[2],
        a[0] * b[1] + a[1] * b[3],
        a[2] * b[0] + a[3] * b[2],
        a[2] * b[1] + a[3] * b[3],
        a[4] * b[0] + a[5] * b[2] + b[4],
        a[4] * b[1] + a[5] * b[3] + b[5],
    ]
}

fn apply(m: &Matrix, x: f64, y: f64) -> (f64, f64) {
    (m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5])
}

const IDENTITY: Matrix = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0];

#[derive(Clone)]
struct GState {
    ctm: Matrix,
    font: Option<Rc<Font>>,
    size: f64,
    char_sp: f64,
    word_sp: f64,
    hscale: f64,
    leading: f64,
    rise: f64,
}

struct Interp<'f, 'a> {
    file: &'f File<'a>,
    fonts: HashMap<u64, Rc<Font>>,
    forms: Vec<u32>,
    out: PageText,
    ops: u64,
    gs: GState,
    stack: Vec<GState>,
    tm: Matrix,
    tlm: Matrix,
    scratch: String,
    /// Bytes of decoded content held now (the page's and the forms' being drawn).
    live: usize,
}

/// Interpret one page's content into characters.
pub(super) fn read_page(file: &File<'_>, page: &PageRef) -> PageText {
    // The page's rotation and origin, as pdfminer applies them, so that a page rotated
    // for display reads in its reading direction.
    let [x0, y0, x1, y1] = page.media_box;
    let ctm = match page.rotate {
        90 => [0.0, -1.0, 1.0, 0.0, -y0, x1],
        180 => [-1.0, 0.0, 0.0, -1.0, x1, y1],
        270 => [0.0, 1.0, -1.0, 0.0, y1, -x0],
        _ => [1.0, 0.0, 0.0, 1.0, -x0, -y0],
    };
    let mut it = Interp {
        file,
        fonts: HashMap::new(),
        forms: Vec::new(),
        out: PageText::default(),
        ops: 0,
        gs: GState {
            ctm,
            font: None,
            size: 0.0,
            char_sp: 0.0,
            word_sp: 0.0,
            hscale: 1.0,
            leading: 0.0,
            rise: 0.0,
        },
        stack: Vec::new(),
        tm: IDENTITY,
        tlm: IDENTITY,
        scratch: String::new(),
        live: 0,
    };
    let res = page
        .resources
        .as_ref()
        .and_then(|r| file.resolve(r).as_dict().cloned())
        .unwrap_or_default();
    // A damaged page whose `/Resources` dictionary was never closed swallows the keys
    // after it: look for `/Contents` there too.
    let contents = match page.dict.get(b"Contents") {
        Some(c) => file.resolve(c),
        None => match res.get(b"Contents") {
            Some(c) => file.resolve(c),
            None => file.get_in(&page.dict, b"Contents"),
        },
    };
    let mut data = Vec::new();
    match &*contents {
        Obj::Stream(s) => {
            if let Ok(d) = file.decode_stream(s) {
                data = d;
            }
        }
        Obj::Array(a) => {
            for part in a.iter().take(4096) {
                match &*file.resolve(part) {
                    Obj::Stream(s) => {
                        if let Ok(d) = file.decode_stream(s) {
                            if data.len() + d.len() >= MAX_LIVE_CONTENT {
                                it.out.cut = true;
                                break;
                            }
                            data.extend_from_slice(&d);
                            data.push(b'\n');
                        }
                    }
                    _ => it.out.missing = true,
                }
            }
        }
        // `/Contents` names an object the file does not have (a truncated file).
        Obj::Null => it.out.missing = page.dict.get(b"Contents").is_some(),
        _ => {}
    }
    it.live = data.len();
    it.run(&data, &res);
    it.out
}

impl Interp<'_, '_> {
    fn run(&mut self, data: &[u8], res: &Dict) {
        let mut lx = Lexer::new(data, 0);
        let mut operands: Vec<Obj> = Vec::new();
        while let Some(tok) = lx.next_tok() {
            match tok {
                Tok::Keyword(op) if !matches!(op, b"true" | b"false" | b"null") => {
                    self.ops += 1;
                    if self.ops > MAX_PAGE_OPS {
                        self.out.cut = true;
                        return;
                    }
                    if self.ops % 1024 == 0 && !self.file.budget.count_ops(1024) {
                        self.out.cut = true;
                        return;
                    }
                    if op == b"BI" {
                        skip_inline_image(&mut lx);
                    } else {
                        self.op(op, &operands, res);
                    }
                    operands.clear();
                    if self.out.cut {
                        return;
                    }
                }
                t => match parse_from(&mut lx, t, 1) {
                    Ok(o) => {
                        if operands.len() < 64 {
                            operands.push(o);
                        }
                    }
                    Err(_) => operands.clear(),
                },
            }
        }
    }

    fn op(&mut self, op: &[u8], a: &[Obj], res: &Dict) {
        let n = |i: usize| a.get(i).and_then(Obj::as_f64).unwrap_or(0.0);
        match op {
            b"q" if self.stack.len() < MAX_STATE_DEPTH => self.stack.push(self.gs.clone()),
            b"Q" => {
                if let Some(g) = self.stack.pop() {
                    self.gs = g;
                }
            }
            b"cm" if a.len() >= 6 => {
                let m = [n(0), n(1), n(2), n(3), n(4), n(5)];
                self.gs.ctm = mul(&m, &self.gs.ctm);
            }
            b"BT" => {
                self.tm = IDENTITY;
                self.tlm = IDENTITY;
            }
            b"Tc" => self.gs.char_sp = n(0),
            b"Tw" => self.gs.word_sp = n(0),
            b"Tz" => self.gs.hscale = n(0) / 100.0,
            b"TL" => self.gs.leading = n(0),
            b"Ts" => self.gs.rise = n(0),
            b"Tf" => {
                self.gs.size = a.get(1).and_then(Obj::as_f64).unwrap_or(self.gs.size);
                self.gs.font = a
                    .first()
                    .and_then(Obj::as_name)
                    .and_then(|name| self.font(res, name));
            }
            b"Td" => self.next_line(n(0), n(1)),
            b"TD" => {
                self.gs.leading = -n(1);
                self.next_line(n(0), n(1));
            }
            b"Tm" if a.len() >= 6 => {
                self.tlm = [n(0), n(1), n(2), n(3), n(4), n(5)];
                self.tm = self.tlm;
            }
            b"T*" => self.next_line(0.0, -self.gs.leading),
            b"Tj" => {
                if let Some(Obj::Str(s)) = a.first() {
                    self.show(s);
                }
            }
            b"'" => {
                self.next_line(0.0, -self.gs.leading);
                if let Some(Obj::Str(s)) = a.first() {
                    self.show(s);
                }
            }
            b"\"" => {
                self.gs.word_sp = n(0);
                self.gs.char_sp = n(1);
                self.next_line(0.0, -self.gs.leading);
                if let Some(Obj::Str(s)) = a.get(2) {
                    self.show(s);
                }
            }
            b"TJ" => {
                if let Some(Obj::Array(items)) = a.first() {
                    for item in items {
                        match item {
                            Obj::Str(s) => self.show(s),
                            o => {
                                if let Some(v) = o.as_f64() {
                                    let tx = -v / 1000.0 * self.gs.size * self.gs.hscale;
                                    self.tm = mul(&[1.0, 0.0, 0.0, 1.0, tx, 0.0], &self.tm);
                                }
                            }
                        }
                    }
                }
            }
            b"Do" => {
                if let Some(name) = a.first().and_then(Obj::as_name) {
                    self.draw_form(res, name);
                }
            }
            _ => {}
        }
    }

    fn next_line(&mut self, tx: f64, ty: f64) {
        self.tlm = mul(&[1.0, 0.0, 0.0, 1.0, tx, ty], &self.tlm);
        self.tm = self.tlm;
    }

    fn font(&mut self, res: &Dict, name: &[u8]) -> Option<Rc<Font>> {
        let fonts = self.file.get_in(res, b"Font");
        let fonts = fonts.as_dict()?;
        let entry = fonts.get(name)?;
        // Cache by object number; a direct font dictionary by its address in this run.
        let key = match entry {
            Obj::Ref(n, _) => u64::from(*n),
            o => (o as *const Obj as u64) | 1 << 63,
        };
        if let Some(f) = self.fonts.get(&key) {
            return Some(f.clone());
        }
        let d = self.file.resolve(entry);
        let f = Rc::new(Font::load(self.file, d.as_dict()?));
        if self.fonts.len() < 4096 {
            self.fonts.insert(key, f.clone());
        }
        Some(f)
    }

    fn show(&mut self, s: &[u8]) {
        let Some(font) = self.gs.font.clone() else {
            return;
        };
        let size = self.gs.size;
        let hs = self.gs.hscale;
        let rise = self.gs.rise;
        let (cs, ws) = (self.gs.char_sp, self.gs.word_sp);
        let mut scratch = std::mem::take(&mut self.scratch);
        font.glyphs(s, &mut scratch, |g| {
            self.out.glyphs += 1;
            let m = mul(&self.tm, &self.gs.ctm);
            let adv = g.width * size * hs;
            if let Some(text) = g.text {
                if self.out.chars.len() >= MAX_PAGE_CHARS {
                    self.out.cut = true;
                } else if !text.is_empty() {
                    let (lo, hi) = if font.vertical {
                        (0.0, size)
                    } else {
                        (
                            font.descent * size + rise,
                            font.descent * size + rise + size,
                        )
                    };
                    let w = if font.vertical { size } else { adv };
                    let pts = [
                        apply(&m, 0.0, lo),
                        apply(&m, w, lo),
                        apply(&m, 0.0, hi),
                        apply(&m, w, hi),
                    ];
                    let x0 = pts.iter().map(|p| p.0).fold(f64::INFINITY, f64::min);
                    let x1 = pts.iter().map(|p| p.0).fold(f64::NEG_INFINITY, f64::max);
                    let y0 = pts.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
                    let y1 = pts.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max);
                    if [x0, x1, y0, y1]
                        .iter()
                        .all(|v| v.is_finite() && v.abs() < 1.0e7)
                    {
                        let start = self.out.text.len();
                        let text = clip_utf8(text, 64);
                        if start < u32::MAX as usize - 64 {
                            self.out.text.push_str(text);
                            self.out.chars.push(Char {
                                x0: x0 as f32,
                                y0: y0 as f32,
                                x1: x1 as f32,
                                y1: y1 as f32,
                                start: start as u32,
                                len: text.len() as u16,
                                space: text.chars().all(char::is_whitespace),
                            });
                        }
                    }
                }
            } else {
                self.out.undecoded += 1;
            }
            let tx = if font.vertical {
                0.0
            } else {
                (g.width * size + cs + if g.is_space { ws } else { 0.0 }) * hs
            };
            let ty = if font.vertical { -(size + cs) } else { 0.0 };
            let _ = g.code;
            self.tm = mul(&[1.0, 0.0, 0.0, 1.0, tx, ty], &self.tm);
        });
        self.scratch = scratch;
    }

    fn draw_form(&mut self, res: &Dict, name: &[u8]) {
        let xobjects = self.file.get_in(res, b"XObject");
        let Some(Obj::Ref(num, _)) = xobjects.as_dict().and_then(|x| x.get(name)).cloned() else {
            return;
        };
        if self.forms.contains(&num) || self.forms.len() >= MAX_FORM_DEPTH {
            return;
        }
        let Some(obj) = self.file.get(num) else {
            return;
        };
        let Obj::Stream(s) = &*obj else { return };
        if s.dict.name(b"Subtype") != Some(b"Form") {
            return;
        }
        let Ok(data) = self.file.decode_stream(s) else {
            return;
        };
        if self.live + data.len() > MAX_LIVE_CONTENT {
            self.out.cut = true;
            return;
        }
        let own = self.file.get_in(&s.dict, b"Resources").as_dict().cloned();
        let m = self
            .file
            .get_in(&s.dict, b"Matrix")
            .as_array()
            .filter(|a| a.len() >= 6)
            .map(|a| {
                let v = |i: usize| a[i].as_f64().unwrap_or(0.0);
                [v(0), v(1), v(2), v(3), v(4), v(5)]
            })
            .unwrap_or(IDENTITY);
        let saved = (self.gs.clone(), self.tm, self.tlm, self.stack.len());
        self.gs.ctm = mul(&m, &self.gs.ctm);
        self.forms.push(num);
        let r = own.unwrap_or_else(|| res.clone());
        self.live += data.len();
        self.run(&data, &r);
        self.live -= data.len();
        self.forms.pop();
        self.stack.truncate(saved.3);
        self.gs = saved.0;
        self.tm = saved.1;
        self.tlm = saved.2;
    }
}

/// Skip `BI ... ID <data> EI`: the data ends at the first `EI` between whitespace.
fn skip_inline_image(lx: &mut Lexer<'_>) {
    while let Some(t) = lx.next_tok() {
        if t == Tok::Keyword(b"ID") {
            break;
        }
    }
    let buf = lx.buf;
    let mut i = lx.pos + 1;
    while i + 2 <= buf.len() {
        if &buf[i..i + 2] == b"EI"
            && super::syntax::is_white(buf[i - 1])
            && buf.get(i + 2).is_none_or(|&b| super::syntax::is_white(b))
        {
            lx.pos = i + 2;
            return;
        }
        i += 1;
    }
    lx.pos = buf.len();
}

/// At most `max` bytes of `s`, cut at a character boundary.
fn clip_utf8(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut cut = max;
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    &s[..cut]
}
