if a:
    pass
if a:
    x = 1
else:
    x = 2
if a:
    x = 1
elif b:
    x = 2
elif c:
    x = 3
else:
    x = 4
while x:
    x -= 1
while x:
    break
else:
    y = 1
for i in range(10):
    if i == 3:
        continue
    if i == 5:
        break
else:
    done = True
for a, b in pairs:
    pass
for (a, b), c in nested:
    pass
for x, in single:
    pass
for x in 1, 2, 3:
    pass
for x in *a, *b:
    pass
if x: pass
while y: y -= 1
for z in w: print(z)
