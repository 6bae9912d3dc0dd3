"""python -m framework.distributed.run: torchrun's command line, built on mpiexec.

    python -m framework.distributed.run --nproc-per-node 2 train.py --epochs 3
    python -m framework.distributed.run --nproc-per-node 2 -m package.module args...

Starts N processes with MPI's launcher (the mpiexec that the `mpich` wheel installs, or one on
PATH); each gets torchrun's environment (RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE,
MASTER_ADDR, MASTER_PORT) before the script runs, so `init_process_group()` and scripts that
read those variables work unchanged. Exit status: the first failing rank's, as torchrun.
One machine per invocation here (`--nnodes 1`); across machines, run mpiexec with a host file.
"""

import argparse
import os
import shutil
import subprocess
import sys


def _mpiexec():
    here = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    found = here if os.path.exists(here) else shutil.which("mpiexec")
    if found is None:
        raise SystemExit(
            "framework.distributed.run: no mpiexec found; install the distributed "
            "extra (pip install 'framework[distributed]': mpi4py and mpich)"
        )
    return found


def parse(argv):
    """The launcher's command line (torchrun's flags)."""
    p = argparse.ArgumentParser(
        prog="python -m framework.distributed.run",
        description="Launch N training processes (torchrun's flags, on mpiexec).",
    )
    p.add_argument(
        "--nproc-per-node",
        "--nproc_per_node",
        type=int,
        default=1,
        help="processes to start on this machine (default 1)",
    )
    p.add_argument(
        "--nnodes",
        type=str,
        default="1",
        help="only 1 is supported by this launcher (use mpiexec with a host file across machines)",
    )
    p.add_argument("--node-rank", "--node_rank", type=int, default=0)
    p.add_argument("--master-addr", "--master_addr", default="127.0.0.1")
    p.add_argument("--master-port", "--master_port", type=int, default=29500)
    p.add_argument("--standalone", action="store_true", help="accepted (one machine)")
    p.add_argument(
        "-m", "--module", action="store_true", help="run the target as a module (python -m)"
    )
    p.add_argument(
        "--no-python", action="store_true", help="run the target as an executable, not with Python"
    )
    p.add_argument("script", help="the training script (or module with -m)")
    p.add_argument("args", nargs=argparse.REMAINDER, help="the script's arguments")
    a = p.parse_args(argv)
    if a.nnodes not in ("1", "1:1") or a.node_rank != 0:
        p.error(
            "--nnodes other than 1 is not supported by this launcher; use mpiexec with a host file"
        )
    if a.nproc_per_node < 1:
        p.error("--nproc-per-node must be at least 1")
    return a


def command(a):
    """The mpiexec command line that starts the ranks."""
    target = [a.script] + a.args
    if a.no_python:
        inner = target
    else:
        inner = (
            [sys.executable, "-m", "framework.distributed._bootstrap"]
            + (["-m"] if a.module else [])
            + target
        )
    env = [
        "-genv",
        "MASTER_ADDR",
        a.master_addr,
        "-genv",
        "MASTER_PORT",
        str(a.master_port),
        "-genv",
        "WORLD_SIZE",
        str(a.nproc_per_node),
        "-genv",
        "LOCAL_WORLD_SIZE",
        str(a.nproc_per_node),
    ]
    # hydra would kill the surviving ranks at once: let them report the failure themselves
    return [_mpiexec(), "-disable-auto-cleanup", "-n", str(a.nproc_per_node)] + env + inner


def main(argv=None):
    """``python -m framework.distributed.run``: starts the ranks under mpiexec; returns its
    status."""
    a = parse(sys.argv[1:] if argv is None else argv)
    proc = subprocess.run(command(a))
    if proc.returncode:
        print(
            f"framework.distributed.run: a rank failed (mpiexec status {proc.returncode}: "
            "the rank's exit status, or the signal that killed it); ranks waiting on it either "
            "reported a timeout or were stopped by mpiexec",
            file=sys.stderr,
        )
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
