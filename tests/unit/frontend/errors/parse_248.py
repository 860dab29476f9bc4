# regression: an error ending on a later line has its end column converted and clamped
# against the first line, newline included (CPython reads that line back from the file)
f(a=1
f(x, yyy)
)
