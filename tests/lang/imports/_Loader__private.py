"""Imported by private_import.py as `import __private` inside class Loader (names mangle)."""
print("importing", __name__)
_Loader__secret = "secret"
plain = "plain"
