"""A package whose name starts with two underscores: imported by private_import.py from inside
a class, where `import __privpkg._part` imports this package unmangled (a dotted path) but
binds `_Loader__privpkg`."""
print("init", __name__)
