# pass in every block position.
def f(): pass
class C: pass
if True: pass
for _ in range(1): pass
while False: pass
try: pass
except Exception: pass
finally: pass
print(f(), C.__name__, "ok")
