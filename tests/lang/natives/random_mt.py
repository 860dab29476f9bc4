# _random.Random: the Mersenne Twister gives CPython's numbers for the same seed (ints of both
# signs, floats and other hashables seed by hash), getrandbits at every width up to 63 bits,
# getstate/setstate round trips and their checks; then random.py's own algorithms (its
# _randbelow, shuffle, choice, sample, uniform, gauss pair) written here over the same
# generator give CPython's sequences.
import _random
from math import log, sqrt, cos, sin, pi

r = _random.Random(42)
print([r.random() for _ in range(3)])
for seed in (0, 1, -1, 42, 2**31, 2**32 - 1, 2**32, 2**40 + 7, -(2**62), 9223372036854775807, 3.5, 'abc', (1, 2), None):
    r.seed(seed)
    if seed is None:
        print('none', 0.0 <= r.random() < 1.0)
    elif isinstance(seed, str):
        print('str seeded', type(r.getrandbits(8)).__name__)
    else:
        print(seed, r.getrandbits(32), r.random())
r.seed(7)
print([r.getrandbits(k) for k in (0, 1, 5, 31, 32, 33, 48, 63)])
s = r.getstate()
print(len(s), s[-1], type(s).__name__)
a = [r.random() for _ in range(700)]
r.setstate(s)
print(a == [r.random() for _ in range(700)])
print(r.getstate()[-1], _random.Random(5).random(), _random.Random().random() < 1.0)
for bad in ([], (1,) * 3, (0,) * 624 + (625,), (2**33,) + (0,) * 624, (-1,) + (0,) * 624, ('x',) + (0,) * 624):
    try:
        r.setstate(bad)
    except (TypeError, ValueError, OverflowError) as e:
        print(type(e).__name__, e)
for f in (lambda: r.getrandbits(-1), lambda: r.seed(1, 2), lambda: _random.Random(1, 2), lambda: r.getrandbits('a'),
          lambda: _random.Random(x=1), lambda: r.seed([1])):
    try:
        f()
    except (TypeError, ValueError) as e:
        print(type(e).__name__, e)


class Rand(_random.Random):
    """random.py's algorithms, as written there, over _random.Random."""

    def __init__(self, x=None):
        self.seed(x)
        self.gauss_next = None

    def _randbelow(self, n):
        getrandbits = self.getrandbits
        k = n.bit_length()
        r = getrandbits(k)
        while r >= n:
            r = getrandbits(k)
        return r

    def randrange(self, start, stop=None, step=1):
        if stop is None:
            return self._randbelow(start)
        width = stop - start
        if step == 1:
            return start + self._randbelow(width)
        n = (width + step - 1) // step
        return start + step * self._randbelow(n)

    def randint(self, a, b):
        return self.randrange(a, b + 1)

    def shuffle(self, x):
        randbelow = self._randbelow
        for i in reversed(range(1, len(x))):
            j = randbelow(i + 1)
            x[i], x[j] = x[j], x[i]

    def choice(self, seq):
        return seq[self._randbelow(len(seq))]

    def sample(self, population, k):
        n = len(population)
        result = [None] * k
        setsize = 21
        if k > 5:
            setsize += 4 ** (k * 3).bit_length()
        if n <= setsize:
            pool = list(population)
            for i in range(k):
                j = self._randbelow(n - i)
                result[i] = pool[j]
                pool[j] = pool[n - i - 1]
        else:
            selected = set()
            for i in range(k):
                j = self._randbelow(n)
                while j in selected:
                    j = self._randbelow(n)
                selected.add(j)
                result[i] = population[j]
        return result

    def uniform(self, a, b):
        return a + (b - a) * self.random()

    def gauss(self, mu=0.0, sigma=1.0):
        z = self.gauss_next
        self.gauss_next = None
        if z is None:
            x2pi = self.random() * 2 * pi
            g2rad = sqrt(-2.0 * log(1.0 - self.random()))
            z = cos(x2pi) * g2rad
            self.gauss_next = sin(x2pi) * g2rad
        return mu + z * sigma


g = Rand(1234)
deck = list(range(20))
g.shuffle(deck)
print(deck)
print([g.randint(1, 6) for _ in range(15)], g.choice('abcdef'), g.sample(range(100), 5), g.sample(range(10**6), 3))
print([round(g.uniform(-1, 1), 12) for _ in range(3)], [round(g.gauss(), 12) for _ in range(4)])
print(g.randrange(0, 100, 7), g.randrange(10 ** 15), isinstance(g, _random.Random), type(g).__mro__[1].__name__)
g.extra = 1
print(g.extra, _random.Random.__module__)
