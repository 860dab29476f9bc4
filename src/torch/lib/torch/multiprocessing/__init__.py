"""torch.multiprocessing: the standard multiprocessing module re-exported, with PyTorch's
sharing-strategy switches and spawn() / start_processes() / ProcessContext (spawn.py).

Tensors are shared between processes through memory: Tensor.share_memory_() (and
nn.Module.share_memory()) move a storage to a MAP_SHARED mapping, so processes forked after it
(the "fork" start method, Linux's default) update the same tensors -- hogwild training.  What
Ember does not have is PyTorch's custom reducers (torch.multiprocessing.reductions): a tensor
pickled to another process (a Queue item, an argument of a "spawn" child) arrives as a copy,
not as a view of shared memory."""
import sys
import multiprocessing

import torch

__all__ = ['set_sharing_strategy', 'get_sharing_strategy', 'get_all_sharing_strategies']

from multiprocessing import *  # noqa: F401,F403

__all__ += multiprocessing.__all__

from .spawn import spawn, SpawnContext, start_processes, ProcessContext, \
    ProcessRaisedException, ProcessExitedException

if sys.platform == 'darwin' or sys.platform == 'win32':
    _sharing_strategy = 'file_system'
    _all_sharing_strategies = {'file_system'}
else:
    _sharing_strategy = 'file_descriptor'
    _all_sharing_strategies = {'file_descriptor', 'file_system'}


def set_sharing_strategy(new_strategy):
    """Sets the strategy for sharing CPU tensors (one of get_all_sharing_strategies())."""
    global _sharing_strategy
    assert new_strategy in _all_sharing_strategies
    _sharing_strategy = new_strategy


def get_sharing_strategy():
    """Returns the current strategy for sharing CPU tensors."""
    return _sharing_strategy


def get_all_sharing_strategies():
    """Returns the set of sharing strategies supported on this system."""
    return _all_sharing_strategies
