"""torch.fx.graph (PyTorch 1.13): Graph, CodeGen, PythonCode.

A Graph is src/graph's graph IR (torch._C._fx.GraphBase wraps the C Graph): nodes live there, are
named there as fx's _Namespace names them, and GraphModule.code is src/graph's printer
(graph_code with GRAPH_PRINT_FX, torch.fx 1.13's layout).  What is Python here is what needs
Python objects: the names graph code gives to callables and types (fx's _get_qualified_name and
add_global, which also fill the globals the code runs with), Graph.__str__, lint and the
insertion points."""
import builtins
import math
import operator
import torch
from torch._C import _fx
from .node import Node, map_arg, _get_qualified_name, _type_repr, _find_module_of_method

__all__ = ["PythonCode", "CodeGen", "Graph"]

reflectable_magic_methods = {
    'add': '{} + {}',
    'sub': '{} - {}',
    'mul': '{} * {}',
    'floordiv': '{} // {}',
    'truediv': '{} / {}',
    'div': '{} / {}',
    'mod': '{} % {}',
    'pow': '{} ** {}',
    'lshift': '{} << {}',
    'rshift': '{} >> {}',
    'and_': '{} & {}',
    'or_': '{} | {}',
    'xor': '{} ^ {}',
    'getitem': '{}[{}]',
    'matmul': '{} @ {}',
}

magic_methods = dict({
    'eq': '{} == {}',
    'ne': '{} != {}',
    'lt': '{} < {}',
    'gt': '{} > {}',
    'le': '{} <= {}',
    'ge': '{} >= {}',
    'pos': '+{}',
    'neg': '-{}',
    'invert': '~{}'}, **reflectable_magic_methods)

inplace_methods = {
    'iadd': '{} += {}',
    'iand': '{} &= {}',
    'ifloordiv': '{} //= {}',
    'ilshift': '{} <<= {}',
    'imod': '{} %= {}',
    'imul': '{} *= {}',
    'imatmul': '{} @= {}',
    'ior': '{} |= {}',
    'ipow': '{} **= {}',
    'irshift': '{} >>= {}',
    'isub': '{} -= {}',
    'itruediv': '{} /= {}',
    'ixor': '{} ^= {}',
    'setitem': '{}[{}] = {}',
}


class _CustomBuiltin:
    def __init__(self, import_str, obj):
        self.import_str = import_str
        self.obj = obj


_custom_builtins = {}


def _register_custom_builtin(name, import_str, obj):
    _custom_builtins[name] = _CustomBuiltin(import_str, obj)


_register_custom_builtin('inf', 'from math import inf', math.inf)
_register_custom_builtin('nan', 'from math import nan', math.nan)
_register_custom_builtin('NoneType', 'NoneType = type(None)', type(None))
_register_custom_builtin('torch', 'import torch', torch)
_register_custom_builtin('device', 'from torch import device', torch.device)


def _is_magic(x):
    return x.startswith('__') and x.endswith('__')


def _snake_case(s):
    """``mod.pascalCase`` -> ``mod.pascal_case``, ``mod.ALL_CAPS`` -> ``mod.all_caps``"""
    chars = []
    prev_lower = False
    for c in s:
        if prev_lower and c.isupper():
            chars.append('_')
        chars.append(c.lower())
        prev_lower = c.islower()
    return ''.join(chars)


def _is_from_torch(obj):
    module_name = getattr(obj, '__module__', None)
    if module_name is None and callable(obj) and hasattr(obj, '__name__'):
        try:
            module_name = _find_module_of_method(obj)
        except RuntimeError:
            module_name = None
    if module_name is not None:
        base_module = module_name.partition('.')[0]
        return base_module == 'torch'
    return False


def _operator_name(fn):
    """The name of fn in the operator module, when fn is one of its functions."""
    name = getattr(fn, '__name__', None)
    if name is not None and getattr(operator, name, None) is fn:
        return name
    return None


_kwlist = ['False', 'None', 'True', 'and', 'as', 'assert', 'async', 'await', 'break', 'class', 'continue',
           'def', 'del', 'elif', 'else', 'except', 'finally', 'for', 'from', 'global', 'if', 'import', 'in',
           'is', 'lambda', 'nonlocal', 'not', 'or', 'pass', 'raise', 'return', 'try', 'while', 'with', 'yield']

_ident_chars = set('0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_')


def _sub_illegal_chars(s):
    """re.sub('[^0-9a-zA-Z_]+', '_', s)"""
    out = []
    in_run = False
    for c in s:
        if c in _ident_chars:
            out.append(c)
            in_run = False
        elif not in_run:
            out.append('_')
            in_run = True
    return ''.join(out)


