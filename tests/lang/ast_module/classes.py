# The _ast module's classes as CPython 3.11 defines them: every class's base, _fields,
# _attributes, __match_args__, class-level None defaults, __module__ and docstring, the
# PyCF_* constants, and AST.__init__ / __reduce__ behaviour.
import _ast

names = sorted(n for n in dir(_ast) if isinstance(getattr(_ast, n), type) and issubclass(getattr(_ast, n), _ast.AST))
print(len(names))
for n in names:
    c = getattr(_ast, n)
    defaults = sorted(k for k, v in vars(c).items() if v is None and not k.startswith('__'))
    print(n, c.__bases__[0].__name__, c._fields, c._attributes, c.__match_args__, defaults, c.__module__)
    print('   ', repr(c.__doc__))
print(sorted(n for n in dir(_ast) if n.startswith('PyCF')), _ast.PyCF_ONLY_AST, _ast.PyCF_TYPE_COMMENTS,
      _ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
print(issubclass(_ast.Constant, _ast.expr), issubclass(_ast.expr, _ast.AST), isinstance(_ast.Load(), _ast.expr_context))

# AST.__init__: positional arguments fill _fields, keywords set any attribute
b = _ast.BinOp(1, _ast.Add(), right=3)
print(sorted(b.__dict__), b.left, type(b.op).__name__, b.right)
print(_ast.Name().__dict__, _ast.Name('x').__reduce__()[1:], type(_ast.Name('x').__reduce__()[0]).__name__)
for args, kwargs in [((1, 2, 3, 4), {}), ((), {}), ((1,), {'left': 2}), ((1,), {'other': 2})]:
    try:
        node = _ast.BinOp(*args, **kwargs)
        print('ok', sorted(node.__dict__))
    except TypeError as e:
        print('TypeError', e)
for cls in (_ast.Load, _ast.alias):
    try:
        cls(1, 2, 3)
    except TypeError as e:
        print('TypeError', e)


class Point(_ast.AST):
    _fields = ('x', 'y')


p = Point(1, y=2)
print(p.x, p.y, Point._attributes, isinstance(p, _ast.AST))
try:
    Point(1, x=2)
except TypeError as e:
    print('TypeError', e)
n = _ast.Name(id='v')
n.ctx = _ast.Load()
n.extra = 'anything'
print(sorted(n.__dict__), n.lineno if hasattr(n, 'lineno') else 'no lineno', _ast.Name.end_lineno)
