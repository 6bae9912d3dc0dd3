"""Optimizers and learning-rate schedulers (torch.optim)."""

from .optimizer import Optimizer
from .sgd import SGD
from .adam import Adam
from .adamw import AdamW
from .rmsprop import RMSprop
from .adagrad import Adagrad
from .adadelta import Adadelta
from .adamax import Adamax
from .nadam import NAdam
from .radam import RAdam
from .asgd import ASGD
from .rprop import Rprop
from .sparse_adam import SparseAdam
from .lbfgs import LBFGS
from . import lr_scheduler
from . import swa_utils
from .adafactor import Adafactor
from .muon import Muon
