# sys.exit raises SystemExit; finally blocks run; the exit code is the argument.
import sys
try:
    sys.exit(3)
except SystemExit as e:
    print("caught SystemExit", e.code)
try:
    print("in try")
    sys.exit(2)
finally:
    print("finally runs")
