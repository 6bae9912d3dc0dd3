"""baddbmm, addbmm, addmv and addr: ``beta * input + alpha * (product)`` in one node each,
named as torch's (BaddbmmBackward0, ...). The backward is written with Tensor ops (bmm, mm,
outer), so second derivatives work; a broadcast `input` gets its gradient reduced by the
engine. As torch, beta == 0 ignores `input` entirely (even NaN) and the products of
bfloat16/float16 inputs accumulate in float32."""

from .._errors import check_empty_sum_scale, refuse
from ..amp.autocast_mode import cast as _amp_cast, state as _amp
from ..autograd.engine import is_zero_tensor
from ..autograd.op import Op
from ..dtypes import cpp_type_name, scalar_type_name
from .elementwise import MulScalar
from .shape import _dim, _expanded_shape
from ..backend import np as _np
from . import _mkl
from ._replay_jit import loops


_REAL = (int, float, bool)


def _combine(xp, bias, prod, beta, alpha):
    if alpha != 1:
        prod = (prod * alpha).astype(prod.dtype, copy=False)
    if beta == 0:
        return prod
    return (prod + (bias if beta == 1 else beta * bias)).astype(prod.dtype, copy=False)


def _scaled(t, k):
    """torch's maybe_multiply: t, or t * k by the Scalar overload (MulBackward1)."""
    return t if k == 1 else MulScalar.apply(t, other=k)


class _AddProduct(Op):
    saves_inputs = True
    saved_fields = {"alpha": "alpha", "beta": "beta"}
    kernel = None  # torch's kernel name in its bool refusal (None: bool is computed)

    def forward(self, bias, a, b, beta=1, alpha=1):
        if self.kernel is not None and a.size and b.size:
            refuse(a, "b", self.kernel)
        for scale in self.empty_sum_scales(a, b, beta):
            check_empty_sum_scale(bias.dtype, scale)
        if a.dtype.kind in "iu":  # torch converts the Scalars to the integer type
            beta, alpha = int(beta), int(alpha)
        self.beta, self.alpha = beta, alpha
        half = a.dtype if a.dtype.itemsize == 2 and a.dtype.kind in "fV" else None
        if half is not None:
            a, b = a.astype("float32"), b.astype("float32")
        out = _combine(self.xp, bias, self.product(a, b), beta, alpha)
        return out if half is None else out.astype(half)

    jvp = Op.jvp_multilinear
    additive = (0,)

    def empty_sum(self, a, b):
        """Whether the product sums over nothing into a non-empty result."""
        return False

    def empty_sum_scales(self, a, b, beta):
        """The scales torch multiplies `input` by in place when the product sums over nothing
        (its `result.mul_(beta)`)."""
        return (beta,) if self.empty_sum(a, b) else ()


