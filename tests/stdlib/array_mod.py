# array (vm/lib/array.py, over struct): construction, items, methods, overflow and typecode errors.
import array
a = array.array('i', [1, 2, 3])
print(a, len(a), a[1], a[-1], a.itemsize, a.typecode, a.tolist(), bytes(a) == a.tobytes())
a.append(4); a.extend([5, 6]); a.insert(0, 0); print(a, a.pop(), a.index(3), a.count(2))
b = array.array('i'); b.frombytes(a.tobytes()); print(b == a, b[1:3], array.array('d', [1.5]), array.array('u', 'hi'))
try: array.array('b', [300])
except OverflowError as e: print(e)
try: array.array('x')
except ValueError as e: print(e)
print(array.array('B', b'ab'), a + b[:1], list(reversed(a))[:2])
