"""The checkpoint format of framework 0.1: a zip of raw .npy arrays plus a JSON manifest.

framework.save now writes torch's format; files in this one still load. There is no pickle
here (np.load runs with allow_pickle=False) and the manifest may only describe plain types.
"""

import collections
import io
import json
import sys
import zipfile

import numpy as np

from .. import backend, dtypes
from ..tensor import Tensor


_FORMAT = "framework-checkpoint"
_VERSION = 1
_MANIFEST = "archive/manifest.json"


class SerializationError(RuntimeError):
    """A checkpoint that is truncated, corrupted, hostile or not one we can read."""


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
            return {
                "t": "odict",
                "items": [[self.node(k), self.node(v)] for k, v in obj.items()],
                **_metadata(obj),
            }
        if isinstance(obj, dict):
            return {"t": "dict", "items": [[self.node(k), self.node(v)] for k, v in obj.items()]}
        if isinstance(obj, tuple):
            return {"t": "tuple", "items": [self.node(v) for v in obj]}
        if isinstance(obj, list):
            return {"t": "list", "items": [self.node(v) for v in obj]}
        if isinstance(obj, np.generic) and obj.dtype.kind in "biuf":
            return {"t": "npscalar", "v": self._store(np.asarray(obj))}
        raise TypeError(
            f"framework.save cannot store objects of type {type(obj).__name__}: "
            "only tensors, numpy arrays, numbers, strings, None, dtypes, devices and "
            "dicts/lists/tuples of them are supported"
        )

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
        return {
            "t": "tensor",
            "v": self._store(backend.to_numpy(obj._data)),
            "device": str(obj.device),
            "requires_grad": bool(obj.requires_grad),
            "parameter": is_param,
        }


def _metadata(odict):
    """state_dict()'s `_metadata` attribute (module versions), when it is plain data."""
    meta = getattr(odict, "_metadata", None)
    if meta is None:
        return {}
    try:
        return {"meta": json.loads(json.dumps(meta))}
    except (TypeError, ValueError):
        return {}


def save_legacy(obj, fileobj):
    """Write `obj` in the format of framework 0.1 (kept so tests can make such files)."""
    writer = _Writer()
    manifest = {
        "format": _FORMAT,
        "version": _VERSION,
        "root": writer.node(obj),
        "arrays": len(writer.arrays),
    }
    _write_zip(fileobj, manifest, writer.arrays)


def _write_zip(fileobj, manifest, arrays):
    with zipfile.ZipFile(fileobj, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr(_MANIFEST, json.dumps(manifest))
        for k, array in enumerate(arrays):
            with zf.open(_entry(k), "w", force_zip64=True) as out:
                np.lib.format.write_array(out, np.asarray(array), allow_pickle=False)


def is_legacy(zf):
    """True for a zip in the legacy framework format (it holds ``archive/manifest.json``)."""
    return _MANIFEST in zf.namelist()


def load_legacy(zf, make_tensor, make_parameter):
    """Rebuild what framework 0.1 saved; only plain types can come out."""
    manifest = json.loads(zf.read(_MANIFEST))
    if not isinstance(manifest, dict) or manifest.get("format") != _FORMAT:
        raise SerializationError("missing or foreign manifest")
    if manifest.get("version") != _VERSION:
        raise SerializationError(f"unsupported version {manifest.get('version')!r}")
    return _Reader(zf, manifest.get("arrays"), make_tensor, make_parameter).build(
        manifest.get("root")
    )


class _Reader:
    """Rebuilds the object tree from a validated manifest; only plain types can come out."""

    def __init__(self, zf, n_arrays, make_tensor, make_parameter):
        if type(n_arrays) is not int or n_arrays < 0:
            raise SerializationError("bad array count")
        self.zf, self.n_arrays = zf, n_arrays
        self.make_tensor, self.make_parameter = make_tensor, make_parameter
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
        rg = bool(node.get("requires_grad"))
        t = self.make_tensor(arr, str(node.get("device", "cpu")), rg and not node.get("parameter"))
        return self.make_parameter(t, rg) if node.get("parameter") else t


def _items(node):
    items = node.get("items")
    if not isinstance(items, list):
        raise SerializationError("malformed container node")
    return items
