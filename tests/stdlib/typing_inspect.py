# inspect, dataclasses, typing, enum, abc as model code uses them: signatures, members, source,
# dataclass generation, NamedTuple/TypedDict/get_type_hints/Optional, Enum/IntEnum/Flag.
import inspect, dataclasses, typing, enum, abc
from typing import Optional, List, Dict, Tuple, Union, Any, Callable, NamedTuple, TypedDict


def train(model, data, *, lr: float = 3e-4, epochs: int = 10, device: Optional[str] = None, **kw) -> dict:
    """Train the model."""
    return {}


class Block:
    """A transformer block."""
    n_head = 4

    def __init__(self, n_embd: int, dropout: float = 0.0):
        self.n_embd = n_embd

    def forward(self, x, mask=None):
        return x

    @property
    def size(self):
        return self.n_embd

    @staticmethod
    def make():
        return Block(8)

    @classmethod
    def create(cls, n):
        return cls(n)


sig = inspect.signature(train)
print(sig, list(sig.parameters), sig.parameters["lr"].default, sig.parameters["lr"].kind, sig.return_annotation)
print(inspect.signature(Block), inspect.signature(Block.forward), inspect.signature(Block().forward if False else Block(1).forward))
b = sig.bind(1, 2, lr=0.1, extra=3)
b.apply_defaults()
print(b.arguments)
print([n for n, _ in inspect.getmembers(Block) if not n.startswith("__")])
print([n for n, _ in inspect.getmembers(Block, inspect.isfunction)])
print(inspect.isclass(Block), inspect.isfunction(train), inspect.ismethod(Block(1).forward), inspect.getdoc(Block))
print(inspect.getsource(Block.forward), end="")
print(inspect.getsourcelines(train)[1], inspect.getmodule(train).__name__, inspect.getfile(train))
print(inspect.cleandoc("  a\n    b\n  c"), inspect.isabstract(abc.ABC))


@dataclasses.dataclass
class GPTConfig:
    block_size: int = 1024
    vocab_size: int = 50304
    n_layer: int = 12
    dropout: float = 0.0
    bias: bool = True
    tags: List[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass(frozen=True, order=True)
class Version:
    major: int
    minor: int = 0


c = GPTConfig(n_layer=6)
print(c, dataclasses.asdict(c), dataclasses.astuple(Version(1, 2)), [f.name for f in dataclasses.fields(c)])
print(dataclasses.replace(c, dropout=0.1), Version(1, 2) < Version(1, 3), hash(Version(1)) == hash(Version(1)))
try:
    Version(1).major = 2
except dataclasses.FrozenInstanceError as e:
    print("FrozenInstanceError", e)
print(GPTConfig.__init__.__doc__, inspect.signature(GPTConfig))


class Batch(NamedTuple):
    x: List[int]
    y: Optional[int] = None


class Movie(TypedDict, total=False):
    title: str
    year: int


bt = Batch([1, 2])
print(bt, bt._asdict(), Batch._fields, Batch.__annotations__, Movie(title="A"), sorted(Movie.__optional_keys__))
print(typing.get_type_hints(train), typing.get_type_hints(Batch))
print(Optional[int], Union[int, str], List[Dict[str, Tuple[int, ...]]], Callable[[int], str], typing.get_origin(List[int]), typing.get_args(Dict[str, int]))
T = typing.TypeVar("T")


class Box(typing.Generic[T]):
    def __init__(self, v: T):
        self.v = v


print(Box[int], Box(3).v, typing.cast(int, "x"), typing.TYPE_CHECKING)


class Color(enum.Enum):
    RED = 1
    GREEN = 2


class Mode(enum.IntEnum):
    TRAIN = 0
    EVAL = 1


class Perm(enum.Flag):
    R = enum.auto()
    W = enum.auto()
    X = enum.auto()


print(Color.RED, repr(Color.GREEN), Color(2), Color["RED"], list(Color), Color.RED.name, Color.RED.value)
print(Mode.EVAL + 1, Mode(0), Perm.R | Perm.W, Perm.R in (Perm.R | Perm.X), [m.name for m in Perm])
try:
    Color(5)
except ValueError as e:
    print("ValueError", e)


class Base(abc.ABC):
    @abc.abstractmethod
    def step(self): ...


try:
    Base()
except TypeError as e:
    print("TypeError", e)


class Impl(Base):
    def step(self):
        return 1


print(Impl().step(), isinstance(Impl(), Base), issubclass(dict, typing.Mapping), isinstance([], typing.Sequence))
