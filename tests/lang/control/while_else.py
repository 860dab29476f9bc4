# while loops, while/else, break skipping else, continue.
i = 0
while i < 5:
    i += 1
    if i == 2:
        continue
    print("i =", i)
else:
    print("else ran, i =", i)
n = 0
while True:
    n += 1
    if n > 3:
        break
else:
    print("never")
print("after break n =", n)
j = 10
while j < 5:
    print("never")
else:
    print("else on zero iterations")
a, b = 0, 1
fib = []
while len(fib) < 10:
    fib.append(a)
    a, b = b, a + b
print(fib)
