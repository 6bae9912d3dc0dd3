"""Per-rank start-up under the launcher: torchrun's variables from MPI's rank, then the
script (or module) runs as __main__."""

import os
import runpy
import sys


def main():
    """Runs one rank under mpiexec: sets torchrun's environment variables (RANK, LOCAL_RANK, ...)
    from MPI's, then the script or ``-m`` module.
    """
    args = sys.argv[1:]
    rank = next(
        (
            os.environ[v]
            for v in ("PMI_RANK", "OMPI_COMM_WORLD_RANK", "MPI_LOCALRANKID")
            if os.environ.get(v)
        ),
        "0",
    )
    os.environ.setdefault("RANK", rank)
    os.environ.setdefault("LOCAL_RANK", rank)
    os.environ.setdefault("GROUP_RANK", "0")
    if args and args[0] == "-m":
        sys.argv = args[1:]
        runpy.run_module(args[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = args
        sys.path.insert(0, os.path.dirname(os.path.abspath(args[0])))
        runpy.run_path(args[0], run_name="__main__")


if __name__ == "__main__":
    main()
