# torch.fft's real-valued helpers: fftfreq / rfftfreq (ATen's arange, shift and 1 / (n d) scale; dtypes, d,
# n = 0 and 1, out=, requires_grad=), fftshift / ifftshift (roll over all or the given dims; its
# gradient), in a function too so --compile-all traces them, and PyTorch's errors.
import torch
print(torch.fft.fftfreq(5), torch.fft.fftfreq(4, 0.5), torch.fft.rfftfreq(5), torch.fft.rfftfreq(6, d=2.0))
print(torch.fft.fftfreq(4, dtype=torch.float64), torch.fft.fftfreq(1), torch.fft.fftfreq(0), torch.fft.rfftfreq(1))
print(torch.fft.fftfreq(7, d=0.1).tolist(), torch.fft.rfftfreq(7, d=0.3, dtype=torch.float64).tolist())
print(torch.fft.fftfreq(3, requires_grad=True))
for f in (lambda: torch.fft.fftfreq(4, dtype=torch.long), lambda: torch.fft.rfftfreq(4, dtype=torch.int32),
          lambda: torch.fft.fftshift(torch.arange(4), dim=2), lambda: torch.fft.ifftshift(torch.arange(4), dim=-2)):
    try:
        print(f())
    except Exception as e:
        print(type(e).__name__, e)
x = torch.arange(10).reshape(2, 5)
print(torch.fft.fftshift(x), torch.fft.ifftshift(x), torch.fft.fftshift(x, dim=1), torch.fft.ifftshift(x, dim=(-1,)))
print(torch.fft.fftshift(torch.arange(6).reshape(2, 3), dim=(1,)), torch.fft.ifftshift(torch.arange(5), dim=0))
f = torch.fft.fftfreq(6)
print(torch.fft.fftshift(f), torch.fft.ifftshift(torch.fft.fftshift(f)))
w = torch.randn(3, 4, requires_grad=True)
y = torch.fft.fftshift(w, dim=1)
print(y.grad_fn.name())
(y * torch.arange(12.).reshape(3, 4)).sum().backward()
print(w.grad)
o = torch.empty(0)
print(torch.fft.fftfreq(4, out=o), o)


def spectrum_axis(x):
    f = torch.fft.fftshift(torch.fft.fftfreq(x.shape[-1], d=0.5, dtype=x.dtype))
    return torch.fft.ifftshift(x * f, dim=-1), torch.fft.rfftfreq(x.shape[-1], dtype=x.dtype)


print(spectrum_axis(torch.arange(8.).reshape(2, 4)), spectrum_axis(torch.ones(5, dtype=torch.float64)))
