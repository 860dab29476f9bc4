"""torch.fx._symbolic_trace (PyTorch 1.13): Tracer, symbolic_trace, wrap, PH.

Tracing calls the root's forward with Proxies for its inputs.  Module calls and module attribute
lookups during the trace reach Tracer.call_module and Tracer.getattr through the hooks of
Ember's C nn.Module (torch._C._nn_module._set_fx_hooks) where PyTorch patches
torch.nn.Module.__call__ and __getattr__; `forward` handed to call_module runs the module's
normal call protocol (hooks included) past the hook.  Functions registered with wrap() and the
functions of the autowrap modules (math) are patched in the globals that use them, as fx does."""
import builtins
import math
import warnings
import torch
from torch._C import _fx
from torch._C import _nn_module
from .graph import Graph
from .graph_module import GraphModule
from .node import base_types, map_aggregate
from .proxy import ParameterProxy, Proxy, TracerBase

CO_VARARGS = 0x04
CO_VARKEYWORDS = 0x08
HAS_VARSTUFF = CO_VARARGS | CO_VARKEYWORDS

_orig_module_call = _nn_module._orig_module_call

_proxyable_classes = {}

_is_fx_tracing_flag = False


def is_fx_tracing():
    return _is_fx_tracing_flag


class ProxyableClassMeta(type):
    """A metaclass whose classes' construction with Proxy arguments is recorded (a
    call_function node of the class) instead of run."""

    def __init__(cls, name, bases, attrs):
        _proxyable_classes.setdefault(cls)
        super().__init__(name, bases, attrs)

    def __call__(cls, *args, **kwargs):
        instance = cls.__new__(cls)

        found_proxies = []

        def check_proxy(a):
            if isinstance(a, Proxy):
                found_proxies.append(a)

        map_aggregate(args, check_proxy)
        map_aggregate(kwargs, check_proxy)

        if len(found_proxies) != 0:
            tracer = found_proxies[0].tracer
            return tracer.create_proxy("call_function", cls, args, kwargs)
        else:
            cls.__init__(instance, *args, **kwargs)
            return instance


class PHBase(object):
    """Object representing an input placeholder to `concrete_args`"""

    def __repr__(self):
        return "PH"


PH = PHBase()


def _unwrap(fn):
    while hasattr(fn, '__wrapped__'):
        fn = fn.__wrapped__
    return fn


