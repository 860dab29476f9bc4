"""torch.utils.data._worker: DataLoader worker processes (num_workers > 0), as PyTorch 1.13 runs
them: forked workers, each with its own copy of the dataset, seeded with base_seed + worker_id
(torch and random), one intra-op thread, worker_init_fn(worker_id), get_worker_info(); index
batches dealt round-robin, prefetch_factor per worker in flight, batches returned in sampler
order; an exception in a worker is raised in the main process as "Caught E in DataLoader worker
process N." with the worker's traceback; IterableDataset workers each iterate their own copy.

Ember forks rather than spawns (PyTorch's Linux default is fork too).  Messages are pickled over
one pipe pair per worker, length-prefixed; a worker answers its tasks in order, so the main
process reads the next batch from the worker that has it."""
import os
import pickle
import random
import struct
import sys
import traceback

import torch

__all__ = ["WorkerInfo", "get_worker_info"]


class WorkerInfo:
    __initialized = False

    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            setattr(self, k, v)
        self.__keys = tuple(kwargs.keys())
        self.__initialized = True

    def __setattr__(self, key, val):
        if self.__initialized:
            raise RuntimeError("Cannot assign attributes to {} objects".format(self.__class__.__name__))
        return super().__setattr__(key, val)

    def __repr__(self):
        items = ["{}={}".format(k, getattr(self, k)) for k in self.__keys]
        return "{}({})".format(self.__class__.__name__, ", ".join(items))


_worker_info = None
_live_fds = set()   # the main process's ends of every live worker's pipes


def get_worker_info():
    """In a DataLoader worker: its WorkerInfo (id, num_workers, seed, dataset); else None."""
    return _worker_info


class _ExceptionWrapper:
    """An exception caught in a worker, re-raised in the main process as PyTorch does."""

    def __init__(self, exc_info, where):
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        msg = "Caught {} {}.\nOriginal {}".format(self.exc_type.__name__, self.where, self.exc_msg)
        if self.exc_type == KeyError:
            msg = _KeyErrorMessage(msg)
        try:
            exception = self.exc_type(msg)
        except TypeError:
            raise RuntimeError(msg) from None
        raise exception


class _KeyErrorMessage(str):
    # KeyError quotes its argument; PyTorch's message shows as written
    def __repr__(self):
        return self


class _IterableStop:
    """A worker's IterableDataset copy is exhausted."""

    def __init__(self, worker_id):
        self.worker_id = worker_id


def _send(fd, obj):
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    view = memoryview(struct.pack("<Q", len(data)) + data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def _recv_exact(fd, n):
    chunks = []
    while n > 0:
        chunk = os.read(fd, min(n, 1 << 20))
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def _recv(fd):
    (n,) = struct.unpack("<Q", _recv_exact(fd, 8))
    return pickle.loads(_recv_exact(fd, n))


def _worker_loop(loader, worker_id, num_workers, base_seed, task_fd, result_fd):
    """The worker process: (task number, index batch) in, (task number, batch or error) out."""
    global _worker_info
    torch.set_num_threads(1)
    seed = base_seed + worker_id
    random.seed(seed)
    torch.manual_seed(seed)
    _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=loader.dataset)
    init_error = None
    iterator = None
    try:
        if loader.worker_init_fn is not None:
            loader.worker_init_fn(worker_id)
        if loader._iterable:
            iterator = iter(loader.dataset)
    except Exception:
        init_error = _ExceptionWrapper(sys.exc_info(), "in DataLoader worker process {}".format(worker_id))
    exhausted = False
    while True:
        try:
            task = _recv(task_fd)
        except EOFError:
            return
        if task is None:
            return
        idx, indices = task
        if init_error is not None:
            _send(result_fd, (idx, init_error))
            init_error = None
            exhausted = True
            continue
        if exhausted:
            _send(result_fd, (idx, _IterableStop(worker_id)))
            continue
        try:
            if loader._iterable:
                data = loader._next_iterable_batch(iterator)
                if data is None:
                    exhausted = True
                    data = _IterableStop(worker_id)
            elif loader.batch_sampler is not None:
                data = loader.collate_fn([loader.dataset[i] for i in indices])
            else:
                data = loader.collate_fn(loader.dataset[indices])
        except Exception:
            data = _ExceptionWrapper(sys.exc_info(), "in DataLoader worker process {}".format(worker_id))
        _send(result_fd, (idx, data))


