/* tests/fuzz/fuzz_frontend.c — libFuzzer target: the lexer, parser, symbol tables and compiler on
 * arbitrary bytes.  Each input is compiled as a module (a syntax error is an exception, never a
 * crash); a code object that comes out is verified (stack depths, operands, jump targets,
 * exception table) with every code object nested in it, and disassembled.
 *
 *   CC=clang meson setup build-fuzz -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false
 *   ninja -C build-fuzz tests/fuzz/fuzz_frontend
 *   build-fuzz/tests/fuzz/fuzz_frontend -max_total_time=1800 CORPUS tests/lang/... (the seeds) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "ember/ember.h"
#include "src/frontend/compile.h"
#include "vm/dis.h"
#include "vm/gc.h"
#include "vm/seq.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static VM *vm;
static FILE *sink;

static void verify_all(CodeObj *co, int depth) {
    if (depth > 200) return;
    if (code_verify(vm, co) < 0) {
        fprintf(stderr, "the compiler made a code object its verifier rejects\n");
        abort();
    }
    for (int64_t i = 0; i < co->consts->len; i++) {
        Value c = co->consts->items[i];
        if (c.tag == VAL_OBJ && c.as.o->type == vm->t_code) verify_all((CodeObj *)c.as.o, depth + 1);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!vm) {
        vm = em_vm_new();
        sink = fopen("/dev/null", "w");
    }
    char *diag = NULL;
    CodeObj *co = comp_compile_module(vm, (const char *)data, size, "fuzz.py", 0, &diag);
    free(diag);
    if (co) {
        vm_push_root(vm, val_obj(co));
        verify_all(co, 0);
        dis_code(vm, co, sink, true);
        vm_pop_root(vm);
    }
    vm_clear_exc(vm);
    return 0;
}
