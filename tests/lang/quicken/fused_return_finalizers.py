# The fused returns (opcodes.def note [15]) go through RETURN_VALUE's safe point when the
# collector has queued finalizers: many objects with __del__ die while `return i`, `return a + b`
# and `x = call()` run, and each return still hands the right value over.
class C:
    def __del__(self):
        pass


def mk(i):
    c = C()
    return i


def mk_sum(a, b):
    c = C()
    return a + b


t = s = 0
for i in range(100000):
    t = mk(i)
    s = mk_sum(s, 1)
    mk(i)
print(t, s)
