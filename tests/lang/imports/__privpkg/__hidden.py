"""A submodule reached by `import __privpkg.__hidden as __h` (IMPORT_FROM `__hidden`, unmangled)."""
print("init", __name__)
LEVEL = "hidden"
