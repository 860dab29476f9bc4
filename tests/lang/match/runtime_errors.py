# The match statement's run-time errors, as CPython 3.11 raises them.

def attempt(label, fn):
    try:
        print(label, fn())
    except (TypeError, ValueError) as e:
        print(label, type(e).__name__ + ":", e)


def not_a_type(x):
    match x:
        case len():
            return "matched"


class ListArgs:
    __match_args__ = ["a"]


class IntArgs:
    __match_args__ = (1,)

    def __init__(self):
        self.a = 1


class OneArg:
    __match_args__ = ("a",)

    def __init__(self):
        self.a = 1
        self.b = 2


def use(cls, x):
    match x:
        case cls(1):
            return "one positional"


def too_many(x):
    match x:
        case OneArg(1, 2):
            return "two positional"


def repeated(x):
    match x:
        case OneArg(1, a=1):
            return "a twice"


def int_two(x):
    match x:
        case int(1, 2):
            return "int(1, 2)"


class DupKeys(dict):
    pass


def keys_from_attrs(x):
    match x:
        case {Keys.A: 1, Keys.B: 2}:
            return "matched"


class Keys:
    A = "k"
    B = "k"


attempt("not a type", lambda: not_a_type(5))
attempt("list __match_args__", lambda: use(ListArgs, ListArgs()))
attempt("non-str __match_args__", lambda: use(IntArgs, IntArgs()))
attempt("too many", lambda: too_many(OneArg()))
attempt("repeated attribute", lambda: repeated(OneArg()))
attempt("int(1, 2)", lambda: int_two(1))
attempt("duplicate keys at run time", lambda: keys_from_attrs({"k": 1}))
attempt("subject not matched", lambda: not_a_type([]) if False else "skipped")
