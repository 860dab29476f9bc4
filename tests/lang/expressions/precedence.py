# Operator precedence and associativity.
print(2 + 3 * 4, (2 + 3) * 4, 2 ** 3 ** 2, (2 ** 3) ** 2, -2 ** 2, (-2) ** 2)
print(10 - 4 - 3, 100 / 10 / 5, 2 * 3 % 4, 1 + 2 << 3, 1 << 2 + 3, 6 & 3 | 8, 1 | 6 & 3)
print(5 ^ 3 & 1, not 1 == 2, not (1 and 0), 1 < 2 == 2, -3 ** 2 * 2)
print(1 if 0 else 2 if 0 else 3, (lambda: 1 + 2)(), [1, 2][0] + 3, -~5, ~-5)
print(True or False and False, (True or False) and False, not True or True)
print(3 - -3, 3 + -+-3, 2 * -1 ** 2, 7 // 2 * 2 + 7 % 2, "a" "b" * 2)
print(1 + 2 == 3 and 4 > 3, 0 or "" or [] or "last", 1 and 2 and 3)
x = 5
print(0 < x < 10, 0 < x > 10, x == 5 != 6, 1 < 2 < 3 < 2)