class Tracer(TracerBase):
    """Tracer(autowrap_modules=(math,), autowrap_functions=())

    ``Tracer`` is the class that implements the symbolic tracing functionality
    of ``torch.fx.symbolic_trace``. A call to ``symbolic_trace(m)`` is equivalent
    to ``Tracer().trace(m)``.

    Tracer can be subclassed to override various behaviors of the tracing
    process: create_proxy, create_node, create_arg, call_module, is_leaf_module,
    getattr, to_bool, iter ...
    """

    def __init__(self, autowrap_modules=(math,), autowrap_functions=(), param_shapes_constant=False):
        super().__init__()
        # Functions we will eagerly wrap when we see them while tracing
        # this captures both `math.sqrt()` and `from math import sqrt` automatically
        self._autowrap_function_ids = set()
        for m in autowrap_modules:
            for name, value in m.__dict__.items():
                if not name.startswith("_") and callable(value):
                    self._autowrap_function_ids.add(id(value))
        for f in autowrap_functions:
            self._autowrap_function_ids.add(id(f))
        self._autowrap_search = list(autowrap_modules)
        self.param_shapes_constant = param_shapes_constant
        self.submodule_paths = None

    def create_arg(self, a):
        """How a value becomes an argument of a node: Parameters, buffers and modules of the
        root become get_attr nodes, other tensors are stored on the root as _tensor_constant<i>,
        and the rest is TracerBase.create_arg."""
        if isinstance(a, torch.nn.Parameter):
            for n, p in self.root.named_parameters():
                if a is p:
                    return self.create_node("get_attr", n, (), {})
            raise NameError("parameter is not a member of this module")
        elif isinstance(a, torch.Tensor):
            for n_, p_ in self.root.named_buffers():
                if a is p_:
                    return self.create_node("get_attr", n_, (), {})
        elif isinstance(a, torch.nn.Module):
            for n_, p_ in self.root.named_modules():
                if a is p_:
                    return self.create_node("get_attr", n_, (), {})
        # For NamedTuple instances that appear literally as args, we emit
        # a node to construct the NamedTuple and use that Node as the argument.
        if isinstance(a, tuple) and hasattr(a, "_fields"):
            args = tuple(self.create_arg(elem) for elem in a)
            return self.create_node("call_function", a.__class__, args, {})

        if isinstance(a, torch.Tensor):
            qualname = self.tensor_attrs.get(a)
            if not qualname:
                i = 0
                while True:
                    qualname = f"_tensor_constant{i}"
                    if not hasattr(self.root, qualname):
                        break
                    i += 1
                self.tensor_attrs[a] = qualname
                setattr(self.root, qualname, a)
            return self.create_node("get_attr", qualname, (), {})

        if type(a) in _proxyable_classes:
            i = 0
            while True:
                qualname = f"_{a.__class__.__name__}_constant_{i}"
                if not hasattr(self.root, qualname):
                    break
                i += 1
            setattr(self.root, qualname, a)
            return self.create_node("get_attr", qualname, (), {})

        return super().create_arg(a)

    def is_leaf_module(self, m, module_qualified_name):
        """Modules of the torch.nn namespace are leaves (one call_module node), except
        Sequential; others are traced through."""
        return (
            (m.__module__.startswith("torch.nn") or m.__module__.startswith("torch.ao.nn"))
            and not isinstance(m, torch.nn.Sequential)
        )

    def path_of_module(self, mod):
        """The qualified name of ``mod`` in the module hierarchy of ``root``."""
        if self.submodule_paths:
            path = self.submodule_paths.get(mod)
            if path is None:
                raise NameError("module is not installed as a submodule")
            assert isinstance(path, str)
            return path
        else:
            for n, p in self.root.named_modules():
                if mod is p:
                    return n
            raise NameError("module is not installed as a submodule")

    def call_module(self, m, forward, args, kwargs):
        """A call of a module: a call_module node for a leaf module, else its forward traced
        through."""
        module_qualified_name = self.path_of_module(m)
        if not self.is_leaf_module(m, module_qualified_name):
            return forward(*args, **kwargs)
        return self.create_proxy("call_module", module_qualified_name, args, kwargs)

    def getattr(self, attr, attr_val, parameter_proxy_cache):
        """A module attribute read during tracing: parameters of the root become (cached)
        get_attr proxies."""
        def maybe_get_proxy_for_attr(attr_val, collection_to_search, parameter_proxy_cache):
            for n, p in collection_to_search:
                if attr_val is p:
                    if n not in parameter_proxy_cache:
                        kwargs = {}
                        if _accepts_proxy_factory_fn(self.create_proxy):
                            kwargs["proxy_factory_fn"] = (
                                None
                                if not self.param_shapes_constant
                                else lambda node: ParameterProxy(self, node, n, attr_val)
                            )
                        val_proxy = self.create_proxy("get_attr", n, (), {}, **kwargs)
                        parameter_proxy_cache[n] = val_proxy
                    return parameter_proxy_cache[n]
            return None

        if isinstance(attr_val, torch.nn.Parameter):
            maybe_parameter_proxy = maybe_get_proxy_for_attr(
                attr_val, self.root.named_parameters(), parameter_proxy_cache)
            if maybe_parameter_proxy is not None:
                return maybe_parameter_proxy

        if self.proxy_buffer_attributes and isinstance(attr_val, torch.Tensor):
            maybe_buffer_proxy = maybe_get_proxy_for_attr(
                attr_val, self.root.named_buffers(), parameter_proxy_cache)
            if maybe_buffer_proxy is not None:
                return maybe_buffer_proxy

        return attr_val

    def create_args_for_root(self, root_fn, is_module, concrete_args=None):
        """Placeholders for the parameters of root_fn (concrete_args specialise some)."""
        fn_for_analysis = _unwrap(root_fn)
        co = fn_for_analysis.__code__
        total_args = co.co_argcount + co.co_kwonlyargcount
        orig_args = list(co.co_varnames)
        names_iter = iter(co.co_varnames)
        args = []
        skip_arg_idx = 0
        if is_module:
            if total_args == 0:
                raise RuntimeError("``self`` argument cannot be part of *args expansion!")
            skip_arg_idx = 1
            next(names_iter)  # skip self
            args.append(self.root)

        defaults = _parameter_defaults(fn_for_analysis)
        annotations = getattr(fn_for_analysis, '__annotations__', None) or {}

        def proxy_placeholder(name):
            if concrete_args is not None and name in concrete_args:
                cnt = 0

                def replace_ph(x):
                    nonlocal cnt
                    cnt += 1
                    default = (defaults[name],) if name in defaults else ()
                    out = self.create_proxy("placeholder", f"{name}_{str(cnt)}", default, {})
                    if x == PH:
                        return out
                    if type(x) == bool or type(x) in base_types and type(x) != torch.Tensor:
                        torch._assert(out == x, f"{name} has been specialized to have value {x} but got another value")
                    elif type(x) == type(None):
                        args = (out, f"{name} has been specialized to have value None but got another value")
                        self.create_proxy("call_function", _assert_is_none, args, {})
                    else:
                        warnings.warn(
                            f"Was not able to add assertion to guarantee correct input {name} to "
                            f"specialized function. It is up to the user to make sure that your inputs match the "
                            f"inputs you specialized the function with."
                        )
                    return x

                value = concrete_args[name]
                if isinstance(value, (list, tuple, dict)):
                    raise NotImplementedError(
                        "concrete_args with containers (pytree-flattened inputs) are not supported by Ember's torch.fx")
                return replace_ph(value)
            if name[0] == "*":
                default = ()
            else:
                default = (defaults[name],) if name in defaults else ()
            return self.create_proxy("placeholder", name, default, {}, type_expr=annotations.get(name, None))

        arg_names = [next(names_iter) for idx in range(skip_arg_idx, total_args)]
        if isinstance(concrete_args, tuple):
            if len(arg_names) != len(concrete_args):
                raise RuntimeError(
                    f"Tracing expected {len(arg_names)} arguments but got {len(concrete_args)} concrete arguments")
            concrete_args = {name: val for name, val in zip(arg_names, concrete_args)}
        args.extend(proxy_placeholder(names) for names in arg_names)

        if co.co_kwonlyargcount > 0 or co.co_flags & HAS_VARSTUFF:
            raise NotImplementedError(
                "symbolic tracing of a function with keyword-only, *args or **kwargs parameters is not "
                "supported by Ember's torch.fx")
        return root_fn, args

    def trace(self, root, concrete_args=None):
        """Trace ``root`` (an nn.Module or a function) and return its Graph.  After this call
        ``self.root`` is the module traced (a new empty Module when root is a function, which
        holds the constants the trace made)."""
        global _is_fx_tracing_flag
        old_is_fx_tracing_flag = _is_fx_tracing_flag
        _is_fx_tracing_flag = True
        try:
            if isinstance(root, torch.nn.Module):
                self.root = root
                assert hasattr(type(root), self.traced_func_name), \
                    f"traced_func_name={self.traced_func_name} doesn't exist in {type(root).__name__}"
                fn = getattr(type(root), self.traced_func_name)
                self.submodule_paths = {mod: name for name, mod in root.named_modules()}
            else:
                self.root = torch.nn.Module()
                fn = root

            tracer_cls = getattr(self, "__class__", None)
            self.graph = Graph(tracer_cls=tracer_cls)

            # tensors that are plain attributes of modules of the hierarchy, by identity
            self.tensor_attrs = _IdDict()

            def collect_tensor_attrs(m, prefix_atoms):
                for k, v in m.__dict__.items():
                    if isinstance(v, torch.Tensor):
                        self.tensor_attrs[v] = ".".join(prefix_atoms + [k])
                for k, v in m.named_children():
                    collect_tensor_attrs(v, prefix_atoms + [k])

            collect_tensor_attrs(self.root, [])

            fn_globals = fn.__globals__  # run before it gets patched

            parameter_proxy_cache = {}  # Reduce number of get_attr calls

            # Method dispatch on parameters is not recorded unless it's directly used.
            # Thus, we need to insert a proxy when __getattr__ requests a parameter.
            def module_getattr_wrapper(mod, attr, attr_val):
                return self.getattr(attr, attr_val, parameter_proxy_cache)

            def module_call_wrapper(mod, args, kwargs):
                def forward(*args, **kwargs):
                    return _orig_module_call(mod, *args, **kwargs)

                _autowrap_check(patcher, getattr(getattr(mod, "forward", mod), "__globals__", {}),
                                self._autowrap_function_ids)
                return self.call_module(mod, forward, args, kwargs)

            with _Patcher() as patcher:
                # while these are set, module calls and module attribute lookups come to this
                # tracer, and the frame tracer (torch.compile) leaves frames alone
                prev_hooks = _nn_module._set_fx_hooks(module_call_wrapper, module_getattr_wrapper)
                try:
                    fn, args = self.create_args_for_root(fn, isinstance(root, torch.nn.Module), concrete_args)
                    _patch_wrapped_functions(patcher)
                    _autowrap_check(patcher, fn_globals, self._autowrap_function_ids)
                    for module in self._autowrap_search:
                        _autowrap_check(patcher, module.__dict__, self._autowrap_function_ids)
                    self.create_node(
                        "output",
                        "output",
                        (self.create_arg(fn(*args)),),
                        {},
                        type_expr=(getattr(fn, '__annotations__', None) or {}).get("return", None),
                    )
                finally:
                    _nn_module._set_fx_hooks(*prev_hooks)

            self.submodule_paths = None
        finally:
            _is_fx_tracing_flag = old_is_fx_tracing_flag
        return self.graph


