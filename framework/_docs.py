"""Docstrings of the tensor functions and ``Tensor`` methods that the ops modules define tersely,
attached at import time as torch does in ``torch/_torch_docs.py`` and
``torch/_tensor_docs.py``. A name that already has a docstring keeps it. The examples run as
doctests (tests/test_doctests.py); their outputs were checked against torch 2.13.
"""

import inspect
import re
import sys

FUNCTIONS = {
    'absolute': 'Alias for :func:`framework.abs`.',
    'clip': 'Alias for :func:`framework.clamp`.',
    'concat': 'Alias for :func:`framework.cat`.',
    'concatenate': 'Alias for :func:`framework.cat`.',
    'divide': 'Alias for :func:`framework.div`.',
    'true_divide': 'Alias for :func:`framework.div`.',
    'fix': 'Alias for :func:`framework.trunc`.',
    'greater': 'Alias for :func:`framework.gt`.',
    'greater_equal': 'Alias for :func:`framework.ge`.',
    'less': 'Alias for :func:`framework.lt`.',
    'less_equal': 'Alias for :func:`framework.le`.',
    'not_equal': 'Alias for :func:`framework.ne`.',
    'multiply': 'Alias for :func:`framework.mul`.',
    'negative': 'Alias for :func:`framework.neg`.',
    'subtract': 'Alias for :func:`framework.sub`.',
    'swapaxes': 'Alias for :func:`framework.transpose`.',
    'swapdims': 'Alias for :func:`framework.transpose`.',
}

