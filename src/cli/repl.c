/* src/cli/repl.c — the interactive prompt, as CPython's: statements read from stdin with line
 * editing and history (libedit's readline interface, when built with it), run in __main__;
 * compound statements continue on sys.ps2 lines until complete (CPython's codeop rule: compile
 * in 'single' mode with PyCF_DONT_IMPLY_DEDENT | PyCF_ALLOW_INCOMPLETE_INPUT); an expression's
 * value is shown by sys.displayhook, which also sets `_`; an exception prints its traceback and
 * the loop goes on; SystemExit and end of input (Ctrl-D) leave; Ctrl-C at the prompt discards
 * the statement being typed ("KeyboardInterrupt").
 *
 * Reading uses readline's callback interface under select(), as CPython's readline module does,
 * so a SIGINT only interrupts the wait: the terminal is restored by libedit, not left raw. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <unistd.h>

#ifdef EMBER_HAVE_LIBEDIT
#include <dlfcn.h>
#include <editline/readline.h>
#endif

#include "src/cli/cli.h"
#include "vm/dict.h"
#include "vm/exc.h"
#include "vm/gc.h"
#include "vm/import.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/vm.h"

/* compile()'s flags (CPython's PyCF_* values) */
enum { CF_DONT_IMPLY_DEDENT = 0x200, CF_ALLOW_INCOMPLETE_INPUT = 0x4000 };

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig) {
    (void)sig;
    interrupted = 1;
}

/* ---- reading a line --------------------------------------------------------------------------------- */

#ifdef EMBER_HAVE_LIBEDIT
/* libedit is loaded when an interactive prompt starts, not linked: it and the three libraries
 * it pulls in (tinfo, bsd, md) were ~0.9 ms and 32 page faults of every start-up, for the one
 * command that reads a terminal.  The members have libedit's own names and types.  When the
 * library cannot be loaded the prompt reads plain lines, as a build without libedit does. */
static struct {
    typeof(rl_callback_handler_install) *rl_callback_handler_install;
    typeof(rl_callback_handler_remove) *rl_callback_handler_remove;
    typeof(rl_callback_read_char) *rl_callback_read_char;
    typeof(add_history) *add_history;
    typeof(using_history) *using_history;
    typeof(read_history) *read_history;
    typeof(write_history) *write_history;
    typeof(rl_bind_key) *rl_bind_key;
    typeof(rl_insert) *rl_insert;
} el;
#define EL(name) (el.name)

