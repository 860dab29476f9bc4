# bytes: construction, comparison, repetition, membership, and the common methods.
b = b"Hello, World"
print(bytes(b"x"), bytes([0, 255]), bytes(range(65, 70)), bytes("é", "utf-8"), bytes(2))
print(b == b"Hello, World", b != b"x", b"a" < b"b", b"ab" <= b"ab", b"b" > b"abc", b"" >= b"")
print(b * 2, 3 * b"ab", b"ab" * 0, b"lo" in b, 72 in b, 0 in b, b"" in b)
print(b.split(b", "), b"a b  c".split(), b"a,b,,c".split(b",", 1), b.startswith(b"Hell"), b.endswith((b"x", b"ld")))
print(b.find(b"o"), b.find(b"z"), b.index(b"W"), b.count(b"l"), b.count(108), b.replace(b"l", b"L"))
print(b"  pad  ".strip(), b"xxhixx".strip(b"x"), b"  a".lstrip(), b"a  ".rstrip(), b.upper(), b.lower(), b"\x01\xab".hex())
print(b"-".join([b"a", b"b", b"c"]), list(b"abc"), [x for x in b"hi"], b[::-1], b[-5:])
print(b"caf\xc3\xa9".decode(), b"abc".decode("ascii"), b"\xe9".decode("latin-1"), hash(b"ab") == hash(b"a" + b"b"))
for bad in [lambda: b"\xff".decode(), lambda: b"\xc3".decode("utf-8"), lambda: b"\x80".decode("ascii"),
            lambda: b"a" + "b", lambda: bytes([256]), lambda: bytes("x"), lambda: b"abc"[10], lambda: b"a".join(["b"])]:
    try:
        bad()
    except (TypeError, ValueError, IndexError, UnicodeDecodeError) as e:
        print(type(e).__name__ + ":", e)
print(type(b"").__name__, len(b""), bool(b""), bool(b"\x00"), repr(b"\t\n\r\\"), str(b"x"))
