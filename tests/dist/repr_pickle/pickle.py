"""A stand-in for CPython's pickle, for tests only (tests/dist/run_objects.sh): dumps is repr
encoded as UTF-8 and loads evaluates it back, enough for the literals objects.py sends.  It lets
the object collectives' transport (sizes, padding, broadcast and scatter of the bytes) be checked
against PyTorch's output while Ember cannot import CPython's pickle yet."""


def dumps(obj, protocol=None):
    return repr(obj).encode("utf-8")


def loads(data):
    return eval(data.decode("utf-8"), {"__builtins__": {}})
