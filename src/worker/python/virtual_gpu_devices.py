"""The virtual machine's devices, and which one a CPU tensor stands for.

A tensor "on" the virtual GPU is a real CPU tensor with the device's name in an attribute.
Tensor attributes live in the tensor's Python object, which PyTorch keeps alive while C++
holds the tensor (PyObject preservation), so a tag survives in a module, an optimizer's
state or a gradient. No tag means the CPU.
"""
import torch

TAG = "_device_doctor_device"
# Where the script made a CPU tensor, (file, line, function): a CPU tensor that meets a GPU
# tensor is a mistake made where it came from (a move left out), not where it is used.
ORIGIN = "_device_doctor_origin"
ACCELERATORS = ("cuda", "mps")


class Machine:
    """What the script believes it runs on: `kind` ('cuda' or 'mps') with `count` devices."""

    def __init__(self, kind, count, current=0):
        self.kind = kind
        self.count = count if kind == "cuda" else 1
        self.current = current

    def name(self, spec, default_type=None):
        """'cuda:0', 'mps:0', 'cpu', or None for a device this emulation leaves alone (meta, xla)."""
        if spec is None:
            return None
        if isinstance(spec, int):
            return "%s:%d" % (default_type or self.kind, spec)
        if isinstance(spec, str):
            try:
                spec = torch.device(spec)
            except RuntimeError:
                return None
        if not isinstance(spec, torch.device):
            return None
        if spec.type == "cpu":
            return "cpu"
        if spec.type not in ACCELERATORS:
            return None
        index = spec.index
        if index is None:
            index = self.current if spec.type == "cuda" else 0
        return "%s:%d" % (spec.type, index)

    def problem(self, name):
        """PyTorch's message when this machine has no such device, else None."""
        if name is None or name == "cpu":
            return None
        kind, index = name.split(":")
        if kind != self.kind:
            if kind == "cuda":
                return "Torch not compiled with CUDA enabled"
            return "The MPS backend is not available on this machine (it needs macOS 12.3+ and an Apple GPU)"
        if int(index) >= self.count:
            return "CUDA error: invalid device ordinal (device %s requested, %d device(s) present)" % (name, self.count)
        return None

    def closest(self, name):
        """The device a mistaken name is taken to mean, so that one mistake does not cascade."""
        if self.problem(name) is None:
            return name
        return "%s:%d" % (self.kind, self.current if self.kind == "cuda" else 0)


def device_of(tensor):
    return getattr(tensor, TAG, "cpu")


def tag(tensor, name):
    """Marks `tensor` as living on `name`; the CPU is the absence of a mark."""
    if name == "cpu" or name is None:
        if TAG in tensor.__dict__:
            del tensor.__dict__[TAG]
    else:
        tensor.__dict__[TAG] = name


def origin_of(tensor):
    return tensor.__dict__.get(ORIGIN)


def set_origin(value, place, keep=()):
    """Remembers `place` on every tensor in `value` that is not one of `keep` (an in-place
    result keeps the place its tensor was made)."""
    if place is None:
        return
    if isinstance(value, torch.Tensor):
        if not any(value is k for k in keep):
            value.__dict__[ORIGIN] = place
    elif isinstance(value, (tuple, list)):
        for item in value:
            if isinstance(item, torch.Tensor) and not any(item is k for k in keep):
                item.__dict__[ORIGIN] = place


def torch_device(name):
    kind, _, index = name.partition(":")
    return torch.device(kind, int(index)) if index else torch.device(kind)


def tag_all(value, name):
    """Tags every tensor in a result (a tensor, or a tuple or list of them, e.g. torch.max's)."""
    if isinstance(value, torch.Tensor):
        tag(value, name)
    elif isinstance(value, (tuple, list)):
        for item in value:
            if isinstance(item, torch.Tensor):
                tag(item, name)
