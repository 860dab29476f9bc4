#!/usr/bin/env python3
"""Remove Ember bytecode-cache files (NAME.ember-XXXXXXXX.pyc) whose tag is not the current one.

usage: prune_pycache.py EMBER [DIR...]

The current tag is EMBER's sys.implementation.cache_tag.  DIRs default to the CPython standard
library EMBER runs (where it caches the stdlib it imports), the per-user cache ($XDG_CACHE_HOME/ember or
~/.cache/ember) and the source tree this script sits in.  Until the tag became a hash of the
bytecode format (tools/code_fingerprint.py), every compiler change made a new tag and left the
old files behind; files of the current tag written by another compiler are overwritten in place
(the compiler stamp in their header), so they are kept.  CPython's own .pyc files are never
touched."""
import os
import re
import subprocess
import sys

PAT = re.compile(r'^.+\.(ember-[0-9a-f]+)\.pyc(\.\d+)?$')


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    tag, stdlib = subprocess.run([argv[1], '-c', 'import sys, os; print(sys.implementation.cache_tag); '
                                  'print(os.path.dirname(os.__file__))'],
                                 check=True, capture_output=True, text=True).stdout.split()
    dirs = argv[2:]
    if not dirs:
        xdg = os.environ.get('XDG_CACHE_HOME') or os.path.expanduser('~/.cache')
        dirs = [stdlib, os.path.join(xdg, 'ember'),
                os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
    removed = kept = 0
    for top in dirs:
        for d, subdirs, files in os.walk(top):
            for f in files:
                m = PAT.match(f)
                if not m:
                    continue
                if m.group(1) == tag and not m.group(2):
                    kept += 1
                    continue
                try:
                    os.unlink(os.path.join(d, f))
                    removed += 1
                except OSError as e:
                    print(f'{os.path.join(d, f)}: {e.strerror}', file=sys.stderr)
    print(f'current tag {tag}: removed {removed} stale files, kept {kept}')


if __name__ == '__main__':
    main(sys.argv)
