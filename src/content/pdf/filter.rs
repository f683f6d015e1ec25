//! Stream filters, every stage counted against the document's budget.
//!
//! The standard filters that carry text or structure are decoded: FlateDecode, LZWDecode,
//! ASCII85Decode, ASCIIHexDecode, RunLengthDecode (and the PNG and TIFF predictors);
//! image-only filters (DCT, JPX, CCITT, JBIG2) end the chain, since no text is inside.
//! Each stage writes into a buffer that refuses to grow past the stream cap or past what
//! is left of the document's budget, so a chain of filters (Flate over Flate over zeros)
//! costs what its *output* is allowed to cost, never what its input promises.

use std::io::Read;

use super::Budget;

/// Why a stream did not decode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum DecodeError {
    /// Past the per-stream cap or the document's budget: a compression bomb.
    TooLarge,
    /// The attempt was cancelled (deadline) while decoding.
    Cancelled,
}

/// A growing output that counts each byte against a cap.
struct Out {
    buf: Vec<u8>,
    cap: usize,
}

impl Out {
    fn new(cap: usize) -> Out {
        Out {
            buf: Vec::new(),
            cap,
        }
    }

    fn push(&mut self, b: u8) -> Result<(), DecodeError> {
        if self.buf.len() >= self.cap {
            return Err(DecodeError::TooLarge);
        }
        self.buf.push(b);
        Ok(())
    }

    fn extend(&mut self, b: &[u8]) -> Result<(), DecodeError> {
        if self.buf.len() + b.len() > self.cap {
            return Err(DecodeError::TooLarge);
        }
        self.buf.extend_from_slice(b);
        Ok(())
    }
}

/// One filter and its parameters.
pub(super) struct Stage<'a> {
    pub name: &'a [u8],
    pub predictor: Predictor,
    pub early_change: bool,
}

/// Predictor parameters (`/DecodeParms`), defaults when absent.
#[derive(Debug, Clone, Copy)]
pub(super) struct Predictor {
    pub predictor: i64,
    pub colors: usize,
    pub bpc: usize,
    pub columns: usize,
}

impl Default for Predictor {
    fn default() -> Self {
        Predictor {
            predictor: 1,
            colors: 1,
            bpc: 8,
            columns: 1,
        }
    }
}

