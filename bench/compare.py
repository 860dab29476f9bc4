#!/usr/bin/env python3
"""Before/after comparison of two Ember builds over every bench family of bench/ (issue 20's
"no other bench got slower"): each family's figures measured with both builds, paired (within a
round the two builds run back to back, and the order alternates between rounds, so both see the
same load), best of the rounds, with the peer's figure (CPython / Lua / PyTorch 1.13) where the
family has one.  Prints one Markdown table: family, figure, base, new, new/base (best of rounds),
each round's new/base, peer, new/peer; `uptime` before each round; then the figures slower by
more than 10% in every round, and every failure.  Not a test: nothing here
asserts a timing.

What each family runs is what its own driver runs (same scripts, same arguments, same
environment: one BLAS/OpenMP thread), taking the figures the scripts print:
  vm       bench/vm/<prog>.py under `ember run` (child CPU time, best of --vm-runs, as vm/run.py),
           `ember run empty.py`, and vm/startup.py's three `ember -c` import lines
  runtime  runtime/train_step.py eager and compiled (CPU us per step), build/bench/runtime/mlp_floor,
           build/bench/runtime/bench_runtime's CPU-per-step lines
  torch    torch/bench_ops.py (CPU-time column; wall clock where the script prints only that)
  tracer   build/bench/tracer/bench_tracer (CPU time)        peer: tracer/torchscript_peer.py
  tensor   build/bench/tensor/bench_tensor                    peer: tensor/bench_torch.py
  nn       nn/module_call.py, nn/mlp_step.py (CPU us), peak RSS of mlp_step's process
  layers   nn/layers_models.py (issue 17's models, CPU ms per step; OPENBLAS_CORETYPE removed, as
           nn/run_layers.py does) -- slow, so only with --only layers
  ffi      ffi/call_overhead.py 1000000 (CPU ns per call)
  dist     dist/run.py's launches (2 ranks over gloo: all_reduce, DDP steps, FSDP memory; wall)
  threads  threads/threads.py at 1 and 2 threads and train_step.py's mlp_b64 (wall ms, as
           threads/run.py: the thread variables removed from the environment)
The C benches (bench_tensor, bench_tracer, bench_runtime, mlp_floor) are each build's own binaries.

Scripts: the new tree's bench/ (the tree this file is in) runs with both binaries.  When a family's
scripts fail under the base binary (a feature the base lacks), the base tree's own bench/ (the
parent directory of --base, or --base-src) is run with BOTH binaries for the paired rows, and the
new tree's rows the base cannot run are listed with base "fails" and the error; a figure neither
script gives at the base is "-".  Nothing is hidden: every failure is printed under the table.

usage: bench/compare.py --base BUILD_A --new BUILD_B [--rounds 2] [--only vm,runtime,...]
                        [--base-src DIR] [--python /usr/bin/python3] [--no-peer]
"""
import argparse
import os
import re
import shutil
import hashlib
import subprocess
import tempfile
import sys
import time

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
ENV1 = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
ENV_THREADS = {k: v for k, v in os.environ.items()
               if k not in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS")}
ENV_LAYERS = {k: v for k, v in ENV1.items() if k != "OPENBLAS_CORETYPE"}
DEFAULT = ["vm", "runtime", "torch", "tracer", "tensor", "nn", "ffi", "dist", "threads"]
ALL = DEFAULT + ["layers"]


class Fail(Exception):
    pass


def own_cache(cmd, env):
    """env with a bytecode cache of the binary's own: two builds alternating would otherwise share
    ~/.cache/ember/pycache under one tag and recompile each other's stdlib caches (an `import
    torch` then reads ~100 ms instead of ~30)"""
    if not os.path.isfile(cmd[0]) or "ember" not in os.path.basename(cmd[0]) and "bench_" not in os.path.basename(cmd[0]):
        return env
    key = hashlib.sha1(os.path.realpath(cmd[0]).encode()).hexdigest()[:12]
    return dict(env, XDG_CACHE_HOME=os.path.join(tempfile.gettempdir(), "ember-bench-cache-" + key))


def child(cmd, env=ENV1, timeout=1800, partial=None):
    """the child's stdout; Fail with stderr's last line if it fails (with partial, a list: the
    stdout printed before the failure is appended to it first)"""
    if not os.path.exists(cmd[0]) and shutil.which(cmd[0]) is None:
        raise Fail("%s does not exist" % os.path.relpath(cmd[0]))
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=own_cache(cmd, env))
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise Fail("timed out after %d s: %s" % (timeout, " ".join(cmd)))
    if proc.returncode != 0:
        if partial is not None:
            partial.append(out.decode(errors="replace"))
        lines = [ln for ln in err.decode(errors="replace").strip().splitlines() if ln.strip()]
        raise Fail("exit %d: %s" % (proc.returncode, lines[-1][:160] if lines else "(no stderr)"))
    return out.decode(errors="replace")