static bool libedit_load(void) {
    void *h = dlopen("libedit.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!h) h = dlopen("libedit.so", RTLD_NOW | RTLD_LOCAL);
    if (!h) return false;
#define EL_SYM(name) ((*(void **)&el.name = dlsym(h, #name)) != NULL)
    if (EL_SYM(rl_callback_handler_install) && EL_SYM(rl_callback_handler_remove) && EL_SYM(rl_callback_read_char) &&
        EL_SYM(add_history) && EL_SYM(using_history) && EL_SYM(read_history) && EL_SYM(write_history) &&
        EL_SYM(rl_bind_key) && EL_SYM(rl_insert))
        return true;
#undef EL_SYM
    dlclose(h);
    return false;
}

static char *line_result;
static bool line_done;

static void on_line(char *line) {
    line_result = line;
    line_done = true;
    EL(rl_callback_handler_remove)();
}
#endif

typedef enum { LINE_OK, LINE_EOF, LINE_INTERRUPT } LineStatus;

/* One line (malloc'd, without its newline) after showing prompt. */
static LineStatus read_line(const char *prompt, bool edit, char **out) {
    *out = NULL;
    interrupted = 0;
#ifdef EMBER_HAVE_LIBEDIT
    if (edit) {
        line_done = false;
        line_result = NULL;
        EL(rl_callback_handler_install)(prompt, on_line);
        while (!line_done) {
            fd_set fds;
            FD_ZERO(&fds);
            FD_SET(STDIN_FILENO, &fds);
            int r = select(STDIN_FILENO + 1, &fds, NULL, NULL, NULL);
            if (interrupted) {
                EL(rl_callback_handler_remove)();
                return LINE_INTERRUPT;
            }
            if (r < 0 && errno == EINTR) continue;
            if (r < 0) break;
            EL(rl_callback_read_char)();
        }
        if (!line_result) return LINE_EOF;
        if (*line_result) EL(add_history)(line_result);
        *out = line_result;
        return LINE_OK;
    }
#else
    (void)edit;
#endif
    /* as CPython's PyOS_StdioReadline: without line editing the prompt goes to stderr */
    fflush(stdout);
    fputs(prompt, stderr);
    fflush(stderr);
    size_t cap = 0;
    ssize_t n;
    errno = 0;
    while ((n = getline(out, &cap, stdin)) < 0 && errno == EINTR && !interrupted) clearerr(stdin);
    if (interrupted) {
        clearerr(stdin);
        return LINE_INTERRUPT;
    }
    if (n < 0) {
        free(*out);
        *out = NULL;
        return LINE_EOF;
    }
    if (n > 0 && (*out)[n - 1] == '\n') (*out)[n - 1] = 0;
    return LINE_OK;
}

/* ---- the session ----------------------------------------------------------------------------------- */

static ModuleObj *sys_module(VM *vm) {
    Value s = dict_get_c(vm, vm->modules, "sys");
    return val_is_type(vm, s, vm->t_module) ? (ModuleObj *)s.as.o : NULL;
}

/* str(sys.ps1) / str(sys.ps2), set to CPython's defaults when the REPL starts */
static char *prompt_text(VM *vm, const char *name, const char *dflt) {
    ModuleObj *sys = sys_module(vm);
    Value p = sys ? dict_get_c(vm, sys->dict, name) : val_null();
    if (val_is_null(p)) {
        StrObj *d = str_from_c(vm, dflt);
        if (sys && d && dict_set_c(vm, sys->dict, name, val_obj(d)) < 0) vm_clear_exc(vm);
        return strdup(dflt);
    }
    Value s = vm_str(vm, p);
    if (val_is_null(s)) {
        vm_clear_exc(vm);
        return strdup(dflt);
    }
    return strdup(AS_STR(s)->data);
}

/* exit() and quit(), which CPython's site module installs from _sitebuiltins */
static void install_quitters(VM *vm) {
    if (!val_is_null(dict_get_c(vm, vm->builtins, "exit"))) return;
    Value sb = vm_import_module(vm, "_sitebuiltins");
    Value q = val_is_null(sb) ? val_null() : vm_getattr_opt(vm, sb, vm_intern_str(vm, "Quitter"));
    /* every value made here stays rooted until the next allocation cannot free it (the call's
     * instance allocation collected an unrooted argument: GC stress + ASan) */
    vm_push_root(vm, val_is_null(q) ? val_none() : q);
    for (int i = 0; i < 2 && !val_is_null(q); i++) {
        const char *name = i ? "quit" : "exit";
        StrObj *n = str_from_c(vm, name);
        vm_push_root(vm, n ? val_obj(n) : val_none());
        StrObj *eof = n ? str_from_c(vm, "Ctrl-D (i.e. EOF)") : NULL;
        vm_push_root(vm, eof ? val_obj(eof) : val_none());
        Value obj = n && eof ? vm_call2(vm, q, val_obj(n), val_obj(eof)) : val_null();
        vm_pop_roots(vm, 2);
        if (!val_is_null(obj)) {
            vm_push_root(vm, obj);
            int rc = dict_set_c(vm, vm->builtins, name, obj);
            vm_pop_root(vm);
            if (rc < 0) break;
        }
    }
    vm_pop_root(vm);
    vm_clear_exc(vm);   /* without CPython's stdlib there are none, as in `python3 -S` */
}

/* builtins.compile(src, "<stdin>", "single", flags): a code object, or VAL_NULL + exception */
static Value compile_single(VM *vm, const char *src, int flags) {
    Value fn = dict_get_c(vm, vm->builtins, "compile");
    if (val_is_null(fn)) return vm_raise(vm, vm->e_RuntimeError, "the interactive prompt needs the compile() builtin");
    Value args[4];
    StrObj *s = str_from_c(vm, src);
    if (!s) return val_null();
    vm_push_root(vm, val_obj(s));
    StrObj *file = str_from_c(vm, "<stdin>");
    vm_push_root(vm, file ? val_obj(file) : val_none());
    StrObj *mode = str_from_c(vm, "single");
    vm_push_root(vm, mode ? val_obj(mode) : val_none());
    Value r = val_null();
    if (file && mode) {
        args[0] = val_obj(s), args[1] = val_obj(file), args[2] = val_obj(mode), args[3] = val_int(flags);
        r = vm_call(vm, fn, 4, args, NULL);
    }
    vm_pop_roots(vm, 3);
    return r;
}

static bool syntax_error_pending(VM *vm) {
    return val_is_obj(vm->exc) && vm_isinstance_type(vm, vm->exc, vm->e_SyntaxError);
}

/* CPython's codeop._maybe_compile: the code of a complete statement; VAL_NULL with no exception
 * when more lines are needed; VAL_NULL with the exception (a syntax error) otherwise. */
static Value compile_command(VM *vm, const char *src) {
    bool blank = true;
    for (const char *p = src; *p && blank;) {
        while (*p == ' ' || *p == '\t') p++;
        if (*p && *p != '\n' && *p != '#') blank = false;
        p = strchr(p, '\n');
        p = p ? p + 1 : "";
    }
    if (blank) src = "pass";
    const int flags = CF_DONT_IMPLY_DEDENT | CF_ALLOW_INCOMPLETE_INPUT;
    Value co = compile_single(vm, src, flags);
    if (!val_is_null(co) || !syntax_error_pending(vm)) return co;
    vm_clear_exc(vm);
    size_t n = strlen(src);
    char *more = malloc(n + 2);
    memcpy(more, src, n);
    memcpy(more + n, "\n", 2);
    co = compile_single(vm, more, flags);
    free(more);
    if (!val_is_null(co)) return val_null();   /* complete only with one more line */
    if (syntax_error_pending(vm)) {
        Value msg = vm_str(vm, vm->exc);
        bool incomplete = !val_is_null(msg) && strstr(AS_STR(msg)->data, "incomplete input");
        vm_clear_exc(vm);
        if (incomplete) return val_null();
    }
    vm_clear_exc(vm);
    return compile_single(vm, src, CF_DONT_IMPLY_DEDENT);   /* the real error */
}

static DictObj *main_dict(EmVM *vm) {
    VM *v = vm;
    Value m = dict_get_c(v, v->modules, "__main__");
    if (!val_is_type(v, m, v->t_module)) {
        /* creates __main__ and sys.path[0] = '' (no source is kept for "<stdin>": tracebacks of
         * entries show no line, as CPython's prompt) */
        if (em_run_string(vm, "", "<string>") < 0) return NULL;
        m = dict_get_c(v, v->modules, "__main__");
    }
    return val_is_type(v, m, v->t_module) ? ((ModuleObj *)m.as.o)->dict : NULL;
}

static void history_load(const char **path_out) {
    *path_out = NULL;
#ifdef EMBER_HAVE_LIBEDIT
    static char path[4096];
    const char *env = getenv("EMBER_HISTFILE");
    if (env && !*env) return;
    if (env) snprintf(path, sizeof path, "%s", env);
    else if (getenv("HOME")) snprintf(path, sizeof path, "%s/.ember_history", getenv("HOME"));
    else return;
    EL(using_history)();
    EL(read_history)(path);
    *path_out = path;
#endif
}

static void history_save(const char *path) {
#ifdef EMBER_HAVE_LIBEDIT
    if (path) EL(write_history)(path);
#else
    (void)path;
#endif
}

int cli_repl(EmVM *vm, const CliOptions *o) {
    VM *v = vm;
    DictObj *globals = main_dict(vm);
    if (!globals) return -1;
    bool tty = isatty(STDIN_FILENO);
#ifdef EMBER_HAVE_LIBEDIT
    bool edit = tty && libedit_load();
#else
    bool edit = false;
#endif
    if (!o->quiet)   /* on stderr, also for a piped stdin under -i, as CPython's banner */
        fprintf(stderr, "Ember %s (Python 3.11) on linux\nType \"exit()\" or Ctrl-D to leave.\n", EMBER_VERSION);
    install_quitters(v);
#ifdef EMBER_HAVE_LIBEDIT
    if (edit) EL(rl_bind_key)('\t', EL(rl_insert));   /* Tab indents, as CPython's prompt without completion */
#endif
    const char *histfile = NULL;
    if (edit) history_load(&histfile);
    struct sigaction sa = {.sa_handler = on_sigint}, old;
    sigemptyset(&sa.sa_mask);   /* no SA_RESTART: the wait for input returns */
    char *buf = NULL;
    size_t len = 0;
    int rc = 0;
    for (;;) {
        char *prompt = prompt_text(v, buf ? "ps2" : "ps1", buf ? "... " : ">>> ");
        char *line;
        sigaction(SIGINT, &sa, &old);
        LineStatus st = read_line(prompt, edit, &line);
        sigaction(SIGINT, &old, NULL);
        free(prompt);
        if (st == LINE_INTERRUPT) {
            fputs("\nKeyboardInterrupt\n", stderr);
            free(buf);
            buf = NULL;
            len = 0;
            continue;
        }
        if (st == LINE_EOF) {
            fputc('\n', edit ? stdout : stderr);   /* CPython ends the session's last prompt line */
            break;
        }
        size_t n = strlen(line);
        buf = realloc(buf, len + n + 2);
        if (len) buf[len++] = '\n';
        memcpy(buf + len, line, n + 1);
        len += n;
        free(line);
        Value co = compile_command(v, buf);
        if (val_is_null(co) && val_is_null(v->exc)) continue;   /* more lines */
        free(buf);
        buf = NULL;
        len = 0;
        if (!val_is_null(co)) {
            vm_push_root(v, co);
            Value r = vm_run_code(v, (CodeObj *)co.as.o, globals, globals);
            vm_pop_root(v);
            if (!val_is_null(r)) continue;
        }
        if (val_is_obj(v->exc) && vm_isinstance_type(v, v->exc, v->e_SystemExit)) {
            rc = -1;
            break;
        }
        em_print_error(vm);
    }
    free(buf);
    fflush(stdout);
    history_save(histfile);
    return rc;
}
