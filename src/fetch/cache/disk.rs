//! The cache's files on disk, under one rule: the cache trusts nothing it did not create.
//!
//! A cache directory that someone else can write is a way to plant a page that vetch would
//! serve as verified content, and to steer vetch's writes (appends, chmods, truncations) at
//! files elsewhere through symbolic links. So, as ssh does for its own files:
//!
//! - the directory must belong to this user and be writable by no one else, and no folder
//!   on the way to it may let another user swap it ([`Disk::open`] refuses it otherwise,
//!   and the caller runs uncached);
//! - nothing is read or written through a link: entries are opened with `O_NOFOLLOW`, only
//!   regular files are read, and every folder on the way is checked to be a real one;
//! - every read is bounded: an index bucket by [`MAX_BUCKET`], an entry by the size its
//!   index line recorded (itself at most the cache's size cap), whatever the file says;
//! - the header hashes and the store keys are salted with a random salt made with the
//!   cache (`salt-v1`, 0600), so a copy of the index is no dictionary oracle;
//! - `clear` removes the store's own folders and files, and in `tmp/` only cacache's own
//!   temporary files.
//!
//! Writes go through cacache (a temp file renamed into place, then one line appended to
//! the key's index bucket), after the checks above. Reads are this module's own: cacache's
//! follow links and read whole files, and its integrity parser panics on a crafted line.
//! What must never happen here: a read without a bound, a write through a link, a panic on
//! any byte found on disk.

use std::fs::{File, OpenOptions};
use std::io::{ErrorKind, Read, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha1::{Digest as _, Sha1};
use sha2::Sha256;

/// cacache's folders (its index and content layout versions) and vetch's own files.
const INDEX: &str = "index-v5";
const CONTENT: &str = "content-v2";
const TMP: &str = "tmp";
/// The size ledger: `BYTES WRITES` (see `HttpCache::account`).
const LEDGER: &str = "size-v1";
/// The salt of this cache: 64 hex digits.
const SALT: &str = "salt-v1";

/// The longest index bucket read. A bucket holds one key's lines (a write or a hit appends
/// one of about 300 bytes); one past [`COMPACT_AT`] is started afresh at the next write.
const MAX_BUCKET: u64 = 1024 * 1024;
const COMPACT_AT: u64 = 64 * 1024;

/// Why a cache directory is not used. The lookup runs uncached; `-v` and `vetch cache info`
/// show this.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Untrusted {
    /// The path exists and is not a directory.
    NotADirectory(PathBuf),
    /// The directory belongs to another user.
    Owner { path: PathBuf, uid: u32, euid: u32 },
    /// The directory is writable by its group or by others (`mode` is its permission bits).
    Writable { path: PathBuf, mode: u32 },
    /// A folder on the way belongs to a user other than root and this one, who could
    /// replace the cache directory.
    ParentOwner { path: PathBuf, uid: u32 },
    /// A folder on the way is writable by others (or by a group not this user's) without
    /// the sticky bit, so anyone could replace the cache directory.
    ParentWritable { path: PathBuf, mode: u32 },
    /// A symbolic link on the way belongs to another user, who could point it elsewhere.
    LinkOwner { path: PathBuf, uid: u32 },
    /// The directory or its salt could not be inspected or created.
    Io { path: PathBuf, error: String },
}

impl std::fmt::Display for Untrusted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Untrusted::NotADirectory(p) => write!(f, "{} is not a directory", p.display()),
            Untrusted::Owner { path, uid, euid } => write!(
                f,
                "{} belongs to uid {uid}, not to this user (uid {euid}): its owner could plant \
                 entries",
                path.display()
            ),
            Untrusted::Writable { path, mode } => write!(
                f,
                "{} is writable by {} (mode {:04o}): anyone who can write there could plant \
                 entries; make it private (chmod 700 {})",
                path.display(),
                writers(*mode),
                mode & 0o7777,
                path.display()
            ),
            Untrusted::ParentOwner { path, uid } => write!(
                f,
                "{}, on the way to the cache directory, belongs to uid {uid} (neither root nor \
                 this user), who could replace the cache directory",
                path.display()
            ),
            Untrusted::ParentWritable { path, mode } => write!(
                f,
                "{}, on the way to the cache directory, is writable by {} without the sticky \
                 bit (mode {:04o}), so they could replace the cache directory",
                path.display(),
                writers(*mode),
                mode & 0o7777
            ),
            Untrusted::LinkOwner { path, uid } => write!(
                f,
                "{} is a symbolic link owned by uid {uid} (neither root nor this user), who \
                 could point it elsewhere",
                path.display()
            ),
            Untrusted::Io { path, error } => write!(f, "cannot use {}: {error}", path.display()),
        }
    }
}

/// Who the write bits of `mode` let in, in words.
fn writers(mode: u32) -> &'static str {
    match (mode & 0o020 != 0, mode & 0o002 != 0) {
        (true, true) => "its group and others",
        (true, false) => "its group",
        _ => "others",
    }
}

