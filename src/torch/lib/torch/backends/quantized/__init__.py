"""torch.backends.quantized: the engine names PyTorch reports; Ember has no quantized kernels."""
supported_engines = ["qnnpack", "none", "onednn"]
engine = "onednn"
