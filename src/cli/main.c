/* src/cli/main.c — the `ember` command: CPython's command line, plus Ember's own subcommands.
 *
 *   ember [option] ... [-c cmd | -m mod | file | -] [arg] ...     as python3 (see usage_text)
 *   ember                       an interactive REPL when stdin is a terminal (repl.c), else the
 *                               script read from stdin
 *   ember run [--compile-all] [--backend NAME] [--compiled-autograd] FILE [args...]
 *                               `ember FILE` with Ember's run options (--compile-all compiles
 *                               every script function, as if each were torch.compile'd, for
 *                               differential testing; --compiled-autograd runs every backward as
 *                               a compiled autograd graph); EMBER_REPORT=DIR writes the compile
 *                               report of the run
 *   ember compile [--report DIR] [--show LIST|all] [--decompile] [--dot DIR] [--backend NAME] FILE [args...]
 *                               run with every script function compiled; --report writes the
 *                               static HTML report of every compile (src/report), --show prints
 *                               EMBER_LOGS artifacts, --decompile the residual code as Python,
 *                               --dot each graph as Graphviz DOT
 *   ember dis FILE              the bytecode of every code object, CPython dis layout
 *
 * Third-party packages: EMBERPATH (a PYTHONPATH for Ember: directories put on sys.path after the
 * script's) and --system-site-packages (CPython 3.11's site directories appended to sys.path) make
 * pure-Python packages installed for the system's CPython importable; a C extension among them
 * raises ImportError naming its file (vm/import.c).
 *   ember -m torch.distributed.run [torchrun options] FILE [args...]
 *                               torchrun: the C launcher of a distributed job (src/dist/launch.c)
 *
 * Exit status as CPython's: 0, SystemExit's code (None: 0, an int: itself, anything else is
 * printed and gives 1), 1 for an uncaught exception or a syntax error, 2 for a usage error, and an
 * uncaught KeyboardInterrupt ends the process by SIGINT (130 in a shell). */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/cli/cli.h"
#include "src/dist/launch.h"
#include "src/runtime/ca_vm.h"
#include "src/tracer/tracer_api.h"
#include "vm/build_config.h"
#include "vm/dict.h"
#include "vm/dis.h"
#include "vm/gc.h"
#include "vm/import.h"
#include "vm/mod_sys.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/vm.h"

static const char usage_line[] = "usage: ember [option] ... [-c cmd | -m mod | file | -] [arg] ...\n";

static const char usage_text[] =
    "Options (CPython's):\n"
    "-c cmd : program passed in as string (terminates option list)\n"
    "-E     : ignore PYTHON* environment variables (such as PYTHONUNBUFFERED)\n"
    "-h     : print this help message and exit (also -? or --help)\n"
    "-i     : inspect interactively after running script; forces a prompt even\n"
    "         if stdin does not appear to be a terminal; also PYTHONINSPECT=x\n"
    "-I     : isolate (implies -E)\n"
    "-m mod : run library module as a script (terminates option list)\n"
    "-O     : accepted and ignored: Ember keeps assert statements and __debug__ (also -OO)\n"
    "-q     : don't print version and copyright messages on interactive startup\n"
    "-u     : force the stdout and stderr streams to be unbuffered; also PYTHONUNBUFFERED=x\n"
    "-V     : print the version number and exit (also --version)\n"
    "-W arg : warning control (sys.warnoptions)\n"
    "-X opt : set implementation-specific option (sys._xoptions); Ember's own:\n"
    "         -X compile_all, -X backend=eager|ember, -X compiled_autograd, -X report=DIR,\n"
    "         -X system_site_packages\n"
    "--system-site-packages : import pure-Python packages installed for the system's CPython 3.11\n"
    "         (its site directories, e.g. /usr/lib/python3/dist-packages, end sys.path)\n"
    "-P     : don't prepend a potentially unsafe path to sys.path; also PYTHONSAFEPATH\n"
    "-b -B -d -R -s -S -v : accepted, reported in sys.flags, no other effect in Ember\n"
    "file   : program read from script file\n"
    "-      : program read from stdin (default; interactive mode if a tty)\n"
    "arg ...: arguments passed to program in sys.argv[1:]\n"
    "\n"
    "Ember's commands:\n"
    "ember run [--compile-all] [--backend NAME] [--compiled-autograd] [--system-site-packages] FILE [arg] ...\n"
    "ember compile [--report DIR] [--show LIST|all] [--decompile] [--dot DIR] [--backend NAME]\n"
    "              [--system-site-packages] FILE [arg] ...\n"
    "ember dis FILE\n"
    "\n"
    "Environment: EMBER_LOGS (or TORCH_LOGS) = artifacts to log, EMBER_REPORT = directory of the\n"
    "compile report, EMBER_HISTFILE = the REPL's history file (default ~/.ember_history),\n"
    "EMBERPATH = ':'-separated directories put on sys.path after the script's (as PYTHONPATH).\n";

