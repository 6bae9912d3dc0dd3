"""F.scaled_dot_product_attention and F.multi_head_attention_forward, as torch composes them."""

from ..amp.autocast_mode import entry as _amp_entry
import functools
import math
import warnings


from .._errors import check_scalar_fits, overflow_error
from ..creation import zeros
from ..dtypes import cpp_type_name
from ..ops.attention import ScaledDotProductFlashAttentionForCpu
from ..ops.activation import SafeSoftmax, softmax
from ..ops.elementwise import MulScalar
from ..ops.join import cat
from ..ops._mkl_linear import linear_mkl as _linear
from ..ops.batch_products import baddbmm
from ..ops.linalg import bmm, matmul
from ..autograd.grad_mode import is_grad_enabled
from ..tensor import Tensor
from .dropout import dropout
from ._sdp_backend import SDPBackend, sdpa_kernel  # noqa: F401 (torch.nn.attention's names)
from ..backends import _sdp


def _word(t):
    return cpp_type_name(t._data.dtype)


def _check(query, key, value, attn_mask):
    qd = query.dtype
    if not (qd == key.dtype == value.dtype):
        raise RuntimeError(
            "Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{_word(query)} key.dtype: {_word(key)} and value.dtype: {_word(value)} instead."
        )
    if min(query.dim(), key.dim(), value.dim()) < 2:
        raise RuntimeError(
            "Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: "
            f"{query.dim()} key.dim: {key.dim()} and value.dim: {value.dim()} instead."
        )
    if (
        attn_mask is not None
        and attn_mask.dtype.np.name not in ("bool", "float32")
        and attn_mask.dtype != qd
    ):
        raise RuntimeError(
            "Expected attn_mask dtype to be bool or float or to match query dtype, but got "
            f"attn_mask.dtype: {_word(attn_mask)} and  query.dtype: {_word(query)} instead."
        )


def _empty(query, key, value):
    """torch's answer when the output or the keys are empty (no backend runs, any dtype):
    zeros(*query.shape[:-1], Ev) + (q.sum() + k.sum() + v.sum()) * 0, so every input stays in
    the graph (and an inf or NaN input makes the output NaN)."""
    if math.prod(query.shape[:-1]) * value.shape[-1] and value.numel():
        return None
    total = MulScalar.apply(query.sum() + key.sum() + value.sum(), other=0)
    return zeros(*query.shape[:-1], value.shape[-1], dtype=query.dtype) + total


def _refuse_integers(query, key, value, attn_mask):
    """torch's math path on integer inputs: a bool mask's -inf does not fit the dtype, else
    the scores are float (q * sqrt(scale)) and the last matmul with value refuses."""
    qd = query._data.dtype
    if qd.kind in "iub":
        if attn_mask is not None and attn_mask.dtype.np.name == "bool" and qd.kind != "b":
            raise overflow_error(qd)
        matmul(zeros(*query.shape[:-1], key.shape[-2]), value)  # raises torch's error


def _additive(mask, xp, dtype):
    """A bool mask (True = attend) as 0 / -inf of dtype; a float mask unchanged."""
    if mask.dtype == xp.bool_:
        return xp.where(mask, 0.0, -math.inf).astype(dtype)
    return mask


def _flash_ok(query, key, value, attn_mask, dropout_p):
    """The inputs torch 2.13 sends to its fused CPU kernel (else the math composition)."""
    if dropout_p > 0.0 or not (query.dim() == key.dim() == value.dim() == 4):
        return False
    if attn_mask is not None and attn_mask.dim() not in (2, 4):
        return False
    if attn_mask is not None and attn_mask.requires_grad and is_grad_enabled():
        return False  # torch's math path then (the fused kernel gives the mask no gradient)
    q, k, v = query.shape, key.shape, value.shape
    return (
        q[0] == k[0] == v[0]
        and q[1] == k[1] == v[1]
        and q[3] == k[3] == v[3]
        and q[2] > 0
        and k[2] > 0
    )


