local function run(n)
  local xs = {}
  for i = 0, n - 1 do xs[#xs + 1] = i * 0.5 end
  local total = 0.0
  for _, x in ipairs(xs) do total = total + x end
  return total
end
print(run(1000000))