static int usage_error(const char *fmt, const char *arg) {
    if (fmt) {
        fprintf(stderr, fmt, arg);
        fputc('\n', stderr);
    }
    fputs(usage_line, stderr);
    fputs("Try `ember -h' for more information.\n", stderr);
    return 2;
}

static int print_version(int level) {
    printf("Ember %s (Python 3.11)\n", EMBER_VERSION);
    if (level > 1) printf("the Python 3.11 language on Ember's VM, with CPython 3.11's standard library\n");
    return 0;
}

/* ---- the VM of a run ------------------------------------------------------------------------------ */

static Value str_or_null(VM *vm, const char *s) {
    StrObj *o = str_from_c(vm, s);
    return o ? val_obj(o) : val_null();
}

/* sys.<name>: the existing list/dict (the sys module may define it), else a new one. */
static Value sys_container(VM *vm, ModuleObj *sys, const char *name, bool dict) {
    Value v = dict_get_c(vm, sys->dict, name);
    if (dict ? val_is_type(vm, v, vm->t_dict) : val_is_type(vm, v, vm->t_list)) return v;
    v = dict ? val_obj(dict_new(vm)) : val_obj(list_new(vm, 0));
    if (!val_is_null(v) && dict_set_c(vm, sys->dict, name, v) < 0) return val_null();
    return v;
}

/* sys._xoptions, sys.warnoptions and sys.orig_argv from the command line */
static void set_sys_options(VM *vm, const CliOptions *o) {
    Value sysv = dict_get_c(vm, vm->modules, "sys");
    if (!val_is_type(vm, sysv, vm->t_module)) return;
    ModuleObj *sys = (ModuleObj *)sysv.as.o;
    Value x = sys_container(vm, sys, "_xoptions", true);
    if (!val_is_null(x)) {
        vm_push_root(vm, x);
        for (int i = 0; i < o->n_xoptions; i++) {
            char key[256];
            const char *eq = strchr(o->xoptions[i], '=');
            snprintf(key, sizeof key, "%.*s", eq ? (int)(eq - o->xoptions[i]) : (int)strlen(o->xoptions[i]), o->xoptions[i]);
            Value v = eq ? str_or_null(vm, eq + 1) : val_bool(true);
            if (!val_is_null(v) && dict_set_c(vm, AS_DICT(x), key, v) < 0) vm_clear_exc(vm);
        }
        vm_pop_root(vm);
    }
    /* as CPython orders them: -X dev's "default", the -W options, then -b / -bb's */
    Value w = sys_container(vm, sys, "warnoptions", false);
    const char *bytes = o->bytes_warning > 1 ? "error::BytesWarning" : o->bytes_warning ? "default::BytesWarning" : NULL;
    for (int i = -1; !val_is_null(w) && i <= o->n_warnoptions; i++) {
        const char *opt = i < 0 ? (o->dev_mode ? "default" : NULL) : i < o->n_warnoptions ? o->warnoptions[i] : bytes;
        Value s = opt ? str_or_null(vm, opt) : val_null();
        if (!val_is_null(s) && list_append(vm, AS_LIST(w), s) < 0) vm_clear_exc(vm);
    }
    Value a = sys_container(vm, sys, "orig_argv", false);
    for (int i = 0; !val_is_null(a) && i < o->orig_argc; i++) {
        Value s = str_or_null(vm, o->orig_argv[i]);
        if (!val_is_null(s) && list_append(vm, AS_LIST(a), s) < 0) vm_clear_exc(vm);
    }
    vm_clear_exc(vm);
}

/* EMBERPATH's directories at the front of sys.path (the script's directory goes before them
 * when the script runs), as CPython places PYTHONPATH; -E/-I ignore it. */
