"""torch.autograd.profiler: profile (the context manager whose events are every tensor op, the
autograd engine's node evaluations and record_function ranges, with PyTorch 1.13's summaries)
and record_function, over Ember's recorder (src/torch/profiler.c).  CPU only: use_cuda and
friends are accepted and record nothing more."""
import threading
from contextlib import ContextDecorator

import torch
from torch.autograd.profiler_util import (EventList, FunctionEvent, FunctionEventAvg,  # noqa: F401
                                          _events_from_records, _format_time)

__all__ = ["profile", "record_function", "EventList", "FunctionEvent", "FunctionEventAvg"]


class profile:
    """Records the ops run inside it.  print(prof) is the table of every event;
    prof.key_averages().table(sort_by="self_cpu_time_total") the usual summary."""

    def __init__(self, enabled=True, *, use_cuda=False, record_shapes=False, with_flops=False,
                 profile_memory=False, with_stack=False, with_modules=False, use_kineto=False,
                 use_cpu=True, experimental_config=None):
        self.enabled = enabled
        if not enabled:
            return
        self.use_cuda = use_cuda
        self.record_shapes = record_shapes
        self.with_flops = with_flops
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_modules = with_modules
        self.use_cpu = use_cpu
        self.function_events = None
        self.entered = False
        if not self.use_cpu:
            raise AssertionError("Legacy CPU-only profiler is not supported")

    def __enter__(self):
        if not self.enabled:
            return None   # as PyTorch's: `with profile(enabled=False) as p` binds None
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self._start()
        return self

    def _start(self):
        self.entered = True
        torch._C._profiler_enable(self.record_shapes)

    def __exit__(self, exc_type, exc_val, exc_tb):
        if not self.enabled:
            return
        self._stop()
        return False

    def _stop(self):
        records = torch._C._profiler_disable()
        self.function_events = _events_from_records(records, threading.get_ident())
        self.function_events._profile_memory = self.profile_memory
        self.function_events._with_flops = self.with_flops

    def __repr__(self):
        if self.function_events is None:
            return "<unfinished torch.autograd.profile>"
        return repr(self.function_events)

    def __str__(self):
        if self.function_events is None:
            return "<unfinished torch.autograd.profile>"
        return str(self.function_events)

    def _check_finish(self):
        if self.function_events is None:
            raise RuntimeError("Profiler didn't finish running")

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
              max_shapes_column_width=80, header=None, top_level_events_only=False):
        self._check_finish()
        return self.function_events.table(
            sort_by=sort_by, row_limit=row_limit, max_src_column_width=max_src_column_width,
            max_name_column_width=max_name_column_width,
            max_shapes_column_width=max_shapes_column_width, header=header,
            top_level_events_only=top_level_events_only)
    table.__doc__ = EventList.table.__doc__

    def export_chrome_trace(self, path):
        self._check_finish()
        return self.function_events.export_chrome_trace(path)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0):
        self._check_finish()
        return self.function_events.key_averages(group_by_input_shape, group_by_stack_n)

    def total_average(self):
        self._check_finish()
        return self.function_events.total_average()

    @property
    def self_cpu_time_total(self):
        self._check_finish()
        return self.function_events.self_cpu_time_total


class record_function(ContextDecorator):
    """A named range in the profile around the code inside it (with-block or decorator)."""

    def __init__(self, name, args=None):
        self.name = name
        self.args = args
        self._pushed = []

    def __enter__(self):
        name = self.name if self.args is None else self.name + ", " + self.args
        self._pushed.append(torch._C._profiler_push(name))
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if self._pushed.pop():
            torch._C._profiler_pop()
        return False


class emit_nvtx:
    """Accepted for scripts that wrap their runs in it; Ember has no NVTX to emit to."""

    def __init__(self, enabled=True, record_shapes=False):
        self.enabled = enabled

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
