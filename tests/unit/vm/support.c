/* tests/unit/vm/support.c — see support.h. */
#include "tests/unit/vm/support.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "vm/dict.h"
#include "vm/str.h"

VM *t_vm_new(void) { return em_vm_new(); }

void t_vm_free(VM *vm) { em_vm_free(vm); }

void t_run(VM *vm, const char *src) {
    if (em_run_string(vm, src, "<test>") < 0) {
        char *msg = em_error_message(vm);
        cr_assert_fail("script raised: %s", msg ? msg : "?");
    }
}

Value t_global(VM *vm, const char *name) {
    Value m = dict_get_c(vm, vm->modules, "__main__");
    cr_assert(val_is_type(vm, m, vm->t_module), "no __main__ module");
    return dict_get_c(vm, ((ModuleObj *)m.as.o)->dict, name);
}

CodeObj *t_compile(VM *vm, const char *src) {
    CodeObj *co = vm->compile(vm, src, strlen(src), "t.py", 0);
    if (!co) {
        char *msg = em_error_message(vm);
        cr_assert_fail("compile failed: %s", msg ? msg : "?");
    }
    return co;
}

CodeObj *t_find_code(CodeObj *co, const char *qualname) {
    if (strcmp(co->qualname->data, qualname) == 0) return co;
    for (int64_t i = 0; i < co->consts->len; i++) {
        Value c = co->consts->items[i];
        if (c.tag == VAL_OBJ && c.as.o->type->layout == OBJ_LAYOUT_CODE) {
            CodeObj *r = t_find_code((CodeObj *)c.as.o, qualname);
            if (r) return r;
        }
    }
    return NULL;
}

const char *t_names(TupleObj *t) {
    static char buf[1024];
    buf[0] = 0;
    for (int64_t i = 0; i < t->len; i++) {
        if (i) strcat(buf, ",");
        strncat(buf, AS_STR(t->items[i])->data, sizeof buf - strlen(buf) - 2);
    }
    return buf;
}
