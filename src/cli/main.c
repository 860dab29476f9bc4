/* src/cli/main.c — the `ember` command.
 *
 *   ember run [--compile-all] [--backend eager|ember] [--compiled-autograd] FILE [args...]
 *                                run a script as __main__ (sys.argv = [FILE, args...]);
 *                                --compile-all compiles every script function (as if each
 *                                were torch.compile'd), for differential testing;
 *                                --compiled-autograd runs every backward as a compiled
 *                                autograd graph (as if the script ran inside
 *                                torch._dynamo.compiled_autograd.enable(lambda gm: gm))
 *   ember compile [--show LIST|all] [--decompile] [--dot DIR] [--backend NAME] FILE [args...]
 *                                run with every script function compiled and print, per compiled
 *                                frame, the artifacts LIST names (bytecode, graph_code, guards,
 *                                side_effects, graph_breaks, recompiles, hooks, exec_order), the
 *                                residual code as Python source, and the graphs as DOT files
 *   ember -c CODE [args...]      run source text (sys.argv = ['-c', args...])
 *   ember dis FILE               print the bytecode of every code object in CPython dis layout
 *   ember FILE.py [args...]      the same as `ember run FILE.py` (python3 FILE)
 *   ember -m torch.distributed.run [torchrun options] FILE [args...]
 *                                torchrun: start the workers of a distributed job (src/dist/launch.c)
 *
 * An uncaught exception prints a CPython-format traceback on stderr and exits 1; a syntax error
 * prints file:line:col, the line and a caret, and exits 1. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ember/ember.h"
#include "src/dist/launch.h"
#include "src/runtime/ca_vm.h"
#include "src/tracer/tracer_api.h"
#include "vm/dis.h"
#include "vm/gc.h"
#include "vm/vm.h"

static int usage(void) {
    fprintf(stderr,
            "usage: ember run [--compile-all] [--backend NAME] [--compiled-autograd] FILE [args...]\n"
            "       ember compile [--show LIST|all] [--decompile] [--dot DIR] [--backend NAME] FILE [args...]\n"
            "       ember -c CODE [args...]\n"
            "       ember dis FILE\n");
    return 2;
}

static char *read_all(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc(n > 0 ? (size_t)n + 1 : 1);
    size_t got = n > 0 ? fread(buf, 1, (size_t)n, f) : 0;
    fclose(f);
    buf[got] = 0;
    *len = got;
    return buf;
}

static int finish(EmVM *vm, int rc) {
    int status = 0;
    if (rc < 0) {
        status = em_exit_status(vm);
        em_print_error(vm);
    }
    fflush(stdout);
    const char *report = tracer_write_report(vm);
    if (report) fprintf(stderr, "ember: compile report written: open %s/index.html\n", report);
    em_vm_free(vm);
    return status;
}

static int cmd_run(int argc, char **argv) {
    bool compile_all = false, compiled_autograd = false;
    const char *backend = NULL;
    while (argc > 0 && argv[0][0] == '-' && argv[0][1] == '-') {
        if (strcmp(argv[0], "--compile-all") == 0) {
            compile_all = true;
        } else if (strcmp(argv[0], "--compiled-autograd") == 0) {
            compiled_autograd = true;
        } else if (strcmp(argv[0], "--backend") == 0 && argc > 1) {
            backend = argv[1];
            argc--, argv++;
        } else {
            return usage();
        }
        argc--, argv++;
    }
    if (argc < 1) return usage();
    EmVM *vm = em_vm_new();
    if (compile_all) tracer_set_compile_all(vm, backend ? backend : "eager");
    if (compiled_autograd) rt_ca_enable_for_run(vm);
    const char *report = getenv("EMBER_REPORT");
    if (report && *report) tracer_set_report(vm, report, argv[0], "EMBER_REPORT ember run");
    em_set_argv(vm, argc, argv);
    return finish(vm, em_run_file(vm, argv[0]));
}

static int cmd_compile(int argc, char **argv) {
    const char *show = NULL;
    const char *backend = NULL, *dot_dir = NULL, *report = NULL;
    bool decompile = false;
    while (argc > 0 && argv[0][0] == '-' && argv[0][1] == '-') {
        if (strcmp(argv[0], "--report") == 0 && argc > 1) {
            report = argv[1];
            argc--, argv++;
        } else if (strcmp(argv[0], "--show") == 0 && argc > 1) {
            show = argv[1];
            argc--, argv++;
        } else if (strcmp(argv[0], "--decompile") == 0) {
            decompile = true;
        } else if (strcmp(argv[0], "--dot") == 0 && argc > 1) {
            dot_dir = argv[1];
            argc--, argv++;
        } else if (strcmp(argv[0], "--backend") == 0 && argc > 1) {
            backend = argv[1];
            argc--, argv++;
        } else {
            return usage();
        }
        argc--, argv++;
    }
    if (argc < 1) return usage();
    if (!show && !report) show = "bytecode,graph_code,guards,side_effects,graph_breaks";
    EmVM *vm = em_vm_new();
    /* a report shows the runtime's plans: its frames run on the ember backend unless told */
    tracer_set_compile_all(vm, backend ? backend : report ? "ember" : "eager");
    tracer_set_inspect(vm, show, decompile, dot_dir);
    if (report) tracer_set_report(vm, report, argv[0], "ember compile --report");
    em_set_argv(vm, argc, argv);
    return finish(vm, em_run_file(vm, argv[0]));
}

static int cmd_c(int argc, char **argv) {
    if (argc < 1) return usage();
    EmVM *vm = em_vm_new();
    char *saved = argv[0];
    argv[0] = "-c";
    em_set_argv(vm, argc, argv);
    argv[0] = saved;
    return finish(vm, em_run_string(vm, saved, "<string>"));
}

static int cmd_dis(int argc, char **argv) {
    if (argc != 1) return usage();
    size_t len;
    char *src = read_all(argv[0], &len);
    if (!src) {
        fprintf(stderr, "ember: can't open file '%s'\n", argv[0]);
        return 1;
    }
    EmVM *vm = em_vm_new();
    CodeObj *co = vm->compile(vm, src, len, argv[0], 0);
    free(src);
    if (!co) return finish(vm, -1);
    vm_push_root(vm, val_obj(co));   /* reprs of constants allocate while it is listed */
    dis_code(vm, co, stdout, true);
    vm_pop_root(vm);
    return finish(vm, 0);
}

int main(int argc, char **argv) {
    if (argc < 2) return usage();
    const char *cmd = argv[1];
    if (strcmp(cmd, "run") == 0) return cmd_run(argc - 2, argv + 2);
    if (strcmp(cmd, "-c") == 0) return cmd_c(argc - 2, argv + 2);
    if (strcmp(cmd, "dis") == 0) return cmd_dis(argc - 2, argv + 2);
    if (strcmp(cmd, "compile") == 0) return cmd_compile(argc - 2, argv + 2);
    /* torchrun, until `ember -m MODULE` runs any module (the launcher is C, src/dist/launch.c) */
    if (strcmp(cmd, "-m") == 0 && argc > 2 && strcmp(argv[2], "torch.distributed.run") == 0)
        return dist_launch_main(argc - 3, argv + 3);
    /* `ember FILE [args]` as `python3 FILE` (what `mpirun -np N ember script.py` runs) */
    if (cmd[0] != '-' && strlen(cmd) > 3 && strcmp(cmd + strlen(cmd) - 3, ".py") == 0)
        return cmd_run(argc - 1, argv + 1);
    if (strcmp(cmd, "--version") == 0) {
        printf("ember 0.1.0\n");
        return 0;
    }
    return usage();
}
