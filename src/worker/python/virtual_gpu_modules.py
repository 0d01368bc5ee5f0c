"""Where modules, parameters and checkpoints go: Parameter, DataParallel,
DistributedDataParallel, torch.save and torch.load, moved or kept as PyTorch would.

DataParallel keeps its own checks (device ids, the module on device_ids[0]) but records
them instead of raising; its scatter/replicate/gather is one call on the CPU with the
inputs on device_ids[0] and the output on output_device, which is where a real run's
tensors end up. DistributedDataParallel becomes a single-process wrapper with the same
device checks. Checkpoints keep their tensors' virtual devices as real location tags, so
a file saved here fails to load elsewhere exactly as one saved on a GPU would. Loading without
map_location is a mistake for a checkpoint from elsewhere (saved on a GPU, loaded wherever the
script runs next); one this run wrote itself is loaded where it was saved.
"""
import functools
import itertools
import os
import sys

import torch
import torch.serialization as serialization

from virtual_gpu_devices import device_of, origin_of, set_origin, tag

DP_MODULE = "module must have its parameters and buffers on device %s (device_ids[0]) but found one of them on device: %s"
DDP_DEVICES = ("DistributedDataParallel device_ids and output_device arguments only work with single-device/multiple-device "
               "GPU modules or CPU modules, but got device_ids %s, output_device %s, and module parameters %s.")
LOAD = ("torch.load without map_location of a checkpoint saved on %s: a machine without that device cannot load it "
        "(RuntimeError: Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False). "
        "Pass map_location=device.")


def _moved(value, device):
    """Tensors in `value` (nested tuples, lists, dicts) moved to `device` through the virtual device."""
    if isinstance(value, torch.Tensor):
        return value.to(device)
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return tuple(_moved(v, device) for v in value)
    if isinstance(value, list):
        return [_moved(v, device) for v in value]
    if isinstance(value, dict):
        return type(value)((k, _moved(v, device)) for k, v in value.items())
    return value


def construction_site(recorder, frame):
    """Where the script builds the module that is being made: the user's line that calls the
    outermost nn.Module __init__ on the stack (`model = Net()`), else the innermost user line."""
    outermost = None
    while frame is not None:
        if frame.f_code.co_name == "__init__" and isinstance(frame.f_locals.get("self"), torch.nn.Module):
            outermost = frame
        frame = frame.f_back
    return recorder.user_place(outermost.f_back) if outermost is not None else None


