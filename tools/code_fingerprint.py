#!/usr/bin/env python3
"""Write a C header naming Ember's bytecode-cache tag.

usage: code_fingerprint.py SRCROOT          (prints the tag; meson's vcs_tag() writes the header)

The tag is 'ember-' + 8 hex digits hashing every source that decides what a cached code object
means: the opcode table, the code-object layout and assembler, the marshal format and the
whole compiler front end.  Any change to them gives a new tag, so caches written by another
build are never read (they have another file name).  The header is rewritten only when the tag
changes (vcs_tag), so a build that changed nothing rebuilds nothing."""
import glob
import hashlib
import os
import sys


def main(root):
    pats = ['vm/opcodes.def', 'vm/code.h', 'vm/code.c', 'vm/value.h', 'vm/marshal.c', 'vm/marshal.h',
            'src/frontend/*.c', 'src/frontend/*.h', 'src/frontend/*.def']
    h = hashlib.sha256()
    for pat in pats:
        for f in sorted(glob.glob(os.path.join(root, pat))):
            h.update(os.path.relpath(f, root).encode())
            with open(f, 'rb') as fh:
                h.update(fh.read())
    print('ember-' + h.hexdigest()[:8])


if __name__ == '__main__':
    main(sys.argv[1])