TENSOR_METHODS = {
    'xp': "The array module of this tensor's device: ``numpy`` on the CPU, ``cupy`` on the GPU.",
    'device': 'The :class:`framework.device` where this tensor lives.',
    'dtype': "The :class:`framework.dtype` of this tensor's elements.",
    'shape': 'The size of this tensor, as a :class:`framework.Size` (same as :meth:`size`).',
    'size': 'size(dim=None) -> framework.Size or int\n\nReturns the size of this tensor as a :class:`framework.Size` (a tuple), or the size of\ndimension ``dim``.\n\nArgs:\n    dim (int, optional): the dimension to return the size of. Default: ``None`` (all).\n\nExample:\n    >>> x = framework.zeros(2, 3)\n    >>> x.size()\n    torch.Size([2, 3])\n    >>> x.size(-1)\n    3',
    'dim': 'Returns the number of dimensions.',
    'ndim': 'The number of dimensions (same as :meth:`dim`).',
    'numel': 'Returns the total number of elements.',
    'nelement': 'Alias for :meth:`numel`.',
    'element_size': 'Returns the size in bytes of one element.',
    'is_leaf': 'True for tensors that are not the result of a recorded operation (created by the user, or not requiring grad); only leaves get ``.grad`` populated by backward.',
    'retains_grad': 'True if :meth:`retain_grad` was called on this non-leaf tensor.',
    'is_cuda': 'True if this tensor is stored on the GPU.',
    'is_floating_point': 'See :func:`framework.is_floating_point`.',
    'T': 'Returns a view with the dimensions reversed (for 2-D, the transpose).',
    'mT': 'Returns a view with the last two dimensions transposed (batched matrix transpose).',
    'requires_grad': 'True if autograd records operations on this tensor; settable on leaves.',
    'retain_grad': 'Makes this non-leaf tensor keep its ``.grad`` after backward.',
    'detach_': 'Detaches this tensor from the graph in place (it becomes a leaf).',
    'requires_grad_': 'requires_grad_(requires_grad=True) -> Tensor\n\nSets :attr:`requires_grad` in place and returns ``self``; only leaves can change it.\n\nArgs:\n    requires_grad (bool, optional): whether autograd should record operations on this tensor.\n        Default: ``True``.\n\nExample:\n    >>> x = framework.zeros(2).requires_grad_()\n    >>> x.requires_grad\n    True',
    'item': 'Returns the value of a one-element tensor as a Python number.',
    'tolist': 'Returns the tensor as a (nested) Python list of numbers.',
    'numpy': 'numpy(force=False) -> numpy.ndarray\n\nReturns the data as a NumPy array sharing memory with this tensor. Refused for a tensor\nthat requires grad or lives on the GPU unless ``force`` (then a detached CPU copy).\n\nArgs:\n    force (bool, optional): detach and copy to the CPU first when needed. Default: ``False``.\n\nExample:\n    >>> framework.tensor([1.0, 2.0]).numpy()\n    array([1., 2.], dtype=float32)',
    'to': 'Returns a tensor with the given ``dtype`` and/or ``device`` (``self`` when nothing changes); differentiable.',
    'cpu': 'Returns a copy of this tensor in CPU memory (``self`` if it is already there).',
    'cuda': "cuda(device=None) -> Tensor\n\nReturns a copy of this tensor in GPU memory (``self`` if it is already there). Needs a GPU\nand CuPy: install the ``gpu`` extra (``pip install -e '.[gpu]'``).\n\nArgs:\n    device (int or :class:`framework.device`, optional): the GPU to copy to. Default:\n        ``None`` (the current one).\n\nExample:\n    >>> x = framework.ones(2)\n    >>> x.cuda().device  # doctest: +SKIP\n    device(type='cuda', index=0)",
    'float': 'Returns ``self.to(framework.float32)``.',
    'double': 'Returns ``self.to(framework.float64)``.',
    'half': 'Returns ``self.to(framework.float16)``.',
    'long': 'Returns ``self.to(framework.int64)``.',
    'int': 'Returns ``self.to(framework.int32)``.',
    'bool': 'Returns ``self.to(framework.bool)``.',
    'type_as': 'type_as(other) -> Tensor\n\nReturns this tensor cast to the dtype of ``other`` (``self`` when it already has it).\n\nArgs:\n    other (Tensor): the tensor whose dtype to take.\n\nExample:\n    >>> framework.tensor([1, 2]).type_as(framework.zeros(1))\n    tensor([1., 2.])',
    'clone': 'See :func:`framework.clone`.',
    'add_': 'In-place version of :meth:`~Tensor.add`.',
    'sub_': 'In-place version of :meth:`~Tensor.sub`.',
    'mul_': 'In-place version of :meth:`~Tensor.mul`.',
    'div_': 'In-place version of :meth:`~Tensor.div`.',
    'pow_': 'In-place version of :meth:`~Tensor.pow`.',
    'clamp_': 'In-place version of :meth:`~Tensor.clamp`.',
    'clip_': 'In-place version of :meth:`~Tensor.clip`.',
    'neg_': 'In-place version of :meth:`~Tensor.neg`.',
    'exp_': 'In-place version of :meth:`~Tensor.exp`.',
    'logaddexp2': 'See :func:`framework.logaddexp2`.',
    'frexp': 'See :func:`framework.frexp`.',
    'is_complex': 'See :func:`framework.is_complex`.',
    'is_signed': 'See :func:`framework.is_signed`.',
    'is_inference': 'See :func:`framework.is_inference`.',
    'sqrt_': 'In-place version of :meth:`~Tensor.sqrt`.',
    'relu_': 'In-place version of :meth:`~Tensor.relu`.',
    'sigmoid_': 'In-place version of :meth:`~Tensor.sigmoid`.',
    'tanh_': 'In-place version of :meth:`~Tensor.tanh`.',
    'masked_fill_': 'In-place version of :meth:`~Tensor.masked_fill`.',
    'copy_': 'copy_(src, non_blocking=False) -> Tensor\n\nCopies the elements of ``src`` into this tensor in place (broadcasting ``src`` to this shape,\ncasting it to this dtype and device) and returns ``self``; differentiable (``CopyBackwards``).\n\nArgs:\n    src (Tensor): the tensor to copy from.\n    non_blocking (bool, optional): accepted for torch compatibility (copies are synchronous).\n        Default: ``False``.\n\nExample:\n    >>> x = framework.zeros(2, 2)\n    >>> x.copy_(framework.tensor([1.0, 2.0]))\n    tensor([[1., 2.],\n            [1., 2.]])',
    'zero_': 'Fills this tensor with zeros in place.',
    'fill_': 'fill_(value) -> Tensor\n\nFills this tensor with ``value`` in place and returns it.\n\nArgs:\n    value (Number or Tensor): the fill value (a 0-dim tensor is differentiable).\n\nExample:\n    >>> framework.zeros(3).fill_(2.5)\n    tensor([2.5000, 2.5000, 2.5000])',
    'uniform_': "uniform_(from_=0.0, to=1.0, *, generator=None) -> Tensor\n\nFills this tensor in place with numbers drawn uniformly from ``[from_, to)`` (torch's numbers\nfor the same seed).\n\nArgs:\n    from_ (float, optional): the lower bound. Default: ``0.0``.\n    to (float, optional): the upper bound. Default: ``1.0``.\n    generator (:class:`framework.Generator`, optional): a pseudorandom number generator for\n        sampling. Default: the global generator.\n\nExample:\n    >>> bool(((framework.empty(100).uniform_(-2, 2)).abs() <= 2).all())\n    True",
    'normal_': "normal_(mean=0.0, std=1.0, *, generator=None) -> Tensor\n\nFills this tensor in place with numbers from the normal distribution\n:math:`\\mathcal{N}(\\text{mean}, \\text{std}^2)` (torch's numbers for the same seed).\n\nArgs:\n    mean (float, optional): the mean. Default: ``0.0``.\n    std (float, optional): the standard deviation. Default: ``1.0``.\n    generator (:class:`framework.Generator`, optional): a pseudorandom number generator for\n        sampling. Default: the global generator.\n\nExample:\n    >>> framework.empty(2).normal_(5.0, 1e-6).round()\n    tensor([5., 5.])",
    'random_': 'random_(from=0, to=None, *, generator=None) -> Tensor\n\nFills this tensor in place with integers drawn uniformly from ``[from, to)``; ``random_(to)``\ndraws from ``[0, to)``, and with no bounds the range is that of the dtype (up to\n:math:`2^{24}` for float32, :math:`2^{53}` for float64, as torch).\n\nArgs:\n    *args (int): ``to``, or ``from, to``, as in torch.\n    **kwargs (int): ``from=`` and ``to=`` by keyword.\n    generator (:class:`framework.Generator`, optional): a pseudorandom number generator for\n        sampling. Default: the global generator.\n\nExample:\n    >>> framework.zeros(3).random_(5, 6)\n    tensor([5., 5., 5.])',
    'exponential_': 'exponential_(lambd=1.0, *, generator=None) -> Tensor\n\nFills this tensor in place with draws from the exponential distribution\n:math:`f(x) = \\lambda e^{-\\lambda x}`, :math:`x > 0`.\n\nArgs:\n    lambd (float, optional): the rate :math:`\\lambda`. Default: ``1.0``.\n    generator (:class:`framework.Generator`, optional): a pseudorandom number generator for\n        sampling. Default: the global generator.\n\nExample:\n    >>> bool((framework.empty(100).exponential_(2.0) > 0).all())\n    True',
    'geometric_': 'geometric_(p, *, generator=None) -> Tensor\n\nFills this tensor in place with draws from the geometric distribution: the number of\nBernoulli(``p``) trials up to and including the first success, :math:`P(X = k) = (1 - p)^{k -\n1} p`, :math:`k \\ge 1`.\n\nArgs:\n    p (float): the probability of success of each trial, in ``(0, 1)``.\n    generator (:class:`framework.Generator`, optional): a pseudorandom number generator for\n        sampling. Default: the global generator.\n\nExample:\n    >>> bool((framework.empty(100).geometric_(0.5) >= 1).all())\n    True',
    'cauchy_': 'cauchy_(median=0.0, sigma=1.0, *, generator=None) -> Tensor\n\nFills this tensor in place with draws from the Cauchy distribution\n:math:`f(x) = \\dfrac{1}{\\pi} \\dfrac{\\sigma}{(x - \\text{median})^2 + \\sigma^2}`.\n\nArgs:\n    median (float, optional): the location of the distribution. Default: ``0.0``.\n    sigma (float, optional): the half width at half maximum. Default: ``1.0``.\n    generator (:class:`framework.Generator`, optional): a pseudorandom number generator for\n        sampling. Default: the global generator.\n\nExample:\n    >>> framework.empty(3).cauchy_().shape\n    torch.Size([3])',
    'log_normal_': 'log_normal_(mean=1.0, std=2.0, *, generator=None) -> Tensor\n\nFills this tensor in place with draws from the log-normal distribution: :math:`e^{Y}` with\n:math:`Y \\sim \\mathcal{N}(\\text{mean}, \\text{std}^2)`.\n\nArgs:\n    mean (float, optional): the mean of the underlying normal distribution. Default: ``1.0``.\n    std (float, optional): its standard deviation. Default: ``2.0``.\n    generator (:class:`framework.Generator`, optional): a pseudorandom number generator for\n        sampling. Default: the global generator.\n\nExample:\n    >>> bool((framework.empty(100).log_normal_() > 0).all())\n    True',
    'bernoulli_': 'bernoulli_(p=0.5, *, generator=None) -> Tensor\n\nFills this tensor in place with 0/1 draws, 1 with probability ``p``.\n\nArgs:\n    p (float or Tensor, optional): the probability of a 1 (a number, or a tensor broadcast to\n        this one). Default: ``0.5``.\n    generator (:class:`framework.Generator`, optional): a pseudorandom number generator for\n        sampling. Default: the global generator.\n\nExample:\n    >>> framework.zeros(4).bernoulli_(1.0)\n    tensor([1., 1., 1., 1.])',
    'bernoulli': 'See :func:`framework.bernoulli`.',
    'multinomial': 'See :func:`framework.multinomial`.',
    'add': 'See :func:`framework.add`.',
    'sub': 'See :func:`framework.sub`.',
    'mul': 'See :func:`framework.mul`.',
    'div': 'See :func:`framework.div`.',
    'pow': 'See :func:`framework.pow`.',
    'neg': 'See :func:`framework.neg`.',
    'reciprocal': 'See :func:`framework.reciprocal`.',
    'square': 'See :func:`framework.square`.',
    'exp': 'See :func:`framework.exp`.',
    'log': 'See :func:`framework.log`.',
    'sqrt': 'See :func:`framework.sqrt`.',
    'rsqrt': 'See :func:`framework.rsqrt`.',
    'sin': 'See :func:`framework.sin`.',
    'cos': 'See :func:`framework.cos`.',
    'tanh': 'See :func:`framework.tanh`.',
    'sigmoid': 'See :func:`framework.sigmoid`.',
    'relu': 'See :func:`framework.relu`.',
    'abs': 'See :func:`framework.abs`.',
    'sign': 'See :func:`framework.sign`.',
    'clamp': 'See :func:`framework.clamp`.',
    'clip': 'See :func:`framework.clip`.',
    'maximum': 'See :func:`framework.maximum`.',
    'minimum': 'See :func:`framework.minimum`.',
    'where': 'See :func:`framework.where`.',
    'eq': 'See :func:`framework.eq`.',
    'ne': 'See :func:`framework.ne`.',
    'lt': 'See :func:`framework.lt`.',
    'le': 'See :func:`framework.le`.',
    'gt': 'See :func:`framework.gt`.',
    'ge': 'See :func:`framework.ge`.',
    'equal': 'equal(other) -> bool\n\nTrue if this tensor and ``other`` have the same size and the same elements.\n\nArgs:\n    other (Tensor): the tensor to compare with.\n\nExample:\n    >>> framework.tensor([1, 2]).equal(framework.tensor([1, 2]))\n    True\n    >>> framework.tensor([1, 2]).equal(framework.tensor([1, 2, 3]))\n    False',
    'allclose': 'allclose(other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool\n\nTrue if every element satisfies :math:`|\\text{self} - \\text{other}| \\le \\text{atol} +\n\\text{rtol} \\times |\\text{other}|` (see :func:`framework.allclose`).\n\nArgs:\n    other (Tensor): the tensor to compare with (broadcast).\n    rtol (float, optional): relative tolerance. Default: ``1e-05``.\n    atol (float, optional): absolute tolerance. Default: ``1e-08``.\n    equal_nan (bool, optional): if True, two NaNs compare equal. Default: ``False``.\n\nExample:\n    >>> framework.tensor([1.0, 2.0]).allclose(framework.tensor([1.0, 2.000001]))\n    True',
    'logical_not': 'See :func:`framework.logical_not`.',
    'sum': 'See :func:`framework.sum`.',
    'sum_to_size': 'Sums this tensor down to ``size`` (the inverse of broadcasting).',
    'mean': 'See :func:`framework.mean`.',
    'prod': 'See :func:`framework.prod`.',
    'var': 'See :func:`framework.var`.',
    'std': 'See :func:`framework.std`.',
    'max': 'See :func:`framework.max`.',
    'min': 'See :func:`framework.min`.',
    'amax': 'See :func:`framework.amax`.',
    'amin': 'See :func:`framework.amin`.',
    'argmax': 'See :func:`framework.argmax`.',
    'argmin': 'See :func:`framework.argmin`.',
    'logsumexp': 'See :func:`framework.logsumexp`.',
    'all': 'See :func:`framework.all`.',
    'any': 'See :func:`framework.any`.',
    'softmax': 'See :func:`framework.softmax`.',
    'log_softmax': 'See :func:`framework.log_softmax`.',
    'remainder': 'See :func:`framework.remainder`.',
    'floor_divide': 'See :func:`framework.floor_divide`.',
    'floor': 'See :func:`framework.floor`.',
    'ceil': 'See :func:`framework.ceil`.',
    'round': 'See :func:`framework.round`.',
    'trunc': 'See :func:`framework.trunc`.',
    'frac': 'See :func:`framework.frac`.',
    'log1p': 'See :func:`framework.log1p`.',
    'expm1': 'See :func:`framework.expm1`.',
    'clamp_min': 'See :func:`framework.clamp_min`.',
    'clamp_max': 'See :func:`framework.clamp_max`.',
    'logical_and': 'See :func:`framework.logical_and`.',
    'logical_or': 'See :func:`framework.logical_or`.',
    'logical_xor': 'See :func:`framework.logical_xor`.',
    'bitwise_and': 'See :func:`framework.bitwise_and`.',
    'bitwise_or': 'See :func:`framework.bitwise_or`.',
    'bitwise_xor': 'See :func:`framework.bitwise_xor`.',
    'bitwise_not': 'See :func:`framework.bitwise_not`.',
    'reshape': 'Returns a tensor with the same data and the given shape: a view when possible, else a copy.',
    'view': "Returns a view with the same data and a new shape (or dtype); the tensor's strides must allow it.",
    'view_as': "view_as(other) -> Tensor\n\nReturns a view of this tensor with ``other``'s shape: ``self.view(other.size())``.\n\nArgs:\n    other (Tensor): the tensor whose shape to take.\n\nExample:\n    >>> framework.arange(4).view_as(framework.zeros(2, 2))\n    tensor([[0, 1],\n            [2, 3]])",
    'narrow': 'See :func:`framework.narrow`.',
    'select': 'See :func:`framework.select`.',
    'diagonal': 'See :func:`framework.diagonal`.',
    'unfold': 'unfold(dimension, size, step) -> Tensor\n\nReturns a view of every slice of length ``size`` along ``dimension``, taken every ``step``\nelements, as a new last dimension.\n\nArgs:\n    dimension (int): the dimension to take slices along.\n    size (int): the length of each slice.\n    step (int): the step between the starts of consecutive slices.\n\nExample:\n    >>> framework.arange(5).unfold(0, 2, 1)\n    tensor([[0, 1],\n            [1, 2],\n            [2, 3],\n            [3, 4]])',
    'as_strided': "as_strided(size, stride, storage_offset=None) -> Tensor\n\nReturns a view of this tensor's storage with the given size, strides and offset (elements,\nnot bytes). Differentiable (``AsStridedBackward0``).\n\nArgs:\n    size (tuple of ints): the shape of the view.\n    stride (tuple of ints): the step in storage per index step, per dimension.\n    storage_offset (int, optional): the index in storage of the first element. Default:\n        ``None`` (this tensor's offset).\n\nExample:\n    >>> framework.arange(6).as_strided((2, 2), (1, 2))\n    tensor([[0, 2],\n            [1, 3]])",
    'reshape_as': "reshape_as(other) -> Tensor\n\nReturns this tensor reshaped to ``other``'s shape: ``self.reshape(other.shape)``.\n\nArgs:\n    other (Tensor): the tensor whose shape to take.\n\nExample:\n    >>> framework.arange(4).reshape_as(framework.zeros(2, 2))\n    tensor([[0, 1],\n            [2, 3]])",
    'flatten': 'See :func:`framework.flatten`.',
    'unflatten': 'See :func:`framework.unflatten`.',
    'squeeze': 'See :func:`framework.squeeze`.',
    'unsqueeze': 'See :func:`framework.unsqueeze`.',
    'permute': 'See :func:`framework.permute`.',
    'transpose': 'See :func:`framework.transpose`.',
    't': 'See :func:`framework.t`.',
    'swapaxes': 'See :func:`framework.swapaxes`.',
    'movedim': 'See :func:`framework.movedim`.',
    'expand': "expand(*sizes) -> Tensor\n\nReturns a view of this tensor with singleton dimensions expanded to a larger size (no copy:\nthe expanded dimensions repeat the same memory); -1 keeps a dimension's size, and extra\nsizes add dimensions at the front.\n\nArgs:\n    *sizes (int or framework.Size): the desired size, as separate ints or one sequence.\n\nExample:\n    >>> x = framework.tensor([[1], [2], [3]])\n    >>> x.expand(3, 4)\n    tensor([[1, 1, 1, 1],\n            [2, 2, 2, 2],\n            [3, 3, 3, 3]])\n    >>> x.expand(-1, 2)\n    tensor([[1, 1],\n            [2, 2],\n            [3, 3]])",
    'expand_as': 'expand_as(other) -> Tensor\n\nExpands this tensor to the size of ``other``: ``self.expand(other.size())`` (a view; see\n:meth:`expand`).\n\nArgs:\n    other (Tensor): the tensor whose size to take.\n\nExample:\n    >>> framework.tensor([[1], [2]]).expand_as(framework.zeros(2, 3))\n    tensor([[1, 1, 1],\n            [2, 2, 2]])',
    'repeat': 'repeat(*sizes) -> Tensor\n\nRepeats this tensor along each dimension the given number of times (copies the data,\nunlike :meth:`expand`); extra sizes add dimensions at the front.\n\nArgs:\n    *sizes (int or framework.Size): the number of repeats per dimension, at least ``self.dim()``\n        of them, as separate ints or one sequence.\n\nExample:\n    >>> framework.tensor([1, 2, 3]).repeat(2, 2)\n    tensor([[1, 2, 3, 1, 2, 3],\n            [1, 2, 3, 1, 2, 3]])',
    'split': 'See :func:`framework.split`.',
    'chunk': 'See :func:`framework.chunk`.',
    'unbind': 'See :func:`framework.unbind`.',
    'matmul': 'See :func:`framework.matmul`.',
    'mm': 'See :func:`framework.mm`.',
    'bmm': 'See :func:`framework.bmm`.',
    'mv': 'See :func:`framework.mv`.',
    'dot': 'See :func:`framework.dot`.',
    'gather': 'See :func:`framework.gather`.',
    'scatter': 'See :func:`framework.scatter`.',
    'scatter_': 'In-place version of :meth:`~Tensor.scatter`.',
    'scatter_add': 'See :func:`framework.scatter_add`.',
    'scatter_add_': 'In-place version of :meth:`~Tensor.scatter_add`.',
    'outer': 'See :func:`framework.outer`.',
    'addmm': 'See :func:`framework.addmm`.',
    'masked_fill': 'See :func:`framework.masked_fill`.',
    'index_select': 'See :func:`framework.index_select`.',
    'nonzero': 'See :func:`framework.nonzero`.',
    'new_zeros': "new_zeros(*size, dtype=None, device=None) -> Tensor\n\nReturns a tensor of ``size`` filled with 0, with this tensor's dtype and device unless given.\n\nArgs:\n    *size (int...): the shape of the output (ints or one tuple).\n    dtype (:class:`framework.dtype`, optional): the desired data type. Default: ``None``\n        (this tensor's).\n    device (:class:`framework.device`, optional): the desired device. Default: ``None`` (this\n        tensor's).\n\nExample:\n    >>> framework.tensor([1.0], dtype=framework.float64).new_zeros((2,))\n    tensor([0., 0.], dtype=torch.float64)",
    'new_ones': "new_ones(*size, dtype=None, device=None) -> Tensor\n\nReturns a tensor of ``size`` filled with 1, with this tensor's dtype and device unless given.\n\nArgs:\n    *size (int...): the shape of the output (ints or one tuple).\n    dtype (:class:`framework.dtype`, optional): the desired data type. Default: ``None``\n        (this tensor's).\n    device (:class:`framework.device`, optional): the desired device. Default: ``None`` (this\n        tensor's).\n\nExample:\n    >>> framework.tensor([1, 2]).new_ones(2, 3)\n    tensor([[1, 1, 1],\n            [1, 1, 1]])",
    'new_full': "new_full(size, fill_value, dtype=None, device=None) -> Tensor\n\nReturns a tensor of ``size`` filled with ``fill_value``, with this tensor's dtype and device\nunless given.\n\nArgs:\n    size (tuple of ints): the shape of the output.\n    fill_value (Number): the value to fill with.\n    dtype (:class:`framework.dtype`, optional): the desired data type. Default: ``None``\n        (this tensor's).\n    device (:class:`framework.device`, optional): the desired device. Default: ``None`` (this\n        tensor's).\n\nExample:\n    >>> framework.ones(2, dtype=framework.float64).new_full((2, 2), 3.0)\n    tensor([[3., 3.],\n            [3., 3.]], dtype=torch.float64)",
    'new_tensor': "new_tensor(data, dtype=None, device=None) -> Tensor\n\nReturns a new tensor holding a copy of ``data``, with this tensor's dtype and device unless\ngiven (the result does not require grad).\n\nArgs:\n    data (array_like): a list, tuple, NumPy array, number or tensor.\n    dtype (:class:`framework.dtype`, optional): the desired data type. Default: ``None``\n        (this tensor's).\n    device (:class:`framework.device`, optional): the desired device. Default: ``None`` (this\n        tensor's).\n\nExample:\n    >>> framework.tensor([1.0], dtype=framework.float64).new_tensor([1, 2])\n    tensor([1., 2.], dtype=torch.float64)",
    'tril': 'See :func:`framework.tril`.',
    'triu': 'See :func:`framework.triu`.',
    'tril_': 'In-place version of :meth:`~Tensor.tril`.',
    'triu_': 'In-place version of :meth:`~Tensor.triu`.',
    'flip': 'See :func:`framework.flip`.',
    'fliplr': 'See :func:`framework.fliplr`.',
    'flipud': 'See :func:`framework.flipud`.',
    'roll': 'See :func:`framework.roll`.',
    'rot90': 'See :func:`framework.rot90`.',
    'cumsum': 'See :func:`framework.cumsum`.',
    'cumprod': 'See :func:`framework.cumprod`.',
    'cumsum_': 'In-place version of :meth:`~Tensor.cumsum`.',
    'cummax': 'See :func:`framework.cummax`.',
    'cummin': 'See :func:`framework.cummin`.',
    'sort': 'See :func:`framework.sort`.',
    'argsort': 'See :func:`framework.argsort`.',
    'msort': 'See :func:`framework.msort`.',
    'topk': 'See :func:`framework.topk`.',
    'kthvalue': 'See :func:`framework.kthvalue`.',
    'median': 'See :func:`framework.median`.',
    'nanmedian': 'See :func:`framework.nanmedian`.',
    'mode': 'See :func:`framework.mode`.',
    'erf': 'See :func:`framework.erf`.',
    'erfc': 'See :func:`framework.erfc`.',
    'erfinv': 'See :func:`framework.erfinv`.',
    'tan': 'See :func:`framework.tan`.',
    'sinh': 'See :func:`framework.sinh`.',
    'cosh': 'See :func:`framework.cosh`.',
    'asin': 'See :func:`framework.asin`.',
    'acos': 'See :func:`framework.acos`.',
    'atan': 'See :func:`framework.atan`.',
    'asinh': 'See :func:`framework.asinh`.',
    'acosh': 'See :func:`framework.acosh`.',
    'atanh': 'See :func:`framework.atanh`.',
    'arcsin': 'See :func:`framework.arcsin`.',
    'arccos': 'See :func:`framework.arccos`.',
    'arctan': 'See :func:`framework.arctan`.',
    'arcsinh': 'See :func:`framework.arcsinh`.',
    'arccosh': 'See :func:`framework.arccosh`.',
    'arctanh': 'See :func:`framework.arctanh`.',
    'log2': 'See :func:`framework.log2`.',
    'log10': 'See :func:`framework.log10`.',
    'exp2': 'See :func:`framework.exp2`.',
    'lerp': 'See :func:`framework.lerp`.',
    'lerp_': 'In-place version of :meth:`~Tensor.lerp`.',
    'addcmul': 'See :func:`framework.addcmul`.',
    'addcmul_': 'In-place version of :meth:`~Tensor.addcmul`.',
    'addcdiv': 'See :func:`framework.addcdiv`.',
    'addcdiv_': 'In-place version of :meth:`~Tensor.addcdiv`.',
    'ldexp_': 'In-place version of :meth:`~Tensor.ldexp`.',
    'atan2': 'See :func:`framework.atan2`.',
    'arctan2': 'See :func:`framework.arctan2`.',
    'hypot': 'See :func:`framework.hypot`.',
    'xlogy': 'See :func:`framework.xlogy`.',
    'logaddexp': 'See :func:`framework.logaddexp`.',
    'fmod': 'See :func:`framework.fmod`.',
    'nan_to_num': 'See :func:`framework.nan_to_num`.',
    'sgn': 'See :func:`framework.sgn`.',
    'isnan': 'See :func:`framework.isnan`.',
    'isinf': 'See :func:`framework.isinf`.',
    'isfinite': 'See :func:`framework.isfinite`.',
    'isclose': 'isclose(other, rtol=1e-05, atol=1e-08, equal_nan=False) -> Tensor\n\nA bool tensor: where :math:`|\\text{self} - \\text{other}| \\le \\text{atol} + \\text{rtol} \\times\n|\\text{other}|` (see :func:`framework.isclose`).\n\nArgs:\n    other (Tensor): the tensor to compare with (broadcast).\n    rtol (float, optional): relative tolerance. Default: ``1e-05``.\n    atol (float, optional): absolute tolerance. Default: ``1e-08``.\n    equal_nan (bool, optional): if True, two NaNs compare equal. Default: ``False``.\n\nExample:\n    >>> framework.tensor([1.0, 2.0]).isclose(framework.tensor([1.0, 2.1]))\n    tensor([ True, False])',
    'masked_select': 'See :func:`framework.masked_select`.',
    'masked_scatter': 'See :func:`framework.masked_scatter`.',
    'masked_scatter_': 'In-place version of :meth:`~Tensor.masked_scatter`.',
    'take': 'See :func:`framework.take`.',
    'take_along_dim': 'See :func:`framework.take_along_dim`.',
    'index_put': 'See :func:`framework.index_put`.',
    'index_put_': 'In-place version of :meth:`~Tensor.index_put`.',
    'index_add': 'See :func:`framework.index_add`.',
    'index_add_': 'In-place version of :meth:`~Tensor.index_add`.',
    'index_copy': 'See :func:`framework.index_copy`.',
    'index_copy_': 'In-place version of :meth:`~Tensor.index_copy`.',
    'index_fill': 'See :func:`framework.index_fill`.',
    'index_fill_': 'In-place version of :meth:`~Tensor.index_fill`.',
    'scatter_reduce': 'See :func:`framework.scatter_reduce`.',
    'scatter_reduce_': 'In-place version of :meth:`~Tensor.scatter_reduce`.',
    'norm': 'See :func:`framework.norm`.',
    'bitwise_left_shift': 'See :func:`framework.bitwise_left_shift`.',
    'bitwise_right_shift': 'See :func:`framework.bitwise_right_shift`.',
    'unique': 'See :func:`framework.unique`.',
    'unique_consecutive': 'See :func:`framework.unique_consecutive`.',
    'bincount': 'See :func:`framework.bincount`.',
    'histc': 'See :func:`framework.histc`.',
    'count_nonzero': 'See :func:`framework.count_nonzero`.',
    'cross': 'See :func:`framework.cross`.',
    'trace': 'See :func:`framework.trace`.',
    'kron': 'See :func:`framework.kron`.',
    'diff': 'See :func:`framework.diff`.',
    'tensor_split': 'See :func:`framework.tensor_split`.',
    'repeat_interleave': 'See :func:`framework.repeat_interleave`.',
    'aminmax': 'See :func:`framework.aminmax`.',
    'nansum': 'See :func:`framework.nansum`.',
    'nanmean': 'See :func:`framework.nanmean`.',
    'fmax': 'See :func:`framework.fmax`.',
    'fmin': 'See :func:`framework.fmin`.',
    'quantile': 'See :func:`framework.quantile`.',
    'nanquantile': 'See :func:`framework.nanquantile`.',
    'inverse': 'See :func:`framework.inverse`.',
    'det': 'See :func:`framework.det`.',
    'slogdet': 'See :func:`framework.slogdet`.',
    'cholesky': 'See :func:`framework.linalg.cholesky`.',
    'pinverse': 'See :func:`framework.pinverse`.',
    'matrix_power': 'See :func:`framework.matrix_power`.',
}

