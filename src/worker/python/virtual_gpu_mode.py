"""Every torch call the script makes, checked with PyTorch's device rules.

A TorchFunctionMode sees each call into torch from Python (top level only: inside the
handler the mode is off, so a function's own internals are not seen twice). Calls that
name a device run on the CPU instead and tag their result; every other call checks that
its tensors could meet on a real machine (PyTorch's rules: 0-dim CPU tensors mix with
any device, a CPU index may index an accelerator tensor), records a mistake when not,
and runs anyway, so one run finds every mistake.
"""
import ast
import dis
import linecache
import os
import sys

import torch
from torch.overrides import TorchFunctionMode

from virtual_gpu_devices import ORIGIN, TAG, device_of, origin_of, set_origin, tag, tag_all, torch_device
from virtual_gpu_record import place_of, place_record, statement_start

_HERE = os.path.dirname(os.path.abspath(__file__))
# TorchFunctionMode's own wrapper frame sits between the caller and our handler.
_OVERRIDES = torch.overrides.__file__
_METHOD_WRAPPER = type("".__add__)  # how a property's __get__/__set__ reaches the mode
_Tensor = torch.Tensor
_BASE = torch.Tensor.__mro__[1]  # torch._C._TensorBase (TensorBase in 2.x): indexing's C entry
_FLOAT64 = torch.float64
# Where nn.Module runs a forward: torch calls below it and above the script are a library module's.
_MODULE_CALL = getattr(torch.nn.Module, "_call_impl", torch.nn.Module.__call__).__code__

MISMATCH = "Expected all tensors to be on the same device, but found at least two devices, %s and %s!"
NUMPY = "can't convert %s device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first."
MPS_FLOAT64 = "Cannot convert a MPS Tensor to float64 dtype as the MPS framework doesn't support float64. Please use float32 instead."
INDEX = "indices should be either on cpu or on the same device as the indexed tensor (%s)"
DISCARDED = "%s returns a moved copy and this statement throws it away: the tensor stays on %s"
FROM_HERE = "; the cpu tensor comes from this line"

# Functions that take CPU integer tensors (lengths, batch sizes) beside accelerator data.
_CPU_LENGTHS_OK = frozenset(["_pack_padded_sequence", "_pad_packed_sequence", "lstm", "gru", "rnn_tanh", "rnn_relu", "ctc_loss", "pack_padded_sequence"])
_INTEGER = (torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8)


def _gather(args, kwargs):
    found = []
    for value in args:
        if isinstance(value, _Tensor):
            found.append(value)
        elif type(value) in (list, tuple):
            found.extend(v for v in value if isinstance(v, _Tensor))
    for value in kwargs.values():
        if isinstance(value, _Tensor):
            found.append(value)
        elif type(value) in (list, tuple):
            found.extend(v for v in value if isinstance(v, _Tensor))
    return found


_discarded = {}
_MOVES = ("to", "cuda")


def _chain_drops_move(line):
    """True when `line` is a statement of its own whose value is a method chain through .to()/.cuda()
    (`x.to(device).view(-1)`): the moved copy is gone with it."""
    try:
        body = ast.parse(line.strip()).body
    except SyntaxError:
        return False
    if len(body) != 1 or not isinstance(body[0], ast.Expr):
        return False
    node = body[0].value
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr in _MOVES:
            return True
        node = node.func.value
    return False


def _result_discarded(frame):
    """True when the call `frame` is making is a statement of its own (the next instruction pops
    it), or the head of a chain that is (the line says so)."""
    key = (frame.f_code, frame.f_lasti)
    known = _discarded.get(key)
    if known is None:
        known = False
        for instruction in dis.get_instructions(frame.f_code):
            if instruction.offset > frame.f_lasti:
                known = instruction.opname == "POP_TOP"
                break
        if not known:
            known = _chain_drops_move(linecache.getline(frame.f_code.co_filename, frame.f_lineno))
        _discarded[key] = known
    return known


def _caller(depth=2):
    """The frame that called into torch, past our own frames and the mode's wrapper."""
    frame = sys._getframe(depth)
    while frame is not None and (os.path.dirname(frame.f_code.co_filename) == _HERE or frame.f_code.co_filename == _OVERRIDES):
        frame = frame.f_back
    return frame


