"""torch._weights_only_unpickler: the restricted unpickler of torch.load(weights_only=True), with
PyTorch 1.13's semantics.

It runs only the pickle opcodes a state dict needs and refuses the rest with RuntimeError
("Unsupported operand N"), which torch.load turns into pickle.UnpicklingError:
  * GLOBAL resolves only the names of _get_allowed_globals() (OrderedDict, Parameter, torch.Size,
    Tensor, some dtypes, the tensor and storage classes, the _rebuild functions), never by import;
  * REDUCE calls only those; NEWOBJ builds only Parameters; BUILD updates only a Tensor (the
    legacy set_ state), a Parameter or an OrderedDict; APPEND/APPENDS extend only lists;
  * persistent ids must be ('storage', ...) tuples, handed to persistent_load.
1.13 has no float opcode here: a pickled Python float is refused (a known 1.13 limitation that
PyTorch 2.0 lifted), and Ember keeps that so weights_only loads fail exactly where 1.13's do."""
import functools
import pickle
import struct
import sys
from collections import OrderedDict

import torch


@functools.lru_cache(maxsize=1)
def _get_allowed_globals():
    rc = {
        "collections.OrderedDict": OrderedDict,
        "torch.nn.parameter.Parameter": torch.nn.Parameter,
        "torch.serialization._get_layout": torch.serialization._get_layout,
        "torch.Size": torch.Size,
        "torch.Tensor": torch.Tensor,
    }
    for name in ("complex32", "complex64", "complex128", "float16", "float32", "float64",
                 "int8", "int16", "int32", "int64"):
        if hasattr(torch, name):
            t = getattr(torch, name)
            rc[str(t)] = t
    for tt in torch._tensor_classes:
        rc[f"{tt.__module__}.{tt.__name__}"] = tt
    for ts in torch._storage_classes:
        rc[f"{ts.__module__}.{ts.__name__}"] = ts
    for f in (torch._utils._rebuild_parameter, torch._utils._rebuild_tensor, torch._utils._rebuild_tensor_v2,
              torch._utils._rebuild_sparse_tensor, torch._utils._rebuild_meta_tensor_no_storage,
              torch._utils._rebuild_sparse_csr_tensor):
        rc[f"torch._utils.{f.__name__}"] = f
    return rc


def _op(code):
    return code[0]


