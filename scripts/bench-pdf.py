#!/usr/bin/env python3
"""Score PDF text extractors against reference text, on one or more corpora.

usage: scripts/bench-pdf.py [--markdown] CORPUS=DIR [CORPUS=DIR ...] -- NAME=COMMAND [...]
       scripts/bench-pdf.py --pypdf FILE      (the built-in pypdf candidate)

Each COMMAND is run as `COMMAND FILE` (split on spaces, no shell) and must print the
document's text on stdout and, on stderr, `pages N` (pages read) and `peak_rss_kib N` (its
own VmHWM, which is the memory figure; a parent's wait4 would count this larger Python
process it was forked from). The pypdf candidate is this script itself:
    pypdf=/tmp/pdfbench-venv/bin/python scripts/bench-pdf.py --pypdf

For every PDF in a corpus the reference text is pdfminer.six's (`pip install pdfminer.six`),
cached next to the file as FILE.ref.txt; files whose reference has fewer than 4 words are
not scored (scans, files that need a password, broken files). A candidate that fails, times
out (30 s) or prints nothing scores 0 on that file.

Per candidate and corpus: mean shingle F1 over the scored files (4-word shingles of
lower-cased \\w+ tokens, each CJK character a token of its own, counted as multisets; before tokenising, every text, the
reference's included, is NFKC-normalised (a ligature glyph and its letters compare equal),
words hyphenated at a line end are joined, and vetch's `--- page N ---` marker lines are
dropped, and so are pdfminer's `(cid:N)` placeholders for glyphs it could not map), the worst
file's F1, `ok` = files of the whole corpus for which the candidate
exits 0 with at least 40 non-space characters, wall time per page (process start included,
summed over the scored files / summed pages) and the highest peak RSS over the corpus.
BENCH_PDF_VERBOSE=1 prints every file's score; BENCH_PDF_PLAIN=1 scores as the first version
of this script did (plain \\w+ words, `(cid:N)` kept), for comparison with older figures.

Nothing is fetched by this script. The corpora are copied once by hand, e.g. from local
clones: pdfminer.six's samples/ and py-pdf/sample-files.
"""
import collections
import os
import re
import subprocess
import sys
import time
import unicodedata

# A word is a run of \w, except that Chinese and Japanese characters are words of their own:
# neither text puts spaces between them, and one extractor's line break inside a run (pdfminer
# writes vertical text one character a line) must not turn a sentence into other "words".
CJK = "\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
WORD = re.compile(f"[{CJK}]|[^\\W{CJK}]+")
# BENCH_PDF_PLAIN=1: the first scorer (issue 15): plain \w+ words, placeholders kept.
PLAIN = bool(os.environ.get("BENCH_PDF_PLAIN"))
if PLAIN:
    WORD = re.compile(r"\w+")
PAGE_MARK = re.compile(r"^--- page \d+ ---$", re.M)
HYPHEN_END = re.compile(r"(\w)[-\u00ad]\n\s*(\w)")
# pdfminer writes `(cid:13)` for a glyph it cannot map: a placeholder, not text.
CID_PLACEHOLDER = re.compile(r"\(cid:\d+\)")


def normalise(text):
    text = unicodedata.normalize("NFKC", text)
    text = PAGE_MARK.sub("", text)
    if not PLAIN:
        text = CID_PLACEHOLDER.sub("", text)
    return HYPHEN_END.sub(r"\1\2", text)


def shingles(text):
    toks = WORD.findall(normalise(text).lower())
    return collections.Counter(tuple(toks[i : i + 4]) for i in range(len(toks) - 3))


def f1(ref, got):
    a, b = shingles(ref), shingles(got)
    if not a or not b:
        return 0.0
    common = sum((a & b).values())
    p, r = common / sum(b.values()), common / sum(a.values())
    return 0.0 if common == 0 else 2 * p * r / (p + r)


def reference(path):
    cache = path + ".ref.txt"
    if not os.path.exists(cache):
        from pdfminer.high_level import extract_text

        try:
            text = extract_text(path)
        except Exception:  # noqa: BLE001 - a file pdfminer cannot read has no reference
            text = ""
        with open(cache, "w", encoding="utf-8") as f:
            f.write(text)
    with open(cache, encoding="utf-8") as f:
        return f.read()


