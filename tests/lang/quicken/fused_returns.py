# `return local` (LOAD_FAST + RETURN_VALUE) and `return a + b` (BINARY_OP_ADD_INT +
# RETURN_VALUE) run as one instruction in the quickened code (opcodes.def note [15]).  What
# must not change: an unbound local raises UnboundLocalError from the return's line, the sum
# overflows to a big int, other operand types (floats, strings, an int subclass with its own
# __add__) take the generic path after the small-int form warmed up, a generator's return value
# reaches StopIteration, returns from frames called from C (sorted's key, map), and a frame
# object kept past its return shows the return's line and instruction.
import dis
import sys


def maybe(flag):
    if flag:
        x = 1
    return x


out = []
for i in range(6):
    try:
        out.append(maybe(i < 4))
    except UnboundLocalError as e:
        out.append("UnboundLocalError line %d" % sys.exc_info()[2].tb_next.tb_lineno)
print(out)


def add(a, b):
    return a + b


class MyInt(int):
    def __add__(self, other):
        return "MyInt.__add__"


print([add(i, i) for i in range(10)])
print(add(2**62, 2**62), add(-2**63, -2**63), add(9223372036854775807, 1))
print(add(1.5, 2), add("a", "b"), add(MyInt(3), 4), add(4, MyInt(3)), add([1], [2]))
print([add(i, 1) for i in range(3)])
# the small-int form specialised again between odd operands (its back-off is under 100 runs)
odd = {100: (1.5, 1), 200: (2**62, 2**62), 300: ("s", "t"), 400: (MyInt(1), 1), 500: (True, True)}
print([add(*odd[i]) if i in odd else add(i, -i) for i in range(600)][99::100])
try:
    add(1, None)
except TypeError as e:
    print("TypeError:", e, "line", sys.exc_info()[2].tb_next.tb_lineno)


def gen(a, b):
    yield a
    return a + b


def gen_local(a):
    yield a
    return a


for g in (gen(1, 2), gen(2**62, 2**62), gen("x", "y"), gen_local(5)):
    try:
        while True:
            next(g)
    except StopIteration as e:
        print("StopIteration", e.value)


def key(v):
    k = -v
    return k


print(sorted(range(8), key=key), list(map(key, [1, 2])))


def keep_frame(v):
    fr = sys._getframe()
    return fr


def keep_frame_sum(v):
    fr = sys._getframe()
    frames.append(fr)
    return v + v


frames = []
for i in range(5):
    fr = keep_frame(i)
    keep_frame_sum(i)
returns = lambda fn: [ins.offset for ins in dis.get_instructions(fn) if ins.opname == "RETURN_VALUE"]
print(fr.f_lineno, fr.f_lasti in returns(keep_frame), frames[-1].f_lineno, frames[-1].f_lasti in returns(keep_frame_sum))


def recurse(n):
    if n < 2:
        return n
    return recurse(n - 1) + recurse(n - 2)


print(recurse(20))
