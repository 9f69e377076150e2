#!/usr/bin/env python3
"""Records every example's loss and gradient bits into tests/app/example_bits.json.

Run it only when a change is meant to change results (a new example, a physics fix), and say so
in the commit: tests/app/example_bits_test.cpp holds every example to these bits, so a
refactoring that changes a single bit of any loss or gradient fails.

    python3 tools/record_example_bits.py build/simgrad build-sanitize/simgrad

The first tool is the GCC Release build's, the second the clang sanitizer build's (scripts/test.sh
builds both). Gradients differ in their last bits between the two compilers: the local AD tape
records operations in the order the operands of an expression are evaluated, which C++ leaves to
the compiler, and adjoints are summed in that order. Each compiler's bits are recorded; without
the second tool, the clang records already in the file are kept.
"""
import json
import struct
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def fnv1a(values):
    """FNV-1a over the IEEE-754 bits of each double, as the test computes it."""
    h = 0xCBF29CE484222325
    for v in values:
        for byte in struct.pack("<d", v):
            h ^= byte
            h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def flatten(gradient):
    """The gradient's values in key order, lists flattened."""
    out = []
    for key in sorted(gradient):
        value = gradient[key]
        out.extend(value if isinstance(value, list) else [value])
    return out


def record(binary, example):
    """`simgrad grad` on one example: its loss, gradient size and hash, and the seconds it took."""
    start = time.time()
    out = subprocess.run([str(binary), "grad", "--json", "--quiet", "--threads", "2", str(example)],
                         check=True, capture_output=True, text=True).stdout
    seconds = time.time() - start
    result = json.loads(out)
    values = flatten(result["gradient"])
    return {"loss": result["loss"], "gradient_values": len(values), "gradient_fnv1a": "%016x" % fnv1a(values),
            "seconds": round(seconds, 2)}


def main():
    binary = Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "build" / "simgrad")
    clang_binary = Path(sys.argv[2]) if len(sys.argv) > 2 else None
    path = ROOT / "tests" / "app" / "example_bits.json"
    old = json.loads(path.read_text()) if path.exists() else {}
    records = {}
    for example in sorted((ROOT / "examples").rglob("*.json")):
        name = example.relative_to(ROOT).as_posix()
        records[name] = record(binary, example)
        if clang_binary is not None:
            clang = record(clang_binary, example)
            records[name]["clang"] = {"loss": clang["loss"], "gradient_fnv1a": clang["gradient_fnv1a"]}
        elif "clang" in old.get(name, {}):
            records[name]["clang"] = old[name]["clang"]
        else:
            print(f"{name}: no clang record (give the clang build's tool)", file=sys.stderr)
        r = records[name]
        print(f"{name}: loss {r['loss']!r}, {r['gradient_values']} gradient values, {r['seconds']:.2f} s", file=sys.stderr)
    path.write_text(json.dumps(records, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
