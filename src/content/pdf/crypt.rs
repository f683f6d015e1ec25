//! The standard security handler (PDF 32000-2, 7.6.4), for the one case a viewer opens
//! without asking: the empty user password. RC4 40 to 128 bits (V1, V2), RC4 or AES-128
//! crypt filters (V4), AES-256 (V5, R5 and R6). Any other handler, or a document whose
//! user password is not empty, is [`NeedsPassword`].

use aes::cipher::{BlockDecrypt, BlockEncrypt, KeyInit};
use md5::{Digest as _, Md5};
use sha2::Digest as _;

use super::syntax::{Dict, Obj};

/// The document cannot be opened without a password (or with this handler).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct NeedsPassword;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Method {
    Identity,
    Rc4,
    Aes128,
    Aes256,
}

/// The file key and how strings and streams are encrypted.
#[derive(Debug, Clone)]
pub(super) struct Crypt {
    key: Vec<u8>,
    streams: Method,
    strings: Method,
    /// `/EncryptMetadata false`: the XMP stream is in clear.
    pub encrypt_metadata: bool,
}

const PAD: [u8; 32] = [
    0x28, 0xBF, 0x4E, 0x5E, 0x4E, 0x75, 0x8A, 0x41, 0x64, 0x00, 0x4E, 0x56, 0xFF, 0xFA, 0x01, 0x08,
    0x2E, 0x2E, 0x00, 0xB6, 0xD0, 0x68, 0x3E, 0x80, 0x2F, 0x0C, 0xA9, 0xFE, 0x64, 0x53, 0x69, 0x7A,
];

fn int(d: &Dict, k: &[u8]) -> Option<i64> {
    d.get(k).and_then(Obj::as_i64)
}

fn bytes<'a>(d: &'a Dict, k: &[u8]) -> &'a [u8] {
    d.get(k).and_then(Obj::as_str).unwrap_or_default()
}

impl Crypt {
    /// Open the handler described by `/Encrypt` with the empty user password. `id0` is the
    /// first string of the trailer's `/ID`.
    pub fn open(enc: &Dict, id0: &[u8]) -> Result<Crypt, NeedsPassword> {
        if enc.name(b"Filter") != Some(b"Standard") {
            return Err(NeedsPassword);
        }
        let v = int(enc, b"V").unwrap_or(0);
        let r = int(enc, b"R").unwrap_or(2);
        let encrypt_metadata = !matches!(enc.get(b"EncryptMetadata"), Some(Obj::Bool(false)));
        let (streams, strings, len) = match v {
            1 => (Method::Rc4, Method::Rc4, 5),
            2 | 3 => {
                let bits = int(enc, b"Length").unwrap_or(40).clamp(40, 128);
                (Method::Rc4, Method::Rc4, (bits / 8) as usize)
            }
            4 | 5 => {
                let cf = enc.get(b"CF").and_then(Obj::as_dict);
                let method = |key: &[u8]| -> Result<Method, NeedsPassword> {
                    let name = enc.name(key).unwrap_or(b"Identity");
                    if name == b"Identity" {
                        return Ok(Method::Identity);
                    }
                    let filter = cf.and_then(|c| c.get(name)).and_then(Obj::as_dict);
                    match filter.and_then(|f| f.name(b"CFM")) {
                        Some(b"V2") => Ok(Method::Rc4),
                        Some(b"AESV2") => Ok(Method::Aes128),
                        Some(b"AESV3") => Ok(Method::Aes256),
                        Some(b"None") | None if filter.is_some() => Ok(Method::Identity),
                        _ => Err(NeedsPassword),
                    }
                };
                (
                    method(b"StmF")?,
                    method(b"StrF")?,
                    if v == 5 { 32 } else { 16 },
                )
            }
            _ => return Err(NeedsPassword),
        };
        let o = bytes(enc, b"O");
        let u = bytes(enc, b"U");
        let key = if r >= 5 {
            key_r6(enc, u, r)?
        } else {
            let p = int(enc, b"P").unwrap_or(0) as i32;
            let key = key_r4(o, p, id0, r, len, encrypt_metadata);
            if !user_password_ok(&key, u, id0, r) {
                return Err(NeedsPassword);
            }
            key
        };
        Ok(Crypt {
            key,
            streams,
            strings,
            encrypt_metadata,
        })
    }

