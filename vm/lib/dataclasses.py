"""dataclasses for Ember scripts: @dataclass with fields from class annotations, defaults and
field(default=..., default_factory=..., repr=, compare=, init=), generated __init__, __repr__,
__eq__ (and ordering with order=True, __hash__ with frozen/unsafe_hash), frozen instances,
__post_init__, fields(), asdict(), astuple(), replace() and is_dataclass()."""
import copy

__all__ = ['dataclass', 'field', 'Field', 'FrozenInstanceError', 'fields', 'asdict', 'astuple',
           'replace', 'is_dataclass', 'MISSING']


class _MISSING_TYPE:
    def __repr__(self):
        return 'MISSING'


MISSING = _MISSING_TYPE()


class FrozenInstanceError(AttributeError):
    pass


class Field:
    def __init__(self, default, default_factory, init, repr, hash, compare, metadata, kw_only):
        self.name = None
        self.type = None
        self.default = default
        self.default_factory = default_factory
        self.init = init
        self.repr = repr
        self.hash = hash
        self.compare = compare
        self.metadata = {} if metadata is None else metadata
        self.kw_only = kw_only

    def __repr__(self):
        return ('Field(name=%r,type=%r,default=%r,default_factory=%r,init=%r,repr=%r,hash=%r,'
                'compare=%r,metadata=%r,kw_only=%r,_field_type=_FIELD)' % (
                    self.name, self.type, self.default, self.default_factory, self.init,
                    self.repr, self.hash, self.compare, self.metadata, self.kw_only))


def field(*, default=MISSING, default_factory=MISSING, init=True, repr=True, hash=None,
          compare=True, metadata=None, kw_only=MISSING):
    if default is not MISSING and default_factory is not MISSING:
        raise ValueError('cannot specify both default and default_factory')
    return Field(default, default_factory, init, repr, hash, compare, metadata, kw_only)


_FIELDS = '__dataclass_fields__'
_PARAMS = '__dataclass_params__'


class _DataclassParams:
    def __init__(self, init, repr, eq, order, unsafe_hash, frozen):
        self.init = init
        self.repr = repr
        self.eq = eq
        self.order = order
        self.unsafe_hash = unsafe_hash
        self.frozen = frozen


def _fields_in_init_order(flds):
    return [f for f in flds if f.init]


def _make_init(cls, flds, frozen):
    init_fields = _fields_in_init_order(flds)
    seen_default = False
    for f in init_fields:
        if f.default is not MISSING or f.default_factory is not MISSING:
            seen_default = True
        elif seen_default and not f.kw_only:
            raise TypeError(f'non-default argument {f.name!r} follows default argument')
    names = [f.name for f in init_fields]
    qualname = cls.__qualname__ + '.__init__'

    def __init__(self, *args, **kwargs):
        positional = [f for f in init_fields if not f.kw_only]
        if len(args) > len(positional):
            nreq = len([f for f in positional if f.default is MISSING and f.default_factory is MISSING])
            takes = (f'{len(positional) + 1}' if nreq == len(positional) else
                     f'from {nreq + 1} to {len(positional) + 1}')
            raise TypeError(f'{qualname}() takes {takes} positional arguments '
                            f'but {len(args) + 1} were given')
        values = {}
        for f, v in zip(positional, args):
            values[f.name] = v
        for k, v in kwargs.items():
            if k not in names:
                raise TypeError(f"{qualname}() got an unexpected keyword argument '{k}'")
            if k in values:
                raise TypeError(f"{qualname}() got multiple values for argument '{k}'")
            values[k] = v
        missing = [f.name for f in init_fields
                   if f.name not in values and f.default is MISSING and f.default_factory is MISSING]
        if missing:
            if len(missing) == 1:
                raise TypeError(f"{qualname}() missing 1 required positional argument: '{missing[0]}'")
            quoted = [f"'{m}'" for m in missing]
            text = quoted[0] + ' and ' + quoted[1] if len(quoted) == 2 else \
                ', '.join(quoted[:-1]) + ', and ' + quoted[-1]
            raise TypeError(f'{qualname}() missing {len(missing)} required positional arguments: {text}')
        for f in flds:
            if f.init and f.name in values:
                v = values[f.name]
            elif f.default_factory is not MISSING:
                v = f.default_factory()
            elif f.default is not MISSING:
                v = f.default
            else:
                continue
            if frozen:
                object.__setattr__(self, f.name, v)
            else:
                setattr(self, f.name, v)
        post = getattr(self, '__post_init__', None)
        if post is not None:
            post()
    __init__.__qualname__ = qualname
    return __init__


def _make_repr(cls, flds):
    shown = [f for f in flds if f.repr]

    def __repr__(self):
        return self.__class__.__qualname__ + '(' + ', '.join(
            f'{f.name}={getattr(self, f.name)!r}' for f in shown) + ')'
    __repr__.__qualname__ = cls.__qualname__ + '.__repr__'
    return __repr__


def _tuple_of(self, flds):
    return tuple(getattr(self, f.name) for f in flds if f.compare)


def _make_cmp(cls, flds, op):
    def cmp(self, other):
        if other.__class__ is self.__class__:
            a, b = _tuple_of(self, flds), _tuple_of(other, flds)
            if op == '==':
                return a == b
            if op == '<':
                return a < b
            if op == '<=':
                return a <= b
            if op == '>':
                return a > b
            return a >= b
        return NotImplemented
    return cmp


