"""ctypes call overhead, the same script under Ember and CPython: N calls of libm's
fmax(double, double) with argtypes/restype set (the figure the FFI issue targets), N calls of
libc's abs(int) with the default conversions, and N calls of a CFUNCTYPE callback (script ->
C -> script).  Each figure is the loop's CPU time (process_time: the machines these run on are shared) minus the same loop without the call, per call,
best of REPEATS; prints `name ns_per_call` lines for bench/ffi/run.py."""
import ctypes
import ctypes.util
import sys
import time

N = int(sys.argv[1]) if len(sys.argv) > 1 else 1000000
REPEATS = 5

libm = ctypes.CDLL(ctypes.util.find_library("m"))
libc = ctypes.CDLL(ctypes.util.find_library("c"))
fmax = libm.fmax
fmax.argtypes = [ctypes.c_double, ctypes.c_double]
fmax.restype = ctypes.c_double
cabs = libc.abs
CB = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_double, ctypes.c_double)
cb = CB(lambda a, b: a)


def empty_loop(n):
    a = 1.5
    b = 2.5
    t0 = time.process_time()
    for i in range(n):
        r = a
    return time.process_time() - t0


def fmax_loop(n):
    a = 1.5
    b = 2.5
    t0 = time.process_time()
    for i in range(n):
        r = fmax(a, b)
    return time.process_time() - t0


def abs_loop(n):
    a = -7
    t0 = time.process_time()
    for i in range(n):
        r = cabs(a)
    return time.process_time() - t0


def callback_loop(n):
    a = 1.5
    b = 2.5
    t0 = time.process_time()
    for i in range(n):
        r = cb(a, b)
    return time.process_time() - t0


assert fmax(1.5, 2.5) == 2.5 and cabs(-7) == 7 and cb(1.5, 2.5) == 1.5


def best(f, n):
    return min(f(n) for _ in range(REPEATS))


base = best(empty_loop, N)
for name, f, n in [("fmax_2double", fmax_loop, N), ("abs_default_int", abs_loop, N), ("callback_2double", callback_loop, N // 4)]:
    t = best(f, n) - base * n / N
    print("%s %.1f" % (name, t / n * 1e9))
