#!/usr/bin/env python3
"""Check that the modules of src/ import each other without circles (ARCHITECTURE.md).

A module is a file of src/ (`content/extract/prepare.rs` is `content::extract::prepare`;
a folder's `mod.rs` is the folder's module). An edge A -> B is a use of `crate::B...` (or
of `super::...`, read relative to A) in A's non-test code: the lines before its first
`#[cfg(test)]`, and nothing of files named `tests.rs`. A use of a module's descendant
counts as a use of that descendant. A parent that declares its children (`mod x;`) does
not use them by that; a child using its parent (`super::`) is an edge like any other.

Prints every circle (a strongly connected group of two or more modules, with one path
around it) and exits 1 if there is one; exits 0 and prints the module count otherwise.
"""

import re
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
PATH_RE = re.compile(r"\b(crate|super)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")


def module_of(path):
    rel = path.relative_to(SRC).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "mod":
        parts.pop()
    if parts in (["lib"], ["main"]):
        return ()
    return tuple(parts)


def non_test_code(text):
    out = []
    for line in text.split("\n"):
        if line.strip().startswith("#[cfg(test)]"):
            break
        stripped = line.strip()
        if stripped.startswith("//"):
            continue
        out.append(line)
    return "\n".join(out)


def main():
    files = [p for p in SRC.rglob("*.rs") if p.name != "tests.rs"]
    modules = {module_of(p): p for p in files}
    edges = {m: set() for m in modules}
    for m, p in modules.items():
        for kind, tail in PATH_RE.findall(non_test_code(p.read_text(encoding="utf-8"))):
            names = tail.strip(":").split("::")
            if kind == "crate":
                target = []
            else:
                # `super` is the parent of the module (of the folder, for a `mod.rs`).
                target = list(m[:-1])
                while names and names[0] == "super":
                    names.pop(0)
                    target = target[:-1]
            # The deepest module the path names.
            best = None
            for i in range(len(names) + 1):
                cand = tuple(target + names[:i])
                if cand in modules:
                    best = cand
            if best is not None and best != m:
                edges[m].add(best)
    # Strongly connected components (Tarjan, iterative enough for a few hundred modules).
    index, low, on, stack, sccs, counter = {}, {}, set(), [], [], [0]

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(comp)

    sys.setrecursionlimit(10000)
    for v in modules:
        if v not in index:
            strong(v)
    name = lambda m: "::".join(m) or "crate"
    for comp in sccs:
        members = set(comp)
        # One path around the circle, for the message.
        start = min(comp)
        path, seen, at = [start], {start}, start
        while True:
            nxt = sorted(w for w in edges[at] if w in members)
            step = next((w for w in nxt if w not in seen), None) or next((w for w in nxt if w == start), None)
            if step is None:
                break
            path.append(step)
            if step == start:
                break
            seen.add(step)
            at = step
        print("circle: " + " -> ".join(name(m) for m in path) + f"  ({len(comp)} modules: {', '.join(sorted(name(m) for m in comp))})")
    if sccs:
        return 1
    print(f"check-cycles: {len(modules)} modules, no circle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
