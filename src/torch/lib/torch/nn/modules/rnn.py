"""torch.nn.modules.rnn: RNN, LSTM (proj_size), GRU and their cells, with PyTorch's parameter names
and layout (weight_ih_l{k}[_reverse] = the gates stacked: LSTM i,f,g,o; GRU r,z,n), so state
dicts load across.  A layer runs one GEMM over all time steps for the input projection, then one
small GEMM per step; PackedSequence inputs run padded with a per-step mask (finished sequences
keep their hidden state) and are packed again."""
import math

import torch
import torch.nn.functional as F
from torch.nn import init
from torch.nn.modules.module import Module
from torch.nn.parameter import Parameter
from torch.nn.utils.rnn import PackedSequence, pad_packed_sequence, pack_padded_sequence
from torch._C._nn import fused_lstm_cell, sigmoid_rows

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _lstm_step(gi, h, c, w_hh, b_hh, w_hr):
    # the gates as PyTorch sums them: gi (input projection, b_ih included) + linear(h, w_hh, b_hh)
    gates = gi + F.linear(h, w_hh, b_hh) if b_hh is not None else torch.addmm(gi, h, w_hh.t())
    i, f, g, o = gates.chunk(4, -1)
    i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
    c = f * c + i * g
    h = o * c.tanh()
    if w_hr is not None:
        h = F.linear(h, w_hr)
    return h, c


def _lstm_step_fused(gi, h, c, w_hh, b_hh, w_hr):
    # nn.LSTM's step: the gates as PyTorch 1.13's CPU LSTM sums them, linear(h, w_hh, b_hh) +
    # gi (gi: the input projection of the whole sequence, b_ih included), then the pointwise
    # part in one kernel with one backward node (src/tensor/rnn.c); nn.LSTMCell keeps the
    # composed _lstm_step, whose outputs' grad_fns PyTorch shows (MulBackward0, AddBackward0)
    h, c, _ = fused_lstm_cell(gi + F.linear(h, w_hh, b_hh), c)
    if w_hr is not None:
        h = F.linear(h, w_hr)
    return h, c


def _gate_sigmoid(x):
    # r and z as ATen's GRUCell computes them, sigmoid_ in place on (B, H) chunks of the (B, 3H)
    # hidden projection: each row its own loop, libm's exp on its last H % 16 elements
    # (src/tensor/rnn.c SIGMOID_ROWS); a sigmoid of the contiguous sum has one tail
    return sigmoid_rows(x) if x.dtype in (torch.float32, torch.float64) else x.sigmoid()


def _gru_step(gi, h, w_hh, b_hh):
    # PyTorch 1.13's CPU GRUCell, op for op (its in-place ops out of place, same values): the new
    # state is (h - n) * z + n, which rounds differently from (1 - z) * n + z * h
    ir, iz, inn = gi.chunk(3, -1)
    hr, hz, hn = F.linear(h, w_hh, b_hh).chunk(3, -1)
    r = _gate_sigmoid(hr + ir)
    z = _gate_sigmoid(hz + iz)
    n = (inn + hn * r).tanh()
    return (h - n) * z + n


def _rnn_step(gi, h, w_hh, b_hh, relu):
    pre = gi + F.linear(h, w_hh, b_hh)
    return pre.relu() if relu else pre.tanh()


