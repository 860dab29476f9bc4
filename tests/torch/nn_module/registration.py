# nn.Module attribute routing and registration: register_parameter / register_buffer /
# add_module / register_module, __setattr__ into _parameters/_buffers/_modules, __delattr__,
# __getattr__ fallback, and the errors PyTorch raises for bad names and values.
import torch
import torch.nn as nn


def attempt(label, fn):
    try:
        fn()
        print(label, "ok")
    except Exception as e:
        print(label, type(e).__name__, str(e))


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(2))
        self.register_parameter("b", nn.Parameter(torch.zeros(2)))
        self.register_parameter("nothing", None)
        self.register_buffer("running", torch.zeros(2))
        self.register_buffer("scratch", torch.ones(1), persistent=False)
        self.register_buffer("empty_buf", None)
        self.child = nn.Linear(2, 2)
        self.add_module("other", nn.ReLU())
        self.register_module("third", nn.Tanh())
        self.plain = 3
        self.t = torch.ones(1)


m = M()
print("params", list(m._parameters.keys()))
print("buffers", list(m._buffers.keys()))
print("modules", list(m._modules.keys()))
print("non-persistent", sorted(m._non_persistent_buffers_set))
print("dict has plain", "plain" in m.__dict__, "w" in m.__dict__, "child" in m.__dict__)
print("lookup", m.w.shape, m.nothing, m.empty_buf, type(m.child).__name__, m.plain)
print("types", type(m._parameters).__name__, type(m._modules).__name__, m.training)

attempt("getattr missing", lambda: m.missing)
print("hasattr", hasattr(m, "w"), hasattr(m, "running"), hasattr(m, "other"), hasattr(m, "zzz"))

# reassigning registered names
m.running = torch.full((2,), 7.0)
print("buffer reassigned", m.running.tolist(), "running" in m._buffers)
m.running = None
print("buffer set to None", m.running, "running" in m._buffers)
attempt("buffer to int", lambda: setattr(m, "scratch", 5))
m.w = None
print("param set to None", m.w, "w" in m._parameters)
attempt("param to tensor", lambda: setattr(m, "b", torch.ones(2)))
attempt("param to int", lambda: setattr(m, "b", 3))
attempt("module to int", lambda: setattr(m, "child", 3))
m.child = None
print("module set to None", m.child, "child" in m._modules)

# a Parameter replaces a plain attribute, a module replaces a parameter
m.plain = nn.Parameter(torch.ones(3))
print("plain became param", "plain" in m.__dict__, "plain" in m._parameters)
attempt("module over param", lambda: setattr(m, "b", nn.Linear(1, 1)))
m.fresh = nn.Linear(1, 1)
print("new module", "fresh" in m._modules)
m.running = nn.Parameter(torch.ones(1))
print("buffer became param", "running" in m._buffers, "running" in m._parameters)

# deletion
del m.plain
del m.scratch
del m.other
del m.t
print("after del", list(m._parameters), list(m._buffers), list(m._modules), "t" in m.__dict__,
      sorted(m._non_persistent_buffers_set))
attempt("del missing", lambda: delattr(m, "nope"))

# registration errors
attempt("param name with dot", lambda: m.register_parameter("a.b", nn.Parameter(torch.ones(1))))
attempt("param empty name", lambda: m.register_parameter("", nn.Parameter(torch.ones(1))))
attempt("param name not str", lambda: m.register_parameter(1, nn.Parameter(torch.ones(1))))
attempt("param existing attr", lambda: m.register_parameter("training", nn.Parameter(torch.ones(1))))
attempt("param not a Parameter", lambda: m.register_parameter("q", torch.ones(1)))
attempt("param non-leaf", lambda: m.register_parameter("q", nn.Parameter(torch.ones(1)) * 2))
attempt("buffer name with dot", lambda: m.register_buffer("a.b", torch.ones(1)))
attempt("buffer empty name", lambda: m.register_buffer("", torch.ones(1)))
attempt("buffer existing attr", lambda: m.register_buffer("child", torch.ones(1)))
attempt("buffer not a tensor", lambda: m.register_buffer("q", [1, 2]))
attempt("module not a module", lambda: m.add_module("q", 5))
attempt("module name with dot", lambda: m.add_module("a.b", nn.ReLU()))
attempt("module empty name", lambda: m.add_module("", nn.ReLU()))
attempt("module existing attr", lambda: m.add_module("w", nn.ReLU()))
attempt("module name not str", lambda: m.add_module(3, nn.ReLU()))
m.add_module("third", nn.Sigmoid())
print("re-add existing module name", type(m.third).__name__)


class Early(nn.Module):
    def __init__(self):
        self.x = 1
        try:
            self.p = nn.Parameter(torch.ones(1))
        except AttributeError as e:
            print("early param", e)
        try:
            self.sub = nn.ReLU()
        except AttributeError as e:
            print("early module", e)
        try:
            self.register_buffer("b", torch.ones(1))
        except AttributeError as e:
            print("early buffer", e)
        super().__init__()


e = Early()
print("early plain kept", e.x)
attempt("init with args", lambda: nn.Module(1))
attempt("init with kwargs", lambda: nn.Module(a=1))


class NoForward(nn.Module):
    pass


attempt("no forward", lambda: NoForward()(torch.ones(1)))


class NoInit(nn.Module):
    def __init__(self):
        pass

    def forward(self, x):
        return x


attempt("call without init", lambda: NoInit()(torch.ones(1)))
attempt("getattr without init", lambda: NoInit().weight)
