"""dis — disassembly of Ember's bytecode.

Why Ember's own file: CPython's dis.py decodes CPython 3.11's wordcode (co_code, the
specialisation caches, CPython's opcode numbers from its `opcode` module), and Ember's code
objects hold Ember's instruction set (vm/opcodes.def), so CPython's file cannot read them.  This
module keeps CPython's interface -- dis(), disassemble(), distb(), get_instructions(),
Bytecode, Instruction, code_info(), show_code(), findlinestarts(), findlabels(), opname /
opmap -- over the VM's own disassembler (vm/dis.c, the layout `ember dis FILE` prints: CPython's
columns, Ember's opcodes).  The opcodes, offsets and stack sizes are Ember's, so the text is not
CPython's; what a script does with it (iterate instructions, look up names, print) works."""
import collections
import sys
import types

import _ember

__all__ = ["code_info", "dis", "disassemble", "distb", "disco", "findlinestarts", "findlabels",
           "show_code", "get_instructions", "Instruction", "Bytecode", "opname", "opmap",
           "pretty_flags", "COMPILER_FLAG_NAMES"]

opname = list(_ember.dis_opnames())
opmap = {name: code for code, name in enumerate(opname)}

_have_code = (types.MethodType, types.FunctionType, types.CodeType, classmethod, staticmethod, type)

COMPILER_FLAG_NAMES = {
    1: "OPTIMIZED", 2: "NEWLOCALS", 4: "VARARGS", 8: "VARKEYWORDS", 16: "NESTED", 32: "GENERATOR",
    64: "NOFREE", 128: "COROUTINE", 256: "ITERABLE_COROUTINE", 512: "ASYNC_GENERATOR",
}


def pretty_flags(flags):
    """The names of a code object's flag bits, comma-separated (unknown bits in hex)."""
    names = []
    for i in range(32):
        bit = 1 << i
        if flags & bit:
            names.append(COMPILER_FLAG_NAMES.get(bit, hex(bit)))
            flags ^= bit
            if not flags:
                break
    else:
        names.append(hex(flags))
    return ", ".join(names)


_Positions = collections.namedtuple("Positions", "lineno end_lineno col_offset end_col_offset",
                                    defaults=[None] * 4)
Positions = _Positions

_Instruction = collections.namedtuple(
    "Instruction",
    "opname opcode arg argval argrepr offset starts_line is_jump_target positions",
    defaults=[None])


class Instruction(_Instruction):
    """One instruction: opname, opcode, arg (None without one), argval (the resolved argument),
    argrepr (its text), offset (bytes, 2 per code unit), starts_line (or None),
    is_jump_target, positions."""

    def _disassemble(self, lineno_width=3, mark_as_current=False, offset_width=4):
        fields = []
        if lineno_width:
            if self.starts_line is not None:
                fields.append("%*d" % (lineno_width, self.starts_line))
            else:
                fields.append(" " * lineno_width)
        fields.append("-->" if mark_as_current else "   ")
        fields.append(">>" if self.is_jump_target else "  ")
        fields.append(repr(self.offset).rjust(offset_width))
        fields.append(self.opname.ljust(20))
        if self.arg is not None:
            fields.append(repr(self.arg).rjust(5))
            if self.argrepr:
                fields.append("(" + self.argrepr + ")")
        return " ".join(fields).rstrip()


def _unwrap(x):
    """A method's function, then a function's, generator's or coroutine's code; else x."""
    if hasattr(x, "__func__"):
        x = x.__func__
    for attr in ("__code__", "gi_code", "ag_code", "cr_code"):
        if hasattr(x, attr):
            return getattr(x, attr)
    return x


def _get_code_object(x):
    """The code object of a function, method, generator, coroutine, source string or code."""
    x = _unwrap(x)
    if isinstance(x, str):
        x = _try_compile(x, "<disassembly>")
    if hasattr(x, "co_code"):
        return x
    raise TypeError("don't know how to disassemble %s objects" % type(x).__name__)


def _try_compile(source, name):
    """An expression's code if source is one, else the statements' code."""
    try:
        return compile(source, name, "eval")
    except SyntaxError:
        return compile(source, name, "exec")


