# warnings.formatwarning and warnings.showwarning replaced by assignment (as the ModTracker seed
# does): warn() uses the replacements; stacklevel picks the reported caller.
import warnings
import sys
def custom_formatwarning(msg, category, filename, lineno, line=None):
    return f"{filename}:{lineno}: {category.__name__}: {msg} \n"
warnings.formatwarning = custom_formatwarning
def helper():
    warnings.warn("The module hierarchy tracking maybe be messed up."
                  " Please file a bug to PyTorch, if it is the case.", stacklevel=2)
def user_code():
    helper()
user_code()
print("stdout line")
shown = []
def custom_show(message, category, filename, lineno, file=None, line=None):
    shown.append((str(message), category.__name__, filename, lineno))
old = warnings.showwarning
warnings.showwarning = custom_show
warnings.warn("captured by showwarning")
warnings.showwarning = old
print(shown)
warnings.formatwarning = warnings._formatwarning_orig if hasattr(warnings, "_formatwarning_orig") else None
warnings.warn("back to the default format")
print(warnings.formatwarning("m", UserWarning, "f.py", 3, line="code here"), end="")
