# torch._C._current_graph_task_id, torch._C._will_engine_execute_node, queued engine callbacks
# (torch.autograd.Variable._execution_engine.queue_callback).
import torch

print(torch._C._current_graph_task_id())
x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([3.0, 4.0], requires_grad=True)
ids = []
events = []


def hook(g):
    tid = torch._C._current_graph_task_id()
    ids.append(tid)
    events.append("hook")
    torch.autograd.Variable._execution_engine.queue_callback(lambda: events.append(("callback", torch._C._current_graph_task_id() == tid)))


y = x * w
y.register_hook(hook)
y.sum().backward()
print(events, len(set(ids)), ids[0] != -1)
events.clear()
y = x * w
y.register_hook(hook)
y.sum().backward()
print(events, len(set(ids)), ids[0] != ids[1])
print(torch._C._current_graph_task_id())

a = torch.tensor([1.0], requires_grad=True)
b = torch.tensor([2.0], requires_grad=True)
c = a * 2
d = b * 3
e = c + d
res = {}


def probe(g):
    nodes = [("c", c.grad_fn), ("d", d.grad_fn), ("acc_a", c.grad_fn.next_functions[0][0]),
             ("acc_b", d.grad_fn.next_functions[0][0])]
    for name, node in nodes:
        try:
            res[name] = torch._C._will_engine_execute_node(node)
        except RuntimeError as err:
            res[name] = "RuntimeError: " + str(err)


e.register_hook(probe)
e.backward(retain_graph=True)
print(sorted(res.items()))
res.clear()
torch.autograd.grad(e, [a], retain_graph=True)
print(sorted(res.items()))
res.clear()
torch.autograd.grad(e, [c], retain_graph=True)
print(sorted(res.items()))
res.clear()
e.backward(inputs=[b], retain_graph=True)
print(sorted(res.items()))
try:
    torch._C._will_engine_execute_node(c.grad_fn)
except RuntimeError as err:
    print("RuntimeError", err)

order = []
p = torch.tensor([1.0], requires_grad=True)
q = p * 2


def outer_hook(g):
    order.append("outer hook")
    Variable = torch.autograd.Variable
    Variable._execution_engine.queue_callback(lambda: order.append("cb1"))
    Variable._execution_engine.queue_callback(lambda: order.append("cb2"))


q.register_hook(outer_hook)
p.register_hook(lambda g: order.append("leaf hook"))
q.backward()
print(order)
