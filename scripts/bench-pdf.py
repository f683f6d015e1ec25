#!/usr/bin/env python3
"""Score PDF text extractors against reference text (PDF documents).

usage: scripts/bench-pdf.py CORPUS_DIR NAME=COMMAND [NAME=COMMAND ...]

Each COMMAND is run as `COMMAND FILE` (split on spaces, no shell) and must print the
document's text on stdout and, as the last line of stderr, `pages N`; it may also print
`peak_rss_kib N` (its own VmHWM) on stderr, which is then used for the memory figure. For every PDF in
CORPUS_DIR the reference text is pdfminer.six's (`pip install pdfminer.six`), cached next to
the corpus as FILE.ref.txt; files whose reference has fewer than 4 words are skipped (scans,
broken files). A candidate that fails, times out (30 s) or prints nothing scores 0 on that file.

Reports per candidate: mean shingle F1 (4-word shingles over lower-cased \\w+ tokens,
counted as multisets; before tokenising, every text, the reference's included, is NFKC-
normalised (so a ligature glyph and its letters compare equal), words hyphenated at a line
end are joined, and vetch's `--- page N ---` marker lines are dropped, so that only the
extracted words are compared), files that failed, wall time per page (process start included, summed
over all files / summed pages) and the peak RSS on the largest file of the corpus.

The corpus is copied once by hand, e.g. from a local clone of pdfminer.six:
    mkdir -p /tmp/pdf-corpus && cp -r pdfminer.six/samples/. /tmp/pdf-corpus/
Nothing is fetched by this script.
"""
import collections
import os
import re
import subprocess
import sys
import time
import unicodedata

WORD = re.compile(r"\w+")


PAGE_MARK = re.compile(r"^--- page \d+ ---$", re.M)
HYPHEN_END = re.compile(r"(\w)[-\u00ad]\n\s*(\w)")


def normalise(text):
    text = unicodedata.normalize("NFKC", text)
    text = PAGE_MARK.sub("", text)
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
    """(text, pages, seconds, ok) of one run (peak RSS is measured apart, see peak_rss)."""
    start = time.monotonic()
    p = subprocess.Popen(cmd + [path], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        out, err = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        return "", 0, time.monotonic() - start, False
    secs = time.monotonic() - start
    pages = 0
    for line in err.decode("utf-8", "replace").splitlines()[::-1]:
        if line.startswith("pages "):
            pages = int(line.split()[1])
            break
    return out.decode("utf-8", "replace"), pages, secs, p.returncode == 0


def peak_rss(cmd, path):
    """Peak RSS (KiB) of one run: what the program says of itself (`peak_rss_kib N`), else
    wait4's ru_maxrss, which on Linux also counts this (larger) Python process the child
    was forked from, so it is only an upper bound."""
    p = subprocess.Popen(cmd + [path], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read().decode("utf-8", "replace")
    _, _, ru = os.wait4(p.pid, 0)
    for line in err.splitlines():
        if line.startswith("peak_rss_kib "):
            return int(line.split()[1])
    return ru.ru_maxrss


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    corpus = sys.argv[1]
    cands = [a.split("=", 1) for a in sys.argv[2:]]
    files = sorted(
        os.path.join(d, f)
        for d, _, fs in os.walk(corpus)
        for f in fs
        if f.lower().endswith(".pdf")
    )
    refs = {f: reference(f) for f in files}
    scored = [f for f in files if len(WORD.findall(refs[f])) >= 4]
    largest = max(files, key=os.path.getsize)
    print(f"corpus: {len(files)} PDFs, {len(scored)} with reference text; largest "
          f"{os.path.basename(largest)} ({os.path.getsize(largest)} bytes)")
    print(f"{'candidate':<14} {'mean F1':>8} {'failed':>7} {'ms/page':>8} {'peak RSS MiB':>13}")
    for name, command in cands:
        cmd = command.split()
        scores, failed, secs, pages = [], 0, 0.0, 0
        for f in scored:
            text, n, s, ok = run(cmd, f)
            if not ok or not text.strip():
                failed += 1
            scores.append(f1(refs[f], text) if ok else 0.0)
            secs += s
            pages += n
            if os.environ.get("BENCH_PDF_VERBOSE"):
                print(f"  {name} {os.path.relpath(f, corpus)}: F1 {scores[-1]:.3f} pages {n}"
                      f"{'' if ok else ' FAILED'}")
        rss = peak_rss(cmd, largest) / 1024
        mean = sum(scores) / len(scores) if scores else 0.0
        per_page = 1000 * secs / pages if pages else float("nan")
        print(f"{name:<14} {mean:>8.3f} {failed:>7} {per_page:>8.1f} {rss:>13.1f}")


if __name__ == "__main__":
    main()
