# RNN / LSTM / GRU and their cells (and BatchNorm, InstanceNorm) honour the factory keywords
# dtype= and device=: parameters and buffers are made with them, and a float64 module runs on
# float64 input
import torch
import torch.nn as nn

torch.manual_seed(0)


def r(t, n=8):
    n = n if t.dtype == torch.float64 else 5
    return [round(v, n) for v in t.detach().flatten().tolist()[:6]]


for name, m in [("RNN", nn.RNN(3, 4, dtype=torch.float64)),
                ("LSTM", nn.LSTM(3, 4, num_layers=2, proj_size=2, dtype=torch.float64, device="cpu")),
                ("GRU", nn.GRU(3, 4, bidirectional=True, device=torch.device("cpu"), dtype=torch.float64)),
                ("RNNCell", nn.RNNCell(3, 4, dtype=torch.float64)),
                ("LSTMCell", nn.LSTMCell(3, 4, device="cpu", dtype=torch.float64)),
                ("GRUCell", nn.GRUCell(3, 4, bias=False, dtype=torch.float64)),
                ("LSTM32", nn.LSTM(3, 4, device="cpu"))]:
    print(name, sorted({(k, str(p.dtype), str(p.device)) for k, p in m.named_parameters()}))
    dt = next(m.parameters()).dtype
    x = torch.randn(5, 2, 3, dtype=dt) if not name.endswith("Cell") else torch.randn(2, 3, dtype=dt)
    out = m(x)
    y = out[0] if isinstance(out, tuple) else out
    print(" ", y.dtype, tuple(y.shape), r(y))

bn = nn.BatchNorm1d(3, dtype=torch.float64, device="cpu")
print("BatchNorm1d", [(k, str(v.dtype), str(v.device)) for k, v in bn.state_dict().items()])
inn = nn.InstanceNorm1d(3, affine=True, track_running_stats=True, dtype=torch.float64)
print("InstanceNorm1d", [(k, str(v.dtype)) for k, v in inn.state_dict().items()])
print(r(bn(torch.randn(4, 3, dtype=torch.float64))))
