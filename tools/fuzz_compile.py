#!/usr/bin/env python3
"""Differential fuzzer of Ember's compiler: compiled never differs from eager.

It generates random, well-formed model programs -- tensor ops with broadcasting and views,
in-place ops, attribute / list / dict / global / closure-cell mutations on existing and new
objects, tensor, module and saved-tensor hooks with handles kept and removed, custom autograd
Functions, graph breaks in loops and `with` blocks, recompiles from changed shapes -- and runs
each one in every mode:

    eager                       ember run FILE
    compile_all                 ember run --compile-all FILE
    compile_all_ember           ember run --compile-all --backend ember FILE
    compiled_autograd           ember run --compiled-autograd FILE

Every printed value (tensors as exact float lists, gradients, Python state, exceptions) of each
compiled mode must equal eager's, character for character; a crash (a signal, a sanitizer
report) is a divergence too.  Where PyTorch is installed (`--oracle`), the program also runs
under it with ../shared/oracle's prelude (eager is the contract): its output must match Ember's
eager run, floats within 1e-4 relative.  A divergence is shrunk (statements removed while the
same modes still disagree) and saved with its original under tests/fuzz/found/.

    tools/fuzz_compile.py --ember build/src/cli/ember --seeds 0-19999 --jobs 2 --oracle
    tools/fuzz_compile.py --ember build/src/cli/ember --seeds 1-25          # meson's budget

The generator only emits what PyTorch 1.13 with the oracle's prelude runs.
"""
import argparse
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

MODES = {
    "eager": [],
    "compile_all": ["--compile-all"],
    "compile_all_ember": ["--compile-all", "--backend", "ember"],
    "compiled_autograd": ["--compiled-autograd"],
}

ORACLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "oracle", "run_oracle.py")


# ---- programs -----------------------------------------------------------------------------------

class Program:
    """Module-level blocks, the body of the function under test, its return, the driver: lists of
    source blocks the shrinker removes from."""

    def __init__(self, seed):
        self.seed = seed
        self.header = []      # module level, before f
        self.body = []        # statements of f (indented 4)
        self.ret = "return ()"
        self.driver = []      # module level, after f

    def render(self):
        out = ["# fuzz_compile seed %d" % self.seed, "import torch", ""]
        for b in self.header:
            out.append(b)
        out.append("")
        out.append("def f(x, y, w):")
        # declared once, first: a second `global` after an assignment is a SyntaxError
        out.append("    global COUNTER")
        for b in self.body:
            out.extend("    " + line for line in b.split("\n"))
        out.append("    " + self.ret)
        out.append("")
        out.extend(self.driver)
        return "\n".join(out) + "\n"


