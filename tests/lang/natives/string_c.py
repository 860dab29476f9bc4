# _string (string.Formatter's parser) against CPython: formatter_parser pieces for literals,
# escaped braces, fields with conversions, nested specs and bracketed names, its errors, and
# formatter_field_name_split.
import _string

for s in ('', 'abc', 'a{0}b', '{}', '{{x}}', 'x{{', '}}y', '{0!r:>{1}}', '{a.b[c]:^10}', '{x[:]}', '{é!s}',
          '{0!a}', 'π={pi:.3f}!', '{0:{1}{2}}', '{!r}', '{:}', 'pre{x}mid{{y}}post', '{0[1]}{0[two]}{k.attr.sub}'):
    print(repr(s), list(_string.formatter_parser(s)))
for bad in ('{', '}', 'a}b', '{0!}', '{0!rx}', '{0:{}', '{a{b}', '{0', '{!'):
    try:
        print(repr(bad), list(_string.formatter_parser(bad)))
    except ValueError as e:
        print(repr(bad), 'ValueError', e)
for f in ('a', '0', '12.x[3][k].y', 'obj[0]', '', '[1]', 'a.b', '٣.x', 'x[]'):
    first, rest = _string.formatter_field_name_split(f)
    try:
        print(repr(f), repr(first), list(rest))
    except ValueError as e:
        print(repr(f), 'ValueError', e)
for bad in ('a.', 'a[1', 'a[1]x', 'a..b'):
    try:
        print(list(_string.formatter_field_name_split(bad)[1]))
    except ValueError as e:
        print(repr(bad), 'ValueError', e)
try:
    _string.formatter_parser(1)
except TypeError as e:
    print('TypeError')
