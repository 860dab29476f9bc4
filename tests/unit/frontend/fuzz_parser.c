/* fuzz_parser.c — libFuzzer entry point: lexer, parser, symbol tables and error rendering
 * on arbitrary bytes.  Built by meson when the compiler is clang and b_sanitize includes
 * fuzzer:
 *   CC=clang meson setup build-fuzz -Db_sanitize=address,undefined,fuzzer -Db_lundef=false
 *   ninja -C build-fuzz tests/unit/frontend/fuzz_parser
 *   build-fuzz/tests/unit/frontend/fuzz_parser tests/unit/frontend/ast */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "src/frontend/parser.h"
#include "src/frontend/symtable.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    AstArena *arena = ast_arena_new();
    ParseErrorList errs;
    parse_errors_init(&errs);
    AstModule *mod = NULL;
    parse_source((const char *)data, size, NULL, arena, &mod, &errs);
    if (mod) {
        sym_free(sym_build(mod, &errs));
        free(ast_dump(mod, true));
    }
    parse_errors_fill_text(&errs, (const char *)data, size);
    for (size_t i = 0; i < errs.count; i++) free(parse_format_error(&errs.items[i], "fuzz.py"));
    parse_errors_fini(&errs);
    ast_arena_free(arena);
    return 0;
}
