"""Asks this interpreter's PyTorch what it can use, and prints exactly one JSON object.

Device Doctor runs it as `python probe.py` with the user's own interpreter. The object
matches TorchStatus in src/core/devices/report.ts, without the interpreter field. When
torch cannot be imported it is {"error": "..."}.

Everything else goes to stderr: warnings, prints, and whatever native libraries write
to file descriptor 1 while torch loads. Runs on Python 3.8+ and on old torch releases,
so every torch attribute is looked up defensively: a missing one becomes null.
"""

import json
import os
import signal
import sys
import threading
import time

# Set by Device Doctor's process runner to its own pid in every child it starts.
PARENT_PID_VARIABLE = "DEVICE_DOCTOR_PARENT_PID"
# Linux's prctl option: the signal this process gets when its parent dies.
PR_SET_PDEATHSIG = 1


def claim_stdout():
    """Send fd 1 and sys.stdout to stderr; return a file for the real stdout."""
    try:
        sys.stdout.flush()
        saved = os.dup(1)
        os.dup2(2, 1)
        real = os.fdopen(saved, "w")
    except (OSError, ValueError, AttributeError):
        real = sys.__stdout__
    sys.stdout = sys.stderr
    return real


def exit_with_parent(environ=os.environ, poll_seconds=0.5):
    """Stop when the Device Doctor process that started this one dies.

    Device Doctor kills this process group to cancel, but a worker or CLI killed with SIGKILL
    cannot, and a benchmark or a collective rank would then hold a GPU for nobody. Armed only
    when DEVICE_DOCTOR_PARENT_PID is this process's parent: under torchrun or srun, or run by
    hand, the launcher decides. On Linux the kernel sends SIGKILL the moment the parent dies
    (even while a native call holds the GIL); elsewhere a thread looks every `poll_seconds`.
    """
    parent = os.getppid()
    if environ.get(PARENT_PID_VARIABLE) != str(parent):
        return False
    if sys.platform.startswith("linux"):
        attempt(_kill_me_with_parent)
    # The parent may have died before the line above, or this is not Linux.
    watcher = threading.Thread(target=_watch_parent, args=(parent, poll_seconds), name="exit-with-parent")
    watcher.daemon = True
    watcher.start()
    return True


def _kill_me_with_parent():
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")


def _watch_parent(parent, poll_seconds):
    while os.getppid() == parent:
        time.sleep(poll_seconds)
    # This process leads its group (the runner starts it so): whatever it started goes too.
    if os.getpgrp() == os.getpid():
        os.killpg(os.getpgrp(), signal.SIGKILL)
    os._exit(1)


def attempt(fn, default=None):
    """fn(), or default when it raises (an attribute this torch lacks, a driver error)."""
    try:
        return fn()
    except Exception:  # noqa: BLE001 - a probe reports, it never crashes
        return default


def error_text(exc):
    text = str(exc).strip()
    first_line = text.splitlines()[0] if text else ""
    return first_line or type(exc).__name__


def pci_bus_id(props):
    """nvidia-smi's spelling, 00000000:19:00.0, from the parts newer torch exposes."""
    direct = getattr(props, "pci_bus_id_str", None)
    if isinstance(direct, str):
        return direct
    domain = getattr(props, "pci_domain_id", None)
    bus = getattr(props, "pci_bus_id", None)
    device = getattr(props, "pci_device_id", None)
    if not all(isinstance(v, int) for v in (domain, bus, device)):
        return None
    return "%08X:%02X:%02X.0" % (domain, bus, device)


def uuid_text(props):
    value = getattr(props, "uuid", None)
    return None if value is None else attempt(lambda: str(value))


