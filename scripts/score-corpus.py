#!/usr/bin/env python3
"""Score main-content extraction against corpora with ground-truth article text.

Run through scripts/score-corpus.sh, which builds vetch and picks the Python that has
trafilatura. The metric is the shingle F1 of the scrapinghub article-extraction-benchmark
(its evaluate.py), with tokens lower-cased:

- tokens are the `\\w+` runs of the text, lower-cased; a shingle is 4 consecutive tokens
  (a text of fewer tokens is one shorter shingle);
- per page, shingles are counted as multisets: precision = |out ∩ ref| / |out|,
  recall = |out ∩ ref| / |ref|;
- per corpus: the mean precision over pages with output, the mean recall over pages with
  a reference (a failed page counts as recall 0), and F1 = the harmonic mean of those two
  means (as evaluate.py reports); also the mean and median of the per-page F1 (a failed
  page counts as 0) and the micro F1 (all shingle counts summed).

Corpora (read-only; nothing is fetched here), each a checkout or a git directory of:
- scrapinghub/article-extraction-benchmark: html/<id>.html.gz and ground-truth.json
  (articleBody per id), an independent ground truth;
- mozilla/readability: test/test-pages/<name>/source.html and expected.html. The reference
  is the text of expected.html, Readability.js's own output, so it favours
  readability-style extractors.
- a directory of pages of every kind (`--kinds`, default tests/fixtures/kinds): <kind>-<name>.html
  and <kind>-<name>.expect, whose lines starting with "+ " (kept) or "~ " (not kept yet)
  are the reference text (one block a line). Besides the corpus row, each kind (the file name up to its first "-") gets a row
  of its own, `kinds:<kind>`.

- tiptopjaw/web-content-extraction-benchmark (`--modern`): release/html/<id>.html.gz (1000
  pages collected in 2025-2026: 450 articles, 118 forum threads, 110 service pages, 100
  product pages, 80 documentation pages, 70 listings, 70 collections) and
  benchmark/ground-truth/<id>.json, whose ground_truth.main_content is the reference text
  (machine-written, then checked by people; Apache-2.0). Each page's kind is its
  `_internal.page_type.primary`; besides the corpus row, each kind gets a row `modern:<kind>`.
  An independent reference, written neither by us nor for trafilatura.

- adbar/trafilatura (`--trafilatura-eval`): tests/evaldata.json with tests/eval/*.html and
  tests/cache/*.html, about 990 real pages (2012-2023, mostly German news and blogs, plus
  forums, shops, category pages, wikis and docs). Its reference is snippets only: per page,
  `with` (must be in the main text) and `without` (must not be). Scored with a second,
  separately printed metric, "snippets": per page, recall = share of `with` snippets found in
  the output, rejection = share of `without` snippets absent from it (both after Unicode NFC,
  whitespace collapsing and case folding); per corpus and per kind, the mean recall, mean
  rejection and their harmonic mean (a failed page: recall 0, rejection 1). Each page's kind
  comes from scripts/kinds-trafilatura.tsv (file, kind, reason); rows `trafilatura:<kind>`.
  trafilatura was developed against this very evaldata, so it is an anchor that favours
  trafilatura: read vetch's figures against it as "how far from the tuned reference", not as
  a neutral comparison.

vetch runs as the real binary (`vetch --allow-private batch`) over a loopback HTTP server
serving the pages, in `text` mode and in `markdown` mode; Markdown is reduced to text
(links to their text, images dropped, emphasis, heading and fence markers and backslash
escapes removed) before scoring. trafilatura, when importable, runs on the same HTML, as
the benchmark runs it and with `favor_precision=True` (rows `trafilatura-precision`).
"""

import argparse
import gzip
import html.parser
import http.server
import json
import os
import re
import statistics
import subprocess
import sys
import tarfile
import io
import tempfile
import threading
import time
import unicodedata
import urllib.parse
from collections import Counter
from pathlib import Path

TOKEN_RE = re.compile(r"\w+", re.UNICODE)


