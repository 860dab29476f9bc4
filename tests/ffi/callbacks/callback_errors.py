# An exception raised by a callback cannot cross the C frames that called it: ctypes prints it
# as an unraisable exception (naming the callable by its repr) and the call goes on; a result
# that cannot be converted to the restype is reported the same way.
import ctypes
from ctypes import CFUNCTYPE, c_int, c_double, c_char_p


class Logger:
    def __init__(self):
        self.lines = []

    def __call__(self, msg, n):
        if n < 0:
            raise ValueError("negative count: %d" % n)
        self.lines.append(msg * n)

    def __repr__(self):
        return "<Logger>"


LOGFN = CFUNCTYPE(None, c_char_p, c_int)
logger = Logger()
log = LOGFN(logger)
print(log(b"ab", 2))
print(log(b"x", -1))
print(log(b"c", 3), logger.lines)


class BadResult:
    def __call__(self, x):
        return "not a number"

    def __repr__(self):
        return "<BadResult>"


F = CFUNCTYPE(c_double, c_double)
f = F(BadResult())
f(1.0)
print("done")
