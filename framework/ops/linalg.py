"""Matrix products: mm, mv, dot, bmm, addmm, outer, linear and matmul's dispatch."""

from ..amp.autocast_mode import cast as _amp_cast, in_use as _amp_in_use, state as _amp
from .reduction import _prod
from .._errors import broadcast_shapes, check_empty_sum_scale, refuse
from ..autograd.engine import is_zero_tensor
from ..autograd.op import Op
from ..backend import np as _np
from ..dtypes import cpp_type_name, scalar_type_name
from ._norm_kernel import down
from ._replay_jit import loops
from ._sum_kernel import torch_sum
from ._fastgrad import plain, wrap
from . import _mkl
from .shape import _expanded_shape, _squeeze_inplace_dim, _unsafe_view, reshape
from .batch_products import _scaled
from ..tensor import Tensor

_new = object.__new__
_F32, _F64 = _np.dtype("float32"), _np.dtype("float64")
_ndarray, _empty = _np.ndarray, _np.empty


__all__ = ["addmm", "bmm", "dot", "ger", "matmul", "mm", "mv", "outer"]


def _half_matmul(a, b):
    """a @ b; half-precision products accumulate in float32 and round once, as torch's CPU
    kernels do (NumPy's float16 matmul accumulates in float16; bfloat16's returns float32)."""
    if a.dtype.itemsize == 2 and a.dtype.kind in "fV":
        return (a.astype("float32") @ b.astype("float32")).astype(a.dtype)
    if a.ndim == 2 and b.ndim == 2:  # the same BLAS product, without matmul's gufunc setup
        return _dot(a, b)  # (1.2 us less per call on small matrices, equal bits)
    return a @ b


def _dot(a, b):
    """a @ b of matrices by ndarray.dot, except an inner size of 1: NumPy's dot then gives
    inf * 0 = 0 for an (m, 1) @ (1, 1) product (matmul and torch: NaN). Float products go to
    MKL where it is installed (`_mkl`: torch's BLAS and its call; with numba at any size)."""
    dt = a.dtype
    if (
        _mkl.MM is not None
        and (dt is _F32 or dt is _F64)
        and b.dtype is dt
        and type(a) is _ndarray
        and type(b) is _ndarray
    ):
        return _mkl_dot(a, b)
    k = b.shape[0]
    if a.shape[0] * k * b.shape[1] < _mkl.MIN_MACS or (out := _mkl.gemm(a, b)) is None:
        return a.dot(b) if k != 1 else a @ b
    return out


def _mkl_dot(a, b):
    """a @ b by MKL's gemm as torch calls it (`_mkl.MM`, loaded), for float32 or float64
    NumPy matrices of one dtype (checked by the caller: nothing else checks)."""
    dt = a.dtype
    out = _empty((a.shape[0], b.shape[1]), dt)
    f64 = dt is _F64
    _mkl.MM[f64](_mkl.REC[f64], a, b, out)
    return out


def _column_major(m):
    """torch's mm backward test of a saved matrix's layout: strides (1, rows). An empty
    array's strides are NumPy's zeros; torch's empty matrix has contiguous strides
    (max(cols, 1), 1)."""
    return _column_major_array(m._data)


def _mat1_grad(grad, m2, m1):
    """grad @ m2.T, laid out like mat1 as torch's mm_mat1_backward: (m2 @ grad.T).T for a
    column-major mat1 (a 1 x 1 matrix too: TBackward0 on top)."""
    if _column_major(m1):
        return m2.mm(grad.t()).t()
    return grad.mm(m2.t())


def _mat2_grad(m1, grad, m2):
    """m1.T @ grad, laid out like mat2 (as torch does): when mat2 is column-major (a Linear
    weight's .t()), computing (grad.T @ m1).T makes the weight's gradient C-contiguous."""
    if _column_major(m2):
        return grad.t().mm(m1).t()
    return m1.t().mm(grad)


