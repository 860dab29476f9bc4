# dis over Ember's own bytecode (vm/lib/dis.py): what a script does with it, the facts that do not
# depend on the instruction set (Ember's opcodes are not CPython's, so the listing itself is not
# compared here; tests/bytecode has golden disassembly): members of a class, Instruction fields
# consistent with opname/opmap, names and constants resolved, code_info's summary, the -->
# marker of distb, errors, depth, and inspect's CO_* flags (taken from dis.COMPILER_FLAG_NAMES).
import dis
import inspect
import io
import sys


def show(x):
    out = io.StringIO()
    dis.dis(x, file=out)
    return out.getvalue()


print(inspect.CO_GENERATOR, inspect.CO_COROUTINE, inspect.CO_ASYNC_GENERATOR)
print(inspect.isgeneratorfunction(lambda: (yield)))


class C:
    scale = 3

    def m(self, x):
        return [i * x for i in range(self.scale)]

    @staticmethod
    def s():
        return len("abc")


print(show(C).count("Disassembly of"), "members disassembled")
ins = list(dis.get_instructions(C.m))
print(all(dis.opname[i.opcode] == i.opname and dis.opmap[i.opname] == i.opcode for i in ins))
print(type(ins[0]).__name__, ins[0].offset)
print([i.argval for i in dis.get_instructions(C.s) if i.opname == "LOAD_GLOBAL"])
print([i.argval for i in dis.get_instructions(C.s) if i.opname == "LOAD_CONST"])
print(sorted({i.argval for i in ins if "ATTR" in i.opname or "METHOD" in i.opname}))
print(any(i.is_jump_target for i in dis.get_instructions("for k in range(2): pass")))
shifted = [i.starts_line for i in dis.get_instructions(C.s, first_line=100) if i.starts_line]
plain = [i.starts_line for i in dis.get_instructions(C.s) if i.starts_line]
print([a - b for a, b in zip(shifted, plain)] == [100 - C.s.__code__.co_firstlineno] * len(plain))
bc = dis.Bytecode(C.m)
print(repr(bc).startswith("Bytecode(<function C.m"), len(list(bc)) == len(ins))
print(bc.dis() == show(C.m).split("\nDisassembly of")[0].rstrip("\n") + "\n")
info = dis.code_info(C.m).splitlines()
print("\n".join(line for line in info if not line.startswith(("Filename", "Stack size")) and "<code object" not in line))
print(list(dis.findlinestarts(C.s.__code__))[-1][1] == C.s.__code__.co_firstlineno + 2)
try:
    1 / 0
except ZeroDivisionError:
    tb = sys.exc_info()[2]
out = io.StringIO()
dis.distb(tb, file=out)
print(out.getvalue().count("-->"))
for bad in (42, None.__class__):
    try:
        dis.dis(bad)
    except TypeError as e:
        print("TypeError:", e)
print("STORE_NAME" in show("a = b + 1"), "BINARY_OP" in show("a + 1"))


def outer():
    def inner():
        return 1
    return inner


print(show(outer).count("Disassembly of"))
out = io.StringIO()
dis.dis(outer, file=out, depth=0)
print(out.getvalue().count("Disassembly of"))
print(dis.pretty_flags(3), dis.pretty_flags(0x20 | 0x1), dis.pretty_flags(0x10000000))
