"""torch.nn.utils.rnn: PackedSequence (data, batch_sizes, sorted_indices, unsorted_indices),
pack_padded_sequence, pad_packed_sequence, pad_sequence, pack_sequence — PyTorch's layouts: data
holds the valid time steps time-major, sequences sorted by decreasing length."""
from collections import namedtuple

import torch

_PackedSequenceBase = namedtuple("PackedSequence", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])


class PackedSequence(_PackedSequenceBase):
    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = _invert_permutation(sorted_indices)
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        return self

    @property
    def is_cuda(self):
        return False

    def is_pinned(self):
        return False


def _invert_permutation(permutation):
    if permutation is None:
        return None
    p = permutation.tolist()
    inv = [0] * len(p)
    for i, j in enumerate(p):
        inv[j] = i
    return torch.tensor(inv)


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    if isinstance(lengths, torch.Tensor):
        lengths = lengths.tolist()
    lengths = [int(n) for n in lengths]
    if enforce_sorted:
        if any(lengths[i] < lengths[i + 1] for i in range(len(lengths) - 1)):
            raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                               "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence "
                               "to sidestep this requirement if you do not need ONNX exportability.")
        sorted_indices = None
        order = list(range(len(lengths)))
    else:
        order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
        sorted_indices = torch.tensor(order)
    if batch_first:
        input = input.transpose(0, 1)
    if any(n <= 0 for n in lengths):
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                           "that is <= 0")
    sl = [lengths[i] for i in order]
    x = input.index_select(1, sorted_indices) if sorted_indices is not None else input
    steps, sizes = [], []
    for t in range(sl[0]):
        bs = sum(1 for n in sl if n > t)
        sizes.append(bs)
        steps.append(x[t, :bs])
    data = torch.cat(steps, 0)
    return PackedSequence(data, torch.tensor(sizes), sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    data, batch_sizes = sequence.data, sequence.batch_sizes.tolist()
    B = batch_sizes[0]
    T = len(batch_sizes)
    if total_length is not None:
        if total_length < T:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, but "
                             "got total_length={} and max sequence length being {}".format(total_length, T))
    rows, off = [], 0
    feat = list(data.shape[1:])
    for bs in batch_sizes:
        step = data[off:off + bs]
        if bs < B:
            step = torch.cat([step, torch.full([B - bs] + feat, padding_value)], 0)
        rows.append(step)
        off += bs
    if total_length is not None and total_length > T:
        for _ in range(total_length - T):
            rows.append(torch.full([B] + feat, padding_value))
    out = torch.stack(rows, 0)
    lengths = [sum(1 for bs in batch_sizes if bs > b) for b in range(B)]
    lengths = torch.tensor(lengths)
    if sequence.unsorted_indices is not None:
        out = out.index_select(1, sequence.unsorted_indices)
        lengths = lengths.index_select(0, sequence.unsorted_indices)
    if batch_first:
        out = out.transpose(0, 1)
    return out, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0):
    T = max(s.shape[0] for s in sequences)
    feat = list(sequences[0].shape[1:])
    cols = []
    for s in sequences:
        if s.shape[0] < T:
            s = torch.cat([s, torch.full([T - s.shape[0]] + feat, padding_value, dtype=s.dtype)], 0)
        cols.append(s)
    return torch.stack(cols, 0 if batch_first else 1)


def pack_sequence(sequences, enforce_sorted=True):
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)
