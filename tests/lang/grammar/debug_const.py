# __debug__ is True (a constant the compiler folds, also in builtins); binding it is a SyntaxError.
import builtins
print(__debug__, type(__debug__).__name__, builtins.__debug__)
def f():
    return __debug__
print(f(), f.__code__.co_names)
if __debug__:
    print("debug branch")
for src in ("__debug__ = 1", "del __debug__", "def g(__debug__): pass", "f(__debug__=1)",
            "class C: __debug__ = 2", "x.__debug__ = 1", "import os as __debug__", "for __debug__ in (): pass"):
    try:
        compile(src, "<s>", "exec")
        print(repr(src), "compiled")
    except SyntaxError as e:
        print(repr(src), "SyntaxError", e.msg)
print(eval("__debug__"), eval(compile("__debug__", "<e>", "eval", optimize=1)))
