"""python -m framework.compat script.py args...: run a PyTorch program on framework."""

import os
import runpy
import sys

from . import install

USAGE = "usage: python -m framework.compat script.py [args...]  |  -m module [args...]"


def main(argv=None):
    """``python -m framework.compat program.py [args]``: runs the program with ``import torch``
    resolved to framework; returns the exit status.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE + "\n\nRuns the program with `import torch` resolved to framework.")
        return 0 if argv else 2
    install()
    return run_program(argv, "python -m framework.compat")


def run_program(argv, prog):
    """Run ``script.py args...`` or ``-m module args...`` as ``__main__`` in this process (as
    ``python`` would); ``prog`` names the runner in error messages. Returns an exit status."""
    if argv[0] == "-m":
        if len(argv) < 2:
            print(USAGE, file=sys.stderr)
            return 2
        sys.argv = argv[1:]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        return 0
    path = argv[0]
    if not os.path.exists(path):
        print(f"{prog}: can't open file {path!r}", file=sys.stderr)
        return 2
    sys.argv = argv
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    runpy.run_path(os.path.abspath(path), run_name="__main__")  # __file__ absolute, as python
    return 0


if __name__ == "__main__":
    sys.exit(main())
