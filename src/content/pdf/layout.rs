//! Reading order: characters → lines → text boxes → boxes in reading order.
//!
//! The rules are pdfminer.six's layout analysis with its default parameters (line
//! overlap 0.5, char margin 2.0, line margin 0.5, word margin 0.1, boxes flow 0.5): a line
//! is a run of characters that overlap vertically and sit close horizontally; lines of the
//! same height that are close and aligned (left, right or centre) make a box; boxes are
//! merged bottom-up, the closest pair first, into a tree whose children are read in the
//! order of `0.5 * x0 - 1.5 * (y0 + y1)`. That is what reads a two-column page column by
//! column. The merge costs O(n² log n) in the number of boxes; past [`MAX_TREE_BOXES`]
//! boxes on a page the boxes are read top to bottom instead.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::page::{Char, PageText};

/// Boxes on one page beyond which the tree merge is replaced by a top-to-bottom sort.
pub(super) const MAX_TREE_BOXES: usize = 200;
/// Lines looked at as neighbours of one line at most (a page of one crowded row).
const MAX_NEIGHBOURS: usize = 256;

const LINE_OVERLAP: f64 = 0.5;
const CHAR_MARGIN: f64 = 2.0;
const LINE_MARGIN: f64 = 0.5;
const WORD_MARGIN: f64 = 0.1;
const BOXES_FLOW: f64 = 0.5;

#[derive(Debug, Clone, Copy, PartialEq)]
struct BBox {
    x0: f64,
    y0: f64,
    x1: f64,
    y1: f64,
}

impl BBox {
    fn w(&self) -> f64 {
        self.x1 - self.x0
    }
    fn h(&self) -> f64 {
        self.y1 - self.y0
    }
    fn union(&self, o: &BBox) -> BBox {
        BBox {
            x0: self.x0.min(o.x0),
            y0: self.y0.min(o.y0),
            x1: self.x1.max(o.x1),
            y1: self.y1.max(o.y1),
        }
    }
    fn voverlap(&self, o: &BBox) -> f64 {
        if self.y0 <= o.y1 && o.y0 <= self.y1 {
            (self.y1.min(o.y1) - self.y0.max(o.y0)).abs()
        } else {
            0.0
        }
    }
    fn is_voverlap(&self, o: &BBox) -> bool {
        o.y0 <= self.y1 && self.y0 <= o.y1
    }
    fn hdistance(&self, o: &BBox) -> f64 {
        if o.x0 <= self.x1 && self.x0 <= o.x1 {
            0.0
        } else {
            (self.x0 - o.x1).abs().min((self.x1 - o.x0).abs())
        }
    }
    /// Strict overlap, as pdfminer's plane search.
    fn overlaps(&self, o: &BBox) -> bool {
        !(o.x1 <= self.x0 || self.x1 <= o.x0 || o.y1 <= self.y0 || self.y1 <= o.y0)
    }
}

fn bbox(c: &Char) -> BBox {
    BBox {
        x0: f64::from(c.x0),
        y0: f64::from(c.y0),
        x1: f64::from(c.x1),
        y1: f64::from(c.y1),
    }
}

/// A line: its box and its text (words separated by single spaces).
struct Line {
    b: BBox,
    text: String,
}

/// A text box: its box and its lines, top to bottom.
pub(super) struct TextBox {
    pub x0: f64,
    pub y0: f64,
    pub x1: f64,
    pub y1: f64,
    pub lines: Vec<String>,
    /// Each line's height (its text size, for upright text).
    pub heights: Vec<f64>,
}

impl TextBox {
    /// The box as text: its lines, one per row, with an empty row where the text size
    /// changes by more than 5% (a heading and the paragraph under it share a box when
    /// their sizes are within pdfminer's tolerance, but a reader sees two blocks).
    pub fn text(&self) -> String {
        let mut out = String::new();
        for (i, l) in self.lines.iter().enumerate() {
            if i > 0 {
                let (a, b) = (self.heights[i - 1], self.heights[i]);
                out.push_str(if (a - b).abs() > 0.05 * a.max(b) {
                    "\n\n"
                } else {
                    "\n"
                });
            }
            out.push_str(l);
        }
        out
    }
}

