"""Back-port, for recording these tests' expected output with the PyTorch 1.13 oracle, of the
torch 2.x nn.Module hook API that 1.13 lacks: register_forward_pre_hook(prepend, with_kwargs),
register_forward_hook(prepend, with_kwargs, always_call), register_full_backward_pre_hook,
register_full_backward_hook(prepend), register_module_full_backward_pre_hook, and the 2.x
Module._call_impl / torch.utils.hooks.BackwardHook that run them (ported from PyTorch 2.x's
torch/nn/modules/module.py and torch/utils/hooks.py, running on 1.13's real autograd engine).

Under Ember (and torch >= 2.0) the API exists and this module changes nothing.  The golden
runner skips files whose name starts with "_"."""
import torch
import torch.nn as nn

if not hasattr(nn.Module, "register_full_backward_pre_hook"):
    import warnings
    import torch.nn.modules.module as _mm
    import weakref
    from collections import OrderedDict

    class RemovableHandle:
        """2.x RemovableHandle (extra_dict: dicts the id is also removed from)."""
        next_id = 0

        def __init__(self, hooks_dict, *, extra_dict=None):
            import torch.utils.hooks as _h
            self.hooks_dict_ref = weakref.ref(hooks_dict)
            self.id = _h.RemovableHandle.next_id      # one id sequence with 1.13's handles
            _h.RemovableHandle.next_id += 1
            self.extra_dict_ref = ()
            if isinstance(extra_dict, dict):
                self.extra_dict_ref = (weakref.ref(extra_dict),)
            elif isinstance(extra_dict, list):
                self.extra_dict_ref = tuple(weakref.ref(d) for d in extra_dict)

        def remove(self):
            hooks_dict = self.hooks_dict_ref()
            if hooks_dict is not None and self.id in hooks_dict:
                del hooks_dict[self.id]
            for ref in self.extra_dict_ref:
                extra_dict = ref()
                if extra_dict is not None and self.id in extra_dict:
                    del extra_dict[self.id]

        def __enter__(self):
            return self

        def __exit__(self, type, value, tb):
            self.remove()

    _mm._global_backward_pre_hooks = OrderedDict()

    def _d(self, name):
        d = self.__dict__.get(name)
        if d is None:
            d = OrderedDict()
            object.__setattr__(self, name, d)
        return d

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        handle = RemovableHandle(self._forward_pre_hooks, extra_dict=_d(self, "_forward_pre_hooks_with_kwargs"))
        self._forward_pre_hooks[handle.id] = hook
        if with_kwargs:
            _d(self, "_forward_pre_hooks_with_kwargs")[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        handle = RemovableHandle(self._forward_hooks, extra_dict=[_d(self, "_forward_hooks_with_kwargs"),
                                                                  _d(self, "_forward_hooks_always_called")])
        self._forward_hooks[handle.id] = hook
        if with_kwargs:
            _d(self, "_forward_hooks_with_kwargs")[handle.id] = True
        if always_call:
            _d(self, "_forward_hooks_always_called")[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_pre_hook(self, hook, prepend=False):
        d = _d(self, "_backward_pre_hooks")
        handle = RemovableHandle(d)
        d[handle.id] = hook
        if prepend:
            d.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_hook(self, hook, prepend=False):
        if self._is_full_backward_hook is False:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a "
                               "single Module. Please use only one of them.")
        self._is_full_backward_hook = True
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_module_full_backward_pre_hook(hook):
        handle = RemovableHandle(_mm._global_backward_pre_hooks)
        _mm._global_backward_pre_hooks[handle.id] = hook
        return handle

    class BackwardHook:
        def __init__(self, module, user_hooks, user_pre_hooks):
            self.user_hooks = user_hooks
            self.user_pre_hooks = user_pre_hooks
            self.module = module
            self.grad_outputs = None
            self.n_outputs = -1
            self.output_tensors_index = None
            self.n_inputs = -1
            self.input_tensors_index = None

        def _pack_with_none(self, indices, values, size):
            res = [None] * size
            for idx, val in zip(indices, values):
                res[idx] = val
            return tuple(res)

        def _unpack_none(self, indices, values):
            return tuple(values[idx] for idx in indices)

        def _set_user_hook(self, grad_fn):
            def hook(grad_input, _):
                if self.grad_outputs is None:
                    return
                res = self._pack_with_none(self.input_tensors_index, grad_input, self.n_inputs)
                for h in self.user_hooks:
                    out = h(self.module, res, self.grad_outputs)
                    if out is None:
                        continue
                    if len(out) != len(res):
                        raise RuntimeError("Backward hook returned an invalid number of grad_input, "
                                           f"got {len(out)}, but expected {len(res)}")
                    res = out
                self.grad_outputs = None
                return self._unpack_none(self.input_tensors_index, res)
            grad_fn.register_hook(hook)

        def _apply_on_tensors(self, fn, args):
            tensors_idx = []
            tensors = []
            requires_grad = False
            for i, arg in enumerate(args):
                if isinstance(arg, torch.Tensor):
                    tensors_idx.append(i)
                    tensors.append(arg)
                    requires_grad |= arg.requires_grad
            if not (requires_grad and torch.is_grad_enabled()):
                return args, None
            new_tensors = torch.nn.modules._functions.BackwardHookFunction.apply(*tensors)
            if len(new_tensors) == 0:
                raise RuntimeError("Cannot set Module backward hook for a Module with no input Tensors.")
            grad_fns = [t.grad_fn for t in new_tensors
                        if t.grad_fn is not None and t.grad_fn.name() == "BackwardHookFunctionBackward"]
            if len(grad_fns) == 0:
                raise RuntimeError("Error while setting up backward hooks. Please open "
                                   "an issue with a code sample to reproduce this.")
            fn(grad_fns[0])
            arg_list = list(args)
            for idx, val in zip(tensors_idx, new_tensors):
                arg_list[idx] = val
            return tuple(arg_list), tensors_idx

        def setup_input_hook(self, args):
            def fn(grad_fn):
                self._set_user_hook(grad_fn)
            res, input_idx = self._apply_on_tensors(fn, args)
            self.n_inputs = len(args)
            self.input_tensors_index = input_idx
            return res

        def setup_output_hook(self, args):
            def fn(grad_fn):
                def hook(_, grad_output):
                    self.grad_outputs = self._pack_with_none(self.output_tensors_index, grad_output,
                                                             self.n_outputs)
                    if self.user_pre_hooks:
                        expected_len = len(self.grad_outputs)
                        for user_pre_hook in self.user_pre_hooks:
                            hook_grad_outputs = user_pre_hook(self.module, self.grad_outputs)
                            if hook_grad_outputs is None:
                                continue
                            actual_len = len(hook_grad_outputs)
                            if actual_len != expected_len:
                                raise RuntimeError("Backward pre hook returned an invalid number of grad_output, "
                                                   f"got {actual_len}, but expected {expected_len}")
                            self.grad_outputs = hook_grad_outputs
                    local_grad_outputs = self.grad_outputs
                    if self.input_tensors_index is None:
                        warnings.warn("Full backward hook is firing when gradients are computed with respect to "
                                      "module outputs since no inputs require gradients. See "
                                      "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                                      "#torch.nn.Module.register_full_backward_hook for more details.",
                                      stacklevel=5)
                        grad_inputs = self._pack_with_none([], [], self.n_inputs)
                        for user_hook in self.user_hooks:
                            res = user_hook(self.module, grad_inputs, self.grad_outputs)
                            if res is not None and not (isinstance(res, tuple) and all(el is None for el in res)):
                                raise RuntimeError("Backward hook for Modules where no input requires "
                                                   "gradient should always return None or None for all gradients.")
                        self.grad_outputs = None
                    if local_grad_outputs is not None:
                        return tuple(local_grad_outputs[i] for i in self.output_tensors_index)
                grad_fn.register_hook(hook)
            is_tuple = True
            if not isinstance(args, tuple):
                args = (args,)
                is_tuple = False
            res, output_idx = self._apply_on_tensors(fn, args)
            self.n_outputs = len(args)
            self.output_tensors_index = output_idx
            if not is_tuple:
                res = res[0]
            return res

    def _call_impl(self, *args, **kwargs):
        forward_call = self.forward
        fpk = _d(self, "_forward_pre_hooks_with_kwargs")
        fk = _d(self, "_forward_hooks_with_kwargs")
        fa = _d(self, "_forward_hooks_always_called")
        bpre = _d(self, "_backward_pre_hooks")
        if not (self._backward_hooks or bpre or self._forward_hooks or self._forward_pre_hooks
                or _mm._global_backward_pre_hooks or _mm._global_backward_hooks
                or _mm._global_forward_hooks or _mm._global_forward_pre_hooks):
            return forward_call(*args, **kwargs)
        result = None
        called_always_called_hooks = set()
        try:
            full_backward_hooks = []
            backward_pre_hooks = []
            if bpre or _mm._global_backward_pre_hooks:
                backward_pre_hooks = list(_mm._global_backward_pre_hooks.values()) + list(bpre.values())
            if self._backward_hooks or _mm._global_backward_hooks:
                if _mm._global_is_full_backward_hook is True:
                    full_backward_hooks += _mm._global_backward_hooks.values()
                if self._is_full_backward_hook is True:
                    full_backward_hooks += self._backward_hooks.values()
            if _mm._global_forward_pre_hooks or self._forward_pre_hooks:
                for hook_id, hook in (*_mm._global_forward_pre_hooks.items(), *self._forward_pre_hooks.items()):
                    if hook_id in fpk:
                        args_kwargs_result = hook(self, args, kwargs)
                        if args_kwargs_result is not None:
                            if isinstance(args_kwargs_result, tuple) and len(args_kwargs_result) == 2:
                                args, kwargs = args_kwargs_result
                            else:
                                raise RuntimeError("forward pre-hook must return None or a tuple "
                                                   f"of (new_args, new_kwargs), but got {args_kwargs_result}.")
                    else:
                        args_result = hook(self, args)
                        if args_result is not None:
                            if not isinstance(args_result, tuple):
                                args_result = (args_result,)
                            args = args_result
            bw_hook = None
            if full_backward_hooks or backward_pre_hooks:
                bw_hook = BackwardHook(self, full_backward_hooks, backward_pre_hooks)
                args = bw_hook.setup_input_hook(args)
            result = forward_call(*args, **kwargs)
            if _mm._global_forward_hooks or self._forward_hooks:
                for hook_id, hook in (*_mm._global_forward_hooks.items(), *self._forward_hooks.items()):
                    if hook_id in fa:
                        called_always_called_hooks.add(hook_id)
                    if hook_id in fk:
                        hook_result = hook(self, args, kwargs, result)
                    else:
                        hook_result = hook(self, args, result)
                    if hook_result is not None:
                        result = hook_result
            if bw_hook:
                if not isinstance(result, (torch.Tensor, tuple)):
                    warnings.warn("For backward hooks to be called,"
                                  " module output should be a Tensor or a tuple of Tensors"
                                  f" but received {type(result)}")
                result = bw_hook.setup_output_hook(result)
            return result
        except Exception:
            for hook_id, hook in self._forward_hooks.items():
                if hook_id in fa and hook_id not in called_always_called_hooks:
                    try:
                        if hook_id in fk:
                            hook_result = hook(self, args, kwargs, result)
                        else:
                            hook_result = hook(self, args, result)
                        if hook_result is not None:
                            result = hook_result
                    except Exception as e:
                        warnings.warn("module forward hook with ``always_call=True`` raised an exception "
                                      f"that was silenced as another error was raised in forward: {str(e)}")
                        continue
            raise

    nn.Module.register_forward_pre_hook = register_forward_pre_hook
    nn.Module.register_forward_hook = register_forward_hook
    nn.Module.register_full_backward_pre_hook = register_full_backward_pre_hook
    nn.Module.register_full_backward_hook = register_full_backward_hook
    nn.Module.__call__ = _call_impl
    _mm.register_module_full_backward_pre_hook = register_module_full_backward_pre_hook
