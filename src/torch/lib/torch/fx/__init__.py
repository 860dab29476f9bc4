"""torch.fx (PyTorch 1.13's API): symbolic tracing of nn.Modules and functions into Graphs,
GraphModules that run the graph's generated code, and the Interpreter.

    gm = torch.fx.symbolic_trace(model)
    print(gm.code)          # the forward recorded, as Python
    gm(x)                   # runs it

The Graph is src/graph's graph IR, shared with the dynamo-like tracer and the runtime (see
src/torch/fx.c); the tracing machinery is Python, as in PyTorch."""
from .graph_module import GraphModule
from ._symbolic_trace import symbolic_trace, Tracer, wrap, PH, ProxyableClassMeta
from .graph import Graph, CodeGen
from .node import Node, map_arg
from .proxy import Proxy
from .interpreter import Interpreter
from . import node as node
from . import proxy as proxy
from . import graph as graph
