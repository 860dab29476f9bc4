# raise ... from ...: both tracebacks, joined by the "direct cause" line.
def load(key):
    return {"a": 1}[key]
def lookup(key):
    try:
        return load(key)
    except KeyError as e:
        raise ValueError(f"no setting {key!r}") from e
lookup("b")