/// Run `data` through the stages in order. Returns the decoded bytes, or stops at an
/// image filter with what it has. Each stage's output is charged to `budget`.
pub(super) fn decode(
    data: &[u8],
    stages: &[Stage<'_>],
    budget: &Budget<'_>,
) -> Result<Vec<u8>, DecodeError> {
    let mut cur: Option<Vec<u8>> = None;
    for st in stages {
        if budget.cancelled() {
            return Err(DecodeError::Cancelled);
        }
        let input: &[u8] = cur.as_deref().unwrap_or(data);
        let cap = budget.stream_cap();
        let out = match stage(input, st, cap) {
            Ok(Some(out)) => out,
            Ok(None) => break,
            Err(e) => {
                if e == DecodeError::TooLarge {
                    budget.note_too_large();
                }
                return Err(e);
            }
        };
        budget.charge(out.len())?;
        cur = Some(out);
    }
    Ok(cur.unwrap_or_else(|| data.to_vec()))
}

/// One stage; None for an image filter (the chain ends there).
fn stage(input: &[u8], st: &Stage<'_>, cap: usize) -> Result<Option<Vec<u8>>, DecodeError> {
    Ok(Some(match st.name {
        b"FlateDecode" | b"Fl" => predict(flate(input, cap)?, &st.predictor, cap)?,
        b"LZWDecode" | b"LZW" => predict(lzw(input, st.early_change, cap)?, &st.predictor, cap)?,
        b"ASCII85Decode" | b"A85" => ascii85(input, cap)?,
        b"ASCIIHexDecode" | b"AHx" => ascii_hex(input, cap)?,
        b"RunLengthDecode" | b"RL" => run_length(input, cap)?,
        b"Crypt" => input.to_vec(),
        // Images: nothing further to read as text.
        _ => return Ok(None),
    }))
}

/// Inflate zlib data (or raw deflate when the header is broken), keeping what came out
/// before a corrupt or truncated tail, as viewers do. The zlib checksum is not checked:
/// a wrong Adler-32 after good data (a common damage) loses nothing.
fn flate(input: &[u8], cap: usize) -> Result<Vec<u8>, DecodeError> {
    let zlib = input.len() >= 2
        && (u16::from(input[0]) << 8 | u16::from(input[1])) % 31 == 0
        && input[0] & 0x0f == 8;
    let body = if zlib { &input[2..] } else { input };
    let out = inflate_raw(body, cap)?;
    if out.is_empty() && !zlib && input.len() > 2 {
        return inflate_raw(&input[2..], cap);
    }
    Ok(out)
}

fn inflate_raw(input: &[u8], cap: usize) -> Result<Vec<u8>, DecodeError> {
    let mut out = Out::new(cap);
    let mut chunk = [0u8; 16 * 1024];
    let mut r = flate2::read::DeflateDecoder::new(input);
    loop {
        match r.read(&mut chunk) {
            Ok(0) | Err(_) => return Ok(out.buf),
            Ok(n) => out.extend(&chunk[..n])?,
        }
    }
}

fn lzw(input: &[u8], early_change: bool, cap: usize) -> Result<Vec<u8>, DecodeError> {
    let mut out = Out::new(cap);
    // The table: each entry is (prefix index, last byte, length); strings are rebuilt by
    // walking prefixes, so the table is 4096 entries whatever the input.
    let mut prefix: Vec<u16> = vec![0; 4096];
    let mut last: Vec<u8> = vec![0; 4096];
    let mut len: Vec<u16> = vec![0; 4096];
    for i in 0..256 {
        last[i] = i as u8;
        len[i] = 1;
    }
    let mut next = 258usize;
    let mut width = 9u32;
    let mut prev: Option<usize> = None;
    let (mut acc, mut nbits) = (0u32, 0u32);
    let mut scratch: Vec<u8> = Vec::with_capacity(4096);
    let emit = |code: usize, out: &mut Out, scratch: &mut Vec<u8>, prefix: &[u16], last: &[u8]| {
        scratch.clear();
        let mut c = code;
        loop {
            scratch.push(last[c]);
            if c < 256 {
                break;
            }
            c = usize::from(prefix[c]);
        }
        scratch.reverse();
        out.extend(scratch)
    };
    for &b in input {
        acc = (acc << 8) | u32::from(b);
        nbits += 8;
        while nbits >= width {
            let code = ((acc >> (nbits - width)) & ((1 << width) - 1)) as usize;
            nbits -= width;
            acc &= (1u32 << nbits).wrapping_sub(1);
            match code {
                256 => {
                    next = 258;
                    width = 9;
                    prev = None;
                }
                257 => return Ok(out.buf),
                _ => {
                    if code < next && (code < 256 || len[code] > 0) {
                        emit(code, &mut out, &mut scratch, &prefix, &last)?;
                        if let Some(p) = prev {
                            if next < 4096 {
                                prefix[next] = p as u16;
                                last[next] = lzw_first(code, &prefix, &last);
                                len[next] = len[p].saturating_add(1);
                                next += 1;
                            }
                        }
                    } else if code == next && next < 4096 {
                        let Some(p) = prev else { return Ok(out.buf) };
                        prefix[next] = p as u16;
                        last[next] = lzw_first(p, &prefix, &last);
                        len[next] = len[p].saturating_add(1);
                        next += 1;
                        emit(code, &mut out, &mut scratch, &prefix, &last)?;
                    } else {
                        return Ok(out.buf);
                    }
                    prev = Some(code);
                    let bump = if early_change { next + 1 } else { next };
                    width = match bump {
                        0..=511 => 9,
                        512..=1023 => 10,
                        1024..=2047 => 11,
                        _ => 12,
                    };
                }
            }
        }
    }
    Ok(out.buf)
}

/// The first byte of the string of LZW code `c`.
fn lzw_first(mut c: usize, prefix: &[u16], last: &[u8]) -> u8 {
    while c >= 256 {
        c = usize::from(prefix[c]);
    }
    last[c]
}

fn ascii85(input: &[u8], cap: usize) -> Result<Vec<u8>, DecodeError> {
    let mut out = Out::new(cap);
    let mut group = [0u8; 5];
    let mut n = 0usize;
    let input = input.strip_prefix(b"<~").unwrap_or(input);
    for &c in input {
        match c {
            b'~' => break,
            b'z' if n == 0 => out.extend(&[0, 0, 0, 0])?,
            b'!'..=b'u' => {
                group[n] = c - b'!';
                n += 1;
                if n == 5 {
                    let v = group.iter().fold(0u64, |a, &d| a * 85 + u64::from(d));
                    out.extend(&(v as u32).to_be_bytes())?;
                    n = 0;
                }
            }
            _ => {}
        }
    }
    if n > 1 {
        for g in group.iter_mut().skip(n) {
            *g = 84;
        }
        let v = group.iter().fold(0u64, |a, &d| a * 85 + u64::from(d));
        out.extend(&(v as u32).to_be_bytes()[..n - 1])?;
    }
    Ok(out.buf)
}

fn ascii_hex(input: &[u8], cap: usize) -> Result<Vec<u8>, DecodeError> {
    match super::syntax::unhex(input, cap) {
        (_, _, true) => Err(DecodeError::TooLarge),
        (out, _, false) => Ok(out),
    }
}

fn run_length(input: &[u8], cap: usize) -> Result<Vec<u8>, DecodeError> {
    let mut out = Out::new(cap);
    let mut i = 0usize;
    while i < input.len() {
        let n = input[i];
        i += 1;
        match n {
            128 => break,
            0..=127 => {
                let end = (i + usize::from(n) + 1).min(input.len());
                out.extend(&input[i..end])?;
                i = end;
            }
            _ => {
                let Some(&b) = input.get(i) else { break };
                i += 1;
                for _ in 0..(257 - usize::from(n)) {
                    out.push(b)?;
                }
            }
        }
    }
    Ok(out.buf)
}

/// Undo a PNG (10-15) or TIFF (2) predictor; anything else passes through.
fn predict(data: Vec<u8>, p: &Predictor, cap: usize) -> Result<Vec<u8>, DecodeError> {
    if p.predictor < 2 {
        return Ok(data);
    }
    let colors = p.colors.clamp(1, 32);
    let bpc = p.bpc.clamp(1, 16);
    let columns = p.columns.clamp(1, 1 << 20);
    let bpp = (colors * bpc).div_ceil(8).max(1);
    // A row never needs to be longer than the data: `/Columns` is the file's word, and the
    // two row buffers below must not be sized by it.
    let row = (colors * bpc * columns).div_ceil(8).min(data.len());
    if row == 0 {
        return Ok(data);
    }
    if p.predictor == 2 {
        let mut data = data;
        if bpc == 8 {
            for line in data.chunks_mut(row) {
                for i in bpp..line.len() {
                    line[i] = line[i].wrapping_add(line[i - bpp]);
                }
            }
        }
        return Ok(data);
    }
    let mut out = Out::new(cap);
    let mut prev = vec![0u8; row];
    let mut cur = vec![0u8; row];
    for line in data.chunks(row + 1) {
        let (kind, bytes) = (line[0], &line[1..]);
        cur[..bytes.len()].copy_from_slice(bytes);
        for b in cur.iter_mut().skip(bytes.len()) {
            *b = 0;
        }
        for i in 0..row {
            let left = if i >= bpp { cur[i - bpp] } else { 0 };
            let up = prev[i];
            let ul = if i >= bpp { prev[i - bpp] } else { 0 };
            cur[i] = match kind {
                1 => cur[i].wrapping_add(left),
                2 => cur[i].wrapping_add(up),
                3 => cur[i].wrapping_add(((u16::from(left) + u16::from(up)) / 2) as u8),
                4 => cur[i].wrapping_add(paeth(left, up, ul)),
                _ => cur[i],
            };
        }
        out.extend(&cur[..bytes.len()])?;
        std::mem::swap(&mut prev, &mut cur);
    }
    Ok(out.buf)
}

fn paeth(a: u8, b: u8, c: u8) -> u8 {
    let p = i16::from(a) + i16::from(b) - i16::from(c);
    let (pa, pb, pc) = (
        (p - i16::from(a)).abs(),
        (p - i16::from(b)).abs(),
        (p - i16::from(c)).abs(),
    );
    if pa <= pb && pa <= pc {
        a
    } else if pb <= pc {
        b
    } else {
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::sync::atomic::AtomicBool;

    fn budget(cancel: &AtomicBool) -> Budget<'_> {
        Budget::new(cancel, 1 << 20, 1 << 16)
    }

    fn stage(name: &[u8]) -> Stage<'_> {
        Stage {
            name,
            predictor: Predictor::default(),
            early_change: true,
        }
    }

    fn zlib(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        e.write_all(data).ok();
        e.finish().unwrap_or_default()
    }

    #[test]
    fn filters_decode() {
        let c = AtomicBool::new(false);
        let b = budget(&c);
        assert_eq!(
            decode(b"48656C6C6F>", &[stage(b"AHx")], &b),
            Ok(b"Hello".to_vec())
        );
        assert_eq!(
            decode(b"87cURD]i,\"Ebo80~>", &[stage(b"A85")], &b),
            Ok(b"Hello World!".to_vec())
        );
        assert_eq!(
            decode(&[2, b'a', b'b', b'c', 254, b'x', 128], &[stage(b"RL")], &b),
            Ok(b"abcxxx".to_vec())
        );
        assert_eq!(
            decode(&zlib(b"text"), &[stage(b"Fl")], &b),
            Ok(b"text".to_vec())
        );
        // LZW example from the PDF reference (7.4.4.2): 45 45 45 45 45 65 45 45 45 66.
        let lzw_in = [0x80, 0x0B, 0x60, 0x50, 0x22, 0x0C, 0x0C, 0x85, 0x01];
        assert_eq!(
            decode(&lzw_in, &[stage(b"LZWDecode")], &b),
            Ok(vec![45, 45, 45, 45, 45, 65, 45, 45, 45, 66])
        );
    }

    #[test]
    fn chained_bombs_stop_at_the_cap() {
        let c = AtomicBool::new(false);
        let b = budget(&c);
        let inner = zlib(&vec![0u8; 1 << 22]);
        let outer = zlib(&inner);
        assert_eq!(
            decode(&outer, &[stage(b"Fl"), stage(b"Fl")], &b),
            Err(DecodeError::TooLarge)
        );
        assert_eq!(
            decode(&[0x81, 0], &[stage(b"RL")], &Budget::new(&c, 1 << 20, 64)),
            Err(DecodeError::TooLarge)
        );
    }

    #[test]
    fn a_huge_columns_value_sizes_nothing() {
        let p = Predictor {
            predictor: 12,
            colors: 32,
            bpc: 16,
            columns: 1 << 20,
        };
        // Rows as long as the data: one row, the filter byte and its three bytes.
        assert_eq!(predict(vec![0, 1, 2, 3], &p, 100), Ok(vec![1, 2, 3]));
    }

    #[test]
    fn png_up_predictor() {
        let p = Predictor {
            predictor: 12,
            colors: 1,
            bpc: 8,
            columns: 2,
        };
        let data = vec![2, 1, 2, 2, 1, 1];
        assert_eq!(predict(data, &p, 100), Ok(vec![1, 2, 2, 3]));
    }
}
