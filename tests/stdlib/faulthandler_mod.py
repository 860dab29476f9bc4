# faulthandler: the stack dumps (on demand, on a fatal signal, on a user signal, after a
# timeout) in CPython 3.11's layout, and its errors.  Thread ids and absolute paths vary, so
# they are masked.  The crashing runs are child processes of sys.executable.
import faulthandler
import os
import re
import signal
import subprocess
import sys
import tempfile


def masked(text):
    text = re.sub(r"0x[0-9a-f]{16}", "0xTHREAD", text)
    return text.replace(os.path.dirname(os.path.abspath(__file__)) + os.sep, "")


def child(code, *args, env=None):
    e = dict(os.environ)
    e.pop("PYTHONFAULTHANDLER", None)
    # a sanitizer build's own fatal-signal handlers would take over after faulthandler's dump
    # (AddressSanitizer's DEADLYSIGNAL report instead of death by the signal)
    e["ASAN_OPTIONS"] = ":".join(filter(None, [e.get("ASAN_OPTIONS", ""), "handle_segv=0:handle_abort=0:"
                                               "handle_sigfpe=0:handle_sigbus=0:handle_sigill=0"]))
    e.update(env or {})
    p = subprocess.run([sys.executable, *args, "-c", code], capture_output=True, text=True, env=e)
    print("exit", p.returncode)
    print(masked(p.stdout + p.stderr), end="")


print(faulthandler.is_enabled(), faulthandler.disable())
with tempfile.TemporaryFile("w+") as f:
    def inner():
        faulthandler.dump_traceback(f, all_threads=False)
        faulthandler.dump_traceback(file=f)
        faulthandler.dump_traceback(f.fileno(), False)

    def outer():
        inner()

    outer()
    f.seek(0)
    print(masked(f.read()), end="")
faulthandler.enable()
print(faulthandler.is_enabled())
faulthandler.enable(all_threads=False)
print(faulthandler.disable(), faulthandler.is_enabled(), faulthandler.disable())

crash = """
import faulthandler
def h():
    faulthandler._sigsegv()
def g():
    h()
faulthandler.enable()
g()
"""
child(crash)
child(crash.replace("faulthandler.enable()", "faulthandler.enable(all_threads=False)").replace("_sigsegv", "_sigabrt"))
child("import faulthandler\nprint(faulthandler.is_enabled())\nfaulthandler._sigsegv()", "-X", "faulthandler")
child("import faulthandler\nprint(faulthandler.is_enabled())", env={"PYTHONFAULTHANDLER": "1"})
child("import faulthandler\nfaulthandler._sigfpe()")   # not enabled: no dump
child("import faulthandler, os, signal\n"
      "faulthandler.register(signal.SIGUSR1, all_threads=False)\n"
      "def f():\n    os.kill(os.getpid(), signal.SIGUSR1)\nf()\nprint('after', faulthandler.unregister(signal.SIGUSR1), faulthandler.unregister(signal.SIGUSR1))")
child("import faulthandler, time\n"
      "faulthandler.dump_traceback_later(0.2, exit=True)\n"
      "def wait():\n    time.sleep(5)\nwait()\nprint('not reached')")
child("import faulthandler, time\n"
      "faulthandler.dump_traceback_later(0.25)\nfaulthandler.cancel_dump_traceback_later()\n"
      "faulthandler.dump_traceback_later(1.5, repeat=True)\nfaulthandler.cancel_dump_traceback_later()\ntime.sleep(0.5)\nprint('cancelled')")

for bad in (lambda: faulthandler.register(signal.SIGSEGV), lambda: faulthandler.register(0),
            lambda: faulthandler.register(10000), lambda: faulthandler.unregister(signal.SIGABRT),
            lambda: faulthandler.dump_traceback_later(0), lambda: faulthandler.dump_traceback_later(-1.5),
            lambda: faulthandler.enable(file=-1), lambda: faulthandler.dump_traceback(file="x"),
            lambda: faulthandler.dump_traceback_later("a")):
    try:
        print(bad())
    except Exception as e:
        print(type(e).__name__, e)
old = sys.stderr
sys.stderr = None
try:
    faulthandler.enable()
except RuntimeError as e:
    print("RuntimeError", e)
sys.stderr = old
print(sorted(n for n in dir(faulthandler) if not n.startswith("_")))
