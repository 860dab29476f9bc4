"""torch.autograd.profiler_util: the views of a profile that PyTorch 1.13 gives (FunctionEvent,
FunctionEventAvg, EventList) and its summary table, in the same layout, over the events Ember's
recorder (src/torch/profiler.c) hands over: every tensor op as "aten::<op>", the autograd engine's
node evaluations, record_function ranges.  Times are in microseconds; the CPU is the only device."""
import json
from collections import defaultdict

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg", "Interval", "Kernel"]


def _format_time(time_us):
    if time_us >= 1000.0 * 1000.0:
        return "{:.3f}s".format(time_us / (1000.0 * 1000.0))
    if time_us >= 1000.0:
        return "{:.3f}ms".format(time_us / 1000.0)
    return "{:.3f}us".format(time_us)


def _format_time_share(time_us, total_time_us):
    if total_time_us == 0:
        return "NaN"
    return "{:.2f}%".format(time_us * 100.0 / total_time_us)


def _format_memory(nbytes):
    kb = 1024
    mb, gb = 1024 * kb, 1024 * 1024 * kb
    if abs(nbytes) >= gb:
        return "{:.2f} Gb".format(nbytes * 1.0 / gb)
    if abs(nbytes) >= mb:
        return "{:.2f} Mb".format(nbytes * 1.0 / mb)
    if abs(nbytes) >= kb:
        return "{:.2f} Kb".format(nbytes * 1.0 / kb)
    return str(nbytes) + " b"


class Interval:
    def __init__(self, start, end):
        self.start = start
        self.end = end

    def elapsed_us(self):
        return self.end - self.start


class Kernel:
    def __init__(self, name, device, duration):
        self.name = name
        self.device = device
        self.duration = duration


class _FormattedTimes:
    """The *_str properties: each time attribute formatted as the table shows it."""

    @property
    def cpu_time_str(self):
        return _format_time(self.cpu_time)

    @property
    def cpu_time_total_str(self):
        return _format_time(self.cpu_time_total)

    @property
    def self_cpu_time_total_str(self):
        return _format_time(self.self_cpu_time_total)

    @property
    def cuda_time_str(self):
        return _format_time(0.0)

    cuda_time_total_str = self_cuda_time_total_str = cuda_time_str

    @property
    def cpu_time(self):
        return 0.0 if self.count == 0 else self.cpu_time_total / self.count

    @property
    def cuda_time(self):
        return 0.0


class FunctionEvent(_FormattedTimes):
    """One recorded op or range: its time interval, the events directly inside it
    (cpu_children) and the one it is inside (cpu_parent)."""

    def __init__(self, id, name, thread, start_us, end_us, fwd_thread=None, input_shapes=None,
                 stack=None, scope=0, cpu_memory_usage=0, cuda_memory_usage=0, is_async=False,
                 is_remote=False, sequence_nr=-1, node_id=-1, device_type=None, device_index=0,
                 is_legacy=False, flops=None, trace_name=None):
        self.id = id
        self.node_id = node_id
        self.name = name
        self.trace_name = trace_name
        self.time_range = Interval(start_us, end_us)
        self.thread = thread
        self.fwd_thread = fwd_thread
        self.kernels = []
        self.count = 1
        self.cpu_children = []
        self.cpu_parent = None
        self.input_shapes = input_shapes
        self.stack = stack if stack is not None else []
        self.scope = scope
        self.cpu_memory_usage = cpu_memory_usage
        self.cuda_memory_usage = cuda_memory_usage
        self.is_async = is_async
        self.is_remote = is_remote
        self.sequence_nr = sequence_nr
        self.device_type = device_type
        self.device_index = device_index
        self.is_legacy = is_legacy
        self.flops = flops

    def append_kernel(self, name, device, duration):
        self.kernels.append(Kernel(name, device, duration))

    def append_cpu_child(self, child):
        self.cpu_children.append(child)

    def set_cpu_parent(self, parent):
        self.cpu_parent = parent

    @property
    def self_cpu_memory_usage(self):
        return self.cpu_memory_usage - sum(c.cpu_memory_usage for c in self.cpu_children)

    @property
    def self_cuda_memory_usage(self):
        return 0

    @property
    def cpu_time_total(self):
        return self.time_range.elapsed_us()

    @property
    def self_cpu_time_total(self):
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def cuda_time_total(self):
        return 0

    @property
    def self_cuda_time_total(self):
        return 0

    @property
    def key(self):
        return self.name

    def __repr__(self):
        return ("<FunctionEvent id={} name={} device_type=CPU node_id={} cpu_time={} start_us={} "
                "end_us={} cpu_children={} cuda_time={} name={} thread={} input_shapes={} "
                "cpu_memory_usage={} cuda_memory_usage={} is_async={} is_remote={} seq_nr={} "
                "is_legacy={}>").format(
                    self.id, self.name, self.node_id, self.cpu_time_str, self.time_range.start,
                    self.time_range.end, str([c.id for c in self.cpu_children]), self.cuda_time_str,
                    self.name, self.thread, str(self.input_shapes), self.cpu_memory_usage,
                    self.cuda_memory_usage, self.is_async, self.is_remote, self.sequence_nr,
                    self.is_legacy)