class Baddbmm(_AddProduct):
    kernel = "baddbmm"
    saved_fields = dict(
        _AddProduct.saved_fields, batch1="input1 if needs 2", batch2="input2 if needs 1"
    )

    def product(self, a, b):
        """a @ b; below 400 multiply-adds a matrix of float32/float64 NumPy batches torch's
        baddbmm_cpu_kernel sums each entry from 0 over k in order (`_replay_jit.small_bmm`;
        the combination with alpha, beta and the input rounds as `_combine`)."""
        if (
            a.ndim == 3
            and b.ndim == 3
            and a.size
            and b.size
            and a.shape[1] * a.shape[2] * b.shape[2] < 400
            and a.dtype.char in "fd"
            and b.dtype == a.dtype
            and type(a) is _np.ndarray
            and type(b) is _np.ndarray
        ):
            k = loops()
            if k is not None:
                out = _np.empty((a.shape[0], a.shape[1], b.shape[2]), a.dtype)
                k.small_bmm(a, b, out)
                return out
        return self.xp.matmul(a, b)

    def forward(self, bias, a, b, beta=1, alpha=1):
        """beta * bias + alpha * (a @ b) of batches: from 400 multiply-adds a matrix of
        float32/float64 (MKL loaded) torch's call (bias copied into the result unless beta is
        0, then one cblas_?gemm_batch with alpha and beta: `_mkl.batch_product`), else the
        shared product and combination."""
        dt = a.dtype
        if (
            a.size
            and b.size
            and dt.kind == "f"
            and dt.itemsize in (4, 8)
            and b.dtype == dt
            and bias.dtype == dt
            and a.ndim == 3
            and b.ndim == 3
            and type(a) is _np.ndarray
            and type(b) is _np.ndarray
            and type(alpha) in _REAL
            and type(beta) in _REAL
            and a.shape[1] * a.shape[2] * b.shape[2] >= 400
        ):
            out = _mkl.batch_product(a, b, bias, alpha, beta)
            if out is not None:
                self.beta, self.alpha = beta, alpha
                return out
        return super().forward(bias, a, b, beta, alpha)

    def empty_sum(self, a, b):
        """Whether the batched product sums over an empty dimension into a non-empty result."""
        return a.shape[2] == 0 and a.shape[0] * a.shape[1] * b.shape[2] > 0

    def backward(self, grad):
        _, b1, b2 = self.inputs
        need_i, need_1, need_2 = self.needs_input_grad
        return (
            _scaled(grad, self.beta) if need_i else None,
            _scaled(grad.bmm(b2.transpose(1, 2)), self.alpha) if need_1 else None,
            _scaled(b1.transpose(1, 2).bmm(grad), self.alpha) if need_2 else None,
        )


class Addbmm(_AddProduct):
    kernel = "addmm_impl_cpu_"
    saved_fields = dict(
        _AddProduct.saved_fields, batch1="input1 if needs 2", batch2="input2 if needs 1"
    )

    def product(self, a, b):
        return self.xp.matmul(a, b).sum(-3, dtype=a.dtype)

    def empty_sum_scales(self, a, b, beta):
        """torch's addbmm: no batches scales `input` by beta (even an empty result); an empty
        inner dimension runs addmm_ per batch on a non-empty result, which scales by beta, then
        by 1 for each later batch (a bool result refuses that integer 1 even when beta is 0)."""
        if a.shape[0] == 0:
            return (beta,)
        if a.shape[2] == 0 and a.shape[1] * b.shape[2] > 0:
            return (beta, 1) if a.shape[0] > 1 else (beta,)
        return ()

    def backward(self, grad):
        _, b1, b2 = self.inputs
        need_i, need_1, need_2 = self.needs_input_grad
        g = grad.unsqueeze(0).expand(b1.shape[0], *grad.shape)
        return (
            _scaled(grad, self.beta) if need_i else None,
            _scaled(g.bmm(b2.transpose(1, 2)), self.alpha) if need_1 else None,
            _scaled(b1.transpose(1, 2).bmm(g), self.alpha) if need_2 else None,
        )


class Addmv(_AddProduct):
    kernel = "addmv_impl_cpu"
    saved_fields = dict(_AddProduct.saved_fields, mat="input1 if needs 2", vec="input2 if needs 1")

    def product(self, a, b):
        return self.xp.matmul(a, b[..., None])[..., 0]

    def forward(self, bias, a, b, beta=1, alpha=1):
        """beta * bias + alpha * (a @ b) of an (n, m) matrix and an (m,) vector: one MKL
        ?gemv where torch makes that call (float32/float64, MKL loaded), else the shared
        product and combination."""
        dt = a.dtype
        if a.size and b.size and dt.kind == "f" and dt.itemsize in (4, 8) and b.dtype == dt:
            plain = a.ndim == 2 and b.ndim == 1 and bias.ndim <= 1  # (vmap batches: matmul)
            if plain and bias.dtype == dt and self.xp is _np and _mkl.available():
                # torch's addmv_impl_cpu: input copied into the result, then one ?gemv with
                # alpha and beta (MKL scales and adds in its own order)
                self.beta, self.alpha = beta, alpha
                y = (
                    _np.zeros(a.shape[0], dt)
                    if beta == 0
                    else _np.array(_np.broadcast_to(bias, (a.shape[0],)), dt, order="C")
                )
                return _mkl.gemv(a, b, alpha, beta, y)
        return super().forward(bias, a, b, beta, alpha)

    def backward(self, grad):
        _, m, v = self.inputs
        need_i, need_m, need_v = self.needs_input_grad
        return (
            _scaled(grad, self.beta) if need_i else None,
            _scaled(
                grad.outer(v if not is_zero_tensor(grad) else v.new_zeros(tuple(v.shape))),
                self.alpha,
            )
            if need_m
            else None,
            _scaled(m.t().mv(grad), self.alpha) if need_v else None,
        )


