"""PyTorch 1.13's torchrun (torch.distributed.run) on CPython 3.11, for recording goldens.

1.13's Std.from_str looks a stream spec up by iterating over the Std flag enum, and Python 3.11
iterates a flag enum over its single-bit members only, so "--redirects 0" (the default) and "3"
parse to None and the launcher dies before starting a worker.  This runs the same
torch.distributed.run module with that one lookup made on Python 3.11's terms (Std(int(spec)));
nothing else changes.

usage: /usr/bin/python3 torchrun_py311.py [torchrun options] script.py [args]
"""
import runpy
import sys

from torch.distributed.elastic.multiprocessing import api

_from_str = api.Std.from_str.__func__


def _from_str_py311(cls, vm):
    r = _from_str(cls, vm)
    if r is None and vm.isdigit():
        return api.Std(int(vm))
    return r


api.Std.from_str = classmethod(_from_str_py311)
sys.argv[0] = "torch.distributed.run"
runpy.run_module("torch.distributed.run", run_name="__main__")
