"""torch.cuda (or MPS) as a machine with that accelerator would answer, on a CPU build.

Queries answer plausibly, synchronize/streams/events are no-ops on the CPU, autocast for
the accelerator is inert and GradScaler passes through (the CPU has no float16 kernels
worth emulating; the device rules do not depend on them). Each replacement keeps the
signature of what it replaces, so scripts call them as they would on a real machine.
"""
import contextlib
import time
import types

import torch

from virtual_gpu_devices import tag

GIB = 1024 ** 3
_NAME = "Device Doctor virtual %s"


class _Properties:
    def __init__(self, kind, index):
        self.name = _NAME % kind.upper()
        self.major, self.minor = 8, 0
        self.total_memory = 80 * GIB
        self.multi_processor_count = 108
        self.is_integrated = 0
        self.is_multi_gpu_board = 0
        self.index = index

    def __repr__(self):
        return "_CudaDeviceProperties(name='%s', major=8, minor=0, total_memory=81920MB, multi_processor_count=108)" % self.name


class _Event:
    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        self.when = None

    def record(self, stream=None):
        self.when = time.perf_counter()

    def synchronize(self):
        pass

    def wait(self, stream=None):
        pass

    def query(self):
        return True

    def elapsed_time(self, end_event):
        return ((end_event.when or 0.0) - (self.when or 0.0)) * 1000.0


class _Stream:
    def __init__(self, device=None, priority=0, **ignored):
        self.device = device

    def synchronize(self):
        pass

    def wait_stream(self, stream):
        pass

    def wait_event(self, event):
        pass

    def record_event(self, event=None):
        event = event or _Event()
        event.record()
        return event

    def query(self):
        return True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _inert_autocast(original):
    """autocast for the accelerator does nothing (CPU tensors); for the CPU it is the real one."""

    class autocast(original):
        def __init__(self, device_type="cuda", dtype=None, enabled=True, cache_enabled=None):
            if device_type in ("cuda", "mps"):
                device_type, enabled, dtype = "cpu", False, None
            kwargs = {} if dtype is None else {"dtype": dtype}
            if cache_enabled is not None:
                kwargs["cache_enabled"] = cache_enabled
            original.__init__(self, device_type, enabled=enabled, **kwargs)

    return autocast