@_amp_entry("scaled_dot_product_attention")
def scaled_dot_product_attention(
    query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False
):
    r"""Attention softmax(Q K^T * scale + mask) V over the last two dims.

    Args:
        query (Tensor): :math:`(..., L, E)`.
        key (Tensor): :math:`(..., S, E)`.
        value (Tensor): :math:`(..., S, E_v)`.
        attn_mask (Tensor, optional): broadcastable to :math:`(..., L, S)`: bool (True = may attend)
            or a float mask added to the scores (default: None).
        dropout_p (float, optional): dropout probability on the attention weights; applied whenever
            it is non-zero, as in torch (default: 0.0).
        is_causal (bool, optional): mask out the keys after each query (a top-left aligned lower
            triangle); exclusive with ``attn_mask`` (default: False).
        scale (float, optional): the factor on the scores (default: None, :math:`1/\sqrt{E}`).
        enable_gqa (bool, optional): let key/value have fewer heads than query (grouped-query
            attention: they are repeated to match) (default: False).

    Returns:
        (..., L, Ev). 4-D inputs without dropout run one fused node
        (ScaledDotProductFlashAttentionForCpuBackward0), as torch's CPU kernel does.

    Example:
        >>> q = framework.ones(1, 1, 2, 4)
        >>> F.scaled_dot_product_attention(q, q, q).shape
        torch.Size([1, 1, 2, 4])
    """
    _check(query, key, value, attn_mask)
    empty = _empty(query, key, value)
    if empty is not None:
        return empty
    _refuse_integers(query, key, value, attn_mask)
    L, S, E = query.shape[-2], key.shape[-2], query.shape[-1]
    scale_arg, scale = (
        scale,
        (1.0 / math.sqrt(E) if E else math.inf) if scale is None else float(scale),
    )
    if enable_gqa and query.dim() >= 3 and key.shape[-3] != query.shape[-3]:
        rep = query.shape[-3] // key.shape[-3]
        key = _repeat_heads(key, rep)
        value = _repeat_heads(value, rep)
    xp = query.xp
    mask = None if attn_mask is None else _additive(attn_mask._data, xp, query._data.dtype)
    if _sdp["flash"] and _flash_ok(query, key, value, attn_mask, dropout_p):
        if is_causal:
            causal = _causal_mask(xp, query.device, L, S, query._data.dtype, mask is None)
            given, mask = mask, causal if mask is None else mask + causal
        else:
            given = mask
        return ScaledDotProductFlashAttentionForCpu.apply(
            query,
            key,
            value,
            mask=mask,
            scale=scale,
            attn_mask=given,
            is_causal=bool(is_causal),
            scale_arg=None if scale_arg is None else float(scale_arg),
        )
    if not _sdp["math"]:
        raise RuntimeError(
            "No viable backend for scaled_dot_product_attention was found. This is likely due "
            "to turning off both the math kernel and the fused kernels."
        )
    if is_causal and attn_mask is not None:
        raise RuntimeError(
            "_scaled_dot_product_attention: Explicit attn_mask should not be set "
            "when is_causal=True"
        )
    return _math_attention(query, key, value, attn_mask, mask, dropout_p, is_causal, scale)


@functools.lru_cache(maxsize=64)
def _causal_mask(xp, device, L, S, dtype, alone):
    """The additive (L, S) causal mask of the flash path, read-only and cached (a training
    loop asks for the same one every step). Alone it can be finite: the lowest float / 2 still
    gives exp(...) = 0 after the shift, every row keeps key 0, and NumPy's exp is slower on
    -inf; combined with a user mask it stays -inf (rows may be fully masked)."""
    low = float(xp.finfo(dtype).min) / 2 if alone and dtype.kind == "f" else -math.inf
    mask = xp.where(xp.tril(xp.ones((L, S), dtype=bool)), 0.0, low).astype(dtype)
    if hasattr(mask.flags, "writeable"):  # (CuPy arrays have no read-only flag)
        mask.flags.writeable = False
    return mask


def _repeat_heads(x, rep):
    shape = tuple(x.shape)
    x = x.unsqueeze(-3).expand(shape[:-2] + (rep,) + shape[-2:])
    return x.reshape(shape[:-3] + (shape[-3] * rep,) + shape[-2:])


