#!/usr/bin/env python3
"""Mutate PDFs and run vetch's PDF reader on each mutant in its own process: report any
mutant that kills the process (a signal: abort, stack overflow), runs past a time limit,
or peaks above a memory limit. A wider net than the in-process mutator test, for a
release build.

usage: scripts/fuzz-pdf.py BINARY N DIR [DIR ...]
  BINARY  e.g. target/release/examples/pdf_text (cargo build --release --example pdf_text)
  N       mutants in all (spread over the PDFs found under the DIRs), from a fixed seed
Env: FUZZ_SEED (default 25), FUZZ_SECS (time limit, default 20), FUZZ_MIB (RSS limit, 256).
Mutants that fail are kept in /tmp/pdf-fuzz-failures/ to reproduce.
"""
import os
import random
import subprocess
import sys
import time

JUNK = [b"<<<<[[[[((((", b" 1 0 R", b"/Kids [1 0 R 1 0 R]", b"stream\n", b"/Count 999999999999",
        b"/Length 99999999", b" 0 obj", b"/Filter [/FlateDecode /FlateDecode]", b"endobj", b"%%EOF"]


def mutate(rng, src):
    b = bytearray(src)
    kind = rng.randrange(5)
    if kind == 0:
        for _ in range(1 + rng.randrange(16)):
            i = rng.randrange(len(b))
            b[i] ^= 1 << rng.randrange(8)
    elif kind == 1:
        del b[rng.randrange(len(b)):]
    elif kind == 2:
        frm = rng.randrange(len(b))
        piece = b[frm:frm + rng.randrange(2048)]
        at = rng.randrange(len(b))
        b[at:at] = piece * (1 + rng.randrange(8))
    elif kind == 3:
        at = rng.randrange(len(b))
        junk = rng.choice(JUNK)
        b[at:at + len(junk)] = junk
    else:
        # Swap two byte ranges: objects in the wrong places, offsets that lie.
        i, j = sorted(rng.randrange(len(b)) for _ in range(2))
        n = min(rng.randrange(512), j - i)
        b[i:i + n], b[j:j + n] = b[j:j + n], b[i:i + n]
    return bytes(b)


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    binary, n, dirs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    secs = float(os.environ.get("FUZZ_SECS", 20))
    mib = int(os.environ.get("FUZZ_MIB", 256))
    rng = random.Random(int(os.environ.get("FUZZ_SEED", 25)))
    files = sorted(os.path.join(d, f) for top in dirs for d, _, fs in os.walk(top)
                   for f in fs if f.lower().endswith(".pdf"))
    srcs = [(f, open(f, "rb").read()) for f in files]
    srcs = [(f, s) for f, s in srcs if s]
    os.makedirs("/tmp/pdf-fuzz-failures", exist_ok=True)
    bad, worst_rss, worst_secs, ends = 0, 0, 0.0, {}
    for i in range(n):
        name, src = srcs[i % len(srcs)]
        data = mutate(rng, src)
        path = "/tmp/pdf-fuzz-current.pdf"
        with open(path, "wb") as f:
            f.write(data)
        start = time.monotonic()
        p = subprocess.Popen([binary, path], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            _, err = p.communicate(timeout=secs)
            timed_out = False
        except subprocess.TimeoutExpired:
            p.kill()
            _, err = p.communicate()
            timed_out = True
        took = time.monotonic() - start
        rss = 0
        for line in err.decode("utf-8", "replace").splitlines():
            if line.startswith("peak_rss_kib "):
                rss = int(line.split()[1])
        last = (err.decode("utf-8", "replace").strip().splitlines() or ["?"])[-1]
        ends[last.split(":")[0][:40]] = ends.get(last.split(":")[0][:40], 0) + 1
        worst_rss, worst_secs = max(worst_rss, rss), max(worst_secs, took)
        why = ("timeout" if timed_out else f"signal {-p.returncode}" if p.returncode < 0
               else f"rss {rss // 1024} MiB" if rss > mib * 1024 else
               "panicked" if b"reader failed" in err else None)
        if why:
            bad += 1
            keep = f"/tmp/pdf-fuzz-failures/{i:05d}-{os.path.basename(name)}"
            with open(keep, "wb") as f:
                f.write(data)
            print(f"mutant {i} of {name}: {why} -> {keep}", flush=True)
    print(f"{n} mutants of {len(srcs)} PDFs: {bad} failures; slowest {worst_secs:.2f} s, "
          f"highest peak RSS (successful runs) {worst_rss / 1024:.1f} MiB")
    for k, v in sorted(ends.items(), key=lambda kv: -kv[1])[:8]:
        print(f"  {v:5d}  {k}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
