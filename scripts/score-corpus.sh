#!/usr/bin/env bash
# Main-content quality (issue 14): shingle precision, recall and F1 of vetch's extraction
# (`text`, and `markdown` reduced to text) and of Python trafilatura on the same pages,
# against public corpora with ground-truth article text. The scoring is in
# scripts/score-corpus.py (see its docstring for the exact metric).
#
# Usage: scripts/score-corpus.sh [--setup] [CORPORA_DIR] [-- extra args for score-corpus.py]
#
# CORPORA_DIR (or $VETCH_CORPORA) holds the two corpora, each a checkout or a git directory
# (bare or not) of a public GitHub repository; $SCRAPINGHUB_BENCHMARK and $READABILITY_REPO
# name them one by one instead:
#   CORPORA_DIR/article-extraction-benchmark   scrapinghub/article-extraction-benchmark
#                                              (html/*.html.gz + ground-truth.json)
#   CORPORA_DIR/readability                    mozilla/readability
#                                              (test/test-pages/*/source.html + expected.html)
#   CORPORA_DIR/trafilatura                    adbar/trafilatura (tests/evaldata.json +
#                                              tests/eval, tests/cache: ~990 real pages,
#                                              snippet references; kinds from
#                                              scripts/kinds-trafilatura.tsv)
#   CORPORA_DIR/modern                         tiptopjaw/web-content-extraction-benchmark
#                                              (release/html/*.html.gz + benchmark/
#                                              ground-truth/*.json: 1000 pages of 2025-2026,
#                                              every kind, full reference text)
# $MODERN_BENCHMARK names that one alone (MODERN_BENCHMARK= leaves it out).
# $TRAFILATURA_REPO names the trafilatura one alone (TRAFILATURA_REPO= leaves it out). One-time:
# `git clone --bare https://github.com/adbar/trafilatura CORPORA_DIR/trafilatura` (the
# `fetch` tool's mirror, /work/.mirror/adbar+trafilatura/repo, is such a bare git dir).
# The pages of every kind under tests/fixtures/kinds (ours, with their expected text) are
# scored too, per kind ($KINDS_DIR names another directory; KINDS_DIR= leaves them out).
# One-time step: clone those two repositories there (`git clone --bare` is enough). Nothing
# is fetched while scoring: the pages are served by a loopback server on 127.0.0.1.
#
# trafilatura (the reference; also run with favor_precision=True) needs a Python with it installed. One-time step:
# `scripts/score-corpus.sh --setup` makes a venv in $SCORE_WORK/venv (default
# /tmp/vetch-score/venv) and pip-installs trafilatura and lxml_html_clean from PyPI; or point
# $SCORE_PYTHON at a Python that has them. Without it, trafilatura is skipped.
#
# An older build scored in the same run: `-- --before PATH` (rows `vetch-before`).
#
# vetch: built in debug unless $VETCH_BIN names a binary (the figures do not depend on the
# profile, only the time does).
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=${SCORE_WORK:-/tmp/vetch-score}
mkdir -p "$WORK"

if [ "${1:-}" = "--setup" ]; then
  shift
  python3 -m venv "$WORK/venv"
  "$WORK/venv/bin/pip" install --quiet trafilatura lxml_html_clean
  echo "trafilatura installed in $WORK/venv"
  [ $# -gt 0 ] || exit 0
fi

CORPORA=${VETCH_CORPORA:-}
if [ $# -gt 0 ] && [ "$1" != "--" ]; then
  CORPORA=$1
  shift
fi
[ "${1:-}" = "--" ] && shift
SH=${SCRAPINGHUB_BENCHMARK:-${CORPORA:+$CORPORA/article-extraction-benchmark}}
RD=${READABILITY_REPO:-${CORPORA:+$CORPORA/readability}}
args=()
[ -n "$SH" ] && [ -e "$SH" ] && args+=(--scrapinghub "$SH")
[ -n "$RD" ] && [ -e "$RD" ] && args+=(--readability "$RD")
TR=${TRAFILATURA_REPO-${CORPORA:+$CORPORA/trafilatura}}
[ -n "$TR" ] && [ -e "$TR" ] && args+=(--trafilatura-eval "$TR")
MO=${MODERN_BENCHMARK-${CORPORA:+$CORPORA/modern}}
[ -n "$MO" ] && [ -e "$MO" ] && args+=(--modern "$MO")
KINDS=${KINDS_DIR-tests/fixtures/kinds}
[ -n "$KINDS" ] && [ -d "$KINDS" ] && args+=(--kinds "$KINDS")
if [ ${#args[@]} -eq 0 ]; then
  echo "score-corpus: no corpus found; give CORPORA_DIR or set SCRAPINGHUB_BENCHMARK / READABILITY_REPO / TRAFILATURA_REPO" >&2
  exit 2
fi

if [ -z "${VETCH_BIN:-}" ]; then
  cargo build --quiet --bin vetch
  VETCH_BIN=./target/debug/vetch
fi
PY=${SCORE_PYTHON:-}
if [ -z "$PY" ]; then
  if [ -x "$WORK/venv/bin/python" ]; then PY=$WORK/venv/bin/python; else PY=python3; fi
fi
exec "$PY" scripts/score-corpus.py --vetch "$VETCH_BIN" --work "$WORK/run" "${args[@]}" "$@"