/// One index line of a key: where its entry is and how long it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexEntry {
    pub key: String,
    /// `sha256-BASE64`, checked to be one well-formed SHA-256.
    integrity: String,
    /// The same digest in hex (the content file's name).
    hex: String,
    /// The entry's length in bytes, as recorded when it was written.
    pub size: u64,
    /// Last write or hit, in Unix milliseconds (for least-recently-used eviction).
    pub time: u128,
}

impl IndexEntry {
    /// The entry's `sha256-BASE64` integrity, as the index records it.
    pub fn integrity(&self) -> &str {
        &self.integrity
    }
}

/// An index line as cacache writes it (after the SHA-256 of its JSON and a tab).
#[derive(Deserialize, Serialize)]
struct IndexLine {
    key: String,
    integrity: Option<String>,
    time: u128,
    size: u64,
}

/// The hex digest of a `sha256-BASE64` integrity string, or None for anything else (another
/// algorithm, several hashes, a digest that is not exactly 32 bytes of canonical base64).
/// Decoded here rather than by `Integrity::to_hex`, which panics on bad base64.
fn sha256_hex_of(sri: &str) -> Option<String> {
    let b = sri.strip_prefix("sha256-")?.as_bytes();
    if b.len() != 44 || b[43] != b'=' {
        return None;
    }
    let val = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::with_capacity(33);
    for chunk in b[..43].chunks(4) {
        let mut n = 0u32;
        for (i, c) in chunk.iter().enumerate() {
            n |= val(*c)? << (18 - 6 * i);
        }
        let bytes = n.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    // The last group is three characters for two bytes: its two spare bits must be zero.
    if val(b[42])? & 0b11 != 0 || out.len() != 32 {
        return None;
    }
    Some(hex::encode(out))
}

fn sha256_hex(b: &[u8]) -> String {
    hex::encode(<Sha256 as sha2::Digest>::digest(b))
}

/// The entries of one bucket's bytes, in file order; lines that do not check out (torn,
/// edited, another algorithm) are skipped. An entry whose integrity is null is a removal.
fn parse_bucket(bytes: &[u8]) -> Vec<(String, Option<IndexEntry>)> {
    let mut out = Vec::new();
    for line in bytes.split(|b| *b == b'\n') {
        let Some(tab) = line.iter().position(|b| *b == b'\t') else {
            continue;
        };
        let (hash, json) = (&line[..tab], &line[tab + 1..]);
        if hash != sha256_hex(json).as_bytes() {
            continue;
        }
        let Ok(l) = serde_json::from_slice::<IndexLine>(json) else {
            continue;
        };
        let entry = match l.integrity {
            None => None,
            Some(sri) => match sha256_hex_of(&sri) {
                Some(hex) => Some(IndexEntry {
                    key: l.key.clone(),
                    integrity: sri,
                    hex,
                    size: l.size,
                    time: l.time,
                }),
                // Not ours to read: as if the line were not there.
                None => continue,
            },
        };
        out.push((l.key, entry));
    }
    out
}

/// Open flags that never follow a link in the last component and never block on a FIFO
/// (which is then refused by its type).
fn no_follow(o: &mut OpenOptions) -> &mut OpenOptions {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    o
}

/// An existing regular file, opened for reading without following a link, and its length.
fn open_regular(p: &Path) -> Option<(File, u64)> {
    let f = no_follow(OpenOptions::new().read(true)).open(p).ok()?;
    let m = f.metadata().ok()?;
    m.is_file().then_some((f, m.len()))
}

/// The bytes of a regular file of at most `max` bytes (None for anything else).
fn read_bounded(p: &Path, max: u64) -> Option<Vec<u8>> {
    let (f, len) = open_regular(p)?;
    if len > max {
        return None;
    }
    let mut buf = Vec::with_capacity(usize::try_from(len).ok()?);
    f.take(max + 1).read_to_end(&mut buf).ok()?;
    (buf.len() as u64 <= max).then_some(buf)
}

/// Is every folder from `dir` down to `rel`'s last part a real directory (or missing, to be
/// created)? A link or a file there would take a read or a write somewhere else.
fn no_links_on_the_way(dir: &Path, rel: &[&str]) -> bool {
    let mut p = dir.to_path_buf();
    for part in &rel[..rel.len().saturating_sub(1)] {
        p.push(part);
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_dir() => {}
            Err(e) if e.kind() == ErrorKind::NotFound => return true,
            _ => return false,
        }
    }
    true
}

/// A new file, 0600, created exclusively (so never through a link left at `p`).
fn create_private(p: &Path) -> std::io::Result<File> {
    let mut o = OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600);
    }
    no_follow(&mut o).open(p)
}

