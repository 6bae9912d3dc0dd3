"""x[index] = value where torch's index_put_ runs as masked_fill_ (thirteenth pass).

torch's index_put_ (without accumulate) takes a one-element CPU value and a single boolean
mask as ``masked_fill_(mask, value.item())`` (canDispatchToMaskedFill): the value is cast to
x's dtype through c10's checked conversion, which refuses a non-finite or out-of-range
number ("value cannot be converted to type int64_t without overflow"). Fuzz seed 410003195
(an int64 x, a bool mask, a float64 value -inf) found ours writing INT64_MIN. Any other
advanced index (two masks, a 0-dim bool, an integer list) is index_put, which refuses a
value of another dtype; a lone Python True is a copy into x.unsqueeze(0) (it casts), a lone
False writes nothing and checks nothing.
"""

import math

import pytest
import torch

import framework

MASK = lambda L: L.tensor([True, False])

CASES = [
    # (x dtype, value dtype, value, index)
    ("int64", "float64", [-math.inf], MASK),  # seed 410003195
    ("int64", "float64", math.nan, MASK),
    ("int64", "float64", 1e30, MASK),
    ("int64", "float64", 2.5, MASK),
    ("int8", "float32", 200.0, MASK),
    ("int8", "int64", 200, MASK),
    ("uint8", "int64", 300, MASK),
    ("uint8", "int64", -3, MASK),
    ("uint8", "int64", -300, MASK),
    ("float16", "float32", 1e10, MASK),
    ("float16", "int64", 100000, MASK),
    ("bfloat16", "float64", 1e300, MASK),
    ("float32", "float64", 1e300, MASK),
    ("float32", "float64", [[1e300]], MASK),
    ("float32", "float64", math.inf, MASK),
    ("bool", "float64", 1e300, MASK),
    ("int64", "bool", True, MASK),
    ("float16", "float64", 1e10, lambda L: L.tensor([[True, False], [False, True]])),
    ("int64", "float64", math.inf, lambda L: (slice(None), MASK(L))),
    ("int64", "float64", math.inf, lambda L: (0, MASK(L))),
    ("int64", "float64", math.inf, lambda L: (Ellipsis, MASK(L))),
    ("int64", "float64", math.inf, lambda L: (MASK(L), None)),
    ("int64", "float64", 2.5, lambda L: (MASK(L), MASK(L))),  # two masks: index_put
    ("int64", "float64", math.inf, lambda L: (MASK(L), L.tensor([0]))),
    ("int64", "float64", 2.5, lambda L: (MASK(L), True)),
    ("int64", "float64", 2.5, lambda L: (MASK(L), L.tensor(1))),  # 0-dim int: a select
    ("int64", "float64", math.nan, lambda L: L.tensor(True)),  # 0-dim bool: index tensor
    ("int64", "float64", math.inf, lambda L: L.tensor([True, False, True])),  # bad mask
    ("int64", "float64", 2.5, lambda L: L.tensor(0)),
    ("int64", "float64", [2.5, 1.5], lambda L: L.tensor(0)),
    ("int64", "float64", 2.5, lambda L: [0]),
    ("int64", "float64", 2.5, lambda L: [True, False]),
    ("int64", "float64", math.inf, lambda L: [True, False]),
    ("int64", "float64", 2.5, lambda L: True),
    ("int64", "float64", [1.0, 2.0, 3.0], lambda L: True),
    ("int64", "float64", [1.0, 2.0, 3.0], lambda L: False),
]


def _run(L, xd, vd, v, index):
    x = L.zeros(2, 2, dtype=getattr(L, xd))
    try:
        x[index(L)] = L.tensor(v, dtype=getattr(L, vd))
    except Exception as e:
        return type(e), str(e)
    return str(x.dtype), x.tolist()


@pytest.mark.parametrize("case", range(len(CASES)))
def test_setitem_mask_fill_matches_torch(case):
    """Values or error type and message as torch's."""
    assert _run(framework, *CASES[case]) == _run(torch, *CASES[case])


