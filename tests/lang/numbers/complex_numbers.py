# The complex type: repr, construction (strings, numbers, __complex__), arithmetic with ints and
# floats, integral and polar powers, errors, equality and hash, __format__, subclasses,
# imaginary literals, and a negative float to a fractional power.
print(repr(complex(1,2)), repr(complex(0,2)), repr(complex(-0.0,2)), repr(complex(1,-0.0)), repr(complex(float('inf'), float('nan'))), repr(1j), repr(-1j), repr(complex(0,0)), repr(complex(1.5e300, 1e-7)))
print(complex('1+2j'), complex(' (1-2j) '), complex('j'), complex('-J'), complex('1e3'), complex('nan+infj'), complex(2), complex(1, 2j), complex(1j, 1j), complex('1_0+2_0j'))
for s in ['1+', '', '1+2', 'j1', '(1+2j', '1 + 2j', '1__0j']:
    try: complex(s)
    except ValueError as e: print(e)
for f in [lambda: complex('1', 2), lambda: complex(1, '2'), lambda: complex([]), lambda: complex(1, [])]:
    try: f()
    except TypeError as e: print(e)
print((1+2j)*(3-4j), (1+2j)/(3-4j), (1+2j)**2, (1+2j)**0.5, 2**(1+1j), (-8)**(1/3), (1+2j)+1, 1-(1+2j), abs(3+4j), -(1+1j), +(1j), (1j).conjugate(), (1+2j)==1+2j, 1==complex(1,0), hash(1+0j)==hash(1), hash(complex(1,2)))
for e in ['(1j)**-1', '0j**-1', '(1+1j)/0', '(1j)<(2j)', '(1j)//2', 'divmod(1j,2)', 'int(1j)', 'float(1j)', 'round(1j)', 'abs(complex(1e308,1e308))', '0j**(1j)', '(1+1j)%2', 'complex("1", imag=3)', '(1e200j)**2', 'pow(1j, 2, 3)', '2**70 + 1j', '(10**400) * 1j', '1j == 2**70', 'complex(2**70) == 2**70']:
    try: print(e, '->', eval(e))
    except Exception as ex: print(e, '!!', type(ex).__name__, ex)
print(format(1+2j), format(1+2j, '.2f'), format(1.5-2j, '>20'), format(3j, 'e'), f'{1+2j:g}', format(complex(1,2), '+.1f'), format(2j, '.3'), format(-0.0+1j, ''), format(1j, '*^12'))
for spec in ['010', '=10', '%', 'd']:
    try: format(1j, spec)
    except ValueError as e: print(e)
print((1+2j).real, (1+2j).imag, complex.__getnewargs__(1+2j), bool(0j), bool(1j), type(1j).__name__, str(1+2j))
class C(complex):
    def __repr__(self): return "C" + complex.__repr__(self)
print(C(1, 2), type(C(1, 2) + 1).__name__, repr(C(3)), C('4j'), isinstance(C(1), complex))
class HasComplex:
    def __complex__(self): return 3+4j
print(complex(HasComplex()), complex(1.5), complex(True), {1j: 'a'}[1j], sum([1j, 2j, 3]), 1j * 1j, 2 / 1j)
