"""torch.nn.modules._functions: BackwardHookFunction, the identity autograd Function whose node
carries a module's full backward hooks (see torch.utils.hooks.BackwardHook)."""
import torch


class BackwardHookFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[arg for arg in args if not arg.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *args):
        return args
