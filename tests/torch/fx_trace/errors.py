# What symbolic tracing refuses, with torch.fx's exceptions and messages: control flow, len()
# and iteration of a traced value, arguments of types fx cannot store, a leaf module that is not
# a submodule of the root, erasing a node that still has users, an unknown node op.
import torch
import torch.nn as nn
import torch.fx


def catch(what, f):
    try:
        f()
        print(what, "ok")
    except Exception as e:
        print(what, type(e).__name__ + ":", e)


class Branchy(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x
        return -x


class Length(nn.Module):
    def forward(self, x):
        return x * len(x)


class Loop(nn.Module):
    def forward(self, x):
        out = 0
        for v in x:
            out = out + v
        return out


class Opaque:
    pass


class BadArg(nn.Module):
    def forward(self, x):
        return torch.relu(x) + Opaque()


class Stranger(nn.Module):
    def __init__(self, other):
        super().__init__()
        self.other = [other]      # not registered as a submodule

    def forward(self, x):
        return self.other[0](x)


class Boolish(nn.Module):
    def forward(self, x):
        return bool(x)


catch("branch", lambda: torch.fx.symbolic_trace(Branchy()))
catch("len", lambda: torch.fx.symbolic_trace(Length()))
catch("iter", lambda: torch.fx.symbolic_trace(Loop()))
catch("argument", lambda: torch.fx.symbolic_trace(BadArg()))
catch("stranger", lambda: torch.fx.symbolic_trace(Stranger(nn.Linear(2, 2))))
catch("bool", lambda: torch.fx.symbolic_trace(Boolish()))
print(issubclass(torch.fx.proxy.TraceError, ValueError))


def f(x):
    return x.relu() + 1


gm = torch.fx.symbolic_trace(f)
relu = [n for n in gm.graph.nodes if n.name == "relu"][0]
catch("erase", lambda: gm.graph.erase_node(relu))
catch("op", lambda: gm.graph.create_node("call_everything", "relu"))
catch("call_function target", lambda: gm.graph.create_node("call_function", "relu"))
print(len(gm.graph.nodes))
