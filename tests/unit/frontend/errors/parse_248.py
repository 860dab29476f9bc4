# regression: an error ending on a later line clamps its end column to the first
# line without its newline (CPython reads earlier lines from its buffers)
f(a=1
f(x, yyy)
)
