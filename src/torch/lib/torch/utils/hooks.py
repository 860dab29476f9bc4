"""torch.utils.hooks: RemovableHandle, the handle every hook registration returns."""
from _weakref import ref as _weakref_ref   # the weakref module is a stdlib library module; this needs only ref
import torch._C as _C


class RemovableHandle:
    """A handle which provides the capability to remove a hook.

    Args:
        hooks_dict (dict): A dictionary of hooks, indexed by hook ``id``.
        extra_dict (Union[dict, List[dict]]): An additional dictionary or list of
            dictionaries whose keys will be deleted when the same keys are
            removed from ``hooks_dict``.
    """

    next_id = 0
    _engine_hook = None   # set on handles of hooks the autograd engine holds (tensor and node hooks)

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
        if self._engine_hook is not None:
            _C._remove_hook(self._engine_hook)
        hooks_dict = self.hooks_dict_ref()
        if hooks_dict is not None and self.id in hooks_dict:
            del hooks_dict[self.id]
        for ref in self.extra_dict_ref:
            extra_dict = ref()
            if extra_dict is not None and self.id in extra_dict:
                del extra_dict[self.id]

    def __getstate__(self):
        if self.extra_dict_ref is None:
            return (self.hooks_dict_ref(), self.id)
        return (self.hooks_dict_ref(), self.id, tuple(ref() for ref in self.extra_dict_ref))

    def __enter__(self):
        return self

    def __exit__(self, type, value, tb):
        self.remove()


def _no_dict():
    return None


def _engine_hook_handle(hook):
    """The handle of a hook the autograd engine holds (tensor hooks, node hooks and pre-hooks,
    post-accumulate-grad hooks): a RemovableHandle whose remove() unregisters it."""
    handle = RemovableHandle.__new__(RemovableHandle)
    handle.hooks_dict_ref = _no_dict
    handle.id = RemovableHandle.next_id
    RemovableHandle.next_id += 1
    handle.extra_dict_ref = ()
    handle._engine_hook = hook
    return handle


_C._set_hook_handle_factory(_engine_hook_handle)
