"""torch's CPU product order (ATen ``prod_kernel_impl``: ``binary_kernel_reduce_vec``) for
float32/float64, replayed to the bit.

A row reduced over contiguous memory (``vectorized_inner_reduction``) is read in blocks of
four 32-byte vectors (32 float32 / 16 float64 values): four accumulators start from the
first block and multiply in each later block lane by lane; they are combined as
``(a0 * a1) * (a2 * a3)``, the lanes multiplied in order into the output (filled with 1),
then the values past the last whole block one by one. Any other layout (an outer or strided
reduction) multiplies each output's values in memory order, one at a time. Measured equal to
torch 2.13's AVX2 build on rows of 0 to 1000 values. Compiled loops where numba is
(``_replay_jit``: the same multiplications in the same order), else the NumPy replay.

Example:
    >>> import numpy as np
    >>> float(torch_prod(np.arange(1, 6, dtype=np.float32), (0,))[0])
    120.0
"""

import numpy as np

from ._norm_kernel import _layout, columns_of, down, rows_of
from ._replay_jit import MULTIPLY, loops
from ._sum_kernel import GRAIN

_LANES = {"f": 8, "d": 4}


def torch_prod(x, axes):
    """``x`` (a NumPy array) multiplied over ``axes`` (non-negative) in torch's CPU order, with
    the reduced dimensions kept (size 1); None where not reproduced (other dtypes, broadcast
    reduced dimensions, a reduction of 32,768 or more values: torch may split it)."""
    if type(x) is not np.ndarray or x.dtype.char not in "fd" or x.size == 0:
        return None
    got = _layout(x, axes)
    if got is None:
        return None
    kept, red, n, unit = got
    if n >= GRAIN:
        return None
    out_shape = [1 if a in axes else s for a, s in enumerate(x.shape)]
    width = _LANES[x.dtype.char]
    blocks = n // (4 * width)
    k = loops()
    if k is not None:
        out = np.empty(x.size // n, x.dtype)
        if not unit or not blocks:
            k.fold_rows(x.transpose(kept + red).reshape(-1, n), MULTIPLY, out)
        else:
            k.prod_blocks(rows_of(x, kept, red, n).reshape(-1), n, width, out)
        return out.reshape(out_shape)
    if not unit or not blocks:
        return down(columns_of(x, kept, red, n), np.multiply).reshape(out_shape)
    rows = rows_of(x, kept, red, n)
    count = rows.shape[0]
    body = np.ascontiguousarray(rows[:, : blocks * 4 * width]).reshape(count, blocks, 4 * width)
    acc = np.multiply.reduce(body, axis=1).reshape(count, 4, width)  # block by block (down)
    lanes = (acc[:, 0] * acc[:, 1]) * (acc[:, 2] * acc[:, 3])
    rest = np.concatenate([lanes, rows[:, blocks * 4 * width :]], axis=1)
    return down(np.ascontiguousarray(rest.T), np.multiply).reshape(out_shape)
