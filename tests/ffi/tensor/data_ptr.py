# C reads and writes tensor memory through tensor.data_ptr(): a float pointer cast from the
# address, libc memcpy/memset on tensor storage, views (data_ptr of a slice is offset into the
# same storage), a qsort of tensor data in place, and a from_address array over a tensor.
import ctypes
import ctypes.util
import torch
from ctypes import POINTER, CFUNCTYPE, c_float, c_int64, c_int, sizeof, cast

libc = ctypes.CDLL(ctypes.util.find_library("c"))
libc.memcpy.restype = ctypes.c_void_p
libc.memcpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
libc.memset.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t]

t = torch.arange(6, dtype=torch.float32)
p = cast(t.data_ptr(), POINTER(c_float))
print(p[0], p[5], [p[i] for i in range(6)])
p[2] = 42.5
print(t)

src = torch.tensor([1.5, -2.0, 3.25])
dst = torch.zeros(3)
libc.memcpy(dst.data_ptr(), src.data_ptr(), 3 * sizeof(c_float))
print(dst)
libc.memset(dst.data_ptr(), 0, sizeof(c_float))
print(dst)

m = torch.arange(12, dtype=torch.float32).reshape(3, 4)
row = m[1]
print(row.data_ptr() - m.data_ptr() == 4 * sizeof(c_float))
rp = cast(row.data_ptr(), POINTER(c_float))
rp[3] = -1.0
print(m)

ints = torch.tensor([5, 3, 9, 1, 7])
CMP = CFUNCTYPE(c_int, POINTER(c_int64), POINTER(c_int64))
libc.qsort.restype = None
libc.qsort(ctypes.c_void_p(ints.data_ptr()), ints.numel(), ints.element_size(), CMP(lambda a, b: a[0] - b[0]))
print(ints)

view = (c_float * 4).from_address(m.data_ptr())
print(list(view))
view[0] = 100.0
print(m[0])