class FunctionEventAvg(_FormattedTimes):
    """The sum of the events with one key (name, and input shapes when grouped by them)."""

    def __init__(self):
        self.key = None
        self.count = 0
        self.node_id = 0
        self.is_async = False
        self.is_remote = False
        self.cpu_time_total = 0
        self.cuda_time_total = 0
        self.self_cpu_time_total = 0
        self.self_cuda_time_total = 0
        self.input_shapes = None
        self.stack = None
        self.scope = None
        self.cpu_memory_usage = 0
        self.cuda_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.self_cuda_memory_usage = 0
        self.cpu_children = None
        self.cpu_parent = None
        self.device_type = None
        self.is_legacy = False
        self.flops = 0

    def add(self, other):
        if self.key is None:
            self.key = other.key
            self.node_id = other.node_id
            self.is_async = other.is_async
            self.is_remote = other.is_remote
            self.cpu_parent = other.cpu_parent
            self.cpu_children = other.cpu_children
            self.input_shapes = other.input_shapes
            self.stack = other.stack
            self.scope = other.scope
            self.device_type = other.device_type
            self.is_legacy = other.is_legacy
        if not isinstance(other, (FunctionEvent, FunctionEventAvg)):
            raise AssertionError("Can only add FunctionEvent or FunctionEventAvg objects")
        assert other.key == self.key
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.cpu_memory_usage += other.cpu_memory_usage
        self.self_cpu_memory_usage += other.self_cpu_memory_usage
        self.count += other.count
        if other.flops is not None:
            self.flops += other.flops
        return self

    def __iadd__(self, other):
        return self.add(other)

    def __repr__(self):
        return ("<FunctionEventAvg key={} self_cpu_time={} cpu_time={}  self_cuda_time={} "
                "cuda_time={} input_shapes={} cpu_memory_usage={} cuda_memory_usage={}>").format(
                    self.key, self.self_cpu_time_total_str, self.cpu_time_str,
                    self.self_cuda_time_total_str, self.cuda_time_str, str(self.input_shapes),
                    self.cpu_memory_usage, self.cuda_memory_usage)


class EventList(list):
    """A list of events with PyTorch's summaries: table(), key_averages(), total_average(),
    export_chrome_trace()."""

    def __init__(self, *args, use_cuda=False, profile_memory=False, with_flops=False):
        super().__init__(*args)
        self._use_cuda = use_cuda
        self._profile_memory = profile_memory
        self._with_flops = with_flops

    def __str__(self):
        return self.table()

    @property
    def self_cpu_time_total(self):
        return sum(e.self_cpu_time_total for e in self)

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
              max_shapes_column_width=80, header=None, top_level_events_only=False):
        return _build_table(self, sort_by=sort_by, row_limit=row_limit, header=header,
                            max_src_column_width=max_src_column_width,
                            max_name_column_width=max_name_column_width,
                            max_shapes_column_width=max_shapes_column_width,
                            profile_memory=self._profile_memory, with_flops=self._with_flops,
                            top_level_events_only=top_level_events_only)

    def export_chrome_trace(self, path):
        """The events as a Chrome trace (chrome://tracing, Perfetto): a JSON array of complete
        ("X") events, as PyTorch's CPU profiler writes it."""
        events = [{"name": e.trace_name, "ph": "X", "ts": e.time_range.start,
                   "dur": e.time_range.elapsed_us(), "tid": e.thread, "pid": "CPU functions",
                   "args": {}} for e in self if e.trace_name is not None]
        with open(path, "w") as f:
            json.dump(events, f)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0):
        """One FunctionEventAvg per name (and input shapes / stack entries when asked), in the
        order each key first appears."""
        stats = defaultdict(FunctionEventAvg)

        def key_of(e):
            k = [str(e.key), str(e.node_id), str(e.device_type), str(e.is_legacy)]
            if group_by_input_shape:
                k.append(str(e.input_shapes))
            if group_by_stack_n > 0:
                k += e.stack[:group_by_stack_n]
            return tuple(k)

        for e in self:
            stats[key_of(e)].add(e)
        out = EventList(stats.values(), use_cuda=self._use_cuda,
                        profile_memory=self._profile_memory, with_flops=self._with_flops)
        for e in out:
            e.stack = e.stack[:group_by_stack_n] if e.stack else e.stack
            if not group_by_input_shape:
                e.input_shapes = ""
        return out

    def total_average(self):
        total = FunctionEventAvg()
        for e in self:
            total += e
            total.key = None
        total.key = "Total"
        return total