def _instructions(co, first_line=None, positions=None):
    shift = 0 if first_line is None else first_line - co.co_firstlineno
    pos = list(co.co_positions()) if positions is None else positions
    for opn, op, arg, argval, argrepr, offset, starts, target in _ember.dis_instructions(co):
        if starts is not None:
            starts += shift
        p = pos[offset // 2] if offset // 2 < len(pos) else (None, None, None, None)
        yield Instruction(opn, op, arg, argval, argrepr, offset, starts, target, Positions(*p))


def get_instructions(x, *, first_line=None, show_caches=False, adaptive=False):
    """An iterator over x's instructions (Ember's; show_caches and adaptive change nothing: Ember's
    inline caches live beside the instructions, and its specialised forms are not listed)."""
    return _instructions(_get_code_object(x), first_line)


def findlinestarts(code):
    """(offset, line) for each instruction that starts a new source line."""
    last = None
    for start, end, line in code.co_lines():
        if line is not None and line != last:
            last = line
            yield start, line


def findlabels(code):
    """The offsets that are jump targets (jumps and exception handlers)."""
    return [i.offset for i in _instructions(_get_code_object(code)) if i.is_jump_target]


def _disassemble_recursive(co, *, file=None, depth=None):
    print(_ember.dis_text(co, False), end="", file=file)
    if depth is None or depth > 0:
        if depth is not None:
            depth = depth - 1
        for x in co.co_consts:
            if hasattr(x, "co_code"):
                print(file=file)
                print("Disassembly of %r:" % (x,), file=file)
                _disassemble_recursive(x, file=file, depth=depth)


def disassemble(co, lasti=-1, *, file=None, show_caches=False, adaptive=False):
    """Disassemble one code object; the instruction at offset lasti is marked with -->."""
    if lasti < 0:
        print(_ember.dis_text(co, False), end="", file=file)
    else:
        print(_render(co, lasti), end="", file=file)


def _render(co, lasti=None, first_line=None):
    """The listing with the instruction at offset lasti marked --> (or lines shifted to
    first_line), which vm/dis.c's text does not do: Instruction._disassemble per line."""
    maxline = max((line for _, line in findlinestarts(co)), default=0)
    width = len(str(maxline)) if maxline >= 1000 else 3
    out = []
    for ins in _instructions(co, first_line):
        if ins.starts_line is not None and ins.offset > 0:
            out.append("")
        out.append(ins._disassemble(width, ins.offset == lasti))
    return "\n".join(out) + "\n"


disco = disassemble


def dis(x=None, *, file=None, depth=None, show_caches=False, adaptive=False):
    """Disassemble x: a module, class, method, function, generator, coroutine, code object or
    source string; None: the last traceback (distb)."""
    if x is None:
        distb(file=file)
        return
    x = _unwrap(x)
    if hasattr(x, "__dict__"):   # a class or a module: each member that has code
        for name, x1 in sorted(x.__dict__.items()):
            if isinstance(x1, _have_code):
                print("Disassembly of %s:" % name, file=file)
                try:
                    dis(x1, file=file, depth=depth)
                except TypeError as msg:
                    print("Sorry:", msg, file=file)
                print(file=file)
    elif hasattr(x, "co_code"):
        _disassemble_recursive(x, file=file, depth=depth)
    elif isinstance(x, str):
        _disassemble_recursive(_try_compile(x, "<dis>"), file=file, depth=depth)
    elif isinstance(x, (bytes, bytearray)):
        raise TypeError("Ember cannot disassemble raw bytecode: pass a code object")
    else:
        raise TypeError("don't know how to disassemble %s objects" % type(x).__name__)


def distb(tb=None, *, file=None, show_caches=False, adaptive=False):
    """Disassemble a traceback's innermost frame (default: the last traceback), marking the
    instruction that raised."""
    if tb is None:
        try:
            tb = sys.last_traceback
        except AttributeError:
            raise RuntimeError("no last traceback to disassemble") from None
        while tb.tb_next:
            tb = tb.tb_next
    disassemble(tb.tb_frame.f_code, tb.tb_lasti, file=file)


def _format_code_info(co):
    lines = [
        "Name:              %s" % co.co_name,
        "Filename:          %s" % co.co_filename,
        "Argument count:    %s" % co.co_argcount,
        "Positional-only arguments: %s" % co.co_posonlyargcount,
        "Kw-only arguments: %s" % co.co_kwonlyargcount,
        "Number of locals:  %s" % co.co_nlocals,
        "Stack size:        %s" % co.co_stacksize,
        "Flags:             %s" % pretty_flags(co.co_flags),
    ]
    for title, items, fmt in (("Constants", co.co_consts, repr), ("Names", co.co_names, str),
                              ("Variable names", co.co_varnames, str), ("Free variables", co.co_freevars, str),
                              ("Cell variables", co.co_cellvars, str)):
        if items:
            lines.append(title + ":")
            lines.extend("%4d: %s" % (i, fmt(v)) for i, v in enumerate(items))
    return "\n".join(lines)


def code_info(x):
    """A formatted summary of x's code object (name, arguments, flags, constants, names)."""
    return _format_code_info(_get_code_object(x))


def show_code(co, *, file=None):
    """Print code_info(co)."""
    print(code_info(co), file=file)


class Bytecode:
    """The instructions of a function, method, source string or code object: iterable, with
    info() (code_info) and dis() (the disassembly as a string)."""

    def __init__(self, x, *, first_line=None, current_offset=None, show_caches=False, adaptive=False):
        self.codeobj = co = _get_code_object(x)
        self.first_line = co.co_firstlineno if first_line is None else first_line
        self._line_offset = self.first_line - co.co_firstlineno
        self._original_object = x
        self.current_offset = current_offset
        self.show_caches = show_caches
        self.adaptive = adaptive

    def __iter__(self):
        return _instructions(self.codeobj, self.first_line)

    def __repr__(self):
        return "{}({!r})".format(self.__class__.__name__, self._original_object)

    @classmethod
    def from_traceback(cls, tb, *, show_caches=False, adaptive=False):
        while tb.tb_next:
            tb = tb.tb_next
        return cls(tb.tb_frame.f_code, current_offset=tb.tb_lasti)

    def info(self):
        return _format_code_info(self.codeobj)

    def dis(self):
        if self.current_offset is None and not self._line_offset:
            return _ember.dis_text(self.codeobj, False)
        return _render(self.codeobj, self.current_offset, self.first_line)


def _test():
    """python -m dis [FILE]: disassemble a file (stdin without one)."""
    import argparse
    parser = argparse.ArgumentParser()
    parser.add_argument("infile", type=argparse.FileType("rb"), nargs="?", default="-")
    args = parser.parse_args()
    with args.infile as infile:
        source = infile.read()
    dis(compile(source, args.infile.name, "exec"))


if __name__ == "__main__":
    _test()
