#!/usr/bin/env bash
# Ember installed, not only built: `meson install` into a staging directory (DESTDIR) puts the
# command, its library directory, the public headers, libember.a and ember.pc under the prefix;
# the staged `ember` runs its library from its own library directory (found relative to the
# binary: the staging directory is not the configured prefix), and examples/embed/embed.c
# builds against the installed ember.pc and runs.
# usage: check_install.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
fail=0
check() { if ! eval "$2"; then echo "FAIL: $1"; fail=1; else echo "ok: $1"; fi; }

DESTDIR=$stage meson install -C "$build" --no-rebuild --quiet >/dev/null
prefix=$(meson introspect "$build" --buildoptions | python3 -c 'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"]=="prefix"))')
libdir=$(meson introspect "$build" --buildoptions | python3 -c 'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"]=="libdir"))')
root=$stage$prefix
ember=$root/bin/ember
check "bin/ember installed" '[[ -x $ember ]]'
check "library directory installed ($libdir/ember)" '[[ -f $root/$libdir/ember/torch/__init__.py && -f $root/$libdir/ember/torch/_dynamo/__init__.py ]]'
for h in "$src"/include/ember/*; do
  check "public header $(basename "$h") installed" '[[ -f $root/include/ember/$(basename "$h") ]]'
done
check "libember.a and ember.pc installed" '[[ -f $root/$libdir/libember.a && -f $root/$libdir/pkgconfig/ember.pc ]]'

# the staged binary finds its library relative to itself
got=$("$ember" -c 'import torch, torch.nn; print(torch.__file__); print(torch.nn.__file__)')
check "the installed ember imports torch from its library directory" \
  '[[ $got == "$root/$libdir/ember/torch/__init__.py"$'"'"'\n'"'"'"$root/$libdir/ember/torch/nn/__init__.py" ]]'
out=$("$ember" -c 'import torch; x = torch.ones(2, requires_grad=True); (x * 3).sum().backward(); print(x.grad.tolist())')
check "the installed ember runs a backward pass" '[[ $out == "[3.0, 3.0]" ]]'
echo "$got"

# a host program built against the installed ember.pc
export PKG_CONFIG_PATH=$root/$libdir/pkgconfig
flags=$(pkg-config --define-variable=prefix="$root" --cflags --libs ember)
# a sanitizer build's libember.a needs the sanitizer runtimes at link time, as any host would
[[ ${EMBER_SANITIZE:-none} != none ]] && flags="$flags -fsanitize=$EMBER_SANITIZE"
check "examples/embed builds against the installed ember.pc" \
  'cc -o "$stage/embed" "$src/examples/embed/embed.c" $flags'
check "examples/embed runs" '"$stage/embed" > "$stage/embed.out"'
check "and says what the in-tree example says" '[[ $(cat "$stage/embed.out") == $("$build/examples/embed/embed-example") ]]'
exit $fail
