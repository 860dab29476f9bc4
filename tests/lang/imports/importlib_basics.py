# __import__ and importlib basics: import_module (absolute and relative), reload, util.find_spec,
# module attributes (__spec__, __loader__, __name__), sys.modules caching, invalidate_caches.
import importlib, importlib.util, sys, os, tempfile

m = __import__("json")
print(m.__name__, m is sys.modules["json"])
top = __import__("os.path")
print(top.__name__, hasattr(top, "path"))
leaf = __import__("os.path", fromlist=["join"])
print(leaf.__name__ in ("posixpath", "os.path"), leaf is os.path)
print(__import__("collections.abc", fromlist=["Mapping"]).Mapping.__name__)

print(importlib.import_module("string").ascii_lowercase[:5])
print(importlib.import_module(".decoder", "json").__name__)
print(importlib.util.find_spec("textwrap").name, importlib.util.find_spec("no_such_module_xyz"))
try:
    importlib.import_module("no_such_module_xyz")
except ModuleNotFoundError as e:
    print("ModuleNotFoundError", e.name, e)
try:
    importlib.import_module(".x", None)
except TypeError as e:
    print("TypeError", e)

with tempfile.TemporaryDirectory() as d:
    sys.path.insert(0, d)
    p = os.path.join(d, "reloadme_mod.py")
    with open(p, "w") as f:
        f.write("VALUE = 1\n")
    importlib.invalidate_caches()
    mod = importlib.import_module("reloadme_mod")
    print(mod.VALUE, mod.__spec__.name, type(mod.__loader__).__name__, os.path.basename(mod.__file__))
    with open(p, "w") as f:
        f.write("VALUE = 2  # changed, with a different size\n")
    st = os.stat(p)
    os.utime(p, (st.st_atime, st.st_mtime + 5))
    mod2 = importlib.reload(mod)
    print(mod2 is mod, mod.VALUE)
    os.makedirs(os.path.join(d, "pkgx", "sub"))
    for rel, text in (("pkgx/__init__.py", "from . import sub\nNAME = 'pkgx'\n"),
                      ("pkgx/sub/__init__.py", "from .leaf import f\n"),
                      ("pkgx/sub/leaf.py", "def f():\n    return __name__, __package__\n")):
        with open(os.path.join(d, rel), "w") as f:
            f.write(text)
    importlib.invalidate_caches()
    pk = importlib.import_module("pkgx")
    print(pk.NAME, pk.sub.f(), importlib.import_module("pkgx.sub.leaf").__package__)
    print(importlib.import_module("..leaf", "pkgx.sub.leaf").__name__)
    spec = importlib.util.spec_from_file_location("loose_mod", os.path.join(d, "reloadme_mod.py"))
    lm = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(lm)
    print(lm.__name__, lm.VALUE, "loose_mod" in sys.modules)
    sys.path.remove(d)
    for k in ("reloadme_mod", "pkgx", "pkgx.sub", "pkgx.sub.leaf"):
        sys.modules.pop(k, None)