class Addr(_AddProduct):
    promote = True  # torch's addr promotes mixed dtypes (the other three refuse them)
    saved_fields = dict(
        _AddProduct.saved_fields, vec1="input1 if needs 2", vec2="input2 if needs 1"
    )

    def product(self, a, b):
        return a[..., :, None] * b[..., None, :]

    def backward(self, grad):
        _, v1, v2 = self.inputs
        need_i, need_1, need_2 = self.needs_input_grad
        return (
            _scaled(grad, self.beta) if need_i else None,
            _scaled(grad.mv(v2), self.alpha) if need_1 else None,
            _scaled(grad.t().mv(v1), self.alpha) if need_2 else None,
        )


def _same_dtype(*ts):
    for t in ts[1:]:
        if t._data.dtype != ts[0]._data.dtype:
            raise RuntimeError(
                f"expected scalar type {scalar_type_name(ts[0]._data.dtype)} but found "
                f"{scalar_type_name(t._data.dtype)}"
            )


def _batches(batch1, batch2):
    for name, t in (("batch1", batch1), ("batch2", batch2)):
        if t.dim() != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    b, n, m = batch1.shape
    if tuple(batch2.shape[:2]) != (b, m):
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: "
            f"[{b}, {m}] but got: [{batch2.shape[0]}, {batch2.shape[1]}]."
        )
    return b, n, batch2.shape[2]


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * (batch1 @ batch2)`` over a batch of matrices.

    Args:
        input: broadcastable to (b, n, p).
        batch1, batch2: (b, n, m) and (b, m, p).
        beta, alpha: scalars (beta = 0 ignores input, NaN included).

    Example:
        >>> framework.baddbmm(framework.zeros(1, 2, 2), framework.ones(1, 2, 3),
        ...                   framework.ones(1, 3, 2)).shape
        torch.Size([1, 2, 2])
    """
    if _amp.active:  # autocast casts before torch's checks
        input, batch1, batch2 = _amp_cast("Baddbmm", input.device.type, input, batch1, batch2)
    # torch's meta expands input to (batch1.size(0), batch1.size(1), batch2.size(2)) first
    sizes = [t.shape[_dim(d, t.dim())] for t, d in ((batch1, 0), (batch1, 1), (batch2, 2))]
    _expanded_shape(input, tuple(sizes))
    if input._data.dtype != batch1._data.dtype:
        raise RuntimeError(
            f"Input dtypes must be the same, got: input {cpp_type_name(input._data.dtype)}, "
            f"batch1: {cpp_type_name(batch1._data.dtype)}, "
            f"batch2: {cpp_type_name(batch2._data.dtype)}"
        )
    _batches(batch1, batch2)
    _same_dtype(input, batch1, batch2)  # batch2's, in the kernel
    return Baddbmm.apply(input, batch1, batch2, beta=beta, alpha=alpha)


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * sum_i(batch1[i] @ batch2[i])``.

    Args:
        input (Tensor): the matrix to be added, broadcastable to ``(n, p)``.
        batch1 (Tensor): the first batch of matrices, ``(b, n, m)``.
        batch2 (Tensor): the second batch of matrices, ``(b, m, p)``.
        beta (Number, optional): the multiplier for ``input``. Default: ``1``.
        alpha (Number, optional): the multiplier for the sum of products. Default: ``1``.

    Example:
        >>> framework.addbmm(framework.zeros(2, 2), framework.ones(3, 2, 4),
        ...                  framework.ones(3, 4, 2))
        tensor([[12., 12.],
                [12., 12.]])
    """
    if _amp.active:
        input, batch1, batch2 = _amp_cast("Addbmm", input.device.type, input, batch1, batch2)
    if batch1.dim() != 3 or batch2.dim() != 3:
        raise RuntimeError("batch1 and batch2 must be 3D tensors")
    if batch1.shape[0] != batch2.shape[0] or batch1.shape[2] != batch2.shape[1]:
        raise RuntimeError(
            f"Incompatible matrix sizes for bmm ({batch1.shape[1]}x"
            f"{batch1.shape[2]} and {batch2.shape[1]}x{batch2.shape[2]})"
        )
    _expanded_shape(input, (batch1.shape[1], batch2.shape[2]))
    _same_dtype(input, batch1, batch2)
    return Addbmm.apply(input, batch1, batch2, beta=beta, alpha=alpha)


