pass
x = 1; y = 2; z = 3
x = 1;
if x: pass; pass
def f(): return 1; pass
class A: x = 1; y = 2
for i in x: break
while x: continue
expression_statement
f(x)
x.method()
"a string statement"
...
(yield_expr_in_parens) if False else None
