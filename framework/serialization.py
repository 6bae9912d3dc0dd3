"""framework.save / framework.load: a zip of raw .npy arrays plus a JSON manifest.

Loading never executes code: there is no pickle anywhere (np.load runs with
allow_pickle=False), the manifest may only describe a fixed set of plain types, and array
entry names are rebuilt from integer ids, never read from the file. Saving to a path is
atomic: the archive is written to a temporary file in the same directory, fsynced and moved
over the target with os.replace, so a crash mid-save leaves the previous file intact.
"""
import collections
import io
import json
import os
import sys
import tempfile
import zipfile

import numpy as np

from . import backend, dtypes
from .tensor import Tensor

__all__ = ["save", "load", "SerializationError"]

_FORMAT = "framework-checkpoint"
_VERSION = 1
_MANIFEST = "archive/manifest.json"


class SerializationError(RuntimeError):
    """A checkpoint that is truncated, corrupted or not one of ours (e.g. a pickle)."""


def _entry(k):
    return f"archive/data/{int(k)}.npy"


class _Writer:
    """Turns an object tree into a JSON-able manifest and a list of arrays."""

    def __init__(self):
        self.arrays = []
        self.memo = {}  # id(obj) -> ref number, so shared tensors stay shared
        self.keep = []  # keep memoised objects alive so ids are not reused mid-save

    def node(self, obj):
        if obj is None or isinstance(obj, (bool, str)):
            return {"t": "value", "v": obj}
        if isinstance(obj, int):
            return {"t": "int", "v": str(obj)}  # str: JSON ints may lose precision elsewhere
        if isinstance(obj, float):
            return {"t": "float", "v": float.hex(obj)}  # exact, and inf/nan survive
        if isinstance(obj, (Tensor, np.ndarray)):
            if id(obj) in self.memo:
                return {"t": "ref", "id": self.memo[id(obj)]}
            self.memo[id(obj)] = len(self.memo)
            self.keep.append(obj)
            return dict(self._array(obj), ref=self.memo[id(obj)])
        if isinstance(obj, dtypes.dtype):
            return {"t": "dtype", "v": obj.name}
        if isinstance(obj, backend.device):
            return {"t": "device", "v": str(obj)}
        if isinstance(obj, collections.OrderedDict):
            return {"t": "odict", "items": [[self.node(k), self.node(v)] for k, v in obj.items()],
                    **_metadata(obj)}
        if isinstance(obj, dict):
            return {"t": "dict", "items": [[self.node(k), self.node(v)] for k, v in obj.items()]}
        if isinstance(obj, tuple):
            return {"t": "tuple", "items": [self.node(v) for v in obj]}
        if isinstance(obj, list):
            return {"t": "list", "items": [self.node(v) for v in obj]}
        if isinstance(obj, np.generic) and obj.dtype.kind in "biuf":
            return {"t": "npscalar", "v": self._store(np.asarray(obj))}
        raise TypeError(f"framework.save cannot store objects of type {type(obj).__name__}: "
                        "only tensors, numpy arrays, numbers, strings, None, dtypes, devices and "
                        "dicts/lists/tuples of them are supported")

    def _store(self, array):
        if array.dtype.kind not in "biuf":
            raise TypeError(f"framework.save cannot store arrays of dtype {array.dtype}")
        self.arrays.append(array)
        return len(self.arrays) - 1

    def _array(self, obj):
        if isinstance(obj, np.ndarray):
            return {"t": "ndarray", "v": self._store(obj)}
        # a Parameter exists only once nn.parameter was imported; do not import nn here
        param_mod = sys.modules.get("framework.nn.parameter")
        is_param = param_mod is not None and isinstance(obj, param_mod.Parameter)
        return {"t": "tensor", "v": self._store(backend.to_numpy(obj._data)),
                "device": str(obj.device), "requires_grad": bool(obj.requires_grad),
                "parameter": is_param}


def _metadata(odict):
    """state_dict()'s `_metadata` attribute (module versions), when it is plain data."""
    meta = getattr(odict, "_metadata", None)
    if meta is None:
        return {}
    try:
        return {"meta": json.loads(json.dumps(meta))}
    except (TypeError, ValueError):
        return {}


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """Save `obj` to a path (str or os.PathLike; written atomically) or a writable file."""
    writer = _Writer()
    manifest = {"format": _FORMAT, "version": _VERSION, "root": writer.node(obj),
                "arrays": len(writer.arrays)}
    if isinstance(f, (str, os.PathLike)):
        _save_atomic(manifest, writer.arrays, os.fspath(f))
    elif hasattr(f, "seekable") and f.seekable():
        _write_zip(f, manifest, writer.arrays)
    else:  # zipfile needs to seek: build in memory, then one write
        buf = io.BytesIO()
        _write_zip(buf, manifest, writer.arrays)
        f.write(buf.getvalue())


def _write_zip(fileobj, manifest, arrays):
    with zipfile.ZipFile(fileobj, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr(_MANIFEST, json.dumps(manifest))
        for k, array in enumerate(arrays):
            with zf.open(_entry(k), "w", force_zip64=True) as out:
                np.lib.format.write_array(out, np.asarray(array), allow_pickle=False)


def _save_atomic(manifest, arrays, path):
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp",
                               dir=directory)
    try:
        with os.fdopen(fd, "wb") as out:
            _write_zip(out, manifest, arrays)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    try:  # make the rename itself durable
        dir_fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)


_CUDA_MISSING = (
    "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. "
    "If you are running on a CPU-only machine, please use torch.load with "
    "map_location=torch.device('cpu') to map your storages to the CPU.")


