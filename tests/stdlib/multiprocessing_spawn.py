# multiprocessing's spawn start method on Ember: the child is a fresh `ember` running
# multiprocessing.spawn.spawn_main, given its descriptors through _posixsubprocess.fork_exec's
# pass_fds (which must be made inheritable), with the resource tracker (_posixshmem) alongside.
# A Lock and a Pipe end are pickled for the child (SemLock._rebuild by name, DupFd).
import multiprocessing as mp
import os
import subprocess
import sys


def child(conn, lock, x):
    with lock:
        conn.send((x * 2, mp.current_process().name, mp.parent_process() is not None))
    conn.close()


def fail():
    sys.exit(7)


if __name__ == "__main__":
    r, w = os.pipe()
    os.write(w, b"kept")
    os.close(w)
    out = subprocess.run([sys.executable, "-c", "import os, sys; print(os.read(int(sys.argv[1]), 10))", str(r)],
                         pass_fds=[r], capture_output=True, text=True)
    print(out.stdout.strip(), out.returncode)
    os.close(r)
    ctx = mp.get_context("spawn")
    print(ctx.get_start_method())
    a, b = ctx.Pipe()
    lock = ctx.Lock()
    p = ctx.Process(target=child, args=(b, lock, 21), name="spawned")
    p.start()
    print(a.recv())
    p.join()
    print(p.exitcode)
    p = ctx.Process(target=fail)
    p.start()
    p.join()
    print(p.exitcode)
