# marshal: CPython's format for the values a code object's constants hold (ints of any size,
# floats, strings, bytes, containers), round trips, and its errors.
import marshal

values = [0, 1, -1, 2**31 - 1, -2**31, 2**31, -2**31 - 1, 2**63 - 1, -2**63, 2**63, -2**64,
          2**200 + 12345, -(10**50), 3.5, -0.0, float("inf"), "", "abc", "h\u00e9llo \u20ac",
          "\U0001f600", b"", b"\x00\xff", (), (1, "a", (2.0, None)), [1, [2]], {"k": [1, 2]},
          {1, 2, 3}, frozenset({"x"}), None, True, False, ..., StopIteration]
for v in values:
    for version in (0, 2, 4):
        b = marshal.dumps(v, version)
        w = marshal.loads(b)
        assert w == v or (v != v), (v, version)
        assert type(w) is type(v), (v, version)
    # a scalar's payload is what CPython writes (inside containers CPython's reference flags
    # depend on reference counts)
    if not isinstance(v, (tuple, list, dict, set, frozenset)):
        print(repr(v)[:40], marshal.dumps(v, 4)[1:].hex()[:60])
print(marshal.version)
for bad in [b"", b"l", b"l\x02\x00\x00\x00\x01\x00\x00\x00", b"i\x01\x00", b"\x00"]:
    try:
        marshal.loads(bad)
    except Exception as e:
        print(type(e).__name__, e)
for bad in [object(), print]:
    try:
        marshal.dumps(bad)
    except ValueError as e:
        print("ValueError", e)
