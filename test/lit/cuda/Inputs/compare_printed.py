"""Compares the memrefs two mlir-runner runs printed (printMemrefF32):
the same number of memrefs, shapes and values within a relative and an
absolute tolerance. Exits 1, saying where, if they differ."""

import argparse
import re
import sys


def memrefs(path):
    """(sizes, values) of each printed memref, in order."""
    text = open(path).read()
    found = []
    for block in text.split("Unranked Memref")[1:]:
        sizes = re.search(r"sizes = \[([^\]]*)\]", block).group(1)
        data = block.split("data =", 1)[1]
        values = [float(v) for v in
                  re.findall(r"[-+]?(?:\d+\.?\d*(?:e[-+]?\d+)?|nan|inf)", data)]
        found.append((sizes, values))
    return found


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("expected")
    parser.add_argument("got")
    parser.add_argument("--rtol", type=float, default=1e-6)
    parser.add_argument("--atol", type=float, default=1e-7)
    args = parser.parse_args()
    expected, got = memrefs(args.expected), memrefs(args.got)
    if not expected or len(expected) != len(got):
        print(f"{len(expected)} memrefs expected, {len(got)} printed")
        return 1
    for index, ((want_sizes, want), (got_sizes, have)) in enumerate(
            zip(expected, got)):
        if want_sizes != got_sizes or len(want) != len(have):
            print(f"memref {index}: sizes [{got_sizes}], expected "
                  f"[{want_sizes}]")
            return 1
        for i, (w, h) in enumerate(zip(want, have)):
            if abs(w - h) > args.atol + args.rtol * abs(w):
                print(f"memref {index}, element {i}: {h}, expected {w}")
                return 1
    print(f"{len(got)} memrefs match")
    return 0


if __name__ == "__main__":
    sys.exit(main())
