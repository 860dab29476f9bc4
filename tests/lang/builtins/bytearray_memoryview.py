# bytearray and memoryview in full, and the methods bytes and bytearray share: mutation, slices
# with steps, exports refusing resizes until released (or collected), casts and struct formats,
# searching/splitting/padding/case/translate/hex, bytes %-formatting, subclasses, and errors.
def t(f):
    try: print(repr(f()))
    except Exception as e: print(type(e).__name__ + ":", e)
b = bytearray(b'hello')
print(repr(b), b[0], b[1:3], type(b[1:3]).__name__, b + b'!', type(b'x' + b).__name__, type(b + b'x').__name__, b * 2, b == b'hello', b'hello' == b)
b[0] = 72; b[1:3] = b'EE'; b.append(33); b.extend([63, 64]); b.insert(0, 62); print(b, b.pop(), b.pop(0), b)
del b[0]; del b[1:3]; print(b); t(lambda: b.remove(108)); print(b, b.find(b"o"), b.index(111), b.count(b"o"))
b.reverse(); print(b); print(b.copy(), b.decode(), b.hex(), bytearray.fromhex('41 42'), bytearray(3), bytearray([1, 2]), bytearray('ab', 'ascii'))
for f in [lambda: hash(b), lambda: bytearray('x'), lambda: b.append(256), lambda: bytearray([1, 300]), lambda: b.remove(1), lambda: bytearray(b'x').pop(5), lambda: bytearray().pop(), lambda: bytearray(-1), lambda: b[10], lambda: b.__setitem__(0, 'a')]:
    t(f)
b2 = bytearray(b'0123456789'); b2[::2] = b'abcde'; print(b2); del b2[::3]; print(b2); b2 += b'Z'; b2 *= 2; print(b2, len(b2))
t(lambda: b2.__setitem__(slice(0, 10, 2), b'x'))
m = memoryview(b'abcdef')
print(m[0], m[1:3].tobytes(), bytes(m[::2]), len(m), m.nbytes, m.readonly, m.format, m.itemsize, m.ndim, m.shape, m.strides, m.tolist()[:3], m.hex(), m.obj)
ba = bytearray(b'xyz'); mv = memoryview(ba); mv[0] = 65; print(ba, mv.readonly)
t(lambda: ba.append(1))
mv.release()
ba.append(1); print(ba)
t(lambda: mv[0])
with memoryview(b'q') as mm: print(mm.tobytes())
c = memoryview(bytearray(8)).cast('I'); c[1] = 7; print(c.tolist(), c.format, c.itemsize, len(c), c.nbytes, c.obj)
print(memoryview(b'ab') == b'ab', memoryview(b'ab') == memoryview(bytearray(b'ab')), hash(memoryview(b'ab')) == hash(b'ab'))
t(lambda: hash(memoryview(bytearray(b'a'))))
t(lambda: memoryview(b'a').__setitem__(0, 1))
t(lambda: memoryview('s'))
t(lambda: memoryview(bytearray(4)).cast('I').__setitem__(0, -1))
t(lambda: c.__setitem__(0, 2**40))
print(b'abc'.center(7, b'*'), b'a b'.split(), b' x '.strip(), b'a,b'.partition(b','), b'a,b'.rpartition(b'!'), b'AbC'.swapcase(), b'hello world'.title(), b'12'.zfill(5), b'-3'.zfill(4), b'ab'.rjust(4), b'a\tb'.expandtabs(), b'x\ny\r\n'.splitlines(), b'x\ny\r\n'.splitlines(True))
print(b'a'.isalpha(), b''.isalpha(), b'Ab Cd'.istitle(), b'abc'.translate(bytes.maketrans(b'a', b'z')), b'abcab'.rfind(b'ab'), b'a-b-c'.rsplit(b'-', 1), b'prefix_x'.removeprefix(b'prefix_'), b'x  y z'.split(None, 1), b'  x y '.rsplit(None, 1))
print(b'%s %d %x %r %5s|%-4b|%c%c' % (b'hi', 5, 255, b'q', b'ab', b'cd', 65, b'z'), bytearray(b'%s') % (b'z',), b'%(a)s' % {b'a': b'map'})
t(lambda: b'%s' % 'str')
t(lambda: b'%d %d' % (1,))
print(b'abc'.startswith(b'b', 1), b'abc'.endswith((b'x', b'c')), b'abcabc'.count(b'b', 2), b'abc'.find(98), b'a' in b'cat', 97 in b'cat', b'x'.join([b'a', bytearray(b'b'), memoryview(b'c')]))
print(b'deadbeef'.hex(), bytes.fromhex('de ad'), b'\x01\x02\x03'.hex(':'), b'\x01\x02\x03\x04'.hex('-', 2), bytes(bytearray(b'q')), bytes(memoryview(b'mv')))
t(lambda: bytes.fromhex('zz'))
t(lambda: b'a'.replace(b'', b'-'))
print(b'aaa'.replace(b'a', b'b', 2), b''.replace(b'', b'x'), list(bytearray(b'ab')), bytearray(b'ab').__reduce_ex__(4), sorted([bytearray(b'b'), b'a']))
import gc
x = bytearray(b'12')
v = memoryview(x)
del v
x.extend(b'34'); print(x)
class BA(bytearray):
    pass
s = BA(b'sub'); s.tag = 1
print(s, type(s).__name__, s.tag, type(s + b'x').__name__, isinstance(s, bytearray))
