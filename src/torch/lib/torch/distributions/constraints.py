"""The constraints the distributions validate their parameters and samples against (PyTorch's
torch/distributions/constraints.py, the ones these distributions use)."""
import torch

__all__ = ["Constraint", "boolean", "dependent", "greater_than", "independent", "integer_interval",
           "interval", "half_open_interval", "lower_cholesky", "positive_definite", "one_hot", "positive", "real", "real_vector",
           "simplex", "unit_interval"]


class Constraint(object):
    is_discrete = False
    event_dim = 0

    def check(self, value):
        raise NotImplementedError

    def __repr__(self):
        return self.__class__.__name__[1:] + '()'


class _Dependent(Constraint):
    def __init__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        self._is_discrete = is_discrete
        self._event_dim = event_dim
        super().__init__()

    def check(self, x):
        raise ValueError('Cannot determine validity of dependent constraint')

    def __call__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        return _Dependent(is_discrete=is_discrete, event_dim=event_dim)


class _IndependentConstraint(Constraint):
    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        super().__init__()

    @property
    def is_discrete(self):
        return self.base_constraint.is_discrete

    @property
    def event_dim(self):
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value):
        result = self.base_constraint.check(value)
        if result.dim() < self.reinterpreted_batch_ndims:
            expected = self.base_constraint.event_dim + self.reinterpreted_batch_ndims
            raise ValueError(f"Expected value.dim() >= {expected} but got {value.dim()}")
        for _ in range(self.reinterpreted_batch_ndims):
            result = result.all(-1)
        return result

    def __repr__(self):
        return "{}({}, {})".format(self.__class__.__name__[1:], repr(self.base_constraint),
                                   self.reinterpreted_batch_ndims)


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value):
        return (value == 0) | (value == 1)


class _OneHot(Constraint):
    is_discrete = True
    event_dim = 1

    def check(self, value):
        is_boolean = (value == 0) | (value == 1)
        is_normalized = value.sum(-1).eq(1)
        return is_boolean.all(-1) & is_normalized


class _IntegerInterval(Constraint):
    is_discrete = True

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        return (value % 1 == 0) & (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self):
        fmt_string = self.__class__.__name__[1:]
        fmt_string += '(lower_bound={}, upper_bound={})'.format(self.lower_bound, self.upper_bound)
        return fmt_string


class _Real(Constraint):
    def check(self, value):
        return value == value  # False for NANs.


class _GreaterThan(Constraint):
    def __init__(self, lower_bound):
        self.lower_bound = lower_bound
        super().__init__()

    def check(self, value):
        return self.lower_bound < value

    def __repr__(self):
        fmt_string = self.__class__.__name__[1:]
        fmt_string += '(lower_bound={})'.format(self.lower_bound)
        return fmt_string


class _Interval(Constraint):
    def __init__(self, lower_bound, upper_bound):
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        return (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self):
        fmt_string = self.__class__.__name__[1:]
        fmt_string += '(lower_bound={}, upper_bound={})'.format(self.lower_bound, self.upper_bound)
        return fmt_string


class _HalfOpenInterval(Constraint):
    def __init__(self, lower_bound, upper_bound):
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        return (self.lower_bound <= value) & (value < self.upper_bound)

    def __repr__(self):
        fmt_string = self.__class__.__name__[1:]
        fmt_string += '(lower_bound={}, upper_bound={})'.format(self.lower_bound, self.upper_bound)
        return fmt_string


class _Simplex(Constraint):
    event_dim = 1

    def check(self, value):
        return torch.all(value >= 0, dim=-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _LowerCholesky(Constraint):
    event_dim = 2

    def check(self, value):
        n = value.shape[-1]
        ok = torch.ones(value.shape[:-2], dtype=torch.bool)
        for i in range(n):
            ok = ok & (value[..., i, i] > 0)
            for j in range(i + 1, n):
                ok = ok & (value[..., i, j] == 0)
        return ok


class _PositiveDefinite(Constraint):
    """Symmetric with a Cholesky factor (PyTorch: linalg.cholesky_ex(value).info == 0)."""
    event_dim = 2

    def check(self, value):
        sym = (value - value.transpose(-2, -1)).abs().amax((-2, -1)) <= 1e-6 * value.abs().amax((-2, -1)).clamp(min=1)
        try:
            torch.linalg.cholesky(value)
        except RuntimeError:
            return torch.zeros(value.shape[:-2], dtype=torch.bool)
        return sym


dependent = _Dependent()
independent = _IndependentConstraint
boolean = _Boolean()
one_hot = _OneHot()
integer_interval = _IntegerInterval
real = _Real()
real_vector = independent(real, 1)
positive = _GreaterThan(0.)
greater_than = _GreaterThan
unit_interval = _Interval(0., 1.)
interval = _Interval
half_open_interval = _HalfOpenInterval
simplex = _Simplex()
lower_cholesky = _LowerCholesky()
positive_definite = _PositiveDefinite()


def is_dependent(constraint):
    return isinstance(constraint, _Dependent)
