# The transcendental pointwise ops give PyTorch's bits (its AVX2 kernels compute them with Sleef,
# src/tensor/vmath.h): every element of float32 and float64 inputs of each size 1..40 (loop tails),
# 100 and 257, contiguous and strided, as a CRC of the elements' float.hex plus a few samples.
# sigmoid / silu / gelu / sinh / cosh / mish follow ATen's vector formula only in whole 16-float /
# 8-double blocks (their tails use libm, tests/trace/footguns): they are checked on those sizes.
import zlib
import torch
import torch.nn.functional as F

torch.manual_seed(0)

def domain(name, x):
    if name in ('log', 'log2', 'log10'):
        return x.abs() * 10
    if name == 'log1p':
        return x.abs() - 0.5
    if name in ('asin', 'acos'):
        return x / 4
    return x

def digest(name, dt, ys):
    hexes = [float(v).hex() for y in ys for v in y.tolist()]
    crc = zlib.crc32(' '.join(hexes).encode())
    print(name, str(dt)[6:], len(hexes), '%08x' % crc, hexes[0], hexes[len(hexes) // 2], hexes[-1])

vml = ['exp', 'log', 'tanh', 'erf', 'erfc', 'expm1', 'log1p', 'log2', 'log10',
       'sin', 'cos', 'tan', 'asin', 'acos', 'atan']
for dt in (torch.float32, torch.float64):
    for name in vml:
        ys = []
        for n in list(range(1, 41)) + [100, 257]:
            x = domain(name, torch.randn(2 * n, dtype=dt) * 3)
            ys.append(getattr(torch, name)(x[:n]))
            ys.append(getattr(torch, name)(x[::2]))
        digest(name, dt, ys)

# specials: +-0, +-inf, nan, denormals, huge, overflow and underflow edges
sp = [0.0, -0.0, float('inf'), -float('inf'), float('nan'), 1e-45, -1e-45, 1e-40, 1e-310, 88.7, 89.0,
      -104.0, -110.0, 709.8, -745.0, 1e30, -1e30, 1.0, -1.0, 0.5]
for dt in (torch.float32, torch.float64):
    x = torch.tensor(sp, dtype=dt)
    for name in vml:
        print(name, str(dt)[6:], ' '.join(float(v).hex() for v in getattr(torch, name)(x).tolist()))

acts = {
    'sigmoid': torch.sigmoid,
    'silu': F.silu,
    'gelu_tanh': lambda x: F.gelu(x, approximate='tanh'),
    'sinh': torch.sinh,
    'cosh': torch.cosh,
    'mish': F.mish,
}
for dt, w in ((torch.float32, 16), (torch.float64, 8)):
    for name, f in acts.items():
        ys = [f(torch.randn(k * w, dtype=dt) * 4) for k in (1, 2, 3, 8)]
        digest(name, dt, ys)
ys = [F.gelu(torch.randn(k * 8, dtype=torch.float64) * 4) for k in (1, 2, 3, 8)]
digest('gelu', torch.float64, ys)