class Gen:
    """One program from one seed.  Tensor variables carry their shape (as a function of the
    varying leading size A, written "A") and whether they can carry a gradient, so every op
    generated is well-formed for each shape the driver calls f with."""

    def __init__(self, seed):
        self.r = random.Random(seed)
        self.p = Program(seed)
        self.n = 0
        self.b = self.r.randint(1, 4)          # fixed trailing size
        self.c = self.r.randint(1, 3)          # w's columns
        # pool: name -> (shape tuple of "A"/ints, requires_grad)
        self.pool = {"x": (("A", self.b), True), "y": ((self.b,), False), "w": ((self.b, self.c), True)}
        self.features = set()

    # -- helpers ----------------------------------------------------------------------------------
    def new(self):
        self.n += 1
        return "t%d" % self.n

    def pick(self, pred=lambda name, s: True):
        names = [k for k, (s, _) in self.pool.items() if pred(k, s)]
        return self.r.choice(names) if names else None

    def num(self):
        return self.r.choice(["0.5", "2.0", "-1.5", "3", "0.25", "1"])

    def add(self, code, name=None, shape=None, rg=False):
        self.p.body.append(code)
        if name:
            self.pool[name] = (shape, rg)

    def rg(self, *names):
        return any(self.pool[n][1] for n in names)

    @staticmethod
    def broadcast(a, b):
        out = []
        for i in range(max(len(a), len(b))):
            da = a[len(a) - 1 - i] if i < len(a) else 1
            db = b[len(b) - 1 - i] if i < len(b) else 1
            if da == db:
                out.append(da)
            elif da == 1:
                out.append(db)
            elif db == 1:
                out.append(da)
            else:
                return None
        return tuple(reversed(out))

    # -- tensor statements ---------------------------------------------------------------------------
    def s_unary(self):
        k = self.pick()
        fn = self.r.choice(["relu()", "sigmoid()", "tanh()", "sin()", "cos()", "abs()", "neg()", "tanh().exp()",
                            "abs().add(1).sqrt()", "abs().add(1).log()", "clamp(-1.0, 1.0)", "mul(2.0).add(0.5)"])
        t = self.new()
        self.add("%s = %s.%s" % (t, k, fn), t, self.pool[k][0], self.rg(k))

    def s_binary(self):
        a = self.pick()
        sa = self.pool[a][0]
        cands = [k for k, (s, _) in self.pool.items() if self.broadcast(sa, s) is not None]
        bname = self.r.choice(cands)
        sb = self.pool[bname][0]
        op = self.r.choice(["+", "-", "*", "/"])
        rhs = "(%s.abs() + 1)" % bname if op == "/" else bname
        t = self.new()
        if self.r.random() < 0.25:
            self.add("%s = %s %s %s" % (t, a, op, self.num()), t, sa, self.rg(a))
        else:
            self.add("%s = %s %s %s" % (t, a, op, rhs), t, self.broadcast(sa, sb), self.rg(a, bname))

    def s_reduce(self):
        k = self.pick(lambda n, s: len(s) >= 1)
        if not k:
            return
        s = self.pool[k][0]
        d = self.r.randrange(len(s))
        keep = self.r.random() < 0.4
        fn = self.r.choice(["sum", "mean", "amax"])
        shape = tuple(1 if i == d else x for i, x in enumerate(s)) if keep else tuple(x for i, x in enumerate(s) if i != d)
        t = self.new()
        self.add("%s = %s.%s(dim=%d%s)" % (t, k, fn, d, ", keepdim=True" if keep else ""), t, shape, self.rg(k))

    def s_view(self):
        k = self.pick()
        s = self.pool[k][0]
        t = self.new()
        choices = []
        choices.append(("%s.unsqueeze(0)" % k, (1,) + s))
        if len(s) == 2:
            choices.append(("%s.t()" % k, (s[1], s[0])))
            choices.append(("%s.transpose(0, 1).contiguous()" % k, (s[1], s[0])))
            if s[0] == "A":
                choices.append(("%s[1:]" % k, ("A-1", s[1])))
                choices.append(("%s[:, 0]" % k, ("A",)))
        if len(s) >= 1 and "A" not in s and "A-1" not in s:
            n = 1
            for d in s:
                n *= d
            choices.append(("%s.reshape(-1)" % k, (n,)))
            choices.append(("%s.view(%s)" % (k, ", ".join(str(d) for d in s)), s))
        if len(s) == 1 and s[0] != "A-1":
            choices.append(("%s.expand(2, %s)" % (k, "-1"), (2,) + s))
        expr, shape = self.r.choice(choices)
        self.add("%s = %s" % (t, expr), t, shape, self.rg(k))

    def s_matmul(self):
        k = self.pick(lambda n, s: len(s) == 2 and s[1] == self.b)
        if not k:
            return
        t = self.new()
        self.add("%s = %s @ w" % (t, k), t, (self.pool[k][0][0], self.c), True)

    def s_cat(self):
        a = self.pick(lambda n, s: len(s) >= 1)
        if not a:
            return
        sa = self.pool[a][0]
        bname = self.r.choice([k for k, (s, _) in self.pool.items() if s == sa])
        t = self.new()
        grad = self.rg(a, bname)
        if "A" not in sa and "A-1" not in sa:
            if self.r.random() < 0.5:
                self.add("%s = torch.stack([%s, %s])" % (t, a, bname), t, (2,) + sa, grad)
            else:
                self.add("%s = torch.cat([%s, %s])" % (t, a, bname), t, (sa[0] * 2,) + sa[1:], grad)
        elif isinstance(sa[-1], int):
            self.add("%s = torch.cat([%s, %s], dim=-1)" % (t, a, bname), t, sa[:-1] + (sa[-1] * 2,), grad)

    def s_inplace(self):
        k = self.pick()
        s = self.pool[k][0]
        t = self.new()
        others = [n for n, (so, _) in self.pool.items() if self.broadcast(s, so) == s]
        other = self.r.choice(others)
        op = self.r.choice(["mul_(%s)" % self.num(), "add_(%s)" % self.num(), "clamp_(-2.0, 2.0)", "relu_()",
                            "add_(%s)" % other, "zero_().add_(1.5)"])
        grad = self.rg(k) or (op == "add_(%s)" % other and self.rg(other))
        if op.startswith("zero_"):
            grad = False
        self.add("%s = %s.clone()\n%s.%s" % (t, k, t, op), t, s, grad)
        self.features.add("inplace")

    def s_setitem(self):
        k = self.pick(lambda n, s: len(s) == 2 and s[0] == "A")
        if not k:
            return
        t = self.new()
        self.add("%s = %s.clone()\n%s[0] = %s" % (t, k, t, self.num()), t, self.pool[k][0], self.rg(k))

    # -- python state -------------------------------------------------------------------------------
    def s_state(self):
        kind = self.r.choice(["obj", "list", "dict", "global", "cell", "newobj", "newlist"])
        k = self.pick()
        if kind == "obj":
            self.features.add("state")
            self.add("STATE.count = STATE.count + 1\nSTATE.last = %s.detach()" % k)
        elif kind == "list":
            self.features.add("state")
            self.add("LOG.append(%s)" % self.r.choice(['"step"', "len(LOG)", "STATE.count"]))
        elif kind == "dict":
            self.features.add("state")
            self.add('TABLE["k%d"] = TABLE.get("k%d", 0) + 1' % (self.n % 3, self.n % 3))
        elif kind == "global":
            self.features.add("state")
            self.add("COUNTER += 1")
        elif kind == "cell":
            t = self.new()
            self.add("acc = [0]\ntotal = %s * 0\ndef bump(v):\n    nonlocal total\n    total = total + v\n    acc[0] += 1\n"
                     "bump(%s)\nbump(%s)\n%s = total" % (k, k, k, t), t, self.pool[k][0], self.rg(k))
        elif kind == "newobj":
            t = self.new()
            self.add("box = Box()\nbox.v = %s\nbox.scale = %s\n%s = box.v * box.scale" % (k, self.num(), t),
                     t, self.pool[k][0], self.rg(k))
            self.features.add("box")
        else:
            t = self.new()
            self.add("parts = [%s, %s * 2]\nparts.append(%s + 1)\n%s = parts[0] + parts[-1]" % (k, k, k, t),
                     t, self.pool[k][0], self.rg(k))

    # -- hooks, functions, modules ------------------------------------------------------------------
    def s_tensor_hook(self):
        k = self.pick(lambda n, s: self.pool[n][1] and n not in ("x", "w"))
        if not k:
            return
        remove = self.r.random() < 0.4
        self.features.add("hooks")
        fn = self.r.choice(["lambda g: g * 2", "lambda g: g + 1", "lambda g: None", "record_grad"])
        code = "h%d = %s.register_hook(%s)" % (self.n, k, fn)
        if remove:
            code += "\nh%d.remove()" % self.n
        self.add(code)

    def s_saved_hooks(self):
        a = self.pick(lambda n, s: self.pool[n][1])
        if not a:
            return
        t = self.new()
        self.features.add("saved_hooks")
        self.add("with torch.autograd.graph.saved_tensors_hooks(pack, unpack):\n    %s = (%s * %s).sin()" % (t, a, a),
                 t, self.pool[a][0], True)

    def s_function(self):
        k = self.pick()
        t = self.new()
        self.features.add("function")
        self.add("%s = Scale.apply(%s, %s)" % (t, k, self.num()), t, self.pool[k][0], self.rg(k))

    def s_module(self):
        k = self.pick(lambda n, s: len(s) >= 1 and s[-1] == self.b)
        if not k:
            return
        t = self.new()
        self.features.add("module")
        self.add("%s = NET(%s)" % (t, k), t, self.pool[k][0][:-1] + (2,), True)

    def s_module_hook(self):
        k = self.pick(lambda n, s: len(s) >= 1 and s[-1] == self.b)
        if not k:
            return
        t = self.new()
        self.features.add("module_hook")
        fn = self.r.choice(["lambda m, i, o: o + 1", "lambda m, i, o: None", "lambda m, i: (i[0] * 2,)"])
        kind = "register_forward_pre_hook" if "i: (" in fn else "register_forward_hook"
        self.add("hm%d = NET.%s(%s)\n%s = NET(%s)\nhm%d.remove()" % (self.n, kind, fn, t, k, self.n),
                 t, self.pool[k][0][:-1] + (2,), True)

    def s_iterate(self):
        a, b = self.pick(), self.pick()
        if self.pool[a][0] != self.pool[b][0]:
            b = a
        t = self.new()
        form = self.r.choice([
            "%s = sum(v * (i + 1) for i, v in enumerate([%s, %s]))",
            "%s = sum(p * q for p, q in zip([%s, %s], [%s, %s]))",
            "%s = list(map(lambda v: v * 2, [%s, %s]))[1]",
            "%s = [v for v in (%s, %s) if v.dim() > 0][0] * 1"])
        self.add(form % ((t, a, b) if form.count("%s") == 3 else (t, a, b, b, a)), t, self.pool[a][0], self.rg(a, b))

    def s_set(self):
        self.features.add("state")
        self.add("seen = {%d, %d}\nseen.add(len(LOG) %% 3)\nseen.discard(%d)\nLOG.append(sorted(seen))" % (
            self.r.randint(0, 5), self.r.randint(0, 5), self.r.randint(0, 5)))

    def s_try(self):
        k = self.pick()
        t = self.new()
        exc = self.r.choice(["ValueError", "KeyError", "RuntimeError"])
        self.add("try:\n    %s = %s * 2\n    raise %s(\"boom\")\nexcept %s as e:\n    LOG.append(type(e).__name__)\n"
                 "    %s = %s + 1\nfinally:\n    LOG.append(\"finally\")" % (t, k, exc, exc, t, t), t, self.pool[k][0], self.rg(k))

    def s_detach(self):
        k = self.pick()
        t = self.new()
        self.add("%s = %s.detach() * 2" % (t, k), t, self.pool[k][0], False)

    def s_grad_mode(self):
        k = self.pick()
        t = self.new()
        form = self.r.choice(["with torch.set_grad_enabled(False):\n    %s = %s * 2",
                              "with torch.no_grad():\n    with torch.enable_grad():\n        %s = %s * 2"])
        rg = self.rg(k) and "enable_grad" in form
        self.add(form % (t, k), t, self.pool[k][0], rg)

    # -- breaks and control flow ----------------------------------------------------------------------
    def s_print(self):
        k = self.pick()
        self.add('print("mid", %s.shape)' % k)

    def s_loop(self):
        k = self.pick()
        t = self.new()
        brk = self.r.random() < 0.6
        self.add("%s = %s * 1\nfor i in range(%d):\n    %s = %s + %s * i\n%s" % (
            t, k, self.r.randint(1, 3), t, t, k, '    print("loop", i)' if brk else "    pass"), t, self.pool[k][0], self.rg(k))

    def s_no_grad(self):
        k = self.pick()
        t = self.new()
        brk = self.r.random() < 0.5
        self.add("with torch.no_grad():\n    %s = %s * 3\n%s" % (t, k, '    print("in no_grad")' if brk else "    pass"),
                 t, self.pool[k][0], False)

    def s_branch(self):
        k = self.pick()
        t = self.new()
        self.add("if %s.sum() > 0:\n    %s = %s * 2\nelse:\n    %s = %s - 1" % (k, t, k, t, k), t, self.pool[k][0], self.rg(k))

    def s_item(self):
        k = self.pick()
        t = self.new()
        self.add("s%d = float(%s.sum().item())\n%s = %s * s%d" % (self.n, k, t, k, self.n), t, self.pool[k][0], self.rg(k))

    # -- the program ------------------------------------------------------------------------------------
    def program(self):
        r = self.r
        weights = [(self.s_unary, 6), (self.s_binary, 8), (self.s_reduce, 3), (self.s_view, 4), (self.s_matmul, 2),
                   (self.s_cat, 1), (self.s_inplace, 3), (self.s_setitem, 1), (self.s_state, 4), (self.s_tensor_hook, 2),
                   (self.s_saved_hooks, 1), (self.s_function, 2), (self.s_module, 2), (self.s_print, 1), (self.s_loop, 2),
                   (self.s_no_grad, 1), (self.s_branch, 1), (self.s_item, 1), (self.s_module_hook, 1), (self.s_iterate, 2),
                   (self.s_set, 1), (self.s_try, 1), (self.s_detach, 1), (self.s_grad_mode, 1)]
        fns = [f for f, wgt in weights for _ in range(wgt)]
        for _ in range(r.randint(3, 12)):
            r.choice(fns)()
        # return: some tensors (the loss is built from those that carry a gradient) and state
        names = [k for k in self.pool if k.startswith("t")]
        outs = r.sample(names, min(len(names), r.randint(1, 3))) if names else ["x * 1"]
        self.p.ret = "return (%s,)" % ", ".join(outs)
        self.header()
        self.driver()
        return self.p

    def header(self):
        h = self.p.header
        h.append("COUNTER = 0")
        h.append("LOG = []")
        h.append("TABLE = {}")
        h.append("GRADS = []")
        h.append("\n\nclass Box:\n    pass\n")
        h.append("STATE = Box()\nSTATE.count = 0\nSTATE.last = None")
        h.append("\n\ndef record_grad(g):\n    GRADS.append(g.sum().item())\n    return g\n")
        pack = self.r.choice(["t * 1", "t.clone()", "t.detach()", "(\"tag\", t.detach().clone())"])
        unpack = "p[1]" if pack.startswith("(") else "p"
        h.append("\n\ndef pack(t):\n    LOG.append(\"pack\")\n    return %s\n\n\ndef unpack(p):\n    LOG.append(\"unpack\")\n"
                 "    return %s\n" % (pack, unpack))
        h.append("\n\nclass Scale(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, a, k):\n"
                 "        ctx.save_for_backward(a)\n        ctx.k = k\n        return a * k + a.sin()\n\n"
                 "    @staticmethod\n    def backward(ctx, g):\n        (a,) = ctx.saved_tensors\n"
                 "        return g * ctx.k + g * a.cos(), None\n")
        vals = ", ".join("%.2f" % (self.r.uniform(-1, 1)) for _ in range(self.b * 2))
        h.append("\n\nclass Net(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                 "        self.lin = torch.nn.Linear(%d, 2)\n        with torch.no_grad():\n"
                 "            self.lin.weight.copy_(torch.tensor([%s]).reshape(2, %d))\n"
                 "            self.lin.bias.fill_(0.1)\n\n    def forward(self, v):\n        return self.lin(v).tanh()\n"
                 % (self.b, vals, self.b, ))
        h.append("NET = Net()")
        if self.r.random() < 0.5:
            h.append("NET.register_forward_hook(lambda m, i, o: o * 2)")
        if self.r.random() < 0.3:
            h.append("NET.register_forward_pre_hook(lambda m, i: (i[0] + 1,))")

    def driver(self):
        r = self.r
        d = self.p.driver
        sizes = [r.randint(2, 3)]
        sizes.append(sizes[0] if r.random() < 0.6 else r.randint(2, 4))
        if r.random() < 0.5:
            sizes.append(r.randint(2, 4))
        yv = ", ".join("%.2f" % r.uniform(-1, 1) for _ in range(self.b))
        wv = ", ".join("%.2f" % r.uniform(-1, 1) for _ in range(self.b * self.c))
        d.append("\n\ndef show(v):\n    if isinstance(v, torch.Tensor):\n        return v.tolist()\n"
                 "    if isinstance(v, (list, tuple)):\n        return [show(e) for e in v]\n    return v\n")
        d.append("\n\nfor step, a in enumerate(%r):" % (sizes,))
        d.append("    x = torch.tensor([%s][: a * %d]).reshape(a, %d).requires_grad_()" % (
            ", ".join("%.2f" % r.uniform(-1, 1) for _ in range(4 * self.b)), self.b, self.b))
        d.append("    y = torch.tensor([%s])" % yv)
        d.append("    w = torch.tensor([%s]).reshape(%d, %d).requires_grad_()" % (wv, self.b, self.c))
        d.append("    try:")
        d.append("        outs = f(x, y, w)")
        d.append("        loss = sum((o.float() * (k + 1)).sum() for k, o in enumerate(outs) if o.requires_grad)")
        d.append("        if isinstance(loss, torch.Tensor) and loss.requires_grad:")
        d.append("            loss.backward()")
        d.append("        print(\"out\", step, show(outs))")
        d.append("        print(\"grad\", step, show(x.grad), show(w.grad))")
        d.append("    except Exception as e:")
        d.append("        print(\"error\", step, type(e).__name__)")
        d.append("        print(\"message\", str(e).split(\"\\n\")[0])")
        d.append("    print(\"state\", step, COUNTER, LOG, sorted(TABLE.items()), STATE.count, show(STATE.last), GRADS)")


