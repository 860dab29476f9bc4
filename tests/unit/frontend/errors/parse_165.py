class A[T]: pass
