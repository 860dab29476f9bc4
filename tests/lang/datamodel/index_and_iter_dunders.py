# __index__ for sequence indexing, slicing and bin/hex; __iter__ as a generator; __contains__
# falling back to __iter__ and to __getitem__; __len__ in bool().
class Idx:
    def __init__(self, v): self.v = v
    def __index__(self): return self.v
print([10, 20, 30][Idx(1)], "abc"[Idx(-1)], [0, 1, 2, 3][Idx(1):Idx(3)], hex(Idx(255)), bin(Idx(5)), range(Idx(3)))
print(list(range(10))[::Idx(3)], (1, 2, 3)[Idx(0)], b"xyz"[Idx(2)], [1, 2] * Idx(2) if False else "")
class Tree:
    def __init__(self, *vals): self.vals = vals
    def __iter__(self):
        for v in self.vals:
            yield v * 10
t = Tree(1, 2, 3)
print(list(t), 20 in t, 5 in t, sorted(t, reverse=True), max(t), dict.fromkeys(t))
class GetItemOnly:
    def __getitem__(self, i):
        if i > 2:
            raise IndexError
        return i
print(2 in GetItemOnly(), 7 in GetItemOnly(), list(GetItemOnly()))
class Container:
    def __contains__(self, x):
        print("contains", x)
        return x == 1
print(1 in Container(), 2 not in Container())
class Len:
    def __init__(self, n): self.n = n
    def __len__(self): return self.n
print(bool(Len(0)), bool(Len(3)), len(Len(7)), "yes" if Len(1) else "no")
class Reversible:
    def __len__(self): return 3
    def __getitem__(self, i):
        if not 0 <= i < 3:
            raise IndexError(i)
        return "abc"[i]
print(list(reversed(Reversible())), list(Reversible()))
