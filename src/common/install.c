/* src/common/install.c — the installed library directory (install.h), found next to the
 * running executable. */
#include "src/common/install.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool is_dir(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *install_library_dir(void) {
    static bool resolved;
    static char dir[PATH_MAX];
    if (resolved) return dir[0] ? dir : NULL;
    resolved = true;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = 0;
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = 0;
            char cand[PATH_MAX];
            snprintf(cand, sizeof cand, "%s/%s", exe, EMBER_LIBDIR_FROM_BINDIR);
            if (is_dir(cand) && realpath(cand, dir)) return dir;
        }
    }
    dir[0] = 0;
    return NULL;
}