class VirtualDeviceMode(TorchFunctionMode):
    def __init__(self, machine, recorder):
        super().__init__()
        self.machine = machine
        self.recorder = recorder
        t = _Tensor
        self.special = {
            t.to: self._to, t.cuda: self._cuda, t.cpu: self._cpu, t.type: self._type, t.type_as: self._type_as,
            t.numpy: self._numpy, t.__array__: self._numpy,
            t.item: self._sync, t.tolist: self._sync, t.__bool__: self._sync, t.__float__: self._sync,
            t.__int__: self._sync, t.__index__: self._sync,
            _BASE.__getitem__: self._indexed, _BASE.__setitem__: self._keep_self, t.copy_: self._keep_self,
            t.get_device: self._get_device, t.pin_memory: self._pin_memory, t.is_pinned: self._is_pinned,
            t.record_stream: self._no_op,
            torch._has_compatible_shallow_copy_type: self._plain,
        }
        self.properties = {
            ("device", "__get__"): self._device, ("is_cuda", "__get__"): self._is_cuda, ("is_mps", "__get__"): self._is_mps,
            ("is_cpu", "__get__"): self._is_cpu, ("data", "__set__"): self._set_data, ("grad", "__set__"): self._set_grad,
        }

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if kwargs is None:
            kwargs = {}
        if type(func) is _METHOD_WRAPPER:
            handler = self.properties.get((func.__self__.__name__, func.__name__))
            if handler is not None:
                return handler(func, args, kwargs)
        else:
            handler = self.special.get(func)
            if handler is not None:
                return handler(func, args, kwargs)
            if "device" in kwargs:
                if kwargs["device"] is not None:
                    return self._factory(func, args, kwargs)
                del kwargs["device"]
        return self._generic(func, args, kwargs)

    # ---- the rules ----

    def _common(self, func, tensors):
        """The device the operands meet on; a mistake recorded when they cannot meet."""
        first = device_of(tensors[0])
        if all(device_of(t) == first for t in tensors):
            return first
        lengths_ok = getattr(func, "__name__", "") in _CPU_LENGTHS_OK
        devices = []
        for t in tensors:
            name = device_of(t)
            if name == "cpu" and (t.dim() == 0 or (lengths_ok and t.dtype in _INTEGER)):
                continue
            if name not in devices:
                devices.append(name)
        accelerators = [d for d in devices if d != "cpu"] or [device_of(t) for t in tensors if device_of(t) != "cpu"]
        if len(devices) > 1:
            others = [d for d in devices if d != accelerators[0]]
            message = MISMATCH % (accelerators[0], others[0]) + _in(func)
            source = _cpu_source(tensors, lengths_ok) if others[0] == "cpu" else None
            self._mismatch(message, source, accelerators[0])
        return accelerators[0]

    def _mismatch(self, message, source, accelerator):
        """A mismatch is recorded where its CPU tensor was made (`source`), when that is known and
        is not the failing line itself: a real GPU fails later, at the use, which follows it in the
        stack; the fix (the move left out) belongs where the tensor is made."""
        stack = self._stack()
        made = place_record(source, "the cpu tensor comes from here") if source is not None else None
        if made is not None and stack:
            made["line"] = statement_start(source[0], source[1])
            used = stack[0]
            if (made["file"], made.get("cell"), made["line"]) != (used["file"], used.get("cell"), used["line"]):
                used["note"] = "it meets %s here" % accelerator
                message += FROM_HERE
                stack = [made] + stack
        self.recorder.mistake("DD001", message, stack=stack)

    def _generic(self, func, args, kwargs):
        tensors = _gather(args, kwargs)
        if not tensors:
            result = func(*args, **kwargs)
            self._made(result)
            return result
        name = self._common(func, tensors) if len(tensors) > 1 else device_of(tensors[0])
        result = func(*args, **kwargs)
        if name != "cpu":
            tag_all(result, name)
            if name[0] == "m" and isinstance(result, _Tensor) and result.dtype is _FLOAT64:
                self.recorder.mistake("DD001", MPS_FLOAT64, stack=self._stack())
        else:
            self._made(result, tensors)
        return result

    def _made(self, result, inputs=()):
        """A CPU result remembers the user's line that made it (see _cpu_source). Not an in-place
        result (most of an optimizer's step), nor a batch being fetched (the loop's line is set on
        it when it arrives): both are most of a run's CPU calls, and finding a line is not free."""
        if isinstance(result, _Tensor):
            for t in inputs:
                if result is t:
                    return
        elif not isinstance(result, (tuple, list)):
            return
        if not self.recorder.untracked:
            set_origin(result, made_where(self.recorder, sys._getframe(2), inputs), inputs)

    def _factory(self, func, args, kwargs):
        name = self.machine.name(kwargs["device"])
        if name is None:
            return func(*args, **kwargs)
        name = self._usable(name)
        kwargs["device"] = "cpu"
        result = func(*args, **kwargs)
        if isinstance(result, _Tensor):
            if name != device_of(result) and any(result is a for a in args):
                result = result.clone()
            tag(result, name)
            self._check_float64(name, result)
            if name == "cpu":
                self._made(result, args)
        return result

    def _usable(self, name):
        """`name` when this machine has it; else the mistake is recorded and the nearest device used."""
        problem = self.machine.problem(name)
        if problem is None:
            return name
        self.recorder.mistake("DD005", problem, stack=self._stack())
        return self.machine.closest(name)

    def _check_float64(self, name, tensor):
        if name[0] == "m" and tensor.dtype is _FLOAT64:
            self.recorder.mistake("DD001", MPS_FLOAT64, stack=self._stack())

    def _stack(self):
        return self.recorder.user_stack(3)

    # ---- moves ----

    def _moved(self, source, result, target, what):
        """`result` on `target`: a copy when the device changes, as a real move would make."""
        origin = device_of(source)
        if target == origin:
            return result
        if result is source:
            result = source.clone()
        tag(result, target)
        if target == "cpu":
            self.recorder.sync(what)
            set_origin(result, self.recorder.user_place(sys._getframe(2)))
        else:
            self._check_float64(target, result)
        caller = _caller(3)
        if caller is not None and self.recorder.user_files(caller.f_code.co_filename) and _result_discarded(caller):
            self.recorder.mistake("DD004", DISCARDED % (what, origin), fatal=False, stack=self._stack())
        return result

    def _to(self, func, args, kwargs):
        source = args[0]
        rest = args[1:]
        if rest and isinstance(rest[0], _Tensor):
            other = rest[0]
            result = func(source, other.dtype, *rest[1:], **kwargs)
            return self._moved(source, result, device_of(other), ".to()")
        device, dtype, non_blocking, memory_format = torch._C._nn._parse_to(*rest, **kwargs)
        name = self.machine.name(device) if device is not None else device_of(source)
        if name is None:
            return func(*args, **kwargs)
        name = self._usable(name)
        real = {"non_blocking": non_blocking}
        if dtype is not None:
            real["dtype"] = dtype
        if memory_format is not None:
            real["memory_format"] = memory_format
        if kwargs.get("copy"):
            real["copy"] = True
        result = func(source, **real)
        return self._moved(source, result, name, ".to(%s)" % ("'cpu'" if name == "cpu" else "device"))

    def _cuda(self, func, args, kwargs):
        device = args[1] if len(args) > 1 else kwargs.get("device")
        name = self._usable(self.machine.name("cuda" if device is None else device, "cuda"))
        return self._moved(args[0], args[0], name, ".cuda()")

    def _cpu(self, func, args, kwargs):
        source = args[0]
        if device_of(source) == "cpu":
            return func(*args, **kwargs)
        return self._moved(source, source, "cpu", ".cpu()")

    def _type(self, func, args, kwargs):
        source = args[0]
        dtype = args[1] if len(args) > 1 else kwargs.get("dtype")
        name = device_of(source)
        if dtype is None:
            text = func(source)
            return text.replace("torch.", "torch.%s." % name.split(":")[0], 1) if name != "cpu" else text
        target = getattr(dtype, "_device_doctor_device", None)
        if target is not None:
            dtype = dtype._device_doctor_cpu_type
        elif isinstance(dtype, str) and (".cuda." in dtype or ".mps." in dtype):
            target = self.machine.name(dtype.split(".")[1])
            dtype = dtype.replace(".cuda.", ".").replace(".mps.", ".")
        else:
            target = "cpu" if not isinstance(dtype, torch.dtype) else name
        target = self._usable(self.machine.name(target) if target in ("cuda", "mps") else target)
        return self._moved(source, func(source, dtype, *args[2:]), target, ".type()")

    def _type_as(self, func, args, kwargs):
        return self._moved(args[0], func(*args, **kwargs), device_of(args[1]), ".type_as()")

    # ---- reads to the host ----

    def _numpy(self, func, args, kwargs):
        name = device_of(args[0])
        if name != "cpu":
            self.recorder.mistake("DD003", NUMPY % name, stack=self._stack())
        return func(*args, **kwargs)

    def _sync(self, func, args, kwargs):
        if device_of(args[0]) != "cpu":
            self.recorder.sync("." + func.__name__.strip("_") + "()")
        return func(*args, **kwargs)

    # ---- indexing ----

    def _check_index(self, source, index):
        name = device_of(source)
        items = index if type(index) in (tuple, list) else (index,)
        for item in items:
            if isinstance(item, _Tensor):
                where = device_of(item)
                if where != "cpu" and where != name:
                    self.recorder.mistake("DD001", INDEX % name, stack=self._stack())
                    return

    def _indexed(self, func, args, kwargs):
        """The C indexing call; its index was checked by install_indexing's wrapper."""
        result = func(*args, **kwargs)
        name = device_of(args[0])
        if name != "cpu":
            tag_all(result, name)
        return result

    def install_indexing(self):
        """Tensor indexing does not always reach a TorchFunctionMode (1.13 skips __getitem__): wrap it."""
        base_get, base_set, check = _BASE.__getitem__, _BASE.__setitem__, self._check_index
        recorder = self.recorder

        def __getitem__(tensor, index):
            check(tensor, index)
            result = base_get(tensor, index)
            name = getattr(tensor, TAG, None)
            if name is not None:
                tag_all(result, name)
            elif not recorder.untracked:
                set_origin(result, made_where(recorder, sys._getframe(1), (tensor,)), (tensor,))
            return result

        def __setitem__(tensor, index, value):
            check(tensor, index)
            return base_set(tensor, index, value)

        _Tensor.__getitem__ = __getitem__
        _Tensor.__setitem__ = __setitem__
        # PyTorch 2 hands indexing to the mode as the overridable Tensor.__getitem__, which is
        # now the wrapper above: its index was checked there, not as an operation's operands
        # (a CPU index into a GPU tensor is legal), and is not checked twice.
        self.special[__getitem__] = lambda func, args, kwargs: self._indexed(base_get, args, kwargs)
        self.special[__setitem__] = lambda func, args, kwargs: base_set(*args, **kwargs)

    def _keep_self(self, func, args, kwargs):
        return func(*args, **kwargs)

    _plain = _keep_self

    def _no_op(self, func, args, kwargs):
        return None

    # ---- where a tensor says it is ----

    def _get_device(self, func, args, kwargs):
        name = device_of(args[0])
        return -1 if name == "cpu" else int(name.split(":")[1])

    def _pin_memory(self, func, args, kwargs):
        return args[0]

    def _is_pinned(self, func, args, kwargs):
        return False

    def _device(self, func, args, kwargs):
        name = getattr(args[0], TAG, None)
        return func(*args) if name is None else torch_device(name)

    def _is_cuda(self, func, args, kwargs):
        return device_of(args[0]).startswith("cuda")

    def _is_mps(self, func, args, kwargs):
        return device_of(args[0]).startswith("mps")

    def _is_cpu(self, func, args, kwargs):
        return device_of(args[0]) == "cpu"

    def _set_data(self, func, args, kwargs):
        func(*args, **kwargs)
        tag(args[0], device_of(args[1]))
        if device_of(args[1]) == "cpu" and origin_of(args[1]) is not None:
            set_origin(args[0], origin_of(args[1]))  # module.cpu(): its parameters come from that line now

    def _set_grad(self, func, args, kwargs):
        target, grad = args[0], args[1]
        if isinstance(grad, _Tensor) and device_of(grad) != device_of(target):
            message = "assigned grad has data located on a different device (%s) than the tensor (%s)" % (device_of(grad), device_of(target))
            self.recorder.mistake("DD001", message, stack=self._stack())
        return func(*args, **kwargs)


