# Regression: slicing or repeating bytes crashed (bytes_new copied from a NULL source).
b = b"hello"
print(b[1:3], b[::-1], b[10:], bytes(3), b * 2)
