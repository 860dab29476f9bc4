"""torch.testing.assert_close: PyTorch 1.13's comparison of (nested) tensors, numbers, booleans
and None, with its default tolerances per dtype and its error messages (type, text, the
"Mismatched elements" statistics and the index of the greatest differences), so a script that
catches the AssertionError and prints it prints what it prints under PyTorch.

Inputs are matched pairwise: sequences (not strings) element by element, mappings key by key
(sorted keys), then the first kind that accepts the pair (None, bool, number, tensor-like) compares
it.  Every pair is examined before anything is raised; the first failure is raised.  A failure
while pairing (lengths, keys, unsupported types) is raised with no context, as PyTorch does."""
import collections.abc
import math

import torch

__all__ = ["assert_close"]


def _dtype_precisions():
    # {dtype: (rtol, atol)}; PyTorch's table, less the dtypes this build lacks
    table = {}
    for name, tol in (("float16", (0.001, 1e-5)), ("bfloat16", (0.016, 1e-5)),
                      ("float32", (1.3e-6, 1e-5)), ("float64", (1e-7, 1e-7)),
                      ("complex32", (0.001, 1e-5)), ("complex64", (1.3e-6, 1e-5)),
                      ("complex128", (1e-7, 1e-7))):
        dt = getattr(torch, name, None)
        if dt is not None:
            table[dt] = tol
    # quantized tensors compare dequantized, with float32's tolerances
    for name in ("quint8", "quint2x4", "quint4x2", "qint8", "qint32"):
        dt = getattr(torch, name, None)
        if dt is not None:
            table[dt] = table[torch.float32]
    return table


_DTYPE_PRECISIONS = _dtype_precisions()
_NUMBER_DTYPES = {int: torch.int64, float: torch.float64,
                  complex: getattr(torch, "complex128", torch.float64)}


class _Failure(Exception):
    """What a comparison found: the exception type the user gets, its message, and the path of
    the failing item inside nested containers."""

    def __init__(self, kind, msg, path=()):
        super().__init__(msg)
        self.kind = kind
        self.msg = msg
        self.path = path

    def to_error(self, msg=None):
        if isinstance(msg, str):
            return self.kind(msg)
        text = self.msg
        if self.path:
            text += "\n\nThe failure occurred for item " + "".join(str([k]) for k in self.path)
        return self.kind(msg(text) if callable(msg) else text)


class _NotMine(Exception):
    """A comparer does not handle these inputs; the next one is tried."""


def default_tolerances(*inputs):
    """The loosest (rtol, atol) of the inputs' dtypes (tensors or dtypes)."""
    dtypes = []
    for x in inputs:
        if isinstance(x, torch.Tensor):
            dtypes.append(x.dtype)
        elif isinstance(x, torch.dtype):
            dtypes.append(x)
        else:
            raise TypeError(f"Expected a torch.Tensor or a torch.dtype, but got {type(x)} instead.")
    tols = [_DTYPE_PRECISIONS.get(dt, (0.0, 0.0)) for dt in dtypes]
    return max(t[0] for t in tols), max(t[1] for t in tols)


def _tolerances(inputs, rtol, atol, path):
    if (rtol is None) != (atol is None):
        missing = "rtol" if rtol is None else "atol"
        raise _Failure(ValueError, "Both 'rtol' and 'atol' must be either specified or omitted, "
                       f"but got no {missing}.", path)
    if rtol is not None:
        return rtol, atol
    return default_tolerances(*inputs)


def _diff_line(kind, diff, idx, tol, exact):
    if idx is None:
        line = f"{kind.title()} difference: {diff}"
    else:
        line = f"Greatest {kind} difference: {diff} at index {idx}"
    if not exact:
        line += f" (up to {tol} allowed)"
    return line + "\n"


def _mismatch_msg(what, identifier, extra, abs_diff, abs_idx, atol, rel_diff, rel_idx, rtol):
    exact = rtol == 0 and atol == 0
    if identifier is None:
        identifier = what
    elif callable(identifier):
        identifier = identifier(what)
    msg = f"{identifier} are not {'equal' if exact else 'close'}!\n\n"
    if extra:
        msg += extra.strip() + "\n"
    msg += _diff_line("absolute", abs_diff, abs_idx, atol, exact)
    msg += _diff_line("relative", rel_diff, rel_idx, rtol, exact)
    return msg.strip()


def _scalar_mismatch_msg(actual, expected, rtol, atol, identifier=None):
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_msg("Scalars", identifier, None, abs_diff, None, atol, rel_diff, None, rtol)


