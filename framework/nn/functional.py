"""torch.nn.functional: the functional form of every layer, plus pad."""

from ..ops.padding import pad
from ..ops.linalg import linear
from .activation import gelu, leaky_relu, log_softmax, relu, sigmoid, softmax, tanh
from .dropout import alpha_dropout, dropout, dropout1d, dropout2d, dropout3d
from .normalization import batch_norm, layer_norm
from .sparse import embedding, one_hot

from ..ops.conv import *  # noqa: F403
from ..ops.loss import *  # noqa: F403
from ..ops.pooling import *  # noqa: F403
from ..ops.nonlinear import *  # noqa: F403
from ..ops.normalization import group_norm
from .activation_layers import softmin
from .distance import cosine_similarity, normalize, pairwise_distance
from .norm_layers import instance_norm, local_response_norm, rms_norm
from .losses_more import (
    cosine_embedding_loss,
    gaussian_nll_loss,
    hinge_embedding_loss,
    kl_div,
    margin_ranking_loss,
    multi_margin_loss,
    multilabel_margin_loss,
    multilabel_soft_margin_loss,
    poisson_nll_loss,
    soft_margin_loss,
    triplet_margin_loss,
    triplet_margin_with_distance_loss,
)
from ..ops.resample import (
    channel_shuffle,
    interpolate,
    pixel_shuffle,
    pixel_unshuffle,
)
from ..ops.fold import fold, unfold
from .._surface16_aten import conv_tbc
from ..ops.pooling3d import (
    adaptive_avg_pool3d,
    adaptive_max_pool1d,
    adaptive_max_pool2d,
    avg_pool3d,
    lp_pool1d,
    lp_pool2d,
    lp_pool3d,
    max_pool3d,
    max_unpool2d,
)
from .attention import multi_head_attention_forward, scaled_dot_product_attention
from .layers_more import bilinear
from .dropout import feature_alpha_dropout
from .functional_inplace import (
    celu_,
    elu_,
    hardtanh_,
    leaky_relu_,
    relu_,
    rrelu_,
    selu_,
    threshold_,
)
from ..ops.conv3d import conv3d, conv_transpose3d
from ..ops.embedding_bag import embedding_bag
from ..ops.grid_sample import affine_grid, grid_sample
from ..ops.ctc import ctc_loss
from ..ops.pooling_more import adaptive_max_pool3d, max_unpool1d, max_unpool3d, pdist
from ..ops.pooling_fractional import fractional_max_pool2d, fractional_max_pool3d
from .functional_compat import (
    adaptive_max_pool1d_with_indices,
    adaptive_max_pool2d_with_indices,
    adaptive_max_pool3d_with_indices,
    fractional_max_pool2d_with_indices,
    fractional_max_pool3d_with_indices,
    gumbel_softmax,
    max_pool1d_with_indices,
    max_pool2d_with_indices,
    max_pool3d_with_indices,
    upsample,
    upsample_bilinear,
    upsample_nearest,
)