    pub fn decrypt_string(&self, id: (u32, u16), data: &[u8]) -> Vec<u8> {
        self.apply(self.strings, id, data)
    }

    pub fn decrypt_stream(&self, id: (u32, u16), data: &[u8]) -> Vec<u8> {
        self.apply(self.streams, id, data)
    }

    fn apply(&self, m: Method, (num, gen): (u32, u16), data: &[u8]) -> Vec<u8> {
        let object_key = || {
            let mut h = Md5::new();
            h.update(&self.key);
            h.update(&num.to_le_bytes()[..3]);
            h.update(gen.to_le_bytes());
            if m == Method::Aes128 {
                h.update(b"sAlT");
            }
            let d = h.finalize();
            d[..(self.key.len() + 5).min(16)].to_vec()
        };
        match m {
            Method::Identity => data.to_vec(),
            Method::Rc4 => rc4(&object_key(), data),
            Method::Aes128 => aes_cbc_decrypt(&object_key(), data),
            Method::Aes256 => aes_cbc_decrypt(&self.key, data),
        }
    }
}

/// Algorithm 2 (R2-R4): the file key from the empty password.
fn key_r4(o: &[u8], p: i32, id0: &[u8], r: i64, len: usize, meta: bool) -> Vec<u8> {
    let mut h = Md5::new();
    h.update(PAD);
    h.update(&o[..o.len().min(32)]);
    h.update(p.to_le_bytes());
    h.update(id0);
    if r >= 4 && !meta {
        h.update([0xff; 4]);
    }
    let mut key = h.finalize().to_vec();
    let len = len.clamp(5, 16);
    if r >= 3 {
        for _ in 0..50 {
            key = Md5::digest(&key[..len]).to_vec();
        }
    }
    key.truncate(len);
    key
}

/// Algorithms 4 and 5: does the empty password open the document?
fn user_password_ok(key: &[u8], u: &[u8], id0: &[u8], r: i64) -> bool {
    if r == 2 {
        return u.len() >= 32 && rc4(key, &PAD) == u[..32];
    }
    let mut h = Md5::new();
    h.update(PAD);
    h.update(id0);
    let mut x = rc4(key, &h.finalize());
    for i in 1..=19u8 {
        let k: Vec<u8> = key.iter().map(|b| b ^ i).collect();
        x = rc4(&k, &x);
    }
    u.len() >= 16 && x[..16] == u[..16]
}

/// R5 and R6 (AES-256): check the empty password against `/U` and unwrap `/UE`.
fn key_r6(enc: &Dict, u: &[u8], r: i64) -> Result<Vec<u8>, NeedsPassword> {
    let ue = bytes(enc, b"UE");
    if u.len() < 48 || ue.len() < 32 {
        return Err(NeedsPassword);
    }
    let (hash, vsalt, ksalt) = (&u[..32], &u[32..40], &u[40..48]);
    if hash_2b(&[], vsalt, r) != hash {
        return Err(NeedsPassword);
    }
    let k = hash_2b(&[], ksalt, r);
    let Ok(cipher) = aes::Aes256::new_from_slice(&k) else {
        return Err(NeedsPassword);
    };
    let mut prev = [0u8; 16];
    let mut out = Vec::with_capacity(32);
    for block in ue[..32].chunks(16) {
        let mut b = aes::Block::clone_from_slice(block);
        cipher.decrypt_block(&mut b);
        out.extend(b.iter().zip(prev).map(|(x, p)| x ^ p));
        prev.copy_from_slice(block);
    }
    Ok(out)
}

/// Algorithm 2.B (R6), or plain SHA-256 (R5), of password + salt (no user data: only
/// the user password is ever tried).
fn hash_2b(pw: &[u8], salt: &[u8], r: i64) -> Vec<u8> {
    let mut k = sha2::Sha256::new()
        .chain_update(pw)
        .chain_update(salt)
        .finalize()
        .to_vec();
    if r < 6 {
        return k;
    }
    let mut round = 0u32;
    loop {
        let mut k1 = Vec::with_capacity(64 * (pw.len() + k.len()));
        for _ in 0..64 {
            k1.extend_from_slice(pw);
            k1.extend_from_slice(&k);
        }
        let e = aes128_cbc_encrypt(&k[..16], &k[16..32], &k1);
        let m = e[..16].iter().map(|&b| u32::from(b)).sum::<u32>() % 3;
        k = match m {
            0 => sha2::Sha256::digest(&e).to_vec(),
            1 => sha2::Sha384::digest(&e).to_vec(),
            _ => sha2::Sha512::digest(&e).to_vec(),
        };
        round += 1;
        let last = u32::from(e.last().copied().unwrap_or(0));
        if round >= 64 && last + 32 <= round {
            break;
        }
        if round > 2048 {
            break;
        }
    }
    k.truncate(32);
    k
}

