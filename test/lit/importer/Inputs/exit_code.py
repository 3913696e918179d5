"""Runs a command and checks its exit status.

    exit_code.py STATUS [--empty-dir DIR] -- COMMAND ARGS...

Forwards the command's stdout and stderr (both to stdout, for FileCheck) and
fails unless it exits with exactly STATUS. With --empty-dir, also fails if
DIR holds any file afterwards (no partial output left behind).
"""

import os
import subprocess
import sys


def main():
    args = sys.argv[1:]
    expected = int(args.pop(0))
    empty_dirs = []
    while args and args[0] != "--":
        if args[0] == "--empty-dir":
            empty_dirs.append(args[1])
            args = args[2:]
        else:
            sys.exit("exit_code.py: unknown option " + args[0])
    args = args[1:]
    result = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    sys.stdout.write(result.stdout.decode(errors="replace"))
    if result.returncode != expected:
        sys.exit("exit_code.py: expected exit status %d, got %d" % (expected, result.returncode))
    for d in empty_dirs:
        left = sorted(os.listdir(d))
        if left:
            sys.exit("exit_code.py: %s is not empty: %s" % (d, " ".join(left)))


if __name__ == "__main__":
    main()
