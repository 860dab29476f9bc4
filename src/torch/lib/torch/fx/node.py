"""torch.fx.node (PyTorch 1.13): Node, map_arg, map_aggregate, and how targets are named.

A Node is the script face of one src/graph GraphNode (torch._C._fx.NodeBase, see src/torch/fx.c):
op, name, target, args, kwargs, graph, users and all_input_nodes are read from the graph IR
itself, so the printers, the verifier and the DOT export of src/graph see what fx sees."""
import builtins
import operator
from typing import Any, Callable, Dict, List, Optional, Tuple, Union
import torch
from torch._C import _fx

__all__ = ['Node', 'map_arg', 'map_aggregate']

base_types = (str, int, float, bool, torch.dtype, torch.Tensor, torch.device, torch.layout)

Target = Union[Callable[..., Any], str]
Argument = Optional[Union[Tuple[Any, ...], List[Any], Dict[str, Any], slice, 'Node', str, int, float, bool,
                          torch.dtype, torch.Tensor, torch.device]]

_side_effectful_functions = set()


def _callable_modules():
    """(module name, module) pairs searched, in order, for the module of a callable that has no
    __module__ (Ember's natives): torch._C._nn before torch, as PyTorch's __module__s say."""
    import math
    import torch.nn.functional
    return [('torch._C._nn', torch._C._nn), ('torch', torch), ('torch.nn.functional', torch.nn.functional),
            ('_operator', operator), ('math', math), ('builtins', builtins)]


def _module_table():
    # built at import, before a trace patches math's functions (autowrap)
    table = {}
    for modname, mod in _callable_modules():
        for v in mod.__dict__.values():
            if callable(v) and id(v) not in table:
                table[id(v)] = (modname, v)
    return table


_module_of_id = _module_table()


def _find_module_of_method(orig_method):
    module = getattr(orig_method, '__module__', None)
    if module is not None:
        if module == 'operator' and getattr(operator, orig_method.__name__, None) is orig_method:
            return '_operator'   # CPython's operator functions live in _operator
        return module
    name = orig_method.__name__
    found = _module_of_id.get(id(orig_method))
    if found is not None and found[1] is orig_method:
        return found[0]
    for guess in [torch, torch.nn.functional]:
        if getattr(guess, name, None) is orig_method:
            return guess.__name__
    raise RuntimeError(f'cannot find module for {orig_method}')


def _type_repr(obj):
    """The repr() of an object, special-casing types (fx's annotation printer)."""
    if isinstance(obj, type):
        if obj.__module__ == 'builtins':
            return obj.__qualname__
        return f'{obj.__module__}.{obj.__qualname__}'
    if obj is ...:
        return '...'
    if callable(obj) and hasattr(obj, '__code__'):
        return obj.__name__
    return repr(obj)


def _get_qualified_name(func):
    # things like getattr just appear in builtins
    if getattr(builtins, func.__name__, None) is func:
        return func.__name__
    name = func.__name__
    module = _find_module_of_method(func)
    module = module.replace('torch._ops', 'torch.ops')  # WAR for bug in how torch.ops assigns module
    return f'{module}.{name}'


def _format_arg(arg, max_list_len=float('inf')):
    if hasattr(arg, '_custom_fx_repr_fn'):
        return arg._custom_fx_repr_fn()
    elif isinstance(arg, list):
        items = ', '.join(_format_arg(a) for idx, a in enumerate(arg) if idx < max_list_len)
        maybe_len = '' if len(arg) < max_list_len + 1 else f', ...[total_len={len(arg)}]'
        return f'[{items}{maybe_len}]'
    elif isinstance(arg, tuple):
        items = ', '.join(_format_arg(a) for idx, a in enumerate(arg) if idx < max_list_len)
        maybe_len = '' if len(arg) < max_list_len + 1 else f', ...[total_len={len(arg)}]'
        maybe_comma = ',' if len(arg) == 1 else ''
        return f'({items}{maybe_comma}{maybe_len})'
    elif isinstance(arg, dict):
        items_str = ', '.join(f'{k}: {_format_arg(v)}' for k, v in arg.items())
        return f'{{{items_str}}}'

    if isinstance(arg, Node):
        return '%' + str(arg)
    else:
        return str(arg)


