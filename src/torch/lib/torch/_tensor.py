"""torch._tensor: the Tensor methods whose one definition is Python (as in PyTorch's
torch/_tensor.py): pickling (__reduce_ex__ writes PyTorch's _rebuild_tensor_v2 call on the
tensor's storage and geometry, which torch.save turns into a storage record), __setstate__,
storage() and storage_type().  src/torch/storage.c installs them on the native Tensor type."""
from collections import OrderedDict

import copyreg
import torch
from torch._C import Tensor


def _rebuild_from_type_v2(func, new_type, args, state):
    if new_type is Tensor:
        return func(*args)
    ret = func(*args)
    if type(ret) is not new_type:
        ret = ret.as_subclass(new_type)
    # Tensor defines __setstate__ without __getstate__: a subclass's own __setstate__ gets the
    # state, otherwise its attributes are set one by one
    if getattr(ret.__class__, "__setstate__", Tensor.__setstate__) is not Tensor.__setstate__:
        ret.__setstate__(state)
    else:
        if isinstance(state, tuple):
            if not len(state) == 2:
                raise RuntimeError(f"Invalid serialized state: {state}")
            dict_state, slots_state = state
        else:
            dict_state, slots_state = state, None
        for k, v in (dict_state or {}).items():
            setattr(ret, k, v)
        if slots_state:
            for k, v in slots_state.items():
                setattr(ret, k, v)
    return ret


def _reduce_ex_internal(self, proto):
    backward_hooks = OrderedDict()   # hooks are never serialized (PyTorch's note)
    args = (
        torch.storage.TypedStorage(wrap_storage=self.storage().untyped(), dtype=self.dtype),
        self.storage_offset(),
        tuple(self.size()),
        self.stride(),
        self.requires_grad,
        backward_hooks,
    )
    return (torch._utils._rebuild_tensor_v2, args)


def _reduce_ex(self, proto):
    if type(self) is Tensor:
        return _reduce_ex_internal(self, proto)
    func, args = _reduce_ex_internal(self, proto)
    getstate_fn = getattr(self, "__getstate__", None)
    if getstate_fn:
        state = getstate_fn()
    else:
        slots_to_save = copyreg._slotnames(self.__class__)
        if slots_to_save:
            state = (self.__dict__, {name: getattr(self, name) for name in slots_to_save if hasattr(self, name)})
        else:
            state = self.__dict__
    return (_rebuild_from_type_v2, (func, type(self), args, state))


def _setstate(self, state):
    # not what torch.load calls (that is _rebuild_tensor_v2): the legacy pickles of tensors
    if not self.is_leaf:
        raise RuntimeError("__setstate__ can be only called on leaf Tensors")
    if len(state) == 4:
        self.set_(*state)
        return
    elif len(state) == 5:
        self.data = state[0]
        state = (state[3], state[4], state[2])
    self.requires_grad, _, self._backward_hooks = state


def storage(self):
    """storage() -> torch.TypedStorage: the tensor's whole storage, typed by its dtype"""
    return torch.storage.TypedStorage(wrap_storage=self._storage(), dtype=self.dtype)


def storage_type(self):
    return self.storage()._get_legacy_storage_class()


def is_shared(self):
    return self.storage().is_shared()


def share_memory_(self):
    """Moves the tensor's storage to shared memory (a no-op if it is already there): processes
    forked afterwards see each other's in-place updates.  Returns self."""
    self._storage().share_memory_()
    return self
