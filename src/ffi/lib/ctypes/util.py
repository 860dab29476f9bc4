"""ctypes.util for Ember scripts: find_library(name) returns the soname the dynamic linker
knows for lib<name> ("libm.so.6"), or None, as CPython's does on Linux."""
import _ctypes


def find_library(name):
    return _ctypes._find_library(name)
