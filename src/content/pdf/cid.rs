//! CID → Unicode for the Adobe CJK character collections, for CID fonts without a
//! `/ToUnicode` map. The table (src/content/pdf/cid2unicode.bin, from Adobe's CMap
//! resources, BSD-3-Clause, via scripts/gen-pdf-cid-tables.py) is 88 KB compressed in
//! the binary and unpacked once, on first use, into sorted arrays (about 650 KB).

use std::io::Read;
use std::sync::OnceLock;

static DATA: &[u8] = include_bytes!("cid2unicode.bin");

/// A character collection whose CIDs the table maps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Collection {
    Japan1 = 0,
    Gb1 = 1,
    Cns1 = 2,
    Korea1 = 3,
}

impl Collection {
    /// From a CIDSystemInfo `/Ordering`.
    pub fn from_ordering(o: &[u8]) -> Option<Collection> {
        match o {
            b"Japan1" => Some(Collection::Japan1),
            b"GB1" => Some(Collection::Gb1),
            b"CNS1" => Some(Collection::Cns1),
            b"Korea1" => Some(Collection::Korea1),
            _ => None,
        }
    }
}

type Table = Vec<(u32, char)>;

fn leb(data: &[u8], pos: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *data.get(*pos)?;
        *pos += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

fn unpack() -> Option<[Table; 4]> {
    let mut raw = Vec::new();
    flate2::read::ZlibDecoder::new(DATA)
        .take(1 << 22)
        .read_to_end(&mut raw)
        .ok()?;
    let mut pos = 0usize;
    let mut tables: [Table; 4] = Default::default();
    for t in tables.iter_mut() {
        let n = leb(&raw, &mut pos)?;
        let (mut cid, mut cp) = (0i64, 0i64);
        for _ in 0..n.min(1 << 20) {
            cid += i64::try_from(leb(&raw, &mut pos)?).ok()?;
            let z = i64::try_from(leb(&raw, &mut pos)?).ok()?;
            cp += if z & 1 == 1 { -((z + 1) >> 1) } else { z >> 1 };
            let c = u32::try_from(cp).ok().and_then(char::from_u32);
            if let (Ok(cid), Some(c)) = (u32::try_from(cid), c) {
                t.push((cid, c));
            }
        }
    }
    Some(tables)
}

/// The character of `cid` in `coll`, if the collection maps it.
pub(super) fn to_unicode(coll: Collection, cid: u32) -> Option<char> {
    static TABLES: OnceLock<Option<[Table; 4]>> = OnceLock::new();
    let t = &TABLES.get_or_init(unpack).as_ref()?[coll as usize];
    t.binary_search_by_key(&cid, |e| e.0).ok().map(|i| t[i].1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_cids() {
        // Adobe-Japan1 CID 843 is HIRAGANA LETTER A; CID 1 is the space in every collection.
        assert_eq!(to_unicode(Collection::Japan1, 843), Some('あ'));
        assert_eq!(to_unicode(Collection::Japan1, 1), Some(' '));
        assert_eq!(to_unicode(Collection::Gb1, 1), Some(' '));
        assert_eq!(to_unicode(Collection::Japan1, u32::MAX), None);
    }
}