def _tensor_mismatch_msg(actual, expected, mismatches, rtol, atol, identifier=None):
    shape = tuple(mismatches.shape)

    def unravel(flat):
        idx = []
        for size in reversed(shape):
            flat, rem = divmod(flat, size)
            idx.append(rem)
        return tuple(reversed(idx))

    total = mismatches.numel()
    bad = torch.sum(mismatches).item()
    extra = f"Mismatched elements: {bad} / {total} ({bad / total:.1%})"
    a = actual.flatten()
    b = expected.flatten()
    matched = ~mismatches.flatten()
    # the greatest differences among the mismatched elements only
    abs_diff = torch.abs(a - b)
    abs_diff[matched] = 0
    max_abs, abs_at = torch.max(abs_diff, 0)
    rel_diff = abs_diff / torch.abs(b)
    rel_diff[matched] = 0
    max_rel, rel_at = torch.max(rel_diff, 0)
    return _mismatch_msg("Tensor-likes", identifier, extra, max_abs.item(), unravel(int(abs_at)),
                         atol, max_rel.item(), unravel(int(rel_at)), rtol)


def _is_nan(x):
    return x != x


def _is_finite(x):
    if isinstance(x, complex):
        return math.isfinite(x.real) and math.isfinite(x.imag)
    return math.isfinite(x)


class _Pair:
    def __init__(self, actual, expected, path):
        self.actual = actual
        self.expected = expected
        self.path = path

    def fail(self, kind, msg):
        return _Failure(kind, msg, self.path)


class _NonePair(_Pair):
    def __init__(self, actual, expected, path, **options):
        if not (actual is None or expected is None):
            raise _NotMine()
        super().__init__(actual, expected, path)

    def compare(self):
        if not (self.actual is None and self.expected is None):
            raise self.fail(AssertionError, f"None mismatch: {self.actual} is not {self.expected}")


class _BoolPair(_Pair):
    def __init__(self, actual, expected, path, **options):
        if not (isinstance(actual, bool) and isinstance(expected, bool)):
            raise _NotMine()
        super().__init__(actual, expected, path)

    def compare(self):
        if self.actual is not self.expected:
            raise self.fail(AssertionError, f"Booleans mismatch: {self.actual} is not {self.expected}")


class _NumberPair(_Pair):
    def __init__(self, actual, expected, path, rtol=None, atol=None, equal_nan=False,
                 check_dtype=False, **options):
        kinds = (int, float, complex)
        if not (isinstance(actual, kinds) and isinstance(expected, kinds)):
            raise _NotMine()
        super().__init__(actual, expected, path)
        self.rtol, self.atol = _tolerances([_NUMBER_DTYPES[type(x)] for x in (actual, expected)],
                                           rtol, atol, path)
        self.equal_nan = equal_nan
        self.check_dtype = check_dtype

    def compare(self):
        a, e = self.actual, self.expected
        if self.check_dtype and type(a) is not type(e):
            raise self.fail(AssertionError, f"The (d)types do not match: {type(a)} != {type(e)}.")
        if a == e:
            return
        if self.equal_nan and _is_nan(a) and _is_nan(e):
            return
        diff = abs(a - e)
        if _is_finite(diff) and diff <= self.atol + self.rtol * abs(e):
            return
        raise self.fail(AssertionError, _scalar_mismatch_msg(a, e, self.rtol, self.atol))


_LAYOUTS = tuple(getattr(torch, n) for n in ("strided", "sparse_coo", "sparse_csr", "sparse_csc",
                                            "sparse_bsr", "sparse_bsc") if hasattr(torch, n))


