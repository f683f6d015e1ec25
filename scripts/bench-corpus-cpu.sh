#!/usr/bin/env bash
# CPU per page on pages we did not write (issue 27). The batch benchmark's 20 KB page is
# one <article> of 170 equal paragraphs, a shape almost no real page has (1 of the 2026
# corpus's 999 pages, none of scrapinghub's 181); this measures the same batch on real
# pages, side by side with trafilatura on the same files.
#
# Usage: scripts/bench-corpus-cpu.sh HTML_DIR [N]
#   HTML_DIR  a directory of *.html or *.html.gz pages (the 2026 corpus's release/html, or
#             scrapinghub's html/); the first N in name order (default 400) are used.
# Env: VETCH (binary, default ./target/release/vetch, built unless VETCH_SKIP_BUILD is set),
#      VETCH_BEFORE (another binary, alternated with it), ROUNDS (default 3),
#      CONCURRENCY (default 8), MODES (default "auto raw"),
#      SCORE_PYTHON (a Python with trafilatura; default /tmp/vetch-score/venv/bin/python,
#      see scripts/score-corpus.sh --setup; trafilatura is skipped without it).
#
# vetch's figure is the whole lookup (loopback fetch, decoding, DOM redaction, extraction,
# the judge, the final redaction, the printed JSON line) in user + sys CPU of the process;
# trafilatura's is `extract()` alone on the same text, in the process CPU time of Python
# (no fetch, no output). Each run's answers are checked: every page must be answered.
SRC=${1:?usage: scripts/bench-corpus-cpu.sh HTML_DIR [N]}
SRC=$(cd "$SRC" && pwd)
# The build, $VETCH and a cache directory of its own, as the other benchmarks have them
# (its loopback server is not used here: the pages are served below).
source "$(dirname "$0")/bench-common.sh"
N=${2:-400}
ROUNDS=${ROUNDS:-3}
C=${CONCURRENCY:-8}
MODES=${MODES:-auto raw}
PY=${SCORE_PYTHON:-/tmp/vetch-score/venv/bin/python}

WORK=$(mktemp -d)
SERVER_PID=
trap '[ -n "$SERVER_PID" ] && kill $SERVER_PID 2>/dev/null; rm -rf "$WORK" "$SERVER_OUT"' EXIT
mkdir "$WORK/pages"
find "$SRC" -maxdepth 1 \( -name '*.html' -o -name '*.html.gz' \) | sort | head -n "$N" |
  while read -r f; do
    b=$(basename "$f" .gz)
    case $f in *.gz) gzip -dc "$f" >"$WORK/pages/$b" ;; *) cp "$f" "$WORK/pages/$b" ;; esac
  done
count=$(find "$WORK/pages" -name '*.html' | wc -l)
[ "$count" -gt 0 ] || { echo "no pages under $SRC" >&2; exit 1; }
bytes=$(cat "$WORK/pages"/*.html | wc -c)

# A loopback server for the pages (Python's, threaded), on a free port.
python3 - "$WORK/pages" >"$WORK/port" 2>/dev/null <<'PY' &
import functools, http.server, sys
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
handler.log_message = lambda *a: None
srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
print(srv.server_address[1], flush=True)
srv.serve_forever()
PY
SERVER_PID=$!
for _ in $(seq 1 100); do [ -s "$WORK/port" ] && break; sleep 0.05; done
PORT=$(head -n 1 "$WORK/port")
(cd "$WORK/pages" && ls) | sed "s#^#http://127.0.0.1:$PORT/#" >"$WORK/urls"

echo "$count pages, $((bytes / count / 1024)) KB on average, concurrency $C, $ROUNDS rounds"
run() { # $1 = label, $2 = binary, $3 = mode -> one line of CPU ms per page
  local log="$WORK/time" out="$WORK/out"
  /usr/bin/time -f '%e %U %S' -o "$log" "$2" --allow-private batch --no-cache \
    --concurrency "$C" --extract "$3" "$WORK/urls" >"$out" 2>/dev/null || true
  local answered; answered=$(grep -c '"status"' "$out" || true)
  [ "$answered" -eq "$count" ] || { echo "$1: $answered answers for $count pages" >&2; exit 1; }
  read -r wall user sys <"$log"
  python3 -c "print(f'{($user + $sys) * 1000 / $count:.2f}')"
}
for mode in $MODES; do
  now=() before=()
  for _ in $(seq 1 "$ROUNDS"); do
    now+=("$(run vetch "$VETCH" "$mode")")
    [ -z "${VETCH_BEFORE:-}" ] || before+=("$(run before "$VETCH_BEFORE" "$mode")")
  done
  python3 - "$mode" "${now[*]}" "${before[*]:-}" <<'PY'
import statistics, sys
mode, now, before = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
line = f"  vetch batch --extract {mode:4}  CPU {statistics.median(map(float, now)):6.2f} ms/page (runs: {' '.join(now)})"
if before:
    line += f"; before {statistics.median(map(float, before)):6.2f} (runs: {' '.join(before)})"
print(line)
PY
done

if [ -x "$PY" ] && "$PY" -c 'import trafilatura' 2>/dev/null; then
  "$PY" - "$WORK/pages" "$ROUNDS" <<'PY'
import os, statistics, sys, time
import trafilatura
pages = sorted(os.path.join(sys.argv[1], f) for f in os.listdir(sys.argv[1]))
texts = [open(p, "rb").read().decode("utf-8", errors="replace") for p in pages]
for precision in (False, True):
    runs = []
    for _ in range(int(sys.argv[2])):
        t = time.process_time()
        for html in texts:
            trafilatura.extract(html, favor_precision=precision)
        runs.append((time.process_time() - t) * 1000 / len(texts))
    name = "trafilatura" + (" favor_precision" if precision else "")
    print(f"  {name:28} CPU {statistics.median(runs):6.2f} ms/page (extract() alone; runs: "
          + " ".join(f"{r:.2f}" for r in runs) + ")")
PY
else
  echo "  trafilatura: not installed (scripts/score-corpus.sh --setup)"
fi
