# regression: the dict rule runs its invalid_ alternative in both passes (pegen guards only
# alternatives that start with an invalid_ rule), so this reports the dict error
x y{a:}
