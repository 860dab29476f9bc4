# raise, raise X from Y, raise from None, bare re-raise, raising classes vs instances.
def show(e):
    print(type(e).__name__, repr(e), "cause:", repr(e.__cause__), "context:", repr(e.__context__),
          "suppress:", e.__suppress_context__)
try:
    raise ValueError
except ValueError as e:
    show(e)
try:
    try:
        1 / 0
    except ZeroDivisionError as z:
        raise RuntimeError("wrapped") from z
except RuntimeError as e:
    show(e)
try:
    try:
        1 / 0
    except ZeroDivisionError:
        raise RuntimeError("hidden") from None
except RuntimeError as e:
    show(e)
try:
    try:
        raise KeyError("again")
    except KeyError:
        raise
except KeyError as e:
    show(e)
try:
    raise ValueError("a") from TypeError("cls")
except ValueError as e:
    show(e)
try:
    raise TypeError("x") from ValueError
except TypeError as e:
    show(e)
try:
    raise 42
except TypeError as e:
    print("TypeError:", e)
try:
    raise ValueError("x") from 5
except TypeError as e:
    print("TypeError:", e)
try:
    raise
except RuntimeError as e:
    print("RuntimeError:", e)
def reraise_outside():
    try:
        raise ValueError("saved")
    except ValueError as exc:
        saved = exc
    raise saved
try:
    reraise_outside()
except ValueError as e:
    print("re-raised", e)
e = ValueError("args", 1, 2)
print(e.args, str(e), repr(e), str(ValueError()), repr(ValueError()))
