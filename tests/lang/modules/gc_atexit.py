# gc (collect, disable/enable, isenabled) and atexit (handlers run after the script, last
# registered first, with arguments; unregister).
import gc
import atexit
print(gc.isenabled(), isinstance(gc.collect(), int))
gc.disable()
print(gc.isenabled())
gc.enable()
print(gc.isenabled())
def bye(name, punct="!"):
    print("goodbye", name + punct)
atexit.register(bye, "first")
atexit.register(bye, "second", punct="?")
def never():
    print("never printed")
atexit.register(never)
atexit.unregister(never)
@atexit.register
def decorated():
    print("decorated handler")
print("end of script")
