"""torch.utils"""
import torch.utils.hooks


def __getattr__(name):
    # PyTorch's `import torch` imports torch.utils.data; Ember on first use (PEP 562)
    if name == "data":
        import torch.utils.data
        return torch.utils.data
    raise AttributeError(f"module 'torch.utils' has no attribute '{name}'")
