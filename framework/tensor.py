"""Tensor: an array on a device plus autograd state. Methods are one-liners over ops."""

import warnings
import weakref

import numpy as np

from ._errors import NOT_GIVEN
from . import dtypes
from .backend import CPU, as_device, device_of, move, to_numpy, xp_for

LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_LEAF = "a view of a leaf Variable that requires grad is being used in an in-place operation."
DEFAULT, NO_GRAD, MULTI_OUTPUT = 0, 1, 2  # how a view was made (torch's CreationMeta)


class Size(tuple):
    """torch.Size: a tuple that prints as torch.Size([2, 3])."""

    def __repr__(self):
        return f"torch.Size([{', '.join(str(int(s)) for s in self)}])"

    def __getitem__(self, index):  # a slice of a Size is a Size, as torch's
        out = tuple.__getitem__(self, index)
        return Size(out) if type(index) is slice else out

    def __add__(self, other):
        return Size(tuple.__add__(self, other))

    def __radd__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple.__add__(other, self))

    def __mul__(self, n):
        return Size(tuple.__mul__(self, n))

    __rmul__ = __mul__

    def numel(self):
        """Returns the number of elements a tensor of this size holds (the product of the sizes)."""
        n = 1
        for s in self:
            n *= s
        return n


_SCALAR_WARNING = (
    "Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
    "Consider using tensor.detach() first. (Triggered internally at "
    "/__w/pytorch/pytorch/torch/csrc/autograd/generated/python_variable_methods.cpp:822.)"
)
_scalar_warned = []
_engine = [None]  # framework.autograd.engine, bound by the first backward()


def _warn_scalar_once():
    """torch 2.13's TORCH_WARN_ONCE on float()/complex() of a tensor that requires grad while
    grad mode is on: one UserWarning per process, pointing at the caller's line."""
    if not _scalar_warned:
        _scalar_warned.append(True)
        warnings.warn(_SCALAR_WARNING, UserWarning, stacklevel=3)


