"""torch.autograd.functional: vjp, jvp, vhp, hvp, jacobian and hessian of a function of tensors,
built on torch.autograd.grad as PyTorch 1.13 builds them (jvp and hvp by the double-backward
trick), with its argument checks, strict-mode errors and result nesting: a tuple of inputs /
outputs gives tuples, a single tensor gives a tensor.

jacobian(vectorize=True) computes the rows one vector-Jacobian product at a time, as
vectorize=False does (PyTorch batches the same products with vmap; the values are the same);
strategy="forward-mode" needs forward-mode AD, which Ember does not have."""
import torch

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def _as_tuple(inp, arg_name, fn_name):
    """(was it a tuple, the tensors as a tuple); a non-tensor is PyTorch's TypeError"""
    is_tuple = isinstance(inp, tuple)
    items = inp if is_tuple else (inp,)
    for i, el in enumerate(items):
        if not isinstance(el, torch.Tensor):
            where = "the value at index {}".format(i) if is_tuple else "the given {}".format(arg_name)
            raise TypeError("The {} given to {} must be either a Tensor or a tuple of Tensors but {} "
                            "has type {}.".format(arg_name, fn_name, where, type(el)))
    return is_tuple, items


def _unpack(res, outer_is_tuple, inner_is_tuple=None):
    """Undoes _as_tuple's wrapping: res is a tuple (of tuples when inner_is_tuple is given)."""
    if inner_is_tuple is not None and not inner_is_tuple:
        res = tuple(el[0] for el in res)
    return res if outer_is_tuple else res[0]


def _prepare(inputs, create_graph, need_graph):
    """Inputs the function is differentiated at: views of the caller's (create_graph, so
    gradients flow back to them) or detached copies requiring grad."""
    out = []
    for inp in inputs:
        if create_graph and inp.requires_grad:
            out.append(inp.view_as(inp))
        else:
            out.append(inp.detach().requires_grad_(need_graph))
    return tuple(out)


def _finish(results, create_graph):
    if isinstance(results[0], torch.Tensor):
        return results if create_graph else tuple(r.detach() for r in results)
    return tuple(_finish(r, create_graph) for r in results)


def _validate_v(v, other, other_is_tuple):
    if len(other) != len(v):
        if other_is_tuple:
            raise RuntimeError("v is a tuple of invalid length: should be {} but got {}."
                               .format(len(other), len(v)))
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.size() != el_other.size():
            prefix = "Entry {} in ".format(i) if len(other) > 1 else ""
            raise RuntimeError("{}v has invalid size: should be {} but got {}."
                               .format(prefix, el_other.size(), el_v.size()))


_NOT_REQUIRING = {
    "hessian": "The hessian of the user-provided function with respect to input {} is independent "
               "of the input. This is not allowed in strict mode. You should consider disabling "
               "strict mode for this function as it will return the wrong result otherwise.",
    "jacobian": "While computing the hessian, found that the jacobian of the user-provided "
                "function with respect to input {} is independent of the input. This is not "
                "allowed in strict mode. You should consider disabling strict mode for this "
                "function as it will return the wrong result otherwise.",
    "grad_inputs": "The gradient with respect to input {} is independent of the inputs of the "
                   "user-provided function. This is not allowed in strict mode.",
    "outputs": "Output {} of the user-provided function does not require gradients. The outputs "
               "must be computed in a differentiable manner from the input when running in "
               "strict mode.",
}


def _check_requires_grad(tensors, kind, strict):
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError("The output of the user-provided function is independent of input {}. "
                               "This is not allowed in strict mode.".format(i))
        if not t.requires_grad:
            raise RuntimeError(_NOT_REQUIRING[kind].format(i))


def _grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """torch.autograd.grad over the outputs that require grad (None for every input when none
    does); unused inputs give None"""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return torch.autograd.grad(tuple(o for o, _ in pairs), inputs, tuple(g for _, g in pairs),
                               allow_unused=True, create_graph=create_graph,
                               retain_graph=retain_graph)


_INDEPENDENT = {
    "back": "The output of the user-provided function is independent of input {}. This is not "
            "allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {} in the "
                  "grad_outputs when using the double backward trick to compute forward mode "
                  "gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {}. This "
                   "is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {} "
                         "in the grad_jacobian. This is not allowed in strict mode as it prevents "
                         "from using the double backward trick to replace forward mode AD.",
}


def _zeros_for_none(grads, refs, strict, create_graph, stage):
    out = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_INDEPENDENT[stage].format(i))
            g = torch.zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError("The {} of the user-provided function is independent of input {}. "
                               "This is not allowed in strict mode when create_graph=True."
                               .format(what, i))
        out.append(g)
    return tuple(out)


