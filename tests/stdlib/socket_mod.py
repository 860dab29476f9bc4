# socket over Ember's _socket (vm/mod_socket.c, vm/mod_socket_addr.c): socketpair, a TCP
# server and client on 127.0.0.1 in one process (non-blocking accept / connect), makefile,
# timeouts, errors, name resolution, the packing helpers and fd passing with sendmsg/recvmsg.
import array
import errno
import os
import select
import socket

# ---- socketpair
a, b = socket.socketpair()
print(a.family, b.type, a.proto, repr(a.family), repr(a.type))
print(a.getsockname(), a.gettimeout(), a.getblocking())
a.sendall(b"hello")
print(b.recv(10))
print(a.send(b"xyz"), b.recv(1), b.recv(10))
buf = bytearray(8)
a.send(b"abcd")
print(b.recv_into(buf), buf)
a.send(b"efgh")
print(b.recv_into(buf, 2), buf, b.recv(10))
b.setblocking(False)
print(b.getblocking(), b.gettimeout())
try:
    b.recv(10)
except BlockingIOError as e:
    print("BlockingIOError", e.errno == errno.EAGAIN)
b.settimeout(0.05)
print(b.gettimeout(), b.getblocking())
try:
    b.recv(10)
except TimeoutError as e:
    print(type(e).__name__, e, socket.timeout is TimeoutError)
a.shutdown(socket.SHUT_WR)
print(b.recv(10))
fd = a.detach()
print(a.fileno(), fd > 2)
os.close(fd)
b.close()
print(b.fileno(), b)
try:
    b.recv(1)
except OSError as e:
    print(type(e).__name__, e.errno == errno.EBADF)

# ---- makefile over a socketpair
a, b = socket.socketpair()
wf = a.makefile("w")
rf = b.makefile("r")
wf.write("line one\nline two\n")
wf.flush()
print(rf.readline(), end="")
print(rf.readline(), end="")
wf.close(); rf.close(); a.close(); b.close()

# ---- TCP on 127.0.0.1, one process
srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
print(srv.getsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR) != 0)
srv.bind(("127.0.0.1", 0))
srv.listen()
host, port = srv.getsockname()
print(host, port > 0)
cli = socket.socket()
cli.setblocking(False)
print(cli.connect_ex((host, port)) in (0, errno.EINPROGRESS))
conn, addr = srv.accept()
print(type(conn).__name__, addr[0], addr[1] == cli.getsockname()[1], conn.getpeername() == cli.getsockname())
select.select([], [cli], [], 5)
cli.setblocking(True)
cli.sendall(b"ping" * 1000)
got = b""
while len(got) < 4000:
    got += conn.recv(4096)
