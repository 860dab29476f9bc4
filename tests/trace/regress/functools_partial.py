# functools.partial (the C type of _functools) made in a compiled region, made before it and
# changed between calls, escaping into an object and the result, its keywords mutated: eager and
# compiled agree (the tracer keeps partials in its graph as dynamo does).
import functools
import torch


def scale(t, k, shift=0.0):
    return t * k + shift


g_half = functools.partial(scale, k=0.5)
g_pos = functools.partial(scale, torch.tensor([1.0, 2.0]), 3.0)


class Holder:
    pass


holder = Holder()


@torch.compile
def existing(x):
    # partials made outside: their function, args and keywords read through them
    return g_half(x), g_pos(shift=x), g_half.keywords["k"], len(g_pos.args)


@torch.compile
def escaping(x):
    p = functools.partial(scale, k=2.0)
    holder.fn = p
    q = functools.partial(p, shift=1.0)
    return q(x), q, p


@torch.compile
def keywords_mutated(x):
    p = functools.partial(scale, k=2.0)
    p.keywords["shift"] = 5.0
    return p(x), p.func is scale, p.args


@torch.compile
def positional_and_override(x, y):
    p = functools.partial(torch.add, x, alpha=2.0)
    return p(y), p(y, alpha=3.0), callable(p), isinstance(p, functools.partial)


x = torch.tensor([1.0, -2.0])
y = torch.tensor([0.5, 0.25])
print(existing(x))
r, q, p = escaping(x)
print(r, q.func is scale, q.args, q.keywords, p.keywords, holder.fn is p)
print(q(torch.ones(2)), type(q).__name__)
print(keywords_mutated(x))
print(positional_and_override(x, y))
# a changed global partial: recompiled
g_half = functools.partial(scale, k=0.25)
print(existing(x))
g_half.keywords["k"] = 4.0
print(existing(x))
