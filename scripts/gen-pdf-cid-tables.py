#!/usr/bin/env python3
"""Write src/content/pdf/cid2unicode.bin: CID → Unicode for the Adobe-Japan1, Adobe-GB1,
Adobe-CNS1 and Adobe-Korea1 character collections (horizontal forms), for CID fonts that
have no /ToUnicode map.

Source: Adobe's CMap resources (BSD-3-Clause, Adobe), as converted and shipped by
pdfminer.six (MIT) in pdfminer/cmap/to-unicode-*.json.gz; run once with pdfminer.six
installed (pip install pdfminer.six), the output is committed.

Format (then zlib-compressed): for each collection in the order above, a LEB128 count of
pairs, then the pairs sorted by CID, each as LEB128(CID - previous CID) and
LEB128(zigzag(code point - previous code point)), starting from 0 and 0.
"""
import gzip
import json
import os
import zlib

import pdfminer

SRC = os.path.join(os.path.dirname(pdfminer.__file__), "cmap")
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "content", "pdf",
                   "cid2unicode.bin")

def leb(n):
    b = bytearray()
    while True:
        x = n & 0x7F
        n >>= 7
        if n:
            b.append(x | 0x80)
        else:
            b.append(x)
            return bytes(b)


out = bytearray()
for coll in ["Japan1", "GB1", "CNS1", "Korea1"]:
    d = json.load(gzip.open(os.path.join(SRC, f"to-unicode-Adobe-{coll}.json.gz")))["CID2UNICHR_H"]
    pairs = sorted((int(cid), ord(s)) for cid, s in d.items() if len(s) == 1)
    out += leb(len(pairs))
    pc, pp = 0, 0
    for cid, cp in pairs:
        delta = cp - pp
        out += leb(cid - pc) + leb((delta << 1) ^ (delta >> 63) if delta >= 0 else ((-delta) << 1) - 1)
        pc, pp = cid, cp
    print(coll, len(pairs), "CIDs")
data = zlib.compress(bytes(out), 9)
with open(OUT, "wb") as f:
    f.write(data)
print(OUT, len(out), "bytes,", len(data), "compressed")