def shingles(text, n=4):
    tokens = [t.lower() for t in TOKEN_RE.findall(text or "")]
    out = Counter()
    for i in range(0, max(1, len(tokens) - n + 1)):
        sh = tuple(tokens[i : i + n])
        if sh:
            out[sh] += 1
    return out


def match(out_text, ref_text):
    """(tp, |out|, |ref|) in shingles, multiset counts."""
    out = shingles(out_text)
    ref = shingles(ref_text)
    tp = sum((out & ref).values())
    return tp, sum(out.values()), sum(ref.values())


# --- Markdown reduced to text -------------------------------------------------------------

IMAGE_RE = re.compile(r"!\[((?:\\.|[^\]\\])*)\]\((?:<[^>]*>|(?:\([^)\s]*\)|[^()\s])*)(?:\s+\"[^\"]*\")?\)")
LINK_RE = re.compile(r"\[((?:\\.|[^\]\\])*)\]\((?:<[^>]*>|(?:\([^)\s]*\)|[^()\s])*)(?:\s+\"[^\"]*\")?\)")
HEADING_RE = re.compile(r"^\s{0,3}#{1,6}\s+", re.M)
ESCAPE_RE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>~])")
EMPH_RE = re.compile(r"(?<!\w)[*_]+|[*_]+(?!\w)")


def markdown_to_text(md):
    """Markdown reduced to text. Inside fenced code blocks every character is literal, so
    only the fence lines go there; links, images, headings, emphasis and escapes are
    reduced outside them."""
    out, prose, in_fence = [], [], False
    for line in md.split("\n"):
        if re.match(r"^\s*(```|~~~)", line):
            if not in_fence:
                out.append(reduce_prose("\n".join(prose)))
                prose = []
            in_fence = not in_fence
            continue
        (out if in_fence else prose).append(line)
    out.append(reduce_prose("\n".join(prose)))
    return "\n".join(out)


def reduce_prose(md):
    md = IMAGE_RE.sub("", md)
    # Links may hold links' text with brackets; two passes cover `[![..](..)](..)` leftovers.
    for _ in range(2):
        md = LINK_RE.sub(lambda m: m.group(1), md)
    md = HEADING_RE.sub("", md)
    md = EMPH_RE.sub("", md)
    md = ESCAPE_RE.sub(lambda m: m.group(1), md)
    return md


# --- HTML reference text (Readability's expected.html) ------------------------------------

BLOCKS = {
    "p", "div", "br", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "pre",
    "table", "tr", "td", "th", "blockquote", "section", "article", "figure",
    "figcaption", "dd", "dt", "dl", "header", "footer", "aside", "hr", "main",
}


class TextOf(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts = []
        self.skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.skip += 1
        if tag in BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag):
        if tag in ("script", "style") and self.skip:
            self.skip -= 1
        if tag in BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)


def html_text(markup):
    p = TextOf()
    p.feed(markup)
    p.close()
    return "".join(p.parts)


# --- corpora ------------------------------------------------------------------------------