fn aes128_cbc_encrypt(key: &[u8], iv: &[u8], data: &[u8]) -> Vec<u8> {
    let Ok(cipher) = aes::Aes128::new_from_slice(key) else {
        return Vec::new();
    };
    let mut prev = [0u8; 16];
    prev.copy_from_slice(&iv[..16]);
    let mut out = Vec::with_capacity(data.len());
    for block in data.chunks_exact(16) {
        let mut b = aes::Block::default();
        for (i, x) in b.iter_mut().enumerate() {
            *x = block[i] ^ prev[i];
        }
        cipher.encrypt_block(&mut b);
        prev.copy_from_slice(&b);
        out.extend_from_slice(&b);
    }
    out
}

/// AES-CBC with the IV in the first 16 bytes; PKCS#7 padding removed when it is valid.
fn aes_cbc_decrypt(key: &[u8], data: &[u8]) -> Vec<u8> {
    if data.len() < 32 {
        return Vec::new();
    }
    let (iv, body) = data.split_at(16);
    let mut prev = [0u8; 16];
    prev.copy_from_slice(iv);
    let mut out = Vec::with_capacity(body.len());
    let mut run = |dec: &dyn Fn(&mut aes::Block)| {
        for block in body.chunks_exact(16) {
            let mut b = aes::Block::clone_from_slice(block);
            dec(&mut b);
            out.extend(b.iter().zip(prev).map(|(x, p)| x ^ p));
            prev.copy_from_slice(block);
        }
    };
    match key.len() {
        16 => match aes::Aes128::new_from_slice(key) {
            Ok(c) => run(&|b| c.decrypt_block(b)),
            Err(_) => return Vec::new(),
        },
        _ => match aes::Aes256::new_from_slice(key) {
            Ok(c) => run(&|b| c.decrypt_block(b)),
            Err(_) => return Vec::new(),
        },
    }
    if let Some(&n) = out.last() {
        let n = usize::from(n);
        if (1..=16).contains(&n)
            && n <= out.len()
            && out[out.len() - n..].iter().all(|&b| usize::from(b) == n)
        {
            out.truncate(out.len() - n);
        }
    }
    out
}

fn rc4(key: &[u8], data: &[u8]) -> Vec<u8> {
    if key.is_empty() {
        return data.to_vec();
    }
    let mut s: [u8; 256] = std::array::from_fn(|i| i as u8);
    let mut j = 0u8;
    for i in 0..256 {
        j = j.wrapping_add(s[i]).wrapping_add(key[i % key.len()]);
        s.swap(i, usize::from(j));
    }
    let (mut i, mut j) = (0u8, 0u8);
    data.iter()
        .map(|&b| {
            i = i.wrapping_add(1);
            j = j.wrapping_add(s[usize::from(i)]);
            s.swap(usize::from(i), usize::from(j));
            b ^ s[usize::from(s[usize::from(i)].wrapping_add(s[usize::from(j)]))]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rc4_known_answer() {
        // RFC 6229-style vector: key "Key", plaintext "Plaintext".
        assert_eq!(
            rc4(b"Key", b"Plaintext"),
            [0xBB, 0xF3, 0x16, 0xE8, 0xD9, 0x40, 0xAF, 0x0A, 0xD3]
        );
    }

    #[test]
    fn aes_round_trip() {
        let key = [7u8; 16];
        let iv = [9u8; 16];
        let plain = b"sixteen byte msg sixteen byte ms";
        let enc = aes128_cbc_encrypt(&key, &iv, plain);
        let mut data = iv.to_vec();
        data.extend(enc);
        // No valid padding block: nothing is stripped.
        assert_eq!(aes_cbc_decrypt(&key, &data), plain);
    }

    #[test]
    fn unknown_handler_needs_a_password() {
        let d = Dict(vec![(
            b"Filter".to_vec(),
            Obj::Name(b"Adobe.PubSec".to_vec()),
        )]);
        assert!(Crypt::open(&d, b"").is_err());
    }
}
