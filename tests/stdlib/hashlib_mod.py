# hashlib on _hashlib (OpenSSL) and _blake2: every guaranteed algorithm, shake, keyed/salted
# blake2, pbkdf2_hmac, hmac_new / hmac_digest, compare_digest, errors.
import _hashlib, _blake2, _sha512
for n in ['md5','sha1','sha224','sha256','sha384','sha512','sha3_256']:
    h = _hashlib.new(n, b'abc'); h.update(b'def'); print(n, h.name, h.digest_size, h.block_size, h.hexdigest())
x = _hashlib.openssl_shake_128(b'abc'); print(x.hexdigest(10), x.digest(4))
print(_blake2.blake2b(b'abc').hexdigest())
print(_blake2.blake2s(b'abc').hexdigest())
print(_blake2.blake2b(b'abc', digest_size=16, key=b'k', salt=b's', person=b'p').hexdigest())
print(_blake2.blake2s(b'abc'*100, digest_size=20, key=b'key').hexdigest())
b = _blake2.blake2b(); b.update(b'x'*300); c = b.copy(); c.update(b'y'); print(b.hexdigest()[:16], c.hexdigest()[:16], b.name, b.block_size)
print(_sha512.sha512(b'abc').hexdigest()[:32])
print(_hashlib.pbkdf2_hmac('sha256', b'pw', b'salt', 1000).hex() if hasattr(bytes, 'hex') else _hashlib.pbkdf2_hmac('sha256', b'pw', b'salt', 1000))
m = _hashlib.hmac_new(b'key', b'msg', digestmod='sha256'); print(m.name, m.hexdigest(), _hashlib.hmac_digest(b'key', b'msg', 'md5'))
print(_hashlib.compare_digest(b'a', b'a'), _hashlib.compare_digest('ab', 'ac'), sorted(_hashlib.openssl_md_meth_names)[:5])
try: _hashlib.new('nope')
except ValueError as e: print(type(e).__name__, e)
try: _hashlib.new('md5', 'str')
except TypeError as e: print(e)
import hashlib
print(hashlib.sha256(b'abc').hexdigest(), hashlib.blake2b(b'a', digest_size=8).hexdigest(), sorted(hashlib.algorithms_guaranteed))
try: hashlib.new('nope')
except ValueError as e: print(e)
