/* tests/ffi/customop/dup_ops.c — registers test::double_it again (after test_ops is loaded). */
#include <stddef.h>

#include "ember/custom_op.h"

static int noop(void) { return 0; }

int ember_register_ops(const EmOpRegistrar *r) {
    EmOpDef def = {"test::double_it(Tensor x) -> Tensor", (void *)noop, NULL, NULL};
    return r->register_op(r, &def);
}
