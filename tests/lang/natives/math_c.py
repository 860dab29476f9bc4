# math against CPython: exact fsum (specials, overflow), n-ary hypot and dist rounding as
# CPython's vector_norm, nextafter/ulp/remainder, inverse hyperbolics, the __floor__/__ceil__/
# __trunc__ protocol, integer functions within 64 bits, prod with start, domain errors.
import math

print(math.fsum([0.1] * 10), math.fsum([1e100, 1.0, -1e100, 1e-100, 1e50, -1.0, -1e50]), math.fsum([]))
print(math.fsum([1, 2**-60, -1]), math.fsum(i * 0.001 for i in range(1000)), math.fsum([1e308, 1e308, -1e308]) if False else 0)
print(math.fsum([float('inf'), 1.0]), math.fsum([float('nan')]), math.fsum([2.0 ** i for i in range(-1074, 1024, 7)]))
for bad in ([float('inf'), float('-inf')], [1e308, 1e308]):
    try:
        math.fsum(bad)
    except (ValueError, OverflowError) as e:
        print(type(e).__name__, e)
vals = [(3, 4), (1, 2, 3), (1e-310, 2e-310), (1e300, 1e300), (0.1, 0.2, 0.3, 0.4), (), (5,), (-3, 4.5, 7)]
print([math.hypot(*v) for v in vals], math.hypot(float('inf'), float('nan')), math.hypot(float('nan'), 1))
print(math.dist((1, 2), (4, 6)), math.dist([0.1, 0.2, 0.3], (1.5, -2.5, 3.25)), math.dist((), ()))
try:
    math.dist((1,), (1, 2))
except ValueError as e:
    print('ValueError', e)
print(math.nextafter(1.0, 2.0), math.nextafter(0.0, -1.0), math.ulp(1.0), math.ulp(1e300), math.ulp(0.0), math.ulp(float('inf')))
print(math.remainder(10, 3), math.remainder(11, 2), math.remainder(-7.5, 2), math.remainder(5, float('inf')))
print(math.asinh(1.5), math.acosh(2.0), math.atanh(0.5), math.gamma(5.5), math.lgamma(10.5), math.gamma(-2.5), math.lgamma(-3.7), math.gamma(171.5), math.lgamma(1e-30), math.erf(0.3), math.erfc(2.0))
for f, x in ((math.acosh, 0.5), (math.atanh, 1.0), (math.gamma, 0), (math.gamma, -2), (math.lgamma, -1), (math.sqrt, -1),
             (math.log, 0), (math.asin, 2), (math.gamma, 200), (math.exp, 1000)):
    try:
        print(f(x))
    except (ValueError, OverflowError) as e:
        print(f.__name__, type(e).__name__, e)


class R:
    def __floor__(self):
        return 'F'

    def __ceil__(self):
        return 'C'

    def __trunc__(self):
        return 'T'


print(math.floor(R()), math.ceil(R()), math.trunc(R()), math.floor(-2.5), math.ceil(2.1), math.trunc(-2.9), math.floor(True))
try:
    math.trunc('x')
except TypeError as e:
    print('TypeError', e)
print(math.factorial(20), math.comb(60, 30), math.perm(10, 3), math.perm(5), math.isqrt(10**18 + 7), math.gcd(12, 18, 27), math.gcd())
print(math.lcm(4, 6, 10), math.lcm(), math.prod([1, 2, 3, 4]), math.prod([2, 3], start=10), math.prod([]), math.prod([1.5, 2]))
print(math.frexp(10.0), math.ldexp(0.625, 4), math.modf(-3.25), math.copysign(3, -0.0), math.fmod(-7, 3), math.isclose(1, 1 + 1e-10))
print(math.log(8, 2), math.log10(1000), math.log2(1024), math.exp2(10), math.cbrt(27), math.degrees(math.pi), math.radians(180))
print(math.pi, math.e, math.tau, math.inf, math.nan)
