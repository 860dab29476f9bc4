# BatchNorm's forward as ATen 1.13 computes it, bit for bit: the statistics (an (N, C) input is
# "channels last": per-thread rows accumulate the samples; other inputs sum each channel in
# memory order), the running-statistics update, eval mode's invstd, and the transform
# y = fma(x, alpha, beta) with alpha = invstd * w, beta = fma(-mean, alpha, b), in float32 and
# float64 (eval mode: float64's training statistics can still differ in the last bit, footguns),
# at one and two threads; and the backward of (N, C, *) inputs (ATen's contiguous kernel: vector
# row sums of dy and (x - mean) * dy) in training and eval mode.  ((N, C) inputs' backward is not
# yet ATen's: footguns.)
import hashlib
import torch

H = lambda t: hashlib.sha1(' '.join(v.hex() for v in t.double().flatten().tolist()).encode()).hexdigest()[:12]
for threads in (1, 2):
    torch.set_num_threads(threads)
    torch.manual_seed(threads)
    for dt in (torch.float32, torch.float64):
        for shape in ((3, 8), (37, 12), (128, 20), (4, 6, 7), (8, 16, 4, 4), (5, 3, 1)):
            C = shape[1]
            bn = (torch.nn.BatchNorm1d(C) if len(shape) < 4 else torch.nn.BatchNorm2d(C)).to(dt)
            with torch.no_grad():
                bn.weight.uniform_(0.5, 1.5)
                bn.bias.uniform_(-0.5, 0.5)
            x = (torch.randn(*shape) * 2 + 0.3).to(dt)
            y1 = bn(x)
            y2 = bn(x * 1.5 - 0.2)
            bn.eval()
            ye = bn(x * 0.7)
            if dt == torch.float32:
                print(threads, "float32", shape, H(y1), H(y2), H(bn.running_mean), H(bn.running_var), H(ye),
                      bn.num_batches_tracked.item())
            else:
                with torch.no_grad():
                    bn.running_mean.uniform_(-0.5, 0.5)
                    bn.running_var.uniform_(0.5, 2.0)
                print(threads, "float64", shape, H(bn(x * 0.7)))
torch.set_num_threads(1)
torch.manual_seed(7)
for dt in (torch.float32, torch.float64):
    for shape in ((4, 6, 7), (8, 16, 4, 4), (2, 3, 20), (3, 2, 9, 5)):
        C = shape[1]
        bn = (torch.nn.BatchNorm1d(C) if len(shape) == 3 else torch.nn.BatchNorm2d(C)).to(dt)
        with torch.no_grad():
            bn.weight.uniform_(0.5, 1.5)
            bn.bias.uniform_(-0.5, 0.5)
        x = (torch.randn(*shape) * 2 + 0.3).to(dt).requires_grad_()
        g = torch.randn(*shape).to(dt)
        bn(x).backward(g)
        line = [H(x.grad), H(bn.weight.grad), H(bn.bias.grad)]
        bn.eval()
        bn.weight.grad = None
        x2 = (x.detach() * 0.7).requires_grad_()
        bn(x2).backward(g)
        print("backward", str(dt)[6:], shape, *line, H(x2.grad), H(bn.weight.grad), H(bn.bias.grad))
torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.BatchNorm1d(16), torch.nn.ReLU(), torch.nn.Linear(16, 3))
net.eval()
print([repr(v) for v in net(torch.randn(4, 6)).flatten().tolist()[:6]])
