# Importing a name that a module does not define raises ImportError naming the module.
try:
    from _helper import nothing_here
except ImportError as e:
    print("ImportError:", e, "|", e.name)
from _helper import missing_thing
