# Importing a module that does not exist raises ModuleNotFoundError (an ImportError).
try:
    import no_such_module_here
except ModuleNotFoundError as e:
    print("ModuleNotFoundError:", e, "|", e.name)
try:
    import no_such_package.sub
except ImportError as e:
    print(type(e).__name__, e)
print(issubclass(ModuleNotFoundError, ImportError))
import definitely_missing_module