class Mm(Op):
    saves_inputs = True
    saved_fields = {
        "mat2": "input1 if needs 0",
        "mat2_sym_sizes": "sizes1",
        "mat2_sym_strides": "strides1",
        "self": "input0 if needs 1",
        "self_sym_sizes": "sizes0",
        "self_sym_strides": "strides0",
    }
    saved_for = ((1,), (0,))

    def forward(self, a, b):
        dt = a.dtype
        if (
            (dt is _F32 or dt is _F64)
            and (mm := _mkl.MM) is not None
            and b.dtype is dt
            and type(a) is _ndarray
            and type(b) is _ndarray
        ):  # torch's gemm call by MKL, any size (see _mkl_gemm; the types checked here)
            out = _empty((a.shape[0], b.shape[1]), dt)
            f64 = dt is _F64
            mm[f64](_mkl.REC[f64], a, b, out)
            return out
        if dt is _F32 or dt is _F64 or dt.kind == "f" and dt.itemsize > 2:  # float32/64:
            sb = b.shape  # the product itself (dot: the BLAS call of matmul; see _dot)
            if sb[0] != 1:
                if a.shape[0] * sb[0] * sb[1] < _mkl.MIN_MACS:
                    return a.dot(b)  # (small: _dot's NumPy product, one call less)
                return _dot(a, b)
            if a.shape[0] > 1 and sb[1] > 1:  # torch's gemm of an inner dim of 1 is the
                return a * b  # outer product exactly (0 * -x = -0; BLAS adds it to +0)
            return a @ b  # (gemv for a row or column: +0 there, as torch's)
        if a.size and b.size:  # torch multiplies empty bool matrices
            refuse(a, "b", "addmm_impl_cpu_")
        return _half_matmul(a, b)

    def backward(self, grad):
        a, b = self.inputs
        need_a, need_b = self.needs_input_grad
        if plain(grad) and a._data.dtype == grad._data.dtype:  # no graph: the same products
            return _mm_grads(grad, a._data, b._data, need_a, need_b)  # on the arrays
        # torch's generated MmBackward0 takes its derivatives.yaml keys sorted: mat2 first
        # (the order a second backward runs the nodes and sums in)
        g2 = _mat2_grad(a, grad, b) if need_b else None
        return (_mat1_grad(grad, b, a) if need_a else None), g2

    jvp = Op.jvp_multilinear


_mm_apply = Mm._binary  # Mm.apply(a, b) (positional operands), bound once