static void add_emberpath(VM *vm, const CliOptions *o) {
    const char *v = o->ignore_env ? NULL : getenv("EMBERPATH");
    if (!v || !*v) return;
    int64_t at = 0;
    for (const char *p = v;;) {
        const char *end = strchr(p, ':');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n) {
            StrObj *s = str_new(vm, p, (int64_t)n);
            if (!s || list_insert(vm, vm->path, at++, val_obj(s)) < 0) vm_clear_exc(vm);
        }
        if (!end) break;
        p = end + 1;
    }
}

/* CPython 3.11's site directories for the prefix of the stdlib Ember runs (<prefix>/lib/python3.11):
 * site.getsitepackages()' Debian layout (<prefix>/local/lib/python3.11/dist-packages,
 * <prefix>/lib/python3/dist-packages, <prefix>/lib/python3.11/dist-packages) and upstream's
 * (<prefix>/lib/python3.11/site-packages), the ones that exist, appended to sys.path. */
static void add_system_site_packages(VM *vm) {
    const char *std = EMBER_CPYTHON_STDLIB;
    const char *tail = strstr(std, "/lib/python3.11");
    if (!tail) return;
    int plen = (int)(tail - std);
    char dirs[4][4096];
    snprintf(dirs[0], sizeof dirs[0], "%.*s/local/lib/python3.11/dist-packages", plen, std);
    snprintf(dirs[1], sizeof dirs[1], "%.*s/lib/python3/dist-packages", plen, std);
    snprintf(dirs[2], sizeof dirs[2], "%.*s/lib/python3.11/dist-packages", plen, std);
    snprintf(dirs[3], sizeof dirs[3], "%.*s/lib/python3.11/site-packages", plen, std);
    for (int i = 0; i < 4; i++) {
        if (access(dirs[i], R_OK | X_OK) != 0) continue;
        StrObj *s = str_from_c(vm, dirs[i]);
        if (!s || list_append(vm, vm->path, val_obj(s)) < 0) vm_clear_exc(vm);
    }
}

static const char *script_name(const CliOptions *o) {
    return o->file ? o->file : o->module ? o->module : o->command ? "-c" : "<stdin>";
}

EmVM *cli_vm_new(const CliOptions *o) {
    if (o->unbuffered) {
        setvbuf(stdout, NULL, _IONBF, 0);
        setvbuf(stderr, NULL, _IONBF, 0);
    }
    if (o->ignore_env) hash_ignore_environment();   /* before the VM's first string hash */
    EmVM *vm = em_vm_new();
    if (o->compile_all) tracer_set_compile_all(vm, o->backend ? o->backend : "eager");
    if (o->compiled_autograd) rt_ca_enable_for_run(vm);
    if (o->report && *o->report) {
        char cmd[1024];
        size_t n = 0;
        cmd[0] = 0;
        for (int i = 0; i < o->orig_argc && n < sizeof cmd; i++)
            n += (size_t)snprintf(cmd + n, sizeof cmd - n, "%s%s", i ? " " : "", o->orig_argv[i]);
        tracer_set_report(vm, o->report, script_name(o), cmd);
    }
    em_set_argv(vm, o->argc, o->argv);
    set_sys_options(vm, o);
    SysFlags f = {.debug = o->debug, .inspect = o->inspect, .interactive = o->interactive_flag,
                  .dont_write_bytecode = o->dont_write_bytecode, .no_user_site = o->no_user_site,
                  .ignore_environment = o->ignore_env, .verbose = o->verbose, .bytes_warning = o->bytes_warning,
                  .quiet = o->quiet, .isolated = o->isolated, .utf8_mode = o->utf8_mode,
                  .warn_default_encoding = o->warn_default_encoding, .int_max_str_digits = o->int_max_str_digits,
                  .dev_mode = o->dev_mode, .safe_path = o->safe_path};
    if (sys_set_flags(vm, &f) < 0) vm_clear_exc(vm);
    if (o->int_max_str_digits >= 0) ((VM *)vm)->int_max_str_digits = o->int_max_str_digits;
    em_set_safe_path(vm, o->safe_path);
    /* as CPython's -X faulthandler / PYTHONFAULTHANDLER / -X dev: faulthandler.enable() */
    if (o->faulthandler || o->dev_mode) {
        Value fh = import_native_module(vm, "faulthandler");
        if (val_is_null(fh) || val_is_null(vm_call_method(vm, fh, "enable", 0, NULL))) vm_clear_exc(vm);
    }
    add_emberpath(vm, o);
    if (o->system_site_packages) add_system_site_packages(vm);
    return vm;
}

