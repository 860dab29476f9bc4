"""typing for Ember scripts: the names import and mean nothing (annotations are not checked)."""


class _Anything:
    """Stands for any typing construct: subscriptable, callable, usable as a base."""

    def __init__(self, name):
        self._name = name

    def __getitem__(self, item):
        return self

    def __call__(self, *args, **kwargs):
        if args:
            return args[0]
        return None

    def __repr__(self):
        return "typing." + self._name


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


class NamedTuple:
    pass


class Protocol:
    pass


class Generic:
    def __class_getitem__(cls, item):
        return cls
