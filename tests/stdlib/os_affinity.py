# os.sched_getaffinity / sched_setaffinity / sched_yield (scripts size DataLoader workers with
# len(os.sched_getaffinity(0))); the CPU set depends on the machine, so it is checked, not printed
import os

cpus = os.sched_getaffinity(0)
print(type(cpus).__name__, len(cpus) >= 1, all(isinstance(c, int) and c >= 0 for c in cpus))
print(os.sched_getaffinity(os.getpid()) == cpus, len(cpus) <= os.cpu_count())
os.sched_setaffinity(0, [min(cpus)])
print(os.sched_getaffinity(0) == {min(cpus)})
os.sched_setaffinity(0, cpus)
print(os.sched_getaffinity(0) == cpus, os.sched_yield())
for bad in (lambda: os.sched_getaffinity(-5), lambda: os.sched_getaffinity("x"),
            lambda: os.sched_setaffinity(0, []), lambda: os.sched_setaffinity(0, [-1]),
            lambda: os.sched_setaffinity(0, 5), lambda: os.sched_setaffinity(0, [1.5])):
    try:
        print(bad())
    except Exception as e:
        print(type(e).__name__, e)
