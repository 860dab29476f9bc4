#!/usr/bin/env bash
# Regenerates the syntax-error goldens of tests/unit/frontend/errors/ from CPython 3.11.
# For each NAME.py (one bad program):
#   NAME.err  the error CPython reports first, as
#             Kind:lineno:offset:end_lineno:end_offset:message   (SyntaxError attributes of
#             compile(source, path, "exec"); None stays None)
#   NAME.fmt  Ember's rendering of it, derived from CPython's own printout of that error
#             (sys.__excepthook__, the C printer): "NAME.py:line:col: Kind: message", the
#             source line as CPython prints it, and a caret where CPython's caret range
#             starts.  Only written when CPython's printout is unambiguous (ASCII line, no
#             tab before the caret).
# errors_multi/NAME.py hold several independent bad statements; NAME.errs lists CPython's
# error for each, found by compiling, blanking the failing statement's block (lines become
# `pass`; blocks are separated by blank lines, or are single lines when there are none) and
# compiling again: CPython's first error, then the others in source order.
# unsupported_*.py are valid Python that Ember rejects: their .err names the construct
# with Ember's message at the position CPython's AST (or tokenizer) gives it.
# usage: tests/unit/frontend/gen_error_golden.sh [python3]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
py=${1:-python3}
"$py" - "$here/errors" "$here/errors_multi" <<'PY'
import ast, glob, io, os, subprocess, sys, tokenize, unicodedata
assert sys.version_info[:2] == (3, 11), "goldens must come from CPython 3.11"
import warnings
warnings.simplefilter("ignore")  # SyntaxWarnings of deliberately odd sources

def line_of(src, lineno):
    lines = src.splitlines()
    return lines[lineno - 1] if 0 < lineno <= len(lines) else ""

def chars(src, lineno, byte_col):
    return len(line_of(src, lineno).encode()[:byte_col].decode(errors="replace"))

def span(src, node, length=None):
    col = chars(src, node.lineno, node.col_offset) + 1
    if length is not None:
        return "%d:%d:%d:%d" % (node.lineno, col, node.lineno, col + length)
    end = chars(src, node.end_lineno, node.end_col_offset) + 1
    return "%d:%d:%d:%d" % (node.lineno, col, node.end_lineno, end)

def unsupported(src):
    tree = ast.parse(src)
    found = []
    for node in ast.walk(tree):
        key = (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))
        if isinstance(node, ast.TryStar):
            h = node.handlers[0]
            found.append(((h.lineno, h.col_offset), span(src, h, 6), "'except*' is not supported"))
    if "\\N{" in src:  # raised at the token after the string, like CPython's string errors
        toks = [t for t in tokenize.generate_tokens(io.StringIO(src).readline)
                if t.type not in (tokenize.COMMENT, tokenize.NL)]
        for i, t in enumerate(toks):
            if t.type == tokenize.STRING and "\\N{" in t.string:
                j = i
                while toks[j + 1].type == tokenize.STRING:
                    j += 1
                n = toks[j + 1]
                end = n.start[1] if n.type == tokenize.NEWLINE else n.end[1]
                found.append(((0, 0), "%d:%d:%d:%d" % (n.start[0], n.start[1] + 1, n.end[0], end + 1),
                              "(unicode error) \\N{...} escapes are not supported"))
    names = [(t.start, t.end, t.string) for t in tokenize.generate_tokens(io.StringIO(src).readline)
             if t.type == tokenize.NAME]
    for node in ast.walk(tree):  # names inside f-strings are not tokens of tokenize.py
        if isinstance(node, ast.Name) and node.lineno == node.end_lineno:
            line = line_of(src, node.lineno).encode()
            text = line[node.col_offset:node.end_col_offset].decode()
            c = chars(src, node.lineno, node.col_offset)
            names.append(((node.lineno, c), (node.lineno, c + len(text)), text))
    odd = sorted(n for n in names if unicodedata.normalize("NFKC", n[2]) != n[2])
    if odd:
        (l1, c1), (l2, c2), text = odd[0]
        found.append(((-1, 0), "%d:%d:%d:%d" % (l1, c1 + 1, l2, c2 + 1),
                      "identifier '%s' needs Unicode NFKC normalization, which is not supported" % text))
    # except* is rejected while parsing
    early = [f for f in found if "NFKC" in f[2] or "except*" in f[2] or "\\N" in f[2]]
    pick = min(early or found)
    return "SyntaxError:%s:%s" % (pick[1], pick[2])

def fmt_golden(path, src, e):
    # CPython 3.11's own printer (sys.__excepthook__ is the C PyErr_Display) on the
    # exception compile() raised
    name = os.path.basename(path)
    saved, sys.stderr = sys.stderr, io.StringIO()
    try:
        sys.__excepthook__(type(e), e.with_traceback(None), None)
        printed = sys.stderr.getvalue()
    finally:
        sys.stderr = saved
    lines = printed.splitlines()
    start = max(k for k, l in enumerate(lines) if l.startswith('  File "'))
    body = lines[start + 1:-1]  # the source line and the caret line as CPython prints them
    text = line_of(src, e.lineno)
    if not text.isascii() or "\t" in text or len(body) > 2 or not body:
        return None
    out = "%s:%d:%s: %s: %s\n" % (name, e.lineno, e.offset, type(e).__name__, e.msg)
    out += body[0] + "\n"
    if len(body) == 2:
        caret = body[1]
        out += caret[: caret.index("^") + 1] + "\n"
    return out

def multi(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    blank_separated = any(not l.strip() for l in lines[:-1])
    errs = []
    for _ in range(100):
        try:
            compile("\n".join(lines), path, "exec")
            first, rest = errs[:1], errs[1:]
            rest.sort(key=lambda e: tuple(int(x) for x in e.split(":")[1:3]))
            return first + rest
        except SyntaxError as e:
            errs.append("%s:%s:%s:%s:%s:%s" % (type(e).__name__, e.lineno, e.offset, e.end_lineno, e.end_offset, e.msg))
            lo = hi = e.lineno - 1
            while blank_separated and lo > 0 and lines[lo - 1].strip():
                lo -= 1
            while blank_separated and hi + 1 < len(lines) and lines[hi + 1].strip():
                hi += 1
            for k in range(lo, hi + 1):
                lines[k] = "pass"
    sys.exit("%s: too many errors" % path)

for path in sorted(glob.glob(os.path.join(sys.argv[2], "*.py"))):
    with open(path[:-3] + ".errs", "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(multi(path)) + "\n")

for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.py"))):
    src = open(path, encoding="utf-8", newline="").read()
    base = path[:-3]
    fmt = None
    if os.path.basename(path).startswith("unsupported_"):
        err = unsupported(src)
    else:
        try:
            compile(src, path, "exec")
            sys.exit("%s compiles: it does not belong in errors/" % path)
        except SyntaxError as e:
            err = "%s:%s:%s:%s:%s:%s" % (type(e).__name__, e.lineno, e.offset, e.end_lineno, e.end_offset, e.msg)
            fmt = fmt_golden(path, src, e)
    with open(base + ".err", "w", encoding="utf-8", newline="\n") as f:
        f.write(err + "\n")
    if fmt is not None:
        with open(base + ".fmt", "w", encoding="utf-8", newline="\n") as f:
            f.write(fmt)
    elif os.path.exists(base + ".fmt"):
        os.remove(base + ".fmt")
PY
