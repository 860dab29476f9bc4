# bytes(x) uses type(x).__bytes__ before iterating x (it used to iterate, so an object with
# both __bytes__ and __iter__ converted wrongly, and one with only __bytes__ was rejected).
class Packet:
    def __init__(self, payload):
        self.payload = payload

    def __bytes__(self):
        return b"<" + self.payload + b">"

    def __iter__(self):
        return iter([1, 2, 3])


class Bad:
    def __bytes__(self):
        return "not bytes"


print(bytes(Packet(b"abc")))
print(list(Packet(b"x")), bytes([1, 2, 3]))
try:
    bytes(Bad())
except TypeError as e:
    print("TypeError:", e)