static bool system_exit_pending(EmVM *vm) {
    VM *v = vm;
    return val_is_obj(v->exc) && vm_isinstance_type(v, v->exc, v->e_SystemExit);
}

int cli_finish(EmVM *vm, int rc) {
    VM *v = vm;
    int status = 0;
    bool interrupted = false;
    if (rc < 0) {
        status = em_exit_status(vm);
        interrupted = val_is_obj(v->exc) && vm_isinstance_type(v, v->exc, v->e_KeyboardInterrupt);
        em_print_error(vm);
    }
    fflush(stdout);
    const char *report;
    char where[PATH_MAX];
    int wrote = tracer_write_report(vm, &report);
    if (wrote > 0 && realpath(report, where))
        fprintf(stderr, "ember: compile report written to %s/ — open file://%s/index.html in a browser\n", report, where);
    if (wrote < 0) {
        fprintf(stderr, "ember: cannot write the compile report to %s: %s\n", report, strerror(errno));
        if (!status) status = 1;
    }
    em_vm_free(vm);
    if (interrupted) {
        /* as CPython: the parent sees the process killed by SIGINT */
        fflush(stderr);
        signal(SIGINT, SIG_DFL);
        kill(getpid(), SIGINT);
    }
    return status;
}

/* ---- running -------------------------------------------------------------------------------------- */

static char *read_stream(FILE *f, size_t *len) {
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap) buf = realloc(buf, cap *= 2);
    }
    if (buf) buf[n] = 0;
    *len = n;
    return buf;
}

/* sys.path[0] for -c, stdin and the REPL: '' (the current directory), as CPython */
static void path_insert_cwd(VM *vm) {
    StrObj *s = str_from_c(vm, "");
    if (!s || list_insert(vm, vm->path, 0, val_obj(s)) < 0) vm_clear_exc(vm);
}

static int run(CliOptions *o) {
    if (o->file && strcmp(o->file, "-") != 0 && access(o->file, R_OK) != 0) {
        fprintf(stderr, "ember: can't open file '%s': [Errno 2] No such file or directory\n", o->file);
        return 2;
    }
    /* -i reads a piped stdin at the prompt too; PYTHONINSPECT alone does not (as CPython) */
    bool interactive = !o->command && !o->module && !o->file && (isatty(STDIN_FILENO) || o->interactive_flag);
    EmVM *vm = cli_vm_new(o);
    int rc;
    if (!o->safe_path && (o->command || (!o->module && !(o->file && strcmp(o->file, "-") != 0)))) path_insert_cwd(vm);
    if (o->command) {
        rc = em_run_string(vm, o->command, "<string>");
    } else if (o->module) {
        rc = em_run_module(vm, o->module);
    } else if (o->file && strcmp(o->file, "-") != 0) {
        rc = em_run_file(vm, o->file);
    } else if (interactive) {
        rc = cli_repl(vm, o);
    } else {
        size_t len;
        char *src = read_stream(stdin, &len);
        rc = src ? em_run_string(vm, src, "<stdin>") : -1;
        free(src);
    }
    /* -i: the REPL after the script, also after its exception (printed first), not after exit() */
    if (o->inspect && !interactive && !(rc < 0 && system_exit_pending(vm))) {
        if (rc < 0) em_print_error(vm);
        rc = cli_repl(vm, o);
    }
    return cli_finish(vm, rc);
}

/* ---- CPython's options ---------------------------------------------------------------------------- */

static bool env_set(const CliOptions *o, const char *name) {
    const char *v = o->ignore_env ? NULL : getenv(name);
    return v && *v;
}

/* Ember's run options given as -X (so `ember -X compile_all FILE` works like `ember run --compile-all FILE`) */
static void ember_xoption(CliOptions *o, const char *x) {
    if (strcmp(x, "compile_all") == 0) o->compile_all = true;
    else if (strcmp(x, "compiled_autograd") == 0) o->compiled_autograd = true;
    else if (strncmp(x, "backend=", 8) == 0) o->backend = x + 8;
    else if (strncmp(x, "report=", 7) == 0) o->report = x + 7;
    else if (strcmp(x, "system_site_packages") == 0) o->system_site_packages = true;
}

