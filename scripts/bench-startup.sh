#!/usr/bin/env bash
# The small path (issue 14): one `vetch lookup` of a 100 KB page on loopback against
# `curl -s` of the same page, in one run, side by side. Runs are interleaved (curl, vetch,
# vetch raw, curl, ...; each round in a new order) so that a noisy
# neighbour hits every command alike; the figure is the median of the pairwise ratios
# vetch/curl over RUNS rounds (default 30).
#
#   scripts/bench-startup.sh                 # build release, run
#   VETCH_SKIP_BUILD=1 scripts/bench-startup.sh
#   VETCH_BEFORE=/path/to/old/vetch scripts/bench-startup.sh   # add an older binary
#
# Rows: curl -s; vetch lookup (receipt JSON, extraction on); vetch -o text --extract raw
# (no extraction: what fetching, judging and printing cost); vetch --version (process start,
# no runtime, no network); with VETCH_BEFORE, the same lookup with the older binary.
# Prints median wall ms and median CPU ms (user+sys) per run.
source "$(dirname "$0")/bench-common.sh"
RUNS=${RUNS:-30}
start_server 1 0
URL="http://127.0.0.1:${PORTS[0]}/page100k"
# Warm the page cache and the server's connection code once.
curl -s -o /dev/null "$URL"
$VETCH --allow-private lookup --no-cache --compact "$URL" >/dev/null

python3 - "$RUNS" "$URL" "$VETCH" "${VETCH_BEFORE:-}" <<'PY'
import random, resource, statistics, subprocess, sys, time
runs, url, vetch, before = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
cmds = [
    ("curl -s", ["curl", "-s", url]),
    ("vetch lookup", [vetch, "--allow-private", "lookup", "--no-cache", "--compact", url]),
    ("vetch -o text --extract raw", [vetch, "--allow-private", "lookup", "--no-cache", "-o", "text", "--extract", "raw", url]),
    ("vetch --version", [vetch, "--version"]),
]
if before:
    # An older binary may predate the cache (and its --no-cache flag); one that has the
    # cache must not be measured on hits while the others fetch.
    help_text = subprocess.run([before, "lookup", "--help"], capture_output=True, text=True).stdout
    no_cache = ["--no-cache"] if "--no-cache" in help_text else []
    cmds.append(("before: vetch lookup", [before, "--allow-private", "lookup", *no_cache, "--compact", url]))
wall = {n: [] for n, _ in cmds}
cpu = {n: [] for n, _ in cmds}
# Each round runs the commands in a new order (seeded, so runs repeat), so that no command
# always runs right after the same one: the row that always ran after `--version` measured
# 0.5-1 ms slower, whichever binary it held.
order = random.Random(0)
for i in range(runs):
    for name, cmd in order.sample(cmds, len(cmds)):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        w = time.perf_counter() - t
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        if p.returncode != 0:
            sys.exit(f"{name} failed with exit code {p.returncode}")
        wall[name].append(w)
        cpu[name].append((r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime))
med = lambda xs: statistics.median(xs)
print(f"one lookup of a 100 KB page on loopback, {runs} interleaved runs each")
print(f"  {'command':30} {'wall ms':>8} {'cpu ms':>7} {'/curl':>6}")
curl = wall["curl -s"]
for name, _ in cmds:
    ratio = med([v / k for v, k in zip(wall[name], curl)])
    print(f"  {name:30} {med(wall[name])*1000:8.2f} {med(cpu[name])*1000:7.1f} {ratio:5.2f}x")
PY
