"""torch functions of branch opsmath, with PyTorch 1.13's signatures, checks and messages.

Ops of the table (ember/ops.def's opsmath block) run through torch._C._mathop: cumprod, cummax,
cummin, logcumsumexp, xlogy, polygamma and the LAPACK ops behind torch.linalg.  The rest are
decompositions into traced ops, as ATen's CompositeImplicit kernels are: einsum (diagonals,
sums, then pairwise contractions lowered to permute/reshape/bmm as ATen's sumproduct_pair),
the matrix norms, torch.norm (linalg_vector_norm is one op of the table, for its backward).  Gradients of the decompositions come from the ops
they decompose into."""
import math

import torch
from torch._C import _is_compiling, _mathop, _out_call



def _inplace_source(input):
    """What an in-place decomposition (input.copy_(f(input, ...))) computes from: a clone when
    input has a history.  A node of f that saves input itself would hold the tensor whose new
    grad_fn (the copy) reaches back to that node: a cycle of reference-counted C nodes that is
    never freed (LeakSanitizer: cumprod_, multiply_, true_divide_, renorm_, xlogy_, square_,
    nn.SiLU(inplace=True), ...)."""
    return input.clone() if input.requires_grad and torch.is_grad_enabled() else input

def _outable(name):
    """out= for a Python-level torch function: with an out, f runs without it and
    torch._C._out_call writes its result into out as the out kernel `name` of
    src/torch/out_args.c's table does (autograd check, dtype rule, resize, the out returned)."""
    def wrap(f):
        def with_out(*args, out=None, **kwargs):
            if out is None:
                return f(*args, **kwargs)
            return _out_call(name, f, *args, out=out, **kwargs)
        with_out.__name__ = f.__name__
        with_out.__qualname__ = f.__qualname__
        with_out.__doc__ = f.__doc__
        with_out.__wrapped__ = f
        return with_out
    return wrap


def _is_number(v):
    return isinstance(v, (int, float, bool)) and not isinstance(v, torch.Tensor)


# ---- scans -----------------------------------------------------------------------------------------

@_outable("cumprod")
def cumprod(input, dim, *, dtype=None, out=None):
    return _mathop("CUMPROD", input, dim=dim, dtype=dtype)


@_outable("cummax")
def cummax(input, dim):
    return _mathop("CUMMAX", input, dim=dim, pair="cummax")


@_outable("cummin")
def cummin(input, dim):
    return _mathop("CUMMIN", input, dim=dim, pair="cummin")


@_outable("logcumsumexp")
def logcumsumexp(input, dim):
    return _mathop("LOGCUMSUMEXP", input, dim=dim)


# ---- special functions -----------------------------------------------------------------------------

def _wrap_number(v, like):
    # a Python number beside a tensor, as the 0-dim tensor PyTorch's wrapped number promotes like
    if isinstance(v, bool):
        return torch.tensor(v)
    if isinstance(v, float):
        return torch.tensor(v, dtype=like.dtype if like.is_floating_point() else torch.get_default_dtype())
    return torch.tensor(v, dtype=like.dtype if like.is_floating_point() else torch.int64)


@_outable("xlogy")
def xlogy(input, other, *, out=None):
    if _is_number(input) and _is_number(other):
        raise TypeError("xlogy() received an invalid combination of arguments - got (%s, %s), but expected one of:"
                        % (type(input).__name__, type(other).__name__))
    if _is_number(input):
        input = _wrap_number(input, other)
    elif _is_number(other):
        other = _wrap_number(other, input)
    return _mathop("XLOGY", input, other)


def xlogy_(input, other):
    return input.copy_(xlogy(_inplace_source(input), other))


@_outable("polygamma")
def polygamma(n, input):
    if isinstance(n, torch.Tensor):     # the method form: x.polygamma(n)
        n, input = input, n
    if not isinstance(n, int):
        raise TypeError("polygamma(): argument 'n' (position 1) must be int, not %s" % type(n).__name__)
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return _mathop("POLYGAMMA", input, scalar=n)


def polygamma_(input, n):
    return input.copy_(polygamma(n, _inplace_source(input)))


# ---- clamp with tensor bounds, std_mean / var_mean --------------------------------------------------