OTHER = {}  # dotted path -> docstring, for members that cannot hold one in place


def _attach(namespace, tensor_cls):
    """Set the docstrings above on ``namespace``'s functions and ``tensor_cls``'s members."""
    for name, doc in FUNCTIONS.items():
        obj = namespace.get(name)
        if obj is not None and not getattr(obj, "__doc__", None):
            try:
                obj.__doc__ = doc
            except (AttributeError, TypeError):
                pass
    for name, doc in TENSOR_METHODS.items():
        attr = vars(tensor_cls).get(name)
        if attr is None:
            continue
        target = attr.__func__ if isinstance(attr, (staticmethod, classmethod)) else attr
        if not getattr(target, "__doc__", None):
            try:
                target.__doc__ = _method_doc(name, target, doc, namespace)
            except (AttributeError, TypeError):
                pass


_SEE = re.compile(r"^See :func:`framework\.(\w+)`\.$")
_SIGNATURE = re.compile(r"^[\w.]+\(.*\)( -> .*)?$")


def _method_doc(name, method, doc, namespace):
    """As torch's ``_tensor_docs.py``: a method documented by "See :func:`framework.X`." gets
    its signature and the summary of ``framework.X`` above that line (help() then reads
    ``add(other, alpha=1)``, what it does, and where the Args and example are)."""
    m = _SEE.match(doc)
    func = namespace.get(m.group(1)) if m else None
    if func is None or not callable(method) or not getattr(func, "__doc__", None):
        return doc
    paragraphs = inspect.cleandoc(func.__doc__).split("\n\n")
    if _SIGNATURE.match(paragraphs[0]) and len(paragraphs) > 1:
        paragraphs = paragraphs[1:]
    try:
        params = list(inspect.signature(method).parameters.values())[1:]  # drop self
        sig = str(inspect.Signature(params))
    except (TypeError, ValueError):
        sig = "(...)"
    return f"{name}{sig}\n\n{paragraphs[0]}\n\n{doc}"


def _attach_paths(root, docs):
    """Set ``docs[path]`` on the object at the dotted ``path`` under ``root`` if it has none."""
    for path, doc in docs.items():
        owner, _, name = path.rpartition(".")
        obj = root
        for part in owner.split(".") if owner else ():
            obj = getattr(obj, part)
        attr = vars(obj).get(name) if isinstance(obj, type) else getattr(obj, name)
        if isinstance(attr, (staticmethod, classmethod)):
            attr = attr.__func__
        if attr is not None and not getattr(attr, "__doc__", None):
            attr.__doc__ = doc


_attach(vars(sys.modules["framework"]), sys.modules["framework"].Tensor)
_attach_paths(sys.modules["framework"], OTHER)