def generate(seed):
    return Gen(seed).program()


# ---- running ------------------------------------------------------------------------------------

def run(cmd, path, timeout):
    """(stdout + stderr with the exit status, status, stdout alone)"""
    try:
        p = subprocess.run(cmd + [os.path.basename(path)], cwd=os.path.dirname(path), capture_output=True,
                           text=True, timeout=timeout, errors="replace")
        out = p.stdout + p.stderr
        rc = p.returncode
    except subprocess.TimeoutExpired:
        return "[timeout]", "timeout", ""
    crash = rc < 0 or "Sanitizer" in out or "Fatal glibc" in out or ("assertion" in out.lower() and rc != 1)
    if rc != 0:
        out += "\n[exit %d]" % rc
    return out, "crash" if crash else "ok", p.stdout


class Oracle:
    """One PyTorch process (1.13 with the oracle's prelude) that runs program after program, so
    torch is imported once: each program runs as __main__ in a fresh namespace with the cyclic GC
    off (run_oracle.py explains why), collected between programs."""

    WORKER = r'''
import gc, io, sys, traceback
sys.path.insert(0, sys.argv[1])
import oracle_prelude
import torch
inp = sys.stdin.buffer
out = sys.stdout.buffer
while True:
    n = inp.readline()
    if not n:
        break
    src = inp.read(int(n)).decode()
    buf = io.StringIO()
    real = sys.stdout
    sys.stdout = buf
    gc.collect()
    gc.disable()
    try:
        exec(compile(src, "prog.py", "exec"), {"__name__": "__main__"})
    except BaseException:
        buf.write("[uncaught]\n" + traceback.format_exc().splitlines()[-1] + "\n")
    finally:
        sys.stdout = real
        gc.enable()
    torch.set_grad_enabled(True)
    data = buf.getvalue().encode()
    out.write(b"%d\n" % len(data) + data)
    out.flush()
'''

    def __init__(self):
        self.p = subprocess.Popen(["/usr/bin/python3", "-c", self.WORKER, os.path.dirname(ORACLE)],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def run(self, src):
        data = src.encode()
        self.p.stdin.write(b"%d\n" % len(data) + data)
        self.p.stdin.flush()
        n = self.p.stdout.readline()
        if not n:
            self.__init__()
            return None
        return self.p.stdout.read(int(n)).decode()


def run_all(ember, path, modes, timeout):
    return {m: run([ember, "run"] + MODES[m], path, timeout) for m in modes}


FLOAT = re.compile(r"-?\d+\.\d+(?:e[-+]?\d+)?|-?inf|nan")


def close_enough(a, b):
    """PyTorch vs Ember eager (stdout): the same text, floats within 1e-4 relative; messages not
    compared (only the exception type)."""
    la = [l for l in a.strip().split("\n") if not l.startswith("message")]
    lb = [l for l in b.strip().split("\n") if not l.startswith("message")]
    if len(la) != len(lb):
        return False
    for x, y in zip(la, lb):
        if FLOAT.sub("F", x) != FLOAT.sub("F", y):
            return False
        for fx, fy in zip(FLOAT.findall(x), FLOAT.findall(y)):
            vx, vy = float(fx), float(fy)
            if vx != vy and abs(vx - vy) > 1e-4 * max(1.0, abs(vx), abs(vy)):
                return False
    return True


def ulps(a, b):
    """Distance of two floats in float32 units in the last place."""
    import struct
    ia = struct.unpack("<i", struct.pack("<f", a))[0]
    ib = struct.unpack("<i", struct.pack("<f", b))[0]
    ia = ia if ia >= 0 else -(ia & 0x7FFFFFFF)
    ib = ib if ib >= 0 else -(ib & 0x7FFFFFFF)
    return abs(ia - ib)


def rounding_only(a, b):
    """The outputs differ only in the last bits of gradients (the order a compiled backward sums
    one input's gradient contributions in: tests/trace/footguns, 'gradient summation order')."""
    la, lb = a.split("\n"), b.split("\n")
    if len(la) != len(lb):
        return False
    for x, y in zip(la, lb):
        if x == y:
            continue
        if not (x.startswith("grad") or x.startswith("state")) or FLOAT.sub("F", x) != FLOAT.sub("F", y):
            return False
        for fx, fy in zip(FLOAT.findall(x), FLOAT.findall(y)):
            try:
                if fx != fy and ulps(float(fx), float(fy)) > 2:
                    return False
            except (OverflowError, ValueError):
                return False
    return True


def divergences(results, oracle_out=None):
    """[(mode, why)] for the modes that differ from eager, and the oracle's disagreement."""
    eager, status, eager_stdout = results["eager"]
    found = []
    if status != "ok":
        found.append(("eager", status))
    for m, (out, st, _) in results.items():
        if m == "eager":
            continue
        if st != "ok":
            found.append((m, st))
        elif out != eager:
            found.append((m, "rounding" if rounding_only(eager, out) else "output"))
    if oracle_out is not None and not close_enough(oracle_out, eager_stdout):
        found.append(("pytorch", "output"))
    return found


def check(ember, src, modes, timeout, oracle):
    """oracle: an Oracle, or None"""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "prog.py")
        with open(path, "w") as fh:
            fh.write(src)
        results = run_all(ember, path, modes, timeout)
        oracle_out = oracle.run(src) if oracle else None
        return results, divergences(results, oracle_out), oracle_out


