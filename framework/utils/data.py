"""torch.utils.data: datasets, samplers, default_collate and a single-process DataLoader."""
import collections.abc
import itertools
import math
import warnings

import numpy as np

from ..tensor import Tensor

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "ConcatDataset", "Subset",
           "random_split", "Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
           "BatchSampler", "DataLoader", "default_collate", "default_convert"]


class Dataset:
    """A map-style dataset: subclasses define __getitem__ (and usually __len__)."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """A stream-style dataset: subclasses define __iter__."""

    def __iter__(self):
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")


class TensorDataset(Dataset):
    """Sample i is tuple(t[i] for t in tensors)."""

    def __init__(self, *tensors):
        assert all(tensors[0].size(0) == t.size(0) for t in tensors), \
            "Size mismatch between tensors"
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


class ConcatDataset(Dataset):
    """Several map-style datasets one after the other."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        assert len(self.datasets) > 0, "datasets should not be an empty iterable"
        self.cumulative_sizes = list(itertools.accumulate(len(d) for d in self.datasets))

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx += len(self)
        d = int(np.searchsorted(self.cumulative_sizes, idx, side="right"))
        start = self.cumulative_sizes[d - 1] if d else 0
        return self.datasets[d][idx - start]


class Subset(Dataset):
    """The samples of `dataset` at `indices`, in that order."""

    def __init__(self, dataset, indices):
        self.dataset, self.indices = dataset, indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __len__(self):
        return len(self.indices)


def random_split(dataset, lengths, generator=None):
    """Split into non-overlapping Subsets; fractions are turned into lengths as torch does."""
    n = len(dataset)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        sizes = [int(math.floor(n * frac)) for frac in lengths]
        for i in range(n - sum(sizes)):  # the remainder goes round-robin, as in torch
            sizes[i % len(sizes)] += 1
        for i, size in enumerate(sizes):
            if size == 0:
                warnings.warn(f"Length of split at index {i} is 0. "
                              f"This might result in an empty dataset.")
        lengths = sizes
    if sum(lengths) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    perm = _permutation(sum(lengths), generator).tolist()
    offsets = itertools.accumulate(lengths)
    return [Subset(dataset, perm[end - size:end]) for end, size in zip(offsets, lengths)]


def _permutation(n, generator):
    """torch.randperm(n, generator=generator): from the default generator when None."""
    from .._sampling import randperm
    return randperm(n, generator=generator)._data


def _base_seed(generator):
    """What torch draws when a DataLoader iterator starts (int64 random_: one 64-bit draw)."""
    from ..creation import empty
    from ..dtypes import int64
    return int(empty((), dtype=int64).random_(generator=generator).item())


