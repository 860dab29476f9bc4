# An exception raised while a module is being imported: the traceback runs through the
# import statement into the module's code, and the half-imported module is not kept.
import sys
try:
    import _raises_on_import
except ZeroDivisionError as e:
    print("caught:", e, "_raises_on_import" in sys.modules)
import _raises_on_import
