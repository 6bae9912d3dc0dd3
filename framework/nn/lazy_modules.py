"""Lazy convolutions and norms (torch.nn.LazyConv1d..., LazyBatchNorm1d..., LazyInstanceNorm1d...):
their parameters are ``UninitializedParameter`` until the first call, which infers the channels
from the input, materialises and initialises them (as the regular layer's reset_parameters, so
seeded runs draw torch's numbers) and turns the module into the regular class, as LazyLinear."""

from ..autograd.grad_mode import no_grad
from ..creation import empty, ones, tensor, zeros
from .conv import Conv1d, Conv2d, ConvTranspose1d, ConvTranspose2d
from .layers_more import Conv3d, ConvTranspose3d
from .module import Module
from .normalization import BatchNorm1d, BatchNorm2d
from .norm_layers import BatchNorm3d, InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from .parameter import UninitializedParameter

__all__ = [
    "LazyBatchNorm1d",
    "LazyBatchNorm2d",
    "LazyBatchNorm3d",
    "LazyConv1d",
    "LazyConv2d",
    "LazyConv3d",
    "LazyConvTranspose1d",
    "LazyConvTranspose2d",
    "LazyConvTranspose3d",
    "LazyInstanceNorm1d",
    "LazyInstanceNorm2d",
    "LazyInstanceNorm3d",
]


class _LazyMixin:
    """The first call initializes the parameters from its input, then becomes cls_to_become."""

    def has_uninitialized_params(self):
        """Whether a parameter still waits for its shape."""
        return any(isinstance(p, UninitializedParameter) for p in self._parameters.values()) or (
            getattr(self, "_lazy_buffers", False)
        )

    def __call__(self, *args, **kwargs):
        """Infer the lazy shapes from the first input, then call the module."""
        if "cls_to_become" in type(self).__dict__:  # the first call (torch: also when nothing
            self.initialize_parameters(args[0] if args else kwargs["input"])  # was lazy)
            self.__class__ = self.cls_to_become
        return Module.__call__(self, *args, **kwargs)


