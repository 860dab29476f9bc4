# resource: what scripts read their peak memory and CPU time from, and the limits API, with
# CPython's types, constants and error messages (values that depend on the machine are checked,
# not printed)
import resource

print(resource.RLIM_INFINITY, resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN, resource.RUSAGE_THREAD)
print(resource.RLIMIT_CPU, resource.RLIMIT_NOFILE, resource.RLIMIT_STACK, resource.RLIMIT_AS, resource.RLIMIT_CORE)
print(resource.getpagesize() in (4096, 16384, 65536), resource.error is OSError)

u = resource.getrusage(resource.RUSAGE_SELF)
print(type(u).__name__, type(u).__module__, len(u), u.n_fields, u.n_sequence_fields)
print(type(u.ru_utime).__name__, type(u.ru_stime).__name__, type(u.ru_maxrss).__name__)
print(u.ru_maxrss > 1000, u.ru_utime >= 0.0, u[2] == u.ru_maxrss, tuple(u)[:2] == (u.ru_utime, u.ru_stime))
big = [0] * 2_000_000
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss >= u.ru_maxrss)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss >= 0)

soft, hard = resource.getrlimit(resource.RLIMIT_CORE)
print(type(resource.getrlimit(resource.RLIMIT_NOFILE)).__name__)
resource.setrlimit(resource.RLIMIT_CORE, (0, hard))
print(resource.getrlimit(resource.RLIMIT_CORE) == (0, hard))
resource.setrlimit(resource.RLIMIT_CORE, [soft, hard])
print(resource.getrlimit(resource.RLIMIT_CORE) == (soft, hard))
print(resource.prlimit(0, resource.RLIMIT_CORE) == (soft, hard))

for bad in (lambda: resource.getrusage(99), lambda: resource.getrlimit(99),
            lambda: resource.getrlimit(-1), lambda: resource.getrlimit("a"),
            lambda: resource.getrusage(1.5),
            lambda: resource.setrlimit(resource.RLIMIT_CORE, (1,)),
            lambda: resource.setrlimit(resource.RLIMIT_CORE, 5),
            lambda: resource.setrlimit(resource.RLIMIT_CORE, (2**70, 1)),
            lambda: resource.setrlimit(resource.RLIMIT_CORE, (1.5, 2)),
            lambda: resource.prlimit(0, 99),
            lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (1 << 40, 1 << 40))):
    try:
        print(bad())
    except Exception as e:
        print(type(e).__name__, e)
