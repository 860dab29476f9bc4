"""torch.onnx — the part of PyTorch's ONNX exporter that model code reaches without exporting.

Model code imports torch.onnx unconditionally (pytorch/examples' word_language_model exports
only with --onnx-export) and asks is_in_onnx_export() to pick an export-friendly path
(torchvision's detection models).  Ember has no ONNX exporter: is_in_onnx_export() is
therefore always False, and export() raises instead of writing a file."""

__all__ = ["export", "is_in_onnx_export"]


def is_in_onnx_export():
    """Whether an ONNX export is tracing the caller: never under Ember."""
    return False


def export(model, args, f, *rest, **kwargs):
    raise RuntimeError("torch.onnx.export: Ember has no ONNX exporter; export the model with "
                       "PyTorch (torch.save writes a checkpoint PyTorch loads)")