def install_loader_places(recorder):
    """A batch is made where the script takes it from its DataLoader: tensors from worker
    processes arrive without a place, and collating's own lines are torch's, not the script's.
    Tensors an optimizer's step makes are its state, not the script's: no place either (most of
    a run's CPU calls are in these two, and finding a place is not free)."""
    from torch.utils.data import dataloader

    iterator = dataloader._BaseDataLoaderIter
    original_next = iterator.__next__

    def __next__(self):
        recorder.untracked += 1
        try:
            batch = original_next(self)
        finally:
            recorder.untracked -= 1
        place = recorder.user_place(sys._getframe(1))
        if place is not None:
            _walk(batch, lambda t: set_origin(t, place) if device_of(t) == "cpu" else None)
        return batch

    iterator.__next__ = __next__
    optimizer = torch.optim.Optimizer
    original_init = optimizer.__init__

    def untracked(step):
        @functools.wraps(step)
        def wrapper(*args, **kwargs):
            recorder.untracked += 1
            try:
                return step(*args, **kwargs)
            finally:
                recorder.untracked -= 1

        wrapper._device_doctor_untracked = True
        wrapper.hooked = True  # torch's profiling hook has wrapped step already, in __init__
        return wrapper

    def __init__(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        cls = type(self)
        if not getattr(cls.step, "_device_doctor_untracked", False):
            cls.step = untracked(cls.step)

    optimizer.__init__ = __init__


def install_parameter(recorder):
    """nn.Parameter(t) is made in C++ (_make_subclass), out of the mode's sight: it keeps t's device.
    A module's parameters and buffers come from where the module is built: a model left on the
    CPU is a mistake of that line (or of a move left out after it), not of its layers' lines."""
    original = torch.nn.Parameter.__new__

    def __new__(cls, data=None, requires_grad=True):
        parameter = original(cls, data, requires_grad)
        if data is not None:
            tag(parameter, device_of(data))
            set_origin(parameter, construction_site(recorder, sys._getframe(1)) or origin_of(data))
        return parameter

    torch.nn.Parameter.__new__ = staticmethod(__new__)
    register_buffer = torch.nn.Module.register_buffer

    def register(self, name, tensor, *args, **kwargs):
        result = register_buffer(self, name, tensor, *args, **kwargs)
        if isinstance(tensor, torch.Tensor) and device_of(tensor) == "cpu":
            set_origin(tensor, construction_site(recorder, sys._getframe(1)))
        return result

    torch.nn.Module.register_buffer = register


def install_data_parallel(machine, recorder):
    def forward(self, *inputs, **kwargs):
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        source = "cuda:%d" % self.device_ids[0]
        for t in itertools.chain(self.module.parameters(), self.module.buffers()):
            if device_of(t) != source:
                recorder.mistake("DD023", DP_MODULE % (source, device_of(t)), stack=recorder.user_stack(2))
                source = device_of(t)  # as if legal: the inputs meet the module where it is, no cascade
                break
        output = self.module(*_moved(inputs, source), **_moved(kwargs, source))
        return _moved(output, "cuda:%d" % self.output_device)

    torch.nn.DataParallel.forward = forward


class _SingleProcessDDP(torch.nn.Module):
    """DistributedDataParallel's device contract without a process group's collectives."""

    _recorder = None

    def __init__(self, module, device_ids=None, output_device=None, dim=0, **ignored):
        super().__init__()
        self.module = module
        self.device_ids = list(device_ids) if device_ids else None
        self.output_device = output_device
        devices = {device_of(p) for p in module.parameters()}
        if self.device_ids and (len(devices) > 1 or "cpu" in devices):
            shown = "{%s}" % ", ".join(repr(torch.device(d)) for d in sorted(devices))
            self._recorder.mistake("DD001", DDP_DEVICES % (self.device_ids, output_device, shown), stack=self._recorder.user_stack(2))
        self.device = None
        if self.device_ids:
            first = self.device_ids[0]
            self.device = first if isinstance(first, str) else "cuda:%d" % (first.index if isinstance(first, torch.device) else first)

    def forward(self, *inputs, **kwargs):
        if self.device is not None:
            inputs, kwargs = _moved(inputs, self.device), _moved(kwargs, self.device)
        return self.module(*inputs, **kwargs)

    def no_sync(self):
        import contextlib
        return contextlib.nullcontext()


def install_distributed(recorder):
    _SingleProcessDDP._recorder = recorder
    torch.nn.parallel.DistributedDataParallel = _SingleProcessDDP
    torch.nn.parallel.distributed.DistributedDataParallel = _SingleProcessDDP
    distributed = torch.distributed
    if distributed.is_available():
        original = distributed.init_process_group

        def init_process_group(backend=None, *args, **kwargs):
            # NCCL needs a GPU; gloo runs the same collectives on the CPU.
            if backend in ("nccl", "cuda:nccl"):
                backend = "gloo"
            return original(backend, *args, **kwargs)

        distributed.init_process_group = init_process_group


def _storage_key(tensor):
    storage = tensor.untyped_storage() if hasattr(tensor, "untyped_storage") else tensor.storage()
    return storage.data_ptr()


def _walk(value, visit, depth=0):
    if depth > 8:
        return
    if isinstance(value, torch.Tensor):
        visit(value)
    elif isinstance(value, torch.nn.Module):
        for t in itertools.chain(value.parameters(), value.buffers()):
            visit(t)
    elif isinstance(value, dict):
        for item in value.values():
            _walk(item, visit, depth + 1)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _walk(item, visit, depth + 1)


def _file_name(f):
    """The real path of a checkpoint named by a path or an open file; None for a buffer in memory
    (which this run wrote itself)."""
    name = f if isinstance(f, (str, bytes)) or hasattr(f, "__fspath__") else getattr(f, "name", None)
    if not isinstance(name, (str, bytes)) and not hasattr(name, "__fspath__"):
        return None
    try:
        return os.path.realpath(os.fsdecode(name))
    except (TypeError, ValueError):
        return None


def _location_tag(name):
    return "mps" if name.startswith("mps") else name


def install_checkpoints(machine, recorder):
    original_save, original_load = torch.save, torch.load

    written = set()  # checkpoints this run wrote: loading them here is loading them where they were saved

    def save(obj, f, *args, **kwargs):
        name = _file_name(f)
        if name is not None:
            written.add(name)
        places = {}

        def visit(t):
            if device_of(t) != "cpu":
                places[_storage_key(t)] = _location_tag(device_of(t))

        _walk(obj, visit)
        if not places:
            return original_save(obj, f, *args, **kwargs)
        real_tag = serialization.location_tag
        serialization.location_tag = lambda storage: places.get(storage.data_ptr()) or real_tag(storage)
        try:
            return original_save(obj, f, *args, **kwargs)
        finally:
            serialization.location_tag = real_tag

    def load(f, map_location=None, *args, **kwargs):
        targets = {}
        saved_on = []

        def remember(storage, location):
            if location != "cpu" and location not in saved_on:
                saved_on.append(location)
            targets[storage.data_ptr()] = _target(map_location, storage, location, machine)
            return storage

        result = original_load(f, remember, *args, **kwargs)
        if map_location is None and saved_on and _file_name(f) not in written and _file_name(f) is not None:
            fatal = any(machine.problem(machine.name(place)) for place in saved_on)
            recorder.mistake("DD013", LOAD % saved_on[0], fatal=fatal, stack=recorder.user_stack(2))

        def visit(t):
            name = targets.get(_storage_key(t))
            if name and name != "cpu":
                tag(t, machine.closest(name))

        _walk(result, visit)
        return result

    torch.save = save
    torch.load = load


def _target(map_location, storage, location, machine):
    """The device a stored tensor lands on, as torch.load's map_location decides."""
    if map_location is None:
        return machine.name(location)
    if isinstance(map_location, (str, torch.device)):
        return machine.name(map_location)
    if isinstance(map_location, dict):
        return machine.name(map_location.get(location, location))
    try:
        moved = map_location(storage, location)
    except Exception:  # storage.cuda() on this CPU build: the user meant their accelerator
        return machine.name(machine.kind)
    return machine.name(location) if moved is None else "cpu"
