#!/usr/bin/env python3
"""The interactive prompt, driven through a pseudo-terminal as a person would type into it.

usage: repl_pty.py EMBER

Starts `ember` with no arguments on a pty (so stdin is a terminal and the REPL starts, with line
editing), types a multi-line function and a call of it, an expression that reads `_`, a
statement that raises, a Ctrl-C at the prompt, and exit through Ctrl-D, checking what the
terminal shows after each: the ps2 continuation prompt inside the block, the result, the
traceback and that the session goes on, KeyboardInterrupt, and a 0 exit status."""
import os
import pty
import select
import sys
import time

failures = []


def check(cond, what, seen):
    if not cond:
        failures.append(what)
        print("FAIL:", what, "\n--- terminal so far ---\n" + seen[-1500:] + "\n---")


class Session:
    def __init__(self, argv):
        env = dict(os.environ, EMBER_HISTFILE="", TERM="dumb", PYTHONSTARTUP="")
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execve(argv[0], argv, env)
        self.out = ""

    def read_until(self, text, timeout=20.0):
        """Read until `text` appears after what was already consumed; returns the new output."""
        end = time.time() + timeout
        start = len(self.out)
        while text not in self.out[start:]:
            left = end - time.time()
            if left <= 0:
                break
            r, _, _ = select.select([self.fd], [], [], left)
            if not r:
                continue
            try:
                data = os.read(self.fd, 4096)
            except OSError:
                break
            if not data:
                break
            self.out += data.decode("utf-8", "replace").replace("\r\n", "\n")
        return self.out[start:]

    def type(self, line):
        os.write(self.fd, line.encode() + b"\r")

    def wait(self):
        # A deadline, not a count of reads: once the child has closed the pty, read_until
        # returns at once (EIO), and 200 such reads passed before the child had exited.
        end = time.time() + 10.0
        while time.time() < end:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                return os.waitstatus_to_exitcode(status)
            self.read_until("\0", timeout=0.05)
            time.sleep(0.01)
        os.kill(self.pid, 9)
        return None


def main():
    s = Session([os.path.abspath(sys.argv[1])])
    banner = s.read_until(">>> ")
    check(">>> " in banner and "Ember" in banner, "banner and first prompt", s.out)

    s.type("def twice(n):")
    check("... " in s.read_until("... "), "continuation prompt inside a block", s.out)
    s.type("    total = n * 2")
    s.read_until("... ")
    s.type("    return total")
    s.read_until("... ")
    s.type("")                     # the blank line ends the block
    s.read_until(">>> ")
    s.type("twice(21)")
    got = s.read_until(">>> ")
    check("\n42\n" in got, "the function's result is shown (42)", s.out)

    s.type("_ + 1")
    got = s.read_until(">>> ")
    check("\n43\n" in got, "`_` holds the last result (43)", s.out)

    s.type("for i in range(2):")
    s.read_until("... ")
    s.type("    print('row', i)")
    s.read_until("... ")
    s.type("")
    got = s.read_until(">>> ")
    check("row 0\nrow 1\n" in got, "a for block runs", s.out)

    s.type("1 / 0")
    got = s.read_until(">>> ")
    check("ZeroDivisionError: division by zero" in got and "Traceback" in got,
          "an exception prints its traceback and the prompt comes back", s.out)

    s.type("twice")                # the session kept its state after the error
    got = s.read_until(">>> ")
    check("<function twice" in got, "the namespace survives the exception", s.out)

    os.write(s.fd, b"x = 'never'")  # typed, then interrupted
    time.sleep(0.2)
    os.write(s.fd, b"\x03")
    got = s.read_until(">>> ")
    check("KeyboardInterrupt" in got, "Ctrl-C at the prompt discards the line", s.out)

    os.write(s.fd, b"\x04")        # Ctrl-D at an empty prompt leaves
    status = s.wait()
    check(status == 0, "Ctrl-D exits with status 0 (got %r)" % status, s.out)
    print("%d checks failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