def cpu_of(cmd, env=ENV1):
    """CPU seconds (user + system) and peak RSS KiB of one run of cmd (as vm/run.py measures)"""
    if not os.path.exists(cmd[0]) and shutil.which(cmd[0]) is None:
        raise Fail("%s does not exist" % cmd[0])
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=own_cache(cmd, env))
    err = proc.stderr.read()
    proc.stderr.close()
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        lines = [ln for ln in err.decode(errors="replace").strip().splitlines() if ln.strip()]
        raise Fail("exit %d: %s" % (status >> 8, lines[-1][:160] if lines else "(no stderr)"))
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def kv(text, col=1, prefix=""):
    vals = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) > col:
            try:
                vals[prefix + parts[0]] = float(parts[col])
            except ValueError:
                pass
    return vals


def best_cpu(cmd, runs, env=ENV1):
    return min(cpu_of(cmd, env)[0] for _ in range(runs))


# ---- families: fn(ember_build_or_None_for_peer, scripts_root, opts) -> {figure: value} ----
# A figure's name carries its unit.  With build None the family's peer runs instead (and may
# return figures for only some of the rows).

VM_PROGS = ["fib", "while_loop", "method_calls", "float_list", "closures"]
STARTUP = [("empty", "pass"), ("os,sys", "import os, sys"),
           ("model imports", "import os, sys, argparse, json, random, re, dataclasses, typing, inspect, logging")]


def fam_vm(build, root, o):
    d = os.path.join(root, "bench", "vm")
    vals = {}
    lua = shutil.which("lua5.4")
    for name in VM_PROGS:
        path = os.path.join(d, name + ".py")
        if build:
            vals["%s (CPU s)" % name] = best_cpu([ember(build), "run", path], o.vm_runs)
        else:
            vals["%s (CPU s)" % name] = "CPython %.3f" % best_cpu([o.python, path], o.vm_runs)
            lp = os.path.join(d, name + ".lua")
            if lua and os.path.exists(lp):
                vals["%s (CPU s)" % name] += ", Lua %.3f" % best_cpu([lua, lp], o.vm_runs)
    empty = os.path.join(d, "empty.py")
    if build:
        vals["run empty.py (CPU ms)"] = 1e3 * best_cpu([ember(build), "run", empty], o.vm_runs * 2)
    else:
        vals["run empty.py (CPU ms)"] = "CPython %.1f" % (1e3 * best_cpu([o.python, empty], o.vm_runs * 2))
    for name, code in STARTUP:
        cmd = [ember(build), "-c", code] if build else [o.python, "-c", code]
        key = "startup %s (CPU ms)" % name
        try:
            cpu_of(cmd)   # warm the caches (startup.py does the same)
            vals[key] = 1e3 * best_cpu(cmd, o.vm_runs * 2)
        except Fail as e:
            vals[key] = Fail(str(e))
    return vals


def fam_runtime(build, root, o):
    script = os.path.join(root, "bench", "runtime", "train_step.py")
    vals = {}
    if build is None:
        for k, v in kv(child([o.python, script, "eager", "1"])).items():
            vals["%s eager (CPU us)" % k] = v
        return vals
    for mode in ("eager", "compiled"):
        for k, v in kv(child([ember(build), "run", script, mode, "1"])).items():
            vals["%s %s (CPU us)" % (k, mode)] = v
    for m in ("gelu_mlp_b32", "gpt_block_b4"):
        if "%s eager (CPU us)" % m in vals and "%s compiled (CPU us)" % m in vals:
            vals["%s eager/compiled (x)" % m] = vals["%s eager (CPU us)" % m] / vals["%s compiled (CPU us)" % m]
    floor = os.path.join(build, "bench", "runtime", "mlp_floor")
    try:
        for k, v in kv(child([floor, "1"])).items():
            vals["C %s (CPU us)" % k] = v
    except Fail as e:
        vals["C floor_mlp_b1 (CPU us)"] = Fail(str(e))
    try:
        name = None
        for line in child([os.path.join(build, "bench", "runtime", "bench_runtime")]).splitlines():
            if line and not line.startswith(" ") and not line.startswith("runtime benchmark"):
                name = line.strip()
            elif line.strip().startswith("CPU per step") and name:
                p = line.split()
                vals["bench_runtime %s eager (CPU us)" % name] = float(p[4])
                vals["bench_runtime %s compiled (CPU us)" % name] = float(p[7])
    except Fail as e:
        vals["bench_runtime (CPU us)"] = Fail(str(e))
    return vals


