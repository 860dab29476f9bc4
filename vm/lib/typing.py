"""typing for Ember scripts: the names import and mean nothing (annotations are not checked);
NamedTuple and TypedDict work as bases (PEP 560 __mro_entries__) and as functions."""
import _ember


def _type_repr(obj):
    """repr of a typing argument as CPython's typing._type_repr writes it."""
    if isinstance(obj, type):
        if obj.__module__ == 'builtins':
            return obj.__qualname__
        return f'{obj.__module__}.{obj.__qualname__}'
    if obj is ...:
        return '...'
    if obj is None or obj is type(None):
        return 'None'
    if isinstance(obj, list):
        return '[' + ', '.join(_type_repr(a) for a in obj) + ']'
    if isinstance(obj, str):
        return f'ForwardRef({obj!r})'
    if type(obj).__name__ == 'function':
        return obj.__name__
    return repr(obj)


class _Anything:
    """Stands for any typing construct: subscriptable (keeping CPython's repr), callable, usable
    as a base."""

    def __init__(self, name, args=None):
        self._name = name
        self._args = args

    def __getitem__(self, item):
        args = item if isinstance(item, tuple) else (item,)
        if self._name == 'Optional':
            return _Anything('Optional', (args[0],))
        if self._name == 'Union':
            flat = []
            for a in args:
                a = type(None) if a is None else a
                if a not in flat:
                    flat.append(a)
            if len(flat) == 2 and type(None) in flat:
                return _Anything('Optional', tuple(a for a in flat if a is not type(None)))
            return _Anything('Union', tuple(flat))
        return _Anything(self._name, args)

    def __call__(self, *args, **kwargs):
        if args:
            return args[0]
        return None

    def __eq__(self, other):
        return isinstance(other, _Anything) and (self._name, self._args) == (other._name, other._args)

    def __hash__(self):
        return hash(self._name)

    def __repr__(self):
        if self._args is None:
            return "typing." + self._name
        return "typing." + self._name + "[" + ", ".join(_type_repr(a) for a in self._args) + "]"


Any = _Anything("Any")
Optional = _Anything("Optional")
Union = _Anything("Union")
List = _Anything("List")
Dict = _Anything("Dict")
Tuple = _Anything("Tuple")
Set = _Anything("Set")
FrozenSet = _Anything("FrozenSet")
Callable = _Anything("Callable")
Iterable = _Anything("Iterable")
Iterator = _Anything("Iterator")
Sequence = _Anything("Sequence")
Mapping = _Anything("Mapping")
MutableMapping = _Anything("MutableMapping")
Type = _Anything("Type")
Generator = _Anything("Generator")
ClassVar = _Anything("ClassVar")
Final = _Anything("Final")
Literal = _Anything("Literal")
NoReturn = _Anything("NoReturn")
TYPE_CHECKING = False


def TypeVar(name, *constraints, **kwargs):
    return _Anything(name)


def cast(typ, value):
    return value


def overload(func):
    return func


def no_type_check(func):
    return func


class _NamedTupleBase(tuple):
    """What `class P(NamedTuple): x: int` derives from: a tuple subclass whose
    __init_subclass__ turns the annotations into namedtuple fields."""

    def __init_subclass__(cls, **kwargs):
        import collections
        annotations = cls.__dict__.get('__annotations__', {})
        fields = list(annotations)
        defaults = []
        for name in fields:
            if name in cls.__dict__:
                defaults.append(cls.__dict__[name])
            elif defaults:
                raise TypeError(f"Non-default namedtuple field {name} cannot follow default field"
                                f"{'s' if len(defaults) > 1 else ''} {', '.join(fields[:len(defaults)])}")
        nt = collections.namedtuple(cls.__name__, fields, defaults=defaults, module=cls.__module__)
        for attr in ('__new__', '_make', '_replace', '__repr__', '_asdict', '__getnewargs__', '_fields',
                     '_field_defaults', '__match_args__') + tuple(fields):
            if attr in ('__repr__', '_asdict', '_replace') and attr in cls.__dict__:
                continue
            setattr(cls, attr, nt.__dict__[attr])
        cls.__annotations__ = dict(annotations)


def NamedTuple(typename, fields=None, /, **kwargs):
    """Typed version of collections.namedtuple: NamedTuple('P', [('x', int)]) or as a base class."""
    import collections
    if fields is None:
        fields = kwargs.items()
    names = [n for n, t in fields]
    nt = collections.namedtuple(typename, names, module=_ember.caller(1)[2].get('__name__', '__main__'))
    nt.__annotations__ = dict(fields)
    return nt


NamedTuple.__mro_entries__ = lambda bases: (_NamedTupleBase,)


class _TypedDictBase(dict):
    pass


def TypedDict(typename, fields=None, /, *, total=True, **kwargs):
    if fields is None:
        fields = kwargs
    return type(typename, (dict,), {'__annotations__': dict(fields), '__total__': total})


TypedDict.__mro_entries__ = lambda bases: (_TypedDictBase,)


class Protocol:
    pass


class Generic:
    def __class_getitem__(cls, item):
        return cls
