# Regression: module objects had no GC trace function, so a collection freed the dict of any
# module not otherwise reachable from a running frame (a use-after-free), and defaultdict and
# OrderedDict contents were never marked.
import gc
import _gc_helper
from collections import defaultdict, OrderedDict
dd = defaultdict(list)
dd["k"].append(["nested", "list"])
od = OrderedDict(a=[1, 2])
junk = [str(i) * 3 for i in range(300)]
del junk
gc.collect()
print(_gc_helper.VALUE, _gc_helper.double(21), dd["k"], od["a"])