class Unpickler:
    def __init__(self, file, *, encoding="bytes"):
        self.encoding = encoding
        self.readline = file.readline
        self.read = file.read
        self.memo = {}

    def persistent_load(self, pid):
        raise pickle.UnpicklingError("unsupported persistent id encountered")

    def load(self):
        """Read a pickled object representation from the open file and return it."""
        self.metastack = []
        self.stack = []
        self._result = None
        self._done = False
        handlers = self._handlers()
        while not self._done:
            key = self.read(1)
            if not key:
                raise EOFError
            handler = handlers.get(key[0])
            if handler is None:
                raise RuntimeError(f"Unsupported operand {key[0]}")
            handler()
        return self._result

    def _handlers(self):
        return {
            _op(pickle.GLOBAL): self._global, _op(pickle.NEWOBJ): self._newobj, _op(pickle.REDUCE): self._reduce,
            _op(pickle.BUILD): self._build, _op(pickle.APPEND): self._append, _op(pickle.APPENDS): self._appends,
            _op(pickle.SETITEM): self._setitem, _op(pickle.SETITEMS): self._setitems, _op(pickle.MARK): self._mark,
            _op(pickle.TUPLE): self._tuple, _op(pickle.TUPLE1): lambda: self._tuple_n(1),
            _op(pickle.TUPLE2): lambda: self._tuple_n(2), _op(pickle.TUPLE3): lambda: self._tuple_n(3),
            _op(pickle.NONE): lambda: self.stack.append(None),
            _op(pickle.NEWFALSE): lambda: self.stack.append(False),
            _op(pickle.NEWTRUE): lambda: self.stack.append(True),
            _op(pickle.EMPTY_TUPLE): lambda: self.stack.append(()),
            _op(pickle.EMPTY_LIST): lambda: self.stack.append([]),
            _op(pickle.EMPTY_DICT): lambda: self.stack.append({}),
            _op(pickle.EMPTY_SET): lambda: self.stack.append(set()),
            _op(pickle.BININT): lambda: self.stack.append(struct.unpack("<i", self.read(4))[0]),
            _op(pickle.BININT1): lambda: self.stack.append(self.read(1)[0]),
            _op(pickle.BININT2): lambda: self.stack.append(struct.unpack("<H", self.read(2))[0]),
            _op(pickle.BINUNICODE): self._binunicode, _op(pickle.SHORT_BINSTRING): self._short_binstring,
            _op(pickle.BINPERSID): self._binpersid,
            _op(pickle.BINGET): lambda: self.stack.append(self.memo[self.read(1)[0]]),
            _op(pickle.LONG_BINGET): lambda: self.stack.append(self.memo[struct.unpack("<I", self.read(4))[0]]),
            _op(pickle.BINPUT): lambda: self._put(self.read(1)[0]),
            _op(pickle.LONG_BINPUT): lambda: self._put(struct.unpack("<I", self.read(4))[0]),
            _op(pickle.LONG1): self._long1, _op(pickle.PROTO): lambda: self.read(1), _op(pickle.STOP): self._stop,
        }

    # the opcodes that name or call code: only the allowed globals
    def _global(self):
        module = self.readline()[:-1].decode("utf-8")
        name = self.readline()[:-1].decode("utf-8")
        full_path = f"{module}.{name}"
        allowed = _get_allowed_globals()
        if full_path not in allowed:
            raise RuntimeError(f"Unsupported class {full_path}")
        self.stack.append(allowed[full_path])

    def _newobj(self):
        args = self.stack.pop()
        cls = self.stack.pop()
        if cls is not torch.nn.Parameter:
            raise RuntimeError(f"Trying to instantiate unsupported class {cls}")
        self.stack.append(torch.nn.Parameter(*args))

    def _reduce(self):
        args = self.stack.pop()
        func = self.stack[-1]
        if func not in _get_allowed_globals().values():
            raise RuntimeError(f"Trying to call reduce for unrecognized function {func}")
        self.stack[-1] = func(*args)

    def _build(self):
        state = self.stack.pop()
        inst = self.stack[-1]
        if type(inst) is torch.Tensor:
            inst.set_(*state)   # the legacy pickles of tensors
        elif type(inst) is torch.nn.Parameter:
            inst.__setstate__(state)
        elif type(inst) is OrderedDict:
            inst.__dict__.update(state)
        else:
            raise RuntimeError(f"Can only build Tensor, parameter or dict objects, but got {type(inst)}")

    # containers
    def _append(self):
        item = self.stack.pop()
        target = self.stack[-1]
        if type(target) is not list:
            raise RuntimeError(f"Can only append to lists, but got {type(target)}")
        target.append(item)

    def _appends(self):
        items = self._pop_mark()
        target = self.stack[-1]
        if type(target) is not list:
            raise RuntimeError(f"Can only extend lists, but got {type(target)}")
        target.extend(items)

    def _setitem(self):
        v = self.stack.pop()
        k = self.stack.pop()
        self.stack[-1][k] = v

    def _setitems(self):
        items = self._pop_mark()
        target = self.stack[-1]
        for i in range(0, len(items), 2):
            target[items[i]] = items[i + 1]

    def _mark(self):
        self.metastack.append(self.stack)
        self.stack = []

    def _pop_mark(self):
        items = self.stack
        self.stack = self.metastack.pop()
        return items

    def _tuple(self):
        items = tuple(self._pop_mark())   # pop first: the mark restores self.stack
        self.stack.append(items)

    def _tuple_n(self, n):
        items = tuple(self.stack[-n:])
        del self.stack[-n:]
        self.stack.append(items)

    # values
    def _binunicode(self):
        n = struct.unpack("<I", self.read(4))[0]
        if n > sys.maxsize:
            raise RuntimeError("String is too long")
        self.stack.append(str(self.read(n), "utf-8", "surrogatepass"))

    def _short_binstring(self):
        data = self.read(self.read(1)[0])
        if self.encoding != "bytes":
            data = data.decode(self.encoding, "strict")
        self.stack.append(data)

    def _long1(self):
        n = self.read(1)[0]
        self.stack.append(pickle.decode_long(self.read(n)))

    def _binpersid(self):
        pid = self.stack.pop()
        # 1.13's test refuses a bare int id; tuples must name a storage
        if type(pid) is int:
            raise RuntimeError(f"persistent_load id must be tuple or int, but got {type(pid)}")
        if type(pid) is tuple and len(pid) > 0 and torch.serialization._maybe_decode_ascii(pid[0]) != "storage":
            raise RuntimeError(f"Only persistent_load of storage is allowed, but got {pid[0]}")
        self.stack.append(self.persistent_load(pid))

    def _put(self, i):
        if i < 0:
            raise ValueError("negative argument")
        self.memo[i] = self.stack[-1]

    def _stop(self):
        self._result = self.stack.pop()
        self._done = True


def load(file, *, encoding="ASCII"):
    return Unpickler(file, encoding=encoding).load()
