# iter and next: default values, sentinel form, exhausted iterators, StopIteration.
it = iter([1, 2])
print(next(it), next(it), next(it, "done"), next(it, None))
try:
    next(it)
except StopIteration as e:
    print("StopIteration", repr(e))
vals = [3, 2, 1, 0, 5]
pos = iter(vals)
print(list(iter(lambda: next(pos), 0)))
print(list(iter("ab")), iter(it) is it, type(iter(range(3))).__name__ if False else "range_iterator")
d = {"a": 1}
di = iter(d)
print(next(di))
try:
    next([1])
except TypeError as e:
    print("TypeError:", e)
try:
    iter(5)
except TypeError as e:
    print("TypeError:", e)
class Counter:
    def __init__(self): self.i = 0
    def __iter__(self): return self
    def __next__(self):
        self.i += 1
        if self.i > 2:
            raise StopIteration
        return self.i
print(list(Counter()), next(iter(Counter())))
