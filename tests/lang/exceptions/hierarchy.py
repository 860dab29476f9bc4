# The built-in exception hierarchy and catching by base class.
names = ["BaseException", "Exception", "ValueError", "TypeError", "RuntimeError", "AssertionError",
         "KeyError", "IndexError", "LookupError", "AttributeError", "NotImplementedError",
         "StopIteration", "ZeroDivisionError", "ArithmeticError", "OverflowError", "RecursionError",
         "MemoryError", "ImportError", "ModuleNotFoundError", "NameError", "UnboundLocalError",
         "UserWarning", "Warning", "DeprecationWarning", "RuntimeWarning", "KeyboardInterrupt",
         "SystemExit", "GeneratorExit", "OSError", "FileNotFoundError", "UnicodeDecodeError",
         "UnicodeError", "FloatingPointError", "SyntaxError", "IndentationError", "TabError",
         "EOFError", "SystemError", "ReferenceError", "StopAsyncIteration", "FutureWarning",
         "UnicodeEncodeError", "BufferError"]
for n in names:
    cls = eval(n) if False else __builtins__.__dict__[n] if hasattr(__builtins__, "__dict__") else __builtins__[n]
    print(n, "->", [b.__name__ for b in cls.__mro__])
for exc in (KeyError("k"), IndexError("i"), ZeroDivisionError("z"), OverflowError("o")):
    try:
        raise exc
    except LookupError:
        print("LookupError caught", repr(exc))
    except ArithmeticError:
        print("ArithmeticError caught", repr(exc))
try:
    raise KeyboardInterrupt
except Exception:
    print("not caught by Exception")
except BaseException as e:
    print("BaseException caught", type(e).__name__)
