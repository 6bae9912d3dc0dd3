"""torch.nn.functional: the functional form of every layer, plus pad."""
from ..autograd.op import Op
from ..ops.padding import gather_pad
from ..ops.linalg import linear  # noqa: F401
from .activation import gelu, leaky_relu, log_softmax, relu, sigmoid, softmax, tanh  # noqa
from .dropout import alpha_dropout, dropout, dropout1d, dropout2d, dropout3d  # noqa: F401
from .normalization import batch_norm, layer_norm  # noqa: F401
from .sparse import embedding, one_hot  # noqa: F401


class ConstantPadNd(Op):
    """Pad (or, with negative sizes, crop) the trailing dims with a constant."""

    def forward(self, x, pad=(), value=0.0):
        self.pad = pad
        n = len(pad) // 2
        out_shape = list(x.shape)
        src, dst = [slice(None)] * x.ndim, [slice(None)] * x.ndim
        for i in range(n):  # pad[2i], pad[2i+1] are (before, after) of dim -1-i
            d = x.ndim - 1 - i
            lo, hi = pad[2 * i], pad[2 * i + 1]
            size = x.shape[d] + lo + hi
            if size < 0:
                raise RuntimeError(
                    f"The input size {x.shape[d]}, plus negative padding {lo} and {hi} resulted "
                    f"in a negative output size, which is invalid. Check dimension {d} of your "
                    "input.")
            out_shape[d] = size
            if x.shape[d] - max(-lo, 0) - max(-hi, 0) < 0:  # cropping more than there is
                raise RuntimeError("narrow(): length must be non-negative.")
            src[d] = slice(max(-lo, 0), x.shape[d] - max(-hi, 0))
            dst[d] = slice(max(lo, 0), size - max(hi, 0))
        out = self.xp.full(out_shape, value, dtype=x.dtype)
        out[tuple(dst)] = x[tuple(src)]
        return out

    def backward(self, grad):
        return ConstantPadNd.apply(grad, pad=tuple(-p for p in self.pad), value=0.0)


def pad(input, pad, mode="constant", value=None):
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.dim():
        raise RuntimeError("Padding length should be less than or equal to two times the input "
                           f"dimension but got padding length {len(pad)} and input of dimension "
                           f"{input.dim()}")
    if mode == "constant":
        return ConstantPadNd.apply(input, pad=pad, value=0.0 if value is None else value)
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    return gather_pad(input, pad, mode)


from ..ops.conv import *  # noqa: F401,F403,E402
from ..ops.loss import *  # noqa: F401,F403,E402
from ..ops.pooling import *  # noqa: F401,F403,E402
from ..ops.nonlinear import *  # noqa: F401,F403,E402
from ..ops.normalization import group_norm  # noqa: F401,E402
from .activation_layers import softmin  # noqa: F401,E402
from .distance import cosine_similarity, normalize, pairwise_distance  # noqa: F401,E402
from .norm_layers import instance_norm, local_response_norm, rms_norm  # noqa: F401,E402
from .losses_more import (cosine_embedding_loss, gaussian_nll_loss,  # noqa: F401,E402
                          hinge_embedding_loss, kl_div, margin_ranking_loss,
                          multi_margin_loss, multilabel_margin_loss,
                          multilabel_soft_margin_loss, poisson_nll_loss, soft_margin_loss,
                          triplet_margin_loss, triplet_margin_with_distance_loss)
from ..ops.resample import (channel_shuffle, interpolate, pixel_shuffle,  # noqa: F401,E402
                            pixel_unshuffle)
from ..ops.fold import fold, unfold  # noqa: F401,E402
from ..ops.pooling3d import (adaptive_avg_pool3d, adaptive_max_pool1d,  # noqa: F401,E402
                             adaptive_max_pool2d, avg_pool3d, lp_pool1d, lp_pool2d, lp_pool3d,
                             max_pool3d, max_unpool2d)
from .attention import multi_head_attention_forward, scaled_dot_product_attention  # noqa: F401,E402,E501
from .layers_more import bilinear  # noqa: F401,E402
from .dropout import feature_alpha_dropout  # noqa: F401,E402
from ..ops.conv3d import conv3d, conv_transpose3d  # noqa: F401,E402
from ..ops.embedding_bag import embedding_bag  # noqa: F401,E402
from ..ops.grid_sample import affine_grid, grid_sample  # noqa: F401,E402
from ..ops.ctc import ctc_loss  # noqa: F401,E402