def _mm_grads(grad, m1, m2, need_1, need_2):
    """grad @ m2.T and m1.T @ grad on the arrays (mm's and addmm's backward without
    create_graph), the second laid out like m2 as `_mat2_grad` does."""
    g = grad._data
    dt = g.dtype
    m, k = m1.shape
    n = m2.shape[1]
    mm = _mkl.MM
    if (
        mm is not None
        and (dt is _F32 or dt is _F64)
        and m1.dtype is dt
        and m2.dtype is dt
        and type(g) is _ndarray
        and type(m1) is _ndarray
        and type(m2) is _ndarray
    ):  # torch's products by MKL (any size), laid out as `_mat1_grad`/`_mat2_grad` lay them,
        # in one call (`_mkl_gemm.grads_at`); wrap() inlined (as below)
        f64 = dt is _F64
        dev = grad._device
        size = dt.itemsize
        flags = 0
        d1 = d2 = _mkl._NO_GRAD[f64]
        if need_2:
            s0, s1 = m2.strides  # _column_major_array(m2), inlined
            if s0 == size and s1 == size * k if k and n else _column_major_array(m2):
                d2 = _empty((n, k), dt)
                flags = 10
            else:
                d2 = _empty((k, n), dt)
                flags = 2
        if need_1:
            s0, s1 = m1.strides
            if s0 == size and s1 == size * m if m and k else _column_major_array(m1):
                d1 = _empty((k, m), dt)
                flags |= 5
            else:
                d1 = _empty((m, k), dt)
                flags |= 1
        (_mkl.GRADS or _mkl.grads())[f64](_mkl.REC[f64], g, m1, m2, d1, d2, flags)
        g1 = g2 = None
        if need_2:
            g2 = _new(Tensor)
            g2._data, g2._device, g2._rg, g2.grad, g2.grad_fn, g2._output_nr = (
                d2.T if flags & 8 else d2,
                dev,
                False,
                None,
                None,
                0,
            )
            g2._vc = [0]
        if need_1:
            g1 = _new(Tensor)
            g1._data, g1._device, g1._rg, g1.grad, g1.grad_fn, g1._output_nr = (
                d1.T if flags & 4 else d1,
                dev,
                False,
                None,
                None,
                0,
            )
            g1._vc = [0]
        return g1, g2
    if (dt is _F32 or dt is _F64) and m * n * k < _mkl.MIN_MACS and m > 1 and n > 1 and k:
        # small float32/float64 products (the common case): _half_matmul's and _dot's tests
        # decided once (NumPy's dot; both inner sizes, m and n, above 1), the layout tests on
        # the strides, wrap() inlined: ~0.5 us less per node on 4 x 4 matrices, equal bits
        dev = grad._device
        size = dt.itemsize
        g1 = g2 = None
        if need_2:
            s0, s1 = m2.strides  # m2 F- and not C-contiguous (k, n > 1): strides (1, k)
            if s0 == size and k > 1 and s1 == size * k:
                d = g.T.dot(m1).T
            else:
                d = m1.T.dot(g)
            g2 = _new(Tensor)
            g2._data, g2._device, g2._rg, g2.grad, g2.grad_fn, g2._output_nr = (
                d,
                dev,
                False,
                None,
                None,
                0,
            )
            g2._vc = [0]
        if need_1:
            s0, s1 = m1.strides  # _column_major_array(m1) (m1 is not empty: m, k > 0)
            if s0 == size and s1 == size * m:
                d = m2.dot(g.T).T
            else:
                d = g.dot(m2.T)
            g1 = _new(Tensor)
            g1._data, g1._device, g1._rg, g1.grad, g1.grad_fn, g1._output_nr = (
                d,
                dev,
                False,
                None,
                None,
                0,
            )
            g1._vc = [0]
        return g1, g2
    g2 = None
    if need_2:
        g2 = (
            _half_matmul(g.T, m1).T
            if m2.flags.f_contiguous and not m2.flags.c_contiguous
            else _half_matmul(m1.T, g)
        )
    g1 = None
    if need_1:  # laid out like m1 (`_mat1_grad`): (m2 @ grad.T).T for a column-major m1
        g1 = _half_matmul(m2, g.T).T if _column_major_array(m1) else _half_matmul(g, m2.T)
    return (wrap(g1, grad) if need_1 else None), (wrap(g2, grad) if need_2 else None)


def _column_major_array(a):
    """`_column_major` on an array: strides (itemsize, itemsize * rows), as torch's test."""
    if not a.size:
        return max(a.shape[1], 1) == 1 and a.shape[0] == 1
    return a.strides[0] == a.itemsize and a.strides[1] == a.itemsize * a.shape[0]


def mm(a, b):
    """mm(a, b) -> Tensor

    Matrix product of an ``(n, m)`` and an ``(m, p)`` tensor.

    Args:
        a (Tensor): the first matrix, ``(n, m)``.
        b (Tensor): the second matrix, ``(m, p)``.

    Example:
        >>> framework.mm(framework.tensor([[1.0, 2.0]]), framework.tensor([[3.0], [4.0]]))
        tensor([[11.]])
    """
    if _amp_in_use[0] and _amp.active:  # autocast casts before torch's checks (mixed dtypes ok)
        a, b = _amp_cast("Mm", a.device.type, a, b)
    sa, sb = a._data.shape, b._data.shape
    if len(sa) != 2:
        raise RuntimeError("self must be a matrix")
    if len(sb) != 2:
        raise RuntimeError("mat2 must be a matrix")
    if sa[1] != sb[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({sa[0]}x{sa[1]} and {sb[0]}x{sb[1]})"
        )
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: "
            f"{cpp_type_name(a._data.dtype)} != {cpp_type_name(b._data.dtype)}"
        )
    return _mm_apply(a, b)


