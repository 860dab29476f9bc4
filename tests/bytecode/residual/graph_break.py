# Residual code: a graph break (print): graph, stack saved, mutations, the call run natively,
# then the resume function.
import torch

events = []


@torch.compile
def f(x):
    y = x * 2
    events.append("before")
    print("break")
    return y + 1


f(torch.ones(2))
