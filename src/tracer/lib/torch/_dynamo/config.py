"""torch._dynamo.config: the knobs Ember's tracer reads."""
import torch._dynamo._ember as _ember

cache_size_limit = 8
recompile_limit = 8
suppress_errors = False
verbose = False


def _sync():
    _ember.set_cache_size_limit(cache_size_limit)
