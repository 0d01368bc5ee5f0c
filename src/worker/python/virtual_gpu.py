"""Runs a script, a module or a notebook on the CPU while PyTorch believes an accelerator is there.

usage: virtual_gpu.py --report FILE [--virtual cuda|cuda:N|mps] [--devices N] [--steps N]
                      [--time S] [--root DIR] (SCRIPT | --module NAME | --notebook FILE) [-- ARGS...]

Every device mistake the script makes is recorded with PyTorch's message, the rule it
matches and the user's stack, and the run goes on; the report (JSON) is written to FILE
at the end, whatever way the script ends. The script's own output goes where it would.
The runner (targets, step counting, stopping, the report) knows nothing of devices: a
future mode (a profiler on a real GPU) can install other hooks around the same run.
"""
import argparse
import json
import os
import signal
import sys
import time

REPORT_VERSION = 1


class StopRun(BaseException):
    """Ends the user's program early; a BaseException, so `except Exception` in it does not swallow it."""


def parse(argv):
    parser = argparse.ArgumentParser(prog="virtual_gpu.py")
    parser.add_argument("--report", required=True)
    parser.add_argument("--virtual", default="cuda")
    parser.add_argument("--devices", type=int, default=1)
    parser.add_argument("--steps", type=int, default=None)
    parser.add_argument("--time", type=float, default=None)
    parser.add_argument("--root", default=None)
    parser.add_argument("--module", default=None)
    parser.add_argument("--notebook", default=None)
    parser.add_argument("script", nargs="?")
    parser.add_argument("args", nargs=argparse.REMAINDER)
    # The target's own arguments follow `--`; argparse would read them as ours.
    split = argv.index("--") if "--" in argv else len(argv)
    options = parser.parse_args(argv[:split])
    options.args = list(options.args) + argv[split + 1:]
    return options


class Runner:
    """Runs the target, counts optimizer steps and batches, stops when told to."""

    def __init__(self, options, recorder):
        self.options = options
        self.recorder = recorder
        self.stopped_by = None
        self.optimizers = 0
        self.started = time.perf_counter()

    def on_step(self):
        self.recorder.steps += 1
        limit = self.options.steps
        if limit is not None and self.recorder.steps >= limit:
            self.stop("steps")

    def on_batch(self):
        self.recorder.batches += 1
        limit = self.options.steps
        # Batches stop a run only where there is no optimizer to count (inference).
        if limit is not None and self.optimizers == 0 and self.recorder.batches > limit:
            self.stop("steps")

    def stop(self, why):
        self.stopped_by = why
        raise StopRun(why)

    def arm_timer(self):
        if self.options.time is None or not hasattr(signal, "setitimer"):
            return

        def expired(signum, frame):
            self.stop("time")

        signal.signal(signal.SIGALRM, expired)
        signal.setitimer(signal.ITIMER_REAL, self.options.time)

    def disarm_timer(self):
        if self.options.time is not None and hasattr(signal, "setitimer"):
            signal.setitimer(signal.ITIMER_REAL, 0)

    def run_target(self):
        options = self.options
        if options.module:
            import runpy
            sys.argv = [options.module] + options.args
            sys.path[0] = os.getcwd()
            runpy.run_module(options.module, run_name="__main__", alter_sys=True)
        elif options.notebook:
            from virtual_gpu_notebook import run_notebook
            sys.argv = [options.notebook] + options.args
            sys.path[0] = os.path.dirname(os.path.abspath(options.notebook))
            run_notebook(options.notebook)
        else:
            import runpy
            script = os.path.abspath(options.script)
            sys.argv = [options.script] + options.args
            sys.path[0] = os.path.dirname(script)
            runpy.run_path(script, run_name="__main__")