/// Write `text` to `name` in `dir` by a private temp file renamed over it: the file is
/// always whole, and a link at `name` is replaced, not followed.
fn replace_file(dir: &Path, name: &str, text: &[u8]) -> std::io::Result<()> {
    let tmp = dir.join(format!("{name}.{}.tmp", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    let written = create_private(&tmp).and_then(|mut f| f.write_all(text));
    let done = written.and_then(|()| std::fs::rename(&tmp, dir.join(name)));
    if done.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    done
}

// --- the directory and who may write it ---------------------------------------------------

#[cfg(unix)]
fn ids() -> (u32, u32) {
    // SAFETY: geteuid and getegid take nothing, cannot fail and touch no memory of ours.
    unsafe { (libc::geteuid(), libc::getegid()) }
}

/// A folder on the way to the cache directory: it must belong to root or this user, and
/// no one else may write it unless its sticky bit is set (as /tmp: then only the owner of
/// an entry can rename or remove it). Group write is allowed for this user's own primary
/// group (user private groups, where `~/.cache` is often 0775).
#[cfg(unix)]
fn check_parent(p: &Path, m: &std::fs::Metadata) -> Result<(), Untrusted> {
    use std::os::unix::fs::MetadataExt;
    let (euid, egid) = ids();
    if m.uid() != 0 && m.uid() != euid {
        return Err(Untrusted::ParentOwner {
            path: p.to_path_buf(),
            uid: m.uid(),
        });
    }
    let mode = m.mode();
    let sticky = mode & 0o1000 != 0;
    let others = mode & 0o002 != 0;
    let group = mode & 0o020 != 0 && m.gid() != egid;
    if (others || group) && !sticky {
        return Err(Untrusted::ParentWritable {
            path: p.to_path_buf(),
            mode,
        });
    }
    Ok(())
}

/// Check the folders on the way to `dir` that exist: along the path as written (a link
/// there must belong to root or this user) and along the real path the links lead to.
#[cfg(unix)]
fn check_parents(dir: &Path) -> Result<(), Untrusted> {
    use std::os::unix::fs::MetadataExt;
    let io = |p: &Path, e: std::io::Error| Untrusted::Io {
        path: p.to_path_buf(),
        error: e.to_string(),
    };
    let mut deepest = None;
    for p in dir.ancestors().skip(1) {
        let lm = match std::fs::symlink_metadata(p) {
            Ok(m) => m,
            Err(e) if e.kind() == ErrorKind::NotFound => continue,
            Err(e) => return Err(io(p, e)),
        };
        deepest.get_or_insert(p);
        if lm.file_type().is_symlink() {
            let (euid, _) = ids();
            if lm.uid() != 0 && lm.uid() != euid {
                return Err(Untrusted::LinkOwner {
                    path: p.to_path_buf(),
                    uid: lm.uid(),
                });
            }
        }
        let m = std::fs::metadata(p).map_err(|e| io(p, e))?;
        if !m.is_dir() {
            return Err(Untrusted::NotADirectory(p.to_path_buf()));
        }
        check_parent(p, &m)?;
    }
    if let Some(p) = deepest {
        let real = std::fs::canonicalize(p).map_err(|e| io(p, e))?;
        for q in real.ancestors() {
            let m = std::fs::metadata(q).map_err(|e| io(q, e))?;
            check_parent(q, &m)?;
        }
    }
    Ok(())
}

/// Is `dir` (and the way to it) a directory only this user can write? With `create`, a
/// missing directory is made (0700, and any missing folder above it). Returns whether the
/// directory exists now.
pub fn check_dir(dir: &Path, create: bool) -> Result<bool, Untrusted> {
    let io = |e: std::io::Error| Untrusted::Io {
        path: dir.to_path_buf(),
        error: e.to_string(),
    };
    let dir = if dir.is_absolute() {
        dir.to_path_buf()
    } else {
        std::env::current_dir().map_err(io)?.join(dir)
    };
    #[cfg(unix)]
    check_parents(&dir)?;
    let lm = match std::fs::symlink_metadata(&dir) {
        Ok(m) => m,
        Err(e) if e.kind() == ErrorKind::NotFound && create => {
            let mut b = std::fs::DirBuilder::new();
            b.recursive(true);
            #[cfg(unix)]
            {
                use std::os::unix::fs::DirBuilderExt;
                b.mode(0o700);
            }
            b.create(&dir).map_err(io)?;
            std::fs::symlink_metadata(&dir).map_err(io)?
        }
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(io(e)),
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let (euid, _) = ids();
        if lm.file_type().is_symlink() && lm.uid() != 0 && lm.uid() != euid {
            return Err(Untrusted::LinkOwner {
                path: dir.clone(),
                uid: lm.uid(),
            });
        }
        let m = std::fs::metadata(&dir).map_err(io)?;
        if !m.is_dir() {
            return Err(Untrusted::NotADirectory(dir));
        }
        if m.uid() != euid {
            return Err(Untrusted::Owner {
                path: dir,
                uid: m.uid(),
                euid,
            });
        }
        if m.mode() & 0o022 != 0 {
            return Err(Untrusted::Writable {
                path: dir,
                mode: m.mode(),
            });
        }
        // A link of ours to a directory elsewhere: the folders on the way there count too.
        if lm.file_type().is_symlink() {
            let real = std::fs::canonicalize(&dir).map_err(io)?;
            for q in real.ancestors().skip(1) {
                check_parent(q, &std::fs::metadata(q).map_err(io)?)?;
            }
        }
    }
    #[cfg(not(unix))]
    if !std::fs::metadata(&dir).map_err(io)?.is_dir() {
        return Err(Untrusted::NotADirectory(dir));
    }
    let _ = lm;
    Ok(true)
}

/// This cache's salt: read, or made (32 random bytes) when missing or damaged. Two
/// processes making it at once agree: the first link wins and both read it back.
fn salt(dir: &Path) -> Result<[u8; 32], Untrusted> {
    let path = dir.join(SALT);
    let parse = |b: &[u8]| -> Option<[u8; 32]> {
        let text = std::str::from_utf8(b).ok()?.trim();
        hex::decode(text).ok()?.try_into().ok()
    };
    if let Some(s) = read_bounded(&path, 128).as_deref().and_then(parse) {
        return Ok(s);
    }
    let io = |e: String| Untrusted::Io {
        path: path.clone(),
        error: e,
    };
    let mut fresh = [0u8; 32];
    getrandom::fill(&mut fresh).map_err(|e| io(format!("no random salt: {e}")))?;
    let tmp = dir.join(format!("{SALT}.{}.tmp", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    // Linked in place, which fails when another process made one meanwhile (then theirs is
    // read back); renamed over it only when what is there does not read as a salt (a
    // damaged file, or a link: replaced, its target untouched).
    let made = create_private(&tmp)
        .and_then(|mut f| f.write_all(format!("{}\n", hex::encode(fresh)).as_bytes()))
        .and_then(|()| match std::fs::hard_link(&tmp, &path) {
            Err(e) if e.kind() == ErrorKind::AlreadyExists => {
                match read_bounded(&path, 128).as_deref().and_then(parse) {
                    Some(_) => Ok(()),
                    None => std::fs::rename(&tmp, &path),
                }
            }
            Err(_) => std::fs::rename(&tmp, &path),
            Ok(()) => Ok(()),
        });
    let _ = std::fs::remove_file(&tmp);
    made.map_err(|e| io(e.to_string()))?;
    read_bounded(&path, 128)
        .as_deref()
        .and_then(parse)
        .ok_or_else(|| io("the salt just written does not read back".into()))
}

// --- the store ----------------------------------------------------------------------------

/// A cache directory that passed [`check_dir`], and its salt.
#[derive(Debug)]
pub struct Disk {
    dir: PathBuf,
    salt: [u8; 32],
}

/// An entry being read: its bytes as they come, hashed, never past the recorded size.
pub struct EntryReader {
    inner: std::io::Take<File>,
    hasher: Sha256,
    want: String,
    read: u64,
    size: u64,
}

impl Read for EntryReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        sha2::Digest::update(&mut self.hasher, &buf[..n]);
        self.read += n as u64;
        Ok(n)
    }
}

impl EntryReader {
    /// Read what is left (hashing it, keeping nothing) and check the whole entry against
    /// its index line: the recorded length and the recorded SHA-256.
    pub fn verify(mut self) -> bool {
        let mut sink = vec![0u8; 64 * 1024];
        loop {
            match self.read(&mut sink) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(_) => return false,
            }
        }
        self.read == self.size && hex::encode(sha2::Digest::finalize(self.hasher)) == self.want
    }
}

/// `aa/bb/rest` of a hex digest, as cacache lays out its files.
fn split_hex(hex: &str) -> Option<[&str; 3]> {
    Some([hex.get(0..2)?, hex.get(2..4)?, hex.get(4..)?])
}

impl Disk {
    /// The cache in `dir`, created (0700) when missing; refused when it, or a folder on
    /// the way, is not this user's alone.
    pub fn open(dir: &Path) -> Result<Disk, Untrusted> {
        check_dir(dir, true)?;
        Ok(Disk {
            dir: dir.to_path_buf(),
            salt: salt(dir)?,
        })
    }

    pub fn salt(&self) -> &[u8; 32] {
        &self.salt
    }

    /// The index bucket of `key`: `index-v5/aa/bb/rest` of the key's SHA-1 (cacache's).
    fn bucket_rel(key: &str) -> [String; 4] {
        let h = hex::encode(Sha1::digest(key.as_bytes()));
        [
            INDEX.to_string(),
            h[0..2].to_string(),
            h[2..4].to_string(),
            h[4..].to_string(),
        ]
    }

    fn path(&self, rel: &[&str]) -> Option<PathBuf> {
        no_links_on_the_way(&self.dir, rel)
            .then(|| rel.iter().fold(self.dir.clone(), |p, r| p.join(r)))
    }

    fn bucket_path(&self, key: &str) -> Option<PathBuf> {
        let rel = Disk::bucket_rel(key);
        self.path(&rel.each_ref().map(String::as_str))
    }

    fn content_path(&self, hex: &str) -> Option<PathBuf> {
        let [a, b, rest] = split_hex(hex)?;
        self.path(&[CONTENT, "sha256", a, b, rest])
    }

    /// The live index entry of `key` (its last line), if any.
    pub fn find(&self, key: &str) -> Option<IndexEntry> {
        let bytes = read_bounded(&self.bucket_path(key)?, MAX_BUCKET)?;
        parse_bucket(&bytes)
            .into_iter()
            .rev()
            .find(|(k, _)| k == key)?
            .1
    }

    /// Open an entry for reading: a regular file of exactly its recorded size, which must
    /// be at most `max` bytes.
    pub fn open_entry(&self, e: &IndexEntry, max: u64) -> Option<EntryReader> {
        if e.size > max {
            return None;
        }
        let (f, len) = open_regular(&self.content_path(&e.hex)?)?;
        if len != e.size {
            return None;
        }
        Some(EntryReader {
            inner: f.take(e.size),
            hasher: <Sha256 as sha2::Digest>::new(),
            want: e.hex.clone(),
            read: 0,
            size: e.size,
        })
    }

    /// Make the key's bucket safe to append to: a link, a device or a bucket grown past
    /// [`COMPACT_AT`] is removed (the line about to be written is the key's whole state).
    fn prepare_bucket(&self, key: &str) -> bool {
        let Some(p) = self.bucket_path(key) else {
            return false;
        };
        match std::fs::symlink_metadata(&p) {
            Err(e) => e.kind() == ErrorKind::NotFound,
            Ok(m) if m.file_type().is_file() && m.len() <= COMPACT_AT => true,
            Ok(m) if m.file_type().is_dir() => false,
            Ok(_) => std::fs::remove_file(&p).is_ok(),
        }
    }

    /// Write an entry under `key` (content file, then its index line); None when it could
    /// not be written safely.
    pub fn write(&self, key: &str, bytes: &[u8]) -> Option<String> {
        let hex = sha256_hex(bytes);
        // Every folder the write will pass through, checked before cacache creates or uses it.
        self.content_path(&hex)?;
        self.path(&[TMP, "x"])?;
        if !self.prepare_bucket(key) {
            return None;
        }
        let mut w = cacache::WriteOpts::new()
            .algorithm(cacache::Algorithm::Sha256)
            .size(bytes.len())
            .open_sync(&self.dir, key)
            .ok()?;
        w.write_all(bytes).ok()?;
        let sri = w.commit().ok()?.to_string();
        self.narrow(key, Some(&hex));
        (sha256_hex_of(&sri).as_deref() == Some(hex.as_str())).then_some(sri)
    }

    /// Record a use of an entry now (a new index line with the same content).
    pub fn touch(&self, e: &IndexEntry, now: u128) {
        let Ok(sri) = e.integrity.parse::<cacache::Integrity>() else {
            return;
        };
        if !self.prepare_bucket(&e.key) {
            return;
        }
        let opts = cacache::WriteOpts::new()
            .integrity(sri)
            .size(usize::try_from(e.size).unwrap_or(usize::MAX))
            .time(now);
        if cacache::index::insert(&self.dir, &e.key, opts).is_ok() {
            self.narrow(&e.key, None);
        }
    }

    /// Remove an entry's content file (its index may still name it: a later read misses).
    pub fn remove_content(&self, integrity: &str) {
        if let Some(p) = sha256_hex_of(integrity).and_then(|h| self.content_path(&h)) {
            let _ = std::fs::remove_file(p);
        }
    }

    /// Remove an entry: its content file and its index bucket.
    pub fn remove(&self, e: &IndexEntry) {
        if let Some(p) = self.content_path(&e.hex) {
            let _ = std::fs::remove_file(p);
        }
        if let Some(p) = self.bucket_path(&e.key) {
            let _ = std::fs::remove_file(p);
        }
    }

    /// Every live entry of the index.
    pub fn list(&self) -> Vec<IndexEntry> {
        list(&self.dir)
    }

    /// The size ledger: `(bytes, writes)`, when it reads as one.
    pub fn ledger(&self) -> Option<(u64, u64)> {
        let bytes = read_bounded(&self.dir.join(LEDGER), 64)?;
        let text = std::str::from_utf8(&bytes).ok()?;
        let mut it = text.split_whitespace().map(str::parse::<u64>);
        Some((it.next()?.ok()?, it.next()?.ok()?))
    }

    pub fn set_ledger(&self, bytes: u64, writes: u64) {
        let _ = replace_file(&self.dir, LEDGER, format!("{bytes} {writes}\n").as_bytes());
    }

    /// cacache creates its files and folders with the process's default modes: narrow them
    /// to 0600 and 0700, through descriptors opened without following links.
    fn narrow(&self, key: &str, content_hex: Option<&str>) {
        #[cfg(unix)]
        {
            let walk = |rel: &[&str]| {
                let mut p = self.dir.clone();
                for (i, part) in rel.iter().enumerate() {
                    p.push(part);
                    let last = i + 1 == rel.len();
                    set_mode(&p, if last { 0o600 } else { 0o700 }, !last);
                }
            };
            let bucket = Disk::bucket_rel(key);
            walk(&bucket.each_ref().map(String::as_str));
            if let Some([a, b, rest]) = content_hex.and_then(split_hex) {
                walk(&[CONTENT, "sha256", a, b, rest]);
                set_mode(&self.dir.join(TMP), 0o700, true);
            }
        }
        #[cfg(not(unix))]
        let _ = (key, content_hex);
    }
}

/// Set the permission bits of a directory (`dir`) or a regular file at `p`, through a
/// descriptor opened without following a link; anything else is left alone.
#[cfg(unix)]
fn set_mode(p: &Path, mode: u32, dir: bool) {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let mut o = OpenOptions::new();
    o.read(true).custom_flags(
        libc::O_NOFOLLOW | libc::O_NONBLOCK | if dir { libc::O_DIRECTORY } else { 0 },
    );
    let Ok(f) = o.open(p) else {
        return;
    };
    let Ok(m) = f.metadata() else {
        return;
    };
    if m.is_dir() != dir || !(m.is_dir() || m.is_file()) {
        return;
    }
    if m.permissions().mode() & 0o777 != mode {
        let _ = f.set_permissions(std::fs::Permissions::from_mode(mode));
    }
}

/// Every live entry of the index in `dir`: each bucket a regular file read within its
/// bound, the last line of each key deciding.
fn list(dir: &Path) -> Vec<IndexEntry> {
    let root = dir.join(INDEX);
    if !std::fs::symlink_metadata(&root).is_ok_and(|m| m.file_type().is_dir()) {
        return Vec::new();
    }
    let mut out = Vec::new();
    let buckets = walkdir::WalkDir::new(&root)
        .follow_links(false)
        .min_depth(3)
        .max_depth(3);
    for e in buckets.into_iter().filter_map(Result::ok) {
        if !e.file_type().is_file() {
            continue;
        }
        let Some(bytes) = read_bounded(e.path(), MAX_BUCKET) else {
            continue;
        };
        let mut latest: Vec<(String, Option<IndexEntry>)> = Vec::new();
        for (key, entry) in parse_bucket(&bytes) {
            match latest.iter_mut().find(|(k, _)| *k == key) {
                Some(slot) => slot.1 = entry,
                None => latest.push((key, entry)),
            }
        }
        out.extend(latest.into_iter().filter_map(|(_, e)| e));
    }
    out
}

/// What `vetch cache info` reports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CacheInfo {
    pub dir: PathBuf,
    pub entries: u64,
    /// Every file under the directory (entries, index and leftovers), in bytes.
    pub bytes: u64,
    /// Why the directory is not used (then its entries are not read: 0).
    pub refused: Option<String>,
}

