"""torch._utils: the functions checkpoints name.  torch.save pickles a tensor as a call of
_rebuild_tensor_v2 (a parameter: _rebuild_parameter) on its storage and geometry, so these
names, their arguments and what they build are part of PyTorch's file format."""
import torch


def _rebuild_tensor(storage, storage_offset, size, stride):
    # a tensor of the storage's dtype pointed at the storage: tensors that shared a storage when
    # saved share the one storage torch.load made for its record
    t = torch.tensor([], dtype=storage.dtype, device=storage.untyped().device)
    return t.set_(storage.untyped(), storage_offset, size, stride)


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks):
    tensor = _rebuild_tensor(storage, storage_offset, size, stride)
    tensor.requires_grad = requires_grad
    # kept for files that still carry hooks; PyTorch writes an empty OrderedDict
    tensor._backward_hooks = backward_hooks
    return tensor


def _rebuild_parameter(data, requires_grad, backward_hooks):
    param = torch.nn.Parameter(data, requires_grad)
    param._backward_hooks = backward_hooks
    return param


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    param = torch.nn.Parameter(data, requires_grad)
    param._backward_hooks = backward_hooks
    for k, v in state.items():
        setattr(param, k, v)
    return param


def _rebuild_sparse_tensor(layout, data):
    raise NotImplementedError("loading sparse tensors: Ember's tensors are dense")


def _rebuild_sparse_csr_tensor(layout, data):
    raise NotImplementedError("loading sparse CSR tensors: Ember's tensors are dense")


def _rebuild_meta_tensor_no_storage(dtype, size, stride, requires_grad):
    raise NotImplementedError("loading meta tensors: Ember has no meta device")


def _rebuild_qtensor(storage, storage_offset, size, stride, quantizer_params, requires_grad, backward_hooks):
    raise NotImplementedError("loading quantized tensors: Ember has no quantized dtypes")


def _rebuild_device_tensor_from_numpy(data, dtype, device, requires_grad):
    raise NotImplementedError("loading tensors saved from numpy arrays (xla/ort devices)")


def _validate_loaded_sparse_tensors():
    # PyTorch checks the sparse tensors a load made; Ember's loads make none
    pass


def _import_dotted_name(name):
    components = name.split(".")
    obj = __import__(components[0])
    for component in components[1:]:
        obj = getattr(obj, component)
    return obj


def _element_size(dtype):
    """Returns the element size for a dtype, in bytes"""
    if not isinstance(dtype, torch.dtype):
        raise RuntimeError(f"expected torch.dtype, but got {type(dtype)}")
    if dtype.is_floating_point:
        return torch.finfo(dtype).bits >> 3
    elif dtype == torch.bool:
        return 1
    else:
        return torch.iinfo(dtype).bits >> 3


class _ClassPropertyDescriptor:
    def __init__(self, fget, fset=None):
        self.fget = fget

    def __get__(self, instance, owner=None):
        if owner is None:
            owner = type(instance)
        return self.fget.__get__(instance, owner)()


def classproperty(func):
    if not isinstance(func, (classmethod, staticmethod)):
        func = classmethod(func)
    return _ClassPropertyDescriptor(func)
