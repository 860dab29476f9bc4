#!/usr/bin/env bash
# Regenerates the token goldens from CPython 3.11's tokenize module, for every program in
# tests/unit/frontend/tokens/ and tests/unit/frontend/ast/:
#   NAME.tok  one token per line.  Ordinary tokens: "KIND line:col-line:col text" with
#             columns in UTF-8 bytes as CPython's C tokenizer reports them, operators named
#             by their exact type (LPAR, PLUSEQUAL, ...), keywords as KW_<UPPER>.  NEWLINE,
#             INDENT and DEDENT carry only their line (tokenize.py places them differently
#             from the C tokenizer; DEDENTs at the end of the file are "DEDENT EOF");
#             COMMENT, NL and ENCODING are not tokens of the C lexer.
# usage: tests/unit/frontend/gen_token_golden.sh [python3]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
py=${1:-python3}
"$py" - "$here/tokens" "$here/ast" <<'PY'
import glob, io, keyword, os, sys, tokenize
assert sys.version_info[:2] == (3, 11), "goldens must come from CPython 3.11"
import warnings
warnings.simplefilter("ignore")  # SyntaxWarnings of deliberately odd sources
HARD = set(keyword.kwlist)

for d in sys.argv[1:]:
    for path in sorted(glob.glob(os.path.join(d, "*.py"))):
        data = open(path, "rb").read()
        lines = data.decode("utf-8-sig").replace("\r\n", "\n").replace("\r", "\n").split("\n")
        def col(line, c):
            return len(lines[line - 1][:c].encode()) if line - 1 < len(lines) else c
        out = []
        for t in tokenize.tokenize(io.BytesIO(data).readline):
            if t.type in (tokenize.COMMENT, tokenize.NL, tokenize.ENCODING):
                continue
            name = tokenize.tok_name[t.exact_type]
            if t.type == tokenize.NAME and t.string in HARD:
                name = "KW_" + t.string.upper()
            if t.type in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
                out.append("%s %d" % (name, t.start[0]))
                if t.type == tokenize.DEDENT and t.start[0] > len(lines) - (lines[-1] == ""):
                    out[-1] = "DEDENT EOF"  # tokenize.py puts these past the last line
            elif t.type == tokenize.ENDMARKER:
                out.append(name)
            else:
                (l1, c1), (l2, c2) = t.start, t.end
                text = t.string.replace("\\", "\\\\").replace("\n", "\\n")
                out.append("%s %d:%d-%d:%d %s" % (name, l1, col(l1, c1), l2, col(l2, c2), text))
        with open(path[:-3] + ".tok", "w", encoding="utf-8", newline="\n") as f:
            f.write("\n".join(out) + "\n")
PY
