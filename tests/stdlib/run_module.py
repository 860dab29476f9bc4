# `python -m MODULE` (ember -m): runpy runs a stdlib module as __main__, through sys.executable.
import subprocess, sys

r = subprocess.run([sys.executable, "-m", "json.tool", "--sort-keys"], input='{"b": [1, 2], "a": {"c": null}}',
                   capture_output=True, text=True)
print(r.returncode, r.stdout, end="")
r = subprocess.run([sys.executable, "-m", "json.tool"], input="{bad", capture_output=True, text=True)
print(r.returncode, r.stderr.strip().splitlines()[-1])
r = subprocess.run([sys.executable, "-m", "no_such_module_xyz"], capture_output=True, text=True)
print(r.returncode, r.stderr.strip().splitlines()[-1].split(":")[-1].strip())
