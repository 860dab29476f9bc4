if a:
    b = 1
    if c:
        d = 2

        # comment at a deeper level
    e = 3
  # comment at a shallower level
f = 4
def g(
        x,
  y):
    return x
class H:
    pass
if a: pass
while b:
	c = 1
	while d:
		e = 2
z = 1 \
    + 2