def _clamp_tensor(input, min=None, max=None):
    # clamp.Tensor: max(x, min) then min(., max) as wheres, so x keeps the gradient where
    # min <= x <= max and each bound gets it where it won (ATen's clamp backward)
    for v in (min, max):
        if v is not None and not isinstance(v, torch.Tensor):
            raise TypeError("clamp() received an invalid combination of arguments - got (Tensor, %s, %s), but "
                            "expected one of:" % tuple("NoneType" if b is None else "Tensor" if isinstance(b, torch.Tensor)
                                                       else type(b).__name__ for b in (min, max)))
    r = input
    if min is not None:
        r = torch.where(r < min, min, r)
    if max is not None:
        r = torch.where(r > max, max, r)
    return r


def _clamp_tensor_(input, min=None, max=None):
    return input.copy_(_clamp_tensor(_inplace_source(input), min, max))


def _var_args(input, dim, unbiased, keepdim, correction):
    kw = {"keepdim": keepdim}
    if correction is not None:
        kw["correction"] = correction
    elif unbiased is not None:
        kw["unbiased"] = unbiased
    return kw


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    kw = _var_args(input, dim, unbiased, keepdim, correction)
    return (torch.std(input, dim, **kw),
            input.mean(dim, keepdim) if dim is not None else (input.mean().reshape([1] * input.dim()) if keepdim else input.mean()))


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    kw = _var_args(input, dim, unbiased, keepdim, correction)
    return (torch.var(input, dim, **kw),
            input.mean(dim, keepdim) if dim is not None else (input.mean().reshape([1] * input.dim()) if keepdim else input.mean()))


# ---- norms -----------------------------------------------------------------------------------------

def _dims(dim):
    if dim is None:
        return None
    if isinstance(dim, int):
        return (dim,)
    return tuple(dim)


def _check_float(input, name):
    if not input.is_floating_point():
        cname = {torch.int64: "Long", torch.int32: "Int", torch.int16: "Short", torch.int8: "Char",
                 torch.uint8: "Byte", torch.bool: "Bool"}.get(input.dtype, str(input.dtype))
        raise RuntimeError("%s: Expected a floating point or complex tensor as input. Got %s" % (name, cname))


@_outable("linalg.vector_norm")
def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    return _vector_norm(x, ord, dim, keepdim, dtype, "VECTOR_NORM")


def _vector_norm(x, ord, dim, keepdim, dtype, op):
    # op: VECTOR_NORM (linalg_vector_norm) or NORM (torch.norm's aten::norm, its 1.13 node name)
    _check_float(x, "linalg.vector_norm")
    if dtype is not None:
        x = x.to(dtype)
    dims = _dims(dim)
    if isinstance(ord, str):
        raise RuntimeError("linalg.vector_norm: ord must be a number, got %s" % ord)
    ord = float(ord)
    if math.isinf(ord):
        if x.numel() == 0:
            raise RuntimeError("linalg.vector_norm cannot compute the %s norm on an empty tensor because "
                               "the operation does not have an identity" % ("inf" if ord > 0 else "-inf"))
    if dims is None:
        dims = ()
    else:
        nd = max(x.dim(), 1)
        dims = tuple(d + nd if d < 0 else d for d in dims)
    return _mathop(op, x, scalar=ord, ints=dims, keepdim=keepdim)


@_outable("linalg.svdvals")
def svdvals(A, *, driver=None, out=None):
    # ATen's svdvals computes the singular vectors too when A may need a gradient (gesdd "S",
    # whose singular values' last bits differ from "N"'s), and differentiates through them
    if torch.is_grad_enabled() and A.requires_grad:
        return _mathop("LINALG_SVD", A)[1]
    return _mathop("LINALG_SVDVALS", A)


