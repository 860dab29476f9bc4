# os.nice / getpriority / setpriority (posix scheduling priority), relative to the niceness the
# test starts with so that a suite run under `nice` prints the same (niceness stops at 19: under
# `nice -n 19` the increments are checked against that ceiling).
import os

p0 = os.getpriority(os.PRIO_PROCESS, 0)
print(os.nice(0) == p0)
print(os.nice(1) - p0 == min(1, 19 - p0))
os.setpriority(os.PRIO_PROCESS, 0, min(p0 + 2, 19))
print(os.getpriority(os.PRIO_PROCESS, 0) - p0 == min(2, 19 - p0), os.nice(0) - p0 == min(2, 19 - p0))
print(os.getpriority(os.PRIO_PROCESS, os.getpid()) == os.nice(0))
print(os.PRIO_PROCESS, os.PRIO_PGRP, os.PRIO_USER)
for bad in ("x", 1.5):
    try:
        os.nice(bad)
    except TypeError as e:
        print("TypeError:", e)
try:
    os.getpriority(12345, 0)
except OSError as e:
    print(type(e).__name__, e.errno, e.strerror)
