"""warnings for Ember scripts: warn/warn_explicit with categories and stacklevel, the filter
list (filterwarnings, simplefilter, resetwarnings) with CPython 3.11's default filters and
"once per location" registries, catch_warnings(record=True), and showwarning/formatwarning that
scripts may replace by assignment.  Follows CPython's Lib/warnings.py."""
import sys
import _ember

__all__ = ["warn", "warn_explicit", "showwarning", "formatwarning", "filterwarnings",
           "simplefilter", "resetwarnings", "catch_warnings"]


def showwarning(message, category, filename, lineno, file=None, line=None):
    """Hook to write a warning to a file; replace if you like."""
    msg = WarningMessage(message, category, filename, lineno, file, line)
    _showwarnmsg_impl(msg)


def formatwarning(message, category, filename, lineno, line=None):
    """Function to format a warning the standard way."""
    msg = WarningMessage(message, category, filename, lineno, None, line)
    return _formatwarnmsg_impl(msg)


def _showwarnmsg_impl(msg):
    file = msg.file
    if file is None:
        file = sys.stderr
        if file is None:
            return
    text = _formatwarnmsg(msg)
    try:
        file.write(text)
    except OSError:
        pass


def _formatwarnmsg_impl(msg):
    category = msg.category.__name__
    s = f"{msg.filename}:{msg.lineno}: {category}: {msg.message}\n"
    if msg.line is None:
        line = _ember.source_line(msg.filename, msg.lineno)
    else:
        line = msg.line
    if line:
        line = line.strip()
        s += "  %s\n" % line
    return s


_showwarning_orig = showwarning


def _showwarnmsg(msg):
    """Hook to write a warning to a file; replace if you like."""
    sw = showwarning
    if sw is not _showwarning_orig:
        # the user replaced warnings.showwarning
        if not callable(sw):
            raise TypeError("warnings.showwarning() must be set to a function or method")
        sw(msg.message, msg.category, msg.filename, msg.lineno, msg.file, msg.line)
        return
    _showwarnmsg_impl(msg)


_formatwarning_orig = formatwarning


def _formatwarnmsg(msg):
    """Function to format a warning the standard way."""
    fw = formatwarning
    if fw is not _formatwarning_orig:
        # the user replaced warnings.formatwarning
        return fw(msg.message, msg.category, msg.filename, msg.lineno, msg.line)
    return _formatwarnmsg_impl(msg)


class _Pattern:
    """The patterns of filterwarnings(): matched case-insensitively (message) or exactly
    (module) against the start of the text, as re.match would.  Ember has no `re` module, so
    only literal text with optional ".*" wildcards and backslash escapes is supported."""

    def __init__(self, pattern, ignore_case):
        self.pattern = pattern
        self.ignore_case = ignore_case
        parts = []
        cur = ""
        i = 0
        anchored_end = False
        while i < len(pattern):
            c = pattern[i]
            if c == "\\" and i + 1 < len(pattern):
                cur += pattern[i + 1]
                i += 2
                continue
            if pattern.startswith(".*", i):
                parts.append(cur)
                cur = ""
                i += 2
                continue
            if c == "$" and i == len(pattern) - 1:
                anchored_end = True
                i += 1
                continue
            if c in ".^$*+?{}[]|()":
                raise NotImplementedError(
                    "regular expressions in warnings filters are not supported: %r" % (pattern,))
            cur += c
            i += 1
        parts.append(cur)
        if ignore_case:
            parts = [p.lower() for p in parts]
        self.parts = parts
        self.anchored_end = anchored_end

    def match(self, text):
        if self.ignore_case:
            text = text.lower()
        parts = self.parts
        if not text.startswith(parts[0]):
            return False
        pos = len(parts[0])
        for p in parts[1:-1]:
            j = text.find(p, pos)
            if j < 0:
                return False
            pos = j + len(p)
        if len(parts) > 1:
            last = parts[-1]
            if self.anchored_end:
                return text.endswith(last) and len(text) - len(last) >= pos
            return text.find(last, pos) >= 0
        return not self.anchored_end or pos == len(text)

    def __repr__(self):
        return "re.compile(%r%s)" % (self.pattern, ", re.IGNORECASE" if self.ignore_case else "")


def filterwarnings(action, message="", category=Warning, module="", lineno=0, append=False):
    """Insert an entry into the list of warnings filters (at the front)."""
    if action not in ("error", "ignore", "always", "default", "module", "once"):
        raise AssertionError("invalid action: %r" % (action,))
    if not isinstance(message, str):
        raise AssertionError("message must be a string")
    if not isinstance(category, type) or not issubclass(category, Warning):
        raise AssertionError("category must be a Warning subclass")
    if not isinstance(module, str):
        raise AssertionError("module must be a string")
    if not isinstance(lineno, int) or lineno < 0:
        raise AssertionError("lineno must be an int >= 0")
    if message or module:
        message = _Pattern(message, True) if message else None
        module = _Pattern(module + "$" if module else module, False) if module else None
    else:
        message = None
        module = None
    _add_filter(action, message, category, module, lineno, append=append)


def simplefilter(action, category=Warning, lineno=0, append=False):
    """Insert a simple entry into the list of warnings filters (at the front)."""
    if action not in ("error", "ignore", "always", "default", "module", "once"):
        raise AssertionError("invalid action: %r" % (action,))
    if not isinstance(lineno, int) or lineno < 0:
        raise AssertionError("lineno must be an int >= 0")
    _add_filter(action, None, category, None, lineno, append=append)


