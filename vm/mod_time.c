/* vm/mod_time.c — the time module: the clocks (time, monotonic, perf_counter, process_time,
 * thread_time and their _ns twins, get_clock_info), sleep, struct_time with gmtime /
 * localtime / mktime, asctime / ctime, strftime, strptime (through CPython's _strptime.py),
 * and the time-zone attributes (timezone, altzone, daylight, tzname, tzset). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vm/dict.h"
#include "vm/exc_os.h"
#include "vm/gc.h"
#include "vm/import.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/structseq.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

int vm_signals_run(VM *vm);

static const struct { const char *name; clockid_t id; } clocks[] = {
    {"time", CLOCK_REALTIME}, {"monotonic", CLOCK_MONOTONIC}, {"perf_counter", CLOCK_MONOTONIC},
    {"process_time", CLOCK_PROCESS_CPUTIME_ID}, {"thread_time", CLOCK_THREAD_CPUTIME_ID}};

/* fn->data: index into clocks; +16 for the _ns form */
static Value t_clock(ARGS) {
    intptr_t k = (intptr_t)fn->data;
    struct timespec ts;
    clock_gettime(clocks[k & 15].id, &ts);
    if (k & 16) return val_int((int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec);
    return val_float((double)ts.tv_sec + (double)ts.tv_nsec * 1e-9);
}

/* clock_gettime(clk_id) / clock_gettime_ns / clock_getres */
static Value t_clock_id(ARGS) {
    int64_t id;
    if (vm_index(vm, argv[0], &id) < 0) return val_null();
    struct timespec ts;
    int kind = (int)(intptr_t)fn->data;
    if ((kind == 2 ? clock_getres((clockid_t)id, &ts) : clock_gettime((clockid_t)id, &ts)) < 0)
        return vm_raise_oserror(vm, errno, val_null(), val_null());
    if (kind == 1) return val_int((int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec);
    return val_float((double)ts.tv_sec + (double)ts.tv_nsec * 1e-9);
}

static Value t_get_clock_info(ARGS) {
    if (!val_is_str(vm, argv[0])) return vm_raise(vm, vm->e_TypeError, "get_clock_info() argument must be str");
    const char *n = AS_STR(argv[0])->data;
    for (size_t i = 0; i < sizeof clocks / sizeof clocks[0]; i++) {
        if (strcmp(n, clocks[i].name) != 0) continue;
        struct timespec res;
        clock_getres(clocks[i].id, &res);
        static const char *const impl[] = {"clock_gettime(CLOCK_REALTIME)", "clock_gettime(CLOCK_MONOTONIC)",
                                           "clock_gettime(CLOCK_MONOTONIC)",
                                           "clock_gettime(CLOCK_PROCESS_CPUTIME_ID)",
                                           "clock_gettime(CLOCK_THREAD_CPUTIME_ID)"};
        Value types = vm_import_module(vm, "types");
        if (val_is_null(types)) return types;
        Value ns = vm_getattr_c(vm, types, "SimpleNamespace");
        if (val_is_null(ns)) return ns;
        vm_push_root(vm, ns);
        StrObj *im = str_from_c(vm, impl[i]);
        if (!im) {
            vm_pop_root(vm);
            return val_null();
        }
        vm_push_root(vm, val_obj(im));
        TupleObj *names = tuple_pack(vm, 4, vm_intern(vm, "implementation"), vm_intern(vm, "monotonic"),
                                     vm_intern(vm, "adjustable"), vm_intern(vm, "resolution"));
        if (!names) {
            vm_pop_roots(vm, 2);
            return val_null();
        }
        vm_push_root(vm, val_obj(names));
        Value args[4] = {val_obj(im), val_bool(i != 0), val_bool(i == 0),
                         val_float((double)res.tv_sec + (double)res.tv_nsec * 1e-9)};
        Value r = vm_call(vm, ns, 0, args, names);
        vm_pop_roots(vm, 3);
        return r;
    }
    return vm_raise(vm, vm->e_ValueError, "unknown clock");
}

static Value t_sleep(ARGS) {
    double s;
    if (val_is_intlike(argv[0])) s = (double)val_as_intlike(argv[0]);
    else if (vm_to_double(vm, argv[0], &s) < 0) return val_null();
    if (isnan(s)) return vm_raise(vm, vm->e_ValueError, "Invalid value NaN (not a number)");
    if (s < 0) return vm_raise(vm, vm->e_ValueError, "sleep length must be non-negative");
    struct timespec ts = {(time_t)s, (long)((s - floor(s)) * 1e9)};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {
        /* a signal's script handler runs now; if it raises, sleep raises (PEP 475) */
        if (vm_signals_run(vm) < 0) return val_null();
    }
    return val_none();
}

/* ---- struct_time ------------------------------------------------------------------------------ */

static const char *const st_fields[] = {"tm_year", "tm_mon",  "tm_mday", "tm_hour",  "tm_min",   "tm_sec",
                                        "tm_wday", "tm_yday", "tm_isdst", "tm_zone", "tm_gmtoff"};
static const StructSeqDesc st_desc = {"time.struct_time", st_fields, 11, 9};

static TypeObj *struct_time_type(VM *vm) {
    if (val_is_null(vm->lib[VM_LIB_struct_time])) {
        TypeObj *t = structseq_new_type(vm, &st_desc);
        if (!t) return NULL;
        vm->lib[VM_LIB_struct_time] = val_obj(t);
    }
    return AS_TYPE(vm->lib[VM_LIB_struct_time]);
}

static Value make_struct_time(VM *vm, const struct tm *tm) {
    TypeObj *t = struct_time_type(vm);
    if (!t) return val_null();
    StrObj *zone = str_from_c(vm, tm->tm_zone ? tm->tm_zone : "");
    if (!zone) return val_null();
    vm_push_root(vm, val_obj(zone));
    Value v[11] = {val_int(tm->tm_year + 1900), val_int(tm->tm_mon + 1), val_int(tm->tm_mday),
                   val_int(tm->tm_hour), val_int(tm->tm_min), val_int(tm->tm_sec),
                   val_int((tm->tm_wday + 6) % 7), val_int(tm->tm_yday + 1), val_int(tm->tm_isdst),
                   val_obj(zone), val_int(tm->tm_gmtoff)};
    TupleObj *r = structseq_new(vm, t, v);
    vm_pop_root(vm);
    return r ? val_obj(r) : val_null();
}

/* secs argument: None / absent = now; else a number floored to whole seconds */
static int secs_arg(VM *vm, int argc, Value *argv, time_t *out) {
    if (argc == 0 || val_is_none(argv[0])) {
        *out = time(NULL);
        return 0;
    }
    if (val_is_intlike(argv[0])) {
        *out = (time_t)val_as_intlike(argv[0]);
        return 0;
    }
    double d;
    if (vm_to_double(vm, argv[0], &d) < 0) return -1;
    if (isnan(d)) {
        vm_raise(vm, vm->e_ValueError, "Invalid value NaN (not a number)");
        return -1;
    }
    if (d >= 9.2e18 || d <= -9.2e18) {
        vm_raise(vm, vm->e_OverflowError, "timestamp out of range for platform time_t");
        return -1;
    }
    *out = (time_t)floor(d);
    return 0;
}

static Value t_gmtime(ARGS) {
    time_t t;
    if (secs_arg(vm, argc, argv, &t) < 0) return val_null();
    struct tm tm;
    bool local = fn->data != NULL;
    if (!(local ? localtime_r(&t, &tm) : gmtime_r(&t, &tm))) return vm_raise_oserror(vm, errno, val_null(), val_null());
    return make_struct_time(vm, &tm);
}

/* A 9-tuple or struct_time -> struct tm, with CPython's range checks (checkonly: strftime). */
static int tuple_to_tm(VM *vm, Value v, const char *fname, struct tm *tm, bool check) {
    if (!vm_isinstance_type(vm, v, vm->t_tuple)) {
        vm_raise(vm, vm->e_TypeError, "Tuple or struct_time argument required");
        return -1;
    }
    TupleObj *t = AS_TUPLE(v);
    if (t->len != 9) {
        vm_raise(vm, vm->e_TypeError, "%s(): illegal time tuple argument", fname);
        return -1;
    }
    int64_t f[9];
    for (int i = 0; i < 9; i++) {
        if (!val_is_intlike(t->items[i])) {
            vm_raise(vm, vm->e_TypeError, "'%s' object cannot be interpreted as an integer", vm_type_name(vm, t->items[i]));
            return -1;
        }
        f[i] = val_as_intlike(t->items[i]);
    }
    memset(tm, 0, sizeof *tm);
    tm->tm_year = (int)(f[0] - 1900);
    tm->tm_mon = (int)f[1] - 1;
    tm->tm_mday = (int)f[2];
    tm->tm_hour = (int)f[3];
    tm->tm_min = (int)f[4];
    tm->tm_sec = (int)f[5];
    tm->tm_wday = (int)((f[6] + 1) % 7);
    tm->tm_yday = (int)f[7] - 1;
    tm->tm_isdst = (int)f[8];
    /* struct_time carries its zone: keep tm_zone / tm_gmtoff for %Z / %z */
    if (t->hdr.type == AS_TYPE(vm->lib[VM_LIB_struct_time]) && t->dict) {
        Value z = dict_get_c(vm, t->dict, "tm_zone"), o = dict_get_c(vm, t->dict, "tm_gmtoff");
        if (val_is_str(vm, z)) tm->tm_zone = AS_STR(z)->data;
        if (val_is_intlike(o)) tm->tm_gmtoff = val_as_intlike(o);
    }
    if (!check) return 0;
    /* checktm() + gettmarg's normalisation, as strftime/asctime apply them */
    if (tm->tm_mon == -1) tm->tm_mon = 0;
    else if (tm->tm_mon < 0 || tm->tm_mon > 11) {
        vm_raise(vm, vm->e_ValueError, "month out of range");
        return -1;
    }
    if (tm->tm_mday == 0) tm->tm_mday = 1;
    else if (tm->tm_mday < 0 || tm->tm_mday > 31) {
        vm_raise(vm, vm->e_ValueError, "day of month out of range");
        return -1;
    }
    if (tm->tm_hour < 0 || tm->tm_hour > 23) {
        vm_raise(vm, vm->e_ValueError, "hour out of range");
        return -1;
    }
    if (tm->tm_min < 0 || tm->tm_min > 59) {
        vm_raise(vm, vm->e_ValueError, "minute out of range");
        return -1;
    }
    if (tm->tm_sec < 0 || tm->tm_sec > 61) {
        vm_raise(vm, vm->e_ValueError, "seconds out of range");
        return -1;
    }
    if (tm->tm_wday < 0) {
        vm_raise(vm, vm->e_ValueError, "day of week out of range");
        return -1;
    }
    if (tm->tm_yday == -1) tm->tm_yday = 0;
    else if (tm->tm_yday < 0 || tm->tm_yday > 365) {
        vm_raise(vm, vm->e_ValueError, "day of year out of range");
        return -1;
    }
    if (tm->tm_isdst < -1) tm->tm_isdst = -1;
    else if (tm->tm_isdst > 1) tm->tm_isdst = 1;
    return 0;
}

static int time_arg(VM *vm, int argc, Value *argv, const char *fname, struct tm *tm) {
    if (argc == 0) {
        time_t now = time(NULL);
        localtime_r(&now, tm);
        return 0;
    }
    return tuple_to_tm(vm, argv[0], fname, tm, true);
}

static Value t_mktime(ARGS) {
    struct tm tm;
    if (tuple_to_tm(vm, argv[0], "mktime", &tm, false) < 0) return val_null();
    tm.tm_wday = -1;
    time_t r = mktime(&tm);
    if (r == (time_t)-1 && tm.tm_wday == -1) return vm_raise(vm, vm->e_OverflowError, "mktime argument out of range");
    return val_float((double)r);
}

static Value asctime_of(VM *vm, const struct tm *tm) {
    static const char wday[7][4] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
    static const char mon[12][4] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                    "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    StrObj *s = str_printf(vm, "%s %s%3d %.2d:%.2d:%.2d %d", wday[tm->tm_wday], mon[tm->tm_mon], tm->tm_mday,
                           tm->tm_hour, tm->tm_min, tm->tm_sec, 1900 + tm->tm_year);
    return s ? val_obj(s) : val_null();
}

static Value t_asctime(ARGS) {
    struct tm tm;
    if (time_arg(vm, argc, argv, "asctime", &tm) < 0) return val_null();
    return asctime_of(vm, &tm);
}

static Value t_ctime(ARGS) {
    time_t t;
    if (secs_arg(vm, argc, argv, &t) < 0) return val_null();
    struct tm tm;
    if (!localtime_r(&t, &tm)) return vm_raise(vm, vm->e_OverflowError, "timestamp out of range for platform time_t");
    return asctime_of(vm, &tm);
}

static Value t_strftime(ARGS) {
    if (!val_is_str(vm, argv[0]))
        return vm_raise(vm, vm->e_TypeError, "strftime() argument 1 must be str, not %s", vm_type_name(vm, argv[0]));
    struct tm tm;
    if (time_arg(vm, argc - 1, argv + 1, "strftime", &tm) < 0) return val_null();
    StrObj *fmt = AS_STR(argv[0]);
    if (fmt->len == 0) return val_obj(vm->empty_str);
    if (memchr(fmt->data, 0, (size_t)fmt->len)) return vm_raise(vm, vm->e_ValueError, "embedded null character");
    if (tm.tm_year + 1900 < 1 && strstr(fmt->data, "%Y"))
        return vm_raise(vm, vm->e_ValueError, "format %%Y requires year >= 1");
    for (size_t cap = 256;; cap *= 2) {
        char *buf = malloc(cap);
        if (!buf) return vm_no_memory(vm);
        size_t n = strftime(buf, cap, fmt->data, &tm);
        if (n > 0 || cap >= 256 * (size_t)fmt->len + 4096) {
            StrObj *s = str_new(vm, buf, (int64_t)n);
            free(buf);
            return s ? val_obj(s) : val_null();
        }
        free(buf);
    }
}

static Value t_strptime(ARGS) {
    Value m = vm_import_module(vm, "_strptime");
    if (val_is_null(m)) return m;
    Value f = vm_getattr_c(vm, m, "_strptime_time");
    if (val_is_null(f)) return f;
    return vm_call(vm, f, argc, argv, kw);
}

/* time-zone attributes from the C library, as CPython's init_timezone computes them (the
 * offsets of January and July of this year) */
static int set_timezone(VM *vm, Value mod) {
    tzset();
    time_t now = time(NULL);
    struct tm t;
    localtime_r(&now, &t);
    t.tm_mon = 0;
    t.tm_mday = 1;
    t.tm_hour = 12;
    t.tm_isdst = -1;
    time_t jan = mktime(&t);
    struct tm jt, yt;
    localtime_r(&jan, &jt);
    t.tm_mon = 6;
    t.tm_isdst = -1;
    time_t jul = mktime(&t);
    localtime_r(&jul, &yt);
    long janoff = -jt.tm_gmtoff, juloff = -yt.tm_gmtoff;
    char jname[16], yname[16];
    snprintf(jname, sizeof jname, "%s", jt.tm_zone ? jt.tm_zone : "");
    snprintf(yname, sizeof yname, "%s", yt.tm_zone ? yt.tm_zone : "");
    long tz = janoff, alt = juloff;
    int dl = janoff != juloff;
    const char *n0 = jname, *n1 = yname;
    if (janoff < juloff) {   /* southern hemisphere: DST in January */
        tz = juloff;
        alt = janoff;
        n0 = yname;
        n1 = jname;
    }
    StrObj *s0 = str_from_c(vm, n0), *s1;
    if (!s0) return -1;
    vm_push_root(vm, val_obj(s0));
    s1 = str_from_c(vm, n1);
    if (!s1) {
        vm_pop_root(vm);
        return -1;
    }
    vm_push_root(vm, val_obj(s1));
    TupleObj *names = tuple_pack(vm, 2, val_obj(s0), val_obj(s1));
    vm_pop_roots(vm, 2);
    if (!names) return -1;
    vm_push_root(vm, val_obj(names));   /* module_set allocates (the interned key) */
    int rc = module_set(vm, mod, "tzname", val_obj(names)) < 0 || module_set(vm, mod, "timezone", val_int(tz)) < 0 ||
                     module_set(vm, mod, "altzone", val_int(alt)) < 0 ||
                     module_set(vm, mod, "daylight", val_int(dl)) < 0
                 ? -1
                 : 0;
    vm_pop_root(vm);
    return rc;
}

static Value t_tzset(ARGS) {
    Value mod = dict_get_c(vm, vm->modules, "time");
    if (val_is_type(vm, mod, vm->t_module) && set_timezone(vm, mod) < 0) return val_null();
    return val_none();
}

int time_module_init(VM *vm, Value mod) {
    static const MethodDef fns[] = {
        {"time", t_clock, ARITY_NOARGS, (void *)0}, {"time_ns", t_clock, ARITY_NOARGS, (void *)16},
        {"monotonic", t_clock, ARITY_NOARGS, (void *)1}, {"monotonic_ns", t_clock, ARITY_NOARGS, (void *)17},
        {"perf_counter", t_clock, ARITY_NOARGS, (void *)2}, {"perf_counter_ns", t_clock, ARITY_NOARGS, (void *)18},
        {"process_time", t_clock, ARITY_NOARGS, (void *)3}, {"process_time_ns", t_clock, ARITY_NOARGS, (void *)19},
        {"thread_time", t_clock, ARITY_NOARGS, (void *)4}, {"thread_time_ns", t_clock, ARITY_NOARGS, (void *)20},
        {"get_clock_info", t_get_clock_info, ARITY_O}, {"sleep", t_sleep, ARITY_O},
        {"gmtime", t_gmtime, ARITY_POS(0, 1)}, {"localtime", t_gmtime, ARITY_POS(0, 1), (void *)1},
        {"mktime", t_mktime, ARITY_O}, {"asctime", t_asctime, ARITY_POS(0, 1)}, {"ctime", t_ctime, ARITY_POS(0, 1)},
        {"strftime", t_strftime, ARITY_POS(1, 2)}, {"strptime", t_strptime}, {"tzset", t_tzset, ARITY_NOARGS},
        {"clock_gettime", t_clock_id, ARITY_O, (void *)0}, {"clock_gettime_ns", t_clock_id, ARITY_O, (void *)1},
        {"clock_getres", t_clock_id, ARITY_O, (void *)2}, {NULL}};
    if (module_add_functions(vm, mod, fns) < 0) return -1;
    TypeObj *st = struct_time_type(vm);
    if (!st || module_set(vm, mod, "struct_time", val_obj(st)) < 0) return -1;
    static const struct { const char *n; int v; } consts[] = {
        {"CLOCK_REALTIME", CLOCK_REALTIME}, {"CLOCK_MONOTONIC", CLOCK_MONOTONIC},
        {"CLOCK_MONOTONIC_RAW", CLOCK_MONOTONIC_RAW}, {"CLOCK_PROCESS_CPUTIME_ID", CLOCK_PROCESS_CPUTIME_ID},
        {"CLOCK_THREAD_CPUTIME_ID", CLOCK_THREAD_CPUTIME_ID}, {"CLOCK_BOOTTIME", CLOCK_BOOTTIME},
        {"CLOCK_TAI", CLOCK_TAI}, {NULL, 0}};
    for (int i = 0; consts[i].n; i++)
        if (module_set(vm, mod, consts[i].n, val_int(consts[i].v)) < 0) return -1;
    return set_timezone(vm, mod);
}