def _split_suffix(candidate):
    """re.match(r"(.*)_(\\d+)$", candidate): (base, digits) or None"""
    i = len(candidate)
    while i > 0 and candidate[i - 1] in '0123456789':
        i -= 1
    if i == len(candidate) or i == 0 or candidate[i - 1] != '_':
        return None
    return candidate[:i - 1], candidate[i:]


class _Namespace:
    """Names unique within a generated function; names never shadow builtins unless the object
    is that builtin (fx's _Namespace, for the globals of graph code)."""

    def __init__(self):
        self._obj_to_name = {}
        self._used_names = {}

    def create_name(self, candidate, obj):
        if obj is not None and id(obj) in self._obj_to_name:
            return self._obj_to_name[id(obj)][1]
        candidate = _sub_illegal_chars(candidate)
        if candidate[0].isdigit():
            candidate = f'_{candidate}'
        match = _split_suffix(candidate)
        if match is None:
            base = candidate
            num = None
        else:
            base, num_str = match
            num = int(num_str)
        candidate = base if num is None else f'{base}_{num}'
        num = num if num else 0
        while candidate in self._used_names or self._is_illegal_name(candidate, obj):
            num += 1
            candidate = f'{base}_{num}'
        self._used_names[candidate] = 0
        if obj is not None:
            self._obj_to_name[id(obj)] = (obj, candidate)
        return candidate

    def _is_illegal_name(self, name, obj):
        if name in _kwlist:
            return True
        if name in builtins.__dict__:
            return obj is not builtins.__dict__[name]
        if name in _custom_builtins:
            return obj is not _custom_builtins[name].obj
        return False


class PythonCode:
    """The Python source of a graph's forward and the globals it runs with."""

    def __init__(self, src, globals):
        self.src = src
        self.globals = globals


def _format_target(base, target):
    elems = target.split('.')
    r = base
    for e in elems:
        if not e.isidentifier():
            r = f'getattr({r}, "{e}")'
        else:
            r = f'{r}.{e}'
    return r


class CodeGen:
    """How a graph becomes Python: Ember's CodeGen is src/graph's fx printer; the hooks that let
    PyTorch's subclasses change the signature or the output are not supported."""

    def __init__(self):
        self._body_transformer = None

    def process_inputs(self, *args):
        return args

    def process_outputs(self, outputs):
        return outputs

    def additional_globals(self):
        return []


class _InsertPoint:
    def __init__(self, graph, new_insert):
        self.graph = graph
        self.orig_insert, graph._insert = graph._insert, new_insert

    def __enter__(self):
        pass

    def __exit__(self, type, value, tb):
        self.graph._insert = self.orig_insert


class _node_list:
    def __init__(self, graph, direction='_next'):
        assert direction in ['_next', '_prev']
        self.graph = graph
        self.direction = direction

    def __len__(self):
        return len(self.graph)

    def __iter__(self):
        graph, direction = self.graph, self.direction
        cur = graph._first() if direction == '_next' else graph._last()
        while cur is not None:
            if not cur._erased:
                yield cur
            cur = getattr(cur, direction)

    def __reversed__(self):
        return _node_list(self.graph, '_next' if self.direction == '_prev' else '_prev')


