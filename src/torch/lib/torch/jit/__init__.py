"""torch.jit: the parts model code calls while running eagerly (is_scripting / is_tracing are
False, annotate returns its value, ignore / unused / export / _overload_method leave functions
as they are).  TorchScript itself (script, trace) is not part of Ember: torch.compile is its
compiler; those raise NotImplementedError instead of pretending."""
from typing import Final   # noqa: F401  (torch.jit.Final)


def is_scripting():
    return False


def is_tracing():
    return False


def annotate(the_type, the_value):
    return the_value


def _identity_decorator(fn=None, **kwargs):
    if fn is None:
        return lambda f: f
    return fn


ignore = unused = export = _overload_method = _overload = _identity_decorator


def interface(obj):
    return obj


def _not_supported(name):
    def f(*args, **kwargs):
        raise NotImplementedError(f"torch.jit.{name}: TorchScript is not part of Ember (use torch.compile)")
    f.__name__ = name
    return f


script = _not_supported("script")
trace = _not_supported("trace")
trace_module = _not_supported("trace_module")
load = _not_supported("load")
save = _not_supported("save")
freeze = _not_supported("freeze")


class ScriptModule:
    pass


class ScriptFunction:
    pass
