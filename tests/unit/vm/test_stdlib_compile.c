/* tests/unit/vm/test_stdlib_compile.c — the acceptance test for the front end's grammar: every
 * .py file of CPython 3.11's own standard library (/usr/lib/python3.11, or $EMBER_CPYTHON_LIB)
 * parses and compiles, and every code object passes the verifier.  Skipped when the library is
 * not installed.  Left out: test/ (deliberate syntax errors among the test data),
 * lib2to3/tests/data (Python 2 sources), and the site-/dist-packages of third parties.
 * No file is excused: the last one pending (unittest/mock.py, a complex literal) compiles now. */
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
    CodeObj *co = vm->compile(vm, src, len, rel, 0);
    free(src);
    if (!co) {
        char *msg = em_error_message(vm);
        vm_clear_exc(vm);
        cr_expect_fail("%s: %s", rel, msg ? msg : "?");
        failed++;
        free(msg);
        return 0;
    }
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