def addmv(input, mat, vec, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat @ vec)``.

    Args:
        input (Tensor): the vector to be added, broadcastable to ``(n,)``.
        mat (Tensor): the matrix, ``(n, m)``.
        vec (Tensor): the vector, ``(m,)``.
        beta (Number, optional): the multiplier for ``input``. Default: ``1``.
        alpha (Number, optional): the multiplier for ``mat @ vec``. Default: ``1``.

    Example:
        >>> framework.addmv(framework.ones(2), framework.ones(2, 3), framework.ones(3))
        tensor([4., 4.])
    """
    if mat.dim() != 2 or vec.dim() != 1 or input.dim() > 1:
        raise RuntimeError(
            f"vector + matrix @ vector expected, got {input.dim()}, {mat.dim()}, {vec.dim()}"
        )
    if mat.shape[1] != vec.shape[0] or (input.dim() and input.shape[-1] not in (1, mat.shape[0])):
        if input.dim() == 0:  # torch's message asks a 0-dim input for its size(0)
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        raise RuntimeError(
            f"size mismatch, got input ({', '.join(map(str, input.shape))}), "
            f"mat ({'x'.join(map(str, mat.shape))}), vec "
            f"({', '.join(map(str, vec.shape))})"
        )
    if not (input._data.dtype == mat._data.dtype == vec._data.dtype):
        raise RuntimeError(
            "addmv input tensors must have the same dtype, but got "
            f"{scalar_type_name(input._data.dtype)}, {scalar_type_name(mat._data.dtype)}, and "
            f"{scalar_type_name(vec._data.dtype)}"
        )
    return Addmv.apply(input, mat, vec, beta=beta, alpha=alpha)


def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """``beta * input + alpha * outer(vec1, vec2)``.

    Args:
        input (Tensor): the matrix to be added, broadcastable to ``(n, m)``.
        vec1 (Tensor): the first vector of the outer product, ``(n,)``.
        vec2 (Tensor): the second vector of the outer product, ``(m,)``.
        beta (Number, optional): the multiplier for ``input``. Default: ``1``.
        alpha (Number, optional): the multiplier for the outer product. Default: ``1``.

    Example:
        >>> framework.addr(framework.zeros(2, 2), framework.ones(2), framework.ones(2))
        tensor([[1., 1.],
                [1., 1.]])
    """
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        if v.dim() != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v.dim()}-D")
    _expanded_shape(input, (vec1.shape[0], vec2.shape[0]))
    _same_dtype(input, vec1, vec2)
    kind = vec1._data.dtype.kind
    for name, v in (("beta", beta), ("alpha", alpha)):
        if isinstance(v, bool) and kind != "b":
            raise RuntimeError(f"Boolean {name} only supported for Boolean results.")
        if kind in "biu" and not isinstance(v, int):
            raise RuntimeError(
                f"For integral input tensors, argument {name} must not be a floating point number."
            )
    return Addr.apply(input, vec1, vec2, beta=beta, alpha=alpha)


__all__ = ["baddbmm", "addbmm", "addmv", "addr"]
