foo(a, b