class Mv(Op):
    saves_inputs = True
    saved_fields = {"self": "input0 if needs 1", "vec": "input1 if needs 0"}
    saved_for = ((1,), (0,))

    def forward(self, a, v):
        if a.size and v.size:
            refuse(a, "b", "addmv_impl_cpu")
            dt = a.dtype
            if (dt is _F32 or dt is _F64) and v.dtype is dt and a.ndim == 2 and v.ndim == 1:
                out = _mkl.gemv(a, v)  # torch's ?gemv call (None without MKL)
                if out is not None:
                    return out
        return _half_matmul(a, v)

    def backward(self, grad):
        a, v = self.inputs
        need_a, need_v = self.needs_input_grad
        grad_a = None
        if need_a:  # outer product grad ⊗ v (torch's ger keeps a ZeroTensor: zeros)
            grad_a = grad.unsqueeze(1) * (
                v if not is_zero_tensor(grad) else v.new_zeros(tuple(v.shape))
            )
        grad_v = a.t().mv(grad) if need_v else None
        return grad_a, grad_v

    jvp = Op.jvp_multilinear


def mv(a, v):
    """mv(a, v) -> Tensor

    Matrix-vector product of an ``(n, m)`` matrix and an ``(m,)`` vector.

    Args:
        a (Tensor): the matrix, ``(n, m)``.
        v (Tensor): the vector, ``(m,)``.

    Example:
        >>> framework.mv(framework.tensor([[1.0, 2.0], [3.0, 4.0]]), framework.tensor([1.0, 1.0]))
        tensor([3., 7.])
    """
    if a.ndim != 2 or v.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {a.ndim}, {v.ndim}")
    if a.shape[1] != v.shape[0]:
        raise RuntimeError(
            f"size mismatch, got input ({a.shape[0]}), mat ({a.shape[0]}x"
            f"{a.shape[1]}), vec ({v.shape[0]})"
        )
    if a._data.dtype != v._data.dtype:
        raise RuntimeError(
            f"addmv input tensors must have the same dtype, but got "
            f"{scalar_type_name(v._data.dtype)}, {scalar_type_name(a._data.dtype)}, and "
            f"{scalar_type_name(v._data.dtype)}"
        )
    return Mv.apply(a, v)


class Dot(Op):
    saves_inputs = True
    saved_fields = {"self": "input0 if needs 1", "tensor": "input1 if needs 0"}
    saved_for = ((1,), (0,))

    def forward(self, a, b):
        refuse(a, "b", "dot")
        dt = a.dtype
        if (dt is _F32 or dt is _F64) and b.dtype is dt and type(a) is _ndarray:
            out = _mkl.dot(a, b) if type(b) is _ndarray else None  # torch's ?dot_ call
            if out is not None:  # (None without MKL or numba: NumPy's dot)
                return out
        return self.xp.dot(a, b)

    def backward(self, grad):
        a, b = self.inputs
        need_a, need_b = self.needs_input_grad
        return (grad * b if need_a else None), (grad * a if need_b else None)

    jvp = Op.jvp_multilinear


def dot(a, b):
    """dot(a, b) -> Tensor

    Computes the dot product of two 1-D tensors.

    Args:
        a (Tensor): the first 1-D tensor.
        b (Tensor): the second 1-D tensor, same length.

    Example:
        >>> framework.dot(framework.tensor([2.0, 3.0]), framework.tensor([2.0, 1.0]))
        tensor(7.)
    """
    _check_dot(a, b)
    return Dot.apply(a, b)


def _check_dot(a, b):
    """torch's checks of dot/vdot arguments (1-D, same length, same dtype)."""
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a.shape[0] != b.shape[0]:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src "
            f"[{b.shape[0]}] to have the same number of elements, but got "
            f"{a.shape[0]} and {b.shape[0]} elements respectively"
        )
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(
            f"dot : expected both vectors to have same dtype, but found "
            f"{scalar_type_name(a._data.dtype)} and {scalar_type_name(b._data.dtype)}"
        )


inner_1d = dot


def _small_bmm_exact(a, b):
    """Float32/float64 NumPy operands of one dtype with a non-empty contraction."""
    return (
        type(a) is _np.ndarray
        and type(b) is _np.ndarray
        and a.dtype == b.dtype
        and a.dtype.char in "fd"
        and a.shape[2] > 0
    )


