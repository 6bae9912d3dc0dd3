"""torch.nn.modules as a package: torch's module paths (framework.nn.modules.linear.Linear,
...batchnorm._BatchNorm) re-export the classes framework defines in framework/nn/*.py."""

import importlib

from .. import Module, Parameter
from ._reexport import reexport

_SUBMODULES = tuple(
    importlib.import_module(f".{name}", __name__)
    for name in (
        "activation",
        "adaptive",
        "batchnorm",
        "channelshuffle",
        "container",
        "conv",
        "distance",
        "dropout",
        "flatten",
        "fold",
        "instancenorm",
        "linear",
        "loss",
        "module",
        "normalization",
        "padding",
        "pixelshuffle",
        "pooling",
        "rnn",
        "sparse",
        "transformer",
        "upsampling",
    )
)
reexport(globals(), [name for sub in _SUBMODULES for name in sub.__all__])