class Sampler:
    """Iterates over dataset indices."""

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """A new permutation (or draw with replacement) on every iteration."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source, self.replacement = data_source, replacement
        self._num_samples, self.generator = num_samples, generator
        if not isinstance(self.replacement, bool):
            raise TypeError("replacement should be a boolean value, but got "
                            f"replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        """As torch: without a generator, a fresh one seeded from the default stream."""
        from .._sampling import randint
        from ..random import Generator
        n = len(self.data_source)
        generator = self.generator
        if generator is None:
            generator = Generator().manual_seed(_base_seed(None))
        if self.replacement:
            for _ in range(self.num_samples // 32):
                yield from randint(high=n, size=(32,), generator=generator)._data.tolist()
            yield from randint(high=n, size=(self.num_samples % 32,),
                               generator=generator)._data.tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from _permutation(n, generator).tolist()
            yield from _permutation(n, generator).tolist()[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    def __init__(self, indices, generator=None):
        self.indices, self.generator = indices, generator

    def __iter__(self):
        return (self.indices[i] for i in _permutation(len(self.indices), self.generator).tolist())

    def __len__(self):
        return len(self.indices)


class BatchSampler(Sampler):
    """Groups the indices of `sampler` into lists of batch_size."""

    def __init__(self, sampler, batch_size, drop_last):
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
            raise ValueError("batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self):
        it = iter(self.sampler)
        while True:
            batch = list(itertools.islice(it, self.batch_size))
            if not batch or (self.drop_last and len(batch) < self.batch_size):
                return
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size



_COLLATE_ERROR = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or "
                  "lists; found {}")


def default_convert(data):
    """Turn numpy arrays (inside containers too) into tensors; used when batch_size=None."""
    from ..creation import as_tensor
    if isinstance(data, Tensor):
        return data
    if isinstance(data, np.ndarray) and data.dtype.kind not in "OSU":
        return as_tensor(data)
    if isinstance(data, np.generic) and data.dtype.kind not in "OSU":
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild(data, {k: default_convert(v) for k, v in data.items()})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild(data, [default_convert(d) for d in data])
    return data


def _rebuild(like, content):
    """Keep the container type (OrderedDict, list subclass) when it can be rebuilt."""
    try:
        return type(like)(content)
    except TypeError:
        return content


def default_collate(batch):
    """Stack a list of samples into a batch: tensors are stacked on a new dim 0, numbers become
    tensors, and dicts/tuples/lists are collated field by field (tuples become lists)."""
    from ..creation import as_tensor, tensor
    from ..ops import stack
    elem = batch[0]
    if isinstance(elem, Tensor):
        return stack(list(batch), 0)
    if isinstance(elem, np.ndarray):
        if elem.dtype.kind in "OSU":
            raise TypeError(_COLLATE_ERROR.format(elem.dtype))
        return stack([as_tensor(b) for b in batch], 0)
    if isinstance(elem, np.generic):
        return as_tensor(np.asarray(batch))
    if isinstance(elem, float):
        return tensor(batch, dtype="float64")
    if isinstance(elem, int):  # bool included: torch gives a bool tensor
        return tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        return _rebuild(elem, {k: default_collate([d[k] for d in batch]) for k in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(default_collate(list(s)) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        if any(len(b) != len(elem) for b in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [default_collate(list(s)) for s in zip(*batch)]
        return columns if isinstance(elem, tuple) else _rebuild(elem, columns)
    raise TypeError(_COLLATE_ERROR.format(type(elem)))


class DataLoader:
    """Single-process loader over a map-style or iterable dataset (num_workers is accepted and
    ignored: workers would copy every batch between processes on a 2-core box)."""

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device=""):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                             "disable multiprocessing.")
        self.dataset, self.num_workers, self.pin_memory = dataset, num_workers, pin_memory
        self.timeout, self.worker_init_fn, self.generator = timeout, worker_init_fn, generator
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle not in (None, False):
                raise ValueError("DataLoader with IterableDataset: expected unspecified shuffle "
                                 f"option, but got shuffle={shuffle}")
            if sampler is not None or batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified sampler "
                                 "option, but got sampler=" + repr(sampler or batch_sampler))
        elif sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")
        if sampler is None and not self._iterable:
            sampler = (RandomSampler(dataset, generator=generator) if shuffle
                       else SequentialSampler(dataset))
        if batch_size is not None and batch_sampler is None and not self._iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size, self.drop_last = batch_size, drop_last
        self.sampler, self.batch_sampler = sampler, batch_sampler
        self._auto = batch_size is not None or batch_sampler is not None
        self.collate_fn = collate_fn if collate_fn is not None else (
            default_collate if self._auto else default_convert)

    def __len__(self):
        if self._iterable:
            n = len(self.dataset)  # TypeError when the stream has no length, as in torch
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
        return len(self.batch_sampler if self._auto else self.sampler)

    def __iter__(self):
        _base_seed(self.generator)  # torch draws a worker base seed for every iterator
        if self._iterable:
            return self._iter_stream()
        if not self._auto:
            return (self.collate_fn(self.dataset[i]) for i in self.sampler)
        if isinstance(self.dataset, TensorDataset) and self.collate_fn is default_collate:
            return self._iter_tensors()
        return (self.collate_fn([self.dataset[i] for i in batch]) for batch in self.batch_sampler)

    def _iter_tensors(self):
        """TensorDataset fast path: one gather per tensor instead of stacking single items
        (same result as default_collate: a list with one batched tensor per tensor)."""
        tensors = self.dataset.tensors
        for batch in self.batch_sampler:
            idx = np.asarray(batch, dtype=np.int64)
            yield [t[idx] if t.requires_grad else
                   Tensor._make(t._data[t.xp.asarray(idx)], t.device) for t in tensors]

    def _iter_stream(self):
        it = iter(self.dataset)
        if not self._auto:
            yield from (self.collate_fn(x) for x in it)
            return
        while True:
            batch = list(itertools.islice(it, self.batch_size))
            if not batch or (self.drop_last and len(batch) < self.batch_size):
                return
            yield self.collate_fn(batch)
