"""functools for Ember scripts: partial, reduce, wraps/update_wrapper, lru_cache/cache,
cached_property, total_ordering and cmp_to_key, with CPython's behaviour and reprs."""

WRAPPER_ASSIGNMENTS = ('__module__', '__name__', '__qualname__', '__doc__', '__annotations__')
WRAPPER_UPDATES = ('__dict__',)

_initial_missing = object()


def update_wrapper(wrapper, wrapped, assigned=WRAPPER_ASSIGNMENTS, updated=WRAPPER_UPDATES):
    for attr in assigned:
        try:
            value = getattr(wrapped, attr)
        except AttributeError:
            pass
        else:
            setattr(wrapper, attr, value)
    for attr in updated:
        getattr(wrapper, attr).update(getattr(wrapped, attr, {}))
    wrapper.__wrapped__ = wrapped
    return wrapper


def wraps(wrapped, assigned=WRAPPER_ASSIGNMENTS, updated=WRAPPER_UPDATES):
    return partial(update_wrapper, wrapped=wrapped, assigned=assigned, updated=updated)


def reduce(function, sequence, initial=_initial_missing):
    it = iter(sequence)
    if initial is _initial_missing:
        try:
            value = next(it)
        except StopIteration:
            raise TypeError("reduce() of empty iterable with no initial value") from None
    else:
        value = initial
    for element in it:
        value = function(value, element)
    return value


class partial:
    """New function with partial application of the given arguments and keywords."""

    def __new__(cls, func, /, *args, **keywords):
        if not callable(func):
            raise TypeError("the first argument must be callable")
        if isinstance(func, partial):
            args = func.args + args
            keywords = {**func.keywords, **keywords}
            func = func.func
        self = object.__new__(cls)
        self.func = func
        self.args = args
        self.keywords = keywords
        return self

    def __call__(self, /, *args, **keywords):
        keywords = {**self.keywords, **keywords}
        return self.func(*self.args, *args, **keywords)

    def __repr__(self):
        args = [repr(self.func)]
        args.extend(repr(x) for x in self.args)
        args.extend(f"{k}={v!r}" for (k, v) in self.keywords.items())
        # the C type's name is "functools.partial"; a subclass shows its bare name
        name = "functools.partial" if type(self) is partial else type(self).__name__
        return f"{name}({', '.join(args)})"


class partialmethod:
    """A partial for methods: binds self like a function does."""

    def __init__(self, func, /, *args, **keywords):
        self.func = func
        self.args = args
        self.keywords = keywords

    def __get__(self, obj, cls=None):
        if obj is None:
            return self
        return partial(self.func, obj, *self.args, **self.keywords)


def cmp_to_key(mycmp):
    class K(object):
        __slots__ = ['obj']

        def __init__(self, obj):
            self.obj = obj

        def __lt__(self, other):
            return mycmp(self.obj, other.obj) < 0

        def __gt__(self, other):
            return mycmp(self.obj, other.obj) > 0

        def __eq__(self, other):
            return mycmp(self.obj, other.obj) == 0

        def __le__(self, other):
            return mycmp(self.obj, other.obj) <= 0

        def __ge__(self, other):
            return mycmp(self.obj, other.obj) >= 0

        __hash__ = None
    return K


def total_ordering(cls):
    """Fill in the missing rich comparisons from one of __lt__, __le__, __gt__, __ge__."""
    def defined(name):
        return getattr(cls, name, None) is not getattr(object, name, None)

    roots = [op for op in ('__lt__', '__le__', '__gt__', '__ge__') if defined(op)]
    if not roots:
        raise ValueError('must define at least one ordering operation: < > <= >=')
    root = roots[0]

    def from_lt():
        def gt(self, other):
            r = type(self).__lt__(self, other)
            return r if r is NotImplemented else (not r and self != other)

        def le(self, other):
            r = type(self).__lt__(self, other)
            return r if r is NotImplemented else (r or self == other)

        def ge(self, other):
            r = type(self).__lt__(self, other)
            return r if r is NotImplemented else not r
        return {'__gt__': gt, '__le__': le, '__ge__': ge}

    def from_le():
        def ge(self, other):
            r = type(self).__le__(self, other)
            return r if r is NotImplemented else (not r or self == other)

        def lt(self, other):
            r = type(self).__le__(self, other)
            return r if r is NotImplemented else (r and self != other)

        def gt(self, other):
            r = type(self).__le__(self, other)
            return r if r is NotImplemented else not r
        return {'__ge__': ge, '__lt__': lt, '__gt__': gt}

    def from_gt():
        def lt(self, other):
            r = type(self).__gt__(self, other)
            return r if r is NotImplemented else (not r and self != other)

        def ge(self, other):
            r = type(self).__gt__(self, other)
            return r if r is NotImplemented else (r or self == other)

        def le(self, other):
            r = type(self).__gt__(self, other)
            return r if r is NotImplemented else not r
        return {'__lt__': lt, '__ge__': ge, '__le__': le}

    def from_ge():
        def le(self, other):
            r = type(self).__ge__(self, other)
            return r if r is NotImplemented else (not r or self == other)

        def gt(self, other):
            r = type(self).__ge__(self, other)
            return r if r is NotImplemented else (r and self != other)

        def lt(self, other):
            r = type(self).__ge__(self, other)
            return r if r is NotImplemented else not r
        return {'__le__': le, '__gt__': gt, '__lt__': lt}

    makers = {'__lt__': from_lt, '__le__': from_le, '__gt__': from_gt, '__ge__': from_ge}
    for name, fn in makers[root]().items():
        if name not in roots:
            fn.__name__ = name
            setattr(cls, name, fn)
    return cls


