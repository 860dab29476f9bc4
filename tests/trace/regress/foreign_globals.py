# A compiled function that calls a function of another module which reads that module's globals
# (a getter of module state such as torch.utils.data.get_worker_info): when the global changes
# between calls, the compiled code must see the new value, as eager does.  It kept the value it
# was traced with: no guard covered the inlined function's globals.
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))   # the oracle runs scripts by path
import _state_module as sm  # noqa: E402


def tagged(x):
    flag = sm.get_flag()
    return x + 1, "none" if flag is None else flag


def via_scale(x):
    return sm.scaled(x) + 1


def worker_id(x):
    info = torch.utils.data.get_worker_info()
    return x * 2, -1 if info is None else info.id


x = torch.ones(2)
for value in (None, "a", "b", None, 3):
    sm._flag = value
    out, tag = tagged(x)
    print(out.tolist(), tag)
for s in (2.0, 3.0, 2.0, 0.5):
    sm._scale = s
    print(via_scale(x).tolist())
print(worker_id(x)[1])


# the module a function imports inside itself, and a module that appears in sys.modules later
def late(x):
    return x - 1, sm.late_value()


import types  # noqa: E402
print(late(x)[1])
mod = types.ModuleType("_late_module")
mod.value = 11
sys.modules["_late_module"] = mod
print(late(x)[1])
mod.value = 12
print(late(x)[1])
del sys.modules["_late_module"]
print(late(x)[1])


# an object global of the other module: its attribute, its class attribute, the global rebound
def configured(x):
    return sm.use_config(x)


print(configured(x).tolist())
sm.config.factor = 9.0
print(configured(x).tolist())
sm.Config.factor = 4.0
print(configured(x).tolist())
sm.config = sm.Config()
print(configured(x).tolist())