class Tensor:
    """A multi-dimensional array with autograd: data, grad, grad_fn, requires_grad."""

    __slots__ = (
        "_data",
        "_device",
        "_rg",
        "grad",
        "grad_fn",
        "_output_nr",
        "_vc",
        "__dict__",
        "__weakref__",
    )
    __hash__ = object.__hash__  # __eq__ is elementwise
    __array_priority__ = 1000  # numpy defers to our reflected operators

    # rare attributes live in the instance dict on demand; these are their defaults
    _hooks = None  # leaf hooks (id -> fn), run before accumulation
    _post_hooks = None  # post-accumulate hooks
    _acc = None  # weakref to this leaf's AccumulateGrad node
    _retains_grad = False
    _shared = False  # engine: this gradient is visible elsewhere, so `.grad` copies it
    _fw = None  # forward AD: {level: tangent} (autograd/forward_ad.py)

    def __new__(cls, *args, device=None):
        """Legacy constructor: Tensor([1, 2]) copies data as float; Tensor(2, 3) is empty."""
        dt = dtypes.get_default_dtype().np
        dev = as_device(device)
        if len(args) == 1 and isinstance(args[0], Tensor):
            return args[0].detach()  # torch aliases the tensor, keeping its dtype
        if len(args) == 1 and not isinstance(args[0], (int, Size)):
            data = args[0]
            if not isinstance(data, (list, tuple, np.ndarray)):
                raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
            arr = np.array(data, dtype=dt)
        else:
            shape = tuple(args[0]) if args and isinstance(args[0], Size) else args
            arr = np.empty(shape if args else (0,), dtype=dt)  # Tensor() is empty, not 0-dim
        return Tensor._make(move(arr, dev), dev)

    @staticmethod
    def _make(data, device=CPU, requires_grad=False, grad_fn=None, output_nr=0):
        t = object.__new__(Tensor)
        t._data = data
        t._device = device
        t._rg = requires_grad
        t.grad = None
        t.grad_fn = grad_fn
        t._output_nr = output_nr
        t._vc = [0]
        return t

    # ----- attributes ----------------------------------------------------------------------
    @property
    def data(self):
        """The same storage, detached, with a separate version counter (as torch's .data)."""
        return Tensor._make(self._data, self._device)

    @data.setter
    def data(self, value):
        """Swap in another tensor's storage (views made before keep the old one)."""
        self._data = value._data if isinstance(value, Tensor) else value
        self._device = device_of(self._data)

    @property
    def xp(self):
        return xp_for(self._device)

    # ----- storage and views ---------------------------------------------------------------
    _base = None  # a View's base tensor (the tensor that is not itself a view)

    def _is_view(self):
        """True when this tensor is a view of another tensor's storage (`._base`)."""
        return False

    def stride(self, dim=None):
        """Elements to step in storage per index step, per dimension (or of one dimension).

        Args:
            dim (int, optional): the dimension to return the stride of. Default: ``None`` (all).

        Example:
            >>> framework.zeros(2, 3).t().stride()
            (1, 3)
            >>> framework.zeros(2, 3).stride(0)
            3
        """
        st = _vw.strides(self._data)
        if dim is None:
            return st
        n = max(self._data.ndim, 1)
        if not -n <= dim < n:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-n}, {n - 1}]"
                f", but got {dim})"
            )
        return st[dim] if st else 1

    def storage_offset(self):
        """Position of the first element in the storage, in elements."""
        return _vw.storage_offset(self._data)

    def is_contiguous(self, memory_format=None):
        """True when the elements are laid out densely in row-major order (or in
        ``memory_format``).

        Args:
            memory_format (:class:`framework.memory_format`, optional): the layout to test for.
                Default: ``None`` (``framework.contiguous_format``).

        Example:
            >>> framework.zeros(2, 3).is_contiguous()
            True
            >>> framework.zeros(2, 3).t().is_contiguous()
            False
        """
        if getattr(memory_format, "rank", None) is not None:
            return self._data.ndim == memory_format.rank and _mf.is_channels_last(self._data)
        return bool(self._data.flags.c_contiguous)

    def data_ptr(self):
        """Address of the first element."""
        from .backend import data_ptr

        return data_ptr(self._data)

    def untyped_storage(self):
        """The memory under this tensor (shared by its views)."""
        return UntypedStorage(self)

    def storage(self):
        """The memory under this tensor, counted in elements (deprecated in torch too)."""
        import warnings

        warnings.warn(_TYPED_STORAGE_WARNING, UserWarning, stacklevel=2)
        return TypedStorage(self)

    def contiguous(self, memory_format=None):
        """Returns ``self`` when it is already contiguous in ``memory_format``, else a copy in that
        layout, row-major by default (recorded as ``CloneBackward0``).

        Args:
            memory_format (:class:`framework.memory_format`, optional): the layout wanted.
                Default: ``None`` (``framework.contiguous_format``).

        Example:
            >>> x = framework.zeros(2, 3).t()
            >>> x.is_contiguous(), x.contiguous().is_contiguous()
            (False, True)
        """
        if getattr(memory_format, "rank", None) is not None:
            _mf.check_rank(memory_format, self._data.ndim)
            if _mf.is_channels_last(self._data):
                return self
            return _ops.clone(self, memory_format=memory_format)
        if self._data.flags.c_contiguous:
            return self
        return _ops.clone(self, memory_format="contiguous")

    @property
    def device(self):
        return self._device

    @property
    def dtype(self):
        return dtypes.from_numpy_dtype(self._data.dtype)

    @property
    def shape(self):
        return Size(self._data.shape)

    def size(self, dim=None):
        if dim is None:
            return Size(self._data.shape)
        n = max(self._data.ndim, 1)
        if not -n <= dim < n:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-n}, {n - 1}]"
                f", but got {dim})"
            )
        return self._data.shape[dim]

    def dim(self):
        return self._data.ndim

    ndim = property(dim)

    def numel(self):
        return int(self._data.size)

    nelement = numel

    def element_size(self):
        return self._data.itemsize

    @property
    def is_leaf(self):
        return self.grad_fn is None

    @property
    def retains_grad(self):
        return self._retains_grad

    @property
    def is_cuda(self):
        return self._device.type == "cuda"

    def is_pinned(self):
        """False: page-locked host memory is not used (see pin_memory)."""
        return False

    def pin_memory(self):
        """torch's page-locked copy for faster host-to-GPU transfer. Without a GPU it raises
        torch's error; with one it returns an ordinary copy (CuPy copies from any host memory)."""
        from .backend import cuda_available

        if not cuda_available():
            raise RuntimeError("Cannot access accelerator device when none is available.")
        if self.is_cuda:
            raise RuntimeError(f"cannot pin '{self.type()}' only dense CPU tensors can be pinned")
        return self.clone()

    def is_floating_point(self):
        return self._data.dtype.kind in "fV"  # V: bfloat16 (ml_dtypes)

    def _is_zerotensor(self):
        """Whether this is torch's ZeroTensor: the `.grad` (or autograd.grad result) that
        only sgn's efficient zero gradient reached, or a view of it; it refuses in-place
        writes ("ZeroTensors are immutable")."""
        from .autograd.zero_grad import aliases_zero_tensor

        return aliases_zero_tensor(self)

    @property
    def _version(self):
        return self._vc[0]

    @property
    def T(self):
        return self.permute(*range(self.ndim - 1, -1, -1))

    @property
    def mT(self):
        return self.transpose(-2, -1)

    @property
    def H(self):
        """The conjugate transpose of a matrix (a transpose view for real tensors)."""
        if self.ndim not in (0, 2):
            raise RuntimeError(
                f"tensor.H is only supported on matrices (2-D tensors). Got "
                f"{self.ndim}-D tensor. For batches of matrices, consider using "
                "tensor.mH"
            )
        return self.transpose(0, 1) if self.ndim == 2 else self

    @property
    def mH(self):
        """The conjugate transpose of the last two dimensions (a view for real tensors)."""
        return self.transpose(-2, -1)

    def adjoint(self):
        """Same as `mH`."""
        return self.transpose(-2, -1)

    @property
    def requires_grad(self):
        return self._rg

    @requires_grad.setter
    def requires_grad(self, value):
        _check_requires_grad(self, value)
        self._rg = bool(value)

    # ----- autograd ------------------------------------------------------------------------
    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        r"""Computes the gradient of this tensor with respect to the graph's leaves.

        The graph is differentiated with the chain rule, walking back from this tensor
        through each ``grad_fn`` node. The gradient of every leaf that requires grad is
        *accumulated* (added) into its ``.grad``, so zero the gradients before a new
        backward pass when you do not want the sum.

        If this tensor is not a scalar, ``gradient`` must be given: the vector
        :math:`v` of the vector-Jacobian product :math:`v^\top J` (same shape as ``self``).

        Args:
            gradient (Tensor, optional): the gradient of some loss with respect to this
                tensor; may be omitted for a one-element tensor (taken as 1).
            retain_graph (bool, optional): keep the graph's saved tensors so backward can
                run through it again. Defaults to ``create_graph``.
            create_graph (bool): record the backward pass itself, so the gradients have a
                ``grad_fn`` and can be differentiated again (double backward). Default False.
            inputs (Tensor or sequence of Tensor, optional): accumulate into the ``.grad`` of
                these tensors only, instead of all leaves.

        Raises:
            RuntimeError: if this tensor does not require grad, if ``gradient`` is missing for
                a non-scalar, or if the graph was already freed by an earlier backward.

        Example:
            >>> import framework
            >>> x = framework.tensor([1.0, 2.0, 3.0], requires_grad=True)
            >>> y = (x ** 2).sum()
            >>> y.backward()
            >>> x.grad
            tensor([2., 4., 6.])
            >>> (x * 2).backward(framework.ones(3))   # accumulates: 2x + 2
            >>> x.grad
            tensor([4., 6., 8.])
        """
        engine = _engine[0]
        if engine is None:  # (the engine imports this module: bound on first use, since an
            from .autograd import engine  # import statement per call costs ~0.65 us)

            _engine[0] = engine
        if inputs is not None:
            inputs = [inputs] if isinstance(inputs, Tensor) else list(inputs)
            if not inputs:
                raise RuntimeError("'inputs' argument to backward() cannot be empty.")
        engine.run(
            [self], None if gradient is None else [gradient], retain_graph, create_graph, inputs
        )

    def _edge(self):
        """(node, output index) that receives this tensor's gradient."""
        if self.grad_fn is not None:
            return self.grad_fn, self._output_nr
        acc = self._acc() if self._acc is not None else None
        if acc is None:
            acc = AccumulateGrad(self)
            self._acc = weakref.ref(acc)
        return acc, 0

    def retain_grad(self):
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is None or self._retains_grad:
            return
        fn = self.grad_fn
        _node_hooks[0] = 1  # the engine looks for retained gradients from now on
        if fn._retain is None:
            fn._retain = {}
        fn._retain[self._output_nr] = weakref.ref(self)
        self._retains_grad = True

    def register_hook(self, hook):
        """Registers ``hook(grad)`` to run when the gradient with respect to this tensor is
        computed; if it returns a tensor, that replaces the gradient. Returns a handle whose
        ``remove()`` unregisters the hook.

        Args:
            hook (Callable): ``hook(grad) -> Tensor or None``.

        Example:
            >>> x = framework.tensor([1.0, 2.0], requires_grad=True)
            >>> h = x.register_hook(lambda g: g * 10)
            >>> (x * 3).sum().backward()
            >>> x.grad
            tensor([30., 30.])
            >>> h.remove()
        """
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is None:
            if self._hooks is None:
                self._hooks = new_hook_dict()
            return _add_hook(self._hooks, hook)
        fn = self.grad_fn
        if fn._tensor_hooks is None:
            fn._tensor_hooks = {}
        return _add_hook(fn._tensor_hooks.setdefault(self._output_nr, new_hook_dict()), hook)

    def register_post_accumulate_grad_hook(self, hook):
        """Registers ``hook(tensor)`` to run on a leaf after its ``.grad`` has been accumulated
        (optimizers use it to step inside backward). Returns a handle whose ``remove()``
        unregisters the hook.

        Args:
            hook (Callable): ``hook(tensor) -> None``; it receives this tensor.

        Example:
            >>> w = framework.tensor([1.0], requires_grad=True)
            >>> h = w.register_post_accumulate_grad_hook(lambda p: print('grad', p.grad))
            >>> (w * 2).sum().backward()
            grad tensor([2.])
        """
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            raise RuntimeError(
                "post accumulate grad hooks cannot be registered on non-leaf tensors"
            )
        if self._post_hooks is None:
            self._post_hooks = new_hook_dict()
        return _add_hook(self._post_hooks, hook)

    def detach(self):
        """Same storage and version counter, no history."""
        t = Tensor._make(self._data, self._device)
        t._vc = self._vc
        return t

    def detach_(self):
        if self._is_view() and self._vbw:
            raise RuntimeError(DETACH_VIEW)
        if self.grad_fn is not None:
            self.grad_fn = None
        self._rg = False
        return self

    def requires_grad_(self, requires_grad=True):
        if requires_grad and self._data.dtype.kind not in "fcV":  # torch's wording differs here
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self.requires_grad = requires_grad
        return self

    # ----- conversion ----------------------------------------------------------------------
    def item(self):
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar"
            )
        return self._data.item()

    def tolist(self):
        return to_numpy(self._data).tolist()

    def numpy(self, force=False):
        if force:
            return to_numpy(self._data).copy() if self.is_cuda else self._data
        if self.requires_grad:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. "
                "Use tensor.detach().numpy() instead."
            )
        if self.is_cuda:
            raise TypeError(
                f"can't convert {self._device} device type tensor to numpy. "
                "Use Tensor.cpu() to copy the tensor to host memory first."
            )
        return self._data

    def __array__(self, dtype=None, copy=None):
        """np.asarray(t) shares memory with a CPU tensor; np.array(t) copies. Refused for a
        tensor that requires grad, as torch refuses it."""
        if self.requires_grad:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. "
                "Use tensor.detach().numpy() instead."
            )
        arr = to_numpy(self._data)
        if dtype is not None and arr.dtype != dtype:
            if copy is False:
                raise ValueError("Unable to avoid copy while creating an array as requested.")
            return arr.astype(dtype)
        return arr.copy() if copy else arr

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        """Export through DLPack (zero-copy with NumPy and CuPy)."""
        if self.requires_grad:
            raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
        if max_version is None:
            return (
                self._data.__dlpack__(stream=stream)
                if stream is not None
                else self._data.__dlpack__()
            )
        return self._data.__dlpack__(
            stream=stream, max_version=max_version, dl_device=dl_device, copy=copy
        )

    def __dlpack_device__(self):
        """(device type, index) as DLPack numbers them: (1, 0) for the CPU, (2, i) CUDA."""
        return self._data.__dlpack_device__()

    def to(self, *args, **kwargs):
        fmt = kwargs.pop("memory_format", None)
        dev, dt, copy = _parse_to(self, args, kwargs)
        cl = getattr(fmt, "rank", None) is not None  # channels_last(_3d)
        if cl:
            _mf.check_rank(fmt, self._data.ndim)
            copy = copy or not _mf.is_channels_last(self._data)
        elif fmt is _mf.contiguous_format and not self._data.flags.c_contiguous:
            return self.contiguous().to(dev, dt, copy=False)
        if dev == self._device and (dt is None or dt == self._data.dtype) and not copy:
            return self
        if dt is not None and dt.kind not in "fcV":  # integer results never require grad
            with _no_grad():
                return _ops.to_copy(self, device=dev, dtype=dt, channels_last=cl)
        return _ops.to_copy(self, device=dev, dtype=dt, channels_last=cl)

    def cpu(self):
        return self.to(CPU)

    def cuda(self, device=None):
        return self.to(as_device("cuda" if device is None else device))

    def type(self, dtype=None, non_blocking=False):
        """With no argument, the legacy type name (``'torch.FloatTensor'``); else this tensor
        converted to a dtype, a legacy type or its name (``'torch.LongTensor'``,
        ``'torch.cuda.FloatTensor'``).

        Args:
            dtype (:class:`framework.dtype`, type or str, optional): what to convert to.
                Default: ``None`` (return the type name).
            non_blocking (bool, optional): accepted for torch compatibility. Default: ``False``.

        Example:
            >>> x = framework.tensor([1.5])
            >>> x.type()
            'torch.FloatTensor'
            >>> x.type(framework.int64)
            tensor([1])
            >>> x.type('torch.DoubleTensor')
            tensor([1.5000], dtype=torch.float64)
        """
        if dtype is None:
            return (
                "torch."
                + {"cpu": ""}.get(self._device.type, "cuda.")
                + dtypes.tensor_type_name(self._data.dtype)
            )
        if isinstance(dtype, dtypes.dtype):
            return self.to(dtype)
        from .tensor_types import parse

        dt, dev = parse(dtype)
        return self.to(dev if dev != self._device.type else self._device, dt)

    def float(self):
        return self.to(dtypes.float32)

    def double(self):
        return self.to(dtypes.float64)

    def half(self):
        return self.to(dtypes.float16)

    def bfloat16(self):
        """self.to(torch.bfloat16) (needs the ml_dtypes package)."""
        return self.to(dtypes.bfloat16)

    def long(self):
        return self.to(dtypes.int64)

    def int(self):
        return self.to(dtypes.int32)

    def bool(self):
        return self.to(dtypes.bool_)

    def type_as(self, other):
        return self.to(other.dtype)

    def _cast(self, np_dtype):
        return _ops.to_copy(self, dtype=np_dtype)

    def clone(self, memory_format=None):
        return _ops.clone(self, memory_format=memory_format)

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __bool__(self):
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._data.item())

    def __float__(self):  # complex() of a tensor comes here too, as torch's __complex__
        if self._rg and state.enabled:
            _warn_scalar_once()
        return float(self._scalar())

    def __int__(self):
        return int(self._scalar())

    def _scalar(self):
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self._data.item()

    def __index__(self):
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __repr__(self):
        return _tensor_str.tensor_repr(self)

    def __str__(self):
        return self.__repr__()

    def __format__(self, spec):
        if self._data.ndim == 0:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    def __reduce_ex__(self, protocol):
        """Pickle as a NumPy array plus device and requires_grad (grad and history are not
        kept, as torch); this is how tensors cross DataLoader worker processes."""
        return _rebuild_tensor, (to_numpy(self._data), str(self._device), self._rg)

    def __deepcopy__(self, memo):
        """A fresh leaf with copied data, requires_grad and .grad (torch: leaves only)."""
        if not self.is_leaf:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) "
                "support the deepcopy protocol at the moment.  If you were "
                "attempting to deepcopy a module, this may be because of a "
                "torch.nn.utils.weight_norm usage, see "
                "https://github.com/pytorch/pytorch/pull/103001"
            )
        if id(self) in memo:
            return memo[id(self)]
        result = Tensor._make(self._data.copy(), self._device)
        result._rg = self._rg
        memo[id(self)] = result
        if self.grad is not None:
            result.grad = self.grad.__deepcopy__(memo)
        return result

    # ----- in-place ops: bump the version; with autograd, rebase history onto a new node ----
    def _inplace(self, op, *args, **kwargs):
        if _vmap_hook[0]:  # under vmap: an unbatched self cannot take batched values
            from .func._paths import check_inplace

            check_inplace(self, args)
        tensors = [a for a in args if isinstance(a, Tensor)]
        if state.enabled and (self.requires_grad or any(a.requires_grad for a in tensors)):
            view = type(self) is View and self._vbw
            if view:
                _vw.check_rebase(self, indirect=False)
                if self._rg and self._vbase.grad_fn is None:
                    raise RuntimeError(VIEW_LEAF)
            if self.grad_fn is None and self.requires_grad:
                raise RuntimeError(LEAF_INPLACE)
            src = Tensor._make(
                self._data.copy(), self._device, self.requires_grad, self.grad_fn, self._output_nr
            )  # saved values must not change
            if self._fw is not None:  # its own holder: self's tangents change below
                _fw_copy(src, self)
            _int_out_allowed[0] += 1  # (rebased history: torch checks no output dtype)
            try:
                out = op(src, *args, **kwargs)
            except NotImplementedError:
                _inplace_shape_first(self, tensors)
                raise
            finally:
                _int_out_allowed[0] -= 1
            _write(self, out._data)
            if out._fw is not None:
                _fw_inplace(self, out)
            fn = out.grad_fn
            if fn.saves_output:
                fn._out_vc, fn._out_version = self._vc, self._vc[0]
            if view:  # the base's history becomes CopySlices; this view's is regenerated
                _vw.rebase(self, fn)
            else:
                self._rg = True
                self.grad_fn, self._output_nr = fn, out._output_nr
            return self
        with _no_grad():
            try:
                out = op(self, *args, **kwargs)
            except NotImplementedError:
                _inplace_shape_first(self, tensors)
                raise
            except Exception as e:  # torch refuses a ZeroTensor before any other check
                if getattr(self._data.flags, "writeable", True):
                    raise
                from .autograd.zero_grad import refuse_write

                raise refuse_write(self, e) from None
        _write(self, out._data)
        if out._fw is not None:
            _fw_inplace(self, out, self._fw)
        return self

    def add_(self, other, alpha=1):
        return self._inplace(_ops.add, other, alpha=alpha)

    def sub_(self, other, alpha=1):
        return self._inplace(_ops.sub, other, alpha=alpha)

    def mul_(self, other):
        return self._inplace(_ops.mul, other)

    def div_(self, other, rounding_mode=None):
        return self._inplace(_ops.div, other, rounding_mode=rounding_mode)

    def pow_(self, exponent):
        if (
            isinstance(exponent, Tensor)
            and exponent._data.shape != self._data.shape
            and not _grad_leaf(self)  # torch refuses the leaf first
        ):
            from ._errors import broadcast_shapes, inplace_shape_error

            shape = broadcast_shapes(self._data.shape, exponent._data.shape)
            if shape != self._data.shape:  # torch checks the output shape before the dtype
                raise inplace_shape_error(self._data.shape, shape)
        return self._inplace(_ops.pow, exponent)

    def clamp_(self, min=None, max=None):
        if (
            min is not None
            and max is not None
            and isinstance(min, Tensor) != isinstance(max, Tensor)
        ):
            _ops.clamp(self, min, max, _clamp_method="clamp_")  # torch's argument error first
        scalars = [v for v in (min, max) if v is not None and not isinstance(v, Tensor)]
        if scalars and self._data.dtype.kind in "biu":  # its kernel names C++ types
            res = dtypes.result_type([self._data], [self.ndim], scalars)
            if dtypes._kind(res) > dtypes._kind(self._data.dtype):
                raise RuntimeError(
                    f"result type {dtypes.scalar_type_name(res)} can't be cast to the desired "
                    f"output type {dtypes.cpp_type_name(self._data.dtype)}"
                )
        return self._inplace(_ops.clamp, min, max)

    clip_ = clamp_

    def neg_(self):
        return self._inplace(_ops.neg)

    def exp_(self):
        return self._inplace(_ops.exp)

    def sqrt_(self):
        return self._inplace(_ops.sqrt)

    def relu_(self):
        return self._inplace(_ops.relu)

    def sigmoid_(self):
        return self._inplace(_ops.sigmoid)

    def tanh_(self):
        return self._inplace(_ops.tanh)

    def masked_fill_(self, mask, value):
        return self._inplace(_ops.elementwise.masked_fill_, mask, value)

    def copy_(self, src, non_blocking=False):
        if not isinstance(src, Tensor):
            src = _ops.tensor(src)
        try:
            if self._data.dtype.kind not in "fcV" and src._rg and not self._rg:
                with _no_grad():  # torch's copy_ records only into a differentiable dtype
                    return self._inplace(_ops.copy_into, src)
            return self._inplace(_ops.copy_into, src)
        except RuntimeError as e:  # torch's copy kernel words the ZeroTensor error its way
            from .autograd.zero_grad import ZERO_IMMUTABLE, ZERO_IMMUTABLE_COPY

            if e.args == (ZERO_IMMUTABLE,):
                raise RuntimeError(ZERO_IMMUTABLE_COPY) from None
            raise

    def zero_(self):
        return self._inplace(_ops.unary._fill_inplace, None)

    def fill_(self, value):
        return self._inplace(_ops.unary._fill_inplace, value)

    def fill_diagonal_(self, fill_value, wrap=False):
        """Fill the main diagonal (all indices equal) with fill_value in place; a tall matrix
        with wrap=True starts again every width + 1 rows. As torch: a strided view filled.

        Args:
            fill_value (Number): the value written on the diagonal.
            wrap (bool, optional): for a matrix taller than wide, continue the diagonal after
                every ``width + 1`` rows (default: False).

        Example:
            >>> framework.zeros(2, 3).fill_diagonal_(1.0)
            tensor([[1., 0., 0.],
                    [0., 1., 0.]])
        """
        if self.ndim < 2:
            raise RuntimeError("dimensions must larger than 1")
        height, width = self.shape[0], self.shape[1]
        if self.ndim > 2 and any(n != height for n in self.shape[1:]):
            raise RuntimeError("all dimensions of input must be of equal length")
        size, wraps = min(height, width), wrap and self.ndim == 2 and height > width + 1
        if _vmap_hook[0]:  # under vmap a view's strides are the batch's: index the diagonal
            step = width + 1
            n = (self.numel() + step - 1) // step if wraps else size
            pos = np.arange(n) * step if self.ndim == 2 else np.arange(n)
            idx = (pos // width, pos % width) if self.ndim == 2 else (np.arange(n),) * self.ndim
            self[tuple(i.astype(np.int64) for i in idx)] = fill_value
            return self
        stride, offset = (sum(self.stride()),), self.storage_offset()
        self.as_strided((size,), stride, offset).fill_(fill_value)
        if wraps:
            step = width + 1
            size = (self.numel() + step - 1) // step - size
            self.as_strided((size,), stride, offset + self.stride(0) * step).fill_(fill_value)
        return self

    # ----- random sampling in place (torch's CPU streams; framework/_sampling.py) ----------
    def uniform_(self, from_=0.0, to=1.0, *, generator=None):
        return _sampling.uniform_(self, from_, to, generator=generator)

    def normal_(self, mean=0.0, std=1.0, *, generator=None):
        return _sampling.normal_(self, mean, std, generator=generator)

    def random_(self, *args, generator=None, **kwargs):
        if "from" in kwargs:
            kwargs["from_"] = kwargs.pop("from")
        return _sampling.random_(self, *args, generator=generator, **kwargs)

    def exponential_(self, lambd=1.0, *, generator=None):
        return _sampling.exponential_(self, lambd, generator=generator)

    def geometric_(self, p, *, generator=None):
        return _sampling.geometric_(self, p, generator=generator)

    def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
        return _sampling.cauchy_(self, median, sigma, generator=generator)

    def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
        return _sampling.log_normal_(self, mean, std, generator=generator)

    def bernoulli_(self, p=0.5, *, generator=None):
        return _sampling.bernoulli_(self, p, generator=generator)

    def bernoulli(self, p=None, *, generator=None):
        return _sampling.bernoulli(self, p, generator=generator)

    def multinomial(self, num_samples, replacement=False, *, generator=None):
        return _sampling.multinomial(self, num_samples, replacement, generator=generator)

    def __setitem__(self, index, value):
        _ops.setitem(self, index, value)

    # ----- methods over ops (one line each) ------------------------------------------------
    def add(self, other, alpha=1):
        return _ops.add(self, other, alpha=alpha)

    def sub(self, other, alpha=1):
        return _ops.sub(self, other, alpha=alpha)

    def mul(self, other):
        return _ops.mul(self, other)

    def div(self, other, rounding_mode=None):
        return _ops.div(self, other, rounding_mode=rounding_mode)

    def pow(self, exponent):
        return _ops.pow(self, exponent)

    def neg(self):
        return _ops.neg(self)

    def reciprocal(self):
        return _ops.reciprocal(self)

    def square(self):
        return _ops.square(self)

    def exp(self):
        return _ops.exp(self)

    def log(self):
        return _ops.log(self)

    def sqrt(self):
        return _ops.sqrt(self)

    def rsqrt(self):
        return _ops.rsqrt(self)

    def sin(self):
        return _ops.sin(self)

    def cos(self):
        return _ops.cos(self)

    def tanh(self):
        return _ops.tanh(self)

    def sigmoid(self):
        return _ops.sigmoid(self)

    def relu(self):
        return _ops.relu(self)

    def abs(self):
        return _ops.abs(self)

    def sign(self):
        return _ops.sign(self)

    def clamp(self, min=None, max=None):
        return _ops.clamp(self, min, max, _clamp_method="clamp")

    clip = clamp

    def maximum(self, other):
        return _ops.maximum(self, other)

    def minimum(self, other):
        return _ops.minimum(self, other)

    def where(self, condition, other):
        return _ops.where(condition, self, other)

    def eq(self, other):
        return _ops.eq(self, other)

    def ne(self, other):
        return _ops.ne(self, other)

    def lt(self, other):
        return _ops.lt(self, other)

    def le(self, other):
        return _ops.le(self, other)

    def gt(self, other):
        return _ops.gt(self, other)

    def ge(self, other):
        return _ops.ge(self, other)

    def equal(self, other):
        return self.shape == other.shape and bool((self == other).all())

    def allclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
        return bool(self.xp.allclose(self._data, other._data, rtol, atol, equal_nan))

    def logical_not(self):
        return _ops.logical_not(self)

    def sum(self, dim=NOT_GIVEN, keepdim=None, dtype=None):
        if type(dim) is int and dtype is None:  # framework.sum's common call, one call less
            return _sum_apply(self, dim=dim, keepdim=bool(keepdim))
        return _ops.sum(self, dim, keepdim, dtype)

    def sum_to_size(self, *size):
        return _ops.sum_to_size(self, *size)

    def mean(self, dim=NOT_GIVEN, keepdim=None, dtype=None):
        return _ops.mean(self, dim, keepdim, dtype=dtype)

    def prod(self, dim=NOT_GIVEN, keepdim=None, dtype=None):
        return _ops.prod(self, dim, keepdim, dtype=dtype)

    def var(self, *args, **kwargs):
        return _var_method(self, *args, **kwargs)

    def std(self, *args, **kwargs):
        return _std_method(self, *args, **kwargs)

    def max(self, dim=None, keepdim=False):
        return _ops.max(self, dim, keepdim)

    def min(self, dim=None, keepdim=False):
        return _ops.min(self, dim, keepdim)

    def amax(self, dim=(), keepdim=False):
        return _ops.amax(self, dim, keepdim)

    def amin(self, dim=(), keepdim=False):
        return _ops.amin(self, dim, keepdim)

    def argmax(self, dim=None, keepdim=False):
        return _ops.argmax(self, dim, keepdim)

    def argmin(self, dim=None, keepdim=False):
        return _ops.argmin(self, dim, keepdim)

    def logsumexp(self, dim, keepdim=False):
        return _ops.logsumexp(self, dim, keepdim)

    def all(self, dim=None, keepdim=False):
        return _ops.all(self, dim, keepdim)

    def any(self, dim=None, keepdim=False):
        return _ops.any(self, dim, keepdim)

    def softmax(self, dim, dtype=None):
        return _ops.softmax(self, dim, dtype=dtype)

    def log_softmax(self, dim, dtype=None):
        return _ops.log_softmax(self, dim, dtype=dtype)

    def remainder(self, other):
        return _ops.remainder(self, other)

    def floor_divide(self, other):
        return _ops.floor_divide(self, other)

    def floor(self):
        return _ops.floor(self)

    def ceil(self):
        return _ops.ceil(self)

    def round(self, decimals=0):
        return _ops.round(self, decimals=decimals)

    def trunc(self):
        return _ops.trunc(self)

    def frac(self):
        return _ops.frac(self)

    def log1p(self):
        return _ops.log1p(self)

    def expm1(self):
        return _ops.expm1(self)

    def clamp_min(self, min):
        return _ops.clamp_min(self, min)

    def clamp_max(self, max):
        return _ops.clamp_max(self, max)

    def logical_and(self, other):
        return _ops.logical_and(self, other)

    def logical_or(self, other):
        return _ops.logical_or(self, other)

    def logical_xor(self, other):
        return _ops.logical_xor(self, other)

    def bitwise_and(self, other):
        return _ops.bitwise_and(self, other)

    def bitwise_or(self, other):
        return _ops.bitwise_or(self, other)

    def bitwise_xor(self, other):
        return _ops.bitwise_xor(self, other)

    def bitwise_not(self):
        return _ops.bitwise_not(self)

    def reshape(self, *shape):
        return _ops.reshape(self, *shape)

    def view(self, *shape):
        if len(shape) == 1 and not isinstance(shape[0], (int, tuple, list, Size)):
            return self._view_dtype(shape[0])
        return _ops.view(self, *shape)

    def _view_dtype(self, dtype):
        """view(dtype): the same memory read as another dtype (not a view, no history)."""
        arr, dt = self._data, dtypes.to_numpy_dtype(dtype)
        if dt.itemsize != arr.itemsize:
            names = (
                dtypes.scalar_type_name(arr.dtype),
                dtypes.scalar_type_name(dt),
            )
            what = "to view {} as {} (different element sizes)".format(*names)
            if arr.ndim == 0:
                raise RuntimeError(f"self.dim() cannot be 0 {what}")
            if arr.strides[-1] != arr.itemsize:
                raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {self.stride(-1)}")
            ratio = dt.itemsize // arr.itemsize
            if ratio > 1 and arr.shape[-1] % ratio:
                raise RuntimeError(
                    f"self.size(-1) must be divisible by {ratio} {what}, but got {arr.shape[-1]}"
                )
        return Tensor._make(arr.view(dt), self._device)

    def view_as(self, other):
        return _ops.view(self, other.shape)

    def narrow(self, dim, start, length):
        return _ops.narrow(self, dim, start, length)

    def select(self, dim, index):
        return _ops.select(self, dim, index)

    def diagonal(self, offset=0, dim1=0, dim2=1):
        return _ops.diagonal(self, offset, dim1, dim2)

    def unfold(self, dimension, size, step):
        return _vw.unfold(self, dimension, size, step)

    def as_strided(self, size, stride, storage_offset=None):
        return _ops.as_strided(self, size, stride, storage_offset)

    def reshape_as(self, other):
        return _ops.reshape(self, other.shape)

    def flatten(self, start_dim=0, end_dim=-1):
        return _ops.flatten(self, start_dim, end_dim)

    def unflatten(self, dim, sizes):
        return _ops.unflatten(self, dim, sizes)

    def squeeze(self, dim=None):
        return _ops.squeeze(self, dim)

    def unsqueeze(self, dim):
        return _ops.unsqueeze(self, dim)

    def permute(self, *dims):
        return _ops.permute(self, *dims)

    def transpose(self, dim0, dim1):
        return _ops.transpose(self, dim0, dim1)

    def t(self):
        return _ops.t(self)

    def swapaxes(self, axis0, axis1):
        return _ops.transpose(self, axis0, axis1)

    def movedim(self, source, destination):
        return _ops.movedim(self, source, destination)

    def expand(self, *sizes):
        return _ops.expand(self, *sizes)

    def expand_as(self, other):
        return _ops.expand(self, other.shape)

    def repeat(self, *sizes):
        return _ops.repeat(self, *sizes)

    def split(self, split_size, dim=0):
        return _ops.split(self, split_size, dim)

    def chunk(self, chunks, dim=0):
        return _ops.chunk(self, chunks, dim)

    def unbind(self, dim=0):
        return _ops.unbind(self, dim)

    def matmul(self, other):
        return _ops.matmul(self, other)

    def mm(self, other):
        return _ops.mm(self, other)

    def bmm(self, other):
        return _ops.bmm(self, other)

    def mv(self, other):
        return _ops.mv(self, other)

    def dot(self, other):
        return _ops.dot(self, other)

    def gather(self, dim, index):
        return _ops.gather(self, dim, index)

    def scatter(self, dim, index, src=None, *, value=None, reduce=None):
        return _ops.scatter(self, dim, index, src, value=value, reduce=reduce)

    def scatter_(self, dim, index, src=None, *, value=None, reduce=None):
        with _scatter_in_place(self):  # (its bounds error: torch's read order over self)
            return self._inplace(_ops.scatter, dim, index, src, value=value, reduce=reduce)

    def scatter_add(self, dim, index, src):
        return _ops.scatter_add(self, dim, index, src)

    def scatter_add_(self, dim, index, src):
        with _scatter_in_place(self):
            return self._inplace(_ops.scatter_add, dim, index, src)

    def outer(self, vec2):
        return _ops.outer(self, vec2)

    def baddbmm(self, batch1, batch2, *, beta=1, alpha=1):
        """See :func:`framework.baddbmm`."""
        return _ops.baddbmm(self, batch1, batch2, beta=beta, alpha=alpha)

    def addbmm(self, batch1, batch2, *, beta=1, alpha=1):
        """See :func:`framework.addbmm`."""
        return _ops.addbmm(self, batch1, batch2, beta=beta, alpha=alpha)

    def addmv(self, mat, vec, *, beta=1, alpha=1):
        """See :func:`framework.addmv`."""
        return _ops.addmv(self, mat, vec, beta=beta, alpha=alpha)

    def addr(self, vec1, vec2, *, beta=1, alpha=1):
        """See :func:`framework.addr`."""
        return _ops.addr(self, vec1, vec2, beta=beta, alpha=alpha)

    def vdot(self, other):
        """See :func:`framework.vdot`."""
        return _ops.vdot(self, other)

    def broadcast_to(self, *size):
        """See framework.broadcast_to (a view, as ``expand``)."""
        return _ops.expand(self, *size)

    def addmm(self, mat1, mat2, *, beta=1, alpha=1):
        return _ops.addmm(self, mat1, mat2, beta=beta, alpha=alpha)

    def masked_fill(self, mask, value):
        return _ops.masked_fill(self, mask, value)

    def index_select(self, dim, index):
        return _ops.index_select(self, dim, index)

    def nonzero(self, as_tuple=False):
        return _ops.nonzero(self, as_tuple)

    def new_zeros(self, *size, dtype=None, device=None):
        return _creation.zeros(*size, dtype=dtype or self.dtype, device=device or self._device)

    def new_ones(self, *size, dtype=None, device=None):
        return _creation.ones(*size, dtype=dtype or self.dtype, device=device or self._device)

    def new_full(self, size, fill_value, dtype=None, device=None):
        return _creation.full(
            size, fill_value, dtype=dtype or self.dtype, device=device or self._device
        )

    def new_tensor(self, data, dtype=None, device=None):
        return _creation.tensor(data, dtype=dtype or self.dtype, device=device or self._device)

    # ----- operators -----------------------------------------------------------------------
    def __add__(self, other):
        return _add_apply(self, other)  # Add.apply (add() without alpha): one call less

    def __radd__(self, other):  # torch's order: the tensor first (node edges, scalar reads)
        return _add_apply(self, other)

    def __iadd__(self, other):
        return self.add_(other)

    def __sub__(self, other):
        return _ops.sub(self, other)

    def __rsub__(self, other):
        return _ops.rsub(self, other)  # torch: RsubBackward1, one edge

    def __isub__(self, other):
        return self.sub_(other)

    def __mul__(self, other):
        return _mul_apply(self, other)  # Mul.apply (mul() itself): one call less

    def __rmul__(self, other):  # torch's order: the tensor first (node edges, scalar reads)
        return _mul_apply(self, other)

    def __imul__(self, other):
        return self.mul_(other)

    def __truediv__(self, other):
        return _ops.div(self, other)

    def __rtruediv__(self, other):
        return _ops.div(other, self)

    def __itruediv__(self, other):
        return self.div_(other)

    def __floordiv__(self, other):
        return _ops.floor_divide(self, other)

    def __rfloordiv__(self, other):
        return _ops.floor_divide(other, self)

    def __rmod__(self, other):
        return _ops.remainder(other, self)

    def __mod__(self, other):
        return _ops.remainder(self, other)

    def __pow__(self, exponent):
        return _ops.pow(self, exponent)

    def __rpow__(self, base):
        return _ops.pow(base, self)

    def __rmatmul__(self, other):
        return _ops.matmul(other, self)

    def __neg__(self):
        return _ops.neg(self)

    def __pos__(self):
        if self._data.dtype.kind == "b":
            raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
        return self

    def __abs__(self):
        return _ops.abs(self)

    def __invert__(self):
        if self._data.dtype.kind == "f":
            raise TypeError(
                "~ (operator.invert) is only implemented on integer and Boolean-type tensors"
            )
        return _ops.bitwise_not(self)

    def __and__(self, other):
        return _ops.bitwise_and(self, other)

    def __or__(self, other):
        return _ops.bitwise_or(self, other)

    def __xor__(self, other):
        return _ops.bitwise_xor(self, other)

    def __rand__(self, other):
        return _ops.bitwise_and(other, self)

    def __ror__(self, other):
        return _ops.bitwise_or(other, self)

    def __rxor__(self, other):
        return _ops.bitwise_xor(other, self)

    def __eq__(self, other):
        return _ops.eq(self, other)

    def __ne__(self, other):
        return _ops.ne(self, other)

    def __lt__(self, other):
        return _ops.lt(self, other)

    def __le__(self, other):
        return _ops.le(self, other)

    def __gt__(self, other):
        return _ops.gt(self, other)

    def __ge__(self, other):
        return _ops.ge(self, other)

    def __getitem__(self, index):
        return _ops.getitem(self, index)

    # ----- ops and layers (issue 11): sorting, scans, special functions, selection -----------
    def tril(self, diagonal=0):
        return _ops.tril(self, diagonal)

    def triu(self, diagonal=0):
        return _ops.triu(self, diagonal)

    def tril_(self, diagonal=0):
        return self._inplace(_ops.tril, diagonal)

    def triu_(self, diagonal=0):
        return self._inplace(_ops.triu, diagonal)

    def flip(self, *dims):
        return _ops.flip(self, dims[0] if len(dims) == 1 and not isinstance(dims[0], int) else dims)

    def fliplr(self):
        return _ops.fliplr(self)

    def flipud(self):
        return _ops.flipud(self)

    def roll(self, shifts, dims=None):
        return _ops.roll(self, shifts, dims)

    def rot90(self, k=1, dims=(0, 1)):
        return _ops.rot90(self, k, dims)

    def cumsum(self, dim, *, dtype=None):
        return _ops.cumsum(self, dim, dtype=dtype)

    def cumprod(self, dim, *, dtype=None):
        return _ops.cumprod(self, dim, dtype=dtype)

    def cumsum_(self, dim, *, dtype=None):
        return self._inplace(_ops.cumsum, dim, dtype=dtype)

    def cummax(self, dim):
        return _ops.cummax(self, dim)

    def cummin(self, dim):
        return _ops.cummin(self, dim)

    def sort(self, dim=-1, descending=False, stable=None):
        return _ops.sort(self, dim, descending, stable)

    def argsort(self, dim=-1, descending=False, stable=False):
        return _ops.argsort(self, dim, descending, stable)

    def msort(self):
        return _ops.msort(self)

    def topk(self, k, dim=-1, largest=True, sorted=True):
        return _ops.topk(self, k, dim, largest, sorted)

    def kthvalue(self, k, dim=-1, keepdim=False):
        return _ops.kthvalue(self, k, dim, keepdim)

    def median(self, dim=None, keepdim=False):
        return _ops.median(self, dim, keepdim)

    def nanmedian(self, dim=None, keepdim=False):
        return _ops.nanmedian(self, dim, keepdim)

    def mode(self, dim=-1, keepdim=False):
        return _ops.mode(self, dim, keepdim)

    def erf(self):
        return _ops.erf(self)

    def erfc(self):
        return _ops.erfc(self)

    def erfinv(self):
        return _ops.erfinv(self)

    def tan(self):
        return _ops.tan(self)

    def sinh(self):
        return _ops.sinh(self)

    def cosh(self):
        return _ops.cosh(self)

    def asin(self):
        return _ops.asin(self)

    def acos(self):
        return _ops.acos(self)

    def atan(self):
        return _ops.atan(self)

    def asinh(self):
        return _ops.asinh(self)

    def acosh(self):
        return _ops.acosh(self)

    def atanh(self):
        return _ops.atanh(self)

    arcsin, arccos, arctan = asin, acos, atan
    arcsinh, arccosh, arctanh = asinh, acosh, atanh

    def log2(self):
        return _ops.log2(self)

    def log10(self):
        return _ops.log10(self)

    def exp2(self):
        return _ops.exp2(self)

    def lerp(self, end, weight):
        return _ops.lerp(self, end, weight)

    def ldexp_(self, other):
        """In-place :func:`framework.ldexp`: ``self * 2 ** other`` written into ``self``.

        Args:
            other (Tensor): the exponents, broadcastable to ``self``'s shape.

        Returns:
            Tensor: ``self``. An integer or bool ``self`` is refused, as torch does.

        Example:
            >>> framework.tensor([1.0, 3.0]).ldexp_(framework.tensor([2, -1]))
            tensor([4.0000, 1.5000])
        """
        _ops.extras4._need_tensor("ldexp_", "other", 1, other)
        if self._data.dtype.kind in "biu":  # torch's check, before the shapes
            raise RuntimeError(
                "ldexp can't be cast to the desired output type "
                f"{dtypes.scalar_type_name(self._data.dtype)}"
            )
        return self._inplace(_ops.ldexp, other)

    def lerp_(self, end, weight):
        return self._inplace(_ops.pointwise._lerp, end, weight, inplace=True)

    def addcmul(self, tensor1, tensor2, *, value=1):
        return _ops.addcmul(self, tensor1, tensor2, value=value)

    def addcmul_(self, tensor1, tensor2, *, value=1):
        return self._inplace(_ops.addcmul, tensor1, tensor2, value=value)

    def addcdiv(self, tensor1, tensor2, *, value=1):
        return _ops.addcdiv(self, tensor1, tensor2, value=value)

    def addcdiv_(self, tensor1, tensor2, *, value=1):
        return self._inplace(_ops.addcdiv, tensor1, tensor2, value=value)

    def atan2(self, other):
        return _ops.atan2(self, other)

    arctan2 = atan2

    def hypot(self, other):
        return _ops.hypot(self, other)

    def xlogy(self, other):
        return _ops.xlogy(self, other)

    def logaddexp(self, other):
        return _ops.logaddexp(self, other)

    def fmod(self, other):
        return _ops.fmod(self, other)

    def nan_to_num(self, nan=0.0, posinf=None, neginf=None):
        return _ops.nan_to_num(self, nan, posinf, neginf)

    def nan_to_num_(self, nan=0.0, posinf=None, neginf=None):
        """In-place version of :meth:`~Tensor.nan_to_num`."""
        return self._inplace(_ops.nan_to_num, nan, posinf, neginf)

    def sgn(self):
        return _ops.sgn(self)

    def isnan(self):
        return _ops.isnan(self)

    def isinf(self):
        return _ops.isinf(self)

    def isfinite(self):
        return _ops.isfinite(self)

    def isclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
        return _ops.isclose(self, other, rtol, atol, equal_nan)

    def masked_select(self, mask):
        return _ops.masked_select(self, mask)

    def masked_scatter(self, mask, source):
        return _ops.masked_scatter(self, mask, source)

    def masked_scatter_(self, mask, source):
        if (
            isinstance(mask, Tensor)
            and mask._data.shape != self._data.shape
            and not _grad_leaf(self)
        ):
            mask = mask.expand(*self.shape)  # in place: the mask expands to self (torch's error)
        return self._inplace(_ops.masked_scatter, mask, source)

    def take(self, index):
        return _ops.take(self, index)

    def take_along_dim(self, indices, dim=None):
        return _ops.take_along_dim(self, indices, dim)

    def index_put(self, indices, values, accumulate=False):
        _ops.indexing.check_index_tuple(indices, "index_put", method=True)
        return _ops.index_put(self, indices, values, accumulate)

    def index_put_(self, indices, values, accumulate=False):
        _ops.indexing.check_index_tuple(indices, "index_put_", method=True)
        if not accumulate:  # (at::index_put_: the value not viewed without its leading 1s)
            _ops.indexing.setitem(self, tuple(indices), values, strip_ones=False)
            return self
        return self._inplace(_ops.index_put, indices, values, accumulate)

    def index_add(self, dim, index, source, *, alpha=1):
        return _ops.index_add(self, dim, index, source, alpha=alpha)

    def index_add_(self, dim, index, source, *, alpha=1):
        return self._inplace(_ops.index_add, dim, index, source, alpha=alpha)

    def index_copy(self, dim, index, source):
        return _ops.index_copy(self, dim, index, source)

    def index_copy_(self, dim, index, source):
        return self._inplace(_ops.index_copy, dim, index, source)

    def index_fill(self, dim, index, value):
        return _ops.index_fill(self, dim, index, value)

    def index_fill_(self, dim, index, value):
        return self._inplace(_ops.index_fill, dim, index, value)

    def scatter_reduce(self, dim, index, src, reduce, *, include_self=True):
        return _ops.scatter_reduce(self, dim, index, src, reduce, include_self=include_self)

    def scatter_reduce_(self, dim, index, src, reduce, *, include_self=True):
        with _scatter_in_place(self):
            return self._inplace(
                _ops.scatter_reduce, dim, index, src, reduce, include_self=include_self
            )

    def norm(self, p="fro", dim=None, keepdim=False, dtype=None):
        return _ops.norm(self, p, dim, keepdim, dtype)

    def bitwise_left_shift(self, other):
        return _ops.bitwise_left_shift(self, other)

    def bitwise_right_shift(self, other):
        return _ops.bitwise_right_shift(self, other)

    def __lshift__(self, other):
        return _ops.bitwise_left_shift(self, other)

    def __rshift__(self, other):
        return _ops.bitwise_right_shift(self, other)

    def __rlshift__(self, other):
        return _ops.bitwise_left_shift(other, self)

    def __rrshift__(self, other):
        return _ops.bitwise_right_shift(other, self)

    def unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
        return _ops.unique(self, sorted, return_inverse, return_counts, dim)

    def unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
        return _ops.unique_consecutive(self, return_inverse, return_counts, dim)

    def bincount(self, weights=None, minlength=0):
        return _ops.bincount(self, weights, minlength)

    def histc(self, bins=100, min=0, max=0):
        return _ops.histc(self, bins, min, max)

    def count_nonzero(self, dim=None):
        return _ops.count_nonzero(self, dim)

    def cross(self, other, dim=None):
        return _ops.cross(self, other, dim)

    def trace(self):
        return _ops.trace(self)

    def kron(self, other):
        return _ops.kron(self, other)

    def diff(self, n=1, dim=-1, prepend=None, append=None):
        return _ops.diff(self, n, dim, prepend, append)

    def tensor_split(self, indices_or_sections, dim=0):
        return _ops.tensor_split(self, indices_or_sections, dim)

    def repeat_interleave(self, repeats=None, dim=None, *, output_size=None):
        return _ops.repeat_interleave(self, repeats, dim)

    def aminmax(self, *, dim=None, keepdim=False):
        return _ops.aminmax(self, dim=dim, keepdim=keepdim)

    def nansum(self, dim=None, keepdim=False, *, dtype=None):
        return _ops.nansum(self, dim, keepdim, dtype=dtype)

    def nanmean(self, dim=None, keepdim=False, *, dtype=None):
        return _ops.nanmean(self, dim, keepdim, dtype=dtype)

    def fmax(self, other):
        return _ops.fmax(self, other)

    def fmin(self, other):
        return _ops.fmin(self, other)

    def quantile(self, q, dim=None, keepdim=False, *, interpolation="linear"):
        return _ops.quantile(self, q, dim, keepdim, interpolation=interpolation)

    def nanquantile(self, q, dim=None, keepdim=False, *, interpolation="linear"):
        return _ops.nanquantile(self, q, dim, keepdim, interpolation=interpolation)

    def inverse(self):
        return _linalg().inv(self)

    def det(self):
        return _linalg().det(self)

    def slogdet(self):
        return _linalg().slogdet(self)

    def cholesky(self, upper=False):
        return _ops.cholesky(self, upper=upper)  # torch.cholesky (CholeskyBackward0)

    def pinverse(self, rcond=1e-15):
        from .ops.linalg_ext import pinverse

        return pinverse(self, rcond)

    def matrix_power(self, n):
        return _linalg().matrix_power(self, n)


def _fw_copy(dst, src):
    """dst gets src's tangents (forward AD) in a holder of its own."""
    from .autograd import forward_ad

    for level, tangent in list(src._fw.items()):
        forward_ad._set(dst, level, tangent)


def _fw_inplace(t, out, old=None):
    """An in-place op's result tangents become t's (forward AD). Under no_grad (`old`: t's
    tangents before) a tangent with history keeps it, as torch changes only its values."""
    from .autograd import forward_ad

    for level, tangent in list(out._fw.items()):
        if old is not None and old.get(level) is not None:
            tangent = forward_ad.keep_history(old[level], tangent)
        forward_ad._set(t, level, tangent)
    if type(t) is View:
        forward_ad.write_through_view(t, out)


def _inplace_shape_first(t, tensors):
    """Raise torch's in-place shape error where a kernel refused t's dtype: torch's
    TensorIterator checks the broadcast output shape before the kernel dispatches on dtype."""
    from ._errors import broadcast_shapes, inplace_shape_error

    try:
        shape = broadcast_shapes(t._data.shape, *(a._data.shape for a in tensors))
    except RuntimeError as e:  # a broadcast mismatch, also before the dtype
        raise e from None
    if shape != t._data.shape:
        raise inplace_shape_error(t._data.shape, shape) from None


def _write(t, values):
    """Copy values into t's array in place and bump its version (shared with its views)."""
    if type(t) is View:
        _writable_view(t)
    if values is not t._data:
        if values.shape != t._data.shape and values.ndim >= t._data.ndim:
            raise RuntimeError(
                f"output with shape {list(t._data.shape)} doesn't match the "
                f"broadcast shape {list(values.shape)}"
            )
        if np.can_cast(values.dtype, t._data.dtype, "same_kind") or values.dtype == np.bool_:
            try:
                t._data[...] = values
            except ValueError as e:  # read-only: torch's ZeroTensor refuses writes
                from .autograd.zero_grad import refuse_write

                raise refuse_write(t, e) from None
        else:
            name = dtypes.scalar_type_name(values.dtype)
            raise RuntimeError(
                f"result type {name}"
                f" can't be cast to the desired output type "
                f"{dtypes.scalar_type_name(t._data.dtype)}"
            )
    t._vc[0] += 1


def _grad_leaf(t):
    """Whether an in-place op on t is refused as a write into a leaf that requires grad."""
    return state.enabled and t.requires_grad and t.grad_fn is None and type(t) is not View


def _writable_view(v):
    """torch refuses to write where elements alias; NumPy marks broadcast views read-only
    even where they do not, so those get a writable alias of the same memory."""
    views = _vw
    if views.has_internal_overlap(v._data):
        raise RuntimeError(views.OVERLAP)
    if not getattr(v._data.flags, "writeable", True) and v._vbase._data.flags.writeable:
        from .backend import as_strided, storage_of

        v._data = as_strided(
            storage_of(v._data),
            v._data.shape,
            views.strides(v._data),
            views.storage_offset(v._data),
        )


DETACH_VIEW = (
    "Can't detach views in-place. Use detach() instead. If you are using "
    "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set "
    "as True, gradients are views of DDP buckets, and hence detach_() cannot be called "
    "on these gradients. To fix this error, please refer to the Optimizer.zero_grad() "
    "function in torch/optim/optimizer.py as the solution."
)
_GRAD_FN = Tensor.__dict__["grad_fn"]  # the slots under View's properties
_REQUIRES_GRAD = Tensor.__dict__["_rg"]


class View(Tensor):
    """A tensor sharing its base's storage and version counter (what torch calls a view).

    Its history is regenerated (AsStridedBackward0 from the base) when the storage was
    written in place since it was made, and it requires grad when its base does.
    """

    __slots__ = ("_vbase", "_vattr", "_vmeta", "_vbw")

    @property
    def _base(self):
        return self._vbase

    def _is_view(self):
        return True

    @property
    def _rg(self):
        return (
            _REQUIRES_GRAD.__get__(self)
            or _GRAD_FN.__get__(self) is not None
            or (self._vbw and self._vbase._rg)
        )

    @_rg.setter
    def _rg(self, value):
        _REQUIRES_GRAD.__set__(self, value)

    @property
    def grad_fn(self):
        fn = _GRAD_FN.__get__(self)
        if self._vattr != self._vc[0] and self._vbw and (fn is not None or self._vbase._rg):
            return _vw.regenerate(self)
        return fn

    @grad_fn.setter
    def grad_fn(self, fn):
        _GRAD_FN.__set__(self, fn)


View.__name__ = View.__qualname__ = "Tensor"  # type(view).__name__ is 'Tensor', as in torch


class UntypedStorage:
    """The memory under a tensor: what its views share (torch.UntypedStorage basics)."""

    def __init__(self, tensor):
        from .backend import storage_of

        self._array = storage_of(tensor._data)
        self.device = tensor._device

    def data_ptr(self):
        from .backend import data_ptr

        return data_ptr(self._array)

    def nbytes(self):
        return int(self._array.nbytes)

    def size(self):
        return self.nbytes()

    __len__ = size

    def element_size(self):
        return 1


_TYPED_STORAGE_WARNING = (
    "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be "
    "the only storage class. This should only matter to you if you are using storages "
    "directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead of "
    "tensor.storage()"
)


class TypedStorage(UntypedStorage):
    """What the deprecated `Tensor.storage()` returns: the storage counted in elements."""

    def __init__(self, tensor):
        super().__init__(tensor)
        self.dtype = tensor.dtype

    def size(self):
        return self.nbytes() // self.dtype.itemsize

    __len__ = size

    def element_size(self):
        return self.dtype.itemsize


def _linalg():
    from . import linalg

    return linalg


def _check_requires_grad(t, value):
    if value and t._data.dtype.kind not in "fcV":
        raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
    if t.grad_fn is not None and not value:
        raise RuntimeError(
            "you can only change requires_grad flags of leaf variables. If you want "
            "to use a computed variable in a subgraph that doesn't require "
            "differentiation use var_no_grad = var.detach()."
        )


def _parse_to(t, args, kwargs):
    """Tensor.to(device), to(dtype), to(tensor), to(device, dtype), with keywords."""
    dev, dt = kwargs.pop("device", None), kwargs.pop("dtype", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    for a in args:
        if isinstance(a, Tensor):
            dev, dt = a._device, a._data.dtype
        elif isinstance(a, dtypes.dtype) or a in (float, int, bool):
            dt = a
        elif a is not None:
            dev = a
    dev = t._device if dev is None else as_device(dev)
    if dt is not None:
        dt = dtypes.to_numpy_dtype(dt)
    return dev, dt, copy


class _no_grad:
    def __enter__(self):
        self.prev = state.enabled
        state.enabled = False

    def __exit__(self, *exc):
        state.enabled = self.prev


def _rebuild_tensor(array, device, requires_grad):
    """Unpickle a Tensor (see Tensor.__reduce_ex__)."""
    dev = as_device(device)
    return Tensor._make(move(array, dev), dev, requires_grad)


def _extras2_methods(names):
    """Tensor methods that call framework.<name>(self, ...): those of framework/ops/extras2.py
    (torch's tile, diag_embed, logit, ...) and the legacy linear-algebra forms."""
    for name in names.split():

        def method(self, *args, _name=name, **kwargs):  # ops resolve at call time (layering)
            return getattr(_ops, _name)(self, *args, **kwargs)

        method.__name__ = method.__qualname__ = name
        method.__doc__ = f"See :func:`framework.{name}`."
        setattr(Tensor, name, method)


_extras2_methods(
    "diag diag_embed diagflat logit signbit deg2rad rad2deg sinc positive ravel inner "
    "hsplit vsplit dsplit argwhere is_same_size is_nonzero dist logcumsumexp float_power "
    "copysign "
    "cov corrcoef heaviside "
    "lgamma digamma i0 mvlgamma gcd lcm ldexp nextafter logdet histogram matrix_exp renorm "
    "index_reduce"
)
# framework/ops/linalg_legacy.py, linalg_solvers.py, linalg_lu_solve.py
_extras2_methods("svd qr lu lu_solve triangular_solve cholesky_solve cholesky_inverse orgqr")


def _tile(self, *dims):
    """See :func:`framework.tile` (the method also takes the dims unpacked)."""
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = dims[0]
    return _ops.tile(self, tuple(dims))


Tensor.tile = _tile


def _polygamma(self, n):
    """See :func:`framework.polygamma` (the method takes n only)."""
    return _ops.polygamma(n, self)


Tensor.polygamma = _polygamma


def _index_reduce_(self, dim, index, source, reduce, *, include_self=True):
    """See :func:`framework.index_reduce` (in place: the result is copied into self)."""
    out = _ops.index_reduce(self, dim, index, source, reduce, include_self=include_self)
    return self.copy_(out)


Tensor.index_reduce_ = _index_reduce_


from .autograd.grad_mode import state  # noqa: E402  (autograd needs Tensor defined)
from . import _tensor_str  # noqa: E402  (printing needs Tensor defined)
from . import creation as _creation  # noqa: E402
from . import _sampling  # noqa: E402
from . import ops as _ops  # noqa: E402  (ops import Tensor; methods resolve them at call time)
from .ops.gather import in_place as _scatter_in_place  # noqa: E402
from .ops import views as _vw  # noqa: E402
from . import _memory_format as _mf  # noqa: E402
from .autograd.op import AccumulateGrad, _add_hook, _int_out_allowed, new_hook_dict  # noqa: E402
from .autograd.op import vmap_hook as _vmap_hook  # noqa: E402
from .autograd.node import node_hooks as _node_hooks  # noqa: E402
from .ops.elementwise import Add as _Add, Mul as _Mul  # noqa: E402  (operators skip add()/mul())
from .ops.reduction import Sum as _Sum  # noqa: E402  (sum(dim) skips framework.sum)

# bound once: a classmethod binds its class on every attribute read (~30 ns per operator)
_add_apply, _mul_apply, _sum_apply = _Add._binary, _Mul._binary, _Sum.apply  # (_binary: apply
#                                                   with positional operands, Op.apply's fast path)
Tensor.__matmul__ = _ops.matmul  # (a method calling it: one call more per product)
from .ops.reduction import std as _std_fn, tensor_method as _tensor_method, var as _var_fn  # noqa: E402

_var_method, _std_method = _tensor_method(_var_fn), _tensor_method(_std_fn)
