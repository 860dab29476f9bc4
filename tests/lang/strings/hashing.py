# str / bytes / memoryview hashes are CPython's SipHash-1-3 over its representation of the string
# (one, two or four bytes per code point), keyed by PYTHONHASHSEED: Ember's default is CPython's
# PYTHONHASHSEED=0 (recorded with it), so sets and dicts of strings iterate in CPython's order.
import subprocess
import sys

for s in ("", "a", "abc", "hello world", "x" * 7, "x" * 8, "x" * 9, "x" * 100, "héllo", "ÿ", "Ā", "日本語",
          "a😀", "😀" * 5, "mixed é 日 😀"):
    print(repr(s), hash(s))
for b in (b"", b"abc", bytes(range(256)), b"\xff" * 17):
    print(b[:8], len(b), hash(b), hash(memoryview(b)) == hash(b))
print(hash(("a", "b")), hash(frozenset({"x", "y", "z"})))
# (a display of constants, {"alpha", ...}, is a frozenset constant that CPython's compiler
# rebuilds once or twice depending on which of its strings were interned before: not tested)
print(set(["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]))
print({w.upper() for w in ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]})
print(list({w: len(w) for w in "the quick brown fox jumps over the lazy dog".split()}))
print(set("mississippi"), {"é", "日", "😀", "e"})
print(sys.flags.hash_randomization, sys.hash_info.algorithm, sys.hash_info.seed_bits, sys.hash_info.cutoff)
code = "import sys; print(hash('abc'), hash(b'abc'), sys.flags.hash_randomization, sorted({'q', 'r', 's'}))"
for seed in ("1", "4294967295", "0"):
    r = subprocess.run([sys.executable, "-c", code], env={"PYTHONHASHSEED": seed}, capture_output=True, text=True)
    print(seed, r.returncode, r.stdout.strip())
r = subprocess.run([sys.executable, "-c", "pass"], env={"PYTHONHASHSEED": "4294967296"}, capture_output=True, text=True)
print(r.returncode, r.stderr.splitlines()[0])