def fam_torch(build, root, o):
    script = os.path.join(root, "bench", "torch", "bench_ops.py")
    part = []
    vals = {}
    try:
        out = child([ember(build), "run", script] if build else [o.python, script], partial=part)
    except Fail as e:   # keep the rows printed before the failure (an op the build lacks)
        if not part or not part[0].strip():
            raise
        out = part[0]
        vals["rest of bench_ops.py"] = Fail(str(e))
    for line in out.splitlines():
        p = line.split()
        try:
            if len(p) >= 3:
                vals["%s (CPU us)" % p[0]] = float(p[2])
            elif len(p) == 2:
                vals["%s (wall us)" % p[0]] = float(p[1])
        except ValueError:
            pass
    return vals


TRACER_PEER = {"trace_mlp": "jit_trace_mlp", "trace_mlp12": "jit_trace_mlp12", "trace_plan_mlp": "jit_script_mlp",
               "trace_plan_mlp12": "jit_script_mlp12", "call_overhead": "call_overhead"}


def fam_tracer(build, root, o):
    if build is None:
        peer = kv(child([o.python, os.path.join(root, "bench", "tracer", "torchscript_peer.py")]))
        return {"%s (CPU us)" % k: peer[p] for k, p in TRACER_PEER.items() if p in peer}
    vals = kv(child([os.path.join(build, "bench", "tracer", "bench_tracer")]))
    return {("%s (count)" if k == "guard_count" else "%s (CPU us)") % k: v for k, v in vals.items()}


def fam_tensor(build, root, o):
    if build is None:
        out = child([o.python, os.path.join(root, "bench", "tensor", "bench_torch.py")])
    else:
        out = child([os.path.join(build, "bench", "tensor", "bench_tensor")])
    return {"%s (us)" % k: v for k, v in kv(out).items()}


def fam_nn(build, root, o):
    vals = {}
    for script in ("module_call.py", "mlp_step.py"):
        path = os.path.join(root, "bench", "nn", script)
        cmd = [ember(build), "run", path] if build else [o.python, path]
        vals.update({"%s (CPU us)" % k: v for k, v in kv(child(cmd)).items()})
        if script == "mlp_step.py":
            vals["mlp_step.py peak RSS (MiB)"] = cpu_of(cmd)[1] / 1024.0
    return vals


def fam_layers(build, root, o):
    path = os.path.join(root, "bench", "nn", "layers_models.py")
    vals = {}
    for model in ("resnet18", "lstm", "transformer"):
        cmd = ([ember(build), "run", path] if build else [o.python, path]) + [model]
        vals.update({"%s (CPU ms)" % k: v for k, v in kv(child(cmd, env=ENV_LAYERS)).items()})
    return vals


def fam_ffi(build, root, o):
    path = os.path.join(root, "bench", "ffi", "call_overhead.py")
    cmd = [ember(build), "run", path, "1000000"] if build else [o.python, path, "1000000"]
    return {"%s (CPU ns)" % k: v for k, v in kv(child(cmd)).items()}


