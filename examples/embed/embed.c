/* examples/embed/embed.c — a C program hosting Ember: define a script function, give the
 * script a native function, call back and forth. */
#include <stdio.h>

#include "ember/ember.h"

static EmRef *c_scale(EmVM *vm, int argc, EmRef **argv, void *ud) {
    double x;
    if (argc != 1 || em_to_float(vm, argv[0], &x) < 0) return NULL;
    return em_float(vm, x * *(double *)ud);
}

int main(void) {
    double factor = 2.5;
    EmVM *vm = em_vm_new();
    em_register_function(vm, "c_scale", c_scale, &factor);
    if (em_run_string(vm, "def area(r):\n    return c_scale(r * r * 3.14159)\n", "<host>") < 0) {
        em_print_error(vm);
        return 1;
    }
    EmRef *area = em_get_global(vm, "__main__", "area");
    EmRef *arg = em_float(vm, 2.0);
    EmRef *r = em_call(vm, area, 1, &arg);
    double v = 0;
    if (!r || em_to_float(vm, r, &v) < 0) {
        em_print_error(vm);
        return 1;
    }
    printf("area(2.0) * %.1f = %.4f\n", factor, v);
    em_release(vm, r);
    em_release(vm, arg);
    em_release(vm, area);
    em_vm_free(vm);
    return 0;
}
