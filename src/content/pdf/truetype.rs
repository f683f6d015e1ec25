//! The `cmap` table of an embedded TrueType font program, read backwards (glyph →
//! character), for CID fonts that have no `/ToUnicode` map: their CIDs are glyph ids
//! (through `/CIDToGIDMap`), and the font's own cmap says which character each glyph
//! draws. pdfminer.six reads such fonts the same way.
//!
//! Every offset is checked against the data, and at most [`MAX_CODES`] character codes
//! are walked whatever the table claims.

use std::collections::HashMap;

/// Character codes walked at most, all subtables together.
const MAX_CODES: usize = 200_000;

fn u16_at(d: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes([*d.get(at)?, *d.get(at + 1)?]))
}

fn u32_at(d: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes([
        *d.get(at)?,
        *d.get(at + 1)?,
        *d.get(at + 2)?,
        *d.get(at + 3)?,
    ]))
}

/// Glyph id → character, from the font's Unicode cmap subtable (format 4 or 12).
pub(super) fn glyph_chars(font: &[u8]) -> HashMap<u16, char> {
    let mut out = HashMap::new();
    let _ = read(font, &mut out);
    out
}

fn read(font: &[u8], out: &mut HashMap<u16, char>) -> Option<()> {
    let tables = usize::from(u16_at(font, 4)?);
    let cmap = (0..tables.min(256)).find_map(|i| {
        let rec = 12 + 16 * i;
        (font.get(rec..rec + 4)? == b"cmap").then(|| u32_at(font, rec + 8))?
    })? as usize;
    let n = usize::from(u16_at(font, cmap + 2)?);
    // Unicode subtables: Windows Unicode full (3,10), BMP (3,1), then the Unicode platform.
    let mut best: Option<(u8, usize)> = None;
    for i in 0..n.min(64) {
        let rec = cmap + 4 + 8 * i;
        let (pid, eid) = (u16_at(font, rec)?, u16_at(font, rec + 2)?);
        let rank = match (pid, eid) {
            (3, 10) => 3,
            (3, 1) => 2,
            (0, _) => 1,
            _ => continue,
        };
        let off = cmap + u32_at(font, rec + 4)? as usize;
        if best.is_none_or(|(r, _)| rank > r) {
            best = Some((rank, off));
        }
    }
    let (_, sub) = best?;
    let mut budget = MAX_CODES;
    match u16_at(font, sub)? {
        4 => {
            let segs = usize::from(u16_at(font, sub + 6)?) / 2;
            let ends = sub + 14;
            let starts = ends + 2 * segs + 2;
            let deltas = starts + 2 * segs;
            let ranges = deltas + 2 * segs;
            for s in 0..segs {
                let end = u16_at(font, ends + 2 * s)?;
                let start = u16_at(font, starts + 2 * s)?;
                let delta = u16_at(font, deltas + 2 * s)?;
                let ro_at = ranges + 2 * s;
                let ro = usize::from(u16_at(font, ro_at)?);
                for c in start..=end {
                    if c == 0xFFFF || budget == 0 {
                        break;
                    }
                    budget -= 1;
                    let gid = if ro == 0 {
                        c.wrapping_add(delta)
                    } else {
                        let at = ro_at + ro + 2 * usize::from(c - start);
                        match u16_at(font, at) {
                            Some(0) | None => continue,
                            Some(g) => g.wrapping_add(delta),
                        }
                    };
                    if let Some(ch) = char::from_u32(u32::from(c)) {
                        out.entry(gid).or_insert(ch);
                    }
                }
            }
        }
        12 => {
            let groups = u32_at(font, sub + 12)? as usize;
            for g in 0..groups.min(MAX_CODES) {
                let at = sub + 16 + 12 * g;
                let (start, end, first) = (
                    u32_at(font, at)?,
                    u32_at(font, at + 4)?,
                    u32_at(font, at + 8)?,
                );
                for (k, c) in (start..=end).enumerate() {
                    if budget == 0 {
                        return Some(());
                    }
                    budget -= 1;
                    let (Some(ch), Ok(gid)) =
                        (char::from_u32(c), u16::try_from(first as usize + k))
                    else {
                        continue;
                    };
                    out.entry(gid).or_insert(ch);
                }
            }
        }
        _ => {}
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A font with one table, `cmap`, holding a format 4 subtable: 'A'..'C' → glyphs 3..5.
    fn tiny_font() -> Vec<u8> {
        let mut sub = Vec::new();
        let segs: u16 = 2;
        for v in [4u16, 0, 0, segs * 2, 0, 0, 0] {
            sub.extend_from_slice(&v.to_be_bytes());
        }
        for v in [0x43u16, 0xFFFF, 0, 0x41, 0xFFFF] {
            sub.extend_from_slice(&v.to_be_bytes()); // ends, pad, starts
        }
        for v in [(3u16).wrapping_sub(0x41), 1, 0, 0] {
            sub.extend_from_slice(&v.to_be_bytes()); // deltas, range offsets
        }
        let mut cmap = Vec::new();
        for v in [0u16, 1, 3, 1] {
            cmap.extend_from_slice(&v.to_be_bytes());
        }
        cmap.extend_from_slice(&12u32.to_be_bytes());
        cmap.extend(sub);
        let mut font = vec![0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0];
        font.extend_from_slice(b"cmap");
        font.extend_from_slice(&[0; 4]);
        font.extend_from_slice(&28u32.to_be_bytes());
        font.extend_from_slice(&(cmap.len() as u32).to_be_bytes());
        font.extend(cmap);
        font
    }

    #[test]
    fn format_4_reads_backwards() {
        let m = glyph_chars(&tiny_font());
        assert_eq!(m.get(&3), Some(&'A'));
        assert_eq!(m.get(&5), Some(&'C'));
        assert_eq!(m.len(), 3);
    }

    #[test]
    fn garbage_is_empty_not_a_panic() {
        assert!(glyph_chars(b"").is_empty());
        assert!(glyph_chars(&[0xff; 64]).is_empty());
        let mut f = tiny_font();
        f.truncate(40);
        let _ = glyph_chars(&f);
    }
}