class _IdDict:
    """A dict keyed by object identity (PyTorch's tensors hash by identity)."""

    def __init__(self):
        self._d = {}

    def __setitem__(self, k, v):
        self._d[id(k)] = (k, v)

    def get(self, k, default=None):
        e = self._d.get(id(k))
        return default if e is None else e[1]


def _accepts_proxy_factory_fn(fn):
    """Whether fn (a create_proxy, possibly a functools.partial of a patched one) has a
    proxy_factory_fn parameter (fx asks inspect.signature)."""
    import functools
    while isinstance(fn, functools.partial):
        fn = fn.func
    fn = getattr(fn, '__func__', fn)
    code = getattr(fn, '__code__', None)
    if code is None:
        return False
    names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    return 'proxy_factory_fn' in names


def _parameter_defaults(fn):
    """{parameter name: default} of a function."""
    co = fn.__code__
    out = {}
    defaults = getattr(fn, '__defaults__', None) or ()
    if defaults:
        pos_names = co.co_varnames[:co.co_argcount]
        for name, value in zip(pos_names[len(pos_names) - len(defaults):], defaults):
            out[name] = value
    kwdefaults = getattr(fn, '__kwdefaults__', None) or {}
    out.update(kwdefaults)
    return out


# List of pairs of (global dict, function name) functions
# to patch for the purposes of the wrap() API.
_wrapped_fns_to_patch = []

