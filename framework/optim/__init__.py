"""Optimizers and learning-rate schedulers (torch.optim)."""
from .optimizer import Optimizer  # noqa: F401
from .sgd import SGD  # noqa: F401
from .adam import Adam  # noqa: F401
from .adamw import AdamW  # noqa: F401
from .rmsprop import RMSprop  # noqa: F401
from .adagrad import Adagrad  # noqa: F401
from . import lr_scheduler  # noqa: F401
