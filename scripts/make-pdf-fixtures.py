#!/usr/bin/env python3
"""Make the small PDFs in tests/fixtures/pdf/ (run once; the PDFs are committed).

Needs: pip install reportlab; Debian packages qpdf, fonts-dejavu-core, fonts-wqy-microhei.
Deterministic for the unencrypted files: reportlab's invariant mode fixes dates and IDs. qpdf
draws fresh salts for the two encrypted ones, so a rerun changes their bytes (not their
behaviour); keep the committed copies unless they need to change.
"""
import os
import subprocess
import sys

from reportlab import rl_config

rl_config.invariant = 1
from reportlab.lib.pagesizes import A4  # noqa: E402
from reportlab.pdfbase import pdfmetrics  # noqa: E402
from reportlab.pdfbase.ttfonts import TTFont  # noqa: E402
from reportlab.pdfgen import canvas  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "pdf")
DEJAVU = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
WQY = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"

pdfmetrics.registerFont(TTFont("DejaVu", DEJAVU))


def path(name):
    return os.path.join(OUT, name)


def lines(c, x, y, rows, font="Helvetica", size=11, lead=15):
    """Draw rows of text; an empty row is a paragraph gap."""
    c.setFont(font, size)
    for row in rows:
        if row:
            c.drawString(x, y, row)
        y -= lead
    return y


def text_pdf():
    """One page, a title in the info dictionary, a ligature and a hyphenated line end."""
    c = canvas.Canvas(path("text.pdf"), pagesize=A4, invariant=1)
    c.setTitle("Verified Lookups for Agents")
    c.setAuthor("vetch fixtures")
    y = lines(c, 72, 770, ["Verified Lookups for Agents"], font="Helvetica-Bold", size=16)
    lines(
        c,
        72,
        y - 10,
        [
            "An agent that reads the web needs to know whether a fetch really returned the",
            "page it asked for. This document is a small text fixture for the PDF extrac-",
            "tion of vetch, with a second line that carries on the first paragraph.",
            "",
            "The second paragraph names the \ufb01rst of\ufb02ine check and the e\ufb03cient path,",
            "written with typographic ligatures that a reader expects to see as letters.",
        ],
        font="DejaVu",
    )
    c.showPage()
    c.save()


def multipage_pdf():
    c = canvas.Canvas(path("multipage.pdf"), pagesize=A4, invariant=1)
    c.setTitle("Four Pages")
    for n in range(1, 5):
        body = [f"This is page {n} of a four page document about careful fetching."]
        body += ["Each page carries a few sentences so that it reads like a report."] * 3
        if n == 3:
            body += ["", "The known phrase on page three is: marmalade lighthouse protocol."]
        lines(c, 72, 770, body)
        c.showPage()
    c.save()


def cjk_pdf():
    """Chinese and Japanese in an embedded subset (Identity-H with a ToUnicode map), and a
    line of Hebrew and Arabic in logical order."""
    pdfmetrics.registerFont(TTFont("WQY", WQY, subfontIndex=0))
    c = canvas.Canvas(path("cjk.pdf"), pagesize=A4, invariant=1)
    c.setTitle("多语言文档")
    y = lines(
        c,
        72,
        770,
        [
            "可验证的网页查询工具为智能体返回真实的页面内容。",
            "日本語の文書も読めるようにする必要があります。",
            "这一段是第二行中文，用来满足最少字符数的要求。",
        ],
        font="WQY",
        size=12,
        lead=18,
    )
    lines(c, 72, y - 10, ["Hebrew: שלום עולם", "Arabic: مرحبا بالعالم"], font="DejaVu")
    c.showPage()
    c.save()


def image_only_pdf():
    """A page with graphics and no text at all, like a scan without OCR."""
    c = canvas.Canvas(path("image-only.pdf"), pagesize=A4, invariant=1)
    for i in range(40):
        c.setFillGray((i % 10) / 10.0)
        c.rect(72 + (i % 8) * 55, 700 - (i // 8) * 55, 50, 50, fill=1, stroke=0)
    c.showPage()
    c.save()


def paper_pdf():
    """Two pages shaped like a paper: title, authors, abstract, numbered sections."""
    c = canvas.Canvas(path("paper.pdf"), pagesize=A4, invariant=1)
    c.setTitle("Honest Receipts for Web Lookups")
    y = lines(c, 72, 780, ["Honest Receipts for Web Lookups"], font="Helvetica-Bold", size=18)
    y = lines(c, 72, y - 4, ["A. Writer and B. Reviewer, Example Institute"], size=10)
    y = lines(c, 72, y - 10, ["Abstract"], font="Helvetica-Bold", size=12)
    y = lines(
        c,
        72,
        y,
        [
            "Agents call tools that fetch web pages and treat every answer as a success.",
            "We describe a lookup that judges each attempt and reports what it achieved,",
            "so that a model can tell a cookie wall from the page it asked for.",
        ],
    )
    y = lines(c, 72, y - 10, ["1 Introduction"], font="Helvetica-Bold", size=12)
    lines(
        c,
        72,
        y,
        [
            "Retrieval quality is bounded by the quality of what was retrieved. A fetch",
            "that silently returns a challenge page poisons the context of the agent.",
            "",
            "Our contribution is a receipt: a small record of every attempt and its outcome.",
        ],
    )
    c.showPage()
    y = lines(c, 72, 780, ["2 Method"], font="Helvetica-Bold", size=12)
    lines(
        c,
        72,
        y,
        [
            "Each provider is tried in order until one returns usable content. Content is",
            "usable when it is long enough, contains what the caller required and is not",
            "an interstitial page. The receipt names the provider that produced it.",
            "",
            "3 Conclusion",
            "",
            "Honest receipts make failures visible and cheap to handle.",
        ],
    )
    c.showPage()
    c.save()


def main():
    os.makedirs(OUT, exist_ok=True)
    text_pdf()
    multipage_pdf()
    cjk_pdf()
    image_only_pdf()
    paper_pdf()
    # AES-256 with a user password: cannot be opened without it.
    subprocess.run(
        ["qpdf", "--static-id", "--encrypt", "user-secret", "owner-secret", "256", "--",
         path("text.pdf"), path("encrypted.pdf")],
        check=True,
    )
    # Owner password only (empty user password): opens without asking, as in a viewer.
    subprocess.run(
        ["qpdf", "--static-id", "--encrypt", "", "owner-secret", "128", "--use-aes=y", "--",
         path("text.pdf"), path("encrypted-no-user-password.pdf")],
        check=True,
    )
    # The first 40% of the multi-page file: the cross-reference table and trailer are gone.
    data = open(path("multipage.pdf"), "rb").read()
    open(path("truncated.pdf"), "wb").write(data[: len(data) * 2 // 5])
    # One byte of the paper's encoded content stream changed: the decoded content then gives
    # `Tf` an operand that is not a font name, which pdf-extract 0.12 unwraps and panics on
    # (found by mutation; vetch must catch it and print nothing).
    paper = bytearray(open(path("paper.pdf"), "rb").read())
    assert paper[1359:1360] == b"/", "paper.pdf changed: find the Tf operand again"
    paper[1359] = ord("l")
    open(path("parser-panic.pdf"), "wb").write(bytes(paper))
    for f in sorted(os.listdir(OUT)):
        print(f, os.path.getsize(path(f)), file=sys.stderr)


if __name__ == "__main__":
    main()