class Node(_fx.NodeBase):
    """One operation of a Graph.  ``op`` is one of placeholder, get_attr, call_function,
    call_method, call_module or output; ``target`` the function, method name, module path or
    attribute path; ``args``/``kwargs`` its arguments, with other Nodes standing for values.
    Nodes are made by Graph.create_node, not by calling Node."""

    @property
    def next(self):
        return self._next

    @property
    def prev(self):
        return self._prev

    def prepend(self, x):
        """Insert x before this node in the list of nodes in the graph."""
        assert self.graph == x.graph, "Attempting to move a Node into a different Graph"
        if self == x:
            import warnings
            warnings.warn("Trying to prepend a node to itself. This behavior has no effect on the graph.")
            return
        self.graph._move_before(x, self)

    def append(self, x):
        """Insert x after this node in the list of nodes in the graph."""
        nxt = self._next
        self.graph._move_before(x, nxt)

    @property
    def stack_trace(self):
        return self.meta.get("stack_trace", None)

    @stack_trace.setter
    def stack_trace(self, trace):
        self.meta["stack_trace"] = trace

    def update_arg(self, idx, arg):
        args = list(self.args)
        args[idx] = arg
        self.args = tuple(args)

    def update_kwarg(self, key, arg):
        kwargs = dict(self.kwargs)
        kwargs[key] = arg
        self.kwargs = kwargs

    _repr_fn = None

    def __repr__(self):
        if self._repr_fn:
            return self._repr_fn(self)
        return self.name

    def _pretty_print_target(self, target):
        if isinstance(target, str):
            return target
        if hasattr(target, '__module__') and target.__module__ is not None:
            if not hasattr(target, '__name__'):
                return _get_qualified_name(target)
            if target.__module__ == 'builtins':
                return f'builtins.{target.__name__}'
            elif _find_module_of_method(target) == '_operator':
                return f'operator.{target.__name__}'
        elif getattr(builtins, getattr(target, '__name__', ''), None) is target:
            return f'builtins.{target.__name__}'
        elif hasattr(target, '__name__') and _find_module_of_method(target) == '_operator':
            return f'operator.{target.__name__}'   # the C _operator functions carry no __module__
        return _get_qualified_name(target)

    def format_node(self, placeholder_names=None, maybe_return_typename=None):
        """A descriptive string of this node, as print(graph) shows it."""
        if self.op == 'placeholder':
            assert isinstance(self.target, str)
            arg_str = self.target
            arg_str += arg_str + f': {_type_repr(self.type)}' if self.type else ''
            if placeholder_names:
                placeholder_names.append(arg_str)
                return None
            maybe_typename = f'{_type_repr(self.type)} ' if self.type else ''
            default_val = '(default=' + str(self.args[0]) + ')' if self.args else ''
            return f'%{self.name} : {maybe_typename}[#users={len(self.users)}] = {self.op}[target={self.target}]{default_val}'
        elif self.op == 'get_attr':
            maybe_typename = f'{_type_repr(self.type)} ' if self.type is not None else ''
            return f'%{self.name} : {maybe_typename}[#users={len(self.users)}] = ' \
                   f'{self.op}[target={self._pretty_print_target(self.target)}]'
        elif self.op == 'output':
            if self.type and maybe_return_typename:
                maybe_return_typename[0] = f' -> {_type_repr(self.type)}'
            return f'return {self.args[0]}'
        else:
            maybe_typename = f'{_type_repr(self.type)} ' if self.type is not None else ''
            return f'%{self.name} : {maybe_typename}[#users={len(self.users)}] = ' \
                   f'{self.op}[target={self._pretty_print_target(self.target)}](' \
                   f'args = {_format_arg(self.args)}, kwargs = {_format_arg(self.kwargs)})'

    def replace_all_uses_with(self, replace_with, delete_user_cb=lambda user: True):
        """Replace all uses of ``self`` in the Graph with the Node ``replace_with``; returns the
        nodes on which this change was made."""
        to_process = list(self.users)
        skipped = []
        for use_node in to_process:
            if not delete_user_cb(use_node):
                skipped.append(use_node)
                continue
            use_node.replace_input_with(self, replace_with)
        assert len(self.users) - len(skipped) == 0
        return [n for n in to_process if n not in skipped]

    def replace_input_with(self, old_input, new_input):
        def maybe_replace_node(n):
            return new_input if n == old_input else n
        new_args = map_arg(self.args, maybe_replace_node)
        new_kwargs = map_arg(self.kwargs, maybe_replace_node)
        assert isinstance(new_args, tuple)
        assert isinstance(new_kwargs, dict)
        self.args = new_args
        self.kwargs = new_kwargs

    def is_impure(self):
        if self.op in {"placeholder", "output"}:
            return True
        if self.op == "call_function":
            return self.target in _side_effectful_functions or self.target is torch._assert
        if self.op == "call_module":
            assert self.graph.owning_module is not None, "self.graph.owning_module not set for purity check"
            target_mod = self.graph.owning_module.get_submodule(self.target)
            assert target_mod is not None, f"Did not find expected submodule target {self.target}"
            return getattr(target_mod, "_is_impure", False)
        return False


_fx._set_node_class(Node)


def map_arg(a, fn):
    """Apply fn to each Node appearing in arg. arg may be a list, tuple, slice, or dict with string keys."""
    assert callable(fn), "torch.fx.map_arg(a, fn): fn must be a callable"
    return map_aggregate(a, lambda x: fn(x) if isinstance(x, Node) else x)


def map_aggregate(a, fn):
    """Apply fn to each Node appearing in arg. arg may be a list, tuple, slice, or dict with string keys."""
    if isinstance(a, tuple):
        t = tuple(map_aggregate(elem, fn) for elem in a)
        return t if not hasattr(a, '_fields') else type(a)(*t)
    elif isinstance(a, list):
        return list(map_aggregate(elem, fn) for elem in a)
    elif isinstance(a, dict):
        return dict((k, map_aggregate(v, fn)) for k, v in a.items())
    elif isinstance(a, slice):
        return slice(map_aggregate(a.start, fn), map_aggregate(a.stop, fn), map_aggregate(a.step, fn))
    else:
        return fn(a)
