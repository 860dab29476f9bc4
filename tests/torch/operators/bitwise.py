# & | ^ ~ << >> and the bitwise_* functions on integer and bool tensors: ATen's bitwise kernels
# (the results stored back in each integer dtype), type promotion with Python numbers, in-place
# forms, the shifts' count masking in this build, and the errors for floating tensors.
import torch

a = torch.tensor([12, -7, 5, 0, 255, -128])
b = torch.tensor([10, 3, -1, 7, 15, 1])
for dt in (torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8):
    x, y = a.to(dt), b.to(dt)
    print(dt, (x & y).tolist(), (x | y).tolist(), (x ^ y).tolist(), (~x).tolist())
    print(" ", torch.bitwise_and(x, 6).tolist(), torch.bitwise_or(x, y).dtype, x.bitwise_xor(3).tolist(), torch.bitwise_not(x).tolist())
print((a & 3).tolist(), (3 | a).tolist(), (a ^ True).tolist(), (5 & torch.tensor([3], dtype=torch.uint8)).dtype)
print((torch.tensor([1, 2], dtype=torch.int8) & torch.tensor([3, 3], dtype=torch.int32)).dtype)
m = torch.tensor([True, False, True])
n = torch.tensor([True, True, False])
print(m & n, m | n, m ^ n, ~m, m & 1, (m | torch.tensor([0, 2, 0])).tolist(), torch.bitwise_not(m))
z = a.clone(); z &= 6; z |= torch.tensor(1); z ^= b; print(z.tolist())
z = a.clone(); z.bitwise_and_(b); z.bitwise_not_(); z.bitwise_or_(2); z.bitwise_xor_(1); print(z.tolist())

# shifts
s = torch.tensor([1, 2, 63, 64, 70, 0])
for dt in (torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8):
    x = a.to(dt)
    print(dt, (x << s.to(dt)).tolist(), (x >> s.to(dt)).tolist(), (x << 3).tolist(), (x >> 1).tolist())
print(torch.bitwise_left_shift(a, 2).tolist(), torch.bitwise_right_shift(a, torch.tensor(1)).tolist(), (1 << torch.tensor([0, 3, 10])).tolist(), (-64 >> torch.tensor([1, 3])).tolist())
print(a.bitwise_left_shift(1).tolist(), a.bitwise_right_shift(2).tolist())
z = a.clone(); z <<= 2; z >>= torch.tensor(1); print(z.tolist())
z = a.clone(); z.bitwise_left_shift_(3); print(z.tolist())

for f in (lambda: torch.tensor([1.5]) & 1, lambda: torch.tensor([1.5]) | torch.tensor([1]), lambda: ~torch.tensor([1.5]),
          lambda: torch.tensor([1.5]) << 2, lambda: torch.tensor([6.0]) >> 1, lambda: torch.bitwise_xor(torch.tensor([1.0]), torch.tensor([1.0])),
          lambda: torch.tensor([3]) & 1.5, lambda: torch.tensor([1, 2]) & torch.tensor([1, 2, 3])):
    try:
        print(f())
    except (RuntimeError, TypeError) as e:
        print(type(e).__name__ + ":", e)
