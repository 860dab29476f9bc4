# Regression: running out of memory crashed in several places (a NULL string returned as a
# value, a compiler unit whose tables failed to allocate); it must raise MemoryError.
try:
    x = [0] * (2 ** 40)
except MemoryError as e:
    print("MemoryError", repr(e))
try:
    y = "ab" * (2 ** 45)
except MemoryError:
    print("MemoryError for a huge string")
print("still running")
