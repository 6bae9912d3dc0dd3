"""Import-time objects out of the cyclic garbage collector's way.

A recorded graph is made of Python objects (nodes, tensors, edge tuples), so a long forward
pass makes CPython's cyclic GC run full collections, and each full collection walks every
tracked object in the process: the framework's own ~40,000 import-time objects (modules,
classes, functions, op tables) on every pass, although they live as long as the process.
torch's graph is C++ and never triggers these collections. `freeze_import_objects` moves
what is alive once `import framework` finishes to the GC's permanent generation
(`gc.freeze()`), which full collections skip.

What that means for a program: objects alive at that moment are still freed by reference
counting as usual; only a reference cycle among them that becomes garbage later is not
collected (garbage present at import is collected first), and `gc.get_objects()` no longer
lists them. Objects made later are collected as before, except once: numba (the compiled
loops load it on first use) brings ~90,000 objects of its own, and the first backward pass
that ends with it loaded freezes what is alive then (`freeze_after_numba`); each later numba
compilation (a kernel compiled lazily on first use, ~1,000-30,000 objects of numba IR and typing
state that stay alive with it) makes the next backward pass freeze again.
``FRAMEWORK_GC_FREEZE=0`` in the environment leaves the collector as it was.
"""

import gc
import os
import sys
import time

# True until the objects alive once numba is loaded were frozen too (freeze_after_numba)
numba_pending = [os.environ.get("FRAMEWORK_GC_FREEZE", "1") != "0"]


def freeze_import_objects():
    """Collect the garbage present now, then move every live tracked object to the GC's
    permanent generation (called once, at the end of `import framework`; nothing where
    ``FRAMEWORK_GC_FREEZE=0``)."""
    if os.environ.get("FRAMEWORK_GC_FREEZE", "1") == "0":
        return
    gc.collect()
    gc.freeze()


def freeze_after_numba():
    """Once numba is loaded (the framework's compiled loops: optimizer steps, exact replays),
    collect and freeze what is alive, once per process. numba and its typing registry add
    ~90,000 tracked objects as they load and compile, which every full collection walked
    afterwards: ~30 ms per collection while a 20,000-op graph was alive (a third of that
    chain's time). Called by the backward engine after a backward pass (engine.run), a quiet
    point; the caveat of `freeze_import_objects` holds for what is alive at that moment.

    Later numba compilations call it again (`_listen`), rate-limited: a re-freeze's collection
    (~0.1-0.3 s in a test process compiling kernel after kernel) runs only once 100 times its
    last duration has passed since it ended, so these collections take at most ~1 % of the
    time; until then the request stays pending (one clock read per backward pass)."""
    if "numba" in sys.modules:
        now = time.perf_counter()
        if _last[0] is not None and now - _last[0] < _RATE * _last[1]:
            return  # too soon after the last one: stays pending
        numba_pending[0] = False
        if not _listening:
            _listen()
        gc.collect()
        gc.freeze()
        end = time.perf_counter()
        _last[:] = [end, end - now]


_RATE = 100  # a re-freeze waits 100x the last one's duration (collections <= ~1 % of the time)
_last = [None, 0.0]  # when the last freeze_after_numba ended, and how long it took


_listening = []  # the numba compile listener, once registered


def _listen():
    """Make every later numba compilation re-arm `numba_pending`: what a lazy compile leaves
    alive (its IR, types and the objects of whatever the program imported meanwhile) is frozen
    at the end of the next backward pass instead of being walked by every full collection.
    In a process that had compiled GPT's and LSTM's kernels after the first freeze, ~125,000
    such objects made each full collection during a 20,000-op chain cost ~130 ms (one every
    other step; the chain itself is ~100 ms)."""
    from numba.core import event

    class _Compiled(event.Listener):
        """Sets `numba_pending` when a compilation ends."""

        def on_start(self, ev):
            """numba began compiling: nothing to do until it ends."""
            pass

        def on_end(self, ev):
            """A compilation ended: re-arm the freeze for the end of the next backward pass."""
            numba_pending[0] = True

    listener = _Compiled()
    event.register("numba:compile", listener)
    _listening.append(listener)
