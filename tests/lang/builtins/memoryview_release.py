# memoryview release semantics: with-blocks release, views of views keep the base exported,
# BytesIO.close() refuses while getbuffer() views are alive (BufferError), as CPython.
import io, gc
b = io.BytesIO(b"abc")
v = b.getbuffer()
try:
    b.close()
except BufferError as e:
    print("BufferError", e)
print(b.closed)
v.release()
b.close(); print(b.closed)
ba = bytearray(b"hello")
with memoryview(ba) as m:
    s = m[1:3]
    m2 = memoryview(m)
    try:
        ba.append(1)
    except BufferError as e:
        print("BE1", e)
print(repr(m).startswith("<released memory at"))
try:
    m[0]
except ValueError as e:
    print("VE", e)
try:
    ba.append(1)
except BufferError as e:
    print("BE2", e)
s.release()
try:
    ba.append(1)
except BufferError as e:
    print("BE3", e)
m2.release()
ba.append(33); print(ba)
with memoryview(b"xyz") as m:
    print(m.tobytes(), m.nbytes)
try:
    with m:
        pass
except ValueError as e:
    print("VE2", e)
m.release(); m.release(); print("double release ok")
try:
    len(m)
except ValueError as e:
    print("VE3", e)
m = memoryview(ba)
del m
gc.collect()
ba.append(1); print(len(ba))
