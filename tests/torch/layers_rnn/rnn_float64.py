# Recurrent layers in float64 (model.double()): the zero initial states take the input's dtype,
# so the cells' matmuls do not mix float32 states with float64 weights; forward, backward and
# gradcheck as PyTorch runs them
import torch
import torch.nn as nn
from torch.autograd import gradcheck

torch.manual_seed(0)
d = torch.float64
x = torch.randn(3, 2, 4, dtype=d)


def show(name, t):
    print(name, t.dtype, tuple(t.shape), [round(v, 10) for v in t.detach().flatten().tolist()[:8]])


for name, m in [("rnn_cell", nn.RNNCell(4, 3)), ("lstm_cell", nn.LSTMCell(4, 3)), ("gru_cell", nn.GRUCell(4, 3)),
                ("rnn", nn.RNN(4, 3, nonlinearity="relu")), ("lstm", nn.LSTM(4, 3, num_layers=2, bidirectional=True)),
                ("lstm_proj", nn.LSTM(4, 3, proj_size=2)), ("gru", nn.GRU(4, 3, batch_first=True))]:
    m = m.double()
    xi = (x[0] if name.endswith("_cell") else x).clone().requires_grad_()
    out = m(xi)
    y = out[0] if isinstance(out, tuple) else out
    show(name, y)
    (y * y).sum().backward()
    show(name + ".grad", xi.grad)
    print(name, gradcheck(lambda a: (lambda o: o[0] if isinstance(o, tuple) else o)(m(a)), (xi.detach().clone().requires_grad_(),)))