class RNNBase(Module):
    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1
        if not isinstance(dropout, (int, float)) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if dropout > 0 and num_layers == 1:
            import warnings
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          "expects num_layers greater than 1, but got dropout={} and num_layers={}".format(
                              dropout, num_layers))
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                real_hidden = proj_size if proj_size > 0 else hidden_size
                layer_input_size = input_size if layer == 0 else real_hidden * num_directions
                w_ih = Parameter(torch.empty((gate_size, layer_input_size), **factory_kwargs))
                w_hh = Parameter(torch.empty((gate_size, real_hidden), **factory_kwargs))
                b_ih = Parameter(torch.empty(gate_size, **factory_kwargs))
                b_hh = Parameter(torch.empty(gate_size, **factory_kwargs))
                suffix = "_reverse" if direction == 1 else ""
                if proj_size == 0:
                    params = (w_ih, w_hh, b_ih, b_hh) if bias else (w_ih, w_hh)
                    names = ["weight_ih_l{}{}", "weight_hh_l{}{}", "bias_ih_l{}{}", "bias_hh_l{}{}"]
                else:
                    w_hr = Parameter(torch.empty((proj_size, hidden_size), **factory_kwargs))
                    params = (w_ih, w_hh, b_ih, b_hh, w_hr) if bias else (w_ih, w_hh, w_hr)
                    names = ["weight_ih_l{}{}", "weight_hh_l{}{}", "bias_ih_l{}{}", "bias_hh_l{}{}",
                             "weight_hr_l{}{}"]
                if not bias:
                    names = [n for n in names if not n.startswith("bias")]
                names = [n.format(layer, suffix) for n in names]
                for name, p in zip(names, params):
                    setattr(self, name, p)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self):
        return [getattr(self, n) for n in self._flat_weights_names]

    @property
    def all_weights(self):
        return [[getattr(self, n) for n in names] for names in self._all_weights]

    def flatten_parameters(self):
        pass

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for w in self.parameters():
            init.uniform_(w, -stdv, stdv)

    def extra_repr(self):
        s = "{}, {}".format(self.input_size, self.hidden_size)
        if self.proj_size != 0:
            s += ", proj_size={}".format(self.proj_size)
        if self.num_layers != 1:
            s += ", num_layers={}".format(self.num_layers)
        if self.bias is not True:
            s += ", bias={}".format(self.bias)
        if self.batch_first is not False:
            s += ", batch_first={}".format(self.batch_first)
        if self.dropout != 0:
            s += ", dropout={}".format(self.dropout)
        if self.bidirectional is not False:
            s += ", bidirectional={}".format(self.bidirectional)
        return s

    def _weights(self, layer, direction):
        suffix = "_reverse" if direction == 1 else ""
        g = lambda n: getattr(self, n + "_l{}{}".format(layer, suffix), None)
        return g("weight_ih"), g("weight_hh"), g("bias_ih"), g("bias_hh"), g("weight_hr")

    def _run(self, x, hx, lengths):
        """x: (T, B, in), time-major; hx: h0 (L*D, B, Hout) [, c0 (L*D, B, H)]; lengths: per-sequence
        lengths (packed input) or None"""
        T, B = x.shape[0], x.shape[1]
        D = 2 if self.bidirectional else 1
        is_lstm = self.mode == "LSTM"
        masks = None
        if lengths is not None:
            masks = [torch.tensor([[1.0] if t < n else [0.0] for n in lengths]) for t in range(T)]
        h0, c0 = (hx if is_lstm else (hx, None))
        hs, cs = [], []
        layer_in = x
        for layer in range(self.num_layers):
            outs = []
            for d in range(D):
                w_ih, w_hh, b_ih, b_hh, w_hr = self._weights(layer, d)
                # the input projection of every step at once, as PyTorch's CPU RNNs compute it; b_hh
                # is added in each step's linear(h, w_hh, b_hh) (folding it into gi_all rounded
                # the gates in another order: (pre + b_hh) + h W instead of (h W + b_hh) + pre)
                gi_all = F.linear(layer_in, w_ih, b_ih)
                # unbind: one backward node stacking the steps' gradients (indexing gi_all[t]
                # would scatter each step's gradient into a zero tensor of all steps: O(T^2))
                gi_steps = gi_all.unbind(0)
                h = h0[layer * D + d]
                c = c0[layer * D + d] if is_lstm else None
                fused = is_lstm and gi_all.dtype in (torch.float32, torch.float64) and c.dtype == gi_all.dtype \
                    and h.dtype == gi_all.dtype
                steps = range(T - 1, -1, -1) if d == 1 else range(T)
                out_t = [None] * T
                for t in steps:
                    gi = gi_steps[t]
                    if is_lstm:
                        if fused:
                            nh, nc = _lstm_step_fused(gi, h, c, w_hh, b_hh, w_hr)
                        else:
                            nh, nc = _lstm_step(gi, h, c, w_hh, b_hh, w_hr)
                    elif self.mode == "GRU":
                        nh = _gru_step(gi, h, w_hh, b_hh)
                    else:
                        nh = _rnn_step(gi, h, w_hh, b_hh, self.mode == "RNN_RELU")
                    if masks is not None:
                        m = masks[t]
                        nh = nh * m + h * (1 - m)
                        if is_lstm:
                            nc = nc * m + c * (1 - m)
                        out_t[t] = nh * m
                    else:
                        out_t[t] = nh
                    h = nh
                    if is_lstm:
                        c = nc
                outs.append(torch.stack(out_t, 0))
                hs.append(h)
                if is_lstm:
                    cs.append(c)
            layer_in = outs[0] if D == 1 else torch.cat(outs, 2)
            if self.dropout > 0 and self.training and layer < self.num_layers - 1:
                layer_in = F.dropout(layer_in, self.dropout, True)
        h_n = torch.stack(hs, 0)
        if is_lstm:
            return layer_in, (h_n, torch.stack(cs, 0))
        return layer_in, h_n

    def forward(self, input, hx=None):
        is_lstm = self.mode == "LSTM"
        packed = isinstance(input, PackedSequence)
        lengths = None
        if packed:
            sorted_indices, unsorted_indices = input.sorted_indices, input.unsorted_indices
            padded, lens = pad_packed_sequence(PackedSequence(input.data, input.batch_sizes, None, None))
            x = padded
            lengths = lens.tolist()
            batched = True
        else:
            sorted_indices = unsorted_indices = None
            batched = input.dim() == 3
            if input.dim() not in (2, 3):
                raise ValueError("{}: Expected input to be 2D or 3D, got {}D instead".format(
                    type(self).__name__, input.dim()))
            x = input if batched else input.unsqueeze(1)
            if self.batch_first and batched:
                x = x.transpose(0, 1)
        B = x.shape[1]
        D = 2 if self.bidirectional else 1
        hout = self.proj_size if self.proj_size > 0 else self.hidden_size
        if hx is None:
            h0 = torch.zeros(self.num_layers * D, B, hout, dtype=x.dtype)
            hx = (h0, torch.zeros(self.num_layers * D, B, self.hidden_size, dtype=x.dtype)) if is_lstm else h0
        else:
            if not batched:
                hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1)) if is_lstm else hx.unsqueeze(1)
            if sorted_indices is not None:
                hx = (hx[0].index_select(1, sorted_indices), hx[1].index_select(1, sorted_indices)) if is_lstm \
                    else hx.index_select(1, sorted_indices)
        out, hidden = self._run(x, hx, lengths)
        if packed:
            out = pack_padded_sequence(out, torch.tensor(lengths), enforce_sorted=True)
            out = PackedSequence(out.data, out.batch_sizes, sorted_indices, unsorted_indices)
            if unsorted_indices is not None:
                hidden = (hidden[0].index_select(1, unsorted_indices), hidden[1].index_select(1, unsorted_indices)) \
                    if is_lstm else hidden.index_select(1, unsorted_indices)
            return out, hidden
        if not batched:
            out = out.squeeze(1)
            hidden = (hidden[0].squeeze(1), hidden[1].squeeze(1)) if is_lstm else hidden.squeeze(1)
        elif self.batch_first:
            out = out.transpose(0, 1)
            if not is_lstm:   # PyTorch's RNN and GRU kernels transpose their output in place (transpose_)
                out = F._named(out, "TransposeBackward1", input)
        return out, hidden


