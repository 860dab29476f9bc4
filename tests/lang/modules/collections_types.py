# collections: OrderedDict, defaultdict, deque, Counter, ChainMap.
from collections import OrderedDict, defaultdict, deque, Counter, ChainMap
od = OrderedDict()
od["b"] = 1; od["a"] = 2; od["c"] = 3
od.move_to_end("b")
print(od, list(od), od.popitem(), od.popitem(last=False), od)
od2 = OrderedDict([("x", 1), ("y", 2)])
od2.move_to_end("y", last=False)
print(od2, od2 == OrderedDict([("y", 2), ("x", 1)]), isinstance(od2, dict), OrderedDict(a=1))
dd = defaultdict(list)
for k, v in [("a", 1), ("b", 2), ("a", 3)]:
    dd[k].append(v)
print(dd, dd["a"], dd["missing"], len(dd), dd.default_factory is list)
counts = defaultdict(int)
for ch in "mississippi":
    counts[ch] += 1
print(sorted(counts.items()), defaultdict(None, {1: 2}), dict(counts) == {"m": 1, "i": 4, "s": 4, "p": 2})
try:
    defaultdict(None)["x"]
except KeyError as e:
    print("KeyError:", e)
dq = deque([1, 2, 3])
dq.append(4); dq.appendleft(0); dq.extend([5, 6]); dq.extendleft([-1, -2])
print(dq, dq.pop(), dq.popleft(), dq, len(dq), dq[0], dq[-1], 3 in dq)
dq.rotate(2); print(dq)
dq.rotate(-3); print(dq)
bounded = deque(range(10), maxlen=3)
print(bounded, bounded.maxlen)
bounded.append(10); bounded.appendleft(-1)
print(bounded, list(reversed(bounded)), deque(), deque("ab") == deque(["a", "b"]))
try:
    deque().pop()
except IndexError as e:
    print("IndexError:", e)
c = Counter("abracadabra")
print(c, c["a"], c["z"], c.most_common(2), sorted(c.elements())[:4], c.total())
c.update("aaz"); c.subtract({"b": 5})
print(c, Counter(a=3, b=1) + Counter(a=1, b=2), Counter(a=3, b=1) - Counter(a=1, b=2))
print(Counter(a=3, b=1) | Counter(a=1, b=2), Counter(a=3, b=1) & Counter(a=1, b=2), +Counter(a=-1, b=2), Counter())
print(Counter(["x", "y", "x"]) == Counter({"x": 2, "y": 1}), dict(Counter("aab")))
cm = ChainMap({"a": 1}, {"a": 2, "b": 3})
print(cm["a"], cm["b"], len(cm), sorted(cm), "b" in cm, cm.get("z", 0), cm)
cm["c"] = 4
print(cm.maps, cm.new_child({"a": 0})["a"], cm.parents)
