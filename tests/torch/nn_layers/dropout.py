# Dropout: identity in eval mode and for p=0; zeros for p=1; in training every element is 0 or
# x / (1 - p) (the mask comes from Ember's generator, so only its properties are checked);
# gradients follow the mask; invalid p.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
x = torch.arange(1.0, 401.0)
d = nn.Dropout(p=0.25)
print(d, d.training)
d.eval()
print("eval is identity", torch.equal(d(x), x))
d.train()
y = d(x)
scaled = x / 0.75
kept = (y == scaled)
dropped = (y == 0)
print("each element kept-and-scaled or zeroed", bool((kept | dropped).all()))
print("some dropped, most kept", 40 < int(dropped.sum()) < 160)
print("p=0", torch.equal(nn.Dropout(0.0)(x), x), "p=1", bool((nn.Dropout(1.0)(x) == 0).all()))
xg = torch.ones(100, requires_grad=True)
out = F.dropout(xg, p=0.5, training=True)
out.sum().backward()
print("grad follows mask", bool(((xg.grad == 0) == (out == 0)).all()), bool(((xg.grad == 2) | (xg.grad == 0)).all()))
print("functional eval", torch.equal(F.dropout(x, 0.5, training=False), x))
for p in (-0.1, 1.5):
    try:
        nn.Dropout(p)
    except ValueError as e:
        print("ValueError", e)
try:
    F.dropout(x, 2.0)
except ValueError as e:
    print("ValueError", e)
torch.manual_seed(7)
m1 = nn.Dropout(0.5)(torch.ones(64))
torch.manual_seed(7)
m2 = nn.Dropout(0.5)(torch.ones(64))
print("same seed, same mask", torch.equal(m1, m2))
