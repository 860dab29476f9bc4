# Imaginary literals as constants: folded like CPython's AST optimizer does (real ± imaginary,
# unary minus, inside tuples, dropped as statements), shown by ast.dump/unparse, rebuilt by
# compile(tree) from a Constant holding any complex, and used as match-statement patterns.
import ast


def f():
    return (1+2j, -1j, 2.5-3j, 1j*2, +1j, 1e400j, -0j)


print(f.__code__.co_consts)
print(f())
for s in ['1j', '1+2j', '-1j', 'x = 1e400j', 'x = 1.5e20j - 0.25', 'match x:\n case 1+2j: pass',
          'match x:\n case {1j: a, 1j: b}: pass', 'match x:\n case {-1-1j: a, -1-1j: b}: pass']:
    try:
        t = ast.parse(s)
        print(ast.dump(t))
        print(ast.unparse(t))
        print(compile(t, '<t>', 'exec').co_consts)
    except SyntaxError as e:
        print('SyntaxError', e)
t = ast.Expression(ast.Constant(complex(3, -4)))
ast.fix_missing_locations(t)
print(eval(compile(t, '<t>', 'eval')))
print(ast.unparse(ast.Constant(complex(float('inf'), 1))))


def g(x):
    match x:
        case 1+2j:
            return 'a'
        case -1-1j:
            return 'b'
        case {1j: a}:
            return 'c', a
        case _:
            return 'd'


print(g(1+2j), g(-1-1j), g({1j: 3}), g(5), g(complex(1, 2)))
