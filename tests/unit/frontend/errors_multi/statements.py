x = 1 +

def f(:
    pass

y = 1
z = = 2

class A
    pass

print "hello"

for x in range(3) pass

ok = True
