# _operator (the C module behind operator.py): every function, the getter types with their
# reprs and messages, length_hint's protocol, _compare_digest.
import operator as op
import _operator

names = sorted(n for n in dir(_operator) if not n.startswith('__'))
print(names)
print(op.add(2, 3), op.sub(2, 3), op.mul('a', 3), op.truediv(7, 2), op.floordiv(7, 2), op.mod(7, 3), op.pow(2, 10))
print(op.lshift(1, 5), op.rshift(64, 2), op.and_(12, 10), op.or_(12, 10), op.xor(12, 10), op.neg(5), op.pos(-5), op.inv(5), op.invert(0))
print(op.lt(1, 2), op.le(2, 2), op.eq(1, 1.0), op.ne('a', 'a'), op.gt(3, 2), op.ge(1, 2), op.not_([]), op.truth([0]))
print(op.is_(None, None), op.is_not(1, None), op.abs(-3.5), op.index(7), op.index(True))
l = [1]
print(op.iadd(l, [2]) is l, l, op.iconcat(l, [3]), op.isub(5, 2), op.imul([0], 2), op.ixor(6, 3), op.ipow(3, 2))
print(op.concat([1], [2]), op.concat('a', 'b'), op.contains([1, 2], 2), op.countOf([1, 2, 1, 1.0], 1), op.indexOf('abc', 'c'))
d = {}
op.setitem(d, 'k', 1)
print(d, op.getitem(d, 'k'), op.delitem(d, 'k'), d)
for f in (lambda: op.concat(1, 2), lambda: op.indexOf([1], 2), lambda: op.index(1.5), lambda: op.add(1),
          lambda: op.neg('a')):
    try:
        f()
    except (TypeError, ValueError) as e:
        print(type(e).__name__, e)


class Hint:
    def __init__(self, v):
        self.v = v

    def __length_hint__(self):
        return self.v


class NoLen:
    def __len__(self):
        raise TypeError('no len')

    def __length_hint__(self):
        return 4


print(op.length_hint([1, 2]), op.length_hint(Hint(5)), op.length_hint(Hint(NotImplemented), 9), op.length_hint(object(), 3))
print(op.length_hint(NoLen()))
for v in (-1, 'x'):
    try:
        op.length_hint(Hint(v))
    except (TypeError, ValueError) as e:
        print(type(e).__name__, e)
print(op.call(max, 1, 5, 2), op.call(sorted, [3, 1], reverse=True))
print(_operator._compare_digest('abc', 'abc'), _operator._compare_digest(b'abc', b'abd'), _operator._compare_digest('a', 'ab'))
for a, b in (('é', 'e'), ('a', b'a'), (1, 2)):
    try:
        _operator._compare_digest(a, b)
    except TypeError as e:
        print('TypeError', e)


class P:
    def __init__(self, name, child=None):
        self.name = name
        self.child = child

    def greet(self, greeting, punct='!'):
        return greeting + ' ' + self.name + punct


p = P('ann', P('bob'))
g = op.attrgetter('name')
print(g(p), op.attrgetter('name', 'child.name')(p), repr(op.attrgetter('a', 'b.c')), repr(g))
print(op.itemgetter(1)('abc'), op.itemgetter(0, -1)([1, 2, 3]), op.itemgetter('k')({'k': 9}), repr(op.itemgetter(1, 'x')))
print(op.itemgetter(slice(1, None))((1, 2, 3)), sorted([(1, 'b'), (0, 'c'), (2, 'a')], key=op.itemgetter(1)))
m = op.methodcaller('greet', 'hi', punct='?')
print(m(p), op.methodcaller('upper')('x'), repr(m), repr(op.methodcaller('f')))
print(type(g).__name__, type(g).__module__, isinstance(g, op.attrgetter), callable(m))
for f in (lambda: op.attrgetter(1), lambda: op.attrgetter(), lambda: op.itemgetter(), lambda: op.methodcaller(1),
          lambda: op.methodcaller(), lambda: g(), lambda: g(1, 2), lambda: op.attrgetter('zz')(p),
          lambda: op.itemgetter(5)([1]), lambda: g(p, x=1)):
    try:
        f()
    except Exception as e:
        print(type(e).__name__, e)
print(sorted([P('c'), P('a'), P('b')], key=op.attrgetter('name'))[0].name)