/* A PYTHON* variable that counts (PYTHONVERBOSE=3 is -vvv; a value that is not a number, 1) */
static int env_level(const CliOptions *o, const char *name) {
    if (!env_set(o, name)) return 0;
    char *end;
    long n = strtol(getenv(name), &end, 10);
    return *end || n < 1 ? 1 : (int)n;
}

static int fatal_config(const char *where, const char *what) {
    fprintf(stderr, "Fatal Python error: %s: %s\nPython runtime state: preinitialized\n\n", where, what);
    return -1;
}

/* The sys.flags that only report the command line: -X dev / utf8[=0|1] / warn_default_encoding /
 * int_max_str_digits=N and the variables CPython reads for them (ignored under -E / -I). */
static int flag_options(CliOptions *o) {
    if (o->ignore_env == false) {
        if (env_set(o, "PYTHONDONTWRITEBYTECODE")) o->dont_write_bytecode = true;
        if (env_set(o, "PYTHONNOUSERSITE")) o->no_user_site = true;
        if (env_set(o, "PYTHONSAFEPATH")) o->safe_path = true;
        if (env_set(o, "PYTHONDEVMODE")) o->dev_mode = true;
        if (env_set(o, "PYTHONFAULTHANDLER")) o->faulthandler = true;
        if (env_set(o, "PYTHONWARNDEFAULTENCODING")) o->warn_default_encoding = 1;
        if (env_set(o, "PYTHONUTF8")) o->utf8_mode = strcmp(getenv("PYTHONUTF8"), "0") != 0;
        o->verbose = o->verbose ? o->verbose : env_level(o, "PYTHONVERBOSE");
        o->debug = o->debug ? o->debug : env_level(o, "PYTHONDEBUG");
        if (env_set(o, "PYTHONINTMAXSTRDIGITS")) {
            char *end;
            long n = strtol(getenv("PYTHONINTMAXSTRDIGITS"), &end, 10);
            if (*end || n < 0 || (n > 0 && n < 640) || n > INT32_MAX)
                return fatal_config("config_init_int_max_str_digits",
                                    "PYTHONINTMAXSTRDIGITS: invalid limit; must be >= 640 or 0 for unlimited.");
            o->int_max_str_digits = (int)n;
        }
    }
    for (int i = 0; i < o->n_xoptions; i++) {
        const char *x = o->xoptions[i];
        if (strcmp(x, "dev") == 0) o->dev_mode = true;
        else if (strcmp(x, "faulthandler") == 0) o->faulthandler = true;
        else if (strcmp(x, "warn_default_encoding") == 0) o->warn_default_encoding = 1;
        else if (strcmp(x, "utf8") == 0 || strcmp(x, "utf8=1") == 0) o->utf8_mode = 1;
        else if (strcmp(x, "utf8=0") == 0) o->utf8_mode = 0;
        else if (strncmp(x, "utf8=", 5) == 0) {
            fprintf(stderr, "Fatal Python error: preconfig_init_utf8_mode: invalid -X utf8 option value\n"
                            "Python runtime state: preinitializing\n\n");
            return -1;
        } else if (strncmp(x, "int_max_str_digits", 18) == 0 && (x[18] == 0 || x[18] == '=')) {
            char *end;
            long n = x[18] ? strtol(x + 19, &end, 10) : -1;
            if (!x[18] || !x[19] || *end || n < 0 || (n > 0 && n < 640) || n > INT32_MAX)
                return fatal_config("config_init_int_max_str_digits",
                                    "-X int_max_str_digits: invalid limit; must be >= 640 or 0 for unlimited.");
            o->int_max_str_digits = (int)n;
        }
    }
    return 0;
}

/* Parse argv[1..] as python3 does: options until -c/-m (which take the rest), a file, or "-".
 * 0, or an exit status (usage error, -h, -V). */
