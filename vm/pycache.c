/* vm/pycache.c — the bytecode cache (see pycache.h): cache paths, header validation, reading
 * and writing cache files, and the per-user fallback directory. */
#include "vm/pycache.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/common/install.h"
#include "vm/build_config.h"
#include "vm/cache_tag.h"
#include "vm/compiler_stamp.h"
#include "vm/dict.h"
#include "vm/exc.h"
#include "vm/exc_os.h"
#include "vm/gc.h"
#include "vm/marshal.h"
#include "vm/str.h"

/* importlib._bootstrap_external.MAGIC_NUMBER of CPython 3.11: (3495).to_bytes(2, 'little') +
 * b'\r\n'.  The files are told apart from CPython's by the tag in their name; the header is
 * importlib's so that its SourceFileLoader reads and writes the same files. */
static const uint8_t MAGIC[4] = {0xA7, 0x0D, 0x0D, 0x0A};

/* The header's flags word: importlib's bits 0 (hash-based) and 1 (check_source) plus the compiler
 * stamp above them (never 0, so a file importlib wrote is not taken for ours). */
static uint32_t header_flags(uint32_t importlib_bits) {
    return ((uint32_t)EMBER_COMPILER_STAMP << 2 | 1u << 2) | importlib_bits;
}

static Value sys_get(VM *vm, const char *name) {
    Value s = dict_get_c(vm, vm->modules, "sys");
    return val_is_type(vm, s, vm->t_module) ? dict_get_c(vm, ((ModuleObj *)s.as.o)->dict, name) : val_null();
}

/* dir/__pycache__/base.<tag>.pyc (or under sys.pycache_prefix, or under root when given) */
static char *cache_path(VM *vm, const char *path, const char *root) {
    const char *slash = strrchr(path, '/');
    size_t hl = slash ? (size_t)(slash - path) : 0;
    const char *tail = slash ? slash + 1 : path;
    const char *dot = strrchr(tail, '.');
    size_t bl = dot && dot != tail ? (size_t)(dot - tail) : strlen(tail);
    char file[NAME_MAX + 64];
    snprintf(file, sizeof file, "%.*s.%s.pyc", (int)bl, tail, EMBER_CACHE_TAG);
    Value prefix = root ? val_null() : sys_get(vm, "pycache_prefix");
    const char *pre = root ? root : val_is_str(vm, prefix) ? AS_STR(prefix)->data : NULL;
    char *out = malloc(PATH_MAX * 2 + 64);
    if (!pre) {
        if (hl) snprintf(out, PATH_MAX * 2 + 64, "%.*s/__pycache__/%s", (int)hl, path, file);
        else snprintf(out, PATH_MAX * 2 + 64, "__pycache__/%s", file);
        return out;
    }
    /* the absolute directory of the source, made root-relative under the prefix */
    char head[PATH_MAX];
    /* absolute, or an embedded library path ("<ember>/...") taken as it is */
    if (path[0] == '/' || path[0] == '<') snprintf(head, sizeof head, "%.*s", (int)hl, path);
    else {
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof cwd)) cwd[0] = 0;
        snprintf(head, sizeof head, "%s%s%.*s", cwd, hl ? "/" : "", (int)hl, path);
    }
    const char *h = head;
    while (*h == '/') h++;
    snprintf(out, PATH_MAX * 2 + 64, "%s/%s%s%s", pre, h, *h ? "/" : "", file);
    return out;
}

char *pycache_path_for(VM *vm, const char *path) { return cache_path(vm, path, NULL); }

/* $XDG_CACHE_HOME/ember/pycache, or ~/.cache/ember/pycache; NULL without a home */
static const char *user_root(void) {
    static char root[PATH_MAX];
    if (root[0]) return root;
    const char *x = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    if (x && x[0] == '/') snprintf(root, sizeof root, "%s/ember/pycache", x);
    else if (home && home[0]) snprintf(root, sizeof root, "%s/.cache/ember/pycache", home);
    else return NULL;
    return root;
}

static uint32_t le32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

static uint8_t *read_all(const char *path, size_t *len) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return NULL;
    }
    size_t cap = (size_t)st.st_size + 1, n = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        if (n == cap) buf = realloc(buf, cap *= 2);
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        n += (size_t)r;
    }
    close(fd);
    *len = n;
    return buf;
}

/* Set co's filename (and its nested code objects') to fn, as importlib's _fix_co_filename does
 * when the source moved since the cache was written. */
static void fix_filename(VM *vm, CodeObj *co, StrObj *fn) {
    if (str_eq(co->filename, fn)) return;
    co->filename = fn;
    for (int64_t i = 0; i < co->consts->len; i++) {
        Value c = co->consts->items[i];
        if (val_is_type(vm, c, vm->t_code)) fix_filename(vm, AS_CODE(c), fn);
    }
}

/* The code in cache file cpath if its header matches the source's mtime and size; NULL
 * without exception when it does not (or cannot be read). */
