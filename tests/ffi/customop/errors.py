# Custom-op errors: missing libraries, a library without ember_register_ops, a registration
# that fails (bad schema, duplicate name), unknown ops, wrong argument counts, kinds and
# keywords (PyTorch's messages), errors from meta functions and kernels, and backward through
# an op registered without a backward kernel.
import torch
import _oplib


def check(label, f):
    try:
        r = f()
        print(label, "->", r)
    except Exception as e:
        print(label, "->", type(e).__name__ + ":", str(e).replace(_oplib.path("EMBER_TEST_OPS"), "<test_ops>"))


check("missing library", lambda: torch.ops.load_library("/nonexistent/libnothing.so"))
try:
    torch.ops.load_library(_oplib.path("EMBER_NOREG_OPS"))
except RuntimeError as e:
    print("not an op library ->", type(e).__name__, str(e).endswith("does not export ember_register_ops (see ember/custom_op.h)"))
check("bad schema", lambda: torch.ops.load_library(_oplib.path("EMBER_BAD_OPS")))
torch.ops.load_library(_oplib.path("EMBER_TEST_OPS"))
torch.ops.load_library(_oplib.path("EMBER_TEST_OPS"))      # loading again is a no-op
check("duplicate", lambda: torch.ops.load_library(_oplib.path("EMBER_DUP_OPS")))
check("unknown op", lambda: torch.ops.test.nothing)
check("unknown namespace", lambda: torch.ops.nowhere.scale_add)

x = torch.ones(2, 3)
y = torch.ones(3, 2)
ops = torch.ops.test
check("too many", lambda: ops.scale_add(x, x, 1.0, 2.0))
check("missing", lambda: ops.scale_add(x))
check("keyword", lambda: ops.scale_add(x, x, beta=2.0))
check("twice", lambda: ops.scale_add(x, x, 1.0, alpha=2.0))
check("not a tensor", lambda: ops.scale_add(x, [1.0, 2.0]))
check("str for float", lambda: ops.scale_add(x, x, "2"))
check("float for int", lambda: ops.poly(x, 2.5))
check("int for bool", lambda: ops.row_sum(x, 1))
check("meta error", lambda: ops.scale_add(x, y))
check("dtype error", lambda: ops.double_it(torch.tensor([1, 2])))
check("kernel error", lambda: ops.checked(x, 1))
check("kernel status", lambda: ops.checked(x, 7))
check("kernel ok", lambda: ops.checked(x, 0))
check("negative degree", lambda: ops.poly(x, -1))
check("0-dim row_sum", lambda: ops.row_sum(torch.tensor(1.0)))

w = torch.ones(3, requires_grad=True)
d = ops.double_it(w)
print(d.requires_grad, d.grad_fn.name())
check("no backward", lambda: d.sum().backward())