fn make_line(chars: &[Char], arena: &str) -> Line {
    let mut text = String::new();
    let mut b = bbox(&chars[0]);
    let mut last_x1 = f64::INFINITY;
    for c in chars {
        let cb = bbox(c);
        let margin = WORD_MARGIN * cb.w().max(cb.h());
        if last_x1 < cb.x0 - margin && !text.ends_with(' ') {
            text.push(' ');
        }
        last_x1 = cb.x1;
        b = b.union(&cb);
        let t = arena
            .get(c.start as usize..c.start as usize + c.len as usize)
            .unwrap_or("");
        if c.space {
            if !text.is_empty() && !text.ends_with(' ') {
                text.push(' ');
            }
        } else {
            text.push_str(t);
        }
    }
    Line {
        b,
        text: text.trim_end().to_string(),
    }
}

/// Group characters (in content order) into lines, as pdfminer's `group_objects`.
fn lines(page: &PageText) -> Vec<Line> {
    let chars = &page.chars;
    let mut out = Vec::new();
    if chars.is_empty() {
        return out;
    }
    let mut start = 0usize;
    for i in 1..chars.len() {
        let (a, b) = (bbox(&chars[i - 1]), bbox(&chars[i]));
        let halign = a.is_voverlap(&b)
            && a.h().min(b.h()) * LINE_OVERLAP < a.voverlap(&b)
            && a.hdistance(&b) < a.w().max(b.w()) * CHAR_MARGIN;
        if !halign {
            out.push(make_line(&chars[start..i], &page.text));
            start = i;
        }
    }
    out.push(make_line(&chars[start..], &page.text));
    out.retain(|l| !l.text.trim().is_empty());
    out
}

/// Group lines into boxes, as pdfminer's `group_textlines`.
fn boxes(lines: Vec<Line>) -> Vec<TextBox> {
    let n = lines.len();
    // Union-find over lines that are neighbours.
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(p: &mut [usize], mut i: usize) -> usize {
        while p[i] != i {
            p[i] = p[p[i]];
            i = p[i];
        }
        i
    }
    // Sort by y so that candidates within a vertical window are found without n².
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| {
        lines[a]
            .b
            .y0
            .partial_cmp(&lines[b].b.y0)
            .unwrap_or(Ordering::Equal)
    });
    let max_h = lines.iter().map(|l| l.b.h()).fold(0.0f64, f64::max);
    for &i in &order {
        let l = &lines[i].b;
        let d = LINE_MARGIN * l.h();
        let area = BBox {
            x0: l.x0,
            y0: l.y0 - d,
            x1: l.x1,
            y1: l.y1 + d,
        };
        // Candidates: lines whose y0 lies in [area.y0 - max_h, area.y1].
        let lo = order.partition_point(|&k| lines[k].b.y0 < area.y0 - max_h);
        let window = order[lo..]
            .iter()
            .take_while(|&&k| lines[k].b.y0 <= area.y1);
        for &j in window.take(MAX_NEIGHBOURS) {
            if j == i {
                continue;
            }
            let o = &lines[j].b;
            if !area.overlaps(o) {
                continue;
            }
            let same_height = (l.h() - o.h()).abs() <= d;
            let aligned = (l.x0 - o.x0).abs() <= d
                || (l.x1 - o.x1).abs() <= d
                || ((l.x0 + l.x1) / 2.0 - (o.x0 + o.x1) / 2.0).abs() <= d;
            if same_height && aligned {
                let (ri, rj) = (root(&mut parent, i), root(&mut parent, j));
                if ri != rj {
                    parent[rj] = ri;
                }
            }
        }
    }
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut slot: Vec<Option<usize>> = vec![None; n];
    for i in 0..n {
        let r = root(&mut parent, i);
        let g = match slot[r] {
            Some(g) => g,
            None => {
                groups.push(Vec::new());
                slot[r] = Some(groups.len() - 1);
                groups.len() - 1
            }
        };
        groups[g].push(i);
    }
    let mut lines: Vec<Option<Line>> = lines.into_iter().map(Some).collect();
    groups
        .into_iter()
        .map(|mut g| {
            g.sort_by(|&a, &b| {
                let (ya, yb) = (
                    lines[a].as_ref().map_or(0.0, |l| l.b.y1),
                    lines[b].as_ref().map_or(0.0, |l| l.b.y1),
                );
                yb.partial_cmp(&ya).unwrap_or(Ordering::Equal)
            });
            let mut tb = TextBox {
                x0: f64::INFINITY,
                y0: f64::INFINITY,
                x1: f64::NEG_INFINITY,
                y1: f64::NEG_INFINITY,
                lines: Vec::new(),
                heights: Vec::new(),
            };
            for i in g {
                if let Some(l) = lines[i].take() {
                    tb.x0 = tb.x0.min(l.b.x0);
                    tb.y0 = tb.y0.min(l.b.y0);
                    tb.x1 = tb.x1.max(l.b.x1);
                    tb.y1 = tb.y1.max(l.b.y1);
                    tb.lines.push(l.text);
                    tb.heights.push(l.b.h());
                }
            }
            tb
        })
        .collect()
}

