# LOAD_GLOBAL's cache (keyed by the globals' and builtins' dict versions) after a global or a
# builtin is rebound, deleted or shadowed in the middle of a loop.
import builtins


def f():
    return 1


def loop_rebind(n):
    global f
    total = 0
    for i in range(n):
        total += f()
        if i == 5:
            f = lambda: 100
    return total


print(loop_rebind(10))


def use_len(xs):
    return [len(x) for x in xs]


print(use_len(["a", "bb", "ccc"]))
len = lambda x: -1   # a global shadowing the builtin
print(use_len(["a", "bb", "ccc"]))
del len
print(use_len(["a", "bb", "ccc"]))

orig = builtins.abs
builtins.abs = lambda x: "patched"


def use_abs():
    return abs(-3)


print(use_abs())
builtins.abs = orig
print(use_abs())


def gone():
    return missing_name


missing_name = 7
for _ in range(4):
    print(gone())
del missing_name
try:
    gone()
except NameError as e:
    print("NameError:", e)


def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


print(fib(15))
real_fib = fib
fib = lambda n: 0
print(real_fib(15))
