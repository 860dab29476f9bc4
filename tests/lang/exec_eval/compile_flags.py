# compile()'s flags for interactive input (what codeop and the REPL pass): PyCF_ALLOW_INCOMPLETE_INPUT
# turns a parse that failed at the end of the input into SyntaxError('incomplete input'), and
# PyCF_DONT_IMPLY_DEDENT keeps the blocks of an unterminated last line open in 'single' mode.
ALLOW_INCOMPLETE, DONT_IMPLY_DEDENT = 0x4000, 0x200
sources = ['if x:', 'if x:\n', 'if x:\n\n', 'if x:\n    print(1)', 'if x:\n    print(1)\n', 'def f(n):\n    return n * 2',
           'x = (', '1 +', '1 +\n', 'x = 1', 'x = "abc', 'x = """abc', 'x = (1,\n', 'x = \\', 'if x:\n  pass\n else:',
           'for x in y:\n    if z:\n        pass', '@dec', 'class C:', 'x = [\n1,', '1 + (2', 'x = 1 +',
           'def f():\n    x = (1,\n', 'if x:\n\n\n', 'x = )', 'while True:\n    pass\nelse:']
for src in sources:
    for flags in (ALLOW_INCOMPLETE | DONT_IMPLY_DEDENT, DONT_IMPLY_DEDENT, ALLOW_INCOMPLETE, 0):
        for mode in ('single', 'exec'):
            try:
                compile(src, '<stdin>', mode, flags)
                result = 'ok'
            except SyntaxError as e:
                result = '%s: %s %r' % (type(e).__name__, e, (e.lineno, e.offset, e.end_lineno, e.end_offset, e.text))
            print(repr(src), hex(flags), mode, result)