static CodeObj *read_cache(VM *vm, const char *cpath, const struct stat *src, StrObj *fn) {
    size_t n;
    uint8_t *data = read_all(cpath, &n);
    if (!data) return NULL;
    CodeObj *co = NULL;
    if (n >= 16 && memcmp(data, MAGIC, 4) == 0 && le32(data + 4) == header_flags(0) &&
        le32(data + 8) == (uint32_t)src->st_mtim.tv_sec && le32(data + 12) == (uint32_t)src->st_size) {
        Value v = marshal_loads(vm, data + 16, (int64_t)n - 16, NULL);
        if (val_is_type(vm, v, vm->t_code)) {
            co = AS_CODE(v);
            fix_filename(vm, co, fn);
        } else {
            vm_clear_exc(vm);   /* a damaged cache is recompiled, as importlib does */
        }
    }
    free(data);
    return co;
}

static int mkdirs(char *dir) {
    struct stat st;
    if (stat(dir, &st) == 0) return S_ISDIR(st.st_mode) ? 0 : -1;
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir) {
        *slash = 0;
        int rc = mkdirs(dir);
        *slash = '/';
        if (rc < 0) return -1;
    }
    return mkdir(dir, 0777) < 0 && errno != EEXIST ? -1 : 0;
}

/* importlib's _write_atomic: a temporary file beside the target, renamed over it. */
static int write_atomic(const char *cpath, const uint8_t *data, size_t n, mode_t mode) {
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", cpath);
    char *slash = strrchr(dir, '/');
    if (slash) {
        *slash = 0;
        if (mkdirs(dir) < 0) return -1;
    }
    char tmp[PATH_MAX + 32];
    snprintf(tmp, sizeof tmp, "%s.%ld", cpath, (long)getpid());
    int fd = open(tmp, O_EXCL | O_CREAT | O_WRONLY | O_CLOEXEC, mode & 0666);
    if (fd < 0) return -1;
    size_t off = 0;
    while (off < n) {
        ssize_t w = write(fd, data + off, n - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) break;
        off += (size_t)w;
    }
    int ok = off == n;
    if (close(fd) < 0) ok = 0;
    if (!ok || rename(tmp, cpath) < 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

static void write_cache(VM *vm, const char *path, CodeObj *co, const struct stat *src, char **cached_path) {
    Value dwb = sys_get(vm, "dont_write_bytecode");
    if (!val_is_null(dwb) && vm_truthy(vm, dwb) > 0) return;
    vm_clear_exc(vm);
    BytesObj *m = marshal_dumps(vm, val_obj(co), 4);
    if (!m) {
        vm_clear_exc(vm);
        return;
    }
    size_t n = 16 + (size_t)m->len;
    uint8_t *data = malloc(n);
    memcpy(data, MAGIC, 4);
    uint32_t h[3] = {header_flags(0), (uint32_t)src->st_mtim.tv_sec, (uint32_t)src->st_size};
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 4; k++) data[4 + 4 * i + k] = (uint8_t)(h[i] >> (8 * k));
    memcpy(data + 16, m->data, (size_t)m->len);
    mode_t mode = (src->st_mode | 0200) & 0666;
    char *cpath = cache_path(vm, path, NULL);
    int rc = write_atomic(cpath, data, n, mode);
    if (rc < 0 && (errno == EACCES || errno == EROFS || errno == EPERM) && user_root()) {
        free(cpath);
        cpath = cache_path(vm, path, user_root());
        rc = write_atomic(cpath, data, n, mode);
    }
    free(data);
    if (rc == 0 && cached_path) *cached_path = cpath;
    else free(cpath);
}

/* every code object of co gets CO_STDLIB (a cache written by importlib's own loader, which
 * compiles through compile() and cannot know) */
static void mark_stdlib(VM *vm, CodeObj *co) {
    co->flags |= CO_STDLIB;
    for (int64_t i = 0; i < co->consts->len; i++)
        if (val_is_type(vm, co->consts->items[i], vm->t_code)) mark_stdlib(vm, AS_CODE(co->consts->items[i]));
}

/* ---- hash-based caches of the embedded library ------------------------------------------------ */

static uint64_t rotl(uint64_t x, int b) { return (x << b) | (x >> (64 - b)); }

uint64_t pycache_source_hash(uint64_t k0, const uint8_t *p, size_t n) {
    uint64_t k1 = 0;
    uint64_t v0 = k0 ^ 0x736f6d6570736575ULL, v1 = k1 ^ 0x646f72616e646f6dULL;
    uint64_t v2 = k0 ^ 0x6c7967656e657261ULL, v3 = k1 ^ 0x7465646279746573ULL;
    uint64_t b = (uint64_t)n << 56;
#define ROUND v0 += v1; v1 = rotl(v1, 13); v1 ^= v0; v0 = rotl(v0, 32); v2 += v3; v3 = rotl(v3, 16); v3 ^= v2; \
    v0 += v3; v3 = rotl(v3, 21); v3 ^= v0; v2 += v1; v1 = rotl(v1, 17); v1 ^= v2; v2 = rotl(v2, 32);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t m;
        memcpy(&m, p + i, 8);
        v3 ^= m;
        ROUND
        v0 ^= m;
    }
    uint64_t t = 0;
    for (size_t k = 0; i + k < n; k++) t |= (uint64_t)p[i + k] << (8 * k);
    b |= t;
    v3 ^= b;
    ROUND
    v0 ^= b;
    v2 ^= 0xff;
    ROUND ROUND ROUND
#undef ROUND
    return v0 ^ v1 ^ v2 ^ v3;
}

