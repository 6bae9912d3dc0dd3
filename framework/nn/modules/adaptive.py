"""torch.nn.modules.adaptive: the same class, from where framework defines it."""

from ._reexport import reexport

reexport(globals(), ["AdaptiveLogSoftmaxWithLoss"])
