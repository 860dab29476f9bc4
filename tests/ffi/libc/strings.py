# libc string functions through ctypes: strlen, strcmp, snprintf into a buffer, strchr
# returning a pointer, toupper on chars.
import ctypes
import ctypes.util
from ctypes import CDLL, c_char_p, c_int, c_size_t, c_double, c_char, create_string_buffer, sizeof

libc = CDLL(ctypes.util.find_library("c"))

strlen = libc.strlen
strlen.argtypes = [c_char_p]
strlen.restype = c_size_t
print("strlen", strlen(b"hello, world"), strlen(b""))

# without argtypes: bytes pass as char*, the result is a C int
print("strcmp", libc.strcmp(b"abc", b"abd") < 0, libc.strcmp(b"b", b"a") > 0, libc.strcmp(b"x", b"x"))

buf = create_string_buffer(64)
n = libc.snprintf(buf, sizeof(buf), b"%d-%s-%.3f|%5d|%c", 42, b"ember", c_double(3.14159), -7, ord("z"))
print("snprintf", n, buf.value)
print(buf.raw[:n])

snprintf = libc.snprintf
snprintf.argtypes = [c_char_p, c_size_t, c_char_p]
small = create_string_buffer(8)
n = snprintf(small, sizeof(small), b"%s and %s", b"ctypes", b"libffi")
print("truncated", n, small.value, len(small.raw))

strchr = libc.strchr
strchr.argtypes = [c_char_p, c_int]
strchr.restype = c_char_p
print("strchr", strchr(b"find the needle", ord("n")), strchr(b"abc", ord("z")))

toupper = libc.toupper
print("toupper", chr(toupper(ord("q"))), [chr(toupper(c)) for c in b"ctypes"])

s = create_string_buffer(b"abc")
print(len(s), s.value, s.raw, s[0], s[1:3])
s.value = b"xy"
print(s.raw, s.value)
libc.memset(s, ord("k"), 3)
print(s.raw)
print(ctypes.string_at(s), ctypes.string_at(s, 2))
