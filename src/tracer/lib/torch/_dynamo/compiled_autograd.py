"""torch._dynamo.compiled_autograd for Ember scripts.

``with torch._dynamo.compiled_autograd.enable(compiler_fn):`` — every ``backward()``,
``torch.autograd.backward`` and ``torch.autograd.grad`` call inside captures the autograd graph
the engine would run into a graph, caches it by structure (node kinds and ops, their arguments,
the metadata of saved tensors and gradients, which hooks exist — not tensor values or
identities) and runs it with Ember's runtime.  A later call with the same structure reuses the
cached graph; ``reset()`` drops the cache.

``compiler_fn(gm)`` is called once per newly captured graph with a GraphModule: ``gm.code`` is
the graph as Python source, ``gm.print_readable()`` prints it.  Whatever it returns — ``gm``
itself, ``torch.compile(gm, backend=...)``, any callable — Ember always runs the captured graph
with its runtime, so gradients equal eager's and every hook (tensor hooks, retain_grad, node
pre- and post-hooks, post-accumulate-grad hooks, multi-grad hooks, queued engine callbacks) fires
in eager's order with eager's arguments.  The graph calls the hooks and AccumulateGrad of the
backward call that captured it, so ``gm`` itself cannot be called from a script.

Not captured (run by the eager engine): backward calls with ``create_graph=True``.  Hooks are
read when their node runs, as the engine reads them, so hooks registered (or removed) by a hook
or a custom backward during the call fire as in eager; saved tensors are checked again where
eager unpacks them, so one modified in place or freed during the call raises eager's error at
eager's point; a gradient that becomes None during the call (a custom backward or a hook
returning None) reaches ``.grad``, hooks and autograd.grad results as None.
``EMBER_LOGS=compiled_autograd`` prints each captured graph, every cache miss (naming the node
whose structure is new) and hit, and why an op node runs its own backward instead of the
runtime's symbolic rule.
``ember run --compiled-autograd FILE`` runs a whole script as if inside
``enable(lambda gm: gm)``.
"""
import torch._dynamo._ember_ca as _C

__all__ = ["enable", "disable", "reset", "compiled_autograd_enabled"]

compiled_autograd_enabled = _C.enabled()


class _Enable:
    def __init__(self, compiler_fn):
        self.compiler_fn = compiler_fn
        self.prior = None

    def __enter__(self):
        global compiled_autograd_enabled
        fn = self.compiler_fn
        if fn is None:
            # (None would mean "off" to the binding; PyTorch calls it and fails at capture)
            def fn(gm):
                return None(gm)
        self.prior = _C.set_autograd_compiler(fn)
        compiled_autograd_enabled = True
        return None

    def __exit__(self, *exc):
        global compiled_autograd_enabled
        _C.set_autograd_compiler(self.prior)
        compiled_autograd_enabled = self.prior is not None
        return False


def enable(compiler_fn):
    """Context manager: backward calls inside run as compiled autograd graphs (see the module
    docstring); compiler_fn(gm) sees each newly captured graph once."""
    return _Enable(compiler_fn)


class disable:
    """Context manager: backward calls inside run on the eager engine."""

    def __enter__(self):
        global compiled_autograd_enabled
        self.prior = _C.set_autograd_compiler(None)
        compiled_autograd_enabled = False
        return None

    def __exit__(self, *exc):
        global compiled_autograd_enabled
        _C.set_autograd_compiler(self.prior)
        compiled_autograd_enabled = self.prior is not None
        return False


def reset():
    """Forget every captured graph."""
    _C.reset()


def _stats():
    """Ember: counters of this process — captures, compiles, cache_hits, eager."""
    return _C.stats()
