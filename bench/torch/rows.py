# The rows of softmax / log_softmax / cross_entropy / layer_norm (src/tensor/softmax_rows.c,
# layer_norm_rows.c): CPU microseconds per call, best of ROUNDS rounds of CALLS calls, one thread.
# Runs unchanged under Ember (`ember run`) and PyTorch 1.13 (/usr/bin/python3); rows.sh runs it
# under both and prints the ratios.  Prints one line per case: "name us".  Not a test.
import time

import torch
import torch.nn.functional as F

ROUNDS, CALLS = 7, 50
torch.set_num_threads(1)
torch.manual_seed(0)


def best(fn):
    fn()
    b = None
    for _ in range(ROUNDS):
        t0 = time.process_time()
        for _ in range(CALLS):
            fn()
        t = (time.process_time() - t0) / CALLS * 1e6
        if b is None or t < b:
            b = t
    return b


x_ln = torch.randn(64, 256)
w_ln = torch.randn(256).requires_grad_()
b_ln = torch.randn(256).requires_grad_()
x_lng = torch.randn(64, 256).requires_grad_()
x_sm = torch.randn(64, 512)
x_col = torch.randn(512, 64)
logits = torch.randn(64, 512).requires_grad_()
target = torch.randint(0, 512, (64,))


def ln_fwd():
    with torch.no_grad():
        F.layer_norm(x_ln, (256,), w_ln, b_ln)


def ln_fwd_bwd():
    F.layer_norm(x_lng, (256,), w_ln, b_ln).sum().backward()


def softmax():
    F.softmax(x_sm, dim=-1)


def log_softmax():
    F.log_softmax(x_sm, dim=-1)


def softmax_dim0():
    F.softmax(x_col, dim=0)


def ce_fwd_bwd():
    F.cross_entropy(logits, target).backward()


for name, fn in [("layer_norm_64x256_fwd", ln_fwd), ("layer_norm_64x256_fwd_bwd", ln_fwd_bwd),
                 ("softmax_64x512", softmax), ("log_softmax_64x512", log_softmax),
                 ("softmax_512x64_dim0", softmax_dim0),
                 ("cross_entropy_64x512_fwd_bwd", ce_fwd_bwd)]:
    print(name, "%.1f" % best(fn))
