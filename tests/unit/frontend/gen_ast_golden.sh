#!/usr/bin/env bash
# Regenerates the AST goldens of tests/unit/frontend/ast/ from CPython 3.11:
#   NAME.ast    ast.dump(ast.parse(source))
#   NAME.attrs  ast.dump(ast.parse(source), include_attributes=True)
# Sources are read as bytes, as CPython reads a script (BOM and CRLF handled by CPython).
# usage: tests/unit/frontend/gen_ast_golden.sh [python3]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
py=${1:-python3}
"$py" - "$here/ast" <<'PY'
import ast, glob, os, sys
assert sys.version_info[:2] == (3, 11), "goldens must come from CPython 3.11"
import warnings
warnings.simplefilter("ignore")  # SyntaxWarnings of deliberately odd sources
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.py"))):
    tree = ast.parse(open(path, "rb").read(), path)
    base = path[:-3]
    with open(base + ".ast", "w", encoding="utf-8", newline="\n") as f:
        f.write(ast.dump(tree) + "\n")
    with open(base + ".attrs", "w", encoding="utf-8", newline="\n") as f:
        f.write(ast.dump(tree, include_attributes=True) + "\n")
PY