static int parse_python_options(int argc, char **argv, CliOptions *o, bool *done) {
    int i = 1, version = 0;
    *done = false;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || strcmp(a, "-") == 0) break;
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (strcmp(a, "--system-site-packages") == 0) {
            o->system_site_packages = true;
            continue;
        }
        if (strcmp(a, "--help") == 0) a = "-h";
        else if (strcmp(a, "--version") == 0) a = "-V";
        else if (a[1] == '-') return usage_error("unknown option %s", a);
        for (const char *p = a + 1; *p; p++) {
            char c = *p;
            if (c == 'c' || c == 'm' || c == 'W' || c == 'X') {
                /* the argument is the rest of this word, or the next word */
                const char *arg = p[1] ? p + 1 : (i + 1 < argc ? argv[++i] : NULL);
                if (!arg) {
                    char opt[3] = {'-', c, 0};
                    return usage_error("Argument expected for the %s option", opt);
                }
                if (c == 'c') o->command = arg;
                else if (c == 'm') o->module = arg;
                else if (c == 'W' && o->n_warnoptions < 64) o->warnoptions[o->n_warnoptions++] = arg;
                else if (c == 'X' && o->n_xoptions < 64) {
                    o->xoptions[o->n_xoptions++] = arg;
                    ember_xoption(o, arg);
                }
                if (c == 'c' || c == 'm') {
                    /* the rest is sys.argv[1:]; sys.argv[0] is '-c', or for -m the module's file
                     * (em_run_module sets it); a copy, sys.orig_argv keeps argv */
                    o->argc = argc - i;
                    o->argv = calloc((size_t)o->argc + 1, sizeof(char *));
                    if (!o->argv) return 1;
                    memcpy(o->argv, argv + i, sizeof(char *) * (size_t)o->argc);
                    o->argv[0] = c == 'c' ? "-c" : "-m";
                    goto options_done;
                }
                break;
            }
            switch (c) {
            case 'h': case '?':
                fputs(usage_line, stdout);
                fputs(usage_text, stdout);
                *done = true;
                return 0;
            case 'V': version++; break;
            case 'i': o->inspect = o->interactive_flag = true; break;
            case 'q': o->quiet = true; break;
            case 'u': o->unbuffered = true; break;
            case 'E': o->ignore_env = true; break;
            case 'I': o->ignore_env = o->isolated = o->no_user_site = o->safe_path = true; break;
            case 'O': o->optimize++; break;
            case 'b': o->bytes_warning++; break;
            case 'B': o->dont_write_bytecode = true; break;
            case 'd': o->debug++; break;
            case 'v': o->verbose++; break;
            case 's': o->no_user_site = true; break;
            case 'P': o->safe_path = true; break;
            case 'R': case 'S': break;
            default: {
                char opt[3] = {'-', c, 0};
                return usage_error("Unknown option: %s", opt);
            }
            }
        }
    }
    /* a file (or "-") and its arguments */
    if (i < argc) {
        o->file = argv[i];
        o->argc = argc - i;
        o->argv = argv + i;
    } else {
        static char *empty[] = {"", NULL};
        o->argc = 1;
        o->argv = empty;
    }
options_done:
    if (version) {
        *done = true;
        return print_version(version);
    }
    if (env_set(o, "PYTHONUNBUFFERED")) o->unbuffered = true;
    if (env_set(o, "PYTHONINSPECT")) o->inspect = true;
    if (flag_options(o) < 0) return 1;
    if (o->optimize)
        fprintf(stderr, "ember: note: -O is ignored (assert statements run and __debug__ stays True)\n");
    return 0;
}

/* ---- Ember's subcommands ---------------------------------------------------------------------------- */

/* ember run [--compile-all] [--backend NAME] [--compiled-autograd] FILE [args...] */
static int cmd_run(int argc, char **argv, CliOptions *o) {
    while (argc > 0 && strncmp(argv[0], "--", 2) == 0) {
        if (strcmp(argv[0], "--compile-all") == 0) o->compile_all = true;
        else if (strcmp(argv[0], "--compiled-autograd") == 0) o->compiled_autograd = true;
        else if (strcmp(argv[0], "--system-site-packages") == 0) o->system_site_packages = true;
        else if (strcmp(argv[0], "--backend") == 0 && argc > 1) o->backend = (argc--, *++argv);
        else return usage_error("unknown run option %s", argv[0]);
        argc--, argv++;
    }
    if (argc < 1) return usage_error("ember run: a script to run is expected", NULL);
    if (flag_options(o) < 0) return 1;   /* the PYTHON* variables python3 FILE would read */
    o->file = argv[0];
    o->argc = argc;
    o->argv = argv;
    return run(o);
}

