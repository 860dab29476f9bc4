# math (constants, functions, error cases) and time (perf_counter is monotonic).
import math
import time
print(math.pi, math.e, math.tau, math.inf, -math.inf, math.isnan(math.nan))
print(math.sqrt(16), math.sqrt(2), math.floor(-2.5), math.ceil(-2.5), math.trunc(-2.7), math.floor(3), type(math.floor(2.5)).__name__)
print(math.exp(1), math.log(math.e), math.log(8, 2), math.log2(1024), math.log10(1000), math.log1p(0) if hasattr(math, "log1p") else 0.0)
print(math.sin(0), math.cos(0), math.tan(0), math.atan2(1, 1), math.asin(1), math.acos(1), math.atan(1))
print(math.sinh(0), math.cosh(0), math.tanh(0), math.hypot(3, 4), math.degrees(math.pi), math.radians(180))
print(math.fabs(-3), math.pow(2, 10), math.fmod(7, 3), math.copysign(1, -0.0), math.factorial(10), math.gcd(12, 18))
print(math.isclose(0.1 + 0.2, 0.3), math.isclose(1, 1.1), math.isclose(1, 1.05, rel_tol=0.1), math.isinf(math.inf), math.isfinite(1e308))
print(math.fsum([0.1] * 10), sum([0.1] * 10), math.prod([1, 2, 3, 4]), math.comb(5, 2), math.perm(5, 2), math.erf(0))
print(math.frexp(8.0), math.ldexp(0.5, 4), math.modf(2.5), math.isqrt(17), math.lcm(4, 6))
for bad in [lambda: math.sqrt(-1), lambda: math.log(0), lambda: math.log(-1), lambda: math.factorial(-1),
            lambda: math.exp(1000), lambda: math.acos(2), lambda: math.sqrt("x"), lambda: math.factorial(2.5)]:
    try:
        bad()
    except (ValueError, OverflowError, TypeError) as e:
        print(type(e).__name__ + ":", e)
t0 = time.perf_counter()
total = sum(range(10000))
t1 = time.perf_counter()
print(t1 >= t0, type(t0).__name__, isinstance(time.time(), float), time.perf_counter_ns() > 0, total)
time.sleep(0.001)
print(time.perf_counter() > t1, time.monotonic() > 0)
