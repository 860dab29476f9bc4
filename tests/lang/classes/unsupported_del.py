# Ember-specific (recorded with --ember): __del__ finalizers are refused at the class statement
# (Ember's collector frees objects at times unrelated to CPython's reference counting, so the
# finalizer could not run when CPython runs it).
class Plain:
    pass
print("plain class ok")
class WithDel:
    def __del__(self):
        print("finalized")