class _MultiProcessingIter:
    """The main process's side: starts the workers, keeps prefetch_factor tasks per worker in
    flight, and yields their batches in task order."""

    def __init__(self, loader, base_seed):
        self._loader = loader
        self._num_workers = loader.num_workers
        self._prefetch = loader.prefetch_factor
        if loader._iterable:
            self._index_iter = None
        elif loader.batch_sampler is not None:
            self._index_iter = iter(loader.batch_sampler)
        else:
            self._index_iter = iter(loader.sampler)
        self._workers = []   # (pid, task fd, result fd)
        self._active = []
        self._next_task = 0
        self._next_yield = 0
        self._owner = {}     # task number -> worker
        self._pending = {}   # task numbers sent to each worker, in order
        self._rr = 0
        self._sampler_done = False
        self._shutdown = False
        sys.stdout.flush()
        sys.stderr.flush()
        try:
            for w in range(self._num_workers):
                task_r, task_w = os.pipe()
                res_r, res_w = os.pipe()
                pid = os.fork()
                if pid == 0:
                    status = 0
                    try:
                        os.close(task_w)
                        os.close(res_r)
                        # no worker keeps another's (or another loader's) pipes open
                        for fd in list(_live_fds):
                            try:
                                os.close(fd)
                            except OSError:
                                pass
                        _live_fds.clear()
                        _worker_loop(loader, w, self._num_workers, base_seed, task_r, res_w)
                    except BaseException:
                        status = 1
                    finally:
                        try:
                            sys.stdout.flush()
                            sys.stderr.flush()
                        finally:
                            os._exit(status)
                os.close(task_r)
                os.close(res_w)
                _live_fds.update((task_w, res_r))
                self._workers.append((pid, task_w, res_r))
                self._active.append(True)
                self._pending[w] = []
            for _ in range(self._prefetch * self._num_workers):
                self._put_task()
        except BaseException:
            self._shutdown_workers()
            raise

    def _put_task(self):
        if self._sampler_done:
            return
        for _ in range(self._num_workers):
            w = self._rr
            self._rr = (self._rr + 1) % self._num_workers
            if self._active[w]:
                break
        else:
            return
        if self._index_iter is not None:
            try:
                indices = next(self._index_iter)
            except StopIteration:
                self._sampler_done = True
                return
        else:
            indices = None
        idx = self._next_task
        self._next_task += 1
        self._owner[idx] = w
        self._pending[w].append(idx)
        _send(self._workers[w][1], (idx, indices))

    def __iter__(self):
        return self

    def __next__(self):
        while True:
            if self._next_yield >= self._next_task:
                self._shutdown_workers()
                raise StopIteration
            idx = self._next_yield
            w = self._owner.pop(idx)
            try:
                got_idx, data = _recv(self._workers[w][2])
            except EOFError:
                pid = self._workers[w][0]
                self._shutdown_workers()
                raise RuntimeError("DataLoader worker (pid {}) exited unexpectedly".format(pid)) from None
            assert got_idx == idx
            self._pending[w].pop(0)
            self._next_yield += 1
            if isinstance(data, _IterableStop):
                self._active[w] = False
                if not any(self._active):
                    self._sampler_done = True
                self._put_task()
                continue
            self._put_task()
            if isinstance(data, _ExceptionWrapper):
                self._shutdown_workers()
                data.reraise()
            return data

    def _shutdown_workers(self):
        if self._shutdown:
            return
        self._shutdown = True
        for pid, task_fd, res_fd in self._workers:
            # the results first: a worker blocked writing one gets EPIPE and ends
            for fd, last in ((res_fd, None), (task_fd, True)):
                try:
                    if last:
                        _send(fd, None)
                except OSError:
                    pass
                try:
                    os.close(fd)
                except OSError:
                    pass
                _live_fds.discard(fd)
        for pid, _, _ in self._workers:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass

    def __del__(self):
        self._shutdown_workers()
