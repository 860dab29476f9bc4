# Each listed exception type, raised by the operation that raises it in CPython.
import math
def show(fn):
    try:
        fn()
        print("no exception")
    except Exception as e:
        print(type(e).__name__ + ":", e)
show(lambda: int("x"))                      # ValueError
show(lambda: 1 + "x")                       # TypeError
show(lambda: [].pop())                      # IndexError
show(lambda: {}["k"])                       # KeyError
show(lambda: object().attr)                 # AttributeError
show(lambda: 1 / 0)                         # ZeroDivisionError
show(lambda: 1 // 0)
show(lambda: 1 % 0)
show(lambda: 1.0 / 0)
show(lambda: divmod(1, 0))
show(lambda: math.exp(1000))                # OverflowError
show(lambda: 2.0 ** 10000)
show(lambda: undefined_name)                # NameError
show(lambda: next(iter([])))                # StopIteration
def unbound():
    print(v)
    v = 1
show(unbound)                               # UnboundLocalError
def nie():
    raise NotImplementedError("subclass must implement")
show(nie)
def assertion():
    assert 1 == 2, "math is broken"
show(assertion)
def bare_assert():
    assert False
show(bare_assert)
show(lambda: __import__("nonexistent_mod"))  # ModuleNotFoundError
show(lambda: math.sqrt(-1))                 # ValueError: math domain error
show(lambda: "abc".index("z"))
show(lambda: chr(0x110000))
class Abstract:
    def run(self):
        raise NotImplementedError
show(Abstract().run)
def raise_runtime():
    raise RuntimeError("runtime")
show(raise_runtime)
def raise_memory():
    raise MemoryError()
show(raise_memory)
def raise_warning():
    raise UserWarning("a warning raised as an exception")
show(raise_warning)
for name in ["ValueError", "TypeError", "RuntimeError", "AssertionError", "KeyError", "IndexError",
             "AttributeError", "NotImplementedError", "StopIteration", "ZeroDivisionError", "OverflowError",
             "RecursionError", "MemoryError", "ImportError", "NameError", "UserWarning"]:
    cls = {"ValueError": ValueError, "TypeError": TypeError, "RuntimeError": RuntimeError,
           "AssertionError": AssertionError, "KeyError": KeyError, "IndexError": IndexError,
           "AttributeError": AttributeError, "NotImplementedError": NotImplementedError,
           "StopIteration": StopIteration, "ZeroDivisionError": ZeroDivisionError,
           "OverflowError": OverflowError, "RecursionError": RecursionError, "MemoryError": MemoryError,
           "ImportError": ImportError, "NameError": NameError, "UserWarning": UserWarning}[name]
    e = cls("msg")
    print(name, repr(e), str(e), e.args, isinstance(e, Exception), cls.__base__.__name__)