class Bmm(Op):
    saves_inputs = True
    saved_fields = {"mat2": "input1 if needs 0", "self": "input0 if needs 1"}
    saved_for = ((1,), (0,))

    def forward(self, a, b):
        if a.size and b.size:
            refuse(a, "b", "bmm")
            if a.shape[2] * a.shape[1] * b.shape[2] < 400 and _small_bmm_exact(a, b):
                # torch's baddbmm_cpu_kernel below 400 multiply-adds per matrix: each entry
                # summed from 0 over k in order, products and sums rounded apart
                k = loops()
                if k is not None:  # (the same steps compiled: _replay_jit.small_bmm)
                    out = _np.empty((a.shape[0], a.shape[1], b.shape[2]), a.dtype)
                    k.small_bmm(a, b, out)
                    return out
                prods = a.transpose(2, 0, 1)[..., None] * b.transpose(1, 0, 2)[:, :, None, :]
                out = down(prods.reshape(a.shape[2], -1)) + a.dtype.type(0)
                return out.reshape(a.shape[0], a.shape[1], b.shape[2])
            dt = a.dtype
            if (dt is _F32 or dt is _F64) and b.dtype is dt and type(a) is _ndarray:
                # from 400 multiply-adds a matrix: torch's MKL call (cblas_?gemm_batch of the
                # whole batch where each operand's matrices are unit-strided one way, else a
                # gemm a matrix), whose bits differ from a ?gemm per matrix on some shapes
                out = _mkl.batch_product(a, b) if type(b) is _ndarray else None
                if out is not None:  # (None without MKL or numba: NumPy's matmul)
                    return out
        return _half_matmul(a, b)

    def backward(self, grad):
        a, b = self.inputs
        need_a, need_b = self.needs_input_grad
        return (grad.bmm(b.mT) if need_a else None), (a.mT.bmm(grad) if need_b else None)

    jvp = Op.jvp_multilinear


def bmm(a, b):
    """bmm(a, b) -> Tensor

    Batched matrix product of ``(b, n, m)`` and ``(b, m, p)`` tensors, giving ``(b, n, p)``.

    Args:
        a (Tensor): the first batch of matrices, ``(b, n, m)``.
        b (Tensor): the second batch of matrices, ``(b, m, p)``.

    Example:
        >>> framework.bmm(framework.ones(2, 2, 3), framework.ones(2, 3, 4)).shape
        torch.Size([2, 2, 4])
    """
    if _amp_in_use[0] and _amp.active:
        a, b = _amp_cast("Bmm", a.device.type, a, b)
    if a.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if b.shape[0] != a.shape[0] or b.shape[1] != a.shape[2]:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: "
            f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, "
            f"{b.shape[1]}]."
        )
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(
            f"expected scalar type {scalar_type_name(a._data.dtype)} "
            f"but found {scalar_type_name(b._data.dtype)}"
        )
    return Bmm.apply(a, b)


_REAL = (int, float, bool)