def fam_dist(build, root, o):
    import importlib.util
    if not os.path.exists(os.path.join(root, "bench", "dist", "run.py")):
        raise Fail("no bench/dist in %s" % root)
    spec = importlib.util.spec_from_file_location("bench6_dist_run", os.path.join(root, "bench", "dist", "run.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.ARGS = argparse.Namespace(ember=ember(build) if build else None, python=o.python, rounds=1, no_mpi=True)
    kind = "ember" if build else "pytorch"
    vals = {}
    try:
        for k, v in mod.launch(kind, ["allreduce.py"]).items():
            vals["%s (wall s)" % k] = v
        for model in ("mlp", "gpt"):
            r = mod.launch(kind, ["ddp_step.py", "--model", model])
            vals["ddp %s step_s (wall s)" % model] = r["step_s"]
        if build:
            for mode in ("ddp", "fsdp"):
                vals["fsdp_memory %s peak (MiB)" % mode] = mod.launch(kind, ["fsdp_memory.py", "--mode", mode])["peak_mb"]
    except SystemExit as e:   # dist/run.py's launch exits with the child's stderr
        raise Fail(str(e).strip().splitlines()[-1][:160] if str(e).strip() else "launch failed")
    return vals


def fam_threads(build, root, o):
    script = os.path.join(root, "bench", "threads", "threads.py")
    if not os.path.exists(script):
        raise Fail("no bench/threads in %s" % root)
    step = os.path.join(root, "bench", "runtime", "train_step.py")
    vals = {}
    sides = [("eager", [ember(build), "run", script]),
             ("compiled", [ember(build), "run", "--compile-all", "--backend", "ember", script])] if build \
        else [("eager", [o.python, script])]
    for side, cmd in sides:
        for t in (1, 2):
            for k, v in kv(child(cmd + [str(t)], env=ENV_THREADS)).items():
                vals["%s %s %dt (wall ms)" % (k, side, t)] = v
    for t in (1, 2):
        cmd = ([ember(build), "run", step] if build else [o.python, step]) + ["eager", "1", str(t), "mlp_b64"]
        vals["mlp_b64 step eager %dt (wall ms)" % t] = kv(child(cmd, env=ENV_THREADS))["mlp_b64"] / 1e3
    return vals


FAMILIES = {"vm": fam_vm, "runtime": fam_runtime, "torch": fam_torch, "tracer": fam_tracer, "tensor": fam_tensor,
            "nn": fam_nn, "layers": fam_layers, "ffi": fam_ffi, "dist": fam_dist, "threads": fam_threads}


def measure(f, build, root, o):
    """one family's figures; any error of the bench itself becomes a Fail (reported, not hidden)"""
    try:
        return FAMILIES[f](build, root, o)
    except Fail:
        raise
    except (Exception, SystemExit) as e:
        raise Fail("%s: %s" % (type(e).__name__, str(e).strip().splitlines()[-1][:160] if str(e).strip() else ""))


def ember(build):
    return os.path.join(build, "src", "cli", "ember")


def uptime():
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def fmt(v):
    if v is None:
        return "-"
    if isinstance(v, Fail):
        return "fails"
    if isinstance(v, str):
        return v
    return "%.4g" % v if abs(v) < 1000 else "%.0f" % v


def peer_ratio(n, p):
    """new / peer; a text peer ("CPython 0.9, Lua 0.3") gives one ratio per named figure"""
    if not isinstance(n, (int, float)):
        return "-"
    if isinstance(p, (int, float)) and p:
        return "%.3f" % (n / p)
    if isinstance(p, str):
        pairs = re.findall(r"([A-Za-z]+) ([0-9.]+)", p)
        return ", ".join("%s %.2f" % (name, n / float(v)) for name, v in pairs if float(v)) or "-"
    return "-"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True, help="the base build directory")
    ap.add_argument("--new", required=True, help="the new build directory")
    ap.add_argument("--base-src", help="the base's source tree (default: the parent of --base)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--only", default=",".join(DEFAULT), help="families, comma-separated: " + ",".join(ALL))
    ap.add_argument("--python", default="/usr/bin/python3")
    ap.add_argument("--vm-runs", type=int, default=3, help="runs per VM program per side and round (best kept)")
    ap.add_argument("--no-peer", action="store_true")
    o = ap.parse_args()
    base_src = o.base_src or os.path.dirname(os.path.abspath(o.base))
    fams = [f for f in o.only.split(",") if f]
    for f in fams:
        if f not in FAMILIES:
            sys.exit("unknown family %s (have %s)" % (f, ",".join(ALL)))
    have_torch = subprocess.run([o.python, "-c", "import torch"], capture_output=True).returncode == 0
    notes, loads = [], []
    # per family: the scripts root the pair runs ("new" or "base"), results[side][figure] = [per round]
    rows = {}
    for f in fams:
        rows[f] = {"root": None, "base": {}, "new": {}, "extra": {}, "peer": {}, "err": {}}
    t_start = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    for r in range(o.rounds):
        loads.append("round %d: %s" % (r + 1, uptime()))
        print(loads[-1], file=sys.stderr)
        order = ["base", "new"] if r % 2 == 0 else ["new", "base"]
        for f in fams:
            st = rows[f]
            for side in order:
                build = o.base if side == "base" else o.new
                t0 = time.time()
                vals = None
                if st["root"] is None:   # round 1 (base first): which scripts does the base run?
                    try:
                        vals = measure(f, build, TOP, o)
                        st["root"] = TOP
                    except Fail as e:
                        st["err"]["base with the new tree's scripts"] = str(e)
                        st["root"] = "fail"
                        if os.path.realpath(base_src) != os.path.realpath(TOP) and \
                                os.path.exists(os.path.join(base_src, "bench")):
                            try:
                                vals = measure(f, build, base_src, o)
                                st["root"] = base_src
                            except Fail as e2:
                                st["err"]["base with its own scripts"] = str(e2)
                    print("  %s: %s" % (f, "new tree's scripts" if st["root"] == TOP else "base tree's scripts"
                                        if st["root"] != "fail" else "no script runs at the base"), file=sys.stderr)
                if st["root"] == "fail":
                    break
                if vals is None:
                    try:
                        vals = measure(f, build, st["root"], o)
                    except Fail as e:
                        st["err"]["%s round %d" % (side, r + 1)] = str(e)
                        continue
                for k, v in vals.items():
                    st[side].setdefault(k, []).append(v)
                print("  round %d %s %s: %.0f s" % (r + 1, f, side, time.time() - t0), file=sys.stderr)
            if r == 0 and st["root"] != TOP:   # the new tree's rows, on the new build only (once)
                try:
                    st["extra"] = measure(f, o.new, TOP, o)
                except Fail as e:
                    st["err"]["new build with the new tree's scripts"] = str(e)
            if r == 0 and not o.no_peer and (have_torch or f in ("vm", "ffi")):
                try:
                    st["peer"] = measure(f, None, TOP if st["root"] in (TOP, "fail") else st["root"], o)
                except Fail as e:
                    st["err"]["peer"] = str(e)
    loads.append("end: %s" % uptime())
    print("## compare.py: base %s vs new %s, %d paired round(s), %s\n" % (o.base, o.new, o.rounds, t_start))
    for ln in loads:
        print("- " + ln)
    print()
    print("| family | figure | base | new | new/base | per round | peer | new/peer |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")

    for f in fams:
        st = rows[f]
        tag = "" if st["root"] == TOP else " (base's scripts)" if st["root"] != "fail" else ""
        keys = list(st["new"]) + [k for k in st["base"] if k not in st["new"]]
        for k in keys:
            bl, nl = st["base"].get(k, []), st["new"].get(k, [])
            hib = "(x)" in k   # a speed-up: higher is better, keep the best = max
            pick = (lambda l: max(v for v in l if isinstance(v, (int, float)))) if hib else \
                (lambda l: min(v for v in l if isinstance(v, (int, float))))
            b = pick(bl) if any(isinstance(v, (int, float)) for v in bl) else (bl[0] if bl else None)
            n = pick(nl) if any(isinstance(v, (int, float)) for v in nl) else (nl[0] if nl else None)
            ratio = "%.3f" % (n / b) if isinstance(b, (int, float)) and isinstance(n, (int, float)) and b else "-"
            per = ", ".join("%.2f" % (y / x) for x, y in zip(bl, nl)
                            if isinstance(x, (int, float)) and isinstance(y, (int, float)) and x)
            p = st["peer"].get(k)
            pr = peer_ratio(n, p)
            print("| %s%s | %s | %s | %s | %s | %s | %s | %s |" % (f, tag, k, fmt(b), fmt(n), ratio, per or "-",
                                                              fmt(p), pr))
            for side, v in (("base", b), ("new", n)):
                if isinstance(v, Fail):
                    st["err"]["%s: %s" % (side, k)] = str(v)
        for k, v in st["extra"].items():
            if k in st["new"]:
                continue
            p = st["peer"].get(k)
            pr = peer_ratio(v, p)
            print("| %s (new tree's scripts) | %s | fails | %s | - | - | %s | %s |" % (f, k, fmt(v), fmt(p), pr))
    print()
    print("Slower by more than 10% in every round (higher is worse except '(x)' rows):")
    slow = False
    for f in fams:
        st = rows[f]
        for k, nl in st["new"].items():
            bl = st["base"].get(k, [])
            pairs = [(x, y) for x, y in zip(bl, nl) if isinstance(x, (int, float)) and isinstance(y, (int, float)) and x]
            if not pairs:
                continue
            worse = [(x / y if "(x)" in k else y / x) for x, y in pairs]
            if min(worse) > 1.10:
                slow = True
                print("- %s %s: %s" % (f, k, ", ".join("%.2f" % w for w in worse)))
    if not slow:
        print("- none")
    print()
    print("Failures (nothing hidden):")
    anyf = False
    for f in fams:
        for what, msg in rows[f]["err"].items():
            anyf = True
            print("- %s, %s: %s" % (f, what, msg))
    if not anyf:
        print("- none")


if __name__ == "__main__":
    main()
