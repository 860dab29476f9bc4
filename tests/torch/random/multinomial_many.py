# torch.multinomial without replacement drawing a few samples out of many categories (a language
# model's next tokens: 1, 5 or 16 of up to 5000), where Ember keeps a sorted front of the k best
# instead of sorting the whole row; ties (zero probabilities, repeated values) and both 1-d and
# 2-d inputs, so the samples must be PyTorch's own, in its order.
import torch

for seed in range(24):
    torch.manual_seed(seed)
    n = [17, 100, 1000, 5000][seed % 4]
    p = torch.rand(3, n) ** 3
    if seed % 3 == 0:
        p[:, ::7] = 0
    if seed % 4 == 1:
        p[1] = 0.5
    k = min(n, [1, 2, 5, 16, 60][seed % 5])
    rows = torch.multinomial(p, k).tolist()
    print(seed, n, k, rows[0][:8], rows[1][:8], rows[2][-3:])
    print("  1-d", torch.multinomial(p[0], k).tolist()[:10])
g = torch.Generator().manual_seed(7)
logits = torch.randn(4, 3000, generator=g)
print(torch.multinomial(torch.softmax(logits, -1), 16, generator=g).tolist())
