# logging (handlers, formatters, levels, logger hierarchy, exceptions) and random (the same
# sequences as CPython for the same seed: Mersenne Twister through random.py).
import logging, random, sys, io

logging.basicConfig(stream=sys.stdout, level=logging.INFO, format="%(levelname)s:%(name)s:%(message)s")
log = logging.getLogger("train")
log.info("step %d loss %.4f", 10, 2.34567)
log.debug("hidden")
log.warning("lr=%s", 3e-4)
child = logging.getLogger("train.data")
child.error("bad batch %r", [1, 2])
print(child.parent is log, child.getEffectiveLevel(), logging.getLevelName(logging.WARNING), logging.getLevelName(15))
buf = io.StringIO()
h = logging.StreamHandler(buf)
h.setFormatter(logging.Formatter("[%(name)s] %(levelname)-8s %(message)s"))
h.setLevel(logging.WARNING)
other = logging.getLogger("eval")
other.addHandler(h)
other.propagate = False
other.setLevel(logging.DEBUG)
other.info("not shown")
other.warning("shown %s", "once")
try:
    1 / 0
except ZeroDivisionError:
    other.exception("failed")
print(buf.getvalue().splitlines()[:3])
print(logging.root.level, log.isEnabledFor(logging.DEBUG), logging.INFO, logging.ERROR)


class Filt(logging.Filter):
    def filter(self, record):
        return "keep" in record.getMessage()


log.addFilter(Filt())
log.info("drop this")
log.info("keep this")
logging.disable(logging.CRITICAL)
log.critical("disabled")
logging.disable(logging.NOTSET)

random.seed(1337)
print(random.random(), random.randint(1, 100), random.uniform(-1, 1), random.randrange(0, 1000, 7))
xs = list(range(20))
random.shuffle(xs)
print(xs, random.choice("abcdef"), random.sample(range(100), 5), random.choices([1, 2, 3], weights=[5, 1, 1], k=6))
print(random.gauss(0, 1), random.normalvariate(1, 2), random.expovariate(1.5), random.betavariate(2, 3))
print(random.triangular(0, 1, 0.3), random.getrandbits(100), random.randbytes(6).hex(), random.lognormvariate(0, 1))
r = random.Random(42)
print([r.random() for _ in range(3)], r.randint(0, 10**30))
st = r.getstate()
a = [r.random() for _ in range(2)]
r.setstate(st)
print(a == [r.random() for _ in range(2)])
for seed in [0, -7, 2**64 + 1, "text seed", b"bytes", 3.25]:
    random.seed(seed)
    print(repr(seed), random.random(), random.randrange(10**20))
random.seed(5, version=1)
print(random.random())
