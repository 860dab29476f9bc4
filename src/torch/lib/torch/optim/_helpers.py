"""Shared pieces of the Python optimizers: PyTorch's addcmul_/addcdiv_ rounding ((value * t1) op t2,
then the add) and the argument checks."""


def _addcmul_(x, t1, t2, value=1.0):
    return x.add_(t1 * value * t2)


def _addcdiv_(x, t1, t2, value=1.0):
    return x.add_(t1 * value / t2)


def _check(cond, what, value):
    if not cond:
        raise ValueError("Invalid {}: {}".format(what, value))