def _cpu_source(tensors, lengths_ok):
    """Where the script made the CPU operand of a mismatch (see made_where), or None."""
    for t in tensors:
        if device_of(t) == "cpu" and t.dim() != 0 and not (lengths_ok and t.dtype in _INTEGER):
            place = origin_of(t)
            if place is not None:
                return place
    return None


def made_where(recorder, frame, inputs):
    """Where a CPU result is made, for the report of a mismatch it meets later. The script's own
    line, unless the result only transforms a CPU input that was made further out: inside a
    library module's forward (nn.Flatten), or in a function the input's maker called (a batch
    handed to forward, which reshapes it). The move left out belongs where the input was made."""
    user_files, known = recorder.user_files, recorder.user_files.cache
    in_module = False
    while frame is not None:
        code = frame.f_code
        if code is _MODULE_CALL:
            in_module = True
        mine = known.get(code.co_filename)
        if mine is None:
            mine = user_files(code.co_filename)
        if mine:
            break
        frame = frame.f_back
    if frame is None:
        return None
    for t in inputs:
        if isinstance(t, _Tensor):
            given = t.__dict__.get(ORIGIN)
            if given is not None and (in_module or (given[3] != id(frame) and recorder.calls_out_of(given, frame))):
                return given
    return place_of(frame)


def _in(func):
    name = getattr(func, "__name__", None)
    return "" if not name else " (in %s)" % name
