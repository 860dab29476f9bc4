local Acc = {}
Acc.__index = Acc
function Acc.new() return setmetatable({total = 0}, Acc) end
function Acc:add(v) self.total = self.total + v; return self end
local function run(n)
  local a = Acc.new()
  for i = 0, n - 1 do a:add(i) end
  return a.total
end
print(run(5000000))