/// A node of the merge tree: a box (leaf) or a group of two nodes.
struct Node {
    b: BBox,
    kids: Vec<usize>,
    leaf: Option<usize>,
}

#[derive(PartialEq)]
struct Cand {
    skip_check: bool,
    d: f64,
    a: usize,
    b: usize,
}

impl Eq for Cand {}

impl Ord for Cand {
    // A min-heap on (skip_check, d, a, b), as pdfminer's heapq.
    fn cmp(&self, o: &Self) -> Ordering {
        o.skip_check
            .cmp(&self.skip_check)
            .then(o.d.partial_cmp(&self.d).unwrap_or(Ordering::Equal))
            .then(o.a.cmp(&self.a))
            .then(o.b.cmp(&self.b))
    }
}

impl PartialOrd for Cand {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

fn dist(a: &BBox, b: &BBox) -> f64 {
    let u = a.union(b);
    u.w() * u.h() - a.w() * a.h() - b.w() * b.h()
}

/// The boxes of a page in reading order.
fn order(boxes: Vec<TextBox>) -> Vec<TextBox> {
    let n = boxes.len();
    if n <= 1 {
        return boxes;
    }
    if n > MAX_TREE_BOXES {
        let mut boxes = boxes;
        boxes.sort_by(|a, b| {
            b.y1.partial_cmp(&a.y1)
                .unwrap_or(Ordering::Equal)
                .then(a.x0.partial_cmp(&b.x0).unwrap_or(Ordering::Equal))
        });
        return boxes;
    }
    let mut nodes: Vec<Node> = boxes
        .iter()
        .enumerate()
        .map(|(i, b)| Node {
            b: BBox {
                x0: b.x0,
                y0: b.y0,
                x1: b.x1,
                y1: b.y1,
            },
            kids: Vec::new(),
            leaf: Some(i),
        })
        .collect();
    let mut alive: Vec<bool> = vec![true; n];
    let mut heap = BinaryHeap::new();
    for i in 0..n {
        for j in i + 1..n {
            heap.push(Cand {
                skip_check: false,
                d: dist(&nodes[i].b, &nodes[j].b),
                a: i,
                b: j,
            });
        }
    }
    while let Some(c) = heap.pop() {
        if !alive[c.a] || !alive[c.b] {
            continue;
        }
        let u = nodes[c.a].b.union(&nodes[c.b].b);
        if !c.skip_check {
            let other = (0..nodes.len())
                .any(|k| alive[k] && k != c.a && k != c.b && u.overlaps(&nodes[k].b));
            if other {
                heap.push(Cand {
                    skip_check: true,
                    ..c
                });
                continue;
            }
        }
        alive[c.a] = false;
        alive[c.b] = false;
        let g = nodes.len();
        nodes.push(Node {
            b: u,
            kids: vec![c.a, c.b],
            leaf: None,
        });
        alive.push(true);
        for k in 0..g {
            if alive[k] {
                heap.push(Cand {
                    skip_check: false,
                    d: dist(&u, &nodes[k].b),
                    a: g,
                    b: k,
                });
            }
        }
    }
    // Read the tree(s): children ordered by (1 - flow) * x0 - (1 + flow) * (y0 + y1).
    let key = |b: &BBox| (1.0 - BOXES_FLOW) * b.x0 - (1.0 + BOXES_FLOW) * (b.y0 + b.y1);
    let mut roots: Vec<usize> = (0..nodes.len()).filter(|&k| alive[k]).collect();
    roots.sort_by(|&a, &b| {
        key(&nodes[a].b)
            .partial_cmp(&key(&nodes[b].b))
            .unwrap_or(Ordering::Equal)
    });
    let mut seq = Vec::with_capacity(n);
    let mut stack: Vec<usize> = roots.into_iter().rev().collect();
    while let Some(k) = stack.pop() {
        if let Some(leaf) = nodes[k].leaf {
            seq.push(leaf);
            continue;
        }
        let mut kids = nodes[k].kids.clone();
        kids.sort_by(|&a, &b| {
            key(&nodes[a].b)
                .partial_cmp(&key(&nodes[b].b))
                .unwrap_or(Ordering::Equal)
        });
        stack.extend(kids.into_iter().rev());
    }
    let mut boxes: Vec<Option<TextBox>> = boxes.into_iter().map(Some).collect();
    seq.into_iter().filter_map(|i| boxes[i].take()).collect()
}

/// The text boxes of a page, in reading order.
pub(super) fn layout(page: &PageText) -> Vec<TextBox> {
    order(boxes(lines(page)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(items: &[(&str, f32, f32)]) -> PageText {
        // Each item: a word at (x, y), 10 pt, 5 pt per character.
        let mut p = PageText::default();
        for (w, x, y) in items {
            for (i, ch) in w.chars().enumerate() {
                let start = p.text.len() as u32;
                p.text.push(ch);
                let x0 = x + 5.0 * i as f32;
                p.chars.push(Char {
                    x0,
                    y0: *y,
                    x1: x0 + 5.0,
                    y1: y + 10.0,
                    start,
                    len: ch.len_utf8() as u16,
                    space: ch == ' ',
                });
            }
        }
        p
    }

    fn text(p: &PageText) -> Vec<String> {
        layout(p).into_iter().map(|b| b.lines.join("|")).collect()
    }

    #[test]
    fn words_and_lines() {
        let p = page(&[
            ("Hello", 100.0, 700.0),
            ("world", 130.0, 700.0),
            ("next", 100.0, 688.0),
        ]);
        assert_eq!(text(&p), ["Hello world|next"]);
    }

    #[test]
    fn two_columns_read_column_by_column() {
        let mut items = Vec::new();
        let left = ["left one", "left two", "left three", "left four"];
        let right = ["right one", "right two", "right three", "right four"];
        for (i, (l, r)) in left.iter().zip(right).enumerate() {
            let y = 700.0 - 12.0 * i as f32;
            items.push((*l, 50.0, y));
            items.push((r, 320.0, y));
        }
        let p = page(&items);
        assert_eq!(
            text(&p),
            [
                "left one|left two|left three|left four",
                "right one|right two|right three|right four"
            ]
        );
    }
}
