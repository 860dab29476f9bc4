@dec
class A:
