"""`import framework` moves its import-time objects to the GC's permanent generation
(framework/_gc_freeze.py): garbage present before the import is still collected, objects made
afterwards are collected as before, and reference counting frees frozen objects as usual."""

import os
import subprocess
import sys
import textwrap

ROOT = __file__.rsplit("/tests/", 1)[0]


def _run(code):
    res = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 0, res.stderr[-3000:]
    return res.stdout.split()


def test_import_freezes_its_objects_and_collects_earlier_garbage():
    out = _run(
        """
        import gc, weakref

        class Box:
            pass

        gc.disable()  # only the import's own collection may free the cycle
        a, b = Box(), Box()
        a.other, b.other = b, a  # a reference cycle, garbage once the names go
        dead = weakref.ref(a)
        kept = Box()
        del a, b
        import framework

        print(dead() is None, gc.get_freeze_count() > 10000, gc.is_tracked(kept))
        print(any(o is kept for o in gc.get_objects()))  # frozen: no longer listed
        """
    )
    assert out == ["True", "True", "True", "False"]


def test_graphs_made_after_import_are_collected_and_freed():
    out = _run(
        """
        import gc, weakref
        import framework

        x = framework.ones(3, requires_grad=True)
        y = (x * 2).relu().sum()
        node = weakref.ref(y.grad_fn)
        del y  # no cycle: reference counting frees the graph
        print(node() is None)

        class Box:
            pass

        a, b = Box(), Box()
        a.other, b.other = b, a
        a.t = x * 3  # a cycle holding a recorded tensor, made after the import
        dead = weakref.ref(a)
        del a, b
        gc.collect()
        print(dead() is None)
        """
    )
    assert out == ["True", "True"]


def test_environment_variable_turns_it_off():
    """FRAMEWORK_GC_FREEZE=0: the import leaves the collector as it was."""
    res = subprocess.run(
        [sys.executable, "-c", "import gc, framework; print(gc.get_freeze_count())"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "FRAMEWORK_GC_FREEZE": "0"},
    )
    assert res.returncode == 0, res.stderr[-3000:]
    assert res.stdout.split() == ["0"]


def test_first_backward_with_numba_loaded_freezes_once():
    """numba's objects (loaded on first use of a compiled loop) are frozen after the next
    backward pass, once: not before numba is loaded, not again after, and not at all with
    FRAMEWORK_GC_FREEZE=0 (the import's freeze is off too then); graphs and cycles made
    afterwards are still freed and collected."""
    code = """
        import gc, sys, weakref
        import framework
        from framework import _gc_freeze

        calls, freeze = [], gc.freeze
        gc.freeze = lambda: calls.append(gc.get_count()) or freeze()  # counts the freezes
        x = framework.ones(3, requires_grad=True)
        (x * 2).sum().backward()  # (its sum may load numba already, where compiled)
        print(len(calls) == ("numba" in sys.modules and _gc_freeze.numba_pending[0] is False))
        import numba  # (as an optimizer step's first call loads it)

        (x * 2).sum().backward()
        print(len(calls), _gc_freeze.numba_pending[0], gc.get_freeze_count() > 10000)
        y = (x * 2).relu().sum()
        y.backward()
        print(len(calls))  # once only

        class Box:
            pass

        a, b = Box(), Box()
        a.other, b.other = b, a
        a.t = x * 3
        dead, node = weakref.ref(a), weakref.ref(y.grad_fn)
        del a, b, y
        gc.collect()
        print(dead() is None, node() is None)
        """
    assert _run(code) == ["True", "1", "False", "True", "1", "True", "True"]
    res = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "FRAMEWORK_GC_FREEZE": "0"},
    )
    assert res.returncode == 0, res.stderr[-3000:]
    assert res.stdout.split()[1:] == ["0", "False", "False", "0", "True", "True"]


def test_numba_compile_after_the_freeze_rearms_it():
    """A numba compilation after the first freeze (a kernel compiled lazily on first use)
    leaves its objects alive: the next backward pass freezes again, once (not before the rate
    limit allows it: the request stays pending), and a backward with no compilation since does
    not; cycles made afterwards are still collected."""
    out = _run(
        """
        import gc, weakref
        import numba
        import framework
        from framework import _gc_freeze

        x = framework.ones(3, requires_grad=True)
        (x * 2).sum().backward()  # numba loaded: the first freeze
        calls, freeze = [], gc.freeze
        gc.freeze = lambda: calls.append(1) or freeze()  # counts the freezes
        (x * 2).sum().backward()
        print(len(calls), _gc_freeze.numba_pending[0])

        @numba.njit
        def twice(v):
            return v * 2

        twice(1.5)  # a compilation
        print(_gc_freeze.numba_pending[0])
        kept = [object() for _ in range(3)]
        _gc_freeze._RATE = 1e9  # too soon after the last freeze: stays pending
        (x * 2).sum().backward()
        print(len(calls), _gc_freeze.numba_pending[0])
        _gc_freeze._RATE = 0
        (x * 2).sum().backward()
        print(len(calls), _gc_freeze.numba_pending[0], gc.is_tracked(kept))
        print(any(o is kept for o in gc.get_objects()))  # frozen: no longer listed
        (x * 2).sum().backward()
        print(len(calls))

        class Box:
            pass

        a, b = Box(), Box()
        a.other, b.other = b, a
        a.t = x * 3
        dead = weakref.ref(a)
        del a, b
        gc.collect()
        print(dead() is None)
        """
    )
    assert out == ["0", "False", "True", "0", "True", "1", "False", "True", "False", "1", "True"]
