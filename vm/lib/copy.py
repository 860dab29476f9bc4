"""copy for Ember scripts: shallow copy() and deepcopy() with memo, honouring __copy__,
__deepcopy__ and __reduce_ex__-free reconstruction of plain instances (their __dict__)."""

__all__ = ["Error", "copy", "deepcopy"]


class Error(Exception):
    pass


error = Error

_atomic = (type(None), int, float, bool, str, bytes, type, range, type(len), type(Ellipsis),
           type(NotImplemented), type(lambda: 0), property)


def _is_atomic(x):
    cls = type(x)
    return cls in _atomic or isinstance(x, type) or (cls.__name__ == 'code')


def copy(x):
    """Shallow copy operation on arbitrary Python objects."""
    cls = type(x)
    if _is_atomic(x) or cls is tuple or cls is frozenset:
        return x
    if cls is list:
        return x[:]
    if cls is dict:
        return dict(x)
    if cls is set:
        return set(x)
    copier = getattr(cls, "__copy__", None)
    if copier is not None:
        return copier(x)
    return _reconstruct(x, None)


def _reconstruct(x, memo):
    cls = type(x)
    deep = memo is not None
    if isinstance(x, list):
        y = cls.__new__(cls)
        if deep:
            memo[id(x)] = y
        y.extend(deepcopy(v, memo) for v in x) if deep else y.extend(x)
    elif isinstance(x, dict):
        y = cls.__new__(cls)
        if hasattr(x, "default_factory"):
            y.default_factory = x.default_factory
        if deep:
            memo[id(x)] = y
        for k, v in x.items():
            if deep:
                y[deepcopy(k, memo)] = deepcopy(v, memo)
            else:
                y[k] = v
    elif isinstance(x, tuple):
        args = x.__getnewargs__() if hasattr(x, "__getnewargs__") else (tuple(x),)
        if deep:
            args = deepcopy(args, memo)
        y = cls.__new__(cls, *args)
        if deep:
            memo[id(x)] = y
    elif isinstance(x, set):
        y = cls.__new__(cls)
        if deep:
            memo[id(x)] = y
        for v in x:
            y.add(deepcopy(v, memo) if deep else v)
    elif isinstance(x, BaseException):
        y = cls.__new__(cls, *(deepcopy(x.args, memo) if deep else x.args))
        if deep:
            memo[id(x)] = y
    else:
        y = object.__new__(cls)
        if deep:
            memo[id(x)] = y
    state = getattr(x, "__dict__", None)
    if state:
        if deep:
            state = deepcopy(state, memo)
        if hasattr(y, "__setstate__"):
            y.__setstate__(state)
        else:
            y.__dict__.update(state)
    return y


def deepcopy(x, memo=None, _nil=[]):
    """Deep copy operation on arbitrary Python objects."""
    if memo is None:
        memo = {}
    d = id(x)
    y = memo.get(d, _nil)
    if y is not _nil:
        return y
    cls = type(x)
    if _is_atomic(x):
        y = x
    elif cls is list:
        y = []
        memo[d] = y
        for a in x:
            y.append(deepcopy(a, memo))
    elif cls is tuple:
        y = [deepcopy(a, memo) for a in x]
        try:
            return memo[d]
        except KeyError:
            pass
        for k, j in zip(x, y):
            if k is not j:
                y = tuple(y)
                break
        else:
            y = x
    elif cls is dict:
        y = {}
        memo[d] = y
        for key, value in x.items():
            y[deepcopy(key, memo)] = deepcopy(value, memo)
    elif cls is set or cls is frozenset:
        y = cls(deepcopy(a, memo) for a in x)
    else:
        copier = getattr(x, "__deepcopy__", None)
        if copier is not None:
            y = copier(memo)
        else:
            y = _reconstruct(x, memo)
    if y is not x:
        memo[d] = y
        _keep_alive(x, memo)
    return y


def _keep_alive(x, memo):
    try:
        memo[id(memo)].append(x)
    except KeyError:
        memo[id(memo)] = [x]
