"""torch.nn: Module, Parameter, layers, functional, init, utils."""
from .parameter import Parameter  # noqa: F401
from .module import Module  # noqa: F401
from . import functional, init, utils  # noqa: F401
from .container import ModuleDict, ModuleList, Sequential  # noqa: F401
from .linear import Flatten, Identity, Linear, Unflatten  # noqa: F401
from .activation import GELU, LeakyReLU, LogSoftmax, ReLU, Sigmoid, Softmax, Tanh  # noqa: F401
from .normalization import BatchNorm1d, BatchNorm2d, LayerNorm  # noqa: F401
from .dropout import (AlphaDropout, Dropout, Dropout1d, Dropout2d, Dropout3d,  # noqa: F401
                      FeatureAlphaDropout)
from .sparse import Embedding  # noqa: F401
from .loss import *  # noqa: F403
from .conv import *  # noqa: F403
from .pooling import *  # noqa: F403
from .activation_layers import (CELU, ELU, GLU, SELU, Hardshrink, Hardsigmoid,  # noqa: F401
                                Hardswish, Hardtanh, LogSigmoid, Mish, PReLU, ReLU6, RReLU,
                                SiLU, Softmax2d, Softmin, Softplus, Softshrink, Softsign,
                                Tanhshrink, Threshold)
from .distance import CosineSimilarity, PairwiseDistance  # noqa: F401
from .norm_layers import (BatchNorm3d, GroupNorm, InstanceNorm1d, InstanceNorm2d,  # noqa: F401
                          InstanceNorm3d, LocalResponseNorm, RMSNorm)
from .padding import *  # noqa: F403
from .losses_more import *  # noqa: F403
from .layers_more import *  # noqa: F403
from . import parallel  # noqa: F401
from .multihead_attention import MultiheadAttention  # noqa: F401
from .transformer import (Transformer, TransformerDecoder, TransformerDecoderLayer,  # noqa: F401
                          TransformerEncoder, TransformerEncoderLayer)
from .rnn import GRU, LSTM, RNN, RNNBase  # noqa: F401
from .rnn_cell import GRUCell, LSTMCell, RNNCell, RNNCellBase  # noqa: F401
from .embedding_bag import EmbeddingBag  # noqa: F401
from .parameter_containers import ParameterDict, ParameterList  # noqa: F401
from . import modules  # noqa: F401  (torch.nn.modules paths; after every layer)