class RNN(RNNBase):
    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError("Unknown nonlinearity '{}'".format(self.nonlinearity))
        super().__init__(mode, *args, **kwargs)


class LSTM(RNNBase):
    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)


class GRU(RNNBase):
    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)


class RNNCellBase(Module):
    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(torch.empty((num_chunks * hidden_size, input_size), **factory_kwargs))
        self.weight_hh = Parameter(torch.empty((num_chunks * hidden_size, hidden_size), **factory_kwargs))
        if bias:
            self.bias_ih = Parameter(torch.empty(num_chunks * hidden_size, **factory_kwargs))
            self.bias_hh = Parameter(torch.empty(num_chunks * hidden_size, **factory_kwargs))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = "{}, {}".format(self.input_size, self.hidden_size)
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={}".format(self.bias)
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={}".format(self.nonlinearity)
        return s

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for w in self.parameters():
            init.uniform_(w, -stdv, stdv)

    def _batched(self, input):
        if input.dim() not in (1, 2):
            raise ValueError("{}: Expected input to be 1D or 2D, got {}D instead".format(
                type(self).__name__, input.dim()))
        return input.dim() == 2


class RNNCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        batched = self._batched(input)
        x = input if batched else input.unsqueeze(0)
        h = torch.zeros(x.shape[0], self.hidden_size, dtype=x.dtype) if hx is None else (hx if batched else hx.unsqueeze(0))
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError("Unknown nonlinearity: {}".format(self.nonlinearity))
        out = _rnn_step(F.linear(x, self.weight_ih, self.bias_ih), h, self.weight_hh, self.bias_hh,
                        self.nonlinearity == "relu")
        return out if batched else out.squeeze(0)


class LSTMCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        batched = self._batched(input)
        x = input if batched else input.unsqueeze(0)
        if hx is None:
            z = torch.zeros(x.shape[0], self.hidden_size, dtype=x.dtype)
            hx = (z, z)
        elif not batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        h, c = _lstm_step(F.linear(x, self.weight_ih, self.bias_ih), hx[0], hx[1], self.weight_hh, self.bias_hh,
                          None)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        batched = self._batched(input)
        x = input if batched else input.unsqueeze(0)
        h = torch.zeros(x.shape[0], self.hidden_size, dtype=x.dtype) if hx is None else (hx if batched else hx.unsqueeze(0))
        out = _gru_step(F.linear(x, self.weight_ih, self.bias_ih), h, self.weight_hh, self.bias_hh)
        return out if batched else out.squeeze(0)
