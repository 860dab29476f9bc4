é = 1
π = 3.14159
naïve = "café"
变量 = 'chinese'
Ωmega = é + π
def façade(ünter): return ünter
x = "é" + f"{é}" + 'ü'
