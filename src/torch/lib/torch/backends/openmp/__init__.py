"""torch.backends.openmp: Ember's thread pool plays OpenMP's part (torch.set_num_threads)."""


def is_available():
    return True