def _add_filter(*item, append):
    if not append:
        try:
            filters.remove(item)
        except ValueError:
            pass
        filters.insert(0, item)
    else:
        if item not in filters:
            filters.append(item)
    _filters_mutated()


def resetwarnings():
    """Clear the list of warning filters, so that no filters are active."""
    filters[:] = []
    _filters_mutated()


class _OptionError(Exception):
    pass


def _is_internal_frame(globals_dict):
    return False


def warn(message, category=None, stacklevel=1, source=None):
    """Issue a warning, or maybe ignore it or raise an exception."""
    if isinstance(message, Warning):
        category = message.__class__
    if category is None:
        category = UserWarning
    if not (isinstance(category, type) and issubclass(category, Warning)):
        raise TypeError("category must be a Warning subclass, "
                        "not '{:s}'".format(type(category).__name__))
    caller = _ember.caller(stacklevel)
    if caller is None:
        globals = sys.__dict__
        filename = "sys"
        lineno = 1
    else:
        filename, lineno, globals = caller
    if '__name__' in globals:
        module = globals['__name__']
    else:
        module = "<string>"
    registry = globals.setdefault("__warningregistry__", {})
    warn_explicit(message, category, filename, lineno, module, registry, globals, source)


def warn_explicit(message, category, filename, lineno, module=None, registry=None,
                  module_globals=None, source=None):
    lineno = int(lineno)
    if module is None:
        module = filename or "<unknown>"
        if module[-3:].lower() == ".py":
            module = module[:-3]
    if registry is None:
        registry = {}
    if registry.get('version', 0) != _filters_version[0]:
        registry.clear()
        registry['version'] = _filters_version[0]
    if isinstance(message, Warning):
        text = str(message)
        category = message.__class__
    else:
        text = message
        message = category(message)
    key = (text, category, lineno)
    if registry.get(key):
        return
    for item in filters:
        action, msg, cat, mod, ln = item
        if ((msg is None or msg.match(text)) and
                issubclass(category, cat) and
                (mod is None or mod.match(module)) and
                (ln == 0 or lineno == ln)):
            break
    else:
        action = defaultaction
    if action == "ignore":
        return
    if action == "error":
        raise message
    if action == "once":
        registry[key] = 1
        oncekey = (text, category)
        if onceregistry.get(oncekey):
            return
        onceregistry[oncekey] = 1
    elif action == "always":
        pass
    elif action == "module":
        registry[key] = 1
        altkey = (text, category, 0)
        if registry.get(altkey):
            return
        registry[altkey] = 1
    elif action == "default":
        registry[key] = 1
    else:
        raise RuntimeError("Unrecognized action (%r) in warnings.filters:\n %s" % (action, item))
    msg = WarningMessage(message, category, filename, lineno, source=source)
    _showwarnmsg(msg)


class WarningMessage(object):

    _WARNING_DETAILS = ("message", "category", "filename", "lineno", "file", "line", "source")

    def __init__(self, message, category, filename, lineno, file=None, line=None, source=None):
        self.message = message
        self.category = category
        self.filename = filename
        self.lineno = lineno
        self.file = file
        self.line = line
        self.source = source
        self._category_name = category.__name__ if category else None

    def __str__(self):
        return ("{message : %r, category : %r, filename : %r, lineno : %s, "
                "line : %r}" % (self.message, self._category_name,
                                self.filename, self.lineno, self.line))


class catch_warnings(object):
    """A context manager that copies and restores the warnings filter upon exiting the context;
    with record=True, warnings are appended to the list __enter__ returns instead of shown."""

    def __init__(self, *, record=False, module=None, action=None, category=Warning, lineno=0,
                 append=False):
        self._record = record
        self._module = sys.modules['warnings'] if module is None else module
        self._entered = False
        if action is None:
            self._filter = None
        else:
            self._filter = (action, category, lineno, append)

    def __repr__(self):
        args = []
        if self._record:
            args.append("record=True")
        if self._module is not sys.modules['warnings']:
            args.append("module=%r" % self._module)
        name = type(self).__name__
        return "%s(%s)" % (name, ", ".join(args))

    def __enter__(self):
        if self._entered:
            raise RuntimeError("Cannot enter %r twice" % self)
        self._entered = True
        self._filters = self._module.filters
        self._module.filters = self._filters[:]
        self._module._filters_mutated()
        self._showwarning = self._module.showwarning
        self._showwarnmsg_impl = self._module._showwarnmsg_impl
        if self._filter is not None:
            simplefilter(*self._filter)
        if self._record:
            log = []
            self._module._showwarnmsg_impl = log.append
            # reset showwarning() to the default implementation to make sure that
            # _showwarnmsg() calls _showwarnmsg_impl()
            self._module.showwarning = self._module._showwarning_orig
            return log
        else:
            return None

    def __exit__(self, *exc_info):
        if not self._entered:
            raise RuntimeError("Cannot exit %r without entering first" % self)
        self._module.filters = self._filters
        self._module._filters_mutated()
        self._module.showwarning = self._showwarning
        self._module._showwarnmsg_impl = self._showwarnmsg_impl


_filters_version = [1]


def _filters_mutated():
    _filters_version[0] += 1


defaultaction = "default"
onceregistry = {}
filters = []
# CPython 3.11's default filters (a release build without -W or -X dev)
filters.append(("default", None, DeprecationWarning, _Pattern("__main__$", False), 0))
filters.append(("ignore", None, DeprecationWarning, None, 0))
filters.append(("ignore", None, PendingDeprecationWarning, None, 0))
filters.append(("ignore", None, ImportWarning, None, 0))
filters.append(("ignore", None, ResourceWarning, None, 0))