/// Bytes of every file under `p` (links not followed, `p` itself included).
fn disk_usage(p: &Path) -> u64 {
    walkdir::WalkDir::new(p)
        .follow_root_links(false)
        .into_iter()
        .filter_map(Result::ok)
        .filter_map(|e| e.metadata().ok())
        .filter(|m| !m.is_dir())
        .map(|m| m.len())
        .sum()
}

/// The directory, its entry count and size, and why it is refused if it is. A missing
/// directory is an empty cache (and is not created).
pub fn info(dir: &Path) -> CacheInfo {
    let (entries, refused) = match check_dir(dir, false) {
        Ok(_) => (list(dir).len() as u64, None),
        Err(why) => (0, Some(why.to_string())),
    };
    CacheInfo {
        dir: dir.to_path_buf(),
        entries,
        bytes: disk_usage(dir),
        refused,
    }
}

/// Empty the cache: cacache's index and content folders, the size ledger, vetch's own
/// temp files, and in `tmp/` only cacache's temporary files (`.tmp*`; the folder goes
/// when that leaves it empty). Anything else in the directory stays, and so does the salt.
/// A refused directory is not touched. Returns what was there.
pub fn clear(dir: &Path) -> Result<CacheInfo, Untrusted> {
    check_dir(dir, false)?;
    let before = info(dir);
    let io = |p: &Path, e: std::io::Error| Untrusted::Io {
        path: p.to_path_buf(),
        error: e.to_string(),
    };
    let is = |p: &Path, dir_wanted: bool| {
        std::fs::symlink_metadata(p).is_ok_and(|m| {
            if dir_wanted {
                m.file_type().is_dir()
            } else {
                m.file_type().is_file()
            }
        })
    };
    for part in [INDEX, CONTENT] {
        let p = dir.join(part);
        if is(&p, true) {
            std::fs::remove_dir_all(&p).map_err(|e| io(&p, e))?;
        }
    }
    let ledger = dir.join(LEDGER);
    if is(&ledger, false) {
        std::fs::remove_file(&ledger).map_err(|e| io(&ledger, e))?;
    }
    let ours = |name: &str, prefix: &str| {
        name.strip_prefix(prefix)
            .and_then(|r| r.strip_prefix('.'))
            .and_then(|r| r.strip_suffix(".tmp"))
            .is_some_and(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
    };
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if (ours(&name, LEDGER) || ours(&name, SALT)) && is(&e.path(), false) {
            let _ = std::fs::remove_file(e.path());
        }
    }
    let tmp = dir.join(TMP);
    if is(&tmp, true) {
        for e in std::fs::read_dir(&tmp).into_iter().flatten().flatten() {
            if e.file_name().to_string_lossy().starts_with(".tmp") && is(&e.path(), false) {
                let _ = std::fs::remove_file(e.path());
            }
        }
        // Only when empty: a folder of the same name that held other files keeps them.
        let _ = std::fs::remove_dir(&tmp);
    }
    Ok(before)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_integrity_decodes_like_cacache_and_refuses_the_rest() {
        for body in [&b""[..], b"hello", &[0xffu8; 1000]] {
            let sri = cacache::Integrity::from(body);
            assert_eq!(
                sha256_hex_of(&sri.to_string()),
                Some(sri.to_hex().1),
                "{sri}"
            );
        }
        let good = cacache::Integrity::from(b"x").to_string();
        for bad in [
            "",
            "sha256-",
            "sha512-AAAA",
            "sha256-!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!=",
            // a spare bit set in the last character
            &format!("{}B=", &good[..good.len() - 2]),
            &format!("{good} {good}"),
            &good[..good.len() - 1],
        ] {
            assert_eq!(sha256_hex_of(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn buckets_keep_the_last_line_per_key_and_skip_damage() {
        let line = |key: &str, sri: Option<&str>, size: u64| {
            let json = serde_json::to_string(&IndexLine {
                key: key.into(),
                integrity: sri.map(str::to_string),
                time: 1,
                size,
            })
            .unwrap();
            format!("\n{}\t{json}", sha256_hex(json.as_bytes()))
        };
        let a = cacache::Integrity::from(b"a").to_string();
        let b = cacache::Integrity::from(b"b").to_string();
        let text = [
            line("k", Some(&a), 1),
            line("k", Some(&b), 2),
            "\nnot a line".into(),
            line("k", Some("sha256-bad"), 3),
            line("j", Some(&a), 4),
            line("j", None, 0),
        ]
        .concat();
        let parsed = parse_bucket(text.as_bytes());
        let last = |key: &str| {
            parsed
                .iter()
                .rev()
                .find(|(k, _)| k == key)
                .and_then(|(_, e)| e.clone())
        };
        assert_eq!(last("k").map(|e| e.size), Some(2));
        assert_eq!(last("j"), None, "removed");
        // A line whose hash does not match its JSON is skipped.
        let edited = line("k", Some(&a), 1).replace("\"size\":1", "\"size\":9");
        assert!(parse_bucket(edited.as_bytes()).is_empty());
    }

    #[cfg(unix)]
    #[test]
    fn the_directory_must_be_this_users_alone() {
        use std::os::unix::fs::PermissionsExt;
        let base = tempfile::tempdir().unwrap();
        let set = |p: &Path, mode: u32| {
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap()
        };
        // Created private when missing, with any missing folder above it.
        let made = base.path().join("a/b/vetch");
        assert_eq!(check_dir(&made, true), Ok(true));
        let mode = std::fs::metadata(&made).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        assert_eq!(check_dir(&base.path().join("absent"), false), Ok(false));
        // Writable by others or by its group: refused, whoever runs it (a mode check).
        for bad in [0o777, 0o770, 0o702, 0o720] {
            set(&made, bad);
            match check_dir(&made, true) {
                Err(Untrusted::Writable { mode, .. }) => assert_eq!(mode & 0o777, bad),
                other => panic!("{bad:o}: {other:?}"),
            }
        }
        set(&made, 0o755);
        assert_eq!(check_dir(&made, true), Ok(true));
        // A parent anyone can write, without the sticky bit: refused; with it: fine.
        let parent = base.path().join("shared");
        let inner = parent.join("vetch");
        std::fs::create_dir_all(&inner).unwrap();
        set(&inner, 0o700);
        set(&parent, 0o777);
        assert!(matches!(
            check_dir(&inner, true),
            Err(Untrusted::ParentWritable { .. })
        ));
        // Reached through a link of ours: the folders on the real way count.
        let link = base.path().join("link");
        std::os::unix::fs::symlink(&inner, &link).unwrap();
        assert!(matches!(
            check_dir(&link, true),
            Err(Untrusted::ParentWritable { .. })
        ));
        set(&parent, 0o1777);
        assert_eq!(check_dir(&inner, true), Ok(true));
        assert_eq!(check_dir(&link, true), Ok(true));
        // A file where the directory should be.
        let file = base.path().join("file");
        std::fs::write(&file, b"x").unwrap();
        assert!(matches!(
            check_dir(&file, true),
            Err(Untrusted::NotADirectory(_))
        ));
        let msg = Untrusted::Writable {
            path: "/tmp/c".into(),
            mode: 0o40777,
        }
        .to_string();
        assert_eq!(
            msg,
            "/tmp/c is writable by its group and others (mode 0777): anyone who can write \
             there could plant entries; make it private (chmod 700 /tmp/c)"
        );
    }

    /// Ownership: as root (the CI), a directory handed to another uid is refused; as any
    /// other user, chown to someone else is not allowed, so this part only runs as root.
    #[cfg(unix)]
    #[test]
    fn a_directory_owned_by_another_user_is_refused() {
        use std::os::unix::fs::MetadataExt;
        let (euid, _) = ids();
        let base = tempfile::tempdir().unwrap();
        let d = base.path().join("theirs");
        std::fs::create_dir(&d).unwrap();
        let other = if euid == 0 { 65534 } else { euid };
        if std::os::unix::fs::chown(&d, Some(other), None).is_err() || other == euid {
            eprintln!("skipped: cannot give a directory to another user here");
            return;
        }
        assert_eq!(std::fs::metadata(&d).unwrap().uid(), other);
        assert!(matches!(
            check_dir(&d, true),
            Err(Untrusted::Owner { uid: 65534, .. })
        ));
        // And as a parent: a folder of another (non-root) user on the way.
        let inner = d.join("vetch");
        std::fs::create_dir(&inner).unwrap();
        assert!(matches!(
            check_dir(&inner, true),
            Err(Untrusted::ParentOwner { uid: 65534, .. })
        ));
    }

    #[cfg(unix)]
    #[test]
    fn links_planted_at_vetchs_own_files_are_replaced_not_followed() {
        use std::os::unix::fs::{symlink, PermissionsExt};
        let base = tempfile::tempdir().unwrap();
        let dir = base.path().join("c");
        let disk = Disk::open(&dir).unwrap();
        let victim = base.path().join("victim");
        std::fs::write(&victim, b"1 1\n").unwrap();
        std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o644)).unwrap();
        let unchanged = || {
            assert_eq!(std::fs::read(&victim).unwrap(), b"1 1\n");
            let m = std::fs::metadata(&victim).unwrap();
            assert_eq!(m.permissions().mode() & 0o777, 0o644);
        };
        // The ledger and its temp name (this process's), links to a file elsewhere: the
        // ledger is not read through the link, and writing it truncates nothing.
        symlink(
            &victim,
            dir.join(format!("{LEDGER}.{}.tmp", std::process::id())),
        )
        .unwrap();
        symlink(&victim, dir.join(LEDGER)).unwrap();
        assert_eq!(disk.ledger(), None);
        disk.set_ledger(5, 2);
        unchanged();
        assert_eq!(disk.ledger(), Some((5, 2)));
        // The salt, a link: replaced by a salt of its own.
        std::fs::remove_file(dir.join(SALT)).unwrap();
        symlink(&victim, dir.join(SALT)).unwrap();
        let again = Disk::open(&dir).unwrap();
        unchanged();
        assert!(std::fs::symlink_metadata(dir.join(SALT)).unwrap().is_file());
        assert_ne!(again.salt(), disk.salt());
        // A folder of the store, a link to a folder elsewhere: nothing is written through it.
        let elsewhere = base.path().join("elsewhere");
        std::fs::create_dir(&elsewhere).unwrap();
        std::fs::remove_dir_all(dir.join(INDEX)).ok();
        symlink(&elsewhere, dir.join(INDEX)).unwrap();
        assert_eq!(again.write("k", b"entry"), None);
        assert!(std::fs::read_dir(&elsewhere).unwrap().next().is_none());
        assert!(again.list().is_empty());
    }

    #[test]
    fn an_entry_is_read_only_at_its_recorded_size() {
        let dir = tempfile::tempdir().unwrap();
        let disk = Disk::open(dir.path()).unwrap();
        let sri = disk.write("k", b"the entry").unwrap();
        let e = disk.find("k").unwrap();
        assert_eq!((e.size, e.integrity()), (9, sri.as_str()));
        let mut r = disk.open_entry(&e, 1000).unwrap();
        let mut first = [0u8; 3];
        r.read_exact(&mut first).unwrap();
        assert_eq!(&first, b"the");
        assert!(r.verify(), "the rest is hashed, and the whole checks out");
        // Larger than this run may read: not opened.
        assert!(disk.open_entry(&e, 8).is_none());
        // A file longer than its index line says: not read at all.
        let path = disk.content_path(&e.hex).unwrap();
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b" and more").unwrap();
        assert!(disk.open_entry(&e, 1000).is_none());
        // Same length, other bytes: read, but it does not verify.
        std::fs::write(&path, b"the ENTRY").unwrap();
        assert!(!disk.open_entry(&e, 1000).unwrap().verify());
        assert_eq!(disk.list().len(), 1);
        disk.remove(&e);
        assert!(disk.find("k").is_none() && disk.list().is_empty());
    }

    #[test]
    fn the_salt_is_made_once_private_and_replaced_when_damaged() {
        let dir = tempfile::tempdir().unwrap();
        let a = Disk::open(dir.path()).unwrap();
        let b = Disk::open(dir.path()).unwrap();
        assert_eq!(a.salt(), b.salt());
        assert_ne!(a.salt(), &[0u8; 32]);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let m = std::fs::metadata(dir.path().join(SALT)).unwrap();
            assert_eq!(m.permissions().mode() & 0o777, 0o600);
        }
        std::fs::write(dir.path().join(SALT), b"not hex").unwrap();
        let c = Disk::open(dir.path()).unwrap();
        assert_ne!(c.salt(), a.salt());
        assert_eq!(Disk::open(dir.path()).unwrap().salt(), c.salt());
        let other = tempfile::tempdir().unwrap();
        assert_ne!(Disk::open(other.path()).unwrap().salt(), c.salt());
    }
}