def _math_attention(query, key, value, attn_mask, mask, dropout_p, is_causal, scale):
    """torch's _scaled_dot_product_attention_math: sqrt(scale) on q and k, add mask, safe
    softmax, dropout, matmul; float16/bfloat16 inputs are computed in float32 and the result
    cast back, as torch keeps them "in high precision for accuracy"."""
    origin = query.dtype
    if origin.name in ("float16", "bfloat16"):
        query, key, value = query.float(), key.float(), value.float()
        out = _math_attention(query, key, value, attn_mask, mask, dropout_p, is_causal, scale)
        return out.to(origin)
    xp = query.xp
    L, S = query.shape[-2], key.shape[-2]
    s = math.sqrt(abs(scale))
    q = MulScalar.apply(query, other=-s if scale < 0 else s)  # torch's mul.Scalar: MulBackward1
    if is_causal:
        mask = xp.where(xp.tril(xp.ones((L, S), dtype=bool)), 0.0, -math.inf).astype(
            query._data.dtype
        )
        attn_mask = mask
    attn = matmul(q, MulScalar.apply(key.transpose(-2, -1), other=s))
    if attn_mask is not None:
        m = (
            attn_mask
            if isinstance(attn_mask, Tensor) and attn_mask.dtype.is_floating_point
            else Tensor._make(mask, query.device)
        )
        attn = attn + m
    p = SafeSoftmax.apply(attn, dim=-1)  # rows with every key masked give zeros
    if dropout_p > 0.0:
        p = dropout(p, dropout_p, training=True)
    return matmul(p, value)


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    """torch's checks; returns whether the input is batched (3-D query)."""
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                f"{key.dim()}-D and {value.dim()}-D tensors respectively"
            )
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but "
                f"found {key_padding_mask.dim()}-D tensor instead"
            )
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError(
                "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                f"found {attn_mask.dim()}-D tensor instead"
            )
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                f"{key.dim()}-D and {value.dim()}-D tensors respectively"
            )
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but "
                f"found {key_padding_mask.dim()}-D tensor instead"
            )
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError(
                    "For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
                    f"but found {attn_mask.dim()}-D tensor instead"
                )
            expected = (num_heads, query.shape[0], key.shape[0])
            if attn_mask.dim() == 3 and tuple(attn_mask.shape) != expected:
                raise AssertionError(
                    f"Expected `attn_mask` shape to be {expected} but got {attn_mask.shape}"
                )
        return False
    raise AssertionError(
        "query should be unbatched 2D or batched 3D tensor but received "
        f"{query.dim()}-D query tensor"
    )


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """A bool mask becomes 0 / -inf of target_type; float masks pass through."""
    if mask is None:
        return None
    if mask.dtype.np.name != "bool" and not mask.dtype.is_floating_point:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(
            f"Support for mismatched {mask_name} and {other_name} is deprecated. Use "
            "same type for both instead.",
            stacklevel=3,
        )
    if mask.dtype.is_floating_point:
        return mask
    check_scalar_fits(-math.inf, target_type.np)  # torch's masked_fill_(mask, -inf)
    xp = mask.xp  # True marks a position that may NOT be attended (the opposite of SDPA)
    return Tensor._make(xp.where(mask._data, -math.inf, 0.0).astype(target_type.np), mask.device)


def _pad_last(mask):
    return cat(
        [mask, zeros(tuple(mask.shape[:-1]) + (1,), dtype=mask.dtype, device=mask.device)], -1
    )


def _in_projection(query, key, value, w, b, separate):
    """q, k, v projections from one packed (3E, E) weight or three separate ones."""
    E = query.shape[-1]
    if separate is not None:
        w_q, w_k, w_v = separate
        for name, wt, want in (
            ("query", w_q, (E, E)),
            ("key", w_k, (E, key.shape[-1])),
            ("value", w_v, (E, value.shape[-1])),
        ):
            if tuple(wt.shape) != want:
                raise AssertionError(
                    f"expecting {name} weights shape of {want}, but got {wt.shape}"
                )
        b_q, b_k, b_v = b.chunk(3) if b is not None else (None, None, None)
        return _linear(query, w_q, b_q), _linear(key, w_k, b_k), _linear(value, w_v, b_v)
    if key is value and query is key:
        proj = _linear(query, w, b).unflatten(-1, (3, E)).unsqueeze(0).transpose(0, -2)
        proj = proj.squeeze(-2).contiguous()
        return proj[0], proj[1], proj[2]
    if key is value:
        w_q, w_kv = w.split([E, E * 2])
        b_q, b_kv = b.split([E, E * 2]) if b is not None else (None, None)
        kv = _linear(key, w_kv, b_kv).unflatten(-1, (2, E)).unsqueeze(0).transpose(0, -2)
        kv = kv.squeeze(-2).contiguous()
        return _linear(query, w_q, b_q), kv[0], kv[1]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = b.chunk(3) if b is not None else (None, None, None)
    return _linear(query, w_q, b_q), _linear(key, w_k, b_k), _linear(value, w_v, b_v)


