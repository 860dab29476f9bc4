local function run(n)
  local i = 0
  local x = 0.0
  while i < n do
    x = x + 0.5
    i = i + 1
  end
  return x
end
print(run(10000000))
