# super() with no arguments, in __init__, methods, classmethods, and cooperative MRO chains.
class Base:
    def __init__(self, name):
        self.name = name
        print("Base.__init__", name)
    def greet(self):
        return "Base greets " + self.name
    @classmethod
    def make(cls):
        return cls.__name__ + " made"
class Mid(Base):
    def __init__(self, name):
        print("Mid.__init__")
        super().__init__(name.upper())
    def greet(self):
        return "Mid+" + super().greet()
    @classmethod
    def make(cls):
        return "Mid:" + super().make()
class Leaf(Mid):
    def greet(self):
        return "Leaf+" + super().greet()
l = Leaf("x")
print(l.greet(), Leaf.make())
class A:
    def f(self): return ["A"]
class B(A):
    def f(self): return ["B"] + super().f()
class C(A):
    def f(self): return ["C"] + super().f()
class D(B, C):
    def f(self): return ["D"] + super().f()
print(D().f())
print(super(D, D()).f(), super(B, D()).f())
class E(Base):
    def __init__(self):
        super(E, self).__init__("explicit")
E()
class WithLambda(Base):
    def __init__(self):
        init = lambda: super(WithLambda, self).__init__("via lambda")
        init()
WithLambda()
