"""torch.nn: Module, Parameter, layers, functional, init, utils."""
from .parameter import Parameter  # noqa: F401
from .module import Module  # noqa: F401
from . import functional, init, utils  # noqa: F401
from .container import ModuleDict, ModuleList, Sequential  # noqa: F401
from .linear import Flatten, Identity, Linear, Unflatten  # noqa: F401
from .activation import GELU, LeakyReLU, LogSoftmax, ReLU, Sigmoid, Softmax, Tanh  # noqa: F401
from .normalization import BatchNorm1d, BatchNorm2d, LayerNorm  # noqa: F401
from .dropout import Dropout  # noqa: F401
from .sparse import Embedding  # noqa: F401
from .loss import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .activation_layers import (CELU, ELU, GLU, SELU, Hardshrink, Hardsigmoid,  # noqa: F401
                                Hardswish, Hardtanh, LogSigmoid, Mish, PReLU, ReLU6, RReLU,
                                SiLU, Softmax2d, Softmin, Softplus, Softshrink, Softsign,
                                Tanhshrink, Threshold)
from .distance import CosineSimilarity, PairwiseDistance  # noqa: F401
from .norm_layers import (BatchNorm3d, GroupNorm, InstanceNorm1d, InstanceNorm2d,  # noqa: F401
                          InstanceNorm3d, LocalResponseNorm, RMSNorm)
from .padding import *  # noqa: F401,F403
from .losses_more import *  # noqa: F401,F403
from . import parallel  # noqa: F401,E402
