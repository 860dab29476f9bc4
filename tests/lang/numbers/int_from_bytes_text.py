# int()/float() of bytes and bytearray text (re._compiler parses bitmaps with int(bytes, 2)),
# and a heap class's writable __doc__ (urllib.parse assigns it).
print(int(b"ff", 16), int(bytearray(b"101"), 2), int(bytearray(b" 7 ")), int(b"0x1f", 0), float(bytearray(b"1.5")))
for f in (lambda: int(bytearray(b"zz"), 10), lambda: int(bytearray(b"zz")), lambda: float(bytearray(b"zz")),
          lambda: int(memoryview(b"12"), 10), lambda: int(b"12", 99)):
    try:
        f()
    except (TypeError, ValueError) as e:
        print(type(e).__name__, e)


class T:
    "first"


T.__doc__ = "second"
print(T.__doc__, T().__doc__)
for f in (lambda: setattr(int, "__doc__", "y"), lambda: delattr(T, "__doc__")):
    try:
        f()
    except TypeError as e:
        print(type(e).__name__, e)
print(T.__doc__)
