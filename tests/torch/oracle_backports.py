"""Run a torch golden script on real PyTorch 1.13 through ../shared/oracle/run_oracle.py, with
the few torch 2.x autograd APIs that the shared oracle prelude does not back-port yet.

usage:  /usr/bin/python3 oracle_backports.py SCRIPT.py     (tests/record_golden.sh --torch does it)

Like oracle_prelude, nothing here prints or fakes a result: each API is implemented on the real
1.13 autograd engine, with the torch 2.x code and messages:

  * torch.autograd.graph.GradientEdge, get_gradient_edge   seed 003, verbatim
  * torch.autograd.graph.increment_version                 seed 003; torch._C._increment_version
        bumps the version counter as 2.x does, through a self-copy under no_grad (an in-place op
        that leaves the values bit-identical; 1.13's ADInplaceOrView kernel bumps the counter)
  * Tensor.register_post_accumulate_grad_hook              torch 2.1 `_tensor.py` (same checks,
        messages and RemovableHandle dict); the hooks run right after the tensor's
        AccumulateGrad node has accumulated .grad (a post-hook on that node, which the tensor
        keeps alive so that every later graph reuses it, as 2.x's grad accumulator does) and must
        return None ("Tensor post accumulate grad hooks should return None.", python_hook.cpp).
"""
import collections
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ORACLE = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "oracle"))
sys.path.insert(0, ORACLE)

import oracle_prelude  # noqa: E402,F401  (installs the shared back-ports first)
import run_oracle  # noqa: E402
import torch  # noqa: E402
import torch.autograd.graph as _graph  # noqa: E402
from torch.utils.hooks import RemovableHandle  # noqa: E402

# --- seed 003: GradientEdge, get_gradient_edge, increment_version ---------------------------

if not hasattr(_graph, "GradientEdge"):
    GradientEdge = collections.namedtuple("GradientEdge", ("node output_nr"))
    GradientEdge.__doc__ = """\
    Object representing a given gradient edge within the autograd graph.
    To get the gradient edge where a given Tensor gradient will be computed,
    you can do ``edge = autograd.graph.get_gradient_edge(tensor)``.
    """
    GradientEdge.__module__ = "torch.autograd.graph"

    def get_gradient_edge(tensor):
        if not tensor.requires_grad:
            raise RuntimeError(
                "It is not possible to get the gradient edge for a Tensor that does not require gradients"
            )
        grad_fn = _graph._get_grad_fn_or_grad_acc(tensor)
        # Note that output_nr default to 0 which is the right value
        # for the AccumulateGrad node.
        return GradientEdge(grad_fn, tensor.output_nr)

    _graph.GradientEdge = GradientEdge
    _graph.get_gradient_edge = get_gradient_edge

if not hasattr(torch._C, "_increment_version"):

    def _increment_version(tensor):
        with torch.no_grad():
            tensor.copy_(tensor)

    torch._C._increment_version = _increment_version

if not hasattr(_graph, "increment_version"):

    def increment_version(tensor):
        torch._C._increment_version(tensor)

    _graph.increment_version = increment_version

# --- torch 2.1: Tensor.register_post_accumulate_grad_hook -----------------------------------

if not hasattr(torch.Tensor, "register_post_accumulate_grad_hook"):

    def _post_acc_state(tensor):
        state = tensor.__dict__.get("_ember_post_acc")
        if state is None:
            hooks = collections.OrderedDict()
            acc = tensor.view_as(tensor).grad_fn.next_functions[0][0]

            def run_hooks(grad_inputs, grad_outputs):
                returned_none = True
                for hook in list(hooks.values()):
                    if hook(tensor) is not None:
                        returned_none = False
                if not returned_none:
                    raise RuntimeError("Tensor post accumulate grad hooks should return None.")

            acc.register_hook(run_hooks)
            state = (hooks, acc)
            tensor.__dict__["_ember_post_acc"] = state
        return state[0]

    def register_post_accumulate_grad_hook(self, hook):
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        hooks = _post_acc_state(self)
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        return handle

    torch.Tensor.register_post_accumulate_grad_hook = register_post_accumulate_grad_hook

# --- seed 002: torch.distributed.fsdp._trace_utils --------------------------------------------
# PyTorch 1.13 ships seed 002's helpers (TracingConfig, _ExecutionInfo, _init_execution_info,
# _patch_tracer) as torch.distributed.fsdp._symbolic_trace: the same code but for docstrings;
# 2.x renamed the module _trace_utils.  torch.distributed.fsdp's __init__ does not import on
# Python 3.11 (a dataclass with a mutable default in torch.distributed._shard), so when a script
# imports torch.distributed.fsdp._trace_utils, the package is made bare (its directory, without
# running its __init__) and 1.13's file is loaded under the 2.x name.  Nothing happens for scripts
# that do not import it.

class _TraceUtilsFinder:
    _names = ("torch.distributed.fsdp", "torch.distributed.fsdp._trace_utils")

    def find_spec(self, name, path=None, target=None):
        import importlib.util
        if name not in self._names:
            return None
        import torch.distributed
        pkg_dir = os.path.join(os.path.dirname(torch.distributed.__file__), "fsdp")
        if name == "torch.distributed.fsdp":
            spec = importlib.util.spec_from_loader(name, loader=None, is_package=True)
            spec.submodule_search_locations = [pkg_dir]
            return spec
        return importlib.util.spec_from_file_location(name, os.path.join(pkg_dir, "_symbolic_trace.py"))


sys.meta_path.insert(0, _TraceUtilsFinder())

if __name__ == "__main__":
    sys.exit(run_oracle.main(sys.argv[1:]))
