# sys.builtin_module_names before any import: a sorted tuple with the C modules a script tests
# for (checked first thing, before importlib has been used)
import sys
names = sys.builtin_module_names
print(type(names).__name__, names == tuple(sorted(names)))
for n in ("sys", "builtins", "posix", "_io", "_thread", "time", "math", "itertools", "_sre", "marshal"):
    print(n, n in names)
import os
print(os.name, "posix" in sys.builtin_module_names)