class Addmm(Op):
    """beta * bias + alpha * (m1 @ m2) in one node (F.linear's primitive)."""

    saves_inputs = True
    saved_fields = {
        "alpha": "alpha",
        "beta": "beta",
        "mat1": "input1 if needs 2",
        "mat1_sym_sizes": "sizes1",
        "mat1_sym_strides": "strides1",
        "mat2": "input2 if needs 1",
        "mat2_sym_sizes": "sizes2",
        "mat2_sym_strides": "strides2",
    }
    saved_for = ((), (2,), (1,))

    def forward(self, bias, m1, m2, beta=1, alpha=1):
        if m1.size and m2.size:
            refuse(m1, "b", "addmm_impl_cpu_")
        elif m1.shape[1] == 0 and m1.shape[0] * m2.shape[1]:  # torch scales bias in place
            check_empty_sum_scale(bias.dtype, beta)
        if m1.dtype.kind in "biu":  # torch converts the Scalars to the integer type
            beta, alpha = int(beta), int(alpha)
        self.beta, self.alpha = beta, alpha
        half = m1.dtype if m1.dtype.itemsize == 2 and m1.dtype.kind in "fV" else None
        if half is not None:  # accumulate in float32, round once (torch's CPU kernel)
            m1, m2, bias = m1.astype("float32"), m2.astype("float32"), bias.astype("float32")
        dt = m1.dtype
        if (
            (dt is _F32 or dt is _F64)
            and _mkl.MM is not None
            and m1.shape[1]
            and m2.dtype is dt
            and bias.dtype is dt
            and type(m1) is _ndarray
            and type(m2) is _ndarray
            and type(alpha) in _REAL
            and type(beta) in _REAL
        ):  # torch's call (addmm_impl_cpu_): bias copied into the result, then one gemm
            out = _empty((m1.shape[0], m2.shape[1]), dt)
            if beta != 0:
                out[...] = bias
            f64 = dt is _F64
            if alpha == 1 and (beta == 1 or beta == 0):
                rec = (_mkl.REC_ADD if beta else _mkl.REC)[f64]
            else:
                rec = _mkl.record_at(dt.char, float(alpha), float(beta))
            _mkl.MM[f64](rec, m1, m2, out)
            return out
        big = m1.shape[0] * m2.shape[0] * m2.shape[1] >= _mkl.MIN_MACS
        if big and beta == 1 and alpha == 1 and half is None:
            out = _mkl.gemm(m1, m2, bias)  # MKL where installed: torch's call (bias copied
            if out is not None:  # into the result, added by the gemm with beta = 1)
                return out
        out = _dot(m1, m2)  # matrices: matmul's BLAS product without its gufunc setup
        if alpha != 1:
            out = (out * alpha).astype(out.dtype, copy=False)  # integer matrices stay integer
        if m1.shape[-1] == 0 and beta != 0:  # torch: beta * bias alone (a -0 stays -0)
            out = out.copy()  # a fresh C-ordered result, as the product's
            out[...] = bias if beta == 1 else beta * bias
        elif beta == 1 and bias.dtype == out.dtype and out.ndim == 2:
            out += bias  # out is fresh: no second result array
        elif beta != 0:  # torch ignores bias (even nan) when beta is 0
            out = (out + (bias if beta == 1 else beta * bias)).astype(out.dtype, copy=False)
        return out if half is None else out.astype(half)

    def backward(self, grad):
        _, m1, m2 = self.inputs
        need_b, need_1, need_2 = self.needs_input_grad
        grad_b = grad_1 = grad_2 = None
        if need_b:
            grad_b = _scaled(grad, self.beta)
        if self.alpha == 1 and plain(grad) and m1._data.dtype == grad._data.dtype:
            g = grad._data
            if need_b and self.beta == 1 and self._in_meta[0][0] == g.shape[1:]:  # a Linear's
                summed = torch_sum(g, (0,), True)  # bias: summed over the rows in torch's
                if summed is None:  # order (its sum_to_size), else NumPy's: the engine's
                    summed = self.xp.add.reduce(g, 0)  # reduction, one call
                grad_b = wrap(summed, grad)
            return (grad_b,) + _mm_grads(grad, m1._data, m2._data, need_1, need_2)
        if need_1:
            grad_1 = _mat1_grad(grad, m2, m1)
            grad_1 = _scaled(grad_1, self.alpha)
        if need_2:
            grad_2 = _mat2_grad(m1, grad, m2)
            grad_2 = _scaled(grad_2, self.alpha)
        return grad_b, grad_1, grad_2

    jvp = Op.jvp_multilinear
    additive = (0,)


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    r"""addmm(input, mat1, mat2, *, beta=1, alpha=1) -> Tensor

    Computes :math:`\beta\, \text{input} + \alpha\, (\text{mat1} @ \text{mat2})`.

    Args:
        input (Tensor): the matrix to be added, broadcastable to ``(n, p)``.
        mat1 (Tensor): the first matrix, ``(n, m)``.
        mat2 (Tensor): the second matrix, ``(m, p)``.
        beta (Number, optional): the multiplier for ``input``. Default: ``1``.
        alpha (Number, optional): the multiplier for ``mat1 @ mat2``. Default: ``1``.

    Example:
        >>> framework.addmm(framework.zeros(2, 2), framework.ones(2, 3), framework.ones(3, 2))
        tensor([[3., 3.],
                [3., 3.]])
    """
    if _amp_in_use[0] and _amp.active:  # autocast casts before torch's checks
        input, mat1, mat2 = _amp_cast("Addmm", mat1.device.type, input, mat1, mat2)
    a, b, c = mat1._data, mat2._data, input._data
    if (  # the common case (F.linear): checks on the arrays only
        a.ndim == 2
        and b.ndim == 2
        and a.shape[1] == b.shape[0]
        and a.dtype == b.dtype == c.dtype
        and (c.shape == (b.shape[1],) or c.shape == (a.shape[0], b.shape[1]))
    ):
        return Addmm.apply(input, mat1, mat2, beta=beta, alpha=alpha)
    if mat1.ndim != 2:
        raise RuntimeError(f"mat1 must be a matrix, got {mat1.ndim}-D tensor")
    if mat2.ndim != 2:
        raise RuntimeError(f"mat2 must be a matrix, got {mat2.ndim}-D tensor")
    for name, t in (("self", input), ("mat1", mat1)):  # torch's addmm meta, in its order
        if t._data.dtype != b.dtype:
            raise RuntimeError(
                f"{name} and mat2 must have the same dtype, but got "
                f"{scalar_type_name(t._data.dtype)} and {scalar_type_name(b.dtype)}"
            )
    if mat1.shape[1] != mat2.shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({mat1.shape[0]}x"
            f"{mat1.shape[1]} and {mat2.shape[0]}x{mat2.shape[1]})"
        )
    _expanded_shape(input, (mat1.shape[0], mat2.shape[1]))  # torch's broadcast error
    return Addmm.apply(input, mat1, mat2, beta=beta, alpha=alpha)