# List of methods on classes to wrap (class type, function name)
_wrapped_methods_to_patch = []


def _find_proxy(*objects_to_search):
    """Recursively search a data structure for a Proxy() and return it, None if not found."""
    proxy = None

    def find_proxy(x):
        nonlocal proxy
        if isinstance(x, Proxy):
            proxy = x

    map_aggregate(objects_to_search, find_proxy)
    return proxy


def _create_wrapped_func(orig_fn):
    def wrapped(*args, **kwargs):
        """Given an closed-over ``orig_function`` to invoke, search the args and kwargs for
        a Proxy object. If there is one, emit a ``call_function`` node to preserve the
        call to this leaf function directly. Otherwise, just return the results of
        this function call, as this function is not being traced."""
        proxy = _find_proxy(args, kwargs)
        if proxy is not None:
            return_proxy = proxy.tracer.create_proxy("call_function", orig_fn, args, kwargs)
            return_proxy.node.meta["is_wrapped"] = True
            return return_proxy
        return orig_fn(*args, **kwargs)

    wrapped.__name__ = getattr(orig_fn, '__name__', 'wrapped')
    wrapped.__qualname__ = getattr(orig_fn, '__qualname__', 'wrapped')
    wrapped.__doc__ = getattr(orig_fn, '__doc__', None)
    wrapped.__wrapped__ = orig_fn
    return wrapped


def _create_wrapped_method(cls, name):
    orig_fn = getattr(cls, name)

    def wrapped(*args, **kwargs):
        proxy = _find_proxy(args, kwargs)
        if proxy is not None:
            return proxy.tracer.create_proxy("call_method", name, args, kwargs)
        return orig_fn(*args, **kwargs)

    return wrapped


class _PatchedFn:
    def __init__(self, frame_dict, fn_name, orig_fn):
        self.frame_dict = frame_dict
        self.fn_name = fn_name
        self.orig_fn = orig_fn

    def revert(self):
        raise NotImplementedError()


class _PatchedFnSetItem(_PatchedFn):
    def revert(self):
        self.frame_dict[self.fn_name] = self.orig_fn


class _PatchedFnDel(_PatchedFn):
    def revert(self):
        del self.frame_dict[self.fn_name]


