# SyntaxError's constructor, attributes and str(), as compile() raises it and as user code
# builds it; an uncaught one prints its file, line and carets before the message.
def show(e):
    print(type(e).__name__, repr(str(e)), e.args[0], e.msg, e.filename, e.lineno, e.offset, repr(e.text),
          e.end_lineno, e.end_offset, e.print_file_and_line)


for src, mode in [('x = (1,\n2', 'exec'), ('  y = 1', 'exec'), ('def f(a, a): pass', 'exec'), ('1 +', 'eval'),
                  ('if x:\n\tpass\n        pass', 'exec'), ('return', 'exec'), ('x = ', 'single')]:
    try:
        compile(src, 'dir/sub/snippet.py', mode)
    except SyntaxError as e:
        show(e)
        print(len(e.args), e.args[1] if len(e.args) > 1 else None)
for args in [(), ('just a message',), ('m', ('f.py', 3, 4, 'text', 3, 9)), ('m', ('f.py', 3, 4, 'text')),
             ('m', (None, None, None, None)), ('m', ('f.py', None, 1, 't')), (1, 2, 3)]:
    e = SyntaxError(*args)
    show(e)
for bad in [('m', (1, 2)), ('m', ('f', 1, 2, 't', 3)), ('m', 5)]:
    try:
        SyntaxError(*bad)
    except TypeError as e:
        print('TypeError', e)
e = SyntaxError('x')
e.lineno = 7
e.filename = '/abs/path/name.py'
print(str(e))
e.filename = None
print(str(e))
print(str(IndentationError('bad indent', ('i.py', 2, 1, ' x', 2, 2))), issubclass(TabError, SyntaxError))


class Custom(SyntaxError):
    pass


print(str(Custom('c', ('c.py', 1, 1, 'c', 1, 2))))


def nested():
    exec("x = (\n  1,\n  2 +")


nested()