def install_counters(runner):
    import functools

    import torch

    optimizer = torch.optim.Optimizer
    original_init = optimizer.__init__
    depth = [0]

    def counted(step):
        @functools.wraps(step)
        def wrapper(*args, **kwargs):
            depth[0] += 1
            try:
                result = step(*args, **kwargs)
            finally:
                depth[0] -= 1
            if depth[0] == 0:
                runner.on_step()
            return result

        wrapper._device_doctor_counted = True
        wrapper.hooked = True  # torch's own profiling hook wraps step once; this tells it that is done
        return wrapper

    def __init__(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        runner.optimizers += 1
        cls = type(self)
        if not getattr(cls.step, "_device_doctor_counted", False):
            cls.step = counted(cls.step)

    optimizer.__init__ = __init__
    from torch.utils.data import dataloader

    iterator = dataloader._BaseDataLoaderIter
    original_next = iterator.__next__

    def __next__(self):
        runner.on_batch()
        return original_next(self)

    iterator.__next__ = __next__
    from torch.utils.data._utils import pin_memory

    pin_memory.pin_memory = lambda data, device=None: data


def _user_traceback(tb, recorder):
    frames = []
    while tb is not None:
        frame = tb.tb_frame
        if recorder.user_files(frame.f_code.co_filename):
            from virtual_gpu_record import _frame_record
            record = _frame_record(frame)
            record["line"] = tb.tb_lineno
            frames.append(record)
        tb = tb.tb_next
    frames.reverse()
    return frames


def install_virtual_device(options, recorder):
    """The virtual accelerator: torch.cuda (or MPS) answers, every torch call is checked. Returns the mode."""
    from virtual_gpu_cuda import install_accelerator, install_amp, install_compile, install_cuda, install_mps
    from virtual_gpu_devices import Machine
    from virtual_gpu_mode import VirtualDeviceMode
    from virtual_gpu_modules import install_checkpoints, install_data_parallel, install_distributed, install_loader_places, install_parameter

    kind, _, index = options.virtual.partition(":")
    machine = Machine(kind, max(options.devices, int(index or 0) + 1), int(index or 0))
    (install_cuda if kind == "cuda" else install_mps)(machine, recorder)
    install_accelerator(machine, recorder)
    install_amp()
    install_compile()
    install_parameter(recorder)
    install_loader_places(recorder)
    install_data_parallel(machine, recorder)
    install_distributed(recorder)
    install_checkpoints(machine, recorder)
    mode = VirtualDeviceMode(machine, recorder)
    mode.install_indexing()
    return mode, machine


def run(options):
    import torch
    from virtual_gpu_record import Recorder, UserFiles

    root = options.root or (os.getcwd() if options.module else os.path.dirname(os.path.abspath(options.notebook or options.script)))
    recorder = Recorder(UserFiles(root))
    runner = Runner(options, recorder)
    mode, machine = install_virtual_device(options, recorder)
    install_counters(runner)
    report = {"version": REPORT_VERSION, "virtual": {"kind": machine.kind, "devices": machine.count}, "torch": torch.__version__,
              "outcome": "finished", "stoppedBy": None, "exitCode": 0, "error": None}
    runner.arm_timer()
    try:
        try:
            with mode:
                runner.run_target()
        finally:
            runner.disarm_timer()
    except StopRun:
        report["outcome"] = "stopped"
    except SystemExit as exit:
        code = exit.code if isinstance(exit.code, int) else (0 if exit.code is None else 1)
        report["exitCode"] = code
        if code != 0:
            report["outcome"] = "failed"
            report["error"] = {"type": "SystemExit", "message": str(exit.code), "stack": _user_traceback(exit.__traceback__, recorder)}
    except BaseException as error:  # the script's own failure is part of the report, not ours
        if runner.stopped_by is not None:
            # The stop landed where torch turned it into another error (a mode's exit, a C++ frame).
            report["outcome"] = "stopped"
        else:
            report["outcome"] = "failed"
            report["error"] = {"type": type(error).__name__, "message": str(error)[:2000], "stack": _user_traceback(error.__traceback__, recorder)}
    report["stoppedBy"] = runner.stopped_by
    report["steps"] = recorder.steps
    report["batches"] = recorder.batches
    report["seconds"] = round(time.perf_counter() - runner.started, 3)
    report["findings"] = recorder.findings()
    return report


def write_report(path, report):
    temporary = path + ".tmp"
    with open(temporary, "w", encoding="utf-8") as out:
        json.dump(report, out, indent=1, default=str)
    os.replace(temporary, path)


def main(argv):
    options = parse(argv)
    if not (options.script or options.module or options.notebook):
        sys.stderr.write("virtual_gpu.py: give a script, --module or --notebook\n")
        return 2
    sys.path.insert(1, os.path.dirname(os.path.abspath(__file__)))
    try:
        import torch  # noqa: F401
    except Exception as error:  # no PyTorch in this interpreter: a result, said plainly
        write_report(options.report, {"version": REPORT_VERSION, "outcome": "unusable", "error": {"type": type(error).__name__, "message": str(error), "stack": []}, "findings": []})
        return 0
    report = run(options)
    sys.stdout.flush()
    sys.stderr.flush()
    write_report(options.report, report)
    return 0


if __name__ == "__main__":
    code = main(sys.argv[1:])
    sys.stdout.flush()
    # Threads the script left running (loaders, loggers) must not keep the run alive.
    os._exit(code)
