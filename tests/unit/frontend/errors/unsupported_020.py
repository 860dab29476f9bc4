def ｆ(ｘ):
    return ｘ
