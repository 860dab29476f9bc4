# _signal (handlers run when a sleep is interrupted), select (select, poll), _locale, pwd and grp.
import _signal as signal, _locale, pwd, grp, select, posix, time
print(signal.SIGINT, signal.getsignal(signal.SIGINT).__name__, signal.getsignal(signal.SIGTERM), signal.SIG_IGN)
got = []
old = signal.signal(signal.SIGALRM, lambda s, f: got.append(s))
signal.setitimer(signal.ITIMER_REAL, 0.05)
time.sleep(0.3)
print(old, got, signal.strsignal(signal.SIGTERM), 9 in signal.valid_signals())
print(_locale.getencoding(), _locale.setlocale(_locale.LC_CTYPE), _locale.localeconv()['decimal_point'])
print(pwd.getpwuid(0).pw_name, grp.getgrgid(0).gr_name, type(pwd.getpwuid(0)).__name__)
try: pwd.getpwnam('nosuchuser')
except KeyError as e: print(e)
r, w = posix.pipe(); posix.write(w, b'x')
print(select.select([r], [w], [], 0), select.select([r], [], [], 0)[0] == [r])
p = select.poll(); p.register(r, select.POLLIN); print(p.poll(0))
