# Bad input raises the exception CPython's ctypes raises, with its message: wrong argument
# counts and types (ctypes.ArgumentError), missing libraries and symbols, bad _fields_ and
# _type_, bad values for the simple types, NULL pointer access, out-of-range indices,
# abstract classes.
import ctypes
import ctypes.util
from ctypes import *

libc = CDLL(ctypes.util.find_library("c"))


def check(label, f):
    try:
        r = f()
        print(label, "->", r)
    except Exception as e:
        print(label, "->", type(e).__name__ + ":", e)


strlen = libc.strlen
strlen.argtypes = [c_char_p]
strlen.restype = c_size_t
check("no args", lambda: strlen())
check("int for char*", lambda: strlen(1))
check("str for char*", lambda: strlen("abc"))
check("extra args", lambda: strlen(b"ab", b"cd"))
check("float default", lambda: libc.abs(1.5))
check("is ArgumentError", lambda: issubclass(ArgumentError, Exception))

labs = libc.labs
labs.argtypes = [c_long]
labs.restype = c_long
check("str for long", lambda: labs("7"))
check("c_int for long", lambda: labs(c_int(7)))
check("None for long", lambda: labs(None))

frexp = CDLL(ctypes.util.find_library("m")).frexp
frexp.argtypes = [c_double, POINTER(c_int)]
frexp.restype = c_double
check("wrong pointer", lambda: frexp(1.0, byref(c_double())))
check("int for pointer", lambda: frexp(1.0, 5))
check("double for pointer", lambda: frexp(1.0, c_double(2)))


class POINT(Structure):
    _fields_ = [("x", c_int), ("y", c_int)]


div = libc.div
div.argtypes = [POINT]
check("struct arg", lambda: div(5))
check("bad restype", lambda: setattr(div, "restype", 5))
check("bad argtypes", lambda: setattr(div, "argtypes", [c_int, 5]))
check("bad errcheck", lambda: setattr(div, "errcheck", 3))

check("missing lib", lambda: CDLL("libember_no_such_library.so"))
check("missing symbol", lambda: libc["ember_no_such_symbol"])
check("loader", lambda: cdll.LoadLibrary("libember_no_such_library.so"))


def bad_fields(fields):
    def make():
        class Bad(Structure):
            _fields_ = fields
        return Bad
    return make


check("fields not a sequence", bad_fields(5))
check("field not a type", bad_fields([("x", 5)]))
check("field not a pair", bad_fields([("x",)]))
check("field name not str", bad_fields([(1, c_int)]))


class Final(Structure):
    _fields_ = [("a", c_int)]


def set_fields_twice():
    Final._fields_ = [("z", c_int)]


check("fields final", set_fields_twice)
check("too many initializers", lambda: POINT(1, 2, 3))
check("duplicate field", lambda: POINT(1, x=2))
check("bad field value", lambda: POINT("a"))
check("struct field", lambda: setattr(POINT(), "x", 1.5))


def bad_type(code):
    def make():
        class Bad(ctypes._SimpleCData):
            _type_ = code
        return Bad
    return make


check("bad _type_", bad_type("x"))
check("_type_ not str", bad_type(5))
check("c_int str", lambda: c_int("x"))
check("c_int float", lambda: c_int(1.5))
check("c_int None", lambda: c_int(None))
check("c_double str", lambda: c_double("x"))
check("c_char_p str", lambda: c_char_p("x"))
check("c_char too long", lambda: c_char(b"ab"))
check("c_void_p str", lambda: c_void_p("x"))
check("c_wchar long", lambda: c_wchar("ab"))

check("sizeof int", lambda: sizeof(3))
check("sizeof abstract", lambda: sizeof(Structure))
check("alignment", lambda: alignment("x"))
check("abstract Structure", lambda: Structure())
check("abstract Array", lambda: Array())
check("abstract pointer", lambda: ctypes._Pointer())
check("byref int", lambda: byref(3))
check("addressof int", lambda: addressof(5))
check("pointer int", lambda: pointer(3))
check("POINTER int", lambda: POINTER(3))
check("cast float", lambda: cast(3.0, c_void_p))
check("cast to int type", lambda: cast(c_int(3), c_int))
check("negative array", lambda: c_int * -1)
check("array float length", lambda: c_int * 1.5)
check("array index", lambda: (c_int * 3)()[3])
check("array negative index", lambda: (c_int * 3)()[-4])
check("array too many", lambda: (c_int * 2)(1, 2, 3))
check("array str item", lambda: (c_int * 2)("a"))
check("array del", lambda: (c_int * 2)().__delitem__(0))
check("slice size", lambda: (c_int * 3)().__setitem__(slice(0, 2), [1]))
check("int array value", lambda: (c_int * 2)().value)
check("char array too long", lambda: setattr((c_char * 2)(), "value", b"abc"))
check("string buffer str", lambda: create_string_buffer("hi"))
check("string buffer small", lambda: create_string_buffer(b"hi", 1))
check("NULL contents", lambda: POINTER(c_int)().contents)
check("NULL index", lambda: POINTER(c_int)()[0])
check("contents type", lambda: setattr(POINTER(c_int)(), "contents", 5))
check("from_param", lambda: c_int.from_param(1.5))
check("pointer from_param", lambda: POINTER(c_int).from_param(5))
check("struct from_param", lambda: POINT.from_param(5))
check("callback struct result", lambda: CFUNCTYPE(POINT)(lambda: None))
check("callback not callable", lambda: CFUNCTYPE(c_int)("abc"))
