"""array — typed arrays of numbers (CPython's C module arraymodule.c, written here over struct).

Why Ember's own file: CPython's array is a C module; socket.py (send_fds / recv_fds) and
multiprocessing.reduction (sendfds / recvfds) import it on every Unix run.  The items live in a
bytearray in native byte order, packed and unpacked with struct, so tobytes / frombytes and the
machine's layout are CPython's.  The common interface is here -- construction from a list,
bytes, str (for 'u') or another iterable, indexing and slicing, append / extend / insert / pop /
remove / index / count / reverse / byteswap, frombytes / tobytes / fromlist / tolist /
fromunicode / tounicode, buffer_info, comparisons, + and *, pickling -- with CPython's messages.
bytes(a) and APIs taking a bytes-like object read the items' bytes."""
import struct as _struct

__all__ = ["ArrayType", "array", "typecodes"]

typecodes = "bBuhHiIlLqQfd"
_SIZES = {c: _struct.calcsize(c if c != "u" else "I") for c in typecodes}
_INTS = "bBhHiIlLqQ"


def _fmt(typecode):
    return "=I" if typecode == "u" else "@" + typecode


class array:
    __slots__ = ("_tc", "_data", "__weakref__")

    def __new__(cls, typecode, initializer=None, /):
        if not isinstance(typecode, str) or len(typecode) != 1:
            raise TypeError("array() argument 1 must be a unicode character, not %s" % type(typecode).__name__)
        if typecode not in typecodes:
            raise ValueError("bad typecode (must be b, B, u, h, H, i, I, l, L, q, Q, f or d)")
        self = object.__new__(cls)
        self._tc = typecode
        self._data = bytearray()
        if initializer is None:
            return self
        if isinstance(initializer, str):
            if typecode != "u":
                raise TypeError("cannot use a str to initialize an array with typecode '%s'" % typecode)
            self.fromunicode(initializer)
        elif isinstance(initializer, array) and initializer._tc == "u" and typecode != "u":
            raise TypeError("cannot use a unicode array to initialize an array with typecode '%s'" % typecode)
        elif isinstance(initializer, (bytes, bytearray)):
            self.frombytes(initializer)
        else:
            self.extend(initializer)
        return self

    # ---- items
    @property
    def typecode(self):
        return self._tc

    @property
    def itemsize(self):
        return _SIZES[self._tc]

    def _pack(self, v):
        tc = self._tc
        if tc == "u":
            if not isinstance(v, str) or len(v) != 1:
                raise TypeError("array item must be unicode character")
            return _struct.pack("=I", ord(v))
        if tc in _INTS:
            if not isinstance(v, int):
                if isinstance(v, float):
                    raise TypeError("'float' object cannot be interpreted as an integer")
                v = v.__index__()
            try:
                return _struct.pack(_fmt(tc), v)
            except _struct.error:
                if tc in "bh" or tc in "ilq":
                    lo = -(1 << (8 * _SIZES[tc] - 1))
                    if tc == "b":
                        msg = ("signed char is less than minimum" if v < lo
                               else "signed char is greater than maximum")
                    elif tc == "h":
                        msg = ("signed short integer is less than minimum" if v < lo
                               else "signed short integer is greater than maximum")
                    else:
                        msg = "Python int too large to convert to C long" if tc != "i" else (
                            "signed integer is less than minimum" if v < lo
                            else "signed integer is greater than maximum")
                    raise OverflowError(msg) from None
                if v < 0:
                    raise OverflowError("unsigned %s is less than minimum" % {
                        "B": "byte integer", "H": "short", "I": "int", "L": "long", "Q": "long long"}[tc]
                        if tc in "BH" else "can't convert negative value to unsigned int") from None
                raise OverflowError("unsigned %s is greater than maximum" % {
                    "B": "byte integer", "H": "short"}.get(tc, "int")) from None
        if not isinstance(v, (int, float)):
            try:
                v = v.__float__()
            except AttributeError:
                raise TypeError("must be real number, not %s" % type(v).__name__) from None
        return _struct.pack(_fmt(tc), v)

    def _unpack(self, i):
        n = _SIZES[self._tc]
        v = _struct.unpack_from(_fmt(self._tc), self._data, i * n)[0]
        return chr(v) if self._tc == "u" else v

    def __len__(self):
        return len(self._data) // _SIZES[self._tc]

    def _index(self, i):
        n = len(self)
        i = i.__index__()
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("array index out of range")
        return i

    def __getitem__(self, i):
        if isinstance(i, slice):
            r = array(self._tc)
            r._data = bytearray(b"".join(self._item_bytes(k) for k in range(*i.indices(len(self)))))
            return r
        return self._unpack(self._index(i))

    def _item_bytes(self, k):
        n = _SIZES[self._tc]
        return bytes(self._data[k * n:(k + 1) * n])

    def __setitem__(self, i, v):
        n = _SIZES[self._tc]
        if isinstance(i, slice):
            if not isinstance(v, array):
                raise TypeError("can only assign array (not \"%s\") to array slice" % type(v).__name__)
            if v._tc != self._tc:
                raise TypeError("bad argument type for built-in operation")
            items = [self._item_bytes(k) for k in range(len(self))]
            items[i] = [v._item_bytes(k) for k in range(len(v))]
            self._data[:] = b"".join(items)
            return
        k = self._index(i)
        self._data[k * n:(k + 1) * n] = self._pack(v)

    def __delitem__(self, i):
        n = _SIZES[self._tc]
        if isinstance(i, slice):
            items = [self._item_bytes(k) for k in range(len(self))]
            del items[i]
            self._data[:] = b"".join(items)
            return
        k = self._index(i)
        del self._data[k * n:(k + 1) * n]

    def __iter__(self):
        for k in range(len(self)):
            yield self._unpack(k)

    def __contains__(self, v):
        return any(x == v for x in self)

    def __bytes__(self):
        return bytes(self._data)

    # ---- methods
    def append(self, v):
        self._data += self._pack(v)

    def extend(self, iterable):
        if isinstance(iterable, array):
            if iterable._tc != self._tc:
                raise TypeError("can only extend with array of same kind")
            self._data += iterable._data
            return
        for v in iterable:
            self.append(v)

    def insert(self, i, v):
        n = len(self)
        if i < 0:
            i = max(i + n, 0)
        i = min(i, n)
        s = _SIZES[self._tc]
        self._data[i * s:i * s] = self._pack(v)

    def pop(self, i=-1):
        if not len(self):
            raise IndexError("pop from empty array")
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("pop index out of range")
        v = self._unpack(i)
        del self[i]
        return v

    def remove(self, v):
        for k, x in enumerate(self):
            if x == v:
                del self[k]
                return
        raise ValueError("array.remove(x): x not in array")

    def index(self, v, start=0, stop=None):
        n = len(self)
        stop = n if stop is None else stop
        for k in range(*slice(start, stop).indices(n)):
            if self._unpack(k) == v:
                return k
        raise ValueError("array.index(x): x not in array")

    def count(self, v):
        return sum(1 for x in self if x == v)

    def reverse(self):
        items = [self._item_bytes(k) for k in range(len(self))]
        self._data[:] = b"".join(reversed(items))

    def byteswap(self):
        n = _SIZES[self._tc]
        self._data[:] = b"".join(self._item_bytes(k)[::-1] for k in range(len(self)))
        del n

    def buffer_info(self):
        return (id(self._data), len(self))

    def frombytes(self, b):
        b = memoryview(b).tobytes() if not isinstance(b, (bytes, bytearray)) else b
        if len(b) % _SIZES[self._tc]:
            raise ValueError("bytes length not a multiple of item size")
        self._data += b

    def tobytes(self):
        return bytes(self._data)

    def fromlist(self, lst):
        if not isinstance(lst, list):
            raise TypeError("arg must be list")
        saved = bytes(self._data)
        try:
            for v in lst:
                self.append(v)
        except BaseException:
            self._data[:] = saved
            raise

    def tolist(self):
        return list(self)

    def fromunicode(self, s):
        if self._tc != "u":
            raise ValueError("fromunicode() may only be called on unicode type arrays")
        for ch in s:
            self.append(ch)

    def tounicode(self):
        if self._tc != "u":
            raise ValueError("tounicode() may only be called on unicode type arrays")
        return "".join(self)

    def fromfile(self, f, n):
        b = f.read(n * _SIZES[self._tc])
        self.frombytes(b[:len(b) - len(b) % _SIZES[self._tc]])
        if len(b) < n * _SIZES[self._tc]:
            raise EOFError("read() didn't return enough bytes")

    def tofile(self, f):
        f.write(bytes(self._data))

    # ---- operators
    def __repr__(self):
        if not len(self):
            return "%s('%s')" % (type(self).__name__, self._tc)
        if self._tc == "u":
            return "%s('u', %r)" % (type(self).__name__, self.tounicode())
        return "%s('%s', %r)" % (type(self).__name__, self._tc, self.tolist())

    def _cmp_items(self, other):
        if not isinstance(other, array):
            return NotImplemented
        return (list(self), list(other))

    def __eq__(self, other):
        p = self._cmp_items(other)
        return p if p is NotImplemented else p[0] == p[1]

    def __ne__(self, other):
        p = self._cmp_items(other)
        return p if p is NotImplemented else p[0] != p[1]

    def __lt__(self, other):
        p = self._cmp_items(other)
        return p if p is NotImplemented else p[0] < p[1]

    def __le__(self, other):
        p = self._cmp_items(other)
        return p if p is NotImplemented else p[0] <= p[1]

    def __gt__(self, other):
        p = self._cmp_items(other)
        return p if p is NotImplemented else p[0] > p[1]

    def __ge__(self, other):
        p = self._cmp_items(other)
        return p if p is NotImplemented else p[0] >= p[1]

    __hash__ = None

    def __add__(self, other):
        if not isinstance(other, array):
            raise TypeError("can only append array (not \"%s\") to array" % type(other).__name__)
        if other._tc != self._tc:
            raise TypeError("bad argument type for built-in operation")
        r = array(self._tc)
        r._data = self._data + other._data
        return r

    def __iadd__(self, other):
        if not isinstance(other, array):
            raise TypeError("can only extend array with array (not \"%s\")" % type(other).__name__)
        self.extend(other)
        return self

    def __mul__(self, n):
        r = array(self._tc)
        r._data = self._data * n
        return r

    __rmul__ = __mul__

    def __imul__(self, n):
        self._data *= n
        return self

    def __copy__(self):
        r = array(self._tc)
        r._data = bytearray(self._data)
        return r

    def __deepcopy__(self, memo):
        return self.__copy__()

    def __reduce_ex__(self, protocol):
        return (array, (self._tc, self.tolist()))


array.__module__ = "array"
ArrayType = array