def _build_table(events, sort_by=None, header=None, row_limit=100, max_src_column_width=75,
                 max_name_column_width=55, max_shapes_column_width=80, with_flops=False,
                 profile_memory=False, top_level_events_only=False):
    """PyTorch's summary table: one row per event, columns two spaces apart, numbers right-aligned."""
    if len(events) == 0:
        return ""
    has_input_shapes = any(e.input_shapes is not None and len(e.input_shapes) > 0 for e in events)
    if sort_by is not None:
        events = EventList(sorted(events, key=lambda e: getattr(e, sort_by), reverse=True),
                           profile_memory=profile_memory, with_flops=with_flops)
    name_width = max(len(e.key) for e in events) + 4
    if max_name_column_width is not None:
        name_width = min(name_width, max_name_column_width)
    shapes_width = max(len(str(e.input_shapes)) for e in events) + 4
    if max_shapes_column_width is not None:
        shapes_width = min(shapes_width, max_shapes_column_width)
    stacks = [e.stack for e in events if e.stack]
    src_width = None
    if stacks:
        src_width = max(max(len(entry) for entry in s) for s in stacks) + 4
        if max_src_column_width is not None:
            src_width = min(src_width, max_src_column_width)

    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
    if profile_memory:
        headers += ["CPU Mem", "Self CPU Mem"]
    headers.append("# of Calls")
    widths = [(name_width, ">")] + [(12, ">")] * (len(headers) - 1)
    if has_input_shapes:
        headers.append("Input Shapes")
        widths.append((shapes_width, ">"))
    if stacks:
        headers.append("Source Location")
        widths.append((src_width, "<"))
    if with_flops:
        flops = [e.flops for e in events if e.flops and e.flops > 0]
        if flops:
            names = ["FLOPs", "KFLOPs", "MFLOPs", "GFLOPs", "TFLOPs", "PFLOPs"]
            import math
            level = int(max(0, min(math.log10(min(flops)) / 3, len(names) - 1)))
            flops_scale = pow(10, level * -3.0)
            headers.append("Total {}".format(names[level]))
            widths.append((12, ">"))
        else:
            with_flops = False
    row_format = "".join("{: " + align + str(w) + "}  " for w, align in widths)
    separator = "".join("-" * w + "  " for w, _ in widths)
    line_length = sum(w + 2 for w, _ in widths) - 2

    total_self = sum(e.self_cpu_time_total for e in events)
    lines = []
    if header is not None:
        lines += ["=" * line_length, header]
    if top_level_events_only:
        lines += ["=" * line_length, "This report only display top-level ops statistics"]
    lines += [separator, row_format.format(*headers), separator]

    def trim_path(path):
        if len(path) > src_width:
            path = path[len(path) - src_width:]
            if len(path) > 3:
                path = "..." + path[3:]
        return path

    shown = 0
    for e in events:
        if shown == row_limit:
            break
        if top_level_events_only and e.cpu_parent is not None:
            continue
        shown += 1
        name = e.key
        if max_name_column_width is not None and len(name) >= max_name_column_width - 3:
            name = name[:max_name_column_width - 3] + "..."
        row = [name, _format_time_share(e.self_cpu_time_total, total_self), e.self_cpu_time_total_str,
               _format_time_share(e.cpu_time_total, total_self) if not e.is_async else 0,
               e.cpu_time_total_str, e.cpu_time_str]
        if profile_memory:
            row += [_format_memory(e.cpu_memory_usage), _format_memory(e.self_cpu_memory_usage)]
        row.append(e.count)
        if has_input_shapes:
            row.append(str(e.input_shapes)[:shapes_width])
        if with_flops:
            row.append("--" if not e.flops or e.flops <= 0 else "{0:8.3f}".format(e.flops * flops_scale))
        if stacks:
            row.append(trim_path(e.stack[0]) if e.stack else "")
        lines.append(row_format.format(*row))
        if stacks:
            blank = [""] * (len(headers) - 1)
            for entry in (e.stack or [])[1:5]:
                lines.append(row_format.format(*(blank + [trim_path(entry)])))
            lines.append(row_format.format(*(blank + [""])))
    lines += [separator, "Self CPU time total: {}".format(_format_time(total_self))]
    return "".join(line + "\n" for line in lines)


def _events_from_records(records, thread):
    """FunctionEvents from the recorder's (name, start_us, end_us, parent, shapes) tuples, each
    linked to its parent and children, in order of start."""
    events = EventList()
    for i, (name, start, end, parent, shapes) in enumerate(records):
        # the schedule's step ranges average together: "ProfilerStep#3" is "ProfilerStep*" in
        # the events and tables, and keeps its number in the trace
        shown = "ProfilerStep*" if name.startswith("ProfilerStep#") else name
        e = FunctionEvent(id=i + 1, name=shown, thread=thread, start_us=start, end_us=end,
                          input_shapes=shapes if shapes is not None else [], trace_name=name)
        if parent >= 0:
            p = events[parent]
            e.set_cpu_parent(p)
            p.append_cpu_child(e)
        events.append(e)
    return events
