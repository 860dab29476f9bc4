/* test_util.h — helpers for the front-end Criterion suites: golden-file corpora.
 *
 * The corpora live next to the tests (FRONTEND_TEST_DIR, set by meson): ast/, errors/,
 * symtable/, tokens/.  Each NAME.py has goldens generated from CPython 3.11 by the
 * gen_*_golden.sh scripts; the tests never run python3. */
#ifndef EMBER_TESTS_FRONTEND_TEST_UTIL_H
#define EMBER_TESTS_FRONTEND_TEST_UTIL_H

#include <stdbool.h>
#include <stddef.h>

#ifndef FRONTEND_TEST_DIR
#error "FRONTEND_TEST_DIR must be defined by the build"
#endif

typedef struct FileList {
    char **paths; /* full paths, sorted */
    size_t count;
} FileList;

/* Files of FRONTEND_TEST_DIR/subdir ending in suffix, sorted by name. */
FileList test_list_files(const char *subdir, const char *suffix);
void test_free_files(FileList *list);

/* path with its ".py" replaced by suffix (malloc'd). */
char *test_golden_path(const char *py_path, const char *suffix);

/* Whole file, NUL-terminated (malloc'd); NULL when missing. */
char *test_read(const char *path, size_t *len);

/* Last path component. */
const char *test_basename(const char *path);

/* First line of s (malloc'd, without the newline). */
char *test_first_line(const char *s);

#endif