def _cuda_autocast(base):
    class autocast(base):
        def __init__(self, enabled=True, dtype=None, cache_enabled=None):
            base.__init__(self, "cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)

    return autocast


def _passing_scaler(original):
    class GradScaler(original):
        def __init__(self, *args, **kwargs):
            kwargs["enabled"] = False
            if args and isinstance(args[0], str):
                original.__init__(self, args[0], **kwargs)
            else:
                original.__init__(self, **kwargs)

    return GradScaler


def _index(device, machine):
    if device is None:
        return machine.current
    if isinstance(device, int):
        return device
    name = machine.name(device, "cuda")
    return machine.current if name is None or name == "cpu" else int(name.split(":")[1])


def install_cuda(machine, recorder):
    cuda = torch.cuda

    def checked(device):
        index = _index(device, machine)
        if index >= machine.count or index < 0:
            recorder.mistake("DD005", "Invalid device id: %d (this machine has %d CUDA device(s))" % (index, machine.count), stack=recorder.user_stack(3))
            return 0
        return index

    def set_device(device):
        machine.current = checked(device)

    def synchronize(device=None):
        recorder.sync("torch.cuda.synchronize()")

    class device:
        def __init__(self, index):
            self.index = None if index is None or index == -1 else checked(index)

        def __enter__(self):
            self.previous = machine.current
            if self.index is not None:
                machine.current = self.index

        def __exit__(self, *exc):
            machine.current = self.previous
            return False

    answers = {
        "is_available": lambda: True,
        "device_count": lambda: machine.count,
        "current_device": lambda: machine.current,
        "set_device": set_device,
        "device": device,
        "get_device_name": lambda device=None: _NAME % "CUDA",
        "get_device_capability": lambda device=None: (8, 0),
        "get_device_properties": lambda device=None: _Properties("cuda", checked(device)),
        "mem_get_info": lambda device=None: (78 * GIB, 80 * GIB),
        "is_initialized": lambda: True,
        "init": lambda: None,
        "_lazy_init": lambda: None,
        "synchronize": synchronize,
        "empty_cache": lambda: None,
        "ipc_collect": lambda: None,
        "memory_summary": lambda device=None, abbreviated=False: "",
        "memory_stats": lambda device=None: {},
        "is_bf16_supported": lambda *a, **k: True,
        "get_arch_list": lambda: ["sm_80"],
        "Stream": _Stream,
        "Event": _Event,
        "stream": lambda stream=None: contextlib.nullcontext(stream),
        "current_stream": lambda device=None: _Stream(device),
        "default_stream": lambda device=None: _Stream(device),
        "get_rng_state": lambda device="cuda": torch.get_rng_state(),
        "set_rng_state": lambda state, device="cuda": None,
        "get_rng_state_all": lambda: [torch.get_rng_state() for _ in range(machine.count)],
        "set_rng_state_all": lambda states: None,
    }
    for name in ("memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved", "memory_cached", "max_memory_cached"):
        answers[name] = lambda device=None: 0
    for name in ("reset_peak_memory_stats", "reset_max_memory_allocated", "reset_max_memory_cached", "reset_accumulated_memory_stats"):
        answers[name] = lambda device=None: None
    for name, value in answers.items():
        setattr(cuda, name, value)
    torch.backends.cudnn.is_available = lambda: True
    _virtual_tensor_types(machine)


def _virtual_tensor_types(machine):
    """torch.cuda.FloatTensor and friends (old scripts build tensors with them)."""
    for name in ("FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "LongTensor", "IntTensor", "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor"):
        cpu_type = getattr(torch, name, None)
        if cpu_type is None:
            continue

        def make(cpu_type):
            def __new__(cls, *args, **kwargs):
                tensor = cpu_type(*args, **kwargs)
                tag(tensor, machine.name("cuda"))
                return tensor

            return type(name, (), {"__new__": __new__, "_device_doctor_device": "cuda", "_device_doctor_cpu_type": cpu_type})

        setattr(torch.cuda, name, make(cpu_type))


def install_mps(machine, recorder):
    mps_backend = torch.backends.mps
    mps_backend.is_available = lambda: True
    mps_backend.is_built = lambda: True
    mps = getattr(torch, "mps", None)
    if mps is None:
        mps = types.ModuleType("torch.mps")
        torch.mps = mps
    mps.synchronize = lambda: recorder.sync("torch.mps.synchronize()")
    mps.empty_cache = lambda: None
    mps.current_allocated_memory = lambda: 0
    mps.driver_allocated_memory = lambda: 0
    mps.manual_seed = lambda seed: torch.manual_seed(seed)
    mps.seed = lambda: None
    mps.device_count = lambda: 1


def install_accelerator(machine, recorder):
    """torch.accelerator (torch 2.6+) names the virtual device, where this torch has it."""
    accelerator = getattr(torch, "accelerator", None)
    if accelerator is None:
        return

    def set_index(index):
        machine.current = index if machine.kind == "cuda" else 0

    answers = {
        "is_available": lambda: True,
        "current_accelerator": lambda check_available=False: torch.device(machine.kind),
        "device_count": lambda: machine.count,
        "current_device_index": lambda: machine.current,
        "current_device_idx": lambda: machine.current,
        "set_device_index": set_index,
        "set_device_idx": set_index,
        "synchronize": lambda device=None: recorder.sync("torch.accelerator.synchronize()"),
    }
    for name, value in answers.items():
        setattr(accelerator, name, value)


def install_compile():
    """torch.compile hands back the function or module as it is: a compiled graph would run its
    kernels for the CPU tensors underneath, out of the mode's sight, and change no device rule."""
    if hasattr(torch, "compile"):
        torch.compile = lambda model=None, *args, **kwargs: model if model is not None else (lambda fn: fn)


def install_amp():
    """autocast for an accelerator is inert here; GradScaler passes losses and steps through."""
    original = torch.autocast
    inert = _inert_autocast(original)
    torch.autocast = inert
    if hasattr(torch, "amp"):
        torch.amp.autocast = inert
        if hasattr(torch.amp, "GradScaler"):
            torch.amp.GradScaler = _passing_scaler(torch.amp.GradScaler)
    torch.cuda.amp.autocast = _cuda_autocast(inert)
    torch.cuda.amp.GradScaler = _passing_scaler(torch.cuda.amp.GradScaler)
    if hasattr(torch.cuda, "GradScaler"):
        torch.cuda.GradScaler = torch.cuda.amp.GradScaler
