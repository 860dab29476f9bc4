"""Ember's half of the PyTorch -> Ember -> PyTorch round trip: loads what PyTorch saved (both
formats) and saves it again (em.pt in the zip format, em_legacy.pt in the legacy one)."""
import os
import sys

import torch

d = sys.argv[1]
obj = torch.load(os.path.join(d, "pt.pt"))
legacy = torch.load(os.path.join(d, "pt_legacy.pt"))
print(sorted(k for k in obj if isinstance(k, str)), sorted(k for k in legacy if isinstance(k, str)))
torch.save(obj, os.path.join(d, "em.pt"))
torch.save(legacy, os.path.join(d, "em_legacy.pt"), _use_new_zipfile_serialization=False)
