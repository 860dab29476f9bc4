# torch.inference_mode: is_inference_mode_enabled() inside and after, nesting with mode=False
# (which leaves grad mode as it is: it neither enables grad nor enters inference mode), as a
# decorator, and requires_grad of results read inside a function (also when it is compiled).
import torch

x = torch.randn(3, requires_grad=True)


def probe():
    y = x * 2
    return torch.is_inference_mode_enabled(), torch.is_grad_enabled(), y.requires_grad


print(probe())
with torch.inference_mode():
    print(probe())
    with torch.inference_mode(False):
        print(probe())
    print(probe())
print(probe())
with torch.no_grad():
    with torch.inference_mode(False):
        print(probe())
with torch.inference_mode(mode=False):
    print(probe())


@torch.inference_mode()
def decorated():
    return probe()


print(decorated(), probe())
