#!/usr/bin/env bash
# Regenerates the symbol-table goldens from CPython 3.11, for every program in
# tests/unit/frontend/symtable/ and tests/unit/frontend/ast/:
#   NAME.sym  the scope tree of the `symtable` module (scope type, name, line, nested; each
#             symbol sorted by name with its scope and DEF_* flags), then one line per code
#             object of compile() (co_name, co_firstlineno, co_varnames, co_cellvars,
#             co_freevars, and V/K/N/G for CO_VARARGS/VARKEYWORDS/NESTED/GENERATOR), sorted.
# usage: tests/unit/frontend/gen_symtable_golden.sh [python3]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
py=${1:-python3}
"$py" - "$here/symtable" "$here/ast" <<'PY'
import _symtable, glob, os, symtable, sys
assert sys.version_info[:2] == (3, 11), "goldens must come from CPython 3.11"
import warnings
warnings.simplefilter("ignore")  # SyntaxWarnings of deliberately odd sources
MASK = (1 << _symtable.SCOPE_OFF) - 1

def scopes(t, depth, out):
    out.append("%sscope %s %s %d nested=%d" % ("  " * depth, t.get_type(), t.get_name(),
                                                 t.get_lineno(), 1 if t.is_nested() else 0))
    syms = t._table.symbols
    for name in sorted(syms):
        v = syms[name]
        out.append("%s  %s %d %d" % ("  " * depth, name,
                                       (v >> _symtable.SCOPE_OFF) & _symtable.SCOPE_MASK, v & MASK))
    for c in t.get_children():
        scopes(c, depth + 1, out)

def codes(co, out):
    fl = co.co_flags
    flags = ""
    if fl & 0x2:  # CO_NEWLOCALS: a function
        flags = "".join(c for bit, c in ((0x4, "V"), (0x8, "K"), (0x10, "N"), (0x20, "G")) if fl & bit)
    out.append("code %s %d varnames=(%s) cellvars=(%s) freevars=(%s) flags=%s" % (
        co.co_name, co.co_firstlineno, ",".join(co.co_varnames), ",".join(co.co_cellvars),
        ",".join(co.co_freevars), flags))
    for c in co.co_consts:
        if hasattr(c, "co_code"):
            codes(c, out)

for d in sys.argv[1:]:
    for path in sorted(glob.glob(os.path.join(d, "*.py"))):
        src = open(path, "rb").read().decode("utf-8-sig")
        out = []
        scopes(symtable.symtable(src, path, "exec"), 0, out)
        code_lines = []
        codes(compile(src, path, "exec"), code_lines)
        out += sorted(code_lines)
        with open(path[:-3] + ".sym", "w", encoding="utf-8", newline="\n") as f:
            f.write("\n".join(out) + "\n")
PY
