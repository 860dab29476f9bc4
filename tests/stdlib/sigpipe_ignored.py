# As CPython's start-up, SIGPIPE (and SIGXFSZ) are ignored: writing to a pipe whose reader has
# gone raises BrokenPipeError instead of killing the process (Ember was killed, exit 141)
import os
import signal

print(signal.getsignal(signal.SIGPIPE), signal.getsignal(signal.SIGXFSZ))
r, w = os.pipe()
os.close(r)
try:
    os.write(w, b"x")
except BrokenPipeError as e:
    print("BrokenPipeError", e.errno)
os.close(w)
pid = os.fork()
if pid == 0:
    os._exit(0 if signal.getsignal(signal.SIGPIPE) == signal.SIG_IGN else 1)
print("child inherits:", os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
import subprocess
# subprocess children get the default back (restore_signals): a shell that signals itself dies
res = subprocess.run(["/bin/sh", "-c", "kill -PIPE $$; echo survived"], capture_output=True, text=True)
print(repr(res.stdout), res.returncode)
