# range() of any ints: bounds and lengths beyond 64 bits (longrange_iterator), the int64 edges,
# containment by arithmetic for ints and by equality for other values, hash/eq/reduce.
import sys
big = 1 << 100
M = sys.maxsize
rs = [range(big), range(-big, big, 3), range(big, -big, -7), range(big, big + 5), range(M - 2, M + 3),
      range(-M - 3, -M + 2), range(-M - 1, M), range(M - 1, M), range(-M - 1, -M - 1 + 2), range(0, big, big // 3),
      range(10), range(True), range(5, 0, -2)]
for r in rs:
    print(repr(r), r.start, r.stop, r.step, bool(r))
    try:
        print(" len", len(r))
    except OverflowError as e:
        print(" len OverflowError:", e)
    print(" items", r[0] if r else None, r[-1] if r else None, r[1:4], r[::-2][:3], r[big:] if True else None)
    it = iter(r)
    print(" iter", type(it).__name__, [x for _, x in zip(range(3), it)])
    rv = reversed(r)
    print(" reversed", type(rv).__name__, [x for _, x in zip(range(2), rv)])
    print(" contains", r.start in r, (r.start + r.step) in r, (r.start + 1) in r, big in r, float(r.start) in r, "x" in r if len(str(r.stop - r.start)) < 4 else None)
    print(" hash-eq", hash(r) == hash(range(r.start, r.stop, r.step)), r == range(r.start, r.stop, r.step))
    print(" index", r.index(r.start) if r else None, r.count(r.start) if len(str(r.stop - r.start)) < 4 else None, r.__reduce__())
print(list(range(M - 2, M + 3)), list(reversed(range(-M - 3, -M + 2))))
print(list(range(-M - 1, -M + 2)), list(reversed(range(M - 2, M + 1))))
print(sum(range(M - 5, M + 5)), list(range(2**64, 2**64 + 10, 3)))
print(range(big)[big - 1], range(0, 10)[2:big], range(10)[-big:big])
for bad in (lambda: range(big)[big], lambda: range(1, 2, 0), lambda: range(1.5), lambda: range(big)["a"], lambda: range(3).index(7)):
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
for x in range(big - 2, big + 1):
    print(x)
print(1.0 in range(3), 2.5 in range(3), True in range(2), range(3).count(1.0), range(3).index(2.0))
print(range(0) == range(5, 5), range(1, 2, 7) == range(1, 2, 9), hash(range(0)) == hash(range(3, 3)))
print(type(iter(range(1 << 1000))).__name__)
