"""Row kernels' cost (CPU microseconds per call, best of 7 rounds of 50 calls, one thread): the
ops whose rows reproduce PyTorch 1.13's bits (src/tensor/softmax_rows.c, layer_norm_rows.c).
Runs unchanged under Ember and PyTorch: bench/torch/rows.sh runs both and prints the ratios.
Not a test: nothing here asserts a timing."""
import time
import torch
import torch.nn.functional as F

torch.set_num_threads(1)
torch.manual_seed(0)


def best(fn, calls=50, rounds=7):
    for _ in range(5):
        fn()
    b = None
    for _ in range(rounds):
        t0 = time.process_time()
        for _ in range(calls):
            fn()
        t = (time.process_time() - t0) / calls * 1e6
        b = t if b is None or t < b else b
    return b


x = torch.randn(64, 256)
w = torch.randn(256, requires_grad=True)
b = torch.randn(256, requires_grad=True)
xg = x.clone().requires_grad_(True)
gy = torch.randn(64, 256)
s = torch.randn(64, 512)
sg = s.clone().requires_grad_(True)
tgt = torch.randint(0, 512, (64,))


def ln_fwd():
    with torch.no_grad():
        F.layer_norm(x, (256,), w, b)


def ln_fwd_bwd():
    F.layer_norm(xg, (256,), w, b).backward(gy)


def softmax_fwd():
    F.softmax(s, dim=-1)


def log_softmax_fwd():
    F.log_softmax(s, dim=-1)


def ce_fwd_bwd():
    F.cross_entropy(sg, tgt).backward()


for name, fn in (("layer_norm_64x256_fwd", ln_fwd), ("layer_norm_64x256_fwd_bwd", ln_fwd_bwd),
                 ("softmax_64x512", softmax_fwd), ("log_softmax_64x512", log_softmax_fwd),
                 ("cross_entropy_64x512_fwd_bwd", ce_fwd_bwd)):
    print(name, round(best(fn), 2))
