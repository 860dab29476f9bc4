"""torch.futures: Future, as PyTorch's (done, wait, value, then, add_done_callback, set_result,
set_exception; collect_all, wait_all).  Ember runs script code on one thread, so a future tied to
a collective completes when it is waited on (or found done): its callbacks then run on the
caller's thread, in the order PyTorch runs them."""

__all__ = ["Future", "collect_all", "wait_all"]


class Future(object):
    def __init__(self, *, devices=None):
        self._done = False
        self._value = None
        self._exception = None
        self._callbacks = []
        self._upstream = None        # the future whose completion completes this one (then)

    def _poll(self):
        """Completes the future if what it waits for has finished; returns done()."""
        if not self._done and self._upstream is not None:
            self._upstream.done()
        return self._done

    def _run_pending(self):
        pass

    def done(self):
        return self._poll()

    def wait(self):
        if not self._done and self._upstream is not None:
            try:
                self._upstream.wait()
            except Exception:
                pass
        if not self._done:
            raise RuntimeError("Future.wait() on a future that is never completed (call set_result first)")
        if self._exception is not None:
            raise self._exception
        return self._value

    def value(self):
        if not self._poll():
            raise RuntimeError("value() called on a Future that is not completed yet")
        if self._exception is not None:
            raise self._exception
        return self._value

    def then(self, callback):
        fut = Future()
        fut._upstream = self

        def run(parent):
            try:
                fut.set_result(callback(parent))
            except Exception as e:
                fut.set_exception(e)
        self.add_done_callback(run)
        return fut

    def add_done_callback(self, callback):
        if self._done:
            callback(self)
        else:
            self._callbacks.append(callback)

    def set_result(self, result):
        if self._done:
            raise RuntimeError("Future can only be marked completed once.")
        self._value = result
        self._done = True
        self._fire()

    def set_exception(self, result):
        if self._done:
            raise RuntimeError("Future can only be marked completed once.")
        self._exception = result
        self._done = True
        self._fire()

    def _fire(self):
        callbacks, self._callbacks = self._callbacks, []
        for cb in callbacks:
            cb(self)


class _WorkFuture(Future):
    """The future of a collective (Work.get_future()): its value is the work's result tensors."""

    def __init__(self, work):
        super().__init__()
        self._work = work

    def _poll(self):
        if not self._done and self._work.is_completed():
            self._run_pending()
        return self._done

    def _run_pending(self):
        if self._done:
            return
        try:
            self._work.wait()
        except Exception as e:
            self.set_exception(e)
            return
        self.set_result(self._work.result())

    def wait(self):
        self._run_pending()
        if self._exception is not None:
            raise self._exception
        return self._value


def collect_all(futures):
    """A future completed with the list of futures once all of them are."""
    up = _AllOf(futures)
    out = Future()
    out._upstream = up
    up.add_done_callback(lambda f: out.set_result(list(futures)))
    return out


class _AllOf(Future):
    def __init__(self, futures):
        super().__init__()
        self._futures = futures

    def done(self):
        return all(f.done() for f in self._futures)

    def wait(self):
        for f in self._futures:
            try:
                f.wait()
            except Exception:
                pass
        if not self._done:
            self.set_result(self._futures)
        return self._value

    def _run_pending(self):
        self.wait()


def wait_all(futures):
    """Waits for every future and returns their values (the first exception is raised)."""
    return [f.wait() for f in futures]
