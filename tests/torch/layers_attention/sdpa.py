import math

import torch
import torch.nn.functional as F

# PyTorch 1.13 (the oracle) has no F.scaled_dot_product_attention: there the script checks
# against the explicit formula PyTorch 2.x documents for it; Ember runs its own implementation.
if not hasattr(F, "scaled_dot_product_attention"):
    def _sdpa_formula(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None):
        L, S = query.size(-2), key.size(-2)
        scale_factor = 1 / math.sqrt(query.size(-1)) if scale is None else scale
        attn_bias = torch.zeros(L, S, dtype=query.dtype)
        if is_causal:
            temp_mask = torch.ones(L, S, dtype=torch.bool).tril(diagonal=0)
            attn_bias = attn_bias.masked_fill(temp_mask.logical_not(), float("-inf"))
        if attn_mask is not None:
            if attn_mask.dtype == torch.bool:
                attn_bias = attn_bias.masked_fill(attn_mask.logical_not(), float("-inf"))
            else:
                attn_bias = attn_bias + attn_mask
        attn_weight = query @ key.transpose(-2, -1) * scale_factor
        attn_weight = attn_weight + attn_bias
        attn_weight = torch.softmax(attn_weight, dim=-1)
        attn_weight = torch.dropout(attn_weight, dropout_p, train=True)
        return attn_weight @ value
    F.scaled_dot_product_attention = _sdpa_formula


def r(t):
    return [round(v, 4) for v in t.detach().flatten().tolist()]


q = torch.tensor([[0.1, -0.2, 0.3, 0.4], [0.5, 0.1, -0.3, 0.2], [-0.4, 0.3, 0.2, -0.1]])
k = torch.tensor([[0.2, 0.1, -0.1, 0.3], [-0.3, 0.4, 0.2, 0.1], [0.1, -0.2, 0.5, -0.4], [0.3, 0.3, 0.3, 0.3]])
v = torch.tensor([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5], [-1.0, 2.0]])
Q = torch.stack([q, q * 2, -q]).reshape(1, 3, 3, 4).repeat(2, 1, 1, 1)   # (N=2, H=3, L=3, E=4)
K = torch.stack([k, k * 0.5, k]).reshape(1, 3, 4, 4).repeat(2, 1, 1, 1)
V = torch.stack([v, v, v * 3]).reshape(1, 3, 4, 2).repeat(2, 1, 1, 1)

print(r(F.scaled_dot_product_attention(q, k, v)))
print(r(F.scaled_dot_product_attention(Q, K, V))[:12])
print(r(F.scaled_dot_product_attention(q, k, v, scale=2.0)))
bool_mask = torch.tensor([[True, False, True, True], [True, True, False, False], [False, True, True, True]])
print(r(F.scaled_dot_product_attention(q, k, v, attn_mask=bool_mask)))
float_mask = torch.tensor([[0.0, -1.0, 0.5, 0.0], [0.0, 0.0, -2.0, 1.0], [0.3, 0.0, 0.0, -0.3]])
print(r(F.scaled_dot_product_attention(Q, K, V, attn_mask=float_mask))[:12])
qs = torch.cat([q, q[:1]], 0)   # L == S for the causal mask
print(r(F.scaled_dot_product_attention(qs, k, v, is_causal=True)))
print(r(F.scaled_dot_product_attention(Q, K, V, dropout_p=1.0)))
# broadcast masks (N, 1, L, S)
bm = torch.stack([bool_mask, bool_mask.flip(1)]).reshape(2, 1, 3, 4)
print(r(F.scaled_dot_product_attention(Q, K, V, attn_mask=bm))[-12:])

# gradients through every input, float64 finite differences too
qd, kd, vd = (t.double().clone().requires_grad_(True) for t in (q, k, v))
out = F.scaled_dot_product_attention(qd, kd, vd, attn_mask=float_mask.double())
(out * torch.arange(6.0, dtype=torch.float64).reshape(3, 2)).sum().backward()
print(r(qd.grad), r(kd.grad), r(vd.grad))
print(torch.autograd.gradcheck(lambda a, b, c: F.scaled_dot_product_attention(a, b, c, is_causal=True),
                               (qs.double().requires_grad_(True), kd, vd)))
print(torch.autograd.gradcheck(lambda a, b, c: F.scaled_dot_product_attention(a, b, c, attn_mask=bool_mask),
                               (qd, kd, vd)))
