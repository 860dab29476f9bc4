# torch.multiprocessing: multiprocessing re-exported, the sharing strategies, Tensor.share_memory_
# / is_shared and nn.Module.share_memory (storages in MAP_SHARED memory, so forked children's
# in-place updates reach the parent: hogwild), start_processes with the fork start method,
# spawn() with the spawn start method, and the ProcessRaisedException / ProcessExitedException
# a failing child turns into.
import os
import sys

import torch
import torch.multiprocessing as mp


def bump(i, t):
    with torch.no_grad():
        t[i] += i + 1


def train(i, model, steps):
    torch.manual_seed(i)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.arange(8.).reshape(4, 2) / 8
    y = x.sum(1, keepdim=True)
    for _ in range(steps):
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()


def fails(i):
    if i == 1:
        raise ValueError("worker %d failed" % i)


def exits(i, code):
    sys.exit(code if i == 0 else 0)


def spawned(i, path):
    with open(path + str(i), "w") as f:
        f.write("rank %d of spawn" % i)


if __name__ == "__main__":
    print(mp.get_start_method(), mp.get_sharing_strategy(), sorted(mp.get_all_sharing_strategies()))
    print(mp.Process is __import__("multiprocessing").Process, "Queue" in mp.__all__, "spawn" in dir(mp))
    mp.set_sharing_strategy("file_system")
    print(mp.get_sharing_strategy())
    mp.set_sharing_strategy("file_descriptor")

    t = torch.zeros(4)
    v = t[2:]
    print(t.is_shared(), t.storage().is_shared())
    print(t.share_memory_() is t, t.is_shared(), v.is_shared(), t.share_memory_().is_shared())
    mp.start_processes(bump, args=(t,), nprocs=3, start_method="fork")
    print(t, v)
    plain = torch.zeros(2)
    mp.start_processes(bump, args=(plain,), nprocs=2, start_method="fork")
    print(plain, plain.is_shared())

    torch.manual_seed(0)
    model = torch.nn.Linear(2, 1)
    before = [p.detach().clone() for p in model.parameters()]
    print(model.share_memory() is model, all(p.is_shared() for p in model.parameters()))
    ctx = mp.start_processes(train, args=(model, 5), nprocs=1, join=False, start_method="fork")
    print(type(ctx).__name__, len(ctx.pids()))
    while not ctx.join():
        pass
    print([bool((a != p).any()) for a, p in zip(before, model.parameters())])
    x = torch.arange(8.).reshape(4, 2) / 8
    print(round(((model(x) - x.sum(1, keepdim=True)) ** 2).mean().item(), 4))

    try:
        mp.start_processes(fails, nprocs=2, start_method="fork")
    except mp.ProcessRaisedException as e:
        lines = str(e).strip().splitlines()
        print(type(e).__name__, e.error_index, e.pid > 0, lines[0], "|", lines[-1])
    try:
        mp.start_processes(exits, args=(3,), nprocs=2, start_method="fork")
    except mp.ProcessExitedException as e:
        print(type(e).__name__, e, e.error_index, e.exit_code, e.signal_name)

    import tempfile
    d = tempfile.mkdtemp()
    base = os.path.join(d, "out")
    mp.spawn(spawned, args=(base,), nprocs=2)
    for i in range(2):
        with open(base + str(i)) as f:
            print(f.read())
        os.unlink(base + str(i))
    os.rmdir(d)
