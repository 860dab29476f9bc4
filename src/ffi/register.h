/* src/ffi/register.h — wiring of the FFI layer into a VM: the `ctypes` package (native `_ctypes`
 * plus the library modules ctypes and ctypes.util) and `torch.ops` custom operators loaded
 * from shared libraries.  Called by the embedding layer (src/embed) when it creates a VM. */
#ifndef EMBER_FFI_REGISTER_H
#define EMBER_FFI_REGISTER_H

#include "vm/vm.h"

void ffi_register(VM *vm);

#endif
