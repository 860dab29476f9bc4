x = 1
y = "abc
z = 2
w = = 3
def f(: pass
q = 1abc
ok = 1
r = (1,