print(len(got), got[:8])
conn.sendall(b"pong")
print(cli.recv(4))
cli.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
print(cli.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
print(conn.timeout, srv.type, conn.family)
cli.close()
print(conn.recv(10))
conn.close()

# accept with a timeout
srv.settimeout(0.05)
try:
    srv.accept()
except socket.timeout as e:
    print("accept:", e)
srv.close()

# create_connection / create_server
srv = socket.create_server(("127.0.0.1", 0))
port = srv.getsockname()[1]
c = socket.create_connection(("127.0.0.1", port), timeout=2)
s2, _ = srv.accept()
with c, s2:
    c.sendall(b"via create_connection")
    print(s2.recv(100))
srv.close()

# UDP
u1 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u2 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u1.bind(("127.0.0.1", 0))
u2.sendto(b"datagram", u1.getsockname())
data, frm = u1.recvfrom(100)
print(data, frm == u2.getsockname())
u2.sendto(b"dgram2", 0, u1.getsockname())
buf = bytearray(10)
n, frm = u1.recvfrom_into(buf)
print(n, bytes(buf[:n]))
u1.close(); u2.close()

# ---- errors
s = socket.socket()
s.bind(("127.0.0.1", 0))
dead = s.getsockname()
s.close()
c = socket.socket()
try:
    c.connect(dead)
except ConnectionRefusedError as e:
    print("ConnectionRefusedError", e.errno == errno.ECONNREFUSED)
print(c.connect_ex(dead) == errno.ECONNREFUSED)
for bad in ["127.0.0.1", ("127.0.0.1",), ("127.0.0.1", 70000), (1, 2)]:
    try:
        c.connect(bad)
    except (TypeError, OverflowError) as e:
        print(type(e).__name__, e)
c.close()
try:
    socket.socket().bind(("no.such.host.invalid", 80))
except socket.gaierror as e:
    print("gaierror", isinstance(e, OSError), e.errno in (socket.EAI_NONAME, socket.EAI_AGAIN, socket.EAI_FAIL))
print(issubclass(socket.herror, OSError), socket.gaierror.__module__)
try:
    socket.socket().settimeout(-1)
except ValueError as e:
    print(e)

# ---- AF_UNIX with a path
import tempfile
d = tempfile.mkdtemp()
path = os.path.join(d, "sock")
us = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
us.bind(path)
us.listen()
uc = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
uc.connect(path)
uconn, uaddr = us.accept()
print(us.getsockname() == path, repr(uaddr), uc.getpeername() == path)
uc.sendall(b"unix")
print(uconn.recv(10))
# fd passing
r, w = os.pipe()
print(socket.send_fds(uc, [b"fds"], [r]))
msg, fds, flags, addr = socket.recv_fds(uconn, 10, 1)
print(msg, len(fds), flags)
os.write(w, b"through the passed fd")
print(os.read(fds[0], 100))
for f in (r, w, fds[0]):
    os.close(f)
uc.close(); uconn.close(); us.close()
os.unlink(path); os.rmdir(d)

# ---- names and helpers
infos = socket.getaddrinfo("localhost", 80, socket.AF_INET, socket.SOCK_STREAM)
print(infos[0])
print(socket.getaddrinfo("127.0.0.1", "http", socket.AF_INET, socket.SOCK_STREAM, 0, socket.AI_NUMERICHOST)[0][4])
print(socket.getaddrinfo(None, 0, socket.AF_INET, socket.SOCK_STREAM, 0, socket.AI_PASSIVE)[0][4])
print(socket.getnameinfo(("127.0.0.1", 80), socket.NI_NUMERICHOST | socket.NI_NUMERICSERV))
print(socket.gethostbyname("127.0.0.1"), socket.gethostbyname("localhost"))
print(socket.gethostbyname_ex("127.0.0.1")[2])
print(isinstance(socket.gethostname(), str))
print(socket.inet_aton("1.2.3.4"), socket.inet_ntoa(b"\x7f\x00\x00\x01"))
print(socket.inet_pton(socket.AF_INET6, "::1"), socket.inet_ntop(socket.AF_INET6, b"\x00" * 15 + b"\x01"))
print(socket.inet_ntop(socket.AF_INET, b"\x0a\x00\x00\x01"))
for f, arg in [(socket.inet_aton, "1.2.3.999"), (socket.inet_ntoa, b"abc"),
               (socket.htons, 70000), (socket.htons, -1), (socket.htonl, 1 << 33)]:
    try:
        f(arg)
    except (OSError, OverflowError, ValueError) as e:
        print(type(e).__name__, e)
print(socket.htons(1), socket.ntohs(256), socket.htonl(1), socket.ntohl(16777216))
print(socket.getdefaulttimeout())
socket.setdefaulttimeout(2.5)
s = socket.socket()
print(s.gettimeout(), s.getblocking())
s.close()
socket.setdefaulttimeout(None)
print(socket.CMSG_LEN(4), socket.CMSG_SPACE(4), socket.SOMAXCONN > 0)
print(socket.AF_INET, socket.SOCK_DGRAM, socket.SOL_SOCKET, socket.SCM_RIGHTS, socket.MSG_PEEK)
print(socket.SocketKind.SOCK_STREAM, socket.AddressFamily(10).name)
p1, p2 = socket.socketpair()
a = socket.socket(fileno=os.dup(p1.fileno()))
print(a.family, a.type, a.proto, a.get_inheritable())
f = socket.fromfd(p2.fileno(), socket.AF_UNIX, socket.SOCK_STREAM)
print(f.family, f.fileno() != p2.fileno())
for x in (a, f, p1, p2):
    x.close()
try:
    socket.socket(fileno=-1)
except ValueError as e:
    print(e)
print(socket.getservbyname("http", "tcp"), socket.getservbyport(443, "tcp"), socket.getprotobyname("udp"))
for f, a in [(socket.getservbyname, ("no-such-service",)), (socket.getservbyport, (70000,)),
             (socket.getprotobyname, ("nope",))]:
    try:
        f(*a)
    except (OSError, OverflowError) as e:
        print(type(e).__name__, e)
print(socket.getfqdn("127.0.0.1") != "")
# ---- edge cases: the raw _socket type, option buffers, argument errors, closed sockets, IPv6,
# datagram socketpairs, the abstract AF_UNIX namespace
import _socket
s = _socket.socket()
print(repr(s).split(",")[2:], s.timeout, s.family, s.type)
print(s.getsockopt(socket.SOL_SOCKET, socket.SO_LINGER, 8))
s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x00" * 8)
for bad in [lambda: s.getsockopt(socket.SOL_SOCKET, socket.SO_LINGER, 0), lambda: s.recv(-1),
            lambda: s.settimeout("x"), lambda: s.sendto(b"x"), lambda: s.recv_into(bytearray(2), 5),
            lambda: socket.inet_pton(99, "1.2.3.4"), lambda: socket.inet_ntop(socket.AF_INET, b"123"),
            lambda: socket.getaddrinfo("localhost", 1.5), lambda: socket.inet_pton(socket.AF_INET, "zzz"),
            lambda: socket.socket(socket.AF_UNIX).bind("x" * 200), lambda: socket.socket(socket.AF_UNIX).bind(3),
            lambda: socket.socket(socket.AF_INET6).bind(("::1",)), lambda: socket.getnameinfo("x", 0),
            lambda: socket.socket(12345)]:
    try:
        print(bad())
    except Exception as e:
        print(type(e).__name__, e)
s.close(); s.close()
print(s.fileno())
try: s.listen()
except OSError as e: print(e.errno == errno.EBADF)
u = socket.socket(socket.AF_INET6)
u.bind(("::1", 0)); print(u.getsockname()[0], len(u.getsockname()))
u.close()
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
a.send(b"dg"); print(b.recvfrom(10)); a.close(); b.close()
import os
name = b"\0ember-abstract-%d" % os.getpid()
x = socket.socket(socket.AF_UNIX); x.bind(name); print(x.getsockname() == name, type(x.getsockname())); x.close()
print(socket.create_connection.__name__, socket.has_dualstack_ipv6())
