# operator: operator functions, itemgetter, attrgetter, methodcaller.
import operator
from operator import itemgetter, attrgetter, methodcaller
print(operator.add(1, 2), operator.mul("a", 3), operator.sub(5, 7), operator.truediv(1, 4), operator.floordiv(7, 2))
print(operator.neg(3), operator.not_(0), operator.eq(1, 1.0), operator.lt(1, 2), operator.contains([1], 1), operator.getitem("abc", 1))
print(operator.pow(2, 5), operator.mod(7, 3), operator.and_(6, 3), operator.or_(6, 3), operator.xor(6, 3), operator.abs(-4))
print(operator.is_(None, None), operator.truth([]), operator.index(5), operator.concat([1], [2]), operator.countOf([1, 2, 1], 1))
l = [1, 2]
operator.setitem(l, 0, 9); operator.delitem(l, 1)
print(l, operator.iadd([1], [2]), operator.indexOf("abc", "c"))
rows = [("b", 2, "x"), ("a", 3, "y"), ("c", 1, "z")]
print(sorted(rows, key=itemgetter(1)), itemgetter(0, 2)(rows[0]), itemgetter("k")({"k": "v"}), itemgetter(slice(1, None))("abc"))
class P:
    def __init__(self, name, child=None):
        self.name = name
        self.child = child
    def greet(self, greeting, punct="!"):
        return greeting + " " + self.name + punct
p = P("outer", P("inner"))
print(attrgetter("name")(p), attrgetter("child.name")(p), attrgetter("name", "child.name")(p))
print(methodcaller("greet", "hi")(p), methodcaller("greet", "yo", punct="?")(p), methodcaller("upper")("abc"))
print(repr(itemgetter(1)), repr(itemgetter(1, "a")), repr(attrgetter("a.b", "c")), repr(methodcaller("f", 1, k=2)))
print(list(map(operator.mul, [1, 2], [3, 4])), sorted([P("z"), P("a")], key=attrgetter("name"))[0].name)
