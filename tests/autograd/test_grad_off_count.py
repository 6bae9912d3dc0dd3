"""grad_mode.grad_off: the count of threads whose grad mode is off, which lets Op.apply skip
reading the per-thread flag while it is 0. Every way of switching the mode keeps it exact,
and an op records (or not) by its own thread's mode whatever the other threads' are, as
torch does."""

import threading

import pytest
import torch

import framework
from framework.autograd.grad_mode import grad_off


def _held(T, mode, started, release, out):
    """In a thread: enter `mode` of library T, signal, wait, then record what an op does."""
    with mode(T):
        started.set()
        release.wait(10)
        x = T.ones(2, requires_grad=True)
        out["thread"] = (x * x).requires_grad


MODES = {
    "no_grad": lambda T: T.no_grad(),
    "inference_mode": lambda T: T.inference_mode(),
    "set_grad_enabled_false": lambda T: T.set_grad_enabled(False),
}


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("T", [framework, torch], ids=["framework", "torch"])
def test_another_threads_mode_leaves_this_threads_recording(T, mode):
    base = grad_off[0]
    started, release, out = threading.Event(), threading.Event(), {}
    worker = threading.Thread(target=_held, args=(T, MODES[mode], started, release, out))
    worker.start()
    started.wait(10)
    if T is framework:
        assert grad_off[0] == base + 1
    x, w = T.ones(2, 2, requires_grad=True), T.ones(2, 2)
    ys = [x * w, x + w, T.relu(x), x @ w, T.addcmul(x, w, w)]
    release.set()
    worker.join()
    assert [y.requires_grad for y in ys] == [True] * 5
    assert [type(y.grad_fn).__name__ for y in ys] == [
        "MulBackward0",
        "AddBackward0",
        "ReluBackward0",
        "MmBackward0",
        "AddcmulBackward0",
    ]
    assert out["thread"] is False
    if T is framework:
        assert grad_off[0] == base


@pytest.mark.parametrize("T", [framework, torch], ids=["framework", "torch"])
def test_this_threads_mode_off_while_another_records(T):
    out = {}

    def record():
        x = T.ones(2, requires_grad=True)
        out["thread"] = ((x * x).requires_grad, (x + x).grad_fn is not None)

    with T.no_grad():
        x = T.ones(2, requires_grad=True)
        here = [(x * x).requires_grad, (x + x).requires_grad, T.relu(x).requires_grad]
        worker = threading.Thread(target=record)
        worker.start()
        worker.join()
    assert here == [False, False, False]
    assert out["thread"] == (True, True)


def test_count_is_exact_through_nested_switches_and_backward():
    base = grad_off[0]
    x = framework.ones(3, requires_grad=True)
    with framework.no_grad():
        assert grad_off[0] == base + 1
        with framework.no_grad():  # off to off: no change
            assert grad_off[0] == base + 1
            with framework.enable_grad():
                assert grad_off[0] == base
                assert (x * x).requires_grad
            assert grad_off[0] == base + 1
        with framework.set_grad_enabled(True):
            assert grad_off[0] == base
        assert not (x * x).requires_grad
    assert grad_off[0] == base
    (x * x).sum().backward()  # the engine turns the mode off while it runs
    assert grad_off[0] == base
    framework.set_grad_enabled(False)
    assert grad_off[0] == base + 1 and not (x * x).requires_grad
    framework.set_grad_enabled(True)
    assert grad_off[0] == base and (x * x).requires_grad


def test_a_thread_ending_with_its_mode_off_keeps_the_per_thread_read():
    base = grad_off[0]
    worker = threading.Thread(target=lambda: framework.set_grad_enabled(False))
    worker.start()
    worker.join()
    assert grad_off[0] == base + 1  # counted still: ops read the flag, as before
    x = framework.ones(2, requires_grad=True)
    assert (x * x).requires_grad
    with framework.no_grad():
        assert not (x * x).requires_grad
