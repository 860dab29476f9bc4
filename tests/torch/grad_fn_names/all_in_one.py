# Every grad_fn_names script in one process: more distinct node names than the first version of
# torch._C._name_grad_fn's fixed table held (64), after which renaming stopped silently
import os
import runpy

here = os.path.dirname(os.path.abspath(__file__))
for name in ("losses_ops.py", "modules.py", "nn_ops.py", "tensor_ops.py", "inplace.py"):
    print("==", name)
    runpy.run_path(os.path.join(here, name), run_name="__main__")
