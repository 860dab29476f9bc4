# What a training script asks of a CPU-only PyTorch 1.13 build: torch.__version__, torch.version,
# torch.cuda (seeding no-ops, zero memory, AssertionError for a device), torch.backends' flags
# (cudnn.benchmark / deterministic for reproducibility), mixed precision that disables itself
# without CUDA (torch.cuda.amp.GradScaler / autocast, with PyTorch's warnings), torch.cpu.amp,
# and the torch.jit helpers model code calls eagerly.
import warnings

import torch
import torch.nn as nn

print(torch.__version__, torch.version.cuda, torch.version.hip, torch.version.debug)
print(torch.__version__ >= "1.10", torch.__version__ < "2.0", torch.__version__ >= (1, 13), torch.__version__ < (1, 13, 1),
      torch.__version__ == "1.13.0a0", torch.__version__.split("+")[0], isinstance(torch.__version__, str))

print(torch.cuda.is_available(), torch.cuda.device_count(), torch.cuda.is_initialized(), torch.cuda.memory_allocated(),
      torch.cuda.max_memory_allocated())
torch.manual_seed(0)
torch.cuda.manual_seed(0)
torch.cuda.manual_seed_all(0)
torch.cuda.empty_cache()
print(torch.randn(3))   # the CUDA seeding left the CPU stream alone
for name in ["synchronize", "current_device", "get_device_name"]:
    try:
        getattr(torch.cuda, name)()
    except AssertionError as e:
        print(name, "AssertionError:", e)

torch.backends.cudnn.benchmark = True
torch.backends.cudnn.deterministic = True
print(torch.backends.cudnn.is_available(), torch.backends.cudnn.enabled, torch.backends.cudnn.benchmark,
      torch.backends.cudnn.deterministic, torch.backends.cudnn.version())
with torch.backends.cudnn.flags(enabled=False):
    print(torch.backends.cudnn.enabled)
print(torch.backends.cudnn.enabled)
torch.backends.cuda.matmul.allow_tf32 = True
print(torch.get_float32_matmul_precision())
torch.backends.cuda.matmul.allow_tf32 = False
print(torch.backends.cuda.matmul.allow_tf32, torch.backends.cuda.is_built(), torch.backends.mps.is_available(),
      torch.backends.mps.is_built(), torch.backends.mkldnn.is_available(), torch.backends.openmp.is_available(),
      torch.backends.mkl.is_available(), torch.backends.opt_einsum.enabled, torch.backends.quantized.supported_engines)
device = "cuda" if torch.cuda.is_available() else "mps" if torch.backends.mps.is_available() else "cpu"
print(device)

# a mixed-precision training loop written for CUDA runs in float32 on the CPU
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(16, 4), torch.randint(0, 2, (16,))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    scaler = torch.cuda.amp.GradScaler()
    for step in range(3):
        opt.zero_grad()
        with torch.cuda.amp.autocast():
            out = model(x)
            loss = nn.functional.cross_entropy(out, y)
        print(step, out.dtype, round(loss.item(), 5))
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(opt)
        scaler.update()
    with torch.autocast(device_type="cuda", dtype=torch.float16):
        print(model(x).dtype)
for w in caught:
    print(w.category.__name__, w.message)
print(scaler.is_enabled(), scaler.get_scale(), scaler.state_dict(), scaler.scale(loss) is loss)
print(torch.cuda.amp.GradScaler(enabled=False).is_enabled())

with torch.cpu.amp.autocast():
    print((torch.ones(2, 3) @ torch.ones(3, 2)).dtype)
with torch.amp.autocast(device_type="cpu", dtype=torch.bfloat16):
    print(model(x).dtype)


@torch.cpu.amp.autocast()
def mm(a, b):
    return a @ b


print(mm(torch.ones(2, 2), torch.ones(2, 2)).dtype, (torch.ones(2, 2) @ torch.ones(2, 2)).dtype)

print(torch.jit.is_scripting(), torch.jit.is_tracing(), torch.jit.annotate(list, [1]))


@torch.jit.unused
def helper(t):
    return t * 2


@torch.jit.ignore
def helper2(t):
    return t + 1


print(helper(torch.ones(1)), helper2(torch.ones(1)))

# reproducibility switches (all CPU kernels are deterministic: flags set and read back)
print(torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled(),
      torch.get_deterministic_debug_mode())
torch.use_deterministic_algorithms(True)
print(torch.are_deterministic_algorithms_enabled(), torch.get_deterministic_debug_mode())
torch.use_deterministic_algorithms(True, warn_only=True)
print(torch.is_deterministic_algorithms_warn_only_enabled(), torch.get_deterministic_debug_mode())
torch.set_deterministic_debug_mode("default")
print(torch.are_deterministic_algorithms_enabled())
for bad in [lambda: torch.use_deterministic_algorithms(1), lambda: torch.set_deterministic_debug_mode("x")]:
    try:
        bad()
    except (TypeError, RuntimeError) as e:
        print(type(e).__name__, e)
print(torch.get_float32_matmul_precision())
torch.set_float32_matmul_precision("high")
print(torch.get_float32_matmul_precision())
print(torch.backends.cuda.matmul.allow_tf32)

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
print(torch.combinations(a), torch.combinations(a, 2, with_replacement=True), torch.combinations(a, 0),
      torch.combinations(a, 4).shape, torch.combinations(a, 1).shape)
torch.combinations(a, 3).sum().backward()
print(a.grad)
for bad in [lambda: torch.combinations(torch.ones(2, 2)), lambda: torch.combinations(a, -1)]:
    try:
        bad()
    except RuntimeError as e:
        print("RuntimeError:", e)