def _prepare_v(v, against, against_is_tuple, fn_name, create_graph, none_message):
    if v is not None:
        _, v = _as_tuple(v, "v", fn_name)
        v = _prepare(v, create_graph, need_graph=False)
        _validate_v(v, against, against_is_tuple)
    elif len(against) != 1 or against[0].nelement() != 1:
        raise RuntimeError(none_message)
    return v


_V_NONE_OUTPUT = ("The vector v can only be None if the user-provided function returns a single "
                  "Tensor with a single element.")
_V_NONE_INPUT = ("The vector v can only be None if the input to the user-provided function is a "
                 "single Tensor with a single element.")


def _run(func, inputs, fn_name, strict):
    is_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", fn_name)
    _check_requires_grad(outputs, "outputs", strict)
    return is_tuple, outputs


def _single_output(outputs, outputs_is_tuple, fn_name):
    if outputs_is_tuple or not isinstance(outputs[0], torch.Tensor):
        raise RuntimeError("The function given to {} should return a single Tensor".format(fn_name))
    if outputs[0].nelement() != 1:
        raise RuntimeError("The Tensor returned by the function given to {} should contain a single "
                           "element".format(fn_name))


def _product(outputs, outputs_is_tuple, of, wrt, v, like, res_is_tuple, create_graph, strict, stage):
    """the common end of vjp / jvp / vhp / hvp: the gradient of `of` with respect to `wrt`
    weighted by v (grad mode on only to build a graph), undefined parts zeros shaped like `like`,
    and (func's outputs, that product) unpacked as the caller's inputs were given"""
    with torch.set_grad_enabled(True) if create_graph else _nullcontext():
        res = _zeros_for_none(_grad(of, wrt, v, create_graph=create_graph), like, strict, create_graph, stage)
    return (_unpack(_finish(outputs, create_graph), outputs_is_tuple),
            _unpack(_finish(res, create_graph), res_is_tuple))


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T J): the vector-Jacobian product at inputs."""
    with torch.enable_grad():
        inputs_is_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        outputs_is_tuple, outputs = _run(func, inputs, "vjp", strict)
        v = _prepare_v(v, outputs, outputs_is_tuple, "vjp", create_graph, _V_NONE_OUTPUT)
    return _product(outputs, outputs_is_tuple, outputs, inputs, v, inputs, inputs_is_tuple, create_graph, strict,
                    "back")


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J v): the Jacobian-vector product, by the double-backward trick."""
    with torch.enable_grad():
        inputs_is_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        v = _prepare_v(v, inputs, inputs_is_tuple, "jvp", create_graph, _V_NONE_INPUT)
        outputs_is_tuple, outputs = _run(func, inputs, "jvp", strict)
        dummies = tuple(torch.zeros_like(out, requires_grad=True) for out in outputs)
        grad_inputs = _grad(outputs, inputs, dummies, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict)
    return _product(outputs, outputs_is_tuple, grad_inputs, dummies, v, outputs, outputs_is_tuple, create_graph,
                    strict, "back_trick")


