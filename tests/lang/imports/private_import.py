# Inside a class, import statements mangle like CPython 3.11: `import __private` imports the
# module `_Loader__private` and binds `_Loader__private`; `from m import __secret` fetches
# `_Loader__secret`; a dotted module path is never mangled, nor are the submodules that
# `import a.__b as c` walks, but the names bound are.
import sys
class Loader:
    import __private
    from __private import __secret, plain as __plain
    import __privpkg.__hidden
    import __privpkg.__hidden as __h
    def show(self):
        return (self.__private.__name__, self.__secret, self.__plain, self.__privpkg.__name__,
                self.__h.LEVEL)
print(Loader().show())
print(sorted(k for k in vars(Loader) if k.startswith("_Loader")))
print("_Loader__private" in sys.modules, "__private" in sys.modules, "__privpkg.__hidden" in sys.modules)
class Other:
    try:
        import __private
    except ImportError as e:       # imports the module `_Other__private`, which does not exist
        print(type(e).__name__, e)
    try:
        from _Loader__private import __secret
    except ImportError as e:       # fetches `_Other__secret`
        print(type(e).__name__, str(e).split(" (")[0])
    from _Loader__private import plain as __renamed
print(sorted(k for k in vars(Other) if k.startswith("_Other")))
