#!/usr/bin/env python3
"""Make the hostile and damaged PDFs in tests/fixtures/pdf/hostile/ (run once; the files
are committed, each a few KB).

Needs: python3 and the Debian package qpdf (for the encrypted ones, made from
tests/fixtures/pdf/multipage.pdf). Everything else is written byte by byte here, so each
file is exactly the attack it is named after. Deterministic except for the encrypted files
(qpdf draws fresh salts; keep the committed copies unless they need to change).

Every file that can carry text carries the marker phrase `marmalade lighthouse protocol`
on a page that is fine, so a test can tell "read what could be read" from "gave up".
"""
import os
import subprocess
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "fixtures", "pdf", "hostile")
MULTIPAGE = os.path.join(HERE, "..", "tests", "fixtures", "pdf", "multipage.pdf")

GOOD = b"BT /F1 12 Tf 72 720 Td (This page is fine: marmalade lighthouse protocol.) Tj ET"
FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"


def stream(dict_body, data):
    return b"<< " + dict_body + b" /Length %d >>\nstream\n" % len(data) + data + b"\nendstream"


def write(name, objects, trailer=b"", xref=True, header=b"%PDF-1.5\n"):
    """Object N is objects[N-1]; /Root is 1 0 R unless `trailer` says otherwise."""
    out = bytearray(header)
    offsets = []
    for i, o in enumerate(objects):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % (i + 1) + o + b"\nendobj\n"
    if xref:
        start = len(out)
        out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
        for off in offsets:
            out += b"%010d 00000 n \n" % off
        out += b"trailer\n<< /Size %d /Root 1 0 R " % (len(objects) + 1) + trailer + b" >>\n"
        out += b"startxref\n%d\n%%%%EOF\n" % start
    data = bytes(out)
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)
    return data


def deflate(data):
    return zlib.compress(data, 9)


def deflate_stream(chunks):
    """zlib of the concatenated chunks, without holding them all."""
    c = zlib.compressobj(9)
    out = bytearray()
    for ch in chunks:
        out += c.compress(ch)
    out += c.flush()
    return bytes(out)


def pages_doc(page_contents, pages_extra=b"", resources=b"<< /Font << /F1 3 0 R >> >>"):
    """Catalog (1), Pages (2), font (3), then a page and its content per entry."""
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>", b"", FONT]
    kids = []
    for content in page_contents:
        page_num = len(objs) + 1
        kids.append(b"%d 0 R" % page_num)
        objs.append(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources "
                    + resources + b" /Contents %d 0 R >>" % (page_num + 1))
        objs.append(content)
    objs[1] = (b"<< /Type /Pages /Kids [" + b" ".join(kids) + b"] /Count %d " % len(kids)
               + pages_extra + b">>")
    return objs


def lzw_zero_bomb(n_codes):
    """LZW codes (early change) for a run of zeros: the table fills with ever longer runs,
    then the longest run's code repeats: ~3,800 bytes of output for every 12 bits."""
    codes = [256, 0]
    nxt, prev = 258, 0
    while nxt < 4095:
        codes.append(nxt)  # the run one longer than the last (KwKwK)
        prev, nxt = nxt, nxt + 1
    codes += [4094] * n_codes
    bits, acc, width, out = 0, 0, 9, bytearray()
    table = 258
    first = True
    for code in codes:
        acc = (acc << width) | code
        bits += width
        while bits >= 8:
            bits -= 8
            out.append((acc >> bits) & 0xFF)
        acc &= (1 << bits) - 1
        if code == 256:
            table, width, first = 258, 9, True
            continue
        if not first and table < 4096:
            table += 1
        first = False
        bump = table + 1
        width = 9 if bump < 512 else 10 if bump < 1024 else 11 if bump < 2048 else 12
    if bits:
        out.append((acc << (8 - bits)) & 0xFF)
    return bytes(out)