class _nullcontext:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian of func at inputs: for output i and input j, a tensor of shape
    output_i.shape + input_j.shape (nested tuples when either side is a tuple)."""
    assert strategy in ("forward-mode", "reverse-mode"), (
        'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
        'function has more outputs than inputs, "forward-mode" tends to be more performant. '
        'Otherwise, prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError('torch.autograd.functional.jacobian: `create_graph=True` '
                                      'and `strategy="forward-mode"` are not supported together (yet). '
                                      'Please either set `create_graph=False` or '
                                      '`strategy="reverse-mode"`.')
        if strict:
            raise RuntimeError('torch.autograd.functional.jacobian: `strict=True` '
                               'and `strategy="forward-mode"` are not supported together (yet). '
                               'Please either set `strict=False` or '
                               '`strategy="reverse-mode"`.')
        raise NotImplementedError('torch.autograd.functional.jacobian: `strategy="forward-mode"` '
                                  'needs forward-mode AD, which Ember does not have; use '
                                  '`strategy="reverse-mode"`.')
    with torch.enable_grad():
        inputs_is_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        outputs_is_tuple, outputs = _run(func, inputs, "jacobian", strict)
        if vectorize and strict:
            raise RuntimeError('torch.autograd.functional.jacobian: `strict=True` '
                               'and `vectorized=True` are not supported together. '
                               'Please either set `strict=False` or '
                               '`vectorize=False`.')
        if vectorize:
            return _unpack(_jacobian_of_flat_outputs(outputs, inputs, create_graph),
                           outputs_is_tuple, inputs_is_tuple)
        result = []
        for i, out in enumerate(outputs):
            rows = [[] for _ in inputs]   # per input: d out[k] / d input, for each element k
            flat = out.reshape(-1)
            for k in range(out.nelement()):
                vj = _grad((flat[k],), inputs, retain_graph=True, create_graph=create_graph)
                for j, (g, inp) in enumerate(zip(vj, inputs)):
                    if g is None:
                        if strict:
                            raise RuntimeError("Output {} of the user-provided function is independent "
                                               "of input {}. This is not allowed in strict mode."
                                               .format(i, j))
                        g = torch.zeros_like(inp)
                    elif strict and create_graph and not g.requires_grad:
                        raise RuntimeError("The jacobian of the user-provided function is independent "
                                           "of input {}. This is not allowed in strict mode when "
                                           "create_graph=True.".format(i))
                    rows[j].append(g)
            result.append(tuple(torch.stack(r, dim=0).view(out.size() + inputs[j].size())
                                for j, r in enumerate(rows)))
        result = _finish(tuple(result), create_graph)
        return _unpack(result, outputs_is_tuple, inputs_is_tuple)


def _jacobian_of_flat_outputs(outputs, inputs, create_graph):
    """vectorize=True's jacobian: each row is one product with all outputs, flattened, against a
    standard basis vector (what PyTorch batches with vmap), so every input's row sums the
    contributions of every output (a zero one included: its -0.0 + 0.0 is PyTorch's 0.0)."""
    flat = tuple(o.reshape(-1) for o in outputs)
    numels = [o.numel() for o in outputs]
    rows = [[] for _ in inputs]
    for i, n in enumerate(numels):
        for k in range(n):
            basis = [torch.zeros_like(f) for f in flat]
            basis[i][k] = 1
            vj = _grad(flat, inputs, tuple(basis), retain_graph=True, create_graph=create_graph)
            for j, g in enumerate(vj):
                rows[j].append(g if g is not None else torch.zeros_like(inputs[j]))
    per_input = []
    for j, inp in enumerate(inputs):
        full = torch.stack(rows[j], dim=0)
        per_input.append([part.view(out.shape + inp.shape)
                          for part, out in zip(full.split(numels, dim=0), outputs)])
    return _finish(tuple(zip(*per_input)), create_graph)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar function: the jacobian of its jacobian."""
    inputs_is_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    assert outer_jacobian_strategy in ("forward-mode", "reverse-mode"), (
        'Expected strategy to be either "forward-mode" or "reverse-mode".')

    def scalar_func(*inp):
        out = func(*inp)
        out_is_tuple, outs = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(outs, "outputs", strict)
        _single_output(outs, out_is_tuple or not isinstance(out, torch.Tensor), "hessian")
        return out.squeeze()

    def jac_func(*inp):
        if outer_jacobian_strategy == "forward-mode":
            inp = tuple(t.requires_grad_(True) for t in inp)
        jac = jacobian(scalar_func, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize,
                   strategy=outer_jacobian_strategy)
    return _unpack(res, inputs_is_tuple, inputs_is_tuple)


def _scalar_jacobian(func, inputs, v, create_graph, strict, fn_name):
    """vhp's and hvp's common start (under enable_grad): the prepared inputs and v, the scalar
    output and its gradient with a graph."""
    inputs_is_tuple, inputs = _as_tuple(inputs, "inputs", fn_name)
    inputs = _prepare(inputs, create_graph, need_graph=True)
    v = _prepare_v(v, inputs, inputs_is_tuple, fn_name, create_graph, _V_NONE_INPUT)
    outputs_is_tuple, outputs = _run(func, inputs, fn_name, strict)
    _single_output(outputs, outputs_is_tuple, fn_name)
    jac = _grad(outputs, inputs, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict)
    return inputs_is_tuple, inputs, v, outputs_is_tuple, outputs, jac


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T H): the vector-Hessian product of a scalar function."""
    with torch.enable_grad():
        inputs_is_tuple, inputs, v, outputs_is_tuple, outputs, jac = _scalar_jacobian(
            func, inputs, v, create_graph, strict, "vhp")
    return _product(outputs, outputs_is_tuple, jac, inputs, v, inputs, inputs_is_tuple, create_graph, strict,
                    "double_back")


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), H v): the Hessian-vector product, by the double-backward trick."""
    with torch.enable_grad():
        inputs_is_tuple, inputs, v, outputs_is_tuple, outputs, jac = _scalar_jacobian(
            func, inputs, v, create_graph, strict, "hvp")
        dummies = tuple(torch.zeros_like(inp, requires_grad=True) for inp in inputs)
        double_back = _grad(jac, inputs, dummies, create_graph=True)
        _check_requires_grad(jac, "hessian", strict)
    return _product(outputs, outputs_is_tuple, double_back, dummies, v, inputs, inputs_is_tuple, create_graph,
                    strict, "double_back_trick")