def linear(input, weight, bias=None):
    r"""Applies a linear transformation to the incoming data: :math:`y = xA^T + b`.

    Recorded as torch records it: one ``AddmmBackward0`` node for a 2-D input with a bias.
    See :class:`~framework.nn.Linear` for the module form.

    Args:
        input (Tensor): :math:`(*, \text{in\_features})`, any number of leading dimensions.
        weight (Tensor): :math:`A`, :math:`(\text{out\_features}, \text{in\_features})` or
            :math:`(\text{in\_features})`.
        bias (Tensor, optional): :math:`b`, :math:`(\text{out\_features})` or :math:`()` (default:
            None).

    Returns:
        Tensor: :math:`(*, \text{out\_features})`.

    Example:
        >>> x = framework.tensor([[1.0, 2.0]], requires_grad=True)
        >>> w = framework.tensor([[1.0, 0.0], [1.0, 1.0], [0.0, 2.0]])
        >>> F.linear(x, w, framework.ones(3))
        tensor([[2., 4., 5.]], grad_fn=<AddmmBackward0>)
    """
    if _amp_in_use[0] and _amp.active:
        input, weight, bias = _amp_cast("linear", input.device.type, input, weight, bias)
    if bias is None:
        return matmul(input, weight.t())
    if input.ndim == 2:
        return addmm(bias, input, weight.t())
    if input.ndim == 0:
        raise RuntimeError(
            f"both arguments to linear need to be at least 1D, but they are 0D and {weight.ndim}D"
        )
    lead = tuple(input.shape[:-1])
    out = addmm(bias, reshape(input, _lead(input), input.shape[-1]), weight.t())
    return reshape(out, lead + (weight.shape[0],))


def outer(a, b):
    """torch composes outer as a.reshape(-1, 1) * b (MulBackward0 over ViewBackward0).

    Args:
        a (Tensor): the first 1-D tensor.
        b (Tensor): the second 1-D tensor.

    Example:
        >>> framework.ger(framework.tensor([1.0, 2.0]), framework.tensor([3.0, 4.0]))
        tensor([[3., 4.],
                [6., 8.]])
    """
    if a.ndim != 1:
        raise RuntimeError(f"outer: Expected 1-D argument self, but got {a.ndim}-D")
    if b.ndim != 1:
        raise RuntimeError(f"outer: Expected 1-D argument vec2, but got {b.ndim}-D")
    return reshape(a, -1, 1) * b


ger = outer


def _broadcast_batch(sa, sb):
    """Broadcast two batch shapes with torch's error message."""
    return broadcast_shapes(sa, sb)


def _lead(x):
    """The product of all but the last dim (a -1 would be ambiguous for an empty last dim)."""
    return _prod(x.shape[:-1])


