local function make_adder(k) return function(x) return x + k end end
local function run(n)
  local add = make_adder(3)
  local s = 0
  for i = 1, n do s = add(s) end
  return s
end
print(run(5000000))
