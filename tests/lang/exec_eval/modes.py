# compile() in its three modes: which sources are one statement or one expression, the
# SyntaxErrors of each mode, and what single mode shows through sys.displayhook.

import sys
sys.displayhook = lambda v: print("shown", repr(v))
for src in ['if 1:\n  x', 'if 1:\n  x\n', 'x', 'def f():\n  return 1', '(1,\n2', 'x\n', 'x  ', 'x #c', '1 +\n', 'a = (1,\n 2)', 'for i in range(2):\n  i\n', '  x', 'x\n  y', 'pass', '\n\n', 'x = 1; x', 'if x:\n  pass\nelse:\n  pass\n', '@d\ndef f(): pass']:
    for mode in ("single", "eval", "exec"):
        try:
            co = compile(src, "<s>", mode)
            print(mode, repr(src), "ok")
            if mode == "single":
                exec(co, {"x": 3, "y": 4, "d": lambda f: f})
        except SyntaxError as e:
            print(mode, repr(src), type(e).__name__, e.msg, e.lineno, e.offset)

