"""Helper of module_getattr.py: a module with a PEP 562 __getattr__."""
loaded = []


def __getattr__(name):
    if name == "answer":
        loaded.append(name)
        return 42
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