def main():
    os.makedirs(OUT, exist_ok=True)

    # A page tree node that claims a trillion pages, after a first page (lopdf 0.42 sized a
    # Vec from the /Count of the kids still to visit, 16 TB, and the process aborted).
    objs = pages_doc([stream(b"", GOOD)])
    objs[1] = b"<< /Type /Pages /Kids [4 0 R 6 0 R] /Count 1000000000000 >>"
    objs.append(b"<< /Type /Pages /Parent 2 0 R /Kids [7 0 R] /Count 1000000000000 >>")
    objs.append(objs[3].replace(b"/Parent 2 0 R", b"/Parent 6 0 R"))
    write("page-count-lie.pdf", objs)

    # A page tree that is a DAG 40 levels deep, each node listing its child twice:
    # 2^40 paths to one page.
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>", b"", FONT]
    depth = 40
    for i in range(depth):
        child = 5 + i if i < depth - 1 else 4 + depth
        objs.append(b"<< /Type /Pages /Kids [%d 0 R %d 0 R] /Count 2 >>" % (child, child))
    # objs[3] is node 4; the leaf page is object 4 + depth, its content the next.
    objs[1] = b"<< /Type /Pages /Kids [4 0 R 4 0 R] /Count 1099511627776 >>"
    objs.append(b"<< /Type /Page /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >>"
                b" /Contents %d 0 R >>" % (5 + depth))
    objs.append(stream(b"", GOOD))
    write("page-tree-dag.pdf", objs)

    # A page tree whose Kids loop back to the root, and a page whose /Parent is itself.
    objs = pages_doc([stream(b"", GOOD)])
    objs[1] = b"<< /Type /Pages /Kids [4 0 R 2 0 R 1 0 R] /Count 3 >>"
    write("page-tree-loop.pdf", objs)

    # [/FlateDecode /FlateDecode] over 2 GiB of zeros: a few KB on disk.
    inner = deflate_stream(bytes(1 << 20) for _ in range(2048))
    outer = deflate(inner)
    write("flate-chain-bomb.pdf",
          pages_doc([stream(b"/Filter [/FlateDecode /FlateDecode]", outer)]))

    # LZW: ~2 GiB of zeros from 12-bit codes, Flate-wrapped so the file stays small. The
    # good page comes first: the document reads, the bomb page is skipped and says so.
    lzw = lzw_zero_bomb(560_000)
    write("lzw-bomb.pdf", pages_doc([
        stream(b"", GOOD),
        stream(b"/Filter [/FlateDecode /LZWDecode]", deflate(lzw)),
    ]))

    # RunLength: 128 zeros for every 2 bytes (512 MiB), Flate-wrapped.
    rle = deflate_stream(b"\x81\x00" * (1 << 19) for _ in range(8))
    write("rle-bomb.pdf", pages_doc([stream(b"/Filter [/FlateDecode /RunLengthDecode]", rle)]))

    # Flate over ASCIIHex over Flate over 512 MiB of zeros (each layer counted).
    z = deflate_stream(bytes(1 << 20) for _ in range(512))
    hexed = z.hex().encode() + b">"
    write("ascii-chain-bomb.pdf", pages_doc([
        stream(b"", GOOD),
        stream(b"/Filter [/FlateDecode /ASCIIHexDecode /FlateDecode]", deflate(hexed)),
    ]))

    # Two million text operators on one page (Flate-compressed), and forty pages that share
    # one content stream of 250,000 operators (ten million in all).
    flood = deflate(b"BT /F1 1 Tf " + b"(a) Tj " * 2_000_000 + b"ET")
    write("operator-flood.pdf", pages_doc([stream(b"/Filter /FlateDecode", flood)]))
    shared = deflate(b"BT /F1 1 Tf " + b"(b) Tj " * 250_000 + b"ET")
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>", b"", FONT,
            stream(b"/Filter /FlateDecode", shared), stream(b"", GOOD)]
    kids = []
    for i in range(40):
        n = len(objs) + 1
        kids.append(b"%d 0 R" % n)
        content = 5 if i == 0 else 4
        objs.append(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources"
                    b" << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % content)
    objs[1] = b"<< /Type /Pages /Kids [" + b" ".join(kids) + b"] /Count 40 >>"
    write("operator-flood-pages.pdf", objs)

    # Form XObjects: ten forms each drawing the next one ten times (10^10 draws if
    # followed), and a pair that draw each other.
    objs = pages_doc([stream(b"", GOOD + b" /X0 Do /Y0 Do")],
                     resources=b"<< /Font << /F1 3 0 R >> /XObject 6 0 R >>")
    first = len(objs) + 2  # object 6 is the names dictionary, the forms follow it
    names = b" ".join(b"/X%d %d 0 R" % (i, first + i) for i in range(10))
    objs.append(b"<< " + names + b" /Y0 %d 0 R /Y1 %d 0 R >>" % (first + 10, first + 11))
    for i in range(10):
        draw = b" ".join([b"/X%d Do" % (i + 1)] * 10) if i < 9 else b"BT /F1 1 Tf (x) Tj ET"
        objs.append(stream(b"/Type /XObject /Subtype /Form /BBox [0 0 1 1] /Resources"
                           b" << /Font << /F1 3 0 R >> /XObject 6 0 R >>", draw))
    objs.append(stream(b"/Type /XObject /Subtype /Form /BBox [0 0 1 1] /Resources"
                       b" << /XObject 6 0 R >>", b"/Y1 Do"))
    objs.append(stream(b"/Type /XObject /Subtype /Form /BBox [0 0 1 1] /Resources"
                       b" << /XObject 6 0 R >>", b"/Y0 Do"))
    write("form-fanout.pdf", objs)

    # Three forms, each 30 MiB of content (Flate over Flate, a few hundred bytes) that draws
    # the next: held at once they would pass the 64 MiB a page may hold.
    objs = pages_doc([stream(b"", GOOD + b" /N1 Do")],
                     resources=b"<< /Font << /F1 3 0 R >> /XObject 6 0 R >>")
    objs.append(b"<< /N1 7 0 R /N2 8 0 R /N3 9 0 R >>")
    for n in range(1, 4):
        body = deflate_stream([b" " * (30 << 20),
                               b"BT /F1 12 Tf 72 %d Td (form %d) Tj ET /N%d Do" % (600 - 20 * n, n, n + 1)])
        objs.append(stream(b"/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Filter"
                           b" [/FlateDecode /FlateDecode] /Resources << /Font << /F1 3 0 R >>"
                           b" /XObject 6 0 R >>", deflate(body)))
    write("form-nest-bomb.pdf", objs)

    # Nesting: 20,000 open arrays in an object, 100,000 in a content stream.
    objs = pages_doc([stream(b"/Filter /FlateDecode", deflate(b"[" * 100_000 + b" " + GOOD))])
    objs.append(b"<< /Deep " + b"[" * 20_000 + b" >>")
    write("deep-nesting.pdf", objs)

    # Numbers that lie: /Size and an xref subsection count of 10^12, an object stream
    # claiming a billion objects, and a font whose maps and widths span 2^32 codes.
    data = bytearray(write("xref-size-lie.pdf", pages_doc([stream(b"", GOOD)])))
    i = data.index(b"xref\n0 ")
    j = data.index(b"\n", i + 5)
    data[i:j] = b"xref\n0 1000000000000"
    data = data.replace(b"/Size 6", b"/Size 2147483647")
    # Keep startxref right: the table did not move.
    with open(os.path.join(OUT, "xref-size-lie.pdf"), "wb") as f:
        f.write(bytes(data))

    objstm_body = b"4 0 " + FONT
    objs = pages_doc([stream(b"", GOOD)])
    objs.append(stream(b"/Type /ObjStm /N 1000000000 /First 4", objstm_body))
    write("objstm-count-lie.pdf", objs)

    cmap = (b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n"
            b"1 begincodespacerange <00> <FF> endcodespacerange\n"
            b"1 beginbfrange <00000000> <FFFFFFFF> <0041> endbfrange\n"
            b"4294967295 beginbfchar <20> <0020> endbfchar\n"
            b"endcmap CMapName currentdict /CMap defineresource pop end end")
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
            FONT,
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R"
            b" /F2 7 0 R /F3 8 0 R >> >> /Contents 5 0 R >>",
            stream(b"", GOOD + b" BT /F2 12 Tf 72 600 Td <0001> Tj /F3 12 Tf (x) Tj ET"),
            stream(b"", cmap),
            b"<< /Type /Font /Subtype /Type0 /BaseFont /X /Encoding /Identity-H /ToUnicode 6 0 R"
            b" /DescendantFonts [<< /Type /Font /Subtype /CIDFontType2 /W [0 4294967295 500]"
            b" /DW 1000000000 >>] >>",
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /FirstChar 0 /LastChar 4294967295"
            b" /Widths [500] /ToUnicode 6 0 R >>"]
    write("font-range-lie.pdf", objs)

    # Broken cross-references: every offset off by 9 (junk before the first object), no
    # table and no trailer at all, and a startxref that points into the middle of a stream.
    good = pages_doc([stream(b"", GOOD), stream(b"", b"BT /F1 12 Tf 72 720 Td (Second page.) Tj ET")])
    data = write("xref-offsets-shifted.pdf", good)
    data = data.replace(b"%PDF-1.5\n", b"%PDF-1.5\n%garbage\n", 1)
    with open(os.path.join(OUT, "xref-offsets-shifted.pdf"), "wb") as f:
        f.write(data)
    write("xref-missing.pdf", good, xref=False)
    data = bytearray(write("xref-startxref-wrong.pdf", good))
    k = data.rindex(b"startxref\n")
    data[k:] = b"startxref\n%d\n%%%%EOF\n" % data.index(b"stream\n")
    with open(os.path.join(OUT, "xref-startxref-wrong.pdf"), "wb") as f:
        f.write(bytes(data))

    # Encrypted with an empty user password (an owner password only), as qpdf writes them.
    for name, args in [
        ("encrypted-rc4-40.pdf", ["40"]),
        ("encrypted-rc4-128.pdf", ["128", "--use-aes=n"]),
        ("encrypted-aes-128.pdf", ["128", "--use-aes=y"]),
        ("encrypted-aes-256.pdf", ["256"]),
        ("encrypted-aes-256-r5.pdf", ["256", "--force-R5"]),
    ]:
        subprocess.run(["qpdf", "--static-id", "--allow-weak-crypto", "--encrypt", "", "owner-secret",
                        *args, "--", MULTIPAGE, os.path.join(OUT, name)], check=True)

    # A real user password (RC4-128): stays "encrypted PDF".
    subprocess.run(["qpdf", "--static-id", "--allow-weak-crypto", "--encrypt", "user-secret",
                    "owner-secret", "128", "--use-aes=n", "--", MULTIPAGE,
                    os.path.join(OUT, "encrypted-rc4-user-password.pdf")], check=True)

    for f in sorted(os.listdir(OUT)):
        print(f, os.path.getsize(os.path.join(OUT, f)), file=sys.stderr)


if __name__ == "__main__":
    main()
