# regression: after a primary, genexp's invalid_comprehension also looks at "[" and "{"
x {a b}