# ---- shrinking ------------------------------------------------------------------------------------

def shrink(ember, prog, signature, modes, timeout, oracle):
    """Remove blocks (body, then header, then driver lines) while the same divergence remains."""

    def same(p):
        _, div, _ = check(ember, p.render(), modes, timeout, oracle)
        return sorted(div) == signature

    # the returned tuple: names the shrunk body no longer defines would only raise NameError
    names = [n.strip() for n in prog.ret[len("return ("):-2].split(",") if n.strip()]
    for n in list(names):
        if len(names) == 1:
            break
        trial = [m for m in names if m != n]
        old = prog.ret
        prog.ret = "return (%s,)" % ", ".join(trial)
        if same(prog):
            names = trial
        else:
            prog.ret = old
    for field in ("body", "header", "body"):
        items = getattr(prog, field)
        chunk = max(1, len(items) // 2)
        while chunk >= 1:
            i = 0
            while i < len(getattr(prog, field)):
                items = getattr(prog, field)
                trial = items[:i] + items[i + chunk:]
                setattr(prog, field, trial)
                if same(prog):
                    continue
                setattr(prog, field, items)
                i += chunk
            chunk //= 2
    return prog


def save(found_dir, prog, original, div, results, oracle_out):
    os.makedirs(found_dir, exist_ok=True)
    path = os.path.join(found_dir, "seed_%d.py" % prog.seed)
    lines = ["# Divergence found by tools/fuzz_compile.py (seed %d): %s" % (prog.seed, ", ".join("%s %s" % d for d in div))]
    for m, (out, st, _) in results.items():
        lines.append("# --- %s (%s) ---" % (m, st))
        lines.extend("#   " + l for l in out.strip().split("\n")[:12])
    if oracle_out is not None:
        lines.append("# --- pytorch ---")
        lines.extend("#   " + l for l in oracle_out.strip().split("\n")[:12])
    with open(path, "w") as fh:
        fh.write("\n".join(lines) + "\n" + prog.render())
    with open(os.path.join(found_dir, "seed_%d.orig.py" % prog.seed), "w") as fh:
        fh.write(original)
    return path


# ---- main ------------------------------------------------------------------------------------------

def parse_seeds(spec):
    out = []
    for part in spec.split(","):
        if "-" in part:
            a, b = part.split("-")
            out.extend(range(int(a), int(b) + 1))
        else:
            out.append(int(part))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ember", required=True)
    ap.add_argument("--seeds", default="1-25", help="e.g. 0-19999 or 1,5,9")
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--oracle", action="store_true", help="also run each program under PyTorch")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--found", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fuzz", "found"))
    ap.add_argument("--no-shrink", action="store_true")
    ap.add_argument("--print", dest="show", type=int, help="print the program of one seed and exit")
    ap.add_argument("--log", help="append one line per program here")
    args = ap.parse_args()
    if args.show is not None:
        sys.stdout.write(generate(args.show).render())
        return 0
    modes = args.modes.split(",")
    # A private copy of the binary: rebuilding the tree during a long run (ninja relinks
    # build/src/cli/ember in place) would otherwise fail the run's next exec, or mix two builds'
    # results in one run.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))   # a killed run removes its copy too
    private = tempfile.mkdtemp(prefix="fuzz_compile_ember_")
    ember = os.path.join(private, "ember")
    shutil.copy2(os.path.abspath(args.ember), ember)
    try:
        return run_seeds(args, modes, ember)
    finally:
        shutil.rmtree(private, ignore_errors=True)


def run_seeds(args, modes, ember):
    seeds = parse_seeds(args.seeds)
    use_oracle = args.oracle and os.path.exists(ORACLE) and subprocess.run(
        ["/usr/bin/python3", "-c", "import torch"], capture_output=True).returncode == 0
    import queue
    oracles = queue.Queue()
    for _ in range(args.jobs if use_oracle else 0):
        oracles.put(Oracle())
    t0 = time.time()
    bad = 0
    log = open(args.log, "a") if args.log else None

    def one(seed):
        prog = generate(seed)
        src = prog.render()
        oracle = oracles.get() if use_oracle else None
        try:
            results, div, oracle_out = check(ember, src, modes, args.timeout, oracle)
            if div and not args.no_shrink:
                prog = shrink(ember, prog, sorted(div), modes, args.timeout, oracle)
        finally:
            if oracle:
                oracles.put(oracle)
        return seed, prog, src, results, div, oracle_out

    if args.jobs > 1:
        from concurrent.futures import ThreadPoolExecutor
        pool = ThreadPoolExecutor(args.jobs)
        it = pool.map(one, seeds)
    else:
        it = map(one, seeds)
    done = 0
    for seed, prog, src, results, div, oracle_out in it:
        done += 1
        if log:
            log.write("%d %s\n" % (seed, " ".join("%s:%s" % d for d in div) if div else "ok"))
            log.flush()
        if not div:
            continue
        bad += 1
        path = save(args.found, prog, src, div, results, oracle_out)
        print("seed %d: %s -> %s" % (seed, ", ".join("%s %s" % d for d in div), path), flush=True)
    print("%d programs, %d divergent, %.0f s%s" % (done, bad, time.time() - t0, " (with PyTorch)" if use_oracle else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
