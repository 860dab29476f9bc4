# multiprocessing with the fork context over Ember's _multiprocessing (vm/mod_multiprocessing.c)
# and _socket: Process with exit codes and an exception in the child, Pipe (duplex and not),
# SimpleQueue across processes, Listener / Client (TCP and AF_UNIX, authkey), Lock / RLock /
# Semaphore / BoundedSemaphore / Event / Condition and the SemLock messages.  (Queue and Pool
# start threads, and Value / Array need mmap: not in Ember yet.)
import multiprocessing as mp, sys, os
def child_pipe(conn):
    conn.send({"a": [1, 2]}); conn.send_bytes(b"raw"); conn.send(("got", conn.recv())); conn.close()
def boom():
    raise ValueError("child failed")
def ex(code):
    sys.exit(code)
def sq(q, i):
    q.put(i * i)
def locked_write(lock, w, i):
    with lock:
        w.send(i * 10)
def notify(cond, ev):
    with cond:
        ev.set()
        cond.notify_all()
def post(sem):
    sem.release()
def client(addr, fam):
    from multiprocessing.connection import Client
    with Client(addr, family=fam, authkey=b"secret") as c:
        c.send(["hello", fam]); print("child got", c.recv(), flush=True)
if __name__ == "__main__":
    a, b = mp.Pipe()
    p = mp.Process(target=child_pipe, args=(b,)); p.start()
    print(a.recv(), a.recv_bytes()); a.send("hi"); print(a.recv()); p.join(); print(p.exitcode)
    r, w = mp.Pipe(duplex=False); w.send(5); print(r.recv(), r.poll())
    p = mp.Process(target=boom); p.start(); p.join(); print("boom", p.exitcode)
    for c in (0, 3, "msg"):
        p = mp.Process(target=ex, args=(c,)); p.start(); p.join(); print("exit", c, p.exitcode)
    q = mp.SimpleQueue()
    ps = [mp.Process(target=sq, args=(q, i)) for i in range(3)]
    for x in ps: x.start()
    for x in ps: x.join()
    print(sorted(q.get() for _ in range(3)))
    s = mp.Semaphore(2); print(s.acquire(), s.acquire(), s.acquire(False), s.get_value())
    s.release(); print(s)
    bs = mp.BoundedSemaphore(1)
    try:
        bs.release()
    except ValueError as e: print(e)
    e = mp.Event(); print(e.is_set()); e.set(); print(e.wait(1))
    rl = mp.RLock(); rl.acquire(); rl.acquire(); print(rl); rl.release(); rl.release()
    try: rl.release()
    except AssertionError as e: print("AssertionError", e)
    l = mp.Lock(); print(l.acquire(timeout=0.01), l.acquire(timeout=0.01)); l.release()
    print(mp.current_process().name, mp.cpu_count() > 0, mp.active_children())
    # a Lock shared with children: each appends under it; a Condition wakes the parent
    lock = mp.Lock()
    r, w = mp.Pipe(duplex=False)
    ps = [mp.Process(target=locked_write, args=(lock, w, i)) for i in range(3)]
    for x in ps: x.start()
    for x in ps: x.join()
    print(sorted(r.recv() for _ in range(3)), [x.exitcode for x in ps])
    cond = mp.Condition()
    ev = mp.Event()
    p = mp.Process(target=notify, args=(cond, ev)); p.start()
    with cond:
        print("waited", cond.wait_for(ev.is_set, timeout=10))
    p.join()
    sem = mp.Semaphore(0)
    p = mp.Process(target=post, args=(sem,)); p.start()
    print("child released", sem.acquire(timeout=10)); p.join()
    p = mp.Process(target=ex, args=(0,), name="worker-x", daemon=True)
    print(p.name, p.daemon, p.is_alive(), p.pid)
    p.start(); p.join(); print(p.is_alive(), p.exitcode, p.pid > 0)
    import _multiprocessing
    print(_multiprocessing.flags, _multiprocessing.SemLock.SEM_VALUE_MAX > 0)
    try:
        _multiprocessing.SemLock(5, 1, 1, "/ember-bad-kind", True)
    except ValueError as e: print(e)
    # multiprocessing.connection's Listener / Client over TCP and AF_UNIX, with authentication
    from multiprocessing.connection import Listener
    for fam in ("AF_INET", "AF_UNIX"):
        with Listener(family=fam, authkey=b"secret") as l:
            p = mp.Process(target=client, args=(l.address, fam)); p.start()
            with l.accept() as conn:
                print(conn.recv(), flush=True); conn.send(42)
            p.join(); print(p.exitcode, l.last_accepted is not None)
