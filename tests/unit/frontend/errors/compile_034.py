import sys
from __future__ import print_function
