# Importing a sibling .py file: every import form, module caching, module attributes.
import _helper
import _helper as h2
from _helper import double, VALUE as V
from _helper import Thing
print(_helper.VALUE, h2 is _helper, double(V), Thing(), _helper.__name__)
import sys
print("_helper" in sys.modules, sys.modules["_helper"] is _helper)
print(type(_helper).__name__, _helper.double.__module__)
from _helper import *
print(Thing, "_private" in dir())
_helper.VALUE = 7
import _helper
print(_helper.VALUE)
