# io.BytesIO.getbuffer(): a writable memoryview; the BytesIO refuses to resize while it lives;
# CPython's pickle (which frames through getbuffer) round-trips.
import io, pickle
b = io.BytesIO(b"hello world")
v = b.getbuffer()
print(type(v).__name__, len(v), bytes(v[:5]), v.readonly, v.format)
v[0] = ord("J")
print(b.getvalue())
for f in (lambda: b.write(b"x"), lambda: b.truncate(2)):
    try:
        f()
    except BufferError as e:
        print("BufferError", e)
v.release()
b.write(b"!!")
print(b.getvalue())
with b.getbuffer() as w:
    print(bytes(w[-3:]))
b.seek(0, 2); b.write(b"more")
print(b.getvalue())
e = io.BytesIO()
print(len(e.getbuffer()), bytes(e.getbuffer()))
data = pickle.dumps({"a": [1, 2.5, "x", (3, None)], "b": b"bytes", "c": 2 ** 100})
print(pickle.loads(data))
b.close()
try:
    b.getbuffer()
except ValueError as e:
    print("ValueError", e)