def multi_head_attention_forward(
    query,
    key,
    value,
    embed_dim_to_check,
    num_heads,
    in_proj_weight,
    in_proj_bias,
    bias_k,
    bias_v,
    add_zero_attn,
    dropout_p,
    out_proj_weight,
    out_proj_bias,
    training=True,
    key_padding_mask=None,
    need_weights=True,
    attn_mask=None,
    use_separate_proj_weight=False,
    q_proj_weight=None,
    k_proj_weight=None,
    v_proj_weight=None,
    static_k=None,
    static_v=None,
    average_attn_weights=True,
    is_causal=False,
):
    r"""Multi-head attention on sequence-first inputs, step for step as torch computes it.

    Args:
        query (Tensor): :math:`(L, N, E)` or unbatched :math:`(L, E)`.
        key (Tensor): :math:`(S, N, E_k)` or :math:`(S, E_k)`.
        value (Tensor): :math:`(S, N, E_v)` or :math:`(S, E_v)`.
        embed_dim_to_check (int): the model dimension :math:`E`, checked against ``query``.
        num_heads (int): the number of heads; divides :math:`E`.
        in_proj_weight (Tensor): the packed q, k, v projections, :math:`(3E, E)` (None with
            ``use_separate_proj_weight``).
        in_proj_bias (Tensor): the packed q, k, v biases, :math:`(3E)`, or None.
        bias_k (Tensor): a bias appended to the keys, :math:`(1, 1, E)`, or None.
        bias_v (Tensor): a bias appended to the values, :math:`(1, 1, E)`, or None.
        add_zero_attn (bool): append a batch of zeros to the keys and values.
        dropout_p (float): dropout probability on the attention weights (in training).
        out_proj_weight (Tensor): the output projection, :math:`(E, E)`.
        out_proj_bias (Tensor): the output projection's bias, :math:`(E)`, or None.
        training (bool, optional): apply dropout (default: True).
        key_padding_mask (Tensor, optional): :math:`(N, S)`: bool (True = ignore that key) or a
            float mask added to the scores (default: None).
        need_weights (bool, optional): also return the attention weights (computed explicitly);
            otherwise the heads run through :func:`scaled_dot_product_attention` (default: True).
        attn_mask (Tensor, optional): :math:`(L, S)` or :math:`(N \cdot \text{num\_heads}, L, S)`:
            bool (True = not allowed) or a float mask added to the scores (default: None).
        use_separate_proj_weight (bool, optional): use ``q_proj_weight``, ``k_proj_weight`` and
            ``v_proj_weight`` instead of ``in_proj_weight`` (default: False).
        q_proj_weight (Tensor, optional): the query projection, :math:`(E, E)` (default: None).
        k_proj_weight (Tensor, optional): the key projection, :math:`(E, E_k)` (default: None).
        v_proj_weight (Tensor, optional): the value projection, :math:`(E, E_v)` (default: None).
        static_k (Tensor, optional): precomputed projected keys, :math:`(N \cdot \text{num\_heads},
            S, E / \text{num\_heads})` (default: None).
        static_v (Tensor, optional): precomputed projected values, of the same layout (default:
            None).
        average_attn_weights (bool, optional): average the returned weights over the heads (default:
            True).
        is_causal (bool, optional): a hint that ``attn_mask`` is the causal mask (default: False).

    Returns:
        (attn_output (L, N, E), attn_weights (N, L, S) or (N, H, L, S) or None).

    Example:
        >>> x = framework.randn(5, 2, 8)
        >>> w, b = framework.randn(24, 8), framework.zeros(24)
        >>> out, _ = F.multi_head_attention_forward(x, x, x, 8, 2, w, b, None, None, False,
        ...     0.0, framework.randn(8, 8), None, need_weights=False)
        >>> out.shape
        torch.Size([5, 2, 8])
    """
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    key_padding_mask = _canonical_mask(
        key_padding_mask,
        "key_padding_mask",
        None if attn_mask is None else attn_mask.dtype,
        "attn_mask",
        query.dtype,
    )
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer "
            "module method `generate_square_subsequent_mask` to create this mask."
        )
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # SDPA builds the causal mask itself
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, False)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(
            f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}"
        )
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(
                f"key's sequence and batch dims {key.shape[:2]} do not match "
                f"value's {value.shape[:2]}"
            )
        for name, wt in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if wt is None:
                raise AssertionError(
                    f"use_separate_proj_weight is True but {name}_proj_weight is None"
                )
        separate = (q_proj_weight, k_proj_weight, v_proj_weight)
    else:
        if tuple(key.shape) != tuple(value.shape):
            raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        separate = None
    q, k, v = _in_projection(query, key, value, in_proj_weight, in_proj_bias, separate)
    src_len = key.shape[0]
    if attn_mask is not None:
        want = (tgt_len, src_len) if attn_mask.dim() == 2 else (bsz * num_heads, tgt_len, src_len)
        if tuple(attn_mask.shape) != want:
            raise RuntimeError(
                f"The shape of the {attn_mask.dim()}D attn_mask is "
                f"{attn_mask.shape}, but should be {want}."
            )
        if attn_mask.dim() == 2:
            attn_mask = attn_mask.unsqueeze(0)
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = cat([k, bias_k.repeat(1, bsz, 1)])
        v = cat([v, bias_v.repeat(1, bsz, 1)])
        attn_mask = None if attn_mask is None else _pad_last(attn_mask)
        key_padding_mask = None if key_padding_mask is None else _pad_last(key_padding_mask)
    elif bias_k is not None or bias_v is not None:
        raise AssertionError(
            "bias_k is set but bias_v is None"
            if bias_k is not None
            else "bias_v is set but bias_k is None"
        )
    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = _heads(k, static_k, "k", bsz * num_heads, head_dim)
    v = _heads(v, static_v, "v", bsz * num_heads, head_dim)
    if add_zero_attn:
        z = zeros((bsz * num_heads, 1, head_dim), dtype=k.dtype, device=k.device)
        k, v = cat([k, z], dim=1), cat([v, z], dim=1)
        attn_mask = None if attn_mask is None else _pad_last(attn_mask)
        key_padding_mask = None if key_padding_mask is None else _pad_last(key_padding_mask)
    src_len = k.shape[1]
    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(
                f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                f"{key_padding_mask.shape[0]}"
            )
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(
                f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                f"{key_padding_mask.shape[1]}"
            )
        key_padding_mask = (
            key_padding_mask.view(bsz, 1, 1, src_len)
            .expand(-1, num_heads, -1, -1)
            .reshape(bsz * num_heads, 1, src_len)
        )
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask
    if not training:
        dropout_p = 0.0
    if need_weights:
        if is_causal and attn_mask is None:
            raise AssertionError("FIXME: is_causal not implemented for need_weights")
        q_scaled = q * math.sqrt(1.0 / float(q.shape[-1]))
        if attn_mask is not None:
            scores = baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
        else:
            scores = bmm(q_scaled, k.transpose(-2, -1))
        weights = softmax(scores, -1)
        if dropout_p > 0.0:
            weights = dropout(weights, p=dropout_p)
        out = bmm(weights, v).transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = _linear(out, out_proj_weight, out_proj_bias).view(tgt_len, bsz, -1)
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not is_batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights
    if attn_mask is not None:
        attn_mask = (
            attn_mask.unsqueeze(0)
            if attn_mask.shape[0] == 1 and attn_mask.dim() == 3
            else attn_mask.view(bsz, num_heads, -1, src_len)
        )
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = _linear(out, out_proj_weight, out_proj_bias).view(tgt_len, bsz, -1)
    return (out if is_batched else out.squeeze(1)), None


def _heads(x, static, name, bh, head_dim):
    """(S, N, E) -> (N * H, S, head_dim), or the caller's precomputed static_k / static_v."""
    if static is None:
        return x.view(x.shape[0], bh, head_dim).transpose(0, 1)
    if static.shape[0] != bh:
        raise AssertionError(f"expecting static_{name}.size(0) of {bh}, but got {static.shape[0]}")
    if static.shape[2] != head_dim:
        raise AssertionError(
            f"expecting static_{name}.size(2) of {head_dim}, but got {static.shape[2]}"
        )
    return static
