"""torch.multiprocessing.spawn: start_processes(fn, args, nprocs, join, daemon, start_method)
runs fn(i, *args) in nprocs processes and joins them; the first process to fail makes the
others terminate and is reported as ProcessRaisedException (carrying the child's traceback,
sent over a SimpleQueue) or ProcessExitedException (exit code or signal), as PyTorch's.
spawn() always uses the "spawn" start method, which Ember supports (the child is a fresh
`ember` running multiprocessing.spawn's entry point); start_processes(start_method="fork")
forks instead, which is what lets children share tensors moved to shared memory."""
from typing import Optional
import multiprocessing
import multiprocessing.connection
import signal
import sys
import warnings


def _prctl_pr_set_pdeathsig(sig):
    """prctl(PR_SET_PDEATHSIG, sig): this process gets sig when its parent dies (Linux)."""
    if not sys.platform.startswith('linux'):
        return
    try:
        import ctypes
        ctypes.CDLL(None).prctl(1, int(sig), 0, 0, 0)
    except Exception:
        pass


class ProcessException(Exception):
    __slots__ = ["error_index", "error_pid"]

    def __init__(self, msg: str, error_index: int, pid: int):
        super().__init__(msg)
        self.msg = msg
        self.error_index = error_index
        self.pid = pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid)


class ProcessRaisedException(ProcessException):
    """Raised when a process failed with an exception raised by the code."""

    def __init__(self, msg: str, error_index: int, error_pid: int):
        super().__init__(msg, error_index, error_pid)


class ProcessExitedException(ProcessException):
    """Raised when a process failed because of a signal or a non-zero exit code."""
    __slots__ = ["exit_code"]

    def __init__(self, msg: str, error_index: int, error_pid: int,
                 exit_code: int, signal_name: Optional[str] = None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code = exit_code
        self.signal_name = signal_name

    def __reduce__(self):
        return (type(self), (self.msg, self.error_index, self.pid, self.exit_code, self.signal_name))


def _wrap(fn, i, args, error_queue):
    # a non-daemonic child ends (SIGINT) if its parent dies before it
    _prctl_pr_set_pdeathsig(signal.SIGINT)
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass  # SIGINT: killed by the parent, nothing to report
    except Exception:
        # the parent re-raises with the child's traceback
        import traceback
        error_queue.put(traceback.format_exc())
        sys.exit(1)


class ProcessContext:
    def __init__(self, processes, error_queues):
        self.error_queues = error_queues
        self.processes = processes
        self.sentinels = {process.sentinel: index for index, process in enumerate(processes)}

    def pids(self):
        return [int(process.pid) for process in self.processes]

    def join(self, timeout=None):
        """Joins the processes that have ended; True once all have ended successfully, False if
        some are still running.  The first one to fail makes the others terminate and raises
        ProcessRaisedException / ProcessExitedException."""
        if len(self.sentinels) == 0:
            return True
        ready = multiprocessing.connection.wait(self.sentinels.keys(), timeout=timeout)
        error_index = None
        for sentinel in ready:
            index = self.sentinels.pop(sentinel)
            process = self.processes[index]
            process.join()
            if process.exitcode != 0:
                error_index = index
                break
        if error_index is None:
            return len(self.sentinels) == 0
        for process in self.processes:
            if process.is_alive():
                process.terminate()
            process.join()
        failed_process = self.processes[error_index]
        if self.error_queues[error_index].empty():
            exitcode = self.processes[error_index].exitcode
            if exitcode < 0:
                name = signal.Signals(-exitcode).name
                raise ProcessExitedException(
                    "process %d terminated with signal %s" % (error_index, name),
                    error_index=error_index, error_pid=failed_process.pid,
                    exit_code=exitcode, signal_name=name)
            raise ProcessExitedException(
                "process %d terminated with exit code %d" % (error_index, exitcode),
                error_index=error_index, error_pid=failed_process.pid, exit_code=exitcode)
        original_trace = self.error_queues[error_index].get()
        msg = "\n\n-- Process %d terminated with the following error:\n" % error_index
        msg += original_trace
        raise ProcessRaisedException(msg, error_index, failed_process.pid)


class SpawnContext(ProcessContext):
    def __init__(self, processes, error_queues):
        warnings.warn('SpawnContext is renamed to ProcessContext since 1.4 release.')
        super(SpawnContext, self).__init__(processes, error_queues)


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method='spawn'):
    mp = multiprocessing.get_context(start_method)
    error_queues = []
    processes = []
    for i in range(nprocs):
        error_queue = mp.SimpleQueue()
        process = mp.Process(target=_wrap, args=(fn, i, args, error_queue), daemon=daemon)
        process.start()
        error_queues.append(error_queue)
        processes.append(process)
    context = ProcessContext(processes, error_queues)
    if not join:
        return context
    while not context.join():
        pass


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method='spawn'):
    """Spawns nprocs processes running fn(i, *args) with the "spawn" start method and joins
    them (join=False: returns their ProcessContext)."""
    if start_method != 'spawn':
        msg = ('This method only supports start_method=spawn (got: %s).\n'
               'To use a different start_method use:\n\t\t'
               ' torch.multiprocessing.start_processes(...)' % start_method)
        warnings.warn(msg)
    return start_processes(fn, args, nprocs, join, daemon, start_method='spawn')
