"""torch.fx.graph_module (PyTorch 1.13): GraphModule.

A GraphModule is an nn.Module whose forward is its graph's code: src/graph prints the graph as
Python (`gm.code`), and the VM's compiler compiles that source, as fx does with exec(), into the
forward of a class made for this one instance.  Submodules and attributes the graph refers to are
copied from the root module, so calls go through the modules as in PyTorch."""
import torch
import torch.nn as nn
from torch._C import _fx
from .graph import Graph, PythonCode

__all__ = ['GraphModule']


class _EvalCacheLoader(object):
    def __init__(self):
        self.next_id = 0

    def _get_key(self):
        key = f'<eval_with_key>.{self.next_id}'
        self.next_id += 1
        return key


_loader = _EvalCacheLoader()


def _exec_with_source(src, globals):
    key = _loader._get_key()
    _fx._exec(src, globals, key)


def _forward_from_src(src, globals):
    # avoid mutating the passed in dict
    globals_copy = dict(globals)
    _exec_with_source(src, globals_copy)
    forward_fn = globals_copy['forward']
    del globals_copy['forward']
    return forward_fn


# copy an attribute value with qualified name 'target' from 'from_module' to 'to_module'
# This installs empty Modules where none exist yet if they are subpaths of target
def _copy_attr(from_module, to_module, target):
    *prefix, field = target.split('.')
    for item in prefix:
        f = getattr(from_module, item)
        t = getattr(to_module, item, None)
        if f is t:
            # we have already installed one of its parents
            # (e.g. target = root.linear.weight, but we have already installed root.linear)
            # once we install a parent, we no longer need to copy the children
            # since all the needed properties will already be present
            return

        if t is None:
            t = torch.nn.Module()
            setattr(to_module, item, t)
        from_module, to_module = f, t

    orig = getattr(from_module, field)
    # If it is a tensor and not a parameter attribute of a module, it should be a named buffer.
    # So, we register it as a named buffer in the target module.
    if isinstance(orig, torch.Tensor) and not isinstance(orig, torch.nn.Parameter):
        to_module.register_buffer(field, orig)
    else:
        setattr(to_module, field, orig)


# Assign attribute 'from_obj' to the qualified name 'target' on 'to_module
# This installs empty Modules where none exist yet if they are subpaths of target
def _assign_attr(from_obj, to_module, target):
    *prefix, field = target.split('.')
    for item in prefix:
        t = getattr(to_module, item, None)

        if t is None:
            t = torch.nn.Module()
            setattr(to_module, item, t)
        to_module = t

    if isinstance(from_obj, torch.Tensor) and not isinstance(from_obj, torch.nn.Parameter):
        to_module.register_buffer(field, from_obj)
    else:
        setattr(to_module, field, from_obj)


def _addindent(s_, numSpaces):
    s = s_.split('\n')
    # don't do anything for single-line stuff
    if len(s) == 1:
        return s_
    first = s.pop(0)
    s = [(numSpaces * ' ') + line for line in s]
    s = '\n'.join(s)
    s = first + '\n' + s
    return s


class GraphModule(torch.nn.Module):
    """An nn.Module generated from an fx.Graph: it has a ``graph`` attribute, and ``code`` and
    ``forward`` generated from that graph.  After editing the graph in place, call
    ``recompile()``; assigning ``graph`` recompiles."""

    def __new__(cls, *args, **kwargs):
        # each instance of a graph module needs its own forward method
        # so create a new singleton class for each instance.
        # it is a subclass of the user-defined class, the only difference
        # is an extra layer to install the forward method
        for t in cls.__mro__:
            c = t.__qualname__.split('.')[-1]
            if c != 'GraphModuleImpl':
                cls = t
                break

        class GraphModuleImpl(cls):
            pass
        return super().__new__(GraphModuleImpl)

    def __init__(self, root, graph, class_name='GraphModule'):
        super().__init__()
        self.__class__.__name__ = class_name
        if isinstance(root, torch.nn.Module):
            if hasattr(root, 'training'):
                self.training = root.training
            for node in graph.nodes:
                if node.op in ['get_attr', 'call_module']:
                    assert isinstance(node.target, str)
                    _copy_attr(root, self, node.target)
        elif isinstance(root, dict):
            targets_to_copy = []
            for node in graph.nodes:
                if node.op in ['get_attr', 'call_module']:
                    assert isinstance(node.target, str)
                    if node.target not in root:
                        raise RuntimeError('Node ' + str(node) + ' referenced target ' + node.target +
                                           ' but that target was not provided in ``root``!')
                    targets_to_copy.append(node.target)
            targets_to_copy.sort(key=lambda t: t.count('.'))
            for target_to_copy in targets_to_copy:
                _assign_attr(root[target_to_copy], self, target_to_copy)
        else:
            raise RuntimeError('Unsupported type ' + str(root) + ' passed for root!')

        self.graph = graph

        self._tracer_cls = None
        if self.graph._tracer_cls and '<locals>' not in self.graph._tracer_cls.__qualname__:
            self._tracer_cls = self.graph._tracer_cls

        self._tracer_extras = {}
        if self.graph._tracer_extras:
            self._tracer_extras = self.graph._tracer_extras

        self.meta = {}

    @property
    def graph(self):
        """The ``Graph`` underlying this ``GraphModule``"""
        return self._graph

    @graph.setter
    def graph(self, g):
        assert isinstance(g, Graph), f'Expected a Graph instance, but got {type(g)}'
        self._graph = g
        g.owning_module = self
        self.recompile()

    def add_submodule(self, target, m):
        """Adds the given submodule to ``self``, installing empty Modules on the way."""
        *prefix, field = target.split('.')
        mod = self

        for item in prefix:
            submod = getattr(mod, item, None)
            if submod is None:
                submod = torch.nn.Module()
                setattr(mod, item, submod)
            if not isinstance(submod, torch.nn.Module):
                return False
            mod = submod

        mod.add_module(field, m)
        return True

    def delete_submodule(self, target):
        """Deletes the given submodule from ``self``; False if target is not a submodule."""
        atoms = target.split(".")
        path, target_submod = atoms[:-1], atoms[-1]
        mod = self

        for item in path:
            if not hasattr(mod, item):
                return False
            mod = getattr(mod, item)
            if not isinstance(mod, torch.nn.Module):
                return False

        if not hasattr(mod, target_submod):
            return False

        if not isinstance(getattr(mod, target_submod), torch.nn.Module):
            return False

        delattr(mod, target_submod)
        return True

    @property
    def code(self):
        """The Python code generated from the ``Graph`` underlying this ``GraphModule``."""
        if not hasattr(self, '_code'):
            raise RuntimeError('Code has not been generated! Please report a bug to PyTorch')
        return self._code

    def recompile(self):
        """Regenerate code and forward from the graph (after editing the graph in place)."""
        python_code = self._graph.python_code(root_module='self')
        self._code = python_code.src

        cls = type(self)
        cls.forward = _forward_from_src(self._code, python_code.globals)
        return python_code

    def __copy__(self):
        return GraphModule(self, self.graph)

    def print_readable(self):
        """Print the code of this GraphModule as a class."""
        module_code = self._graph.python_code(root_module='self', verbose=True).src
        module_code = module_code.lstrip('\n')
        module_code = f"class {self._get_name()}(torch.nn.Module):\n" + module_code
        module_code = _addindent(module_code, 4)
        print(module_code)

    def __str__(self):
        orig_str = super().__str__()
        print_readable_reminder = "# To see more debug info, please use `graph_module.print_readable()`"
        return '\n'.join([orig_str, self._code, print_readable_reminder])