class Graph(_fx.GraphBase):
    """The main data structure of the FX IR: a list of Nodes that together make a Python
    function.  print(graph) lists them; graph.python_code('self').src is the function."""

    def __init__(self, owning_module=None, tracer_cls=None, tracer_extras=None):
        super().__init__()
        self._insert = None
        self._owners = 0
        self._owning_module = owning_module
        self._tracer_cls = tracer_cls
        self._tracer_extras = tracer_extras
        self._codegen = CodeGen()

    @property
    def owning_module(self):
        return self._owning_module

    @owning_module.setter
    def owning_module(self, mod):
        if mod:
            self._owning_module = mod if not self._owners else None
            self._owners += 1

    @property
    def nodes(self):
        return _node_list(self)

    def graph_copy(self, g, val_map, return_output_node=False):
        for node in g.nodes:
            if node in val_map:
                continue
            if node.op == 'output':
                rv = map_arg(node.args[0], lambda n: val_map[n])
                return rv if not return_output_node else (rv, node)
            val_map[node] = self.node_copy(node, lambda n: val_map[n])
        return None

    def create_node(self, op, target, args=None, kwargs=None, name=None, type_expr=None):
        """Create a Node and add it to the Graph at the current insert point."""
        assert op in ('call_function', 'call_method', 'get_attr', 'call_module', 'placeholder', 'output')
        args = () if args is None else args
        kwargs = {} if kwargs is None else kwargs
        assert isinstance(args, tuple), "args must be a tuple"
        assert isinstance(kwargs, dict), "kwargs must be a dict"
        candidate = name if name is not None else self._target_to_str(target)
        if op == 'call_function':
            if not callable(target):
                name = self._reserve_name(candidate)   # fx names the node before checking it
                raise ValueError(f'Node [graph = {self}, name = \'{name}\'] target {target} has type '
                                 f'{torch.typename(target)} but a Callable is expected')
        elif not isinstance(target, str):
            name = self._reserve_name(candidate)
            raise ValueError(f'Node [graph = {self}, name = \'{name}\'] target {target} has type '
                             f'{torch.typename(target)} but a str is expected')
        printed = None if isinstance(target, str) else _printed_target(target, None)
        n = self._create_node(op, target, args, kwargs, candidate, printed)
        n.meta = {}
        n.type = type_expr
        if self._insert is not None:
            self._insert(n)
        return n

    def process_inputs(self, *args):
        return self._codegen.process_inputs(*args)

    def process_outputs(self, out):
        return self._codegen.process_outputs(out)

    def erase_node(self, to_erase):
        """Erases a Node from the Graph; it must have no users left."""
        if len(to_erase.users) > 0:
            raise RuntimeError(f'Tried to erase Node {to_erase} but it still had {len(to_erase.users)} '
                               f'users in the graph: {to_erase.users}!')
        self._erase(to_erase)

    def inserting_before(self, n=None):
        """Within `with graph.inserting_before(n):`, new nodes go before n (None: at the start
        of the graph)."""
        if n is None:
            return self.inserting_after(None)
        assert n.graph == self, "Node to insert before is not in graph."
        return _InsertPoint(self, lambda x: self._move_before(x, n))

    def inserting_after(self, n=None):
        """Within `with graph.inserting_after(n):`, new nodes go right after n (None: at the
        start of the graph)."""
        if n is None:
            return _InsertPoint(self, lambda x: self._move_before(x, self._first_other(x)))
        assert n.graph == self, "Node to insert after is not in graph."
        return _InsertPoint(self, lambda x: self._move_before(x, n._next))

    def _first_other(self, x):
        first = self._first()
        return first if first is not x else x._next

    def get_attr(self, qualified_name, type_expr=None):
        return self.create_node('get_attr', qualified_name, type_expr=type_expr)

    def call_module(self, module_name, args=None, kwargs=None, type_expr=None):
        return self.create_node('call_module', module_name, args, kwargs, type_expr=type_expr)

    def call_method(self, method_name, args=None, kwargs=None, type_expr=None):
        return self.create_node('call_method', method_name, args, kwargs, type_expr=type_expr)

    def call_function(self, the_function, args=None, kwargs=None, type_expr=None):
        return self.create_node('call_function', the_function, args, kwargs, type_expr=type_expr)

    def node_copy(self, node, arg_transform=lambda x: x):
        args = map_arg(node.args, arg_transform)
        kwargs = map_arg(node.kwargs, arg_transform)
        assert isinstance(args, tuple)
        assert isinstance(kwargs, dict)
        result_node = self.create_node(node.op, node.target, args, kwargs, node.name, node.type)
        result_node.meta = dict(node.meta)
        return result_node

    def output(self, result, type_expr=None):
        return self.create_node(op='output', target='output', args=(result,), type_expr=type_expr)

    def _target_to_str(self, target):
        if callable(target):
            op = target.__name__
        else:
            assert isinstance(target, str)
            op = target
            if _is_magic(op):
                op = op[2:-2]
        op = _snake_case(op)
        return op

    def python_code(self, root_module, *, verbose=False):
        """The graph as Python source (src/graph's printer) plus the globals it refers to."""
        if root_module != 'self':
            raise NotImplementedError("Ember's fx code generation uses root_module='self'")
        namespace = _Namespace()
        globals_ = {}

        def add_global(name_hint, obj):
            if _is_from_torch(obj) and obj != torch.device:
                return _get_qualified_name(obj)
            global_name = namespace.create_name(name_hint, obj)
            if global_name in globals_:
                assert globals_[global_name] is obj
                return global_name
            globals_[global_name] = obj
            return global_name

        for name, cb in _custom_builtins.items():
            add_global(name, cb.obj)

        def type_repr(o):
            if o == ():
                return '()'
            return add_global(_type_repr(o), o)

        for node in self.nodes:
            namespace.create_name(node.name, node)
        wrapped_fns = {}
        for node in self.nodes:
            printed = None
            if node.op == 'call_function':
                printed = _printed_target(node.target, add_global)
                if node.meta.get('is_wrapped', False):
                    wrapped_fns.setdefault(printed)
            node._set_printed(printed, None if node.type is None else type_repr(node.type))
        code = self._code()
        if verbose:
            code = self._with_stacktrace_comments(code)
        if len(wrapped_fns) > 0:
            wrap_name = add_global('wrap', torch.fx.wrap)
            wrap_stmts = '\n'.join([f'{wrap_name}("{name}")' for name in wrapped_fns])
            code = '\n' + wrap_stmts + code[1:]
        for name, value in self._codegen.additional_globals():
            add_global(name, value)
        return PythonCode(code, globals_)

    def _with_stacktrace_comments(self, code):
        # fx's verbose code summarises each node's stack trace; nodes recorded without one (all
        # of Ember's: record_stack_traces is not supported) share one comment before the first
        lines = code.split('\n')
        at = 4   # after the three blank lines and the def line
        for node in self.nodes:
            if node.op == 'placeholder':
                if node.name != node.target.replace('*', ''):
                    at += 1
                continue
            if node.op == 'output':
                return code
            if node.stack_trace:
                raise NotImplementedError("graph code with recorded stack traces is not supported")
            lines[at:at] = ['    ', '    # No stacktrace found for following nodes ']
            return '\n'.join(lines)
        return code

    def __str__(self):
        placeholder_names = []
        maybe_return_typename = ['']
        node_strs = [node.format_node(placeholder_names) for node in self.nodes]
        param_str = ', '.join(placeholder_names)
        s = f'graph({param_str}){maybe_return_typename[0]}:'
        for node_str in node_strs:
            if node_str:
                s += '\n    ' + node_str
        return s

    def print_tabular(self):
        """The nodes as a table (opcode, name, target, args, kwargs), printed by src/graph."""
        print(self._tabular(), end='')

    def to_dot(self):
        """Ember: the graph in Graphviz DOT (src/graph's exporter)."""
        return self._dot()

    def lint(self):
        """Checks that nodes are owned by this graph, topologically ordered and uniquely named,
        and that get_attr/call_module targets exist in the owning module."""
        def check_arg(arg, n=None):
            context_str = f' of Node \'{n}\' ' if n else ' '
            if arg.graph is not self:
                raise RuntimeError(f'Argument \'{arg}\'{context_str}does not belong to this Graph, '
                                   f'but was used as an argument! If you are copying nodes from another graph, make '
                                   f'sure to use ``arg_transform`` on node_copy() to remap values\n{self}')
            if arg not in seen_values:
                raise RuntimeError(f'Argument \'{arg}\'{context_str}was used before it has been '
                                   f'defined! Please check that Nodes in the graph are topologically ordered\n{self}')

        seen_names = set()
        seen_values = set()
        for node in self.nodes:
            if node.graph is not self:
                raise RuntimeError(f'Node \'{node}\' does not belong to this Graph!')
            map_arg(node.args, lambda arg: check_arg(arg, node))
            map_arg(node.kwargs, lambda arg: check_arg(arg, node))
            seen_values.add(node)
            if node.name in seen_names:
                raise RuntimeError(f'Node redefined name {node.name}!')
            seen_names.add(node.name)

        if self.owning_module:
            for node in self.nodes:
                if node.op in ['get_attr', 'call_module']:
                    target_atoms = node.target.split('.')
                    m_itr = self.owning_module
                    for i, atom in enumerate(target_atoms):
                        new_m_itr = getattr(m_itr, atom, None)
                        seen_qualname = '.'.join(target_atoms[:i])
                        if new_m_itr is None:
                            raise RuntimeError(f'Node {node} target {node.target} references nonexistent attribute '
                                               f'{atom} of {seen_qualname}')
                        if (node.op == "call_module" and not isinstance(new_m_itr, torch.nn.Module)):
                            raise RuntimeError(f'Node {node} target {node.target} {atom} of {seen_qualname} does '
                                               'not reference an nn.Module')
                        m_itr = new_m_itr

    def eliminate_dead_code(self):
        """Remove nodes without users and side effects; True if the graph changed."""
        self.lint()
        changed = False
        for node in reversed(self.nodes):
            if not node.is_impure() and len(node.users) == 0:
                self.erase_node(node)
                changed = True
        return changed

    def set_codegen(self, codegen):
        self._codegen = codegen


class _Empty:
    def __repr__(self):
        return "<empty>"


_empty = _Empty()


def _placeholder(self, name, type_expr=None, default_value=_empty):
    """Insert a placeholder (a function input); default_value is its default, if any."""
    args = () if default_value is _empty else (default_value,)
    return self.create_node('placeholder', name, args=args, type_expr=type_expr)


Graph.placeholder = _placeholder


def _printed_target(target, add_global):
    """What graph code shows for the target of a call_function node: operators of
    magic_methods as operators (src/graph prints "operator.add" as `a + b`), torch callables by
    their qualified names, anything else by a global name (add_global, or the sanitized
    qualified name when no code is being generated)."""
    opname = _operator_name(target)
    if opname is not None and opname in magic_methods:
        return 'operator.' + opname
    qualified_name = _get_qualified_name(target)
    if add_global is not None:
        return add_global(qualified_name, target)
    if _is_from_torch(target) and target != torch.device:
        return qualified_name
    return _sub_illegal_chars(qualified_name)