/* ember compile [--report DIR] [--show LIST|all] [--decompile] [--dot DIR] [--backend NAME] FILE [args...] */
static int cmd_compile(int argc, char **argv, CliOptions *o) {
    const char *show = NULL, *dot_dir = NULL;
    bool decompile = false;
    while (argc > 0 && strncmp(argv[0], "--", 2) == 0) {
        if (strcmp(argv[0], "--report") == 0 && argc > 1) o->report = (argc--, *++argv);
        else if (strcmp(argv[0], "--show") == 0 && argc > 1) show = (argc--, *++argv);
        else if (strcmp(argv[0], "--decompile") == 0) decompile = true;
        else if (strcmp(argv[0], "--dot") == 0 && argc > 1) dot_dir = (argc--, *++argv);
        else if (strcmp(argv[0], "--backend") == 0 && argc > 1) o->backend = (argc--, *++argv);
        else if (strcmp(argv[0], "--system-site-packages") == 0) o->system_site_packages = true;
        else return usage_error("unknown compile option %s", argv[0]);
        argc--, argv++;
    }
    if (argc < 1) return usage_error("ember compile: a script to compile is expected", NULL);
    if (access(argv[0], R_OK) != 0) {
        fprintf(stderr, "ember: can't open file '%s': [Errno 2] No such file or directory\n", argv[0]);
        return 2;
    }
    if (!show && !o->report) show = "bytecode,graph_code,guards,side_effects,graph_breaks";
    o->compile_all = true;
    /* a report shows the runtime's plans: its frames run on the ember backend unless told */
    if (!o->backend) o->backend = o->report ? "ember" : "eager";
    o->file = argv[0];
    o->argc = argc;
    o->argv = argv;
    EmVM *vm = cli_vm_new(o);
    tracer_set_inspect(vm, show, decompile, dot_dir);
    return cli_finish(vm, em_run_file(vm, argv[0]));
}

static int cmd_dis(int argc, char **argv) {
    if (argc != 1) return usage_error("usage: ember dis FILE", NULL);
    FILE *f = fopen(argv[0], "rb");
    if (!f) {
        fprintf(stderr, "ember: can't open file '%s': [Errno 2] No such file or directory\n", argv[0]);
        return 2;
    }
    size_t len;
    char *src = read_stream(f, &len);
    fclose(f);
    EmVM *vm = em_vm_new();
    VM *v = vm;
    CodeObj *co = src ? v->compile(v, src, len, argv[0], 0) : NULL;
    free(src);
    if (!co) return cli_finish(vm, -1);
    vm_push_root(v, val_obj(co));   /* reprs of constants allocate while it is listed */
    dis_code(v, co, stdout, true);
    vm_pop_root(v);
    return cli_finish(vm, 0);
}

int main(int argc, char **argv) {
    /* as CPython's interpreter start-up: a write to a closed pipe or socket raises
     * BrokenPipeError instead of killing the process (a DataLoader parent writing to a worker
     * that had just died was killed by SIGPIPE, exit 141); subprocess children get the default
     * back (restore_signals) */
    signal(SIGPIPE, SIG_IGN);
#ifdef SIGXFSZ
    signal(SIGXFSZ, SIG_IGN);
#endif
    CliOptions o = {.orig_argc = argc, .orig_argv = argv, .int_max_str_digits = -1};
    const char *report = getenv("EMBER_REPORT");
    if (report && *report) o.report = report;
    if (argc > 1 && strcmp(argv[1], "run") == 0) return cmd_run(argc - 2, argv + 2, &o);
    if (argc > 1 && strcmp(argv[1], "compile") == 0) return cmd_compile(argc - 2, argv + 2, &o);
    if (argc > 1 && strcmp(argv[1], "dis") == 0) return cmd_dis(argc - 2, argv + 2);
    bool done;
    int status = parse_python_options(argc, argv, &o, &done);
    if (status || done) {
        if (o.command || o.module) free(o.argv);   /* a fatal option error after -c / -m */
        return status;
    }
    /* modules whose main is C: torchrun's launcher (src/dist/launch.c) starts worker processes */
    if (o.module && strcmp(o.module, "torch.distributed.run") == 0) status = dist_launch_main(o.argc - 1, o.argv + 1);
    else status = run(&o);
    if (o.command || o.module) free(o.argv);   /* parse_python_options' copy for -c / -m */
    return status;
}
