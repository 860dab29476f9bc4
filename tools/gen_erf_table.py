# erf's Taylor coefficients around c_i = i / NPER, i = 0 .. 4 NPER, computed in 80-digit decimal
# (erf(c) from its series; the k-th derivative from Hermite polynomials), for src/tensor/vmath.c.
# usage: python3 tools/gen_erf_table.py DEG [x] [NPER]   (vmath.c: DEG 9, NPER 32)
#   prints to stderr the worst truncation (the first omitted terms over |h| <= 1 / (2 NPER),
#   relative to the row's value); with a second argument, the rows (degree 0..DEG) to stdout
from decimal import Decimal as D, getcontext
getcontext().prec = 80
PI = D("3.14159265358979323846264338327950288419716939937510582097494459230781640628620899")
def erf(c):
    s = D(0); t = c; n = 0
    # sum (-1)^n c^(2n+1) / (n! (2n+1))
    term = c
    while True:
        add = term / (2*n+1)
        s += add
        if abs(add) < D(10)**-70 and n > 5: break
        n += 1
        term = -term * c * c / n
    return 2 / PI.sqrt() * s
import sys
DEG = int(sys.argv[1]); NPER = int(sys.argv[3]) if len(sys.argv) > 3 else 8
worst = 0
for i in range(4*NPER+1):
    c = D(i) / NPER
    g = 2 / PI.sqrt() * (-(c*c)).exp()
    H = [D(1), 2*c]
    for n in range(1, 40): H.append(2*c*H[n] - 2*n*H[n-1])
    a = [erf(c)]
    fact = D(1)
    for n in range(1, 40):
        fact *= n
        a.append(g * (-1)**(n-1) * H[n-1] / fact)
    h = D(1)/(2*NPER)
    base = a[0] if i else a[1]*h
    tail = sum(abs(a[n])*h**n for n in range(DEG+1, 40))
    worst = max(worst, tail / base)
    if len(sys.argv) > 2:
        print("    {" + ", ".join("%.17e" % float(v) for v in a[:DEG+1]) + "},")
print("worst tail rel", float(worst), file=sys.stderr)
