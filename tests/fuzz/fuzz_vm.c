/* tests/fuzz/fuzz_vm.c — libFuzzer target: the VM running the programs the fuzzer makes (its seed
 * corpus is tests/lang's programs).  Each input runs as __main__ in a new VM, its output thrown
 * away, with the fuzz build's budget of loop iterations (vm/interp.c) so an endless loop raises;
 * modules that reach outside the process (files, processes, sockets) are made unimportable.  An
 * exception is a normal outcome; a crash, a sanitizer report or a leak is a finding.
 *
 *   CC=clang meson setup build-fuzz -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false
 *   ninja -C build-fuzz tests/fuzz/fuzz_vm
 *   ASAN_OPTIONS=allocator_may_return_null=1 build-fuzz/tests/fuzz/fuzz_vm -max_total_time=1800 \
 *       -rss_limit_mb=4096 -timeout=30 CORPUS SEEDS */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ember/ember.h"
#include "vm/vm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

extern int64_t vm_fuzz_fuel;

static const char sandbox[] =
    "import sys\n"
    "for _m in ('os', 'posix', 'nt', 'io', '_io', 'subprocess', 'shutil', 'socket', 'ctypes', '_ctypes', 'signal',\n"
    "           '_signal', 'tempfile', 'pathlib', 'glob', 'torch.distributed', '_thread', 'threading', 'gc',\n"
    "           'importlib', 'zipimport', 'runpy', 'pdb', 'code', 'atexit'):\n"
    "    sys.modules[_m] = None\n"
    "del _m\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *src = malloc(size + 1);
    if (!src) return 0;
    memcpy(src, data, size);
    src[size] = 0;
    if (strlen(src) != size) {   /* NUL bytes: the frontend target covers those */
        free(src);
        return 0;
    }
    EmVM *vm = em_vm_new();
    FILE *sink = fopen("/dev/null", "w");
    vm->out = sink;
    vm->err = sink;
    vm_fuzz_fuel = -1;
    if (em_run_string(vm, sandbox, "<sandbox>") == 0) {
        vm_fuzz_fuel = 20000;
        em_run_string(vm, src, "fuzz.py");
        vm_fuzz_fuel = -1;
    }
    em_clear_error(vm);
    em_vm_free(vm);
    fclose(sink);
    free(src);
    return 0;
}
