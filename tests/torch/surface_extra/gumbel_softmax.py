# F.gumbel_softmax: the Gumbel noise comes from exponential_ on the default generator, so a seeded
# script samples PyTorch's values; hard=True is one-hot with the soft sample's gradient
import torch
import torch.nn.functional as F

torch.manual_seed(0)
logits = torch.randn(3, 5, requires_grad=True)
soft = F.gumbel_softmax(logits, tau=0.5)
print(soft)
print(soft.sum(-1))
hard = F.gumbel_softmax(logits, tau=1.0, hard=True)
print(hard)
(hard * torch.arange(5.)).sum().backward()
print(logits.grad)
print(F.gumbel_softmax(logits.detach(), dim=0).sum(0))
print(torch.legacy_contiguous_format, torch.legacy_contiguous_format is torch.contiguous_format)


def sample(x):
    return F.gumbel_softmax(x, tau=2.0)


torch.manual_seed(1)
print(sample(torch.randn(2, 4)))
