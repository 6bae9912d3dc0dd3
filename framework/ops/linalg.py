"""Matrix products: mm, mv, dot, bmm, matmul, addmm (linear)."""
from ..autograd.op import Op
from ..tensor import Tensor


def _check_dtypes(a, b, what):
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{_name(a.dtype)} != {_name(b.dtype)}")


def _name(dt):
    from ..dtypes import from_numpy_dtype
    return {"float32": "float", "float64": "double", "int64": "long", "int32": "int"}.get(
        dt.name, dt.name)


class Mm(Op):
    saves_inputs = True

    def forward(self, a, b):
        if a.ndim != 2 or b.ndim != 2:
            raise RuntimeError(f"{'self' if a.ndim != 2 else 'mat2'} must be a matrix")
        if a.shape[1] != b.shape[0]:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x"
                               f"{a.shape[1]} and {b.shape[0]}x{b.shape[1]})")
        _check_dtypes(a, b, "mm")
        return a @ b

    def backward(self, grad):
        a, b = self.inputs
        need_a, need_b = self.needs_input_grad
        return (grad.mm(b.t()) if need_a else None), (a.t().mm(grad) if need_b else None)


def mm(a, b):
    return Mm.apply(a, b)


class Mv(Op):
    saves_inputs = True

    def forward(self, a, v):
        if a.ndim != 2 or v.ndim != 1:
            raise RuntimeError(f"vector + matrix @ vector expected, got {v.ndim}, {a.ndim}, {v.ndim}")
        if a.shape[1] != v.shape[0]:
            raise RuntimeError(f"size mismatch, got input ({a.shape[0]}), mat ({a.shape[0]}x"
                               f"{a.shape[1]}), vec ({v.shape[0]})")
        _check_dtypes(a, v, "mv")
        return a @ v

    def backward(self, grad):
        a, v = self.inputs
        need_a, need_v = self.needs_input_grad
        grad_a = grad.unsqueeze(1).mm(v.unsqueeze(0)) if need_a else None  # outer product
        grad_v = a.t().mv(grad) if need_v else None
        return grad_a, grad_v


def mv(a, v):
    return Mv.apply(a, v)


class Dot(Op):
    saves_inputs = True

    def forward(self, a, b):
        if a.ndim != 1 or b.ndim != 1:
            raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
        if a.shape[0] != b.shape[0]:
            raise RuntimeError("inconsistent tensor size, expected tensor [{}] and src [{}] to "
                               "have the same number of elements, but got {} and {} elements "
                               "respectively".format(a.shape[0], b.shape[0], a.shape[0], b.shape[0]))
        if a.dtype != b.dtype:
            raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                               f"{_title(a.dtype)} and {_title(b.dtype)}")
        return self.xp.dot(a, b)

    def backward(self, grad):
        a, b = self.inputs
        need_a, need_b = self.needs_input_grad
        return (grad * b if need_a else None), (grad * a if need_b else None)


def _title(dt):
    return {"float32": "Float", "float64": "Double", "int64": "Long"}.get(dt.name, dt.name)


def dot(a, b):
    return Dot.apply(a, b)


def matmul(a, b):
    """torch.matmul's dispatch over 1-D, 2-D and batched operands."""
    if a.ndim == 0 or b.ndim == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                           f"{a.ndim}D and {b.ndim}D")
    if a.ndim == 1 and b.ndim == 1:
        return dot(a, b)
    if a.ndim == 2 and b.ndim == 1:
        return mv(a, b)
    if a.ndim == 1 and b.ndim == 2:
        if a.shape[0] != b.shape[0]:
            raise RuntimeError(f"size mismatch, got input ({b.shape[1]}), mat ({b.shape[1]}x"
                               f"{b.shape[0]}), vec ({a.shape[0]})")
        return mm(a.unsqueeze(0), b).squeeze(0)
    if a.ndim == 2 and b.ndim == 2:
        return mm(a, b)
    return BatchedMatmul.apply(a, b)


class BatchedMatmul(Op):
    """matmul with at least one operand of 3+ dims (broadcast batch dims)."""
    saves_inputs = True

    def forward(self, a, b):
        if a.shape[-1] != b.shape[-2 if b.ndim > 1 else 0]:
            raise RuntimeError(
                f"Expected size for first two dimensions of batch2 tensor to be: "
                f"[{a.shape[0]}, {a.shape[-1]}] but got: [{b.shape[0]}, {b.shape[-2 if b.ndim > 1 else 0]}].")
        self.a1, self.b1 = a.ndim == 1, b.ndim == 1
        return self.xp.matmul(a, b)

    def backward(self, grad):
        a, b = self.inputs
        need_a, need_b = self.needs_input_grad
        a2 = a.unsqueeze(0) if self.a1 else a
        b2 = b.unsqueeze(-1) if self.b1 else b
        g = grad.unsqueeze(-2) if self.a1 else grad
        g = g.unsqueeze(-1) if self.b1 else g
        grad_a = grad_b = None
        if need_a:
            grad_a = g.matmul(b2.transpose(-1, -2)).sum_to_size(a2.shape)
            grad_a = grad_a.squeeze(0) if self.a1 else grad_a
        if need_b:
            grad_b = a2.transpose(-1, -2).matmul(g).sum_to_size(b2.shape)
            grad_b = grad_b.squeeze(-1) if self.b1 else grad_b
        return grad_a, grad_b

    def name(self):
        return "UnsafeViewBackward0"