class _TensorPair(_Pair):
    def __init__(self, actual, expected, path, allow_subclasses=True, rtol=None, atol=None,
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, **options):
        if not (isinstance(actual, type(expected)) or isinstance(expected, type(actual))):
            raise _NotMine()
        if not allow_subclasses and type(actual) is not type(expected):
            raise _NotMine()
        actual, expected = self._as_tensor(actual), self._as_tensor(expected)
        for t in (actual, expected):
            if t.layout not in _LAYOUTS:
                raise _Failure(ValueError, f"Unsupported tensor layout {t.layout}", path)
        super().__init__(actual, expected, path)
        self.rtol, self.atol = _tolerances([actual, expected], rtol, atol, path)
        self.equal_nan = equal_nan
        self.check_device = check_device
        self.check_dtype = check_dtype
        self.check_layout = check_layout
        self.check_stride = check_stride

    @staticmethod
    def _as_tensor(x):
        if isinstance(x, torch.Tensor):
            return x
        try:
            return torch.as_tensor(x)
        except Exception:
            raise _NotMine()

    def _attribute_mismatch(self, name, a, e):
        return self.fail(AssertionError,
                         f"The values for attribute '{name}' do not match: {a} != {e}.")

    def compare(self):
        a, e = self.actual, self.expected
        if a.shape != e.shape:
            raise self._attribute_mismatch("shape", a.shape, e.shape)
        aq, eq = getattr(a, "is_quantized", False), getattr(e, "is_quantized", False)
        if aq != eq:
            raise self._attribute_mismatch("is_quantized", aq, eq)
        if a.layout != e.layout:
            if self.check_layout:
                raise self._attribute_mismatch("layout", a.layout, e.layout)
        elif a.layout == torch.strided and self.check_stride and a.stride() != e.stride():
            raise self._attribute_mismatch("stride()", a.stride(), e.stride())
        if self.check_device and a.device != e.device:
            raise self._attribute_mismatch("device", a.device, e.device)
        if self.check_dtype and a.dtype != e.dtype:
            raise self._attribute_mismatch("dtype", a.dtype, e.dtype)
        if a.device.type == "meta" or e.device.type == "meta":
            return
        # compared in one dtype and layout on the CPU
        if a.dtype != e.dtype:
            dt = torch.promote_types(a.dtype, e.dtype)
            a, e = a.to(dt), e.to(dt)
        if a.layout != e.layout:
            a = a if a.layout == torch.strided else a.to_dense()
            e = e if e.layout == torch.strided else e.to_dense()
        self._compare_values(a, e)

    def _compare_values(self, a, e):
        # in the widest dtype of the kind (bool counts as integral)
        if getattr(a.dtype, "is_complex", False):
            wide = torch.complex128
        elif a.dtype.is_floating_point:
            wide = torch.float64
        else:
            wide = torch.int64
        a, e = a.to(wide), e.to(wide)
        matches = torch.isclose(a, e, rtol=self.rtol, atol=self.atol, equal_nan=self.equal_nan)
        if torch.all(matches):
            return
        if a.shape == torch.Size([]):
            msg = _scalar_mismatch_msg(a.item(), e.item(), self.rtol, self.atol)
        else:
            msg = _tensor_mismatch_msg(a, e, ~matches, self.rtol, self.atol)
        raise self.fail(AssertionError, msg)


def _pairs(actual, expected, kinds, path, options):
    seq = collections.abc.Sequence
    if (isinstance(actual, seq) and not isinstance(actual, str)
            and isinstance(expected, seq) and not isinstance(expected, str)):
        if len(actual) != len(expected):
            raise _Failure(AssertionError, "The length of the sequences mismatch: "
                           f"{len(actual)} != {len(expected)}", path)
        out = []
        for i in range(len(actual)):
            out.extend(_pairs(actual[i], expected[i], kinds, (*path, i), options))
        return out
    mapping = collections.abc.Mapping
    if isinstance(actual, mapping) and isinstance(expected, mapping):
        akeys, ekeys = set(actual.keys()), set(expected.keys())
        if akeys != ekeys:
            raise _Failure(AssertionError,
                           "The keys of the mappings do not match:\n"
                           f"Missing keys in the actual mapping: {sorted(ekeys - akeys)}\n"
                           f"Additional keys in the actual mapping: {sorted(akeys - ekeys)}", path)
        keys = akeys
        try:
            keys = sorted(keys)
        except Exception:
            pass
        out = []
        for k in keys:
            out.extend(_pairs(actual[k], expected[k], kinds, (*path, k), options))
        return out
    for kind in kinds:
        try:
            return [kind(actual, expected, path, **options)]
        except _NotMine:
            continue
    raise _Failure(TypeError, "No comparison pair was able to handle inputs of type "
                   f"{type(actual)} and {type(expected)}.", path)


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None,
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, msg=None):
    """Asserts that actual and expected are close: |actual - expected| <= atol + rtol * |expected|
    elementwise, with PyTorch's default tolerances for their dtype when both are omitted."""
    __tracebackhide__ = True
    options = dict(allow_subclasses=allow_subclasses, rtol=rtol, atol=atol, equal_nan=equal_nan,
                   check_device=check_device, check_dtype=check_dtype,
                   check_layout=check_layout, check_stride=check_stride)
    try:
        pairs = _pairs(actual, expected, (_NonePair, _BoolPair, _NumberPair, _TensorPair), (),
                       options)
    except _Failure as failure:
        raise failure.to_error() from None
    first = None
    for pair in pairs:
        try:
            pair.compare()
        except _Failure as failure:
            if first is None:
                first = failure
    if first is not None:
        raise first.to_error(msg)
