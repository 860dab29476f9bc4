print(**)
