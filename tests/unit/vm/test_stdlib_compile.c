/* tests/unit/vm/test_stdlib_compile.c — the acceptance test for the front end's grammar: every
 * .py file of CPython 3.11's own standard library (/usr/lib/python3.11, or $EMBER_CPYTHON_LIB)
 * parses and compiles, and every code object passes the verifier.  Skipped when the library is
 * not installed.  Left out: test/ (deliberate syntax errors among the test data),
 * lib2to3/tests/data (Python 2 sources), and the site-/dist-packages of third parties.
 * Files that cannot compile yet are listed in `pending` with the reason, and must fail with
 * exactly that message — so the list shrinks as the missing pieces land. */
#define _XOPEN_SOURCE 700
#include <criterion/criterion.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ember/ember.h"
#include "tests/unit/vm/support.h"
#include "vm/code.h"
#include "vm/gc.h"

static const struct {
    const char *file;    /* relative to the library root */
    const char *message; /* the error it raises until the feature lands */
} pending[] = {
    {NULL, NULL}, /* none pending: every file compiles (mock.py's complex literal was the last) */
};

static VM *vm;
static const char *root;
static size_t root_len;
static int compiled, failed;

static bool excluded(const char *rel) {
    static const char *const prefixes[] = {"test/", "lib2to3/tests/data/", "site-packages/", "dist-packages/"};
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
        if (strncmp(rel, prefixes[i], strlen(prefixes[i])) == 0) return true;
    return strstr(rel, "/__pycache__/") != NULL;
}

static char *read_all(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf) buf[n] = '\0';
    *len = (size_t)n;
    return buf;
}

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw) {
    (void)st, (void)ftw;
    size_t n = strlen(path);
    if (type != FTW_F || n < 3 || strcmp(path + n - 3, ".py") != 0) return 0;
    const char *rel = path + root_len + (path[root_len] == '/');
    if (excluded(rel)) return 0;
    size_t len = 0;
    char *src = read_all(path, &len);
    cr_assert_not_null(src, "cannot read %s", path);
    const char *expected_error = NULL;
    for (size_t i = 0; pending[i].file; i++)
        if (strcmp(rel, pending[i].file) == 0) expected_error = pending[i].message;
    /* the file name relative to the root, so the pending messages do not depend on it */
    CodeObj *co = vm->compile(vm, src, len, rel, 0);
    free(src);
    if (!co) {
        char *msg = em_error_message(vm);
        vm_clear_exc(vm);
        if (expected_error) cr_expect_str_eq(msg, expected_error, "%s: a different error than the pending one", rel);
        else {
            cr_expect_fail("%s: %s", rel, msg ? msg : "?");
            failed++;
        }
        free(msg);
        return 0;
    }
    cr_expect_null(expected_error, "%s compiles now: remove it from the pending list", rel);
    compiled++;
    return 0;
}

Test(stdlib_compile, every_cpython_library_file_compiles, .timeout = 600) {
    root = getenv("EMBER_CPYTHON_LIB");
    if (!root) root = "/usr/lib/python3.11";
    struct stat st;
    if (stat(root, &st) != 0 || !S_ISDIR(st.st_mode)) cr_skip_test("no CPython 3.11 library at %s", root);
    root_len = strlen(root);
    vm = t_vm_new();
    cr_assert_eq(nftw(root, visit, 16, FTW_PHYS), 0, "walking %s", root);
    t_vm_free(vm);
    cr_assert_gt(compiled, 500, "only %d files compiled", compiled);
    cr_assert_eq(failed, 0, "%d files failed to compile", failed);
    fprintf(stderr, "note: %d files of %s compiled\n", compiled, root);
}
