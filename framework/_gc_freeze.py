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
lists them. Objects made later (numba's compiled kernels, which load on first use, and
everything the program makes) are collected as before. ``FRAMEWORK_GC_FREEZE=0`` in the
environment leaves the collector as it was.
"""

import gc
import os


def freeze_import_objects():
    """Collect the garbage present now, then move every live tracked object to the GC's
    permanent generation (called once, at the end of `import framework`; nothing where
    ``FRAMEWORK_GC_FREEZE=0``)."""
    if os.environ.get("FRAMEWORK_GC_FREEZE", "1") == "0":
        return
    gc.collect()
    gc.freeze()
