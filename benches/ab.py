#!/usr/bin/env python3
"""Interleaved A/B of two builds of `benches/workloads.rs`.

    python3 benches/ab.py OLD NEW ROWS [--rounds=R] [--budget=S]

OLD and NEW are two benchmark binaries (copy `target/release/deps/workloads-*`
aside after `cargo bench --bench workloads --no-run`, change the code, build
again); ROWS is a comma-separated list of workload names (the names
`workloads.rs` prints). Each round runs every row on both binaries, OLD
first in even rounds and NEW first in odd ones, so load that drifts during
the run falls on both alike. Prints, per row, the median over rounds of each
binary's median and their ratio OLD/NEW (above 1: NEW is faster), with the
spread of the round medians. A change to the runtime or the compiler is
measured this way, on the same machine in the same minutes, rather than by
comparing two tables taken at different times.
"""

import json
import statistics
import subprocess
import sys


def flag(name, default):
    for a in sys.argv[1:]:
        if a.startswith(f"--{name}="):
            return a.split("=", 1)[1]
    return default


def median_ms(binary, row, budget):
    out = subprocess.run(
        [binary, f"{row}$", f"--budget={budget}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for line in out.splitlines():
        if line.startswith("{"):
            d = json.loads(line)
            if d["name"] == row:
                return d["median_ms"]
    sys.exit(f"{binary} printed no row named {row}")


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 3 or "--help" in sys.argv:
        sys.exit(__doc__)
    old, new, rows = args[0], args[1], args[2].split(",")
    rounds = int(flag("rounds", "5"))
    budget = flag("budget", "0.5")
    times = {r: {"old": [], "new": []} for r in rows}
    for k in range(rounds):
        for r in rows:
            pair = [("old", old), ("new", new)]
            for tag, binary in pair if k % 2 == 0 else reversed(pair):
                times[r][tag].append(median_ms(binary, r, budget))
    print(f"{'row':32} {'old ms':>9} {'new ms':>9} {'old/new':>8}  spread of round medians")
    for r in rows:
        o, n = times[r]["old"], times[r]["new"]
        mo, mn = statistics.median(o), statistics.median(n)
        print(
            f"{r:32} {mo:9.4f} {mn:9.4f} {mo / mn:8.2f}  "
            f"old {min(o):.4f}-{max(o):.4f}, new {min(n):.4f}-{max(n):.4f}"
        )


if __name__ == "__main__":
    main()
