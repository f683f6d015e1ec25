#!/usr/bin/env bash
# Batch throughput (issue 7): 2,000 URLs over 20 ports, each answered with a 20 KB page after
# 20 ms, at concurrency 64; against one process per URL and against curl. Then one lookup of
# a 100 KB page against curl (median of 20 runs).
source "$(dirname "$0")/bench-common.sh"
N=${N:-2000}
C=${C:-64}
start_server 20 20
URLS=$(mktemp)
for i in $(seq 0 $((N - 1))); do
  echo "http://127.0.0.1:${PORTS[$((i % 20))]}/page/$i"
done >"$URLS"
now() { date +%s.%N; }
floor=$(python3 -c "print($N * 0.020 / $C)")

# Wall seconds, CPU seconds (user + sys) and peak RSS of one run, from GNU time.
timed() { # $1 = stdout file, rest = command
  local out=$1 log; shift; log=$(mktemp)
  /usr/bin/time -f '%e %U %S %M' -o "$log" "$@" >"$out" || true
  tail -n 1 "$log"; rm -f "$log"
}
read -r batch bu bs brss <<<"$(timed /tmp/vetch-batch.out $VETCH --allow-private batch --no-cache --concurrency "$C" --per-host 4 "$URLS")"
ok=$(grep -c '"status":"success"' /tmp/vetch-batch.out || true)
rss="$(python3 -c "print(f'{$brss/1024:.1f}')") MB peak RSS, CPU $(python3 -c "print(f'{($bu+$bs)*1000/$N:.3f}')") ms per page (user $bu s, sys $bs s)"

# The same with extraction off: how much of the batch is extraction CPU.
read -r raw ru rs _ <<<"$(timed /dev/null $VETCH --allow-private batch --no-cache --concurrency "$C" --per-host 4 --extract raw "$URLS")"
rawcpu="CPU $(python3 -c "print(f'{($ru+$rs)*1000/$N:.3f}')") ms per page"

t0=$(now)
xargs -P "$C" -n 1 $VETCH --allow-private lookup --no-cache --compact <"$URLS" >/dev/null 2>&1 || true
t1=$(now)
procs=$(python3 -c "print($t1 - $t0)")

t0=$(now)
xargs -P "$C" -n 1 curl -s -o /dev/null <"$URLS" || true
t1=$(now)
curls=$(python3 -c "print($t1 - $t0)")

python3 - "$N" "$C" "$floor" "$batch" "$procs" "$curls" "$ok" "$raw" <<'PY'
import sys
n, c, floor, batch, procs, curls, ok, raw = sys.argv[1:]
floor, batch, procs, curls, raw = map(float, (floor, batch, procs, curls, raw))
print(f"{n} lookups at concurrency {c}; latency floor {floor*1000:.0f} ms; {ok} success")
print(f"  vetch batch            {batch*1000:7.0f} ms  {batch/floor:5.2f}x floor")
print(f"  vetch batch --extract raw {raw*1000:7.0f} ms  {raw/floor:5.2f}x floor")
print(f"  vetch lookup x{n} (xargs -P {c}) {procs*1000:7.0f} ms  {procs/floor:5.2f}x floor  {procs/batch:5.1f}x batch")
print(f"  curl x{n} (xargs -P {c})   {curls*1000:7.0f} ms  {curls/floor:5.2f}x floor  {curls/batch:5.1f}x batch")
PY
echo "  vetch batch: $rss"
echo "  vetch batch --extract raw: $rawcpu"

P=${PORTS[0]}
single() {
  python3 - "$@" <<'PY'
import subprocess, sys, time, statistics
cmd = sys.argv[1:]
runs = []
for _ in range(20):
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    runs.append(time.perf_counter() - t)
print(statistics.median(runs))
PY
}
v=$(single $VETCH --allow-private lookup --no-cache --compact "http://127.0.0.1:$P/page100k")
k=$(single curl -s "http://127.0.0.1:$P/page100k")
python3 -c "v,k=$v,$k; print(f'one lookup of a 100 KB page: vetch {v*1000:.1f} ms, curl {k*1000:.1f} ms (median of 20), ratio {v/k:.2f}x')"
