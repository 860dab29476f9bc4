# The gc module's API over Ember's collector: get_objects (live tracked objects), is_tracked,
# get_count, get/set_threshold (threshold0 0 stops automatic collection, isenabled unchanged),
# get_stats, freeze / unfreeze / get_freeze_count, garbage; all were missing but collect/enable
import gc


class Foo:
    pass


keep = [Foo() for _ in range(5)]
d = {"a": [1, 2]}
objs = gc.get_objects()
print(type(objs).__name__, sum(1 for o in objs if isinstance(o, Foo)), any(o is d for o in objs), any(o is keep for o in objs))
del keep[:3]
print(sum(1 for o in gc.get_objects() if isinstance(o, Foo)))
print(gc.get_objects(0) == [] or isinstance(gc.get_objects(0), list), isinstance(gc.get_objects(generation=2), list))
print(isinstance(gc.get_objects(-1), list))
for bad in (3, -2):
    try:
        gc.get_objects(bad)
    except ValueError as e:
        print("ValueError:", e)
print(gc.is_tracked(1), gc.is_tracked("abc"), gc.is_tracked(1.5), gc.is_tracked([]), gc.is_tracked(Foo()))
c = gc.get_count()
print(type(c).__name__, len(c), all(isinstance(x, int) for x in c))
print(gc.get_threshold())
gc.set_threshold(1000, 20)
print(gc.get_threshold(), gc.isenabled())
gc.set_threshold(0)
print(gc.get_threshold(), gc.isenabled())
gc.set_threshold(700, 10, 10)
print(gc.isenabled())
try:
    gc.set_threshold("x")
except TypeError as e:
    print("TypeError:", e)
st = gc.get_stats()
print(len(st), sorted(st[0]), all(isinstance(v, int) for s in st for v in s.values()))
gc.collect()
print(sum(s["collections"] for s in gc.get_stats()) > 0)
print(gc.get_freeze_count())
gc.freeze()
print(gc.get_freeze_count() > 0)
gc.unfreeze()
print(gc.get_freeze_count(), gc.garbage)
