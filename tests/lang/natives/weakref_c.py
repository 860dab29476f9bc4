# _weakref: proxies (attribute, item, call, operator forwarding; ReferenceError once dead;
# callbacks), getweakrefcount/getweakrefs, _remove_dead_weakref, and ref callbacks run for
# every referent that dies in one collection (more than any fixed batch).
import _weakref
import gc


class Obj:
    def __init__(self, v):
        self.v = v

    def __call__(self, x):
        return self.v + x

    def __len__(self):
        return 3

    def __getitem__(self, i):
        return i * 2

    def __add__(self, o):
        return self.v + o

    def __eq__(self, o):
        return isinstance(o, Obj) and o.v == self.v

    __hash__ = object.__hash__


o = Obj(10)
p = _weakref.proxy(o)
print(p.v, p(5), len(p), p[4], p + 1, p == Obj(10), bool(p), str(p).startswith('<'), 5 in [p])
p.w = 7
print(o.w, type(p).__name__, type(p).__module__, type(_weakref.proxy(Obj)).__name__)
del p.w
print(hasattr(o, 'w'), _weakref.getweakrefcount(o), len(_weakref.getweakrefs(o)), _weakref.getweakrefs(1))
lst = [3, 1, 2]


class L(list):
    pass


ll = L([3, 1, 2])
lp = _weakref.proxy(ll)
print(lp[0], len(lp), sorted(lp), list(reversed(lp)), 2 in lp, lp * 2 == [3, 1, 2, 3, 1, 2])
try:
    hash(p)
except TypeError as e:
    print('TypeError', type(e).__name__)
log = []
q = _weakref.proxy(o, lambda r: log.append('dead'))
del o
gc.collect()
print(log)
try:
    q.v
except ReferenceError as e:
    print('ReferenceError', e)
try:
    p + 1
except ReferenceError as e:
    print('ReferenceError', e)
r = _weakref.ref(Obj(1))
gc.collect()
d = {'a': r, 'b': _weakref.ref(Obj)}
_weakref._remove_dead_weakref(d, 'a')
_weakref._remove_dead_weakref(d, 'b')
_weakref._remove_dead_weakref(d, 'zz')
print(sorted(d))
try:
    _weakref._remove_dead_weakref({'x': 1}, 'x')
except TypeError as e:
    print('TypeError', e)
hits = []
objs = [Obj(i) for i in range(1000)]
refs = [_weakref.ref(x, lambda r: hits.append(1)) for x in objs]
del objs
gc.collect()
print(len(hits), sum(1 for r in refs if r() is None))
try:
    _weakref.proxy(1)
except TypeError as e:
    print('TypeError', e)
