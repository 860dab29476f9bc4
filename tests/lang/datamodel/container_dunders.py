# Container protocol: __len__, __getitem__, __setitem__, __delitem__, __contains__, __iter__,
# __next__, __reversed__, __bool__, and the old __getitem__ iteration protocol.
class Grid:
    def __init__(self):
        self.cells = {}
    def __getitem__(self, key):
        print("get", key)
        return self.cells.get(key, 0)
    def __setitem__(self, key, val):
        print("set", key, val)
        self.cells[key] = val
    def __delitem__(self, key):
        print("del", key)
        del self.cells[key]
    def __len__(self):
        return len(self.cells)
    def __contains__(self, key):
        return key in self.cells
g = Grid()
g[1, 2] = "a"
g[0:2] = "slice"
print(g[1, 2], g[0:2], len(g), (1, 2) in g, (9, 9) in g, bool(g))
del g[1, 2]
g[3] += 5
print(len(g), g.cells)
class Countdown:
    def __init__(self, n): self.n = n
    def __iter__(self): return self
    def __next__(self):
        if self.n <= 0:
            raise StopIteration
        self.n -= 1
        return self.n
print(list(Countdown(3)), [x for x in Countdown(2)], 1 in Countdown(3), sum(Countdown(4)))
class Seq:
    def __getitem__(self, i):
        if i >= 3:
            raise IndexError(i)
        return i * 10
print(list(Seq()), 20 in Seq(), [x for x in Seq()])
class Rev:
    def __reversed__(self): return iter("cba")
    def __len__(self): return 3
print(list(reversed(Rev())), len(Rev()))
class Empty:
    def __len__(self): return 0
class Truth:
    def __bool__(self): return True
    def __len__(self): return 0
print(bool(Empty()), bool(Truth()), not Empty())
class BadLen:
    def __len__(self): return -1
try:
    len(BadLen())
except ValueError as e:
    print("ValueError:", e)
class BadBool:
    def __bool__(self): return 1
try:
    bool(BadBool())
except TypeError as e:
    print("TypeError:", e)
class NoIter: pass
try:
    iter(NoIter())
except TypeError as e:
    print("TypeError:", e)
try:
    len(NoIter())
except TypeError as e:
    print("TypeError:", e)
try:
    NoIter()[0]
except TypeError as e:
    print("TypeError:", e)