def describe_device(torch, index):
    cuda = torch.cuda
    props = attempt(lambda: cuda.get_device_properties(index))
    major = getattr(props, "major", None)
    minor = getattr(props, "minor", None)
    free_total = attempt(lambda: cuda.mem_get_info(index))
    return {
        "index": index,
        "name": getattr(props, "name", None) or attempt(lambda: cuda.get_device_name(index)) or "cuda:%d" % index,
        "capability": [major, minor] if isinstance(major, int) and isinstance(minor, int) else None,
        "totalMemoryBytes": getattr(props, "total_memory", None),
        "uuid": uuid_text(props),
        "pciBusId": pci_bus_id(props),
        "freeBytes": free_total[0] if free_total else None,
        "allocatedBytes": attempt(lambda: cuda.memory_allocated(index)),
        "reservedBytes": attempt(lambda: cuda.memory_reserved(index)),
    }


def cuda_built(torch):
    built = attempt(lambda: torch.backends.cuda.is_built())
    if isinstance(built, bool):
        return built
    # Before is_built() existed, a CUDA (or ROCm) build named its version.
    version = getattr(torch, "version", None)
    return getattr(version, "cuda", None) is not None or getattr(version, "hip", None) is not None


def cudnn_version(torch):
    cudnn = attempt(lambda: torch.backends.cudnn)
    if cudnn is None or not attempt(lambda: cudnn.is_available(), False):
        return None
    return attempt(lambda: cudnn.version())


def describe_cuda(torch):
    available = attempt(lambda: bool(torch.cuda.is_available()), False)
    count = attempt(lambda: int(torch.cuda.device_count()), 0) if available else 0
    return {
        "built": cuda_built(torch),
        "available": available,
        "version": attempt(lambda: torch.version.cuda),
        "deviceCount": count,
        "devices": [describe_device(torch, i) for i in range(count)],
        "cudnnVersion": cudnn_version(torch),
    }


def describe_mps(torch):
    mps = attempt(lambda: torch.backends.mps)
    built = bool(attempt(lambda: mps.is_built(), False)) if mps is not None else False
    available = bool(attempt(lambda: mps.is_available(), False)) if mps is not None else False
    result = {"built": built, "available": available, "allocates": False, "error": None}
    if available:
        try:
            torch.empty(1, device="mps")
            result["allocates"] = True
        except Exception as exc:  # noqa: BLE001 - the failure is the finding
            result["error"] = error_text(exc)
    return result


def current_accelerator(torch):
    accelerator = getattr(torch, "accelerator", None)
    if accelerator is None or not hasattr(accelerator, "current_accelerator"):
        return None
    device = attempt(lambda: accelerator.current_accelerator())
    if device is None:
        return None
    return getattr(device, "type", None) or attempt(lambda: str(device))


def describe_torch(torch):
    return {
        "version": attempt(lambda: str(torch.__version__), "unknown"),
        "cuda": describe_cuda(torch),
        "hip": attempt(lambda: torch.version.hip),
        "mps": describe_mps(torch),
        "currentAccelerator": current_accelerator(torch),
        "cudaVisibleDevices": os.environ.get("CUDA_VISIBLE_DEVICES"),
    }


def probe():
    try:
        import torch
    except ImportError as exc:
        return {"error": str(exc) or "No module named 'torch'"}
    except Exception as exc:  # noqa: BLE001 - e.g. OSError: libcudart.so not found
        return {"error": "%s: %s" % (type(exc).__name__, error_text(exc))}
    try:
        return describe_torch(torch)
    except Exception as exc:  # noqa: BLE001
        return {"error": "probing torch %s failed: %s" % (attempt(lambda: torch.__version__, "?"), error_text(exc))}


def main():
    exit_with_parent()
    out = claim_stdout()
    result = probe()
    out.write(json.dumps(result, ensure_ascii=True, default=str))
    out.write("\n")
    out.flush()
    sys.stderr.flush()
    # The answer is out. A normal exit would now tear torch down (finalizers, atexit hooks,
    # thousands of modules): a quarter of a second on a 2-core machine, a third of detect's
    # time beyond `import torch`, for nothing a probe needs. The OS reclaims the rest.
    os._exit(0)


if __name__ == "__main__":
    main()
