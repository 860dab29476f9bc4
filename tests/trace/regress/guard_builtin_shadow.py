# A function of another module, inlined into the compiled frame, reads a builtin (len, max); later
# that module defines a global of the same name, which eager's next call reads instead of the
# builtin.  The compiled code kept the builtin: its read was guarded as ___builtins['len'] only,
# and nothing checked that the module's own globals still lack the name (tests/trace/footguns
# listed it as the one known divergence).
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))   # the oracle runs scripts by path
import _shadow_module as sh  # noqa: E402


def sized(x):
    return x + sh.count([1, 2, 3])


def widest(x):
    return x * sh.biggest(x)


x = torch.ones(2, 3)
for step in range(2):
    print("builtin", sized(x)[0].tolist(), sized(x)[0].tolist())
    sh.shadow_len()
    print("shadowed by def", sized(x)[0].tolist(), sized(x)[0].tolist())
    sh.unshadow_len()
    print("unshadowed", sized(x)[0].tolist(), sized(x)[0].tolist())
    sh.len = lambda xs: -5
    print("shadowed by setattr", sized(x)[0].tolist(), sized(x)[0].tolist())
    del sh.len
    sh.__dict__["len"] = lambda xs: 7
    print("shadowed through __dict__", sized(x)[0].tolist(), sized(x)[0].tolist())
    del sh.__dict__["len"]
    print("builtin again", sized(x)[0].tolist(), sized(x)[0].tolist())

print("max", widest(x)[0].tolist(), widest(x)[0].tolist())
exec("def max(*a):\n    return 10\n", sh.__dict__)
print("max shadowed by exec", widest(x)[0].tolist(), widest(x)[0].tolist())
del sh.max
print("max builtin", widest(x)[0].tolist(), widest(x)[0].tolist())
