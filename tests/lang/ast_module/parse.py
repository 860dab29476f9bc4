# compile(source, filename, mode, PyCF_ONLY_AST) -- what ast.parse calls -- gives CPython's tree:
# every node kind with its fields and positions, in the four modes; only the parser's errors
# are raised (the compiler's, like 'return' outside a function, are not).
import _ast


def dump(node):
    """ast.dump(node, include_attributes=True), written out here."""
    if isinstance(node, _ast.AST):
        cls = type(node)
        parts = []
        keywords = True
        for name in node._fields:
            if not hasattr(node, name):
                continue
            value = getattr(node, name)
            if value is None and getattr(cls, name, ...) is None:
                continue
            parts.append('%s=%s' % (name, dump(value)))
        for name in node._attributes:
            if not hasattr(node, name):
                continue
            value = getattr(node, name)
            if value is None and getattr(cls, name, ...) is None:
                continue
            parts.append('%s=%s' % (name, dump(value)))
        return '%s(%s)' % (cls.__name__, ', '.join(parts))
    if isinstance(node, list):
        return '[%s]' % ', '.join(dump(x) for x in node)
    return repr(node)


def parse(src, mode='exec'):
    return compile(src, '<test>', mode, _ast.PyCF_ONLY_AST)


SOURCES = [
    "x = 1\ny: int = 2\nz += 3\ndel a, b[0], c.d\n",
    "a, *b = c\n[d, (e, f)] = g\nh = i = j\n",
    "def f(a, b=1, /, c=2, *d, e, f=3, **g) -> int:\n    'doc'\n    return a\n",
    "async def g():\n    await x\n    async for i in y:\n        pass\n    async with z as w, v:\n        pass\n    return [i async for i in y]\n",
    "@dec\n@dec2(1)\nclass C(B, metaclass=M, **kw):\n    x: int\n    def m(self): ...\n",
    "lambda: 0\nlambda x, /, y=1, *z, w, **k: x\n",
    "if a:\n    pass\nelif b:\n    pass\nelse:\n    pass\nwhile c:\n    break\nelse:\n    continue\n",
    "for i, j in k:\n    pass\nelse:\n    pass\nwith a as (b, c), d:\n    pass\n",
    "try:\n    pass\nexcept E as e:\n    raise X from e\nexcept (A, B):\n    raise\nexcept:\n    pass\nelse:\n    pass\nfinally:\n    pass\n",
    "import a.b.c as d, e\nfrom . import f\nfrom ..g import h as i, j\nfrom k import *\n",
    "global x, y\nnonlocal_ = 1\nassert x, 'msg'\npass\n",
    "a and b or not c\n-a + ~b * +c @ d / e // f % g ** h << i >> j & k | l ^ m\n",
    "a < b <= c == d != e > f >= g is h is not i in j not in k\n",
    "f(a, *b, c=1, **d)\nf(x for x in y)\na.b.c[d][e:f:g][h, i:j, ...]\n",
    "[1, 2.5, 'three', b'four', None, True, False, ..., 10**100, 0x10, 1_000]\n",
    "{1: 2, **d}\n{1, 2}\n(1,)\n()\n[]\n{}\n",
    "[x for x in y if x if not x]\n{x for x in y}\n{k: v for k, v in z}\n(x for x in y for z in x)\n",
    "x if y else z\n(y := 10)\nyield_ = [(w := i) for i in r]\n",
    "def gen():\n    yield\n    yield 1\n    x = yield from g()\n",
    "f'plain {x} {y!r} {z:>10} {w!s:{width}.{prec}} {{lit}} {v=}'\nu'unicode'\n'a' 'b'\nf'a' 'b' f'{c}'\n",
    "'''multi\nline''' + \"\"\"other\"\"\"\nr'raw\\n' + b'\\x00bytes'\n",
    "match p:\n    case 1 | 2.5 | -3 | -4.5 if g:\n        pass\n    case 'x' | b'y' | None | True:\n        pass\n",
    "match p:\n    case [a, *rest] | (a, *_):\n        pass\n    case {'k': v, **others}:\n        pass\n    case Point(x, y=0) as pt:\n        pass\n    case a.b.c:\n        pass\n    case _:\n        pass\n",
    "class A:\n    def __init__(self):\n        self.x: int = 0\n        super().__init__()\n",
    "x = \"é\" + 'ü'  # non-ASCII offsets are byte offsets\nlong_name_é = 1\n",
    "if x:\n    # comment\n\n    y = (1 +\n         2)\n",
]
for src in SOURCES:
    print(dump(parse(src)))
print(dump(parse('x + 1', 'eval')))
print(dump(parse('x = 1', 'single')))
print(dump(parse('if x:\n    y\n', 'single')))
print(dump(parse('(int, str) -> List[int]', 'func_type')))
print(dump(parse('() -> None', 'func_type')))
print(dump(parse('')), dump(parse('\n\n# only a comment\n')))

# the compiler's checks are not the parser's: these parse
for src in ['return 1', 'break', 'from __future__ import braces', 'def f():\n    nonlocal q\n',
            'await x', 'yield 1', 'f(a=1, a=2)', 'def f(a, a): pass']:
    print(type(parse(src).body[0]).__name__, end=' ')
print()
for src, mode in [('x = ', 'exec'), ('1 +', 'eval'), ('x = 1\ny = 2', 'single'), ('def f(:', 'exec'),
                  ('a b', 'exec'), ('x', 'func_type'), ('f(**a, *b)', 'exec'), ('  x', 'exec')]:
    try:
        parse(src, mode)
        print('parsed', repr(src))
    except SyntaxError as e:
        print(type(e).__name__, e.msg, e.lineno, e.offset, repr(e.text))
try:
    compile('x', '<t>', 'bogus', _ast.PyCF_ONLY_AST)
except ValueError as e:
    print('ValueError', e)
try:
    compile('x', '<t>', 'func_type')
except ValueError as e:
    print('ValueError', e)
tree = parse('x = 1')
print(compile(tree, '<t>', 'exec', _ast.PyCF_ONLY_AST) is tree)