@_outable("linalg.matrix_norm")
def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    _check_float(A, "linalg.matrix_norm")
    dims = _dims(dim)
    if len(dims) != 2:
        raise RuntimeError("linalg.matrix_norm: dim must be a 2-tuple. Got %s" % " ".join(str(d) for d in dims))
    nd = A.dim()
    d0, d1 = dims[0] % nd, dims[1] % nd
    if d0 == d1:
        raise RuntimeError("linalg.matrix_norm: dims must be different. Got (%d, %d)" % (dims[0], dims[1]))
    if dtype is not None:
        A = A.to(dtype)
    if isinstance(ord, str):
        if ord == "fro":
            return vector_norm(A, 2, (d0, d1), keepdim)
        if ord == "nuc":
            return _svd_norm(A, d0, d1, keepdim, "sum")
        raise RuntimeError("linalg.matrix_norm: Order %s not supported." % ord)
    if ord not in (1, -1, 2, -2, math.inf, -math.inf):
        raise RuntimeError("linalg.matrix_norm: Order %s not supported." % (int(ord) if float(ord).is_integer()
                                                                            and not math.isinf(ord) else ord))
    if abs(ord) == 2:
        return _svd_norm(A, d0, d1, keepdim, "max" if ord > 0 else "min")
    # 1 / -1: max / min over columns of the column sums; inf / -inf: the same on the transpose
    if math.isinf(ord):
        d0, d1 = d1, d0
    if not keepdim and d0 < d1:
        d1 -= 1
    s = vector_norm(A, 1.0, (d0,), keepdim)
    return s.amax((d1,), keepdim) if ord > 0 else s.amin((d1,), keepdim)


def _svd_norm(A, d0, d1, keepdim, how):
    rest = [d for d in range(A.dim()) if d != d0 and d != d1]
    sv = svdvals(A.permute(*rest, d0, d1))
    r = sv.sum(-1) if how == "sum" else sv.amax(-1) if how == "max" else sv.amin(-1)
    if keepdim:
        for d in sorted((d0, d1)):
            r = r.unsqueeze(d)
    return r


