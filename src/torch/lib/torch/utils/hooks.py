"""torch.utils.hooks: RemovableHandle, the handle module hooks and multi-grad hooks return."""
from _weakref import ref as _weakref_ref   # the weakref module is a stdlib library module; this needs only ref


class RemovableHandle:
    """A handle that removes a hook from the dict(s) it was registered in."""

    next_id = 0

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = _weakref_ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        self.extra_dict_ref = ()
        if isinstance(extra_dict, dict):
            self.extra_dict_ref = (_weakref_ref(extra_dict),)
        elif isinstance(extra_dict, list):
            self.extra_dict_ref = tuple(_weakref_ref(d) for d in extra_dict)

    def remove(self):
        hooks_dict = self.hooks_dict_ref()
        if hooks_dict is not None and self.id in hooks_dict:
            del hooks_dict[self.id]
        for ref in self.extra_dict_ref:
            extra = ref()
            if extra is not None and self.id in extra:
                del extra[self.id]

    def __enter__(self):
        return self

    def __exit__(self, type, value, tb):
        self.remove()
