/* src/common/check.c — what a failed EM_ASSERT does (check.h). */
#include "src/common/check.h"

#include <stdio.h>
#include <stdlib.h>

_Noreturn void em_assert_fail(const char *file, int line, const char *msg) {
    fprintf(stderr, "ember: internal error at %s:%d: %s\n", file, line, msg);
    fflush(stderr);
    abort();
}
