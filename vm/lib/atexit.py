"""atexit for Ember scripts: functions registered here run when the main script ends (after an
uncaught exception's traceback too), last registered first, as CPython's interpreter shutdown
does."""

_exithandlers = []


def register(func, /, *args, **kwargs):
    _exithandlers.append((func, args, kwargs))
    return func


def unregister(func):
    _exithandlers[:] = [h for h in _exithandlers if h[0] != func]


def _clear():
    del _exithandlers[:]


def _ncallbacks():
    return len(_exithandlers)


def _run_exitfuncs():
    import sys
    while _exithandlers:
        func, args, kwargs = _exithandlers.pop()
        try:
            func(*args, **kwargs)
        except SystemExit:
            pass
        except BaseException as e:
            print(f"Exception ignored in atexit callback: {func!r}", file=sys.stderr)
            _print_exception(e)


def _print_exception(e):
    import _ember
    _ember.print_exception(e)
