# The issue-17 layers compile to one graph with no break: convolutions (im2col + GEMM), pools
# (kernel sizes read from module attributes are specialised when they reach the pooling native),
# batch/group norm, recurrent layers (the time loop unrolled), attention and transformer layers.
# Ember-specific counts: recorded with `tests/record_golden.sh --ember` after checking each by hand
# (one graph, zero breaks for every model).
import torch
import torch._dynamo as dynamo
import torch.nn as nn

models = {
    "cnn": (nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(4, 4, 3, groups=2, padding="same"), nn.AvgPool2d(2), nn.AdaptiveAvgPool2d(1),
                          nn.Flatten()), (torch.ones(2, 3, 8, 8),)),
    "conv1d_pools": (nn.Sequential(nn.Conv1d(2, 4, 3, padding=1, padding_mode="reflect"), nn.BatchNorm1d(4),
                                   nn.MaxPool1d(2, ceil_mode=True), nn.AvgPool1d(2)), (torch.ones(2, 2, 9),)),
    "convT": (nn.ConvTranspose2d(3, 2, 3, stride=2), (torch.ones(1, 3, 4, 4),)),
    "gn_in": (nn.Sequential(nn.GroupNorm(2, 4), nn.InstanceNorm1d(4)), (torch.ones(2, 4, 3),)),
    "lstm": (nn.LSTM(4, 3, num_layers=2, bidirectional=True), (torch.ones(5, 2, 4),)),
    "gru": (nn.GRU(4, 3, batch_first=True), (torch.ones(2, 5, 4),)),
    "mha": (nn.MultiheadAttention(8, 2), (torch.ones(5, 2, 8), torch.ones(5, 2, 8), torch.ones(5, 2, 8))),
    "encoder": (nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, 0.0), 2), (torch.ones(5, 2, 8),)),
    "decoder_layer": (nn.TransformerDecoderLayer(8, 2, 16, 0.0), (torch.ones(5, 2, 8), torch.ones(3, 2, 8))),
}
for name, (m, args) in models.items():
    def f(*a):
        return m(*a)
    e = dynamo.explain(f)(*args)
    print(name, "graphs", e.graph_count, "breaks", e.graph_break_count, [str(b.reason) for b in e.break_reasons])
