"""torch._dynamo for Ember scripts: torch.compile's entry points, reset(), config, explain().

The tracer itself is C (src/tracer); this module only shapes the user-facing objects."""
import torch._dynamo._ember as _ember
import torch._dynamo.config as config

_BACKENDS = ("eager", "ember", "aot_eager", "inductor")


class GraphModule:
    """What a callable backend and explain() receive: the traced graph, runnable, with its code."""

    def __init__(self, name, code, forward):
        self._name = name
        self.code = code
        self.forward = forward

    def __call__(self, *args):
        return self.forward(*args)

    def print_readable(self, print_output=True):
        text = "class GraphModule(torch.nn.Module):" + self.code.replace("\n", "\n    ")
        if print_output:
            print(text)
        return text

    def __repr__(self):
        return "GraphModule()"


def _resolve_backend(backend):
    if backend is None or backend == "inductor" or backend == "aot_eager":
        # PyTorch's default compiler; in Ember the runtime engine plays its part
        return "ember"
    if isinstance(backend, str):
        if backend not in _BACKENDS:
            raise RuntimeError("Invalid backend: '" + backend + "'")
        return backend
    if not callable(backend):
        raise TypeError("backend must be a string or a callable")
    return backend


def _compile_function(fn, backend, fullgraph):
    # a native callable (no wrapper frame on each call), dressed as functools.wraps would
    compiled = _ember.compiled(fn, _resolve_backend(backend), fullgraph)
    compiled.__name__ = getattr(fn, "__name__", "compiled")
    compiled.__qualname__ = getattr(fn, "__qualname__", "compiled")
    compiled.__doc__ = getattr(fn, "__doc__", None)
    compiled.__wrapped__ = fn
    compiled._torchdynamo_orig_callable = fn
    return compiled


def _call_target(mod):
    """What torch.compile(mod)'s calls run under the tracer.  A module whose forward is torch's
    own (nn.Sequential, nn.Linear, nn.TransformerEncoder...) is library code, which the tracer
    never takes as the frame to compile, so calling it directly compiled nothing and ran eagerly:
    a one-line function of non-library code calls it instead, and the tracer compiles that frame
    with the module call (hooks included) inlined, as dynamo's external_utils.wrap_inline does.
    A user module's forward is compiled as its own frame, its hooks run around it."""
    forward = getattr(type(mod), "forward", None)
    if not (getattr(forward, "__module__", None) or "").startswith("torch."):
        return mod
    ns = {"_mod": mod}
    exec(compile("def inline_call(*args, **kwargs):\n    return _mod(*args, **kwargs)\n",
                 "<torch.compile>", "exec"), ns)
    return ns["inline_call"]


class OptimizedModule:
    """torch.compile(module): calls run compiled; everything else is the original module's."""

    def __init__(self, mod, backend, fullgraph):
        object.__setattr__(self, "_orig_mod", mod)
        object.__setattr__(self, "_ember_backend", _resolve_backend(backend))
        object.__setattr__(self, "_ember_fullgraph", fullgraph)
        object.__setattr__(self, "_ember_call", _call_target(mod))

    def __call__(self, *args, **kwargs):
        return _ember.run(self._ember_call, self._ember_backend, self._ember_fullgraph, args, kwargs)

    def forward(self, *args, **kwargs):
        return _ember.run(self._orig_mod.forward, self._ember_backend, self._ember_fullgraph, args, kwargs)

    def __getattr__(self, name):
        return getattr(self._orig_mod, name)

    def __setattr__(self, name, value):
        setattr(self._orig_mod, name, value)

    def __delattr__(self, name):
        delattr(self._orig_mod, name)

    def __repr__(self):
        return repr(self._orig_mod)

    def __len__(self):
        return len(self._orig_mod)

    def __iter__(self):
        return iter(self._orig_mod)

    def __getitem__(self, key):
        return self._orig_mod[key]


def _compile(model, fullgraph, backend, disable):
    if disable:
        return model
    if isinstance(model, type) or not callable(model):
        raise RuntimeError("torch.compile expects a callable, got " + type(model).__name__)
    import torch.nn
    if isinstance(model, getattr(torch.nn, "Module", ())):
        return OptimizedModule(model, backend, fullgraph)
    return _compile_function(model, backend, fullgraph)


def optimize(backend="inductor", nopython=False, disable=False):
    def decorator(fn):
        return _compile(fn, nopython, backend, disable)
    return decorator


def reset():
    _ember.reset()


class _BreakReason:
    def __init__(self, reason, file, line, func):
        self.reason = reason
        self.user_stack = [(file, line, func)]
        self.graph_break = True

    def __repr__(self):
        return "GraphCompileReason(reason=" + repr(self.reason) + ")"


class ExplainOutput:
    """torch._dynamo.explain(fn)(*args): graphs, breaks and their reasons, ops, guards."""

    def __init__(self, records):
        self.graphs = [r["graph"] for r in records if "graph" in r]
        self.graph_count = len(self.graphs)
        self.break_reasons = [_BreakReason(r["break_reason"], r["break_file"], r["break_line"], r["break_func"])
                              for r in records if "break_reason" in r]
        self.graph_break_count = len(self.break_reasons)
        self.ops_per_graph = [r["ops"] for r in records if "graph" in r]
        self.op_count = sum(len(ops) for ops in self.ops_per_graph)
        self.out_guards = [g for r in records if "graph" in r for g in r["guards"]]
        self.side_effect_count = sum(r["side_effects"] for r in records)
        self.compile_times = ""

    def __str__(self):
        lines = ["Graph Count: " + str(self.graph_count),
                 "Graph Break Count: " + str(self.graph_break_count),
                 "Op Count: " + str(self.op_count)]
        lines.append("Break Reasons:")
        for i, b in enumerate(self.break_reasons):
            lines.append("  Break Reason " + str(i + 1) + ":")
            lines.append("    Reason: " + b.reason)
            lines.append("    User Stack:")
            for f, ln, fn in b.user_stack:
                lines.append("      <FrameSummary file " + f + ", line " + str(ln) + " in " + fn + ">")
        lines.append("Ops per Graph:")
        for i, ops in enumerate(self.ops_per_graph):
            lines.append("  Ops " + str(i + 1) + ":")
            for op in ops:
                lines.append("    " + op)
        lines.append("Out Guards:")
        for i, g in enumerate(self.out_guards):
            lines.append("  Guard " + str(i + 1) + ":")
            lines.append("    " + g)
        lines.append("Side Effect Count: " + str(self.side_effect_count))
        return "\n".join(lines) + "\n"


def explain(f, *extra_args, **extra_kwargs):
    def inner(*args, **kwargs):
        reset()
        _ember.explain_begin()
        try:
            _ember.run(f, "eager", False, args, kwargs)
        finally:
            records = _ember.explain_end()
        return ExplainOutput(records)

    if extra_args or extra_kwargs:
        return inner(*extra_args, **extra_kwargs)
    return inner