def materialize(src, paths, dest):
    """A directory holding `paths` of a corpus: `src` itself when it is a checkout that has
    them, else extracted from the git directory `src` (or `src/.git`) into `dest`."""
    src = Path(src)
    if all((src / p).exists() for p in paths):
        return src
    git_dir = src / ".git" if (src / ".git").exists() else src
    dest.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(
        ["git", "--git-dir", str(git_dir), "archive", "HEAD", *paths],
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(dest)
    return dest


def load_scrapinghub(src, work):
    root = materialize(src, ["html", "ground-truth.json"], work / "corpus-scrapinghub")
    truth = json.loads((root / "ground-truth.json").read_text(encoding="utf-8"))
    pages = []
    for path in sorted((root / "html").glob("*.html.gz")):
        pid = path.name.split(".")[0]
        if pid not in truth:
            continue
        with gzip.open(path, "rb") as f:
            markup = f.read().decode("utf-8", errors="replace")
        pages.append((pid, markup, truth[pid].get("articleBody") or ""))
    return pages


def load_readability(src, work):
    root = materialize(src, ["test/test-pages"], work / "corpus-readability")
    pages = []
    for d in sorted((root / "test" / "test-pages").iterdir()):
        source, expected = d / "source.html", d / "expected.html"
        if not (source.exists() and expected.exists()):
            continue
        markup = source.read_bytes().decode("utf-8", errors="replace")
        ref = html_text(expected.read_bytes().decode("utf-8", errors="replace"))
        pages.append((d.name, markup, ref))
    return pages


def load_kinds(src):
    pages = []
    for path in sorted(Path(src).glob("*.html")):
        expect = path.with_suffix(".expect")
        if not expect.exists():
            continue
        ref = "\n".join(
            l[2:]
            for l in expect.read_text(encoding="utf-8").splitlines()
            if l.startswith(("+ ", "~ "))
        )
        markup = path.read_bytes().decode("utf-8", errors="replace")
        pages.append((path.stem, markup, ref))
    return pages


def load_modern(src, work):
    """The 2026 pages of every kind; ids are `<kind>-<file id>` so kind_of() finds the kind."""
    root = materialize(src, ["release/html", "benchmark/ground-truth"], work / "corpus-modern")
    pages = []
    for path in sorted((root / "benchmark" / "ground-truth").glob("*.json")):
        truth = json.loads(path.read_text(encoding="utf-8"))
        html_gz = root / "release" / "html" / f"{path.stem}.html.gz"
        if not html_gz.exists():
            continue
        kind = ((truth.get("_internal") or {}).get("page_type") or {}).get("primary") or "unknown"
        with gzip.open(html_gz, "rb") as f:
            markup = f.read().decode("utf-8", errors="replace")
        ref = (truth.get("ground_truth") or {}).get("main_content") or ""
        pages.append((f"{kind}-{path.stem}", markup, ref))
    return pages


def decode_html(raw):
    """Page bytes to text: UTF-8 when valid, else the charset the page declares, else cp1252."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        pass
    m = re.search(rb"charset=[\"']?([A-Za-z0-9_-]+)", raw[:4096])
    for enc in ([m.group(1).decode("ascii")] if m else []) + ["cp1252"]:
        try:
            return raw.decode(enc)
        except (LookupError, UnicodeDecodeError):
            continue
    return raw.decode("utf-8", errors="replace")


KINDS_TRAFILATURA = Path(__file__).with_name("kinds-trafilatura.tsv")


def load_trafilatura_eval(src, work, labels=KINDS_TRAFILATURA):
    """(pages, snippets, kinds): pages as (id, markup, "") with id the file name without
    .html; snippets {id: (with, without)}; kinds {id: kind} from the label file."""
    root = materialize(src, ["tests/evaldata.json", "tests/eval", "tests/cache"],
                       work / "corpus-trafilatura")
    data = json.loads((root / "tests" / "evaldata.json").read_text(encoding="utf-8"))
    kinds = {}
    for line in Path(labels).read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        f, kind = line.split("\t")[:2]
        kinds[f] = kind
    pages, snippets, kind_of_page, seen = [], {}, {}, set()
    for url, entry in data.items():
        f = entry["file"]
        if f in seen:
            continue
        seen.add(f)
        path = next((root / "tests" / d / f for d in ("eval", "cache")
                     if (root / "tests" / d / f).exists()), None)
        if path is None:
            continue
        pid = f[: -len(".html")] if f.endswith(".html") else f
        pages.append((pid, decode_html(path.read_bytes()), ""))
        snippets[pid] = (entry.get("with") or [], entry.get("without") or [])
        kind_of_page[pid] = kinds.get(f, "unlabelled")
    return pages, snippets, kind_of_page


def norm_snippet(text):
    return " ".join(unicodedata.normalize("NFC", text or "").split()).casefold()


def score_snippets(pages, texts, snippets, mode):
    """Snippet recall / rejection (see the docstring) over `pages`."""
    recalls, rejections, failures, per_page = [], [], 0, []
    for pid, _, _ in pages:
        with_, without = snippets[pid]
        text = texts.get(pid)
        if text is None or not text.strip():
            failures += 1
            r, j = (0.0 if with_ else 1.0), 1.0
            per_page.append({"id": pid, "failed": True})
        else:
            if mode == "markdown":
                text = markdown_to_text(text)
            t = norm_snippet(text)
            found = [w for w in with_ if norm_snippet(w) in t]
            leaked = [w for w in without if norm_snippet(w) in t]
            r = len(found) / len(with_) if with_ else 1.0
            j = 1 - len(leaked) / len(without) if without else 1.0
            per_page.append({"id": pid, "recall": r, "rejection": j,
                             "missed": [w for w in with_ if w not in found], "leaked": leaked})
        recalls.append(r)
        rejections.append(j)
    mr = statistics.mean(recalls) if recalls else 0.0
    mj = statistics.mean(rejections) if rejections else 0.0
    return {"recall": mr, "rejection": mj, "H": 2 * mr * mj / (mr + mj) if mr + mj else 0.0,
            "pages": len(pages) - failures, "failures": failures, "per_page": per_page}


def kind_of(pid):
    return pid.split("-", 1)[0]


# --- extractors ---------------------------------------------------------------------------


class Pages(http.server.BaseHTTPRequestHandler):
    store = {}

    def do_GET(self):
        body = self.store.get(urllib.parse.unquote(self.path))
        if body is None:
            self.send_response(404)
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


FAILURES = {}


def failure_summary(result):
    """What a failed `vetch batch` line says: outcome and failure_detail from the receipt."""
    try:
        receipt = result["content"][0]["json"]
    except (KeyError, IndexError, TypeError):
        receipt = result
    if not isinstance(receipt, dict):
        return json.dumps(result)[:300]
    parts = [str(receipt.get(k)) for k in ("outcome", "failure_detail", "error") if receipt.get(k)]
    return " | ".join(parts) or json.dumps(result)[:300]


def run_vetch(vetch, corpora, mode, work, concurrency):
    """{(corpus, id): text or None (failed)} from one `vetch batch` run per corpus."""
    ceiling = 1_000_000
    cfg = work / "vetch.toml"
    cfg.write_text(
        "[lookup]\n"
        f"max_chars_ceiling = {ceiling}\nmax_chars = {ceiling}\nmin_chars = 1\n"
        "max_body_bytes = 20971520\nattempt_timeout_secs = 120\ndeadline_secs = 300\n"
        "default_max_attempts = 1\n"
        '\n[[providers]]\nname = "direct"\nkind = "http"\n'
    )
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Pages)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    out = {}
    try:
        for corpus, pages in corpora.items():
            urls = []
            for pid, markup, _ in pages:
                path = f"/{corpus}/{pid}.html"
                Pages.store[path] = markup.encode("utf-8")
                urls.append(f"http://127.0.0.1:{port}{urllib.parse.quote(path)}")
            res = subprocess.run(
                [
                    str(vetch), "--config", str(cfg), "--allow-private", "--compact",
                    "batch", "--extract", mode, "--concurrency", str(concurrency),
                    "--per-host", str(concurrency), "--max-chars", str(ceiling),
                    "--min-chars", "1", "-",
                ],
                input="\n".join(urls) + "\n",
                capture_output=True,
                text=True,
            )
            # Only "\n" ends a line: JSON may hold U+2028 and other characters that
            # str.splitlines() also splits at.
            lines = [l for l in res.stdout.split("\n") if l.strip()]
            if len(lines) != len(pages):
                sys.exit(f"vetch batch: {len(lines)} results for {len(pages)} pages\n{res.stderr}")
            for (pid, _, _), line in zip(pages, lines):
                result = json.loads(line)
                text = None
                if result.get("status") == "success":
                    receipt = result["content"][0]["json"]
                    if receipt.get("next_start_index") is not None:
                        sys.exit(f"{corpus}/{pid}: output was windowed; raise the ceiling")
                    text = result["content"][1]["text"]
                else:
                    FAILURES[(mode, corpus, pid)] = failure_summary(result)
                out[(corpus, pid)] = text
    finally:
        server.shutdown()
    return out


def run_trafilatura(corpora, mode, precision=False):
    import trafilatura  # noqa: the caller checked that it imports

    out = {}
    for corpus, pages in corpora.items():
        for pid, markup, _ in pages:
            try:
                if mode == "text":
                    # As the benchmark runs it (extractors/run_trafilatura.py).
                    text = trafilatura.extract(
                        markup, include_comments=False, favor_precision=precision
                    )
                else:
                    text = trafilatura.extract(
                        markup,
                        include_comments=False,
                        output_format="markdown",
                        include_links=True,
                        include_images=True,
                        include_formatting=True,
                        favor_precision=precision,
                    )
            except Exception:  # one page's failure is data
                text = None
            out[(corpus, pid)] = text or None
    return out


# --- scoring ------------------------------------------------------------------------------


LONG_RUN_RE = re.compile(r"\S{40,}")


def long_runs(text, ref):
    """Runs of 40+ non-space characters of the reference (issue 23, fidelity): how many
    there are, how many the output holds verbatim, and the ones it lost although it kept
    their context (the four words before or after the run in the reference are in the
    output), i.e. runs cut out of kept content."""
    runs = LONG_RUN_RE.finditer(ref or "")
    out_sh = shingles(text)
    total = kept = 0
    cut = []
    for m in runs:
        total += 1
        if m.group(0) in text:
            kept += 1
            continue
        before = [t.lower() for t in TOKEN_RE.findall(ref[: m.start()])][-4:]
        after = [t.lower() for t in TOKEN_RE.findall(ref[m.end() :])][:4]
        if (len(before) == 4 and out_sh[tuple(before)]) or (len(after) == 4 and out_sh[tuple(after)]):
            cut.append(m.group(0))
    return total, kept, cut


def redacted(run, text):
    """Is `run` in `text` with a part of it replaced by the redaction marker (the one
    sanctioned change, DESIGN §7)?"""
    return any(run[:k] + "[REDACTED]" in text for k in range(len(run) - 1, 2, -1))


def score(corpus_pages, texts, mode):
    precisions, recalls, f1s = [], [], []
    runs_total = runs_kept = runs_redacted = 0
    runs_cut = []
    tp_all = out_all = ref_all = 0
    failures = 0
    per_page = []
    for pid, _, ref in corpus_pages:
        text = texts.get(pid)
        if text is None or not text.strip():
            failures += 1
            if TOKEN_RE.search(ref or ""):
                recalls.append(0.0)
                f1s.append(0.0)
            per_page.append({"id": pid, "failed": True})
            continue
        if mode == "markdown":
            text = markdown_to_text(text)
        total, kept, cut = long_runs(text, ref)
        runs_total, runs_kept = runs_total + total, runs_kept + kept
        runs_redacted += sum(1 for c in cut if redacted(c, text))
        runs_cut.extend((pid, c) for c in cut if not redacted(c, text))
        tp, n_out, n_ref = match(text, ref)
        tp_all, out_all, ref_all = tp_all + tp, out_all + n_out, ref_all + n_ref
        p = tp / n_out if n_out else 0.0
        r = tp / n_ref if n_ref else 1.0
        precisions.append(p)
        recalls.append(r)
        f1s.append(2 * p * r / (p + r) if p + r else 0.0)
        per_page.append({"id": pid, "p": p, "r": r, "out": n_out, "ref": n_ref})
    mp = statistics.mean(precisions) if precisions else 0.0
    mr = statistics.mean(recalls) if recalls else 0.0
    micro_p = tp_all / out_all if out_all else 0.0
    micro_r = tp_all / ref_all if ref_all else 0.0
    return {
        "P": mp,
        "R": mr,
        "F1": 2 * mp * mr / (mp + mr) if mp + mr else 0.0,
        "F1_mean": statistics.mean(f1s) if f1s else 0.0,
        "F1_median": statistics.median(f1s) if f1s else 0.0,
        "F1_micro": 2 * micro_p * micro_r / (micro_p + micro_r) if micro_p + micro_r else 0.0,
        "pages": len(corpus_pages) - failures,
        "failures": failures,
        "per_page": per_page,
        "runs": runs_total,
        "runs_kept": runs_kept,
        "runs_redacted": runs_redacted,
        "runs_cut": runs_cut,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scrapinghub", help="article-extraction-benchmark checkout or git dir")
    ap.add_argument("--readability", help="mozilla/readability checkout or git dir")
    ap.add_argument("--kinds", help="a directory of <kind>-<name>.html pages with .expect files")
    ap.add_argument("--modern", help="tiptopjaw/web-content-extraction-benchmark checkout or git dir")
    ap.add_argument("--trafilatura-eval", help="adbar/trafilatura checkout or git dir (tests/evaldata.json)")
    ap.add_argument("--trafilatura-labels", default=str(KINDS_TRAFILATURA),
                    help="page kinds of that corpus (file, kind, reason; TSV)")
    ap.add_argument("--vetch", required=True, help="the vetch binary")
    ap.add_argument(
        "--before",
        help="another vetch binary (an older build) scored in the same run, as 'vetch-before'",
    )
    ap.add_argument("--work", help="scratch directory (default: a new temporary one)")
    ap.add_argument("--modes", default="text,markdown")
    ap.add_argument("--extractors", default="vetch,trafilatura,trafilatura-precision")
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--dump", help="write every output text and per-page scores under this dir")
    ap.add_argument("--json", help="write the table as JSON to this file")
    args = ap.parse_args()

    work = Path(args.work or tempfile.mkdtemp(prefix="score-corpus-"))
    work.mkdir(parents=True, exist_ok=True)
    corpora = {}
    if args.scrapinghub:
        corpora["scrapinghub"] = load_scrapinghub(args.scrapinghub, work)
    if args.readability:
        corpora["readability"] = load_readability(args.readability, work)
    if args.kinds:
        corpora["kinds"] = load_kinds(args.kinds)
    if args.modern:
        corpora["modern"] = load_modern(args.modern, work)
    snippets, tkinds = {}, {}
    if args.trafilatura_eval:
        corpora["trafilatura"], snippets, tkinds = load_trafilatura_eval(
            args.trafilatura_eval, work, args.trafilatura_labels)
    if not corpora:
        sys.exit("no corpus given (--scrapinghub, --readability, --kinds, --modern and/or --trafilatura-eval)")

    extractors = args.extractors.split(",")
    if args.before and "vetch" in extractors:
        extractors.insert(extractors.index("vetch"), "vetch-before")
    if any(e.startswith("trafilatura") for e in extractors):
        try:
            import trafilatura  # noqa: F401
            tversion = trafilatura.__version__
        except Exception as e:
            print(f"trafilatura not importable ({e}); skipped", file=sys.stderr)
            extractors = [e for e in extractors if not e.startswith("trafilatura")]

    rows, srows = [], []
    for extractor in extractors:
        for mode in args.modes.split(","):
            start = time.monotonic()
            if extractor in ("vetch", "vetch-before"):
                binary = args.vetch if extractor == "vetch" else args.before
                texts = run_vetch(Path(binary), corpora, mode, work, args.concurrency)
                name = extractor
            else:
                precision = extractor == "trafilatura-precision"
                texts = run_trafilatura(corpora, mode, precision)
                name = f"trafilatura{'-prec' if precision else ''} {tversion}"
            seconds = time.monotonic() - start
            for corpus, pages in corpora.items():
                mine = {pid: texts[(corpus, pid)] for pid, _, _ in pages}
                if corpus == "trafilatura":
                    s = score_snippets(pages, mine, snippets, mode)
                    srows.append({"extractor": name, "mode": mode, "corpus": corpus, **s})
                    for kind in sorted(set(tkinds.values())):
                        some = [p for p in pages if tkinds[p[0]] == kind]
                        srows.append({"extractor": name, "mode": mode, "corpus": f"trafilatura:{kind}",
                                      **score_snippets(some, mine, snippets, mode)})
                    if args.dump:
                        d = Path(args.dump) / f"{extractor}-{mode}" / corpus
                        d.mkdir(parents=True, exist_ok=True)
                        for pid, text in mine.items():
                            (d / f"{pid}.txt").write_text(text or "", encoding="utf-8")
                        for pp in s["per_page"]:
                            pp["kind"] = tkinds[pp["id"]]
                        (d / "scores.json").write_text(json.dumps(s["per_page"], indent=1, ensure_ascii=False))
                    continue
                s = score(pages, mine, mode)
                rows.append({"extractor": name, "mode": mode, "corpus": corpus, "seconds": seconds, **s})
                if corpus in ("kinds", "modern"):
                    for kind in sorted({kind_of(pid) for pid, _, _ in pages}):
                        some = [p for p in pages if kind_of(p[0]) == kind]
                        k = score(some, mine, mode)
                        rows.append({"extractor": name, "mode": mode, "corpus": f"{corpus}:{kind}",
                                     "seconds": seconds, **k})
                if args.dump:
                    d = Path(args.dump) / f"{extractor}-{mode}" / corpus
                    d.mkdir(parents=True, exist_ok=True)
                    for pid, text in mine.items():
                        (d / f"{pid}.txt").write_text(text or "", encoding="utf-8")
                    (d / "scores.json").write_text(json.dumps(s["per_page"], indent=1))

    head = f"{'extractor':<24} {'mode':<9} {'corpus':<22} {'P':>6} {'R':>6} {'F1':>6} {'F1 mean':>7} {'median':>6} {'micro':>6} {'pages':>5} {'fail':>4} {'runs40':>7} {'kept':>5} {'redact':>6} {'cut':>4}"
    if rows:
        print(head)
        print("-" * len(head))
    for r in rows:
        print(
            f"{r['extractor']:<24} {r['mode']:<9} {r['corpus']:<22} {r['P']:6.4f} {r['R']:6.4f} "
            f"{r['F1']:6.4f} {r['F1_mean']:7.4f} {r['F1_median']:6.4f} {r['F1_micro']:6.4f} "
            f"{r['pages']:5d} {r['failures']:4d} {r['runs']:7d} {r['runs_kept']:5d} {r['runs_redacted']:6d} {len(r['runs_cut']):4d}"
        )
    if rows:
        print("P, R: mean per page; F1: of those means (as evaluate.py); F1 mean/median: per page; "
              "micro: over summed shingle counts. markdown = Markdown reduced to text.\n"
              "runs40: reference runs of 40+ non-space characters on pages with output; kept: "
              "verbatim in the output; redact: kept with a secret in it replaced by [REDACTED]; cut: "
              "missing although the words around them were kept.")
    if srows:
        shead = f"{'extractor':<24} {'mode':<9} {'corpus':<22} {'recall':>6} {'reject':>6} {'H':>6} {'pages':>5} {'fail':>4}"
        print("\nsnippets (trafilatura evaldata; favours trafilatura, which was tuned on it)")
        print(shead)
        print("-" * len(shead))
        for r in srows:
            print(f"{r['extractor']:<24} {r['mode']:<9} {r['corpus']:<22} {r['recall']:6.4f} "
                  f"{r['rejection']:6.4f} {r['H']:6.4f} {r['pages']:5d} {r['failures']:4d}")
        print("recall: mean share of `with` snippets in the output; reject: mean share of `without` "
              "snippets absent; H: harmonic mean of the two. A failed page: recall 0, reject 1.")
    for (mode, corpus, pid), why in sorted(FAILURES.items()):
        print(f"fail vetch {mode} {corpus}/{pid}: {why}")
    for r in rows:
        for pid, run in r["runs_cut"][:40]:
            print(f"cut  {r['extractor']} {r['mode']} {r['corpus']}/{pid}: {run[:120]}")
    if args.json:
        Path(args.json).write_text(
            json.dumps([{k: v for k, v in r.items() if k not in ("per_page",)} for r in rows + srows], indent=1)
        )


if __name__ == "__main__":
    main()
