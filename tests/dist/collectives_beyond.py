# Collectives PyTorch 1.13's gloo does not have (reduce_scatter, all_gather_into_tensor: later
# PyTorch versions run them on gloo; all_to_all with lists on MPI) and the store API, checked
# against what the collectives 1.13 has compute: each check is an assertion; the output lists
# the checks that ran.  Ember-only, so not recorded from PyTorch.
import sys

import torch
import torch.distributed as dist

backend = "mpi" if "--backend" in sys.argv and sys.argv[sys.argv.index("--backend") + 1] == "mpi" else "gloo"
dist.init_process_group(backend)
rank, world = dist.get_rank(), dist.get_world_size()
checks = []


def check(name, cond):
    assert cond, name
    checks.append(name)


inp = torch.arange(8.0).reshape(4, 2) * (rank + 1) - 3
summed = inp.clone()
dist.all_reduce(summed)
out = torch.zeros(4 // world, 2)
dist.reduce_scatter_tensor(out, inp)
check("reduce_scatter_tensor = my block of all_reduce", torch.equal(out, summed.chunk(world)[rank]))
out = torch.zeros(4 // world, 2)
dist.reduce_scatter(out, list(inp.chunk(world)))
check("reduce_scatter = my block of all_reduce", torch.equal(out, summed.chunk(world)[rank]))
check("reduce_scatter leaves the input alone", torch.equal(inp, torch.arange(8.0).reshape(4, 2) * (rank + 1) - 3))
for op in [dist.ReduceOp.MAX, dist.ReduceOp.MIN, dist.ReduceOp.PRODUCT]:
    ref = inp.clone()
    dist.all_reduce(ref, op=op)
    out = torch.zeros(4 // world, 2)
    dist.reduce_scatter_tensor(out, inp, op=op)
    check("reduce_scatter_tensor " + repr(op), torch.equal(out, ref.chunk(world)[rank]))
x = torch.tensor([7, -3, 11]) * (rank + 2)
ref = [torch.zeros(3, dtype=torch.int64) for _ in range(world)]
dist.all_gather(ref, x)
flat = torch.zeros(3 * world, dtype=torch.int64)
dist.all_gather_into_tensor(flat, x)
check("all_gather_into_tensor = all_gather", torch.equal(flat, torch.cat(ref)))
w = dist.reduce_scatter_tensor(torch.zeros(2), torch.ones(2 * world), async_op=True)
check("async reduce_scatter_tensor", w.wait() and torch.equal(w.result()[0], torch.ones(2) * world))
b = torch.tensor([rank == 0, True, False])
dist.all_reduce(b)
check("bool all_reduce is or", b.tolist() == [True, True, False])
try:
    dist.all_reduce(torch.ones(2), op=dist.ReduceOp.AVG)
    avg = "no error"
except RuntimeError as e:
    avg = str(e)
check("AVG refused: " + avg, avg == "Cannot use ReduceOp.AVG with " + ("Gloo" if backend == "gloo" else "MPI"))
outs = [torch.zeros(rank + 1) for _ in range(world)]
ins = [torch.ones(r + 1) * (10 * rank + r) for r in range(world)]
if backend == "mpi":
    dist.all_to_all(outs, ins)
    check("all_to_all", [o.tolist() for o in outs] == [[10.0 * s + rank] * (rank + 1) for s in range(world)])
else:
    try:
        dist.all_to_all(outs, ins)
        msg = "no error"
    except RuntimeError as e:
        msg = str(e)
    check("gloo has no list all_to_all: " + msg, msg == "ProcessGroup gloo does not support alltoall")
# the store the group met through
if backend == "gloo":
    store = dist.distributed_c10d._get_default_store()
    store.set("k%d" % rank, ("v%d" % rank).encode())
    store.wait(["k0", "k1"])
    check("store get", store.get("k%d" % (1 - rank)) == ("v%d" % (1 - rank)).encode())
    n = store.add("counter", 5)
    dist.barrier()
    check("store add", store.add("counter", 0) == 10 and n in (5, 10))
    check("store check", store.check(["k0", "k1"]) and not store.check(["nope"]))
    dist.barrier()
    if rank == 0:
        check("compare_set", store.compare_set("cas", "", "a") == b"a" and store.compare_set("cas", "x", "b") == b"a")
        check("delete_key", store.delete_key("cas") and not store.delete_key("cas"))
    try:
        store.wait(["never-set"], 0.2)
        msg = "no error"
    except RuntimeError as e:
        msg = str(e)
    check("store wait times out", "Wait timeout" in msg and "never-set" in msg)
dist.barrier()
if rank == 0:
    print(backend, "checks passed:", len(checks))
    for c in checks:
        print(" ", c)
dist.destroy_process_group()
