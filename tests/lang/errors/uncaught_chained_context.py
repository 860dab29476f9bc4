# An exception raised while handling another: "During handling of the above exception".
class Resource:
    def close(self):
        raise RuntimeError("close failed")
r = Resource()
try:
    [][1]
except IndexError:
    r.close()