def run(cmd, path):
    """(text, pages, seconds, ok, peak_rss_kib) of one run."""
    start = time.monotonic()
    p = subprocess.Popen(cmd + [path], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        out, err = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        return "", 0, time.monotonic() - start, False, 0
    secs = time.monotonic() - start
    pages, rss = 0, 0
    for line in err.decode("utf-8", "replace").splitlines():
        if line.startswith("pages "):
            pages = int(line.split()[1])
        elif line.startswith("peak_rss_kib "):
            rss = int(line.split()[1])
    return out.decode("utf-8", "replace"), pages, secs, p.returncode == 0, rss


def own_rss():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def pypdf_main(path):
    """The pypdf candidate: plain `extract_text()` per page, empty password tried."""
    import pypdf

    r = pypdf.PdfReader(path)
    if r.is_encrypted:
        r.decrypt("")
    pages = 0
    for page in r.pages:
        sys.stdout.write((page.extract_text() or "") + "\n\n")
        pages += 1
    print(f"peak_rss_kib {own_rss()}", file=sys.stderr)
    print(f"pages {pages}", file=sys.stderr)


def score(corpus, cands, markdown):
    files = sorted(
        os.path.join(d, f)
        for d, _, fs in os.walk(corpus)
        for f in fs
        if f.lower().endswith(".pdf")
    )
    refs = {f: reference(f) for f in files}
    scored = [f for f in files if len(WORD.findall(refs[f])) >= 4]
    rows = []
    for name, command in cands:
        cmd = command.split()
        scores, ok, secs, pages, rss = [], 0, 0.0, 0, 0
        for f in files:
            text, n, s, fine, r = run(cmd, f)
            rss = max(rss, r)
            if fine and sum(1 for c in text if not c.isspace()) >= 40:
                ok += 1
            if f not in scored:
                continue
            scores.append(f1(refs[f], text) if fine else 0.0)
            secs += s
            pages += n
            if os.environ.get("BENCH_PDF_VERBOSE"):
                print(f"  {name} {os.path.relpath(f, corpus)}: F1 {scores[-1]:.3f} pages {n}"
                      f"{'' if fine else ' FAILED'}")
        mean = sum(scores) / len(scores) if scores else 0.0
        worst = min(scores) if scores else 0.0
        per_page = 1000 * secs / pages if pages else float("nan")
        rows.append((name, mean, worst, ok, len(files), per_page, rss / 1024))
    title = f"{corpus}: {len(files)} PDFs, {len(scored)} scored"
    if markdown:
        print(f"\n{title}\n")
        print("| candidate | mean F1 | worst F1 | ok | ms/page | peak RSS MiB |")
        print("|---|---|---|---|---|---|")
        for n, m, w, ok, tot, pp, r in rows:
            print(f"| {n} | {m:.3f} | {w:.3f} | {ok}/{tot} | {pp:.1f} | {r:.1f} |")
    else:
        print(title)
        print(f"{'candidate':<14} {'mean F1':>8} {'worst':>6} {'ok':>7} {'ms/page':>8} {'peak RSS MiB':>13}")
        for n, m, w, ok, tot, pp, r in rows:
            print(f"{n:<14} {m:>8.3f} {w:>6.3f} {ok:>3}/{tot:<3} {pp:>8.1f} {r:>13.1f}")
    sys.stdout.flush()


def main():
    args = sys.argv[1:]
    if len(args) == 2 and args[0] == "--pypdf":
        return pypdf_main(args[1])
    markdown = "--markdown" in args
    args = [a for a in args if a != "--markdown"]
    if "--" not in args:
        sys.exit(__doc__)
    i = args.index("--")
    corpora = [a.split("=", 1) for a in args[:i]]
    cands = [a.split("=", 1) for a in args[i + 1 :]]
    if not corpora or not cands:
        sys.exit(__doc__)
    for _, d in corpora:
        score(d, cands, markdown)


if __name__ == "__main__":
    main()