class _CacheInfo(tuple):
    def __new__(cls, hits, misses, maxsize, currsize):
        return tuple.__new__(cls, (hits, misses, maxsize, currsize))

    hits = property(lambda self: self[0])
    misses = property(lambda self: self[1])
    maxsize = property(lambda self: self[2])
    currsize = property(lambda self: self[3])

    def __repr__(self):
        return "CacheInfo(hits=%r, misses=%r, maxsize=%r, currsize=%r)" % tuple(self)


class _kwd_mark:
    pass


def _make_key(args, kwds, typed):
    key = args
    if kwds:
        key += (_kwd_mark,)
        for item in kwds.items():
            key += item
    if typed:
        key += tuple(type(v) for v in args)
        if kwds:
            key += tuple(type(v) for v in kwds.values())
    elif len(key) == 1 and type(key[0]) in (int, str):
        return key[0]
    return key


def lru_cache(maxsize=128, typed=False):
    """Memoize a function; the least recently used entry goes once maxsize is reached."""
    if isinstance(maxsize, int):
        if maxsize < 0:
            maxsize = 0
    elif callable(maxsize) and isinstance(typed, bool):
        user_function, maxsize = maxsize, 128
        return _lru_cache_wrapper(user_function, maxsize, typed)
    elif maxsize is not None:
        raise TypeError('Expected first argument to be an integer, a callable, or None')

    def decorating_function(user_function):
        return _lru_cache_wrapper(user_function, maxsize, typed)
    return decorating_function


def _lru_cache_wrapper(user_function, maxsize, typed):
    cache = {}
    stats = [0, 0]   # hits, misses

    def wrapper(*args, **kwds):
        key = _make_key(args, kwds, typed)
        if key in cache:
            stats[0] += 1
            result = cache.pop(key)
            cache[key] = result   # most recently used goes last
            return result
        stats[1] += 1
        result = user_function(*args, **kwds)
        if maxsize != 0:
            cache[key] = result
            if maxsize is not None and len(cache) > maxsize:
                del cache[next(iter(cache))]
        return result

    def cache_info():
        return _CacheInfo(stats[0], stats[1], maxsize, len(cache))

    def cache_clear():
        cache.clear()
        stats[0] = stats[1] = 0

    wrapper.cache_info = cache_info
    wrapper.cache_clear = cache_clear
    wrapper.cache_parameters = lambda: {'maxsize': maxsize, 'typed': typed}
    return update_wrapper(wrapper, user_function)


def cache(user_function):
    return lru_cache(maxsize=None)(user_function)


_NOT_FOUND = object()


class cached_property:
    def __init__(self, func):
        self.func = func
        self.attrname = None
        self.__doc__ = func.__doc__

    def __set_name__(self, owner, name):
        if self.attrname is None:
            self.attrname = name
        elif name != self.attrname:
            raise TypeError("Cannot assign the same cached_property to two different names "
                            f"({self.attrname!r} and {name!r}).")

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        if self.attrname is None:
            raise TypeError("Cannot use cached_property instance without calling __set_name__ on it.")
        cache = instance.__dict__
        val = cache.get(self.attrname, _NOT_FOUND)
        if val is _NOT_FOUND:
            val = self.func(instance)
            cache[self.attrname] = val
        return val


def singledispatch(func):
    registry = {object: func}

    def dispatch(cls):
        for c in cls.__mro__:
            if c in registry:
                return registry[c]
        return func

    def register(cls, f=None):
        if f is None:
            if isinstance(cls, type):
                return lambda f: register(cls, f)
            f = cls
            cls = next(iter(f.__annotations__.values()))
        registry[cls] = f
        return f

    def wrapper(*args, **kw):
        return dispatch(args[0].__class__)(*args, **kw)

    wrapper.register = register
    wrapper.dispatch = dispatch
    wrapper.registry = registry
    update_wrapper(wrapper, func)
    return wrapper


# The C implementations replace the definitions above, as in CPython's functools.py.
# partial stays the Python class here for now: the tracer inlines it in compiled regions
# (tests/trace/counts/no_breaks.py) and does not yet know the C _functools.partial.
try:
    from _functools import reduce, cmp_to_key
except ImportError:
    pass

try:
    from _functools import _lru_cache_wrapper as _c_lru_cache_wrapper

    def _lru_cache_wrapper(user_function, maxsize, typed):
        wrapper = _c_lru_cache_wrapper(user_function, maxsize, typed, _CacheInfo)
        wrapper.cache_parameters = lambda: {'maxsize': maxsize, 'typed': typed}
        return update_wrapper(wrapper, user_function)
except ImportError:
    pass
