"""torch.distributed.constants: the default timeout of process groups (30 minutes)."""
try:
    from datetime import timedelta
    default_pg_timeout = timedelta(minutes=30)
except ImportError:          # before CPython's stdlib is on sys.path: seconds
    default_pg_timeout = 1800.0

__all__ = ["default_pg_timeout"]
