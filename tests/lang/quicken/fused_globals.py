# `PUSH_NULL; LOAD_GLOBAL g` of a call `g(...)` runs as one instruction once the LOAD_GLOBAL
# specialised to a module global (opcodes.def note [15]).  Warmed in a loop, then the global is
# rebound, deleted so that a builtin of the same name shows through, deleted for good (NameError
# from its line), and the builtin patched; other functions at other sites keep their own caches.
import builtins
import sys


def g(i):
    return i


def len(x):
    return "global len"


def calls(n, hook):
    out = []
    for i in range(n):
        hook(i)
        try:
            out.append((g(i), len("abc")))
        except NameError as e:
            out.append("NameError: %s line %d" % (e, sys.exc_info()[2].tb_lineno))
    return out


# each change 100 iterations after the last, so that the call site has specialised again
def h(i):
    global g, len
    if i == 100:
        g = lambda i: i * 100
    if i == 200:
        del len
    if i == 300:
        builtins.len = lambda x: "patched builtin"
    if i == 400:
        del g
    if i == 500:
        g = abs
    if i == 600:
        def len(x):
            return "global len again"


orig_len = builtins.len
out = calls(700, h)
builtins.len = orig_len
for k in range(0, 700, 100):
    print(out[k - 1 if k else 0], out[k], out[k + 1], out[k + 99])
print(len("abcd"), g(-3))
