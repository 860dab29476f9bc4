"""torch.distributed.run (torchrun): ``ember -m torch.distributed.run --nproc-per-node=N script.py``
starts N workers with torchrun's flags and environment; the launcher itself is C (src/dist/launch.c)
so that it needs nothing of the script-level standard library."""
import sys

from torch._C._distributed_c10d import _launch


def main(args=None):
    status = _launch(list(sys.argv[1:] if args is None else args))
    if status:
        sys.exit(status)


if __name__ == "__main__":
    main()
