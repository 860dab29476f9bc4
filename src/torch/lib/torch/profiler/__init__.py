"""torch.profiler: PyTorch 1.13's profiler API (profile with activities, a schedule and
on_trace_ready; schedule; tensorboard_trace_handler; record_function) over
torch.autograd.profiler's recorder.  ProfilerActivity.CPU is the activity Ember records."""
import enum
import gzip
import json
import os
import time

import torch
from torch.autograd import profiler as _autograd_profiler
from torch.autograd.profiler import record_function

__all__ = ["profile", "record_function", "ProfilerActivity", "ProfilerAction", "schedule",
           "tensorboard_trace_handler", "supported_activities"]


class ProfilerActivity(enum.Enum):
    CPU = 0
    CUDA = 1

    def __repr__(self):
        return "<ProfilerActivity.%s: %d>" % (self.name, self.value)


class ProfilerAction(enum.Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def supported_activities():
    return {ProfilerActivity.CPU}


def schedule(*, wait, warmup, active, repeat=0, skip_first=0):
    """The action for each step: skip_first steps, then cycles of wait, warmup and active steps
    (the last active step saves), repeat times (0: for ever)."""
    def schedule_fn(step):
        assert step >= 0
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        num_steps = wait + warmup + active
        if repeat > 0 and step / num_steps >= repeat:
            return ProfilerAction.NONE
        mod_step = step % num_steps
        if mod_step < wait:
            return ProfilerAction.NONE
        if mod_step < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if mod_step < num_steps - 1 else ProfilerAction.RECORD_AND_SAVE
    assert wait >= 0 and warmup >= 0 and active > 0 and repeat >= 0 and skip_first >= 0, \
        "Invalid profiler schedule arguments"
    if warmup == 0:
        import warnings
        warnings.warn("Profiler won't be using warmup, this can skew profiler results")
    return schedule_fn


def _default_schedule_fn(_):
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False):
    """on_trace_ready that writes each finished trace to dir_name as
    <worker_name>.<time in ns>.pt.trace.json (gzipped with use_gzip)."""
    def handler_fn(prof):
        nonlocal worker_name
        if not os.path.isdir(dir_name):
            try:
                os.makedirs(dir_name, exist_ok=True)
            except Exception:
                raise RuntimeError("Can't create directory: " + dir_name)
        if not worker_name:
            # socket.gethostname() is the node name uname() reports
            worker_name = "{}_{}".format(os.uname().nodename, os.getpid())
        file_name = "{}.{}.pt.trace.json".format(worker_name, int(time.time() * 1000))
        if use_gzip:
            file_name += ".gz"
        prof.export_chrome_trace(os.path.join(dir_name, file_name))
    return handler_fn


class profile:
    """with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof: ...;
    prof.step() between iterations when a schedule is given; on_trace_ready(prof) runs when a
    recording window ends."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None, record_shapes=False,
                 profile_memory=False, with_stack=False, with_flops=False, with_modules=False,
                 experimental_config=None, use_cuda=None):
        self.activities = set(activities) if activities else supported_activities()
        self.schedule = schedule if schedule else _default_schedule_fn
        self.on_trace_ready = on_trace_ready
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_flops = with_flops
        self.with_modules = with_modules
        self.step_num = 0
        self.current_action = self.schedule(self.step_num)
        self.profiler = None
        self.step_rec_fn = None
        self._recording = False

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.stop()
        return False

    # the recording window: a fresh autograd profile per window, as PyTorch's
    def _start_trace(self):
        self.profiler = _autograd_profiler.profile(
            use_cuda=ProfilerActivity.CUDA in self.activities, record_shapes=self.record_shapes,
            with_flops=self.with_flops, profile_memory=self.profile_memory,
            with_stack=self.with_stack, with_modules=self.with_modules)
        self.profiler._start()
        self._recording = True

    def _stop_trace(self):
        if self._recording:
            self.profiler._stop()
            self._recording = False

    def _transit(self, prev, cur):
        recording = (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)
        if prev in recording and (cur not in recording or prev is ProfilerAction.RECORD_AND_SAVE):
            self._stop_trace()
            if self.on_trace_ready is not None:
                self.on_trace_ready(self)
        if cur in recording and (prev not in recording or prev is ProfilerAction.RECORD_AND_SAVE):
            self._start_trace()

    def start(self):
        self._transit(None, self.current_action)
        if self.record_steps_enabled():
            self._begin_step()

    def stop(self):
        if self.step_rec_fn is not None:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        self._transit(self.current_action, None)

    def step(self):
        """Signals the start of the next step to the schedule."""
        if self.step_rec_fn is not None:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        prev = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._transit(prev, self.current_action)
        if self.record_steps_enabled():
            self._begin_step()

    def record_steps_enabled(self):
        return self._recording and self.schedule is not _default_schedule_fn

    def _begin_step(self):
        self.step_rec_fn = record_function("ProfilerStep#" + str(self.step_num))
        self.step_rec_fn.__enter__()

    def export_chrome_trace(self, path):
        assert self.profiler
        if path.endswith(".gz"):
            tmp = path[:-3]
            self.profiler.export_chrome_trace(tmp)
            with open(tmp, "rb") as fin, gzip.open(path, "wb") as fout:
                fout.writelines(fin)
            os.remove(tmp)
            return None
        return self.profiler.export_chrome_trace(path)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0):
        assert self.profiler
        return self.profiler.key_averages(group_by_input_shape, group_by_stack_n)

    def events(self):
        assert self.profiler
        return self.profiler.function_events

    def export_stacks(self, path, metric="self_cpu_time_total"):
        """Folded stacks (flamegraph.pl's input) of the events recorded with with_stack."""
        assert self.profiler
        with open(path, "w") as f:
            for e in self.profiler.function_events:
                if e.stack:
                    f.write(";".join(reversed(e.stack)) + " " + str(int(getattr(e, metric))) + "\n")
