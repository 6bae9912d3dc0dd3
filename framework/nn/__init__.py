"""torch.nn: Module, Parameter, layers, functional, init, utils."""

from .parameter import Parameter
from .module import Module
from . import functional, init, utils
from .container import ModuleDict, ModuleList, Sequential
from .linear import Flatten, Identity, Linear, Unflatten
from .activation import GELU, LeakyReLU, LogSoftmax, ReLU, Sigmoid, Softmax, Tanh
from .normalization import BatchNorm1d, BatchNorm2d, LayerNorm
from .dropout import (
    AlphaDropout,
    Dropout,
    Dropout1d,
    Dropout2d,
    Dropout3d,
    FeatureAlphaDropout,
)
from .sparse import Embedding
from .loss import *  # noqa: F403
from .conv import *  # noqa: F403
from .pooling import *  # noqa: F403
from .activation_layers import (
    CELU,
    ELU,
    GLU,
    SELU,
    Hardshrink,
    Hardsigmoid,
    Hardswish,
    Hardtanh,
    LogSigmoid,
    Mish,
    PReLU,
    ReLU6,
    RReLU,
    SiLU,
    Softmax2d,
    Softmin,
    Softplus,
    Softshrink,
    Softsign,
    Tanhshrink,
    Threshold,
)
from .distance import CosineSimilarity, PairwiseDistance
from .norm_layers import (
    BatchNorm3d,
    GroupNorm,
    InstanceNorm1d,
    InstanceNorm2d,
    InstanceNorm3d,
    LocalResponseNorm,
    RMSNorm,
)
from .padding import *  # noqa: F403
from .losses_more import *  # noqa: F403
from .layers_more import *  # noqa: F403
from .pooling_more import *  # noqa: F403
from .pooling_fractional import *  # noqa: F403
from . import parallel
from .multihead_attention import MultiheadAttention
from .transformer import (
    Transformer,
    TransformerDecoder,
    TransformerDecoderLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
)
from .rnn import GRU, LSTM, RNN, RNNBase
from .rnn_cell import GRUCell, LSTMCell, RNNCell, RNNCellBase
from .embedding_bag import EmbeddingBag
from .parameter_containers import ParameterDict, ParameterList
from .sync_batchnorm import NLLLoss2d, SyncBatchNorm
from .lazy_modules import *  # noqa: F403
from .adaptive import AdaptiveLogSoftmaxWithLoss
from .cross_map_lrn import CrossMapLRN2d, UninitializedBuffer
from . import modules
from .linear import LazyLinear
from .parameter import UninitializedParameter
from .buffer import Buffer
