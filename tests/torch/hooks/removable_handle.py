# torch.utils.hooks.RemovableHandle on plain dicts (how modules and library code use it).
import torch
from torch.utils.hooks import RemovableHandle


class HookDict(dict):
    """A dict that can be weakly referenced, as the handle requires (torch uses OrderedDict)."""


hooks = HookDict()
h1 = RemovableHandle(hooks)
hooks[h1.id] = "first"
h2 = RemovableHandle(hooks)
hooks[h2.id] = "second"
print(h2.id - h1.id, list(hooks.values()))
h1.remove()
print(list(hooks.values()))
h1.remove()
h3 = RemovableHandle(hooks)
hooks[h3.id] = "third"
with h3:
    print(sorted(hooks.values()))
print(sorted(hooks.values()))
print(isinstance(torch.ones(1, requires_grad=True).register_hook(lambda g: None), RemovableHandle))
print(torch.utils.hooks.RemovableHandle is RemovableHandle)
