# An imported module's code objects and their constants are permanent in Ember's collector
# (vm/gc.c, "Permanent objects"): never traced again.  What of them can still change must stay
# alive: values held in their inline caches, a filename replaced by _imp._fix_co_filename, and
# constants that are not immutable all the way down (a frozenset).
import _imp
import gc
import os
import shutil
import sys
import tempfile

d = tempfile.mkdtemp()
with open(os.path.join(d, "permmod.py"), "w") as f:
    f.write('''
class Box:
    def __init__(self, v):
        self.v = v

    def get(self):
        return self.v


G = Box([1, 2, 3])


def read():
    return G.get()


def consts():
    return ("a tuple", (1, 2.5, b"bytes", 10 ** 30, 3j, None, ...), frozenset({1, 2}))


def nested():
    def inner(x):
        return x + len("inner's constant")
    return inner
''')
sys.path.insert(0, d)
import permmod

for i in range(200):
    r = permmod.read()          # read()'s caches may now hold G, Box.get, ...
print(r)
permmod.G = permmod.Box(["fresh"] * 2)   # the old Box and its list are garbage
gc.collect()
junk = [[i] * 10 for i in range(20000)]  # reuse the freed memory
gc.collect()
print(permmod.read())
print(permmod.consts())
print(permmod.nested()(1))

code = permmod.read.__code__
name = "".join(["rel", "ocated", ".py"])   # a new string, not a constant
_imp._fix_co_filename(code, name)
del name
gc.collect()
junk = ["x" * (i % 50) for i in range(20000)]
gc.collect()
print(code.co_filename, code.co_name, code.co_names)
print(permmod.nested.__code__.co_consts[1].co_filename == permmod.__file__)

del sys.modules["permmod"]
del permmod, code
gc.collect()
import permmod                       # imported again: a new module, new code objects
print(permmod.read(), permmod.consts()[2])
sys.path.remove(d)
shutil.rmtree(d)
