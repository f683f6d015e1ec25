#!/usr/bin/env bash
# The HTTP cache (issue 16): the time of one lookup served from the cache against one sent
# to the loopback server (cache bypassed, and a miss that stores) and against `curl -s`
# (medians of RUNS runs, a 20 KB page, process start included); then the size on disk of
# N cached 20 KB pages (one batch, a fresh cache directory). DELAY (ms, default 0) is the
# server's latency: the loopback server answers at once unless told otherwise, so with the
# default the cache can only save the transfer and the connection.
source "$(dirname "$0")/bench-common.sh"
RUNS=${RUNS:-21}
N=${N:-2000}
DELAY=${DELAY:-0}
echo "server latency: $DELAY ms"
start_server 1 "$DELAY"
P=${PORTS[0]}
python3 - "$VETCH" "$P" "$RUNS" <<'PY'
import statistics, subprocess, sys, time
vetch, port, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
base = f"http://127.0.0.1:{port}"
def timed(argv):
    t0 = time.perf_counter()
    r = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit(f"failed ({r.returncode}): {' '.join(argv)}")
    return dt * 1000
v = [vetch, "--allow-private", "lookup", "-o", "text"]
# Warm the page cache of the binary and the server once.
timed(v + ["--no-cache", f"{base}/warm"])
rows = []
rows.append(("vetch lookup --no-cache (network)",
             [timed(v + ["--no-cache", f"{base}/nocache"]) for _ in range(runs)]))
rows.append(("vetch lookup, cache miss (fetch + store)",
             [timed(v + [f"{base}/miss/{i}"]) for i in range(runs)]))
timed(v + [f"{base}/hit"])
rows.append(("vetch lookup, cache hit",
             [timed(v + [f"{base}/hit"]) for _ in range(runs)]))
rows.append(("curl -s",
             [timed(["curl", "-s", "-o", "/dev/null", f"{base}/curl"]) for _ in range(runs)]))
print(f"one lookup of a 20 KB page, median of {runs} runs (process start included):")
for name, ts in rows:
    print(f"  {name:42s} {statistics.median(ts):7.1f} ms   (min {min(ts):.1f}, max {max(ts):.1f})")
PY
DIR=$(mktemp -d)
URLS=$(mktemp)
for i in $(seq 0 $((N - 1))); do echo "http://127.0.0.1:$P/store/$i"; done >"$URLS"
t0=$(date +%s.%N)
XDG_CACHE_HOME=$DIR $VETCH --allow-private batch --concurrency 64 --per-host 64 "$URLS" >/dev/null
t1=$(date +%s.%N)
info=$(XDG_CACHE_HOME=$DIR $VETCH cache info --json --compact)
du_k=$(du -sk "$DIR/vetch" | cut -f1)
t2=$(date +%s.%N)
XDG_CACHE_HOME=$DIR $VETCH --allow-private batch --concurrency 64 --per-host 64 "$URLS" >"$DIR/again.ndjson"
t3=$(date +%s.%N)
hits=$(grep -c '"status":"hit"' "$DIR/again.ndjson" || true)
python3 - "$N" "$info" "$du_k" "$t0" "$t1" "$t2" "$t3" "$hits" <<'PY'
import json, sys
n, info, du_k = int(sys.argv[1]), json.loads(sys.argv[2]), int(sys.argv[3])
t0, t1, t2, t3 = map(float, sys.argv[4:8])
hits = int(sys.argv[8])
b = info["bytes"]
print(f"{n} pages of 20 KB cached by one batch (concurrency 64): {info['entries']} entries, "
      f"{b} bytes ({b / 1048576:.1f} MiB, {b / max(info['entries'], 1) / 1024:.1f} KiB per entry); "
      f"du -sk: {du_k} KiB")
print(f"batch filling the cache: {t1 - t0:.2f} s; the same batch again: {t3 - t2:.2f} s, "
      f"{hits} of {n} served from the cache")
PY
rm -rf "$DIR" "$URLS" "$XDG_CACHE_HOME"
