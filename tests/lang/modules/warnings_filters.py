# warnings filters: simplefilter/filterwarnings actions (error, ignore, always, once, module),
# message and category matching, resetwarnings, catch_warnings(record=True) with WarningMessage.
import warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    warnings.warn("first")
    warnings.warn("second", RuntimeWarning)
    for _ in range(2):
        warnings.warn("repeated")
print(len(caught), [str(w.message) for w in caught], [w.category.__name__ for w in caught])
w = caught[0]
print(type(w).__name__, w.filename, w.lineno, type(w.message).__name__, w.line, w.file)
print(str(w))
with warnings.catch_warnings():
    warnings.simplefilter("error")
    try:
        warnings.warn("now an error", UserWarning)
    except UserWarning as e:
        print("raised:", repr(e))
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    warnings.warn("silenced")
with warnings.catch_warnings(record=True) as log:
    warnings.simplefilter("ignore")
    warnings.filterwarnings("always", message="keep")
    warnings.warn("drop this")
    warnings.warn("KEEP this one")
    warnings.filterwarnings("error", category=DeprecationWarning)
    try:
        warnings.warn("dep", DeprecationWarning)
    except DeprecationWarning:
        print("DeprecationWarning raised")
print([str(x.message) for x in log])
with warnings.catch_warnings(record=True) as log:
    warnings.simplefilter("once")
    for i in range(3):
        warnings.warn("once only")
    warnings.warn("once only")
print(len(log))
with warnings.catch_warnings(record=True) as log:
    warnings.resetwarnings()
    warnings.warn("after reset")
print(len(log), warnings.filters[:1] == [] or True)
print(len(warnings.filters) > 0, warnings.defaultaction)
with warnings.catch_warnings(record=True) as log:
    warnings.simplefilter("always")
    warnings.warn(RuntimeWarning("instance with its own category"))
    warnings.warn("by module", category=FutureWarning)
print([(x.category.__name__, str(x.message)) for x in log])
try:
    warnings.warn("bad", category=int)
except TypeError as e:
    print("TypeError:", e)
