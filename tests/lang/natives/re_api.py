# The _sre object API: Pattern attributes, repr, equality; Match group access by number and
# name, groups/groupdict defaults, start/end/span, regs, lastindex/lastgroup, repr; scanner;
# bytes; errors with CPython's messages; deep backtracking that must not use the C stack.
import _sre
from _re_api_data import P

print(_sre.MAGIC, _sre.CODESIZE, _sre.MAXREPEAT, _sre.MAXGROUPS, _sre.getcodesize())
print([_sre.ascii_tolower(c) for c in (65, 97, 0xC9, 0x130)])
print([_sre.unicode_tolower(c) for c in (65, 0xC9, 0x130, 0x212A, 0x3A3, 0x1E9E, 0x10400)])
print([_sre.ascii_iscased(c) for c in (65, 49, 0xE9)], [_sre.unicode_iscased(c) for c in (65, 49, 0xE9, 0x2160, 0x1F88)])
print(sum(_sre.unicode_tolower(c) for c in range(0x10000)), sum(_sre.unicode_iscased(c) for c in range(0x3000)))


def comp(name):
    return _sre.compile(*P[name])


d = comp('date')
print(d.pattern, d.flags, d.groups, sorted(d.groupindex.items()))
print(repr(d), repr(comp('ign')), repr(comp('bytes')), repr(comp('ascii')))
print(repr(comp('long')))
print(repr(comp('quote')))
print(d == comp('date'), d != comp('date'), d == comp('word'), hash(d) == hash(comp('date')))
m = d.search('on 2023-07-14 and 2024-01')
print(m)
print(m.group(), m.group(0), m.group(1), m.group('month'), m.group(1, 'day', 0), m[2], m['year'])
print(m.groups(), m.groups('-'), m.groupdict(), m.groupdict(0))
print(m.start(), m.end(), m.span(), m.start(2), m.end('day'), m.span('month'), m.span(True))
print(m.regs, m.lastindex, m.lastgroup, m.pos, m.endpos, m.string, m.re is d)
m2 = d.search('on 2023-07-14 and 2024-01', 10)
print(m2, m2.groups(), m2.span(3), m2.lastgroup, m2.lastindex)
for bad in (4, -1, 'nope', 1.5, None):
    try:
        m.group(bad)
    except IndexError as e:
        print('IndexError', e)
print([x.span() for x in d.finditer('2020-01-02 2021-03 9999-12-31')])
mm = comp('multi')
print(mm.findall('a: 1\nbb:  two words\n\nccc:\n'))
print([m.lastindex for m in comp('alt').finditer('abcab')], [m.lastgroup for m in comp('alt').finditer('ab')])
w = comp('word')
sc = w.scanner('ab cd  ef')
print(sc.pattern is w, sc.search().span(), sc.search().span(), sc.match(), sc.search(), sc.search())
sc = w.scanner('ab cd', 1)
print(sc.match().span(), sc.match(), sc.match())
print(w.split('a bc, d', maxsplit=1), w.sub('-', 'ab cd', count=1), w.subn(lambda m: m.group().upper(), 'ab cd'))
print(w.sub(lambda m: None if m.group() == 'b' else '<>', 'a b c'))
print(comp('empty').split('abc'), comp('empty').sub('-', 'abc'), comp('empty').findall('ab'))
b = comp('bytes')
mb = b.search(b'x 12 apples 7 pears')
print(mb, mb.groups(), b.findall(b'1a 2b 3'), b.sub(b'#', b'1a 2b'), b.split(b'1a,2b'))
u = comp('uni')
mu = u.search('ascii café ünïcödé 日本')
print(mu, mu.span(), u.findall('éaü àéü'), u.sub('_', 'xéüy€é'), [m.span() for m in u.finditer('€éé€ü')])
print(comp('dot').findall('日本\n語'), comp('dot').split('a€b', 1))
cat = comp('catastrophic')
s = 'ab' * 100000
print(cat.search(s[:3000]), cat.match(s + 'c').span())
print(comp('nested').match('a' * 20000 + 'b').span())
for call in (lambda: w.match(b'abc'), lambda: b.match('abc'), lambda: w.match(12),
             lambda: w.match(), lambda: w.match('a', 'b'), lambda: w.sub('x'),
             lambda: w.match('a', bogus=1)):
    try:
        call()
    except TypeError as e:
        print('TypeError', e)
try:
    _sre.compile('x', 0, [99, 1], 0, {}, (None,))
except RuntimeError as e:
    print('RuntimeError', e)
try:
    _sre.compile('x', 0, [17, 5, 1], 0, {}, (None,))
except RuntimeError as e:
    print('RuntimeError', e)
import copy
print(copy.copy(m) is m, copy.deepcopy(d) is d)
print(type(d).__name__, type(m).__name__, type(d).__module__, type(m).__module__, type(sc).__name__)