class _PatchedFnSetAttr(_PatchedFn):
    def revert(self):
        setattr(self.frame_dict, self.fn_name, self.orig_fn)


_already_patched = {}   # id(wrapper) -> (wrapper, deduplicate): fx's new_fn.__fx_already_patched


class _Patcher(object):
    def __init__(self):
        super(_Patcher, self).__init__()
        self.patches_made = []
        self.visited = set()

    def patch(self, frame_dict, name, new_fn, deduplicate=True):
        """Replace frame_dict[name] with new_fn until we exit the context manager."""
        _already_patched[id(new_fn)] = (new_fn, deduplicate)
        if name not in frame_dict and hasattr(builtins, name):
            self.patches_made.append(_PatchedFnDel(frame_dict, name, None))
        elif _is_already_patched(frame_dict[name]):
            return  # already patched, no need to do it again
        else:
            self.patches_made.append(_PatchedFnSetItem(frame_dict, name, frame_dict[name]))
        frame_dict[name] = new_fn

    def patch_method(self, cls, name, new_fn, deduplicate=True):
        """Replace object_or_dict.name with new_fn until we exit the context manager."""
        _already_patched[id(new_fn)] = (new_fn, deduplicate)
        orig_fn = getattr(cls, name)
        if _is_already_patched(orig_fn):
            return  # already patched, no need to do it again
        self.patches_made.append(_PatchedFnSetAttr(cls, name, orig_fn))
        setattr(cls, name, new_fn)

    def visit_once(self, thing):
        """Return True on the first call to with thing, otherwise false"""
        idx = id(thing)
        if idx in self.visited:
            return False
        self.visited.add(idx)
        return True

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        """Undo all the changes made via self.patch() and self.patch_method()"""
        while self.patches_made:
            # unpatch in reverse order to handle duplicates correctly
            p = self.patches_made.pop()
            p.revert()
        self.visited.clear()


def _is_already_patched(fn):
    e = _already_patched.get(id(fn))
    return e is not None and e[0] is fn and e[1]


def _patch_wrapped_functions(patcher):
    """Wrap the global functions registered with wrap() in their globals."""
    for frame_dict, name in _wrapped_fns_to_patch:
        if name not in frame_dict and hasattr(builtins, name):
            orig_fn = getattr(builtins, name)
        else:
            orig_fn = frame_dict[name]
        patcher.patch(frame_dict, name, _create_wrapped_func(orig_fn))

    for cls, name in _wrapped_methods_to_patch:
        patcher.patch_method(cls, name, _create_wrapped_method(cls, name))


def _autowrap_check(patcher, frame_dict, function_ids):
    """Wrap the functions of the autowrap modules (math.sqrt ...) found in a scope."""
    if patcher.visit_once(frame_dict):
        for name, value in list(frame_dict.items()):
            if not name.startswith("_") and callable(value) and id(value) in function_ids:
                patcher.patch(frame_dict, name, _create_wrapped_func(value))


def wrap(fn_or_name):
    """Called at module-level scope to register fn_or_name as a "leaf function": a call to it
    is recorded as a call_function node instead of being traced through.  Also a decorator."""
    if not callable(fn_or_name) and not isinstance(fn_or_name, str):
        raise RuntimeError("Unsupported type for global function! Must be either a callable or "
                           "string name")

    if callable(fn_or_name):
        assert not isinstance(fn_or_name, str)  # to make mypy happy
        fn_name = fn_or_name.__name__
    else:
        assert isinstance(fn_or_name, str), "fn_or_name must be a global function or string name"
        fn_name = fn_or_name

    caller = _fx._caller_globals()
    assert caller is not None
    f_globals, at_module_level = caller
    if not at_module_level:
        raise NotImplementedError("wrap must be called at the top level of a module")

    _wrapped_fns_to_patch.append((f_globals, fn_name))
    return fn_or_name


def symbolic_trace(root, concrete_args=None):
    """Symbolic tracing API: a ``GraphModule`` made from the operations recorded while tracing
    ``root`` (an ``nn.Module`` or a function).  ``concrete_args`` specialises some inputs (e.g.
    to remove control flow)."""
    tracer = Tracer()
    graph = tracer.trace(root, concrete_args)
    name = root.__class__.__name__ if isinstance(root, torch.nn.Module) else root.__name__
    return GraphModule(tracer.root, graph, name)


@wrap
def _assert_is_none(value, msg):
    assert value is None, msg