CodeObj *pycache_get_embedded_code(VM *vm, const char *filename, const char *src, size_t len, uint32_t flags) {
    /* importlib's key for source hashes: _RAW_MAGIC_NUMBER */
    uint64_t h = pycache_source_hash(le32(MAGIC), (const uint8_t *)src, len);
    const char *root = user_root();
    char *cpath = root ? cache_path(vm, filename, root) : NULL;
    StrObj *fn = str_from_c(vm, filename);
    if (!fn) {
        free(cpath);
        return NULL;
    }
    vm_push_root(vm, val_obj(fn));
    CodeObj *co = NULL;
    if (cpath) {
        size_t n;
        uint8_t *data = read_all(cpath, &n);
        uint64_t stored = 0;
        if (data && n >= 16) memcpy(&stored, data + 8, 8);
        if (data && n >= 16 && memcmp(data, MAGIC, 4) == 0 && le32(data + 4) == header_flags(3) && stored == h) {
            Value v = marshal_loads(vm, data + 16, (int64_t)n - 16, NULL);
            if (val_is_type(vm, v, vm->t_code)) co = AS_CODE(v);
            else vm_clear_exc(vm);
        }
        free(data);
    }
    if (!co) {
        exc_register_source(filename, src, len);
        co = vm->compile(vm, src, len, filename, flags);
        Value dwb = sys_get(vm, "dont_write_bytecode");
        if (co && cpath && !(!val_is_null(dwb) && vm_truthy(vm, dwb) > 0)) {
            vm_push_root(vm, val_obj(co));
            BytesObj *m = marshal_dumps(vm, val_obj(co), 4);
            if (m) {
                size_t n = 16 + (size_t)m->len;
                uint8_t *data = malloc(n);
                memcpy(data, MAGIC, 4);
                uint32_t fl = header_flags(3);   /* hash-based, check the source */
                for (int k = 0; k < 4; k++) data[4 + k] = (uint8_t)(fl >> (8 * k));
                memcpy(data + 8, &h, 8);
                memcpy(data + 16, m->data, (size_t)m->len);
                (void)write_atomic(cpath, data, n, 0644);
                free(data);
            } else {
                vm_clear_exc(vm);
            }
            vm_pop_root(vm);
        }
    }
    vm_pop_root(vm);
    free(cpath);
    return co;
}

CodeObj *pycache_get_code(VM *vm, const char *path, const char *shown, uint32_t flags, char **cached_path) {
    if (cached_path) *cached_path = NULL;
    size_t sl = strlen(EMBER_CPYTHON_STDLIB);
    if (strncmp(path, EMBER_CPYTHON_STDLIB, sl) == 0 && path[sl] == '/') flags |= CO_STDLIB;
    /* an installed Ember's own library is library code, as its embedded copy is */
    const char *lib = install_library_dir();
    size_t ll = lib ? strlen(lib) : 0;
    if (lib && strncmp(path, lib, ll) == 0 && path[ll] == '/') flags |= CO_LIBRARY;
    struct stat st;
    StrObj *fn = str_from_c(vm, shown ? shown : path);
    if (!fn) return NULL;
    if (stat(path, &st) < 0) {
        (void)vm_raise_oserror(vm, errno, val_obj(fn), val_null());
        return NULL;
    }
    vm_push_root(vm, val_obj(fn));
    /* the cache beside the source, then the per-user one */
    char *cpath = cache_path(vm, path, NULL);
    CodeObj *co = read_cache(vm, cpath, &st, fn);
    if (!co && user_root()) {
        free(cpath);
        cpath = cache_path(vm, path, user_root());
        co = read_cache(vm, cpath, &st, fn);
    }
    if (co) {
        if ((flags & CO_STDLIB) && !(co->flags & CO_STDLIB)) mark_stdlib(vm, co);
        vm_pop_root(vm);
        if (cached_path) *cached_path = cpath;
        else free(cpath);
        return co;
    }
    free(cpath);
    size_t n;
    uint8_t *src = read_all(path, &n);
    if (!src) {
        (void)vm_raise_oserror(vm, errno ? errno : EIO, val_obj(fn), val_null());
        vm_pop_root(vm);
        return NULL;
    }
    if (!vm->compile) {
        free(src);
        vm_pop_root(vm);
        vm_raise(vm, vm->e_ImportError, "no compiler installed to compile %s", path);
        return NULL;
    }
    exc_register_source(fn->data, (const char *)src, n);
    co = vm->compile(vm, (const char *)src, n, fn->data, flags);
    free(src);
    if (co) {
        vm_push_root(vm, val_obj(co));
        write_cache(vm, path, co, &st, cached_path);
        vm_pop_root(vm);
    }
    vm_pop_root(vm);
    return co;
}
