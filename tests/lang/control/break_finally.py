# break and continue inside try/finally and with: the finally / __exit__ always runs.
class CM:
    def __init__(self, name): self.name = name
    def __enter__(self):
        print("enter", self.name)
        return self
    def __exit__(self, *exc):
        print("exit", self.name, exc)
        return False
for i in range(3):
    try:
        if i == 1:
            continue
        if i == 2:
            break
        print("body", i)
    finally:
        print("finally", i)
for i in range(3):
    with CM(i):
        if i == 0:
            continue
        if i == 1:
            break
        print("unreached")
while True:
    try:
        try:
            break
        finally:
            print("inner finally")
    finally:
        print("outer finally")
def f():
    for i in range(5):
        with CM("r"):
            try:
                return i
            finally:
                print("finally before return", i)
print("returned", f())
for i in range(2):
    try:
        pass
    finally:
        if i == 0:
            continue
    print("after try", i)
