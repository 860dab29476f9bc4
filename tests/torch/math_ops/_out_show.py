"""The out= goldens' helpers (out_args.py, out_args_more.py): a call shown with its exception
and warnings, and an out= call shown with the out it wrote."""
import warnings


def show(label, f):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            r = f()
        except (RuntimeError, TypeError) as e:
            print(label, "->", type(e).__name__ + ":", e)
            r = None
    for m in w:
        print(label, "warns", m.category.__name__ + ":", m.message)
    return r


def single(label, f, out):
    r = show(label, lambda: f(out))
    if r is not None:
        print(label, "is out:", r is out, "shape:", tuple(out.shape), "stride:", out.stride(), "dtype:", out.dtype)
        print(out)