class _LazyConv(_LazyMixin):
    """The lazy conv module class of `base` (in_channels inferred at the first call)."""

    def _lazy_setup(self, out_channels, bias, device, dtype):
        """Materialise the parameters from the first input's shape and become the regular class."""
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self):
        """Re-initializes the parameters as the regular convolution does, once their shape is
        known (a no-op before the first call)."""
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        """Infer in_channels from `input` (dim 1, or 0 unbatched), materialise and initialise.

        Args:
            input (Tensor): a sample input.

        Example:
            >>> m = nn.LazyConv1d(4, 3)
            >>> m.initialize_parameters(framework.ones(2, 5, 8))
            >>> tuple(m.weight.shape)
            (4, 5, 3)
        """
        if not self.has_uninitialized_params():
            return
        nd = self._nd
        if input.dim() not in (nd + 1, nd + 2):
            raise RuntimeError(
                f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to "
                f"{type(self).__name__}, but got input of size: {input.shape}"
            )
        self.in_channels = input.shape[1] if input.dim() == nd + 2 else input.shape[0]
        if self.in_channels % self.groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        with no_grad():
            if self.transposed:
                shape = (self.in_channels, self.out_channels // self.groups)
            else:
                shape = (self.out_channels, self.in_channels // self.groups)
            self.weight.materialize(shape + tuple(self.kernel_size))
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()


def _lazy_conv(base, nd_doc):
    """A lazy conv class named `name` over the conv class `base`."""
    transposed = base._transposed

    if transposed:

        def __init__(
            self,
            out_channels,
            kernel_size,
            stride=1,
            padding=0,
            output_padding=0,
            groups=1,
            bias=True,
            dilation=1,
            padding_mode="zeros",
            device=None,
            dtype=None,
        ):
            """The regular module's arguments, its shape-dependent ones left unset."""
            base.__init__(
                self,
                0,
                0,
                kernel_size,
                stride,
                padding,
                output_padding,
                groups,
                False,
                dilation,
                padding_mode,
                device,
                dtype,
            )
            self._lazy_setup(out_channels, bias, device, dtype)

    else:

        def __init__(
            self,
            out_channels,
            kernel_size,
            stride=1,
            padding=0,
            dilation=1,
            groups=1,
            bias=True,
            padding_mode="zeros",
            device=None,
            dtype=None,
        ):
            """The regular module's arguments, its shape-dependent ones left unset."""
            base.__init__(
                self,
                0,
                0,
                kernel_size,
                stride,
                padding,
                dilation,
                groups,
                False,
                padding_mode,
                device,
                dtype,
            )
            self._lazy_setup(out_channels, bias, device, dtype)

    name = "Lazy" + base.__name__
    args = (
        "out_channels, kernel_size, stride, padding, output_padding, groups, bias, dilation, "
        "padding_mode, device, dtype"
        if transposed
        else "out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode, "
        "device, dtype"
    )
    doc = (
        f"A :class:`{base.__name__}` whose ``in_channels`` is inferred from the first input "
        f"(dim 1, or 0 unbatched); it then becomes a ``{base.__name__}``.\n\n"
        "    Args:\n"
        + "".join(f"        {a} (see {base.__name__}): as there.\n" for a in args.split(", "))
        + "\n"
        f"    Example:\n        >>> m = nn.{name}(4, 3)\n"
        f"        >>> m(framework.ones(1, 2{', 6' * nd_doc})).shape[1]\n        4\n"
    )
    cls = type(name, (_LazyConv, base), {"__init__": __init__, "cls_to_become": base})
    cls.__doc__, cls.__module__ = doc, __name__
    cls.__init__.__qualname__ = f"{name}.__init__"
    return cls


class _LazyNorm(_LazyMixin):
    """The lazy norm module class of `base` (num_features inferred at the first call)."""

    def _lazy_setup(self, affine, track_running_stats, bias, device, dtype):
        """Materialise the parameters from the first input's shape and become the regular class."""
        self.affine, self.track_running_stats = affine, track_running_stats
        self._factory = {"device": device, "dtype": dtype}
        if affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(device=device, dtype=dtype)
        if track_running_stats:
            self.running_mean = empty(0, device=device, dtype=dtype)
            self.running_var = empty(0, device=device, dtype=dtype)
            self.num_batches_tracked = tensor(0, device=device)
            self._lazy_buffers = True

    def reset_parameters(self):
        """Resets the statistics and affine parameters once their shape is known (a no-op
        before the first call)."""
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        """Infer num_features from ``input.shape[1]`` (torch's), materialise and initialise.

        Args:
            input (Tensor): a sample input.

        Example:
            >>> m = nn.LazyBatchNorm1d()
            >>> m.initialize_parameters(framework.ones(2, 5))
            >>> tuple(m.weight.shape), tuple(m.running_mean.shape)
            ((5,), (5,))
        """
        if not self.has_uninitialized_params():
            return
        self.num_features = nf = input.shape[1]
        with no_grad():
            if self.affine:
                self.weight.materialize((nf,))
                if self.bias is not None:
                    self.bias.materialize((nf,))
            if self.track_running_stats:
                self.running_mean = zeros(nf, **self._factory)
                self.running_var = ones(nf, **self._factory)
            self._lazy_buffers = False
            self.reset_parameters()


def _lazy_norm(base):
    """A lazy norm class named `name` over the norm class `base`."""

    def __init__(
        self,
        eps=1e-5,
        momentum=0.1,
        affine=True,
        track_running_stats=True,
        device=None,
        dtype=None,
        *,
        bias=True,
    ):
        """The regular module's arguments, its shape-dependent ones left unset."""
        base.__init__(self, 0, eps, momentum, False, False, device, dtype, bias=False)
        self._lazy_setup(affine, track_running_stats, bias, device, dtype)

    name = "Lazy" + base.__name__
    doc = (
        f"A :class:`{base.__name__}` whose ``num_features`` is ``input.shape[1]`` of the first "
        f"input; it then becomes a ``{base.__name__}``.\n\n"
        "    Args:\n"
        + "".join(
            f"        {a} (see {base.__name__}): as there.\n"
            for a in ("eps", "momentum", "affine", "track_running_stats", "device", "dtype", "bias")
        )
        + "\n"
        f"    Example:\n        >>> m = nn.{name}()\n"
        f"        >>> type(m(framework.randn(2, 3{', 4' * int(base.__name__[-2])})))"
        ".__name__\n        'Tensor'\n"
    )
    cls = type(name, (_LazyNorm, base), {"__init__": __init__, "cls_to_become": base})
    cls.__doc__, cls.__module__ = doc, __name__
    cls.__init__.__qualname__ = f"{name}.__init__"
    return cls


LazyConv1d = _lazy_conv(Conv1d, 1)
LazyConv2d = _lazy_conv(Conv2d, 2)
LazyConv3d = _lazy_conv(Conv3d, 3)
LazyConvTranspose1d = _lazy_conv(ConvTranspose1d, 1)
LazyConvTranspose2d = _lazy_conv(ConvTranspose2d, 2)
LazyConvTranspose3d = _lazy_conv(ConvTranspose3d, 3)
LazyBatchNorm1d = _lazy_norm(BatchNorm1d)
LazyBatchNorm2d = _lazy_norm(BatchNorm2d)
LazyBatchNorm3d = _lazy_norm(BatchNorm3d)
LazyInstanceNorm1d = _lazy_norm(InstanceNorm1d)
LazyInstanceNorm2d = _lazy_norm(InstanceNorm2d)
LazyInstanceNorm3d = _lazy_norm(InstanceNorm3d)