@pytest.mark.parametrize("index", [True, False])
@pytest.mark.parametrize("leaf", [False, True])
@pytest.mark.parametrize("value", [2.5, [[2.5, 1.5]], [1.0, 2.0, 3.0]])
def test_lone_bool_index(index, leaf, value):
    """x[True] = v is torch's copy into x.unsqueeze(0) (CopySlices, the leaf refusal); x[False]
    = v returns before any check (a leaf, a value of the wrong shape)."""
    res = []
    for L in (torch, framework):
        x = L.zeros(2, 2, requires_grad=True)
        x = x if leaf else x.clone()
        try:
            x[index] = L.tensor(value, requires_grad=True) if isinstance(value, list) else value
            res.append((x.tolist(), x.grad_fn and x.grad_fn.name()))
        except Exception as e:
            res.append((type(e), str(e)))
    assert res[1] == res[0]


def _put(L, form, x, indices, values):
    if form == "function":
        return L.index_put(x, indices, values)
    return getattr(x, form)(indices, values)


BAD_INDICES = [
    lambda L: (None, L.tensor([0])),
    lambda L: ([0],),
    lambda L: (0,),
    lambda L: (L.tensor([0]), 1.5),
    lambda L: L.tensor([0]),
    lambda L: [L.tensor([0])],  # a list of tensors is accepted
]


@pytest.mark.parametrize("form", ["index_put", "index_put_", "function"])
@pytest.mark.parametrize("case", range(len(BAD_INDICES)))
def test_index_put_indices_are_tensors(form, case):
    """torch's argument parser: a tuple or list of tensors, else its TypeError (the element's
    position; `argument 0` for the methods, 1 for the function)."""
    res = []
    for L in (torch, framework):
        try:
            out = _put(L, form, L.zeros(2, 2), BAD_INDICES[case](L), L.tensor([5.0]))
            res.append(out.tolist())
        except Exception as e:
            res.append((type(e), str(e)))
    assert res[1] == res[0]


@pytest.mark.parametrize("form", ["index_put", "index_put_", "function"])
@pytest.mark.parametrize("case", [0, 1, 3, 4, 6, 9, 11, 12, 13])
def test_index_put_one_mask_is_masked_fill(form, case):
    """index_put (all forms) with one mask and a one-element value of another dtype casts it
    through the checked conversion, as x[mask] = value."""
    xd, vd, v, _ = CASES[case]
    res = []
    for L in (torch, framework):
        x = L.zeros(2, 2, dtype=getattr(L, xd))
        try:
            out = _put(L, form, x, (MASK(L),), L.tensor(v, dtype=getattr(L, vd)))
            res.append((str(out.dtype), out.tolist()))
        except Exception as e:
            res.append((type(e), str(e)))
    assert res[1] == res[0]


@pytest.mark.parametrize("flag", [True, False])
@pytest.mark.parametrize(
    "value,vd,xd",
    [
        ([5.0], "float32", "float32"),
        ([[5.0]], "float32", "int64"),
        ([2.5], "float64", "int64"),
        ([math.inf], "float64", "int64"),
        ([math.inf], "float64", "float32"),
    ],
)
def test_index_put_zero_dim_mask_fills_all(flag, value, vd, xd):
    """index_put((tensor(True),), one value) is masked_fill_ with the 0-dim mask broadcast:
    all of x (True) or none of it (ours wrote the first row, as x[True] would)."""
    res = []
    for L in (torch, framework):
        x = L.zeros(2, 2, dtype=getattr(L, xd))
        try:
            out = x.index_put((L.tensor(flag),), L.tensor(value, dtype=getattr(L, vd)))
            res.append((str(out.dtype), out.tolist()))
        except Exception as e:
            res.append((type(e), str(e)))
    assert res[1] == res[0]
