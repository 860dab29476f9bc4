# Collectives and point-to-point on 2 ranks, as PyTorch 1.13's gloo runs them; rank 0 prints
# what every rank got (results are gathered to rank 0, so the output does not depend on timing).
# Run with --backend mpi under mpirun: the same results.
import sys

import torch
import torch.distributed as dist

backend = "mpi" if "--backend" in sys.argv and sys.argv[sys.argv.index("--backend") + 1] == "mpi" else "gloo"
dist.init_process_group(backend)
rank, world = dist.get_rank(), dist.get_world_size()


def report(name, t):
    """Gathers t (same shape on every rank) and prints it per rank on rank 0."""
    t = t.float()
    outs = [torch.zeros_like(t) for _ in range(world)]
    dist.all_gather(outs, t)
    if rank == 0:
        print(name, [o.tolist() for o in outs])


def fails(name, fn):
    try:
        fn()
        msg = "no error"
    except Exception as e:
        msg = type(e).__name__ + ": " + str(e)
    if rank == 0:
        print(name, "->", msg)


print_ = print
if rank == 0:
    print("world", world, "initialized", dist.is_initialized())
base = torch.arange(4.0) + rank
for op in ["SUM", "PRODUCT", "MIN", "MAX"]:
    x = base.clone()
    dist.all_reduce(x, op=getattr(dist.ReduceOp, op))
    report("all_reduce " + op, x)
x = torch.tensor([3, 5, 6]) * (rank + 1)
dist.all_reduce(x, op=dist.ReduceOp.BAND)
report("all_reduce BAND int64", x)
x = torch.tensor([3, 5, 6]) * (rank + 1)
dist.all_reduce(x, op=dist.ReduceOp.BOR)
report("all_reduce BOR int64", x)
x = torch.arange(6.0).view(2, 3).t() * (rank + 1)     # not contiguous
dist.all_reduce(x)
report("all_reduce non-contiguous", x)
x = base.clone() if rank == 1 else torch.zeros(4)
dist.broadcast(x, src=1)
report("broadcast from 1", x)
x = base.clone()
dist.reduce(x, dst=0)
if rank == 0:
    print("reduce to 0", x.tolist())
outs = [torch.zeros(2) for _ in range(world)]
dist.all_gather(outs, torch.ones(2) * (rank + 7))
report("all_gather", torch.cat(outs))
outs = [torch.zeros(3, dtype=torch.int64) for _ in range(world)] if rank == 1 else None
dist.gather(torch.arange(3) * (rank + 1), outs, dst=1)
if rank == 1:
    dist.send(torch.cat(outs).float(), dst=0)
else:
    got = torch.zeros(6)
    dist.recv(got, src=1)
    print("gather to 1", got.tolist())
x = torch.zeros(2)
dist.scatter(x, [torch.ones(2) * i * 10 for i in range(world)] if rank == 0 else None, src=0)
report("scatter from 0", x)
x = torch.zeros(4)
dist.all_to_all_single(x, torch.arange(4.0) + 10 * rank)
report("all_to_all_single", x)
x = torch.zeros(3)
dist.all_to_all_single(x, torch.arange(3.0) + 10 * rank,
                       output_split_sizes=[1, 2] if rank == 0 else [2, 1],
                       input_split_sizes=[1, 2] if rank == 0 else [2, 1])
report("all_to_all_single uneven", x)
if rank == 0:
    dist.send(torch.arange(5.0), dst=1, tag=3)
    y = torch.zeros(2)
    src = dist.recv(y)
    print("recv from any:", src, y.tolist())
else:
    y = torch.zeros(5)
    dist.recv(y, src=0, tag=3)
    dist.send(y[:2] * 2, dst=0)
mine, theirs = torch.arange(3.0) * (rank + 1), torch.zeros(3)
reqs = [dist.isend(mine, dst=1 - rank), dist.irecv(theirs, src=1 - rank)]
for r in reqs:
    r.wait()
report("isend/irecv", theirs)
work = dist.all_reduce(torch.ones(3), async_op=True)
done = work.wait()
if rank == 0:
    print("async wait", done, work.is_completed())
x = torch.ones(2) * (rank + 1)
work = dist.all_reduce(x, async_op=True)
fut_val = work.get_future().wait()
report("future value", fut_val[0])
dist.barrier()
g = dist.new_group([1])
if rank == 0:
    print("new_group([1]) on rank 0:", g is dist.GroupMember.NON_GROUP_MEMBER, dist.get_rank(g), dist.get_world_size(g))
else:
    x = torch.ones(2) * 5
    dist.all_reduce(x, group=g)
    dist.send(x, dst=0)
if rank == 0:
    x = torch.zeros(2)
    dist.recv(x, src=1)
    print("all_reduce in group [1]:", x.tolist())
g2 = dist.new_group([0, 1])
x = torch.ones(2) * (rank + 1)
dist.all_reduce(x, group=g2)
report("all_reduce in group [0, 1]", x)
if rank == 0:
    print("group ranks", dist.get_process_group_ranks(g2), dist.get_global_rank(g2, 1), dist.get_group_rank(g2, 1))
fails("ReduceOp.BAND on float", lambda: dist.all_reduce(torch.ones(2), op=dist.ReduceOp.BAND))
fails("gather_list on wrong rank", lambda: dist.gather(torch.ones(2), [torch.zeros(2)] * 2 if rank == 1 else None, dst=0))
fails("not a tensor", lambda: dist.all_reduce([1.0, 2.0]))
fails("bad backend", lambda: dist.Backend("nope"))
fails("init twice", lambda: dist.init_process_group(backend))
dist.destroy_process_group()
if rank == 0:
    print("destroyed, initialized:", dist.is_initialized())
    fails("rank without a group", lambda: dist.get_rank())
