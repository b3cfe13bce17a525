#!/usr/bin/env python3
"""Whether `#[jax::jit]` emits the same code as at another commit.

    python3 benches/expansion_diff.py [REF]      (REF: a commit, default HEAD)

Expands every top-level jitted `fn` and `mod` of the files under `examples/`,
`benches/` and `tests/` with the compiler of the working tree and with the compiler of REF
(built in a temporary worktree), both through the working tree's
`compiler/examples/expansion_size.rs --show`, and compares the two texts:
the expansions, `f::lowered()` included. For refactors of the compiler,
which must change no emitted byte. Exits 1 and prints the first
differences when they differ.
"""

import difflib
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
TOOL = ROOT / "compiler" / "examples" / "expansion_size.rs"


def sources():
    return sorted(p for d in ("examples", "benches", "tests") for p in (ROOT / d).rglob("*.rs"))


def dump(tree: pathlib.Path) -> str:
    """The expansions, by the compiler in `tree`."""
    # The same tool on both sides: the working tree's.
    example = tree / "compiler" / "examples" / "expansion_size.rs"
    example.parent.mkdir(exist_ok=True)
    if example.resolve() != TOOL.resolve():
        shutil.copy(TOOL, example)
    subprocess.run(
        ["cargo", "build", "-q", "--release", "-p", "jax-compiler", "--example", "expansion_size"],
        cwd=tree, check=True,
    )
    exe = tree / "target" / "release" / "examples" / "expansion_size"
    out = []
    for src in sources():
        p = subprocess.run([exe, src, "--show"], capture_output=True, text=True)
        # Timings differ from run to run.
        text = re.sub(r"bytes, [0-9.]+ ms$", "bytes", p.stdout + p.stderr, flags=re.M)
        out.append(f"=== {src.relative_to(ROOT)}\n{text}")
    return "".join(out)


def main():
    ref = sys.argv[1] if len(sys.argv) > 1 else "HEAD"
    work = tempfile.mkdtemp(prefix="jit-expansion-")
    try:
        subprocess.run(["git", "worktree", "add", "-q", "--detach", work, ref], cwd=ROOT, check=True)
        theirs = dump(pathlib.Path(work))
        ours = dump(ROOT)
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", work], cwd=ROOT)
    if ours == theirs:
        print(f"same expansions as {ref}: {len(ours.splitlines())} lines, {len(sources())} files")
        return
    diff = list(difflib.unified_diff(theirs.splitlines(), ours.splitlines(), ref, "working tree", lineterm="", n=1))
    print("\n".join(diff[:80]))
    # Which files' expansions differ, each with its count of changed lines.
    def by_file(text):
        return dict(re.findall(r"^=== (.*)\n((?:(?!=== ).*\n?)*)", text, flags=re.M))
    old, new = by_file(theirs), by_file(ours)
    for name in sorted(set(old) | set(new)):
        if old.get(name) != new.get(name):
            d = difflib.unified_diff(old.get(name, "").splitlines(), new.get(name, "").splitlines(), lineterm="", n=0)
            n = sum(l.startswith(("+", "-")) and not l.startswith(("+++", "---")) for l in d)
            print(f"  {name}: {n} lines differ")
    print(f"\n{sum(l.startswith(('+', '-')) for l in diff)} lines differ from {ref}")
    sys.exit(1)


if __name__ == "__main__":
    main()
