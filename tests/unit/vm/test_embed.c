/* tests/unit/vm/test_embed.c — the embedding API (include/ember/ember.h): running strings,
 * reading globals, calling script functions with references, native functions and modules
 * called from scripts, errors raised both ways, and references surviving collections. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ember/ember.h"
#include "vm/gc.h"

static EmVM *vm;
static void setup(void) { vm = em_vm_new(); }
static void teardown(void) { em_vm_free(vm); }

TestSuite(embed, .init = setup, .fini = teardown);

Test(embed, run_call_and_convert) {
    cr_assert_eq(em_run_string(vm, "def add(a, b):\n    return a + b\nk = 'key'\n", "<setup>"), 0);
    EmRef *add = em_get_global(vm, "__main__", "add");
    cr_assert_not_null(add);
    EmRef *args[2] = {em_int(vm, 2), em_int(vm, 40)};
    EmRef *r = em_call(vm, add, 2, args);
    int64_t v = 0;
    cr_assert_eq(em_to_int(vm, r, &v), 0);
    cr_assert_eq(v, 42);
    EmRef *fargs[2] = {em_float(vm, 0.5), em_float(vm, 0.25)};
    EmRef *fr = em_call(vm, add, 2, fargs);
    double d = 0;
    cr_assert_eq(em_to_float(vm, fr, &d), 0);
    cr_assert_float_eq(d, 0.75, 1e-12);
    EmRef *sargs[2] = {em_str(vm, "ab"), em_str(vm, "cd")};
    EmRef *sr = em_call(vm, add, 2, sargs);
    cr_assert_str_eq(em_to_str(vm, sr), "abcd");
    EmRef *k = em_get_global(vm, "__main__", "k");
    cr_assert_str_eq(em_to_str(vm, k), "key");
    EmRef *rep = em_repr(vm, k);
    cr_assert_str_eq(em_to_str(vm, rep), "'key'");
    EmRef *all[] = {add, args[0], args[1], r, fargs[0], fargs[1], fr, sargs[0], sargs[1], sr, k, rep};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) em_release(vm, all[i]);
}

Test(embed, references_survive_collections) {
    cr_assert_eq(em_run_string(vm, "def make():\n    return [str(i) for i in range(100)]\n", "<s>"), 0);
    EmRef *make = em_get_global(vm, "__main__", "make");
    EmRef *lst = em_call(vm, make, 0, NULL);
    cr_assert_not_null(lst);
    for (int i = 0; i < 3; i++) gc_collect(vm);
    EmRef *len = em_getattr(vm, lst, "__len__");
    EmRef *n = em_call(vm, len, 0, NULL);
    int64_t v;
    cr_assert_eq(em_to_int(vm, n, &v), 0);
    cr_assert_eq(v, 100);
    EmRef *second = em_retain(vm, lst);
    em_release(vm, lst);
    gc_collect(vm);
    EmRef *r2 = em_repr(vm, second);
    cr_assert(strncmp(em_to_str(vm, r2), "['0', '1',", 10) == 0);
    em_release(vm, make);
    em_release(vm, len);
    em_release(vm, n);
    em_release(vm, second);
    em_release(vm, r2);
}

static EmRef *native_scale(EmVM *v, int argc, EmRef **argv, void *userdata) {
    if (argc != 1) {
        em_raise(v, "TypeError", "scale() takes exactly one argument");
        return NULL;
    }
    int64_t x;
    if (em_to_int(v, argv[0], &x) < 0) return NULL;
    return em_int(v, x * *(int64_t *)userdata);
}

static EmRef *native_fail(EmVM *v, int argc, EmRef **argv, void *userdata) {
    em_raise(v, "ValueError", "native failure");
    return NULL;
}

Test(embed, native_function_as_builtin) {
    static int64_t factor = 3;
    cr_assert_eq(em_register_function(vm, "scale", native_scale, &factor), 0);
    cr_assert_eq(em_run_string(vm, "r = scale(14)\n", "<s>"), 0);
    EmRef *r = em_get_global(vm, "__main__", "r");
    int64_t v;
    cr_assert_eq(em_to_int(vm, r, &v), 0);
    cr_assert_eq(v, 42);
    em_release(vm, r);
    cr_assert_eq(em_run_string(vm, "try:\n    scale()\nexcept TypeError as e:\n    msg = str(e)\n", "<s>"), 0);
    EmRef *msg = em_get_global(vm, "__main__", "msg");
    cr_assert_str_eq(em_to_str(vm, msg), "scale() takes exactly one argument");
    em_release(vm, msg);
}

Test(embed, native_module) {
    static int64_t two = 2;
    static const EmFunctionDef fns[] = {{"double", native_scale, &two}, {"fail", native_fail, NULL}, {NULL, NULL, NULL}};
    cr_assert_eq(em_register_module(vm, "nativemod", fns), 0);
    cr_assert_eq(em_run_string(vm,
                               "import nativemod\n"
                               "a = nativemod.double(21)\n"
                               "try:\n    nativemod.fail()\nexcept ValueError as e:\n    err = repr(e)\n",
                               "<s>"),
                 0);
    EmRef *a = em_get_global(vm, "__main__", "a"), *err = em_get_global(vm, "__main__", "err");
    int64_t v;
    cr_assert_eq(em_to_int(vm, a, &v), 0);
    cr_assert_eq(v, 42);
    cr_assert_str_eq(em_to_str(vm, err), "ValueError('native failure')");
    em_release(vm, a);
    em_release(vm, err);
}

Test(embed, script_errors_reach_c) {
    cr_assert_eq(em_run_string(vm, "def boom(x):\n    return {}[x]\n", "<s>"), 0);
    EmRef *boom = em_get_global(vm, "__main__", "boom");
    EmRef *arg = em_str(vm, "missing");
    cr_assert_null(em_call(vm, boom, 1, &arg));
    char *msg = em_error_message(vm);
    cr_assert_str_eq(msg, "KeyError: 'missing'");
    free(msg);
    em_clear_error(vm);
    cr_assert_null(em_error_message(vm));
    cr_assert_eq(em_run_string(vm, "raise SystemExit(7)\n", "<s>"), -1);
    cr_assert_eq(em_exit_status(vm), 7);
    em_clear_error(vm);
    cr_assert_eq(em_run_string(vm, "1 +\n", "<s>"), -1);
    msg = em_error_message(vm);
    cr_assert(strstr(msg, "SyntaxError") != NULL);
    free(msg);
    em_clear_error(vm);
    EmRef *none = em_none(vm);
    int64_t v;
    cr_assert_eq(em_to_int(vm, none, &v), -1, "None is not an int");
    em_clear_error(vm);
    em_release(vm, none);
    em_release(vm, boom);
    em_release(vm, arg);
}

Test(embed, import_and_getattr) {
    EmRef *math = em_import(vm, "math");
    cr_assert_not_null(math);
    EmRef *sqrt = em_getattr(vm, math, "sqrt");
    EmRef *x = em_float(vm, 81.0);
    EmRef *r = em_call(vm, sqrt, 1, &x);
    double d;
    cr_assert_eq(em_to_float(vm, r, &d), 0);
    cr_assert_float_eq(d, 9.0, 0);
    cr_assert_null(em_import(vm, "no_such_module_xyz"));
    char *msg = em_error_message(vm);
    cr_assert_str_eq(msg, "ModuleNotFoundError: No module named 'no_such_module_xyz'");
    free(msg);
    em_clear_error(vm);
    cr_assert_null(em_getattr(vm, math, "nope"));
    em_clear_error(vm);
    em_release(vm, math);
    em_release(vm, sqrt);
    em_release(vm, x);
    em_release(vm, r);
}

Test(embed, repeated_runs_share_main) {
    cr_assert_eq(em_run_string(vm, "counter = 1\n", "<a>"), 0);
    cr_assert_eq(em_run_string(vm, "counter += 1\n", "<b>"), 0);
    EmRef *c = em_get_global(vm, "__main__", "counter");
    int64_t v;
    cr_assert_eq(em_to_int(vm, c, &v), 0);
    cr_assert_eq(v, 2);
    em_release(vm, c);
}
