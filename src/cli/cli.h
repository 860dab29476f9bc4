/* src/cli/cli.h — what the `ember` command's files share: the parsed command line and the VM
 * it sets up (main.c), the interactive loop (repl.c). */
#ifndef EMBER_CLI_H
#define EMBER_CLI_H

#include <stdbool.h>

#include "ember/ember.h"

/* The command line, after CPython's options and Ember's run options are parsed. */
typedef struct CliOptions {
    const char *command;          /* -c CMD */
    const char *module;           /* -m MOD */
    const char *file;             /* FILE, or "-" for stdin; NULL: none */
    int argc;                     /* sys.argv */
    char **argv;
    bool inspect;                 /* -i: the REPL after the script */
    bool quiet;                   /* -q: no banner */
    bool unbuffered;              /* -u */
    bool ignore_env;              /* -E / -I: PYTHON* variables are not read */
    int optimize;                 /* -O / -OO: counted, then ignored */
    /* sys.flags only (vm/mod_sys.h): -d -v -b counted, -B -s -I -P, -X dev / utf8 / ... */
    int debug, verbose, bytes_warning, utf8_mode, warn_default_encoding, int_max_str_digits;
    bool dont_write_bytecode, no_user_site, isolated, safe_path, dev_mode, interactive_flag;
    bool faulthandler;   /* -X faulthandler, PYTHONFAULTHANDLER (and -X dev) */
    const char *xoptions[64];     /* -X opt[=value], in order */
    int n_xoptions;
    const char *warnoptions[64];  /* -W arg */
    int n_warnoptions;
    int orig_argc;                /* sys.orig_argv */
    char **orig_argv;
    /* Ember's run options (ember run --..., or -X compile_all / backend= / compiled_autograd / report=) */
    bool compile_all, compiled_autograd;
    const char *backend, *report;
    /* --system-site-packages (or -X system_site_packages): the pure-Python packages installed
     * for the system's CPython 3.11 are importable (its site directories end sys.path) */
    bool system_site_packages;
} CliOptions;

/* A VM set up for o: compile options, report, sys.argv/_xoptions/warnoptions/orig_argv. */
EmVM *cli_vm_new(const CliOptions *o);
/* Finish a run: print a pending exception as CPython does, write the compile report, free the
 * VM, and return the exit status (an uncaught KeyboardInterrupt ends the process by SIGINT). */
int cli_finish(EmVM *vm, int rc);

/* repl.c: the interactive loop on stdin over __main__: 0 at end of input (Ctrl-D), or -1 with
 * the SystemExit that ended it pending (every other exception is printed and the loop goes on). */
int cli_repl(EmVM *vm, const CliOptions *o);

#endif
