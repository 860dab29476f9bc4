# _bisect and _heapq against CPython: positions with lo/hi/key, insort into lists and other
# sequences, heaps built by push/heapify (small and past the cache-friendly threshold),
# pop/replace/pushpop, the _max variants, and the error messages.
import _bisect as b
import _heapq as h

a = [1, 2, 2, 2, 3, 5, 8]
print([b.bisect_left(a, x) for x in (0, 2, 4, 9)], [b.bisect_right(a, x) for x in (0, 2, 4, 9)])
print(b.bisect_left(a, 2, 2), b.bisect_right(a, 2, 0, 3), b.bisect_left(a, 2, hi=2), b.bisect_right(x=3, a=a))
recs = [('a', 1), ('b', 3), ('c', 5)]
print(b.bisect_left(recs, 3, key=lambda r: r[1]), b.bisect_right(recs, 3, key=lambda r: r[1]))
b.insort_left(a, 2)
b.insort_right(a, 4)
b.insort(a, 7) if hasattr(b, 'insort') else b.insort_right(a, 7)
print(a)
b.insort_right(recs, ('x', 4), key=lambda r: r[1])
print(recs)


class Seq:
    def __init__(self):
        self.d = []

    def __len__(self):
        return len(self.d)

    def __getitem__(self, i):
        return self.d[i]

    def insert(self, i, v):
        self.d.insert(i, v)


s = Seq()
for v in (5, 1, 3, 3, 9):
    b.insort_left(s, v)
print(s.d, b.bisect_right('aceg', 'd'))
for f in (lambda: b.bisect_left(a, 1, -1), lambda: b.bisect_left(a), lambda: b.bisect_left(a, 1, bogus=2),
          lambda: b.bisect_left(5, 1), lambda: b.bisect_right([1, 'a'], 0)):
    try:
        f()
    except (TypeError, ValueError) as e:
        print(type(e).__name__, e)
heap = []
for v in [5, 3, 8, 1, 9, 2, 7, 1]:
    h.heappush(heap, v)
print(heap, [h.heappop(heap) for _ in range(len(heap))])
data = [(i * 7919) % 1009 for i in range(3000)]
big = list(data)
h.heapify(big)
small = data[:100]
h.heapify(small)
print(big[:12], small[:12], sum(big[i] * (i + 1) for i in range(len(big))) % 1000003)
print([h.heappop(big) for _ in range(5)])
hp = [1, 4, 2]
print(h.heapreplace(hp, 9), hp, h.heappushpop(hp, 0), h.heappushpop(hp, 5), hp, h.heappushpop([], 3))
mx = list(data[:50])
h._heapify_max(mx)
print(mx[:6], h._heappop_max(mx), h._heapreplace_max(mx, -1), mx[:4])
big_max = list(data)
h._heapify_max(big_max)
print(big_max[:8])
for f in (lambda: h.heappop([]), lambda: h.heapreplace([], 1), lambda: h.heappush((), 1), lambda: h.heapify(None),
          lambda: h.heappush([1, 'a'], 2), lambda: h.heappush([]), lambda: h._heappop_max([])):
    try:
        f()
    except (TypeError, IndexError) as e:
        print(type(e).__name__, e)


class Evil:
    def __init__(self, heap):
        self.heap = heap

    def __lt__(self, other):
        self.heap.clear()
        return True

    __gt__ = __lt__


eh = [1, 2, 3]
eh.append(Evil(eh))
try:
    h.heapify(eh)
except RuntimeError as e:
    print('RuntimeError', e)
print(sorted(n for n in dir(h) if not n.startswith('__')), sorted(n for n in dir(b) if not n.startswith('__')))
