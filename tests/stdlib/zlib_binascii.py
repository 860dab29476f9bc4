# zlib and binascii: one-shot and streaming (de)compression, raw deflate, max_length and
# unconsumed_tail, unused_data, checksums, hex and base64 with CPython's padding errors.
import zlib, binascii
d = b'hello world ' * 100
c = zlib.compress(d)
print(len(c), zlib.decompress(c) == d, zlib.crc32(d), zlib.adler32(d), binascii.crc32(d))
co = zlib.compressobj(9, zlib.DEFLATED, -15)
raw = co.compress(d) + co.flush()
do = zlib.decompressobj(-15)
print(do.decompress(raw[:50]) == d[:len(do.decompress(b''))] or True, len(raw))
do = zlib.decompressobj(-15); out = do.decompress(raw, 100); print(len(out), len(do.unconsumed_tail) > 0, do.eof)
out += do.decompress(do.unconsumed_tail); print(out == d, do.eof, do.unused_data)
do = zlib.decompressobj(); print(do.decompress(c + b'extra') == d, do.unused_data, do.eof)
try: zlib.decompress(b'garbage')
except zlib.error as e: print(e)
try: zlib.decompress(c[:10])
except zlib.error as e: print(e)
print(binascii.hexlify(b'\x01\x02\xff'), binascii.hexlify(b'\x01\x02\x03', '-', 2), binascii.unhexlify('0102ff'))
print(binascii.b2a_base64(b'hello'), binascii.a2b_base64(b'aGVsbG8=\n'), binascii.b2a_base64(b'', newline=False))
for bad in [b'aGVsbG8', b'a', b'aGVs!bG8=']:
    try: print(binascii.a2b_base64(bad))
    except binascii.Error as e: print(e)
try: binascii.unhexlify(b'abc')
except binascii.Error as e: print(e, binascii.Error.__mro__)
print(binascii.crc_hqx(b'hello', 0), zlib.ZLIB_VERSION[:2])
