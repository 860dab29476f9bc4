# _posixsubprocess.fork_exec as subprocess.py drives it: pipes, cwd, exit codes, and the
# OSError:<hex errno>:noexec reports on the error pipe.
import _posixsubprocess, posix
def run(args, cwd=None):
    c2pread, c2pwrite = posix.pipe()
    errpipe_read, errpipe_write = posix.pipe()
    exes = tuple(p.encode() + b'/' + args[0].encode() for p in ['/usr/bin', '/bin'])
    pid = _posixsubprocess.fork_exec(args, exes, True, (errpipe_write,), cwd, None,
                                     -1, -1, c2pread, c2pwrite, -1, -1, errpipe_read, errpipe_write,
                                     True, False, -1, None, None, None, -1, None, False)
    posix.close(errpipe_write); posix.close(c2pwrite)
    err = posix.read(errpipe_read, 1000); posix.close(errpipe_read)
    out = b''
    while True:
        d = posix.read(c2pread, 4096)
        if not d: break
        out += d
    posix.close(c2pread)
    _, st = posix.waitpid(pid, 0)
    return out, err, posix.waitstatus_to_exitcode(st)
print(run(['echo', 'hello', 'world']))
print(run(['sh', '-c', 'exit 3']))
print(run(['nosuchcommand']))
print(run(['pwd'], cwd='/tmp'))
print(run(['pwd'], cwd='/nonexistent'))
