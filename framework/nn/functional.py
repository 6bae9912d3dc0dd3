"""torch.nn.functional: the functional form of every layer, plus pad."""
from ..ops.padding import pad  # noqa: F401
from ..ops.linalg import linear  # noqa: F401
from .activation import gelu, leaky_relu, log_softmax, relu, sigmoid, softmax, tanh  # noqa: F401
from .dropout import alpha_dropout, dropout, dropout1d, dropout2d, dropout3d  # noqa: F401
from .normalization import batch_norm, layer_norm  # noqa: F401
from .sparse import embedding, one_hot  # noqa: F401

from ..ops.conv import *  # noqa: F403
from ..ops.loss import *  # noqa: F403
from ..ops.pooling import *  # noqa: F403
from ..ops.nonlinear import *  # noqa: F403
from ..ops.normalization import group_norm  # noqa: F401
from .activation_layers import softmin  # noqa: F401
from .distance import cosine_similarity, normalize, pairwise_distance  # noqa: F401
from .norm_layers import instance_norm, local_response_norm, rms_norm  # noqa: F401
from .losses_more import (cosine_embedding_loss, gaussian_nll_loss,  # noqa: F401
                          hinge_embedding_loss, kl_div, margin_ranking_loss,
                          multi_margin_loss, multilabel_margin_loss,
                          multilabel_soft_margin_loss, poisson_nll_loss, soft_margin_loss,
                          triplet_margin_loss, triplet_margin_with_distance_loss)
from ..ops.resample import (channel_shuffle, interpolate, pixel_shuffle,  # noqa: F401
                            pixel_unshuffle)
from ..ops.fold import fold, unfold  # noqa: F401
from ..ops.pooling3d import (adaptive_avg_pool3d, adaptive_max_pool1d,  # noqa: F401
                             adaptive_max_pool2d, avg_pool3d, lp_pool1d, lp_pool2d, lp_pool3d,
                             max_pool3d, max_unpool2d)
from .attention import multi_head_attention_forward, scaled_dot_product_attention  # noqa: F401
from .layers_more import bilinear  # noqa: F401
from .dropout import feature_alpha_dropout  # noqa: F401
from ..ops.conv3d import conv3d, conv_transpose3d  # noqa: F401
from ..ops.embedding_bag import embedding_bag  # noqa: F401
from ..ops.grid_sample import affine_grid, grid_sample  # noqa: F401
from ..ops.ctc import ctc_loss  # noqa: F401