@_outable("linalg.norm")
def linalg_norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    dims = _dims(dim)
    if ord is not None:
        if dims is None and A.dim() not in (1, 2):
            raise RuntimeError("linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                               "Got %dD." % A.dim())
        n = len(dims) if dims is not None else A.dim()
        if n == 1:
            return vector_norm(A, ord, dims, keepdim, dtype=dtype)
        return matrix_norm(A, ord, dims if dims is not None else (-2, -1), keepdim, dtype=dtype)
    return vector_norm(A, 2, dims, keepdim, dtype=dtype)


@_outable("norm")
def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    dims = _dims(dim)
    if isinstance(p, str):
        if dtype is not None and p in ("fro", "nuc"):   # torch.functional.norm's checks (1.13)
            raise ValueError("dtype argument is not supported in " + ("frobenius" if p == "fro" else "nuclear")
                             + " norm")
        if p == "fro" and (dims is None or len(dims) <= 2):
            return _vector_norm(input, 2, dims, keepdim, dtype, "NORM")
        if p == "nuc":
            if dims is None:
                dims = tuple(range(input.dim()))
            if len(dims) != 2:
                raise RuntimeError("nuclear norm requires a 'dim' argument of size 2")
        if dims is None:
            dims = tuple(range(input.dim()))
        return matrix_norm(input, p, dims, keepdim, dtype=dtype)
    return _vector_norm(input, 2.0 if p is None else p, dims, keepdim, dtype, "NORM")


# ---- einsum ----------------------------------------------------------------------------------------

def _einsum_parse(equation, operands):
    eq = equation.replace(" ", "")
    if "->" in eq:
        lhs, rhs = eq.split("->", 1)
    else:
        lhs, rhs = eq, None
    terms = lhs.split(",")
    if len(terms) > len(operands):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(terms) < len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    if "." not in eq and all(t.isalpha() and t.isascii() for t in terms) and (
            rhs is None or rhs == "" or (rhs.isalpha() and rhs.isascii() and len(set(rhs)) == len(rhs))):
        # the usual equation, letters only: each character is a label (the loops below find the
        # position of a bad character and the ellipses)
        return [list(t) for t in terms], None if rhs is None else list(rhs)
    pos = 0
    parsed = []
    for i, term in enumerate(terms):
        labels = []
        j = 0
        while j < len(term):
            c = term[j]
            if c == ".":
                if term[j:j + 3] != "..." or "..." in term[:j]:
                    raise RuntimeError("einsum(): found '.' for operand %d that is not part of any ellipsis" % i)
                labels.append("...")
                j += 3
                continue
            if not c.isalpha() or not c.isascii():
                raise RuntimeError("einsum(): invalid subscript given at index %d in the equation string, "
                                   "subscripts must be in [a-zA-Z]" % (pos + j))
            labels.append(c)
            j += 1
        pos += len(term) + 1
        parsed.append(labels)
    out = None
    if rhs is not None:
        out = []
        j = 0
        base = len(lhs) + 2
        while j < len(rhs):
            c = rhs[j]
            if c == ".":
                if rhs[j:j + 3] != "..." or "..." in out:
                    raise RuntimeError("einsum(): found '.' for output but it is not part of any ellipsis")
                out.append("...")
                j += 3
                continue
            if not c.isalpha() or not c.isascii():
                raise RuntimeError("einsum(): invalid subscript given at index %d in the equation string, "
                                   "subscripts must be in [a-zA-Z]" % (base + j))
            if c in out:
                raise RuntimeError("einsum(): output subscript %s appears more than once in the output" % c)
            out.append(c)
            j += 1
    return parsed, out


# einsum's plans: the steps one equation takes for operands of given shapes, worked out once
# (parsing, checks, the choice of sums / permutes / reshapes / bmm) and replayed on later calls,
# so a repeated einsum costs its tensor ops and one dict lookup.  A step is a tuple on a list of
# registers (the operands, then the running result in register 0):
#   ("diag", i, a, b, sizes)   register i's diagonal over dims a, b as a strided view (last dim)
#   ("sum", i, dims)           ("sumk", i, dim): summed with keepdim
#   ("permute", i, perm)       ("reshape", i, shape)     ("expand", i, shape)
#   ("mul", i, j)              ("bmm", i, j): register i becomes register i op register j
_einsum_plans = {}


def einsum(*args):
    if len(args) < 1:
        raise TypeError("einsum(): must specify the equation string and at least one operand, "
                        "or at least one operand and its subscripts list")
    equation = args[0]
    operands = args[1:]
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if _is_compiling():
        # a trace records the plan's ops (and guards on the shapes it was made for)
        plan = _einsum_plan(equation, operands)
    else:
        try:
            if len(operands) == 2:
                key = (equation, operands[0].shape, operands[1].shape)
            elif len(operands) == 1:
                key = (equation, operands[0].shape)
            else:
                key = (equation,) + tuple([t.shape for t in operands])
            plan = _einsum_plans.get(key)
        except (AttributeError, TypeError):
            key = plan = None      # not tensors, or an unhashable equation: the plan raises
        if plan is None:
            plan = _einsum_plan(equation, operands)
            if key is not None:
                if len(_einsum_plans) >= 512:
                    _einsum_plans.clear()
                _einsum_plans[key] = plan
    regs = list(operands)
    compiling = _is_compiling()
    for step in plan:
        op = step[0]
        i = step[1]
        if op == "bmm":
            regs[i] = torch.bmm(regs[i], regs[step[2]])
        elif op == "reshape":
            # a contiguous register is viewed, as ATen's einsum views (ViewBackward0: Tensor.reshape's
            # node is ReshapeAliasBackward0); the same kernel as reshape's aliasing case
            r = regs[i]
            regs[i] = r.view(step[2]) if not compiling and r.is_contiguous() else r.reshape(step[2])
        elif op == "permute":
            regs[i] = regs[i].permute(*step[2])
        elif op == "sum":
            regs[i] = regs[i].sum(step[2])
        elif op == "diag":
            t = regs[i]
            a, b = step[2], step[3]
            st = t.stride()
            regs[i] = t.as_strided(step[4], [s for d, s in enumerate(st) if d != a and d != b] + [st[a] + st[b]],
                                   t.storage_offset())
        elif op == "mul":
            regs[i] = regs[i] * regs[step[2]]
        elif op == "expand":
            regs[i] = regs[i].expand(*step[2])
        else:
            regs[i] = regs[i].sum(step[2], keepdim=True)
    return regs[0]


def _einsum_plan(equation, operands):
    if isinstance(equation, torch.Tensor):
        raise NotImplementedError("einsum(): the sublist format einsum(op1, sublist1, op2, ...) is not supported")
    if not isinstance(equation, str):
        raise TypeError("einsum(): argument 'equation' (position 1) must be str, not %s" % type(equation).__name__)
    for i, t in enumerate(operands):
        if not isinstance(t, torch.Tensor):
            raise TypeError("expected Tensor as element %d in argument 1, but got %s" % (i, type(t).__name__))
    parsed, out_labels = _einsum_parse(equation, operands)
    # ellipsis dims become labels 0, 1, ... counted from the right (they broadcast right-aligned)
    n_ell = 0
    ops = []
    for i, (labels, t) in enumerate(zip(parsed, operands)):
        named = [l for l in labels if l != "..."]
        if "..." in labels:
            if len(named) > t.dim():
                raise RuntimeError("einsum(): the number of subscripts in the equation (%d) is more than the number "
                                   "of dimensions (%d) for operand %d" % (len(named), t.dim(), i))
            k = t.dim() - len(named)
            n_ell = max(n_ell, k)
            at = labels.index("...")
            full = labels[:at] + [k - 1 - e for e in range(k)] + labels[at + 1:]
        else:
            if len(named) != t.dim():
                raise RuntimeError("einsum(): the number of subscripts in the equation (%d) does not match the number "
                                   "of dimensions (%d) for operand %d and no ellipsis was given"
                                   % (len(named), t.dim(), i))
            full = list(labels)
        ops.append([list(t.shape), full])
    plan = []
    # repeated subscripts within an operand: take the diagonal (it moves to the last dim)
    for i, op in enumerate(ops):
        shape, labels = op
        if len(set(labels)) == len(labels):
            continue
        while True:
            seen = {}
            rep = None
            for d, l in enumerate(labels):
                if l in seen:
                    rep = (seen[l], d)
                    break
                seen[l] = d
            if rep is None:
                break
            a, b = rep
            if shape[a] != shape[b]:
                raise RuntimeError("einsum(): subscript %s is repeated for operand %d but the sizes don't match, "
                                   "%d != %d" % (labels[a], i, shape[b], shape[a]))
            l = labels[a]
            # the diagonal as a strided view of the operand, as ATen's einsum takes it
            shape = [s for d, s in enumerate(shape) if d != a and d != b] + [shape[a]]
            plan.append(("diag", i, a, b, shape))
            labels = [x for d, x in enumerate(labels) if d != a and d != b] + [l]
        op[0], op[1] = shape, labels
    # sizes: each label's size, broadcasting size-1 dims
    sizes = {}
    for i, (shape, labels) in enumerate(ops):
        for d, l in enumerate(labels):
            s = shape[d]
            if l in sizes and sizes[l] != s and sizes[l] != 1 and s != 1:
                if isinstance(l, int):
                    raise RuntimeError("einsum(): operands do not broadcast with remapped shapes (original->remapped)")
                raise RuntimeError("einsum(): subscript %s has size %d for operand %d which does not broadcast with "
                                   "previously seen size %d" % (l, s, i, sizes[l]))
            if l not in sizes or sizes[l] == 1:
                sizes[l] = s
    # the output: explicit, or the ellipsis dims then the subscripts seen once, in order
    ell = [n_ell - 1 - e for e in range(n_ell)]
    if out_labels is None:
        counts = {}
        for labels in parsed:
            for l in labels:
                if l != "...":
                    counts[l] = counts.get(l, 0) + 1
        out = ell + sorted(l for l, c in counts.items() if c == 1)
    else:
        out = []
        for l in out_labels:
            if l == "...":
                out.extend(ell)
            else:
                if not any(l in labels for labels in parsed):
                    raise RuntimeError("einsum(): output subscript %s does not appear in the equation for any "
                                       "input operand" % l)
                out.append(l)
    # contract left to right (register 0 holds the running result)
    shape, labels = _einsum_reduce(plan, 0, ops[0][0], ops[0][1], set(out).union(*[set(o[1]) for o in ops[1:]]))
    for k in range(1, len(ops)):
        keep = set(out).union(*[set(o[1]) for o in ops[k + 1:]])
        ushape, ul = _einsum_reduce(plan, k, ops[k][0], ops[k][1], keep | set(labels))
        shape, labels = _einsum_pair(plan, k, shape, labels, ushape, ul, keep, sizes)
    shape, labels = _einsum_reduce(plan, 0, shape, labels, set(out))
    # labels the output names but no operand has (size-1 broadcast dims were summed) cannot occur;
    # put the remaining dims in output order, expanding size-1 broadcasts
    perm = [labels.index(l) for l in out]
    if perm != list(range(len(perm))):
        plan.append(("permute", 0, perm))
        shape = [shape[d] for d in perm]
    full = [sizes[l] for l in out]
    if shape != full:
        plan.append(("expand", 0, full))
    return tuple(plan)


def _einsum_reduce(plan, i, shape, labels, keep):
    # sum out the dims whose subscript is needed nowhere else
    drop = [d for d, l in enumerate(labels) if l not in keep]
    if not drop:
        return shape, labels
    plan.append(("sum", i, tuple(drop)))
    return [s for d, s in enumerate(shape) if d not in drop], [l for d, l in enumerate(labels) if d not in drop]


def _einsum_pair(plan, k, ash, al, bsh, bl, keep, sizes):
    # one pairwise product of registers 0 (a) and k (b), into register 0: batch (both, kept),
    # contracted (both, not kept), and each side's own
    batch = [l for l in al if l in bl and l in keep]
    contract = [l for l in al if l in bl and l not in keep]
    aonly = [l for l in al if l not in bl]
    bonly = [l for l in bl if l not in al]
    ash, bsh = list(ash), list(bsh)
    # a contracted dim of size 1 on one side only: sum the other side over it first
    for l in list(contract):
        sa, sb = ash[al.index(l)], bsh[bl.index(l)]
        if sa != sb:
            if sa == 1:
                plan.append(("sumk", k, bl.index(l)))
                bsh[bl.index(l)] = 1
            else:
                plan.append(("sumk", 0, al.index(l)))
                ash[al.index(l)] = 1
    bsz = [max(ash[al.index(l)], bsh[bl.index(l)]) for l in batch]
    asz = [ash[al.index(l)] for l in aonly]
    bosz = [bsh[bl.index(l)] for l in bonly]
    csz = [ash[al.index(l)] for l in contract]

    def view(i, perm, cur, shape):
        # permute then reshape, leaving out the steps that would not change the tensor's shape
        if perm != list(range(len(perm))):
            plan.append(("permute", i, perm))
            cur = [cur[d] for d in perm]
        if cur != shape:
            plan.append(("reshape", i, shape))

    if not contract:
        # no sum: a broadcasting product
        view(0, [al.index(l) for l in batch + aonly], ash, [ash[al.index(l)] for l in batch] + asz + [1] * len(bonly))
        view(k, [bl.index(l) for l in batch + bonly], bsh, [bsh[bl.index(l)] for l in batch] + [1] * len(aonly) + bosz)
        plan.append(("mul", 0, k))
        return bsz + asz + bosz, batch + aonly + bonly
    pa = [al.index(l) for l in batch + aonly + contract]
    pb = [bl.index(l) for l in batch + contract + bonly]
    nb, m, kk, n = math.prod(bsz), math.prod(asz), math.prod(csz), math.prod(bosz)
    if [ash[al.index(l)] for l in batch] != bsz:
        plan.append(("permute", 0, pa))
        plan.append(("expand", 0, bsz + asz + csz))
        plan.append(("reshape", 0, [nb, m, kk]))
    else:
        view(0, pa, ash, [nb, m, kk])
    if [bsh[bl.index(l)] for l in batch] != bsz:
        plan.append(("permute", k, pb))
        plan.append(("expand", k, bsz + csz + bosz))
        plan.append(("reshape", k, [nb, kk, n]))
    else:
        view(k, pb, bsh, [nb, kk, n])
    plan.append(("bmm", 0, k))
    if [nb, m, n] != bsz + asz + bosz:
        plan.append(("reshape", 0, bsz + asz + bosz))
    return bsz + asz + bosz, batch + aonly + bonly


# ---- linear algebra --------------------------------------------------------------------------------

@_outable("linalg.cholesky_ex")
def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    return _mathop("CHOLESKY", A, has_max=upper, pair="linalg_cholesky_ex",
                   second=torch.zeros(A.shape[:-2], dtype=torch.int32))


@_outable("linalg.cholesky")
def linalg_cholesky(A, *, upper=False, out=None):
    return _mathop("CHOLESKY", A, has_max=upper)


@_outable("cholesky")
def cholesky(input, upper=False, *, out=None):
    return _mathop("CHOLESKY", input, has_max=upper)


@_outable("linalg.qr")
def linalg_qr(A, mode="reduced", *, out=None):
    modes = {"reduced": 1, "complete": 2, "r": 3}
    if mode not in modes:
        raise RuntimeError("qr received unrecognized mode '%s' but expected one of 'reduced' (default), 'r', "
                           "or 'complete'" % mode)
    return _mathop("LINALG_QR", A, step=modes[mode], pair="linalg_qr")


@_outable("qr")
def qr(input, some=True, *, out=None):
    return _mathop("LINALG_QR", input, step=1 if some else 2, pair="qr")


@_outable("linalg.solve_triangular")
def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    return _mathop("TRIANGULAR_SOLVE", A, B, has_min=upper, has_max=unitriangular, accumulate=not left)


@_outable("linalg.solve")
def solve(A, B, *, left=True, out=None):
    return _mathop("LINALG_SOLVE", A, B, accumulate=not left)


@_outable("triangular_solve")
def triangular_solve(input, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    # the deprecated form: solves A X = input (A^T X = input when transpose), returns (X, A clone)
    M = A.transpose(-2, -1) if transpose else A
    return _mathop("TRIANGULAR_SOLVE", M, input, has_min=upper != transpose, has_max=unitriangular,
                   pair="triangular_solve", second=A.clone())


@_outable("linalg.inv_ex")
def inv_ex(A, *, check_errors=False, out=None):
    return _mathop("LINALG_INV", A, pair="linalg_inv_ex", second=torch.zeros(A.shape[:-2], dtype=torch.int32))


@_outable("linalg.inv")
def inv(A, *, out=None):
    return _mathop("LINALG_INV", A)


@_outable("inverse")
def inverse(input, *, out=None):
    return _mathop("LINALG_INV", input)


def det(input):
    return _mathop("LINALG_DET", input)


@_outable("linalg.det")
def linalg_det(A, *, out=None):
    return _mathop("LINALG_DET", A)


@_outable("linalg.slogdet")
def linalg_slogdet(A, *, out=None):
    return _mathop("LINALG_SLOGDET", A, pair="linalg_slogdet")


@_outable("slogdet")
def slogdet(input, *, out=None):
    return _mathop("LINALG_SLOGDET", input, pair="slogdet")


def logdet(input):
    sign, logabs = _mathop("LINALG_SLOGDET", input)
    return torch.where(sign < 0, torch.full_like(logabs, math.nan), logabs)


# ---- svd, eigh and what ATen composes from them ------------------------------------------------------

@_outable("linalg.svd")
def linalg_svd(A, full_matrices=True, *, driver=None, out=None):
    if driver is not None:
        raise RuntimeError("torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs "
                           "with cuSOLVER backend.")
    return _mathop("LINALG_SVD", A, has_max=full_matrices, pair="linalg_svd")


@_outable("svd")
def svd(input, some=True, compute_uv=True, *, out=None):
    # ATen's svd: linalg.svd with V = Vh^H; without compute_uv, svdvals and zero U, V of full size
    if input.dim() < 2:
        raise RuntimeError("linalg.svd: input should have at least 2 dimensions, but has %d dimensions instead"
                           % input.dim())
    if compute_uv:
        return _mathop("LINALG_SVD", input, has_max=not some, pair="svd", last_mH=True)
    m, n = input.shape[-2], input.shape[-1]
    U = torch.zeros(tuple(input.shape[:-2]) + (m, m), dtype=input.dtype)
    V = torch.zeros(tuple(input.shape[:-2]) + (n, n), dtype=input.dtype)
    return _mathop("LINALG_SVDVALS", input, pair="svd", first=U, second=V)


def _check_uplo(UPLO):
    if not isinstance(UPLO, str) or len(UPLO) != 1 or UPLO.upper() not in ("L", "U"):
        raise RuntimeError("Expected UPLO argument to be 'L' or 'U', but got %s" % UPLO)
    return UPLO.upper() == "U"


@_outable("linalg.eigh")
def eigh(A, UPLO="L", *, out=None):
    return _mathop("LINALG_EIGH", A, has_min=_check_uplo(UPLO), has_max=True, pair="linalg_eigh")


@_outable("linalg.eigvalsh")
def eigvalsh(A, UPLO="L", *, out=None):
    # ATen computes the eigenvectors too when A may need a gradient (syevd "V": its eigenvalues'
    # bits may differ from "N"'s), as here
    upper = _check_uplo(UPLO)
    vectors = torch.is_grad_enabled() and A.requires_grad
    return _mathop("LINALG_EIGH", A, has_min=upper, has_max=vectors)[0]


def _atol_rtol(A, atol, rtol):
    # ATen's get_atol_rtol: float64 tolerances; rtol defaults to eps * max(m, n), or to 0 where
    # atol > 0 when atol is given
    if A.dtype != torch.float32 and A.dtype != torch.float64:
        raise RuntimeError("This function doesn't handle types other than float and double")
    eps = 1.1920928955078125e-07 if A.dtype == torch.float32 else 2.220446049250313e-16
    d = torch.float64
    atol_t = torch.zeros((), dtype=d) if atol is None else (atol if isinstance(atol, torch.Tensor) else torch.tensor(atol, dtype=d))
    if rtol is not None:
        rtol_t = rtol if isinstance(rtol, torch.Tensor) else torch.tensor(rtol, dtype=d)
    else:
        default = torch.full((), eps * max(A.shape[-1], A.shape[-2]), dtype=d)
        rtol_t = default if atol is None else torch.where(atol_t > 0, torch.zeros((), dtype=d), default)
    return atol_t, rtol_t


@_outable("linalg.matrix_rank")
def matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None, out=None):
    if A.dim() < 2:
        raise RuntimeError("torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions.")
    if tol is not None:   # the deprecated overload: tol is atol, rtol 0
        atol, rtol = tol, 0.0
    atol_t, rtol_t = _atol_rtol(A, atol, rtol)
    if A.numel() == 0:
        return torch.zeros(tuple(A.shape[:-2]), dtype=torch.int64)
    if not hermitian:
        S = svdvals(A)
        max_S = S.narrow(-1, 0, 1)
    else:
        S = eigvalsh(A).abs()
        max_S = S.amax(-1, keepdim=True)
    tol_t = torch.max(atol_t.unsqueeze(-1), rtol_t * max_S)
    return (S > tol_t).sum(-1)


@_outable("linalg.pinv")
def pinv(A, rcond=None, hermitian=False, *, atol=None, rtol=None, out=None):
    if (A.dtype != torch.float32 and A.dtype != torch.float64) or A.dim() < 2:
        raise RuntimeError("linalg.pinv(%s{[%s]}): expected a tensor with 2 or more dimensions of float, double, "
                           "cfloat or cdouble types" % (_SCALAR_NAMES.get(A.dtype, str(A.dtype)),
                                                        ", ".join(str(s) for s in A.shape)))
    if rcond is not None:   # NumPy's rcond is the relative tolerance
        atol, rtol = torch.zeros((), dtype=torch.float64), rcond
    atol_t, rtol_t = _atol_rtol(A, atol, rtol)
    # ATen's linalg_pinv composes svd / eigh, and its derivative is pinv_backward's: the op
    # LINALG_PINV gives the composition's value that derivative (LinalgPinvBackward0)
    with torch.no_grad():
        P = _pinv_value(A, atol_t, rtol_t, hermitian)
    if torch.is_grad_enabled() and A.requires_grad:
        return _mathop("LINALG_PINV", A, P)
    return P


def _pinv_value(A, atol_t, rtol_t, hermitian):
    if A.numel() == 0:
        U, S, V = svd(A)
        return torch.matmul(V * S.reciprocal().unsqueeze(-2), U.transpose(-2, -1))
    if not hermitian:
        U, S, V = svd(A)
        max_val = S.narrow(-1, 0, 1)
        tol_t = torch.max(atol_t.unsqueeze(-1), rtol_t.unsqueeze(-1) * max_val)
        S_inv = torch.where(S > tol_t, S.reciprocal(), torch.zeros((), dtype=S.dtype)).to(A.dtype)
        return torch.matmul(V * S_inv.unsqueeze(-2), U.transpose(-2, -1))
    S, U = eigh(A)
    S_abs = S.abs()
    max_val = S_abs.amax(-1, keepdim=True)
    tol_t = torch.max(atol_t.unsqueeze(-1), rtol_t.unsqueeze(-1) * max_val)
    S_inv = torch.where(S_abs > tol_t, S.reciprocal(), torch.zeros((), dtype=S.dtype)).to(A.dtype)
    return torch.matmul(U * S_inv.unsqueeze(-2), U.transpose(-2, -1))


def pinverse(input, rcond=1e-15):
    return pinv(input, rcond)


_SCALAR_NAMES = {torch.float32: "Float", torch.float64: "Double", torch.float16: "Half", torch.bfloat16: "BFloat16",
                 torch.int64: "Long", torch.int32: "Int", torch.int16: "Short", torch.int8: "Char",
                 torch.uint8: "Byte", torch.bool: "Bool"}
