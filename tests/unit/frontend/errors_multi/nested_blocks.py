def outer():
    a = 1
    b = (a
    c = 3

def fine():
    return 1

if x
    y = 2
    if z:
        w = 3

while True:
    break

lambda x: = 1

import a.b as