def _process_class(cls, init, repr, eq, order, unsafe_hash, frozen):
    class_hash = cls.__dict__.get('__hash__', MISSING)
    has_explicit_hash = not (class_hash is MISSING or (class_hash is None and '__eq__' in cls.__dict__))
    flds = []
    for b in cls.__mro__[-1:0:-1]:
        base_fields = getattr(b, _FIELDS, None)
        if base_fields is not None:
            for f in base_fields.values():
                flds = [x for x in flds if x.name != f.name]
                flds.append(f)
    annotations = cls.__dict__.get('__annotations__', {})
    for name, tp in annotations.items():
        default = cls.__dict__.get(name, MISSING)
        if isinstance(default, Field):
            f = default
        else:
            f = field(default=default)
        f.name = name
        f.type = tp
        if f.kw_only is MISSING:
            f.kw_only = False
        if isinstance(f.default, (list, dict, set)):
            raise ValueError(f'mutable default {type(f.default)} for field {name} is not allowed: '
                             'use default_factory')
        flds = [x for x in flds if x.name != name]
        flds.append(f)
        if isinstance(default, Field):
            if f.default is MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, f.default)
    setattr(cls, _FIELDS, {f.name: f for f in flds})
    setattr(cls, _PARAMS, _DataclassParams(init, repr, eq, order, unsafe_hash, frozen))
    if init:
        cls.__init__ = _make_init(cls, flds, frozen)
    if repr:
        cls.__repr__ = _make_repr(cls, flds)
    if eq:
        cls.__eq__ = _make_cmp(cls, flds, '==')
    if order:
        if not eq:
            raise ValueError('eq must be true if order is true')
        cls.__lt__ = _make_cmp(cls, flds, '<')
        cls.__le__ = _make_cmp(cls, flds, '<=')
        cls.__gt__ = _make_cmp(cls, flds, '>')
        cls.__ge__ = _make_cmp(cls, flds, '>=')
    if frozen:
        def __setattr__(self, name, value):
            raise FrozenInstanceError(f"cannot assign to field '{name}'")

        def __delattr__(self, name):
            raise FrozenInstanceError(f"cannot delete field '{name}'")
        cls.__setattr__ = __setattr__
        cls.__delattr__ = __delattr__
    # CPython's _hash_action table
    if unsafe_hash and has_explicit_hash:
        raise TypeError(f'Cannot overwrite attribute __hash__ in class {cls.__name__}')
    if unsafe_hash or (eq and frozen and not has_explicit_hash):
        hashed = [f for f in flds if (f.compare if f.hash is None else f.hash)]
        cls.__hash__ = lambda self: hash(tuple(getattr(self, f.name) for f in hashed))
    elif eq and not frozen and not has_explicit_hash:
        cls.__hash__ = None
    if '__match_args__' not in cls.__dict__:
        cls.__match_args__ = tuple(f.name for f in flds if f.init and not f.kw_only)
    return cls


def dataclass(cls=None, /, *, init=True, repr=True, eq=True, order=False, unsafe_hash=False,
              frozen=False, match_args=True, kw_only=False, slots=False, weakref_slot=False):
    def wrap(cls):
        return _process_class(cls, init, repr, eq, order, unsafe_hash, frozen)
    if cls is None:
        return wrap
    return wrap(cls)


def fields(class_or_instance):
    try:
        flds = getattr(class_or_instance, _FIELDS)
    except AttributeError:
        raise TypeError('must be called with a dataclass type or instance') from None
    return tuple(flds.values())


def is_dataclass(obj):
    cls = obj if isinstance(obj, type) else type(obj)
    return hasattr(cls, _FIELDS)


def asdict(obj, *, dict_factory=dict):
    if not is_dataclass(obj) or isinstance(obj, type):
        raise TypeError('asdict() should be called on dataclass instances')
    return _asdict_inner(obj, dict_factory)


def _asdict_inner(obj, dict_factory):
    if is_dataclass(obj) and not isinstance(obj, type):
        return dict_factory([(f.name, _asdict_inner(getattr(obj, f.name), dict_factory)) for f in fields(obj)])
    if isinstance(obj, tuple) and hasattr(obj, '_fields'):
        return type(obj)(*[_asdict_inner(v, dict_factory) for v in obj])
    if isinstance(obj, (list, tuple)):
        return type(obj)(_asdict_inner(v, dict_factory) for v in obj)
    if isinstance(obj, dict):
        return type(obj)((_asdict_inner(k, dict_factory), _asdict_inner(v, dict_factory))
                         for k, v in obj.items())
    return copy.deepcopy(obj)


def astuple(obj, *, tuple_factory=tuple):
    if not is_dataclass(obj) or isinstance(obj, type):
        raise TypeError('astuple() should be called on dataclass instances')
    return _astuple_inner(obj, tuple_factory)


def _astuple_inner(obj, tuple_factory):
    if is_dataclass(obj) and not isinstance(obj, type):
        return tuple_factory([_astuple_inner(getattr(obj, f.name), tuple_factory) for f in fields(obj)])
    if isinstance(obj, (list, tuple)):
        return type(obj)(_astuple_inner(v, tuple_factory) for v in obj)
    if isinstance(obj, dict):
        return type(obj)((_astuple_inner(k, tuple_factory), _astuple_inner(v, tuple_factory))
                         for k, v in obj.items())
    return copy.deepcopy(obj)


def replace(obj, /, **changes):
    if not is_dataclass(obj) or isinstance(obj, type):
        raise TypeError('replace() should be called on dataclass instances')
    for f in fields(obj):
        if not f.init:
            if f.name in changes:
                raise ValueError(f'field {f.name} is declared with init=False, it cannot be '
                                 'specified with replace()')
            continue
        if f.name not in changes:
            changes[f.name] = getattr(obj, f.name)
    return obj.__class__(**changes)
