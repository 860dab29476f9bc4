# warnings.warn with the default filters: printed once per location to stderr as
# "file:line: Category: message" plus the source line; DeprecationWarning shown in __main__.
import warnings
def check(x):
    if x < 0:
        warnings.warn("negative value", stacklevel=2)
    warnings.warn("inside check")
    return abs(x)
for v in [-1, -2, 3]:
    check(v)
check(-5)
warnings.warn("explicit category", RuntimeWarning)
warnings.warn("deprecated thing", DeprecationWarning)
warnings.warn(UserWarning("instance message"))
class MyWarning(UserWarning):
    pass
warnings.warn("custom category", MyWarning)
for i in range(2):
    warnings.warn("in a loop: once")
print("done")
