/* test_util.c — corpus helpers for the front-end tests (see test_util.h). */
#include "tests/unit/frontend/test_util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_path(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

FileList test_list_files(const char *subdir, const char *suffix) {
    FileList list = {NULL, 0};
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s", FRONTEND_TEST_DIR, subdir);
    DIR *d = opendir(dir);
    if (!d) return list;
    size_t cap = 0, slen = strlen(suffix);
    struct dirent *ent;
    while ((ent = readdir(d))) {
        size_t n = strlen(ent->d_name);
        if (n <= slen || strcmp(ent->d_name + n - slen, suffix) != 0) continue;
        if (list.count == cap) {
            cap = cap ? cap * 2 : 64;
            char **p = realloc(list.paths, cap * sizeof *p);
            if (!p) break;
            list.paths = p;
        }
        size_t len = strlen(dir) + n + 2;
        char *path = malloc(len);
        if (!path) break;
        snprintf(path, len, "%s/%s", dir, ent->d_name);
        list.paths[list.count++] = path;
    }
    closedir(d);
    if (list.count) qsort(list.paths, list.count, sizeof *list.paths, cmp_path);
    return list;
}

void test_free_files(FileList *list) {
    for (size_t i = 0; i < list->count; i++) free(list->paths[i]);
    free(list->paths);
    list->paths = NULL;
    list->count = 0;
}

char *test_golden_path(const char *py_path, const char *suffix) {
    size_t n = strlen(py_path);
    size_t base = n >= 3 && strcmp(py_path + n - 3, ".py") == 0 ? n - 3 : n;
    char *p = malloc(base + strlen(suffix) + 1);
    if (!p) return NULL;
    memcpy(p, py_path, base);
    strcpy(p + base, suffix);
    return p;
}

char *test_read(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (r == 0) break;
        if (n == cap) {
            char *nb = realloc(buf, (cap *= 2) + 1);
            if (!nb) free(buf);
            buf = nb;
        }
    }
    fclose(f);
    if (!buf) return NULL;
    buf[n] = '\0';
    if (len) *len = n;
    return buf;
}

const char *test_basename(const char *path) {
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

char *test_first_line(const char *s) {
    size_t n = strcspn(s, "\n");
    char *line = malloc(n + 1);
    if (!line) return NULL;
    memcpy(line, s, n);
    line[n] = '\0';
    return line;
}
