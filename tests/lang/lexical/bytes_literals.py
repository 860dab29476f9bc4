# bytes literals: repr, len, indexing, slicing, decode, raw bytes, escapes.
b = b"hello\x00\xff\n'"
print(b, len(b), b[0], b[-1], b[1:3], b[::2], type(b[0]).__name__)
print(b"abc".decode(), b"\xc3\xa9".decode("utf-8"), rb"\n", br"raw\t", B"x")
print(b"a" + b"b", b"ab" * 2, b"b" in b"abc", b"abc" == b"abc", b"a" < b"b")
print(bytes([65, 66, 67]), bytes(3), "é".encode(), list(b"AB"), repr(b'"'), repr(b"'\""))
print(b"".join([b"x", b"y"]), b"a,b".split(b","), hash(b"x") == hash(b"x"))