def _fold(big, small, transpose):
    """matmul of a >=3-D tensor with a 1-D/2-D one as a single mm/mv, as torch folds it."""
    if transpose:  # small @ big computed as (big.mT @ small.T).mT
        t1 = big.mT
        t2 = small.t() if small.ndim == 2 else small
    else:
        t1, t2 = big, small
    folded = reshape(t1, _lead(t1), t1.shape[-1])  # a view when the strides allow, else a copy
    shape = tuple(t1.shape[:-1]) + ((t2.shape[1],) if t2.ndim == 2 else ())
    out = _unsafe_view(folded.mm(t2) if t2.ndim == 2 else folded.mv(t2), shape)
    return out.mT.contiguous() if transpose and t2.ndim == 2 else out  # may copy (Clone)


def _should_fold(a, b):
    """torch's should_fold: a >=3-D times a 1-D/2-D tensor (either order) runs as one mm/mv
    when the small one requires grad, else unless the first is 2-D, when the big one (mT if
    second) is empty or folds into a matrix without a copy."""
    first = a.ndim >= b.ndim
    big, small = (a, b) if first else (b, a)
    if big.ndim < 3 or small.ndim > 2:
        return False
    if small._rg:
        return True
    if a.ndim == 2:
        return False
    if not big._data.size or (first and big._data.flags.c_contiguous):
        return True
    shape, st = list(big.shape), list(big.stride())
    if not first:  # the big one is b.mT
        shape[-2:], st[-2:] = shape[-2:][::-1], st[-2:][::-1]
    return all(st[i] == st[i + 1] * shape[i + 1] for i in range(big.ndim - 2))


def matmul(a, b):
    """torch.matmul's dispatch; it composes the same nodes torch records.

    Args:
        a (Tensor): the first tensor (1-D, 2-D or a batch).
        b (Tensor): the second tensor (1-D, 2-D or a batch).

    Example:
        >>> framework.matmul(framework.ones(2, 3), framework.ones(3)).shape
        torch.Size([2])
        >>> framework.matmul(framework.ones(5, 2, 3), framework.ones(3, 4)).shape
        torch.Size([5, 2, 4])
    """
    if _amp_in_use[0] and _amp.active:
        a, b = _amp_cast("matmul", a.device.type, a, b)
    else:  # two matrices of one dtype that multiply: mm's checks passed (one call less)
        da, db = a._data, b._data
        sa, sb = da.shape, db.shape
        if len(sa) == 2 and len(sb) == 2 and sa[1] == sb[0] and da.dtype is db.dtype:
            return _mm_apply(a, b)
    da, db = a._data.ndim, b._data.ndim
    if da == 0 or db == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {da}D and {db}D"
        )
    if da == 1 and db == 1:
        return dot(a, b)
    if da == 2 and db == 1:
        return mv(a, b)
    if da == 1 and db == 2:
        return _squeeze_inplace_dim(mm(a.unsqueeze(0), b), 0)
    if da == 2 and db == 2:
        return mm(a, b)
    if da == 3 and db == 3 and (a.shape[0] == 1) != (b.shape[0] == 1):
        # torch drops a lone batch of one that requires grad: the product folds into an mm
        if a.shape[0] == 1 and a._rg:
            a, da = a.squeeze(0), 2
        elif b.shape[0] == 1 and b._rg:
            b, db = b.squeeze(0), 2
    if _should_fold(a, b):
        return _fold(a, b, transpose=False) if da >= db else _fold(b, a, transpose=True)
    # batched: a 1-D a is a (1, m) matrix, a 1-D b an (m, 1) one (dropped from the result)
    n, m1 = a.shape[-2] if da > 1 else 1, a.shape[-1]
    m2, p = b.shape[-2] if db > 1 else b.shape[0], b.shape[-1] if db > 1 else 1
    batch = _broadcast_batch(a.shape[:-2], b.shape[:-2])
    count = _prod(batch)
    out_shape = batch + ((n,) if da > 1 else ()) + ((p,) if db > 1 else ())
    # a view when the batch was already full, else a copy (UnsafeView over Clone), as torch
    a3 = reshape(a.expand(batch + (n, m1)), (count, n, m1))
    if db == 1:
        b2 = reshape(b.expand(batch + (m2,)), (count, m2)).unsqueeze(2)
        return _unsafe_view(bmm(a3, b2).squeeze(-1), out_shape)
    b3 = reshape(b.expand(batch + (m2, p)), (count, m2, p))
    return _unsafe_view(bmm(a3, b3), out_shape)
