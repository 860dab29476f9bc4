# copy.copy and copy.deepcopy: containers, instances, shared references, cycles, __copy__/__deepcopy__.
import copy
nested = [1, [2, 3], {"k": [4]}]
shallow = copy.copy(nested)
deep = copy.deepcopy(nested)
nested[1].append(99)
nested[2]["k"].append(5)
print(shallow, deep, shallow[1] is nested[1], deep[1] is nested[1])
class Point:
    def __init__(self, x, y):
        self.x = x
        self.y = y
        self.tags = ["t"]
    def __repr__(self):
        return f"Point({self.x}, {self.y}, {self.tags})"
p = Point(1, 2)
p2 = copy.copy(p)
p3 = copy.deepcopy(p)
p.tags.append("changed")
print(p2, p3, p2.tags is p.tags, p3.tags is p.tags, type(p3).__name__)
shared = [0]
obj = {"a": shared, "b": shared}
d = copy.deepcopy(obj)
print(d, d["a"] is d["b"], d["a"] is shared)
cyc = [1]
cyc.append(cyc)
c2 = copy.deepcopy(cyc)
print(c2[1] is c2, c2[0])
class Custom:
    def __init__(self, v): self.v = v
    def __copy__(self):
        print("__copy__ called")
        return Custom(self.v + 100)
    def __deepcopy__(self, memo):
        print("__deepcopy__ called")
        return Custom(self.v + 200)
print(copy.copy(Custom(1)).v, copy.deepcopy(Custom(1)).v, copy.deepcopy([Custom(2)])[0].v)
t = (1, [2])
t2 = copy.deepcopy(t)
print(t2, t2 is t, t2[1] is t[1], copy.deepcopy((1, 2)) is not None, copy.copy((1, 2)))
from collections import namedtuple, OrderedDict, defaultdict
NT = namedtuple("NT", "a b")
print(copy.deepcopy(NT(1, [2])), copy.copy(OrderedDict(a=1)), copy.deepcopy(defaultdict(list, {"x": [1]})))
print(copy.copy({1, 2}), copy.deepcopy(frozenset([3])), copy.copy("s"), copy.deepcopy(None), copy.copy(len) is len)
