# struct (_struct): pack / unpack / calcsize / Struct / iter_unpack / unpack_from over every
# byte order, the range and type errors with CPython's messages.
import struct
for f,v in [('h',40000),('<h',40000),('B',300),('b',300),('H',-1),('<H',70000),('i',2**40),('<i',2**40),('I',-1),('<I',-1),('I',2**40),('<L',2**40),('<q',2**62),('Q',-1),('c',b'ab'),('?',3)]:
  try: print(f, struct.pack(f, v))
  except Exception as e: print(f, type(e).__name__, e)
print(struct.pack('x'), struct.pack('<hhl', 1, 2, 3), struct.pack('>hhl', 1, 2, 3), struct.pack('@bhiqd', 1, 2, 3, 4, 5.5))
print(struct.calcsize('@bhiqd'), struct.calcsize('<bhiqd'), struct.calcsize('3s4x2p'))
print(struct.unpack('<3s2p', b'abc\x05x'), struct.pack('e', 1.5), struct.unpack('e', b'\x00<'), struct.unpack('<f', struct.pack('<f', 0.1)))
print(struct.unpack('<hhl', struct.pack('<hhl', -1, 2, -3)), struct.unpack_from('<h', b'xx\x01\x00', 2))
print(list(struct.iter_unpack('<h', b'\x01\x00\x02\x00')))
s = struct.Struct('<ih'); print(s.size, s.format, s.pack(7, 8), s.unpack(s.pack(7, 8)))
for a in [('i', b'ab'),]:
  try: struct.unpack(*a)
  except Exception as e: print(e)
for args in [('ii', 1), ('z', 1), ('i', 1.0), ('3',), ('i', 'x')]:
  try: struct.pack(*args)
  except Exception as e: print(type(e).__name__, e)
print(struct.error, struct.error.__mro__)
# 64-bit unsigned codes and big ints
for fmt, v in [('Q', 2**64-1), ('<Q', 2**63), ('>N', 2**63+5), ('P', -1), ('P', 2**64-1), ('q', 2**63), ('Q', 2**64), ('Q', -1), ('I', 2**40), ('i', 2**100), ('d', 2**70), ('L', 2**64-1), ('b', 2**70)]:
    try:
        b = struct.pack(fmt, v); print(fmt, b.hex(), struct.unpack(fmt, b))
    except Exception as e:
        print(fmt, type(e).__name__, e)
