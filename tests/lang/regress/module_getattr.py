# PEP 562: a module-level __getattr__(name) answers attribute lookups the module's namespace
# misses (Ember raised AttributeError without calling it; torch uses it to import torch.fx lazily).
import _lazy_attrs

print(_lazy_attrs.answer)
print(getattr(_lazy_attrs, "answer"), hasattr(_lazy_attrs, "answer"))
from _lazy_attrs import answer
print(answer, _lazy_attrs.loaded)
print(hasattr(_lazy_attrs, "missing"))
try:
    _lazy_attrs.missing
except AttributeError as e:
    print("AttributeError:", e)
try:
    from _lazy_attrs import nothing
except ImportError as e:
    print("ImportError:", e)
print(_lazy_attrs.loaded)
