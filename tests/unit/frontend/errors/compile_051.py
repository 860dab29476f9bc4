class C:
    await x