class _Reader:
    """Rebuilds the object tree from a validated manifest; only plain types can come out."""

    def __init__(self, zf, n_arrays, map_location):
        if type(n_arrays) is not int or n_arrays < 0:
            raise SerializationError("bad array count")
        self.zf, self.n_arrays, self.map_location = zf, n_arrays, map_location
        self.refs = {}

    def array(self, k):
        if type(k) is not int or not 0 <= k < self.n_arrays:
            raise SerializationError(f"array id {k!r} is out of range")
        # zf.read checks the CRC; np.load refuses object arrays (no pickle)
        arr = np.load(io.BytesIO(self.zf.read(_entry(k))), allow_pickle=False)
        if not isinstance(arr, np.ndarray) or arr.dtype.kind not in "biuf":
            raise SerializationError(f"array {k} has unsupported dtype")
        return arr

    def build(self, node):
        if not isinstance(node, dict) or not isinstance(node.get("t"), str):
            raise SerializationError(f"malformed manifest node {str(node)[:80]!r}")
        kind, v = node["t"], node.get("v")
        if kind == "value":
            if v is not None and not isinstance(v, (bool, str)):
                raise SerializationError(f"bad plain value {v!r}")
            return v
        if kind == "int":
            return int(str(v))
        if kind == "float":
            return float.fromhex(str(v))
        if kind == "ref":
            if node.get("id") not in self.refs:
                raise SerializationError(f"dangling reference {node.get('id')!r}")
            return self.refs[node["id"]]
        if kind in ("tensor", "ndarray"):
            obj = self.tensor(node) if kind == "tensor" else self.array(v)
            self.refs[node.get("ref")] = obj
            return obj
        if kind == "npscalar":
            return self.array(v)[()]
        if kind == "dtype":
            if v not in dtypes._NAMES:
                raise SerializationError(f"unknown dtype {v!r}")
            return dtypes._NAMES[v]
        if kind == "device":
            return backend.device(str(v))
        if kind in ("list", "tuple"):
            items = [self.build(x) for x in _items(node)]
            return items if kind == "list" else tuple(items)
        if kind in ("dict", "odict"):
            out = collections.OrderedDict() if kind == "odict" else {}
            for pair in _items(node):
                if not isinstance(pair, list) or len(pair) != 2:
                    raise SerializationError("malformed dict entry")
                out[self.build(pair[0])] = self.build(pair[1])
            if isinstance(node.get("meta"), dict):
                out._metadata = node["meta"]
            return out
        raise SerializationError(f"unknown manifest node type {kind!r}")

    def tensor(self, node):
        arr = self.array(node.get("v"))
        location = str(node.get("device", "cpu"))
        dev = self.device_for(location)
        t = None
        if callable(self.map_location) and not isinstance(self.map_location, backend.device):
            t = self.map_location(Tensor._make(arr, backend.CPU), location)
            if t is not None and not isinstance(t, Tensor):
                raise SerializationError("map_location callable must return a tensor or None")
        if t is None:
            t = Tensor._make(backend.move(arr, dev), dev)
        if node.get("parameter"):
            from .nn.parameter import Parameter
            return Parameter(t, bool(node.get("requires_grad")))
        return t.requires_grad_(True) if node.get("requires_grad") else t

    def device_for(self, location):
        m = self.map_location
        if isinstance(m, dict):
            target = m.get(location, location)
        elif m is None or (callable(m) and not isinstance(m, backend.device)):
            target = location
        else:
            target = m
        dev = backend.device(str(target)) if not isinstance(target, backend.device) else target
        if dev.type == "cuda" and not backend.cuda_available():
            raise RuntimeError(_CUDA_MISSING)
        return backend.as_device(dev)


def _items(node):
    items = node.get("items")
    if not isinstance(items, list):
        raise SerializationError("malformed container node")
    return items


def _describe(f):
    if isinstance(f, (str, os.PathLike)):
        return os.fspath(f)
    return getattr(f, "name", None) or repr(f)


def load(f, map_location=None, pickle_module=None, *, weights_only=True, mmap=None,
         **pickle_load_args):
    """Load what `save` wrote. Pickles and anything else that is not our archive are refused,
    whatever `weights_only` says: this format never runs code."""
    name = _describe(f)
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as fileobj:
            return _load(fileobj, map_location, name)
    if not (hasattr(f, "seekable") and f.seekable()):
        f = io.BytesIO(f.read())
    return _load(f, map_location, name)


def _load(fileobj, map_location, name):
    start = fileobj.tell()
    head = fileobj.read(4)
    fileobj.seek(start)
    if head[:1] == b"\x80" or head[:1] in (b"c", b"(", b"]", b"}"):
        raise SerializationError(
            f"{name} looks like a pickle; framework.load refuses pickled data because "
            "unpickling can execute arbitrary code")
    if head != b"PK\x03\x04":
        raise SerializationError(f"{name} is not a framework checkpoint (not a zip archive); "
                                 "the file may be truncated or corrupted")
    try:
        with zipfile.ZipFile(fileobj) as zf:
            manifest = json.loads(zf.read(_MANIFEST))
            if not isinstance(manifest, dict) or manifest.get("format") != _FORMAT:
                raise SerializationError("missing or foreign manifest")
            if manifest.get("version") != _VERSION:
                raise SerializationError(f"unsupported version {manifest.get('version')!r}")
            return _Reader(zf, manifest.get("arrays"), map_location).build(manifest.get("root"))
    except SerializationError as e:
        raise SerializationError(f"{name} is not a valid framework checkpoint: {e}") from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, KeyError, ValueError, EOFError, OSError,
            TypeError, RecursionError, UnicodeDecodeError) as e:
        raise SerializationError(f"{name} is truncated or corrupted "
                                 f"({type(e).__name__}: {e})") from e
