"""Times matrix products with this interpreter's PyTorch and streams JSON lines.

Device Doctor runs it as `python bench.py '<json>'` with the user's own interpreter, so the
numbers are what the user's PyTorch really gets. The argument (every key optional):

    {"device": "cpu" | "cuda" | "cuda:N" | "mps", "dtypes": ["float32", ...],
     "sizes": [1024, ...], "repeats": 10, "repeatBudgetSec": null, "blockSec": 0.2,
     "warmup": 1, "budgetSec": null, "transfer": false, "memory": false,
     "memoryCopyBytes": null, "seed": 1, "samples": 64, "corrupt": false, "threads": null,
     "jobs": [{"dtype": "float32", "size": 1024}, ...]}

dtypes: float32, float16, bfloat16, and "tf32": float32 matrices multiplied with
torch.backends.cuda.matmul.allow_tf32 = True (restored afterwards), CUDA only; elsewhere
each tf32 job is answered "unsupported" with the reason.

"threads", when a number, is passed to torch.set_num_threads before anything is timed
(the CPU comparison of all threads against one); null leaves torch's own choice.

"jobs", when given, lists the products to time in order (a job's own "repeatBudgetSec"
overrides the argument's, as each size of a sweep has its own); else every dtype is run with
every size. With "budgetSec", a dtype's later jobs are skipped once one of its sizes takes
longer than that (median), as a size sweep does.

Repeats: without "repeatBudgetSec", "repeats" timed products, one sample each. With it, the
samples adapt to that many seconds (a blocked autorange, our own take on the idea of
torch.utils.benchmark's): a calibration finds how many products fill a block of about
"blockSec" (at least one product; the block is shortened to budget / MIN_BLOCKS when the
budget is small), then blocks run until the budget is spent, at least MIN_BLOCKS and at most
MAX_BLOCKS of them; each block's time / its products is one sample. A product longer than a
block is one product per block, and the calibration's own timing is then the first sample.
Small products are averaged over a block (the clock and the launch overhead no longer
dominate), large ones get more samples than a fixed count when they are quick, and the run
stays near its budget whatever the device's speed.

Serving the probe too (one import of torch for `device-doctor bench`): run as
`python bench.py '{"serve": true}'`, it imports torch, prints probe.py's object as
{"type": "probe", "report": {...}} (or {"type": "probe", "report": {"error": "..."}}), then
reads lines from stdin, each an argument as above, and runs each in turn as if given on the
command line, each ending with its "done" line (the CPU default times all threads and then
one thread: two arguments, one import); EOF or an empty line ends it with no further line.
Each argument's "threads" applies to it alone: one without it runs with torch's own choice.

Each stdout line is one JSON object, flushed as it is written:

    {"type": "ready", "torch": "2.4.0", "device": "cuda:0", "detail": "..."}
    {"type": "progress", "dtype", "size", "phase": warmup|timing|checking, "done", "repeats", "lastSec"?}
    {"type": "result", "dtype", "size", "status": "ok", "timesSec": [...], "productsPerSample",
     "maxRelError", "checksumRelError", "checkedEntries", "worst": {...}, "detail"}
    {"type": "result", "dtype", "size", "status": "unsupported" | "oom" | "failed", "message"}
    {"type": "stopped", "dtype", "size", "reason": "budget"}   (the rest of that dtype's sizes skipped)
    {"type": "transfer", "direction": hostToDevice|deviceToHost, "memory": pageable|pinned,
     "bytes", "timesSec": [...]}  or with "status": "unsupported", "message" instead of times
    {"type": "transfer", "direction": "deviceToDevice", "memory": "device", "bytes", "timesSec"}
         with "memory": true (or "transfer" on an accelerator): dst.copy_(src) of two buffers
         of "bytes" on the device (host memory on the CPU); each copy reads and writes bytes;
         "memoryCopyBytes" sets their size instead (tests keep host memory small with it)
    {"type": "error", "code": torch-missing|no-device|bad-args|failed, "message"}
    {"type": "done"}

Relative errors that are not finite are sent as null (JSON has no Infinity).

Method: inputs uniform in [0, 1) from a seeded generator, warm-up products, then timed
products (or blocks of them), each between two device synchronizations (torch.cuda.synchronize,
torch.mps.synchronize) read with time.perf_counter(); the product is written into one
preallocated output, so memory stays at the three n x n matrices the caller checked.
Correctness: sampled entries (both corners and seeded picks) recomputed in float64 from the
very inputs used, and a Freivalds row checksum C.x against A.(B.x) in float64 that sees a
wrong entry anywhere. The TypeScript side owns the thresholds and the statistics.

Test hook: "corrupt": true changes entry [0, 0] of the product after timing and before the
check (always a sampled entry), so tests can prove that a wrong product fails the run.

Runs on Python 3.8+ and torch 1.8+; newer torch attributes are looked up defensively.
Exits 0; failures are JSON lines, tracebacks go to stderr only.
"""

import json
import math
import os
import random
import sys
import time
import traceback

from probe import attempt, claim_stdout, error_text, exit_with_parent, probe

DTYPE_NAMES = ("float32", "tf32", "float16", "bfloat16")
# tf32 is float32 storage with a CUDA matmul mode, not a torch dtype.
STORAGE_DTYPE = {"tf32": "float32"}
DEFAULTS = {
    "device": "cpu",
    "dtypes": ["float32"],
    "sizes": [1024],
    "repeats": 10,
    "repeatBudgetSec": None,
    "blockSec": 0.2,
    "warmup": 1,
    "budgetSec": None,
    "transfer": False,
    "memory": False,
    "memoryCopyBytes": None,
    "seed": 1,
    "samples": 64,
    "corrupt": False,
    "jobs": None,
    "threads": None,
}
TRANSFER_MAX_BYTES = 256 * 1024 * 1024
TRANSFER_REPEATS = 5
# Autorange: fewer blocks than this give no quartiles worth reading; more than the cap add
# nothing but time (a budget of minutes on a tiny product).
MIN_BLOCKS = 5
MAX_BLOCKS = 100
# A block of more products than this is all launch overhead on any device.
MAX_PRODUCTS_PER_BLOCK = 1000000
# Device-to-device copy: large enough to leave every cache (an H200's L2 is 60 MiB),
# at most a quarter of the free device memory for each of its two buffers.
MEMORY_COPY_MAX_BYTES = 1024 * 1024 * 1024
MEMORY_COPY_HOST_MAX_BYTES = 256 * 1024 * 1024
MEMORY_COPY_REPEATS = 10
# Rows of a matrix copied to the host at once for the float64 checksum (about 32 MiB).
CHECK_CHUNK_ELEMENTS = 4 * 1024 * 1024


class Emitter:
    def __init__(self, out):
        self.out = out

    def __call__(self, kind, **fields):
        line = {"type": kind}
        line.update(fields)
        self.out.write(json.dumps(line, ensure_ascii=True, allow_nan=False, default=str))
        self.out.write("\n")
        self.out.flush()


class BenchError(Exception):
    def __init__(self, code, message):
        Exception.__init__(self, message)
        self.code = code


def finite_or_none(value):
    return value if isinstance(value, (int, float)) and math.isfinite(value) else None


def parse_args(argv):
    try:
        given = json.loads(argv[1]) if len(argv) > 1 else {}
    except ValueError as exc:
        raise BenchError("bad-args", "the argument is not JSON: %s" % exc)
    if not isinstance(given, dict):
        raise BenchError("bad-args", "the argument must be a JSON object")
    args = dict(DEFAULTS)
    args.update(given)
    for name in ("repeats", "warmup", "seed", "samples"):
        if not isinstance(args[name], int) or args[name] < 0:
            raise BenchError("bad-args", "%s must be a whole number >= 0, not %r" % (name, args[name]))
    if args["repeats"] < 1:
        raise BenchError("bad-args", "repeats must be at least 1")
    if args["memoryCopyBytes"] is not None and (isinstance(args["memoryCopyBytes"], bool) or not isinstance(args["memoryCopyBytes"], int) or args["memoryCopyBytes"] < 1):
        raise BenchError("bad-args", "memoryCopyBytes must be a whole number >= 1, not %r" % (args["memoryCopyBytes"],))
    for name in ("repeatBudgetSec", "blockSec"):
        value = args[name]
        if value is None and name == "repeatBudgetSec":
            continue
        if not is_seconds(value):
            raise BenchError("bad-args", "%s must be a positive number of seconds, not %r" % (name, value))
    if args["threads"] is not None and not (isinstance(args["threads"], int) and args["threads"] >= 1):
        raise BenchError("bad-args", "threads must be a whole number >= 1 or null, not %r" % (args["threads"],))
    sizes = args["sizes"]
    if not isinstance(sizes, list) or not sizes or not all(isinstance(n, int) and n >= 1 for n in sizes):
        raise BenchError("bad-args", "sizes must be a list of whole numbers >= 1, not %r" % (sizes,))
    dtypes = args["dtypes"]
    if not isinstance(dtypes, list) or not dtypes or not all(d in DTYPE_NAMES for d in dtypes):
        raise BenchError("bad-args", "dtypes must be a list of %s, not %r" % (", ".join(DTYPE_NAMES), dtypes))
    args["jobBudgets"] = job_budgets(args["jobs"]) if args["jobs"] is not None else {}
    args["jobs"] = parse_jobs(args["jobs"]) if args["jobs"] is not None else [(d, n) for d in dtypes for n in sizes]
    return args


def is_seconds(value):
    return not isinstance(value, bool) and isinstance(value, (int, float)) and 0 < value < float("inf")


def parse_jobs(jobs):
    valid = isinstance(jobs, list) and jobs and all(
        isinstance(j, dict) and j.get("dtype") in DTYPE_NAMES and isinstance(j.get("size"), int) and j["size"] >= 1
        and (j.get("repeatBudgetSec") is None or is_seconds(j["repeatBudgetSec"]))
        for j in jobs
    )
    if not valid:
        raise BenchError("bad-args", "jobs must be a list of {dtype, size, repeatBudgetSec?}, not %r" % (jobs,))
    return [(j["dtype"], j["size"]) for j in jobs]


def job_budgets(jobs):
    """A job's own repeatBudgetSec (a sweep's sizes each have theirs), by (dtype, size)."""
    return {(j["dtype"], j["size"]): j["repeatBudgetSec"] for j in jobs or [] if j.get("repeatBudgetSec") is not None}


def import_torch():
    try:
        import torch
    except ImportError as exc:
        raise BenchError("torch-missing", str(exc) or "No module named 'torch'")
    except Exception as exc:  # noqa: BLE001 - e.g. OSError: libcudart.so not found
        raise BenchError("torch-missing", "%s: %s" % (type(exc).__name__, error_text(exc)))
    return torch


def resolve_device(torch, name):
    """A torch.device that works here, or BenchError('no-device') saying why not."""
    version = attempt(lambda: torch.__version__, "?")
    if name == "cpu":
        return torch.device("cpu")
    if name == "cuda" or name.startswith("cuda:"):
        if not attempt(lambda: bool(torch.cuda.is_available()), False):
            raise BenchError("no-device", "torch %s cannot use CUDA or ROCm here (torch.cuda.is_available() is False)" % version)
        count = attempt(lambda: int(torch.cuda.device_count()), 0)
        index = 0 if name == "cuda" else int(name.split(":", 1)[1])
        if index >= count:
            raise BenchError("no-device", "torch %s sees %d CUDA device(s), so there is no %s" % (version, count, name))
        return torch.device("cuda", index)
    if name == "mps":
        mps = attempt(lambda: torch.backends.mps)
        if mps is None or not attempt(lambda: bool(mps.is_available()), False):
            raise BenchError("no-device", "torch %s cannot use MPS here (torch.backends.mps.is_available() is False)" % version)
        return torch.device("mps")
    raise BenchError("no-device", "unknown device %r" % name)


def synchronizer(torch, device):
    """Waits until the device has finished its queued work (a no-op on the CPU)."""
    if device.type == "cuda":
        return lambda: torch.cuda.synchronize(device)
    if device.type == "mps":
        mps = getattr(torch, "mps", None)
        if mps is not None and hasattr(mps, "synchronize"):
            return mps.synchronize
        # torch before 2.0 has no torch.mps.synchronize; reading a value back waits too.
        probe = torch.zeros(1, device=device)
        return lambda: probe.add_(0).cpu()
    return lambda: None


def describe_device(torch, device):
    version = attempt(lambda: str(torch.__version__), "?")
    if device.type == "cuda":
        name = attempt(lambda: torch.cuda.get_device_name(device), str(device))
        hip = attempt(lambda: torch.version.hip)
        tf32 = attempt(lambda: bool(torch.backends.cuda.matmul.allow_tf32), False)
        backend = ("ROCm %s" % hip) if hip else ("CUDA %s" % attempt(lambda: torch.version.cuda, "?"))
        return "torch %s, %s, %s%s" % (version, name, backend, ", TF32 allowed" if tf32 else "")
    if device.type == "mps":
        return "torch %s, Apple MPS" % version
    threads = attempt(lambda: torch.get_num_threads(), None)
    blas = blas_threads()
    own = (", %s %s thread%s" % (blas[0], blas[1], "" if blas[1] == 1 else "s")) if blas else ""
    return "torch %s, CPU, %s thread%s%s" % (version, threads, "" if threads == 1 else "s", own)


# BLAS libraries that keep a thread pool of their own, and the call that tells its size. A
# torch built against the system BLAS (Debian's: BLAS_INFO=generic) reports
# get_num_threads() == 1 while OpenBLAS multiplies on every core, and set_num_threads does
# not reach it (issue 28 item 7); threadpoolctl asks the loaded library the same way.
_BLAS_THREAD_CALLS = (("openblas", "OpenBLAS", "openblas_get_num_threads"), ("libmkl_rt", "MKL", "MKL_Get_Max_Threads"),
                      ("blis", "BLIS", "bli_thread_get_num_threads"))


def blas_threads():
    """(library, threads) of a BLAS loaded in this process that runs its own threads, or None."""
    try:
        with open("/proc/self/maps") as maps:
            paths = sorted({line.split()[-1] for line in maps if ".so" in line and line.split()[-1].startswith("/")})
    except OSError:
        return None
    import ctypes
    for path in paths:
        base = os.path.basename(path).lower()
        for key, name, call in _BLAS_THREAD_CALLS:
            if key not in base:
                continue
            count = attempt(lambda: int(getattr(ctypes.CDLL(path), call)()), None)
            if count:
                return name, count
    return None


def dtype_support(torch, name, device, sync):
    """None when a matmul in this dtype works on the device, else why not."""
    if name == "tf32" and device.type != "cuda":
        return ("tf32 is a CUDA matmul mode (torch.backends.cuda.matmul.allow_tf32); it does not apply to %s, "
                "where float32 products are computed in float32" % device.type)
    if name == "tf32" and attempt(lambda: torch.backends.cuda.matmul) is None:
        return "torch %s has no torch.backends.cuda.matmul.allow_tf32" % attempt(lambda: torch.__version__, "?")
    dtype = getattr(torch, STORAGE_DTYPE.get(name, name), None)
    if dtype is None:
        return "torch %s has no %s" % (attempt(lambda: torch.__version__, "?"), name)
    try:
        x = torch.ones(4, 4, dtype=dtype, device=device)
        torch.matmul(x, x)
        sync()
    except Exception as exc:  # noqa: BLE001 - the failure is the answer
        return error_text(exc)
    return None


def random_matrix(torch, n, dtype, device):
    """Uniform in [0, 1), made in the dtype on the device where torch can."""
    try:
        return torch.rand(n, n, dtype=dtype, device=device)
    except (RuntimeError, TypeError):
        return torch.rand(n, n, device=device).to(dtype)


def is_out_of_memory(exc):
    if isinstance(exc, MemoryError):
        return True
    text = str(exc).lower()
    return "out of memory" in text or "can't allocate memory" in text or "not enough memory" in text


def sample_positions(n, count, seed):
    """Both corners, then seeded picks: `count` distinct (row, col) pairs."""
    total = n * n
    wanted = min(max(count, 0), total)
    picked = []
    seen = set()
    for index in (0, total - 1):
        if len(picked) < wanted and index not in seen:
            seen.add(index)
            picked.append(index)
    rng = random.Random(seed ^ 0x5EED)
    while len(picked) < wanted:
        index = rng.randrange(total)
        if index not in seen:
            seen.add(index)
            picked.append(index)
    return [(i // n, i % n) for i in picked]


def relative_errors(torch, actual, expected, scale):
    tiny = sys.float_info.min
    errors = (actual - expected).abs() / scale.clamp(min=tiny)
    errors[(actual - expected) == 0] = 0.0
    errors[~torch.isfinite(actual)] = float("inf")
    return errors


def check_entries(torch, a, b, c, positions):
    rows = torch.tensor([r for r, _ in positions], dtype=torch.long, device=a.device)
    cols = torch.tensor([k for _, k in positions], dtype=torch.long, device=a.device)
    a_rows = a.index_select(0, rows).cpu().double()
    b_cols = b.index_select(1, cols).t().cpu().double()
    terms = a_rows * b_cols
    expected = terms.sum(1)
    scale = terms.abs().sum(1)
    actual = c[rows, cols].cpu().double()
    errors = relative_errors(torch, actual, expected, scale)
    worst = int(errors.argmax())
    row, col = positions[worst]
    return float(errors[worst]), {
        "row": row,
        "col": col,
        "expected": float(expected[worst]),
        "actual": finite_or_none(float(actual[worst])),
    }


def chunked_matvec(torch, m, x, absolute=False):
    """m @ x in float64 on the host, a block of rows at a time (m may live on a GPU)."""
    step = max(1, CHECK_CHUNK_ELEMENTS // max(1, m.shape[1]))
    parts = []
    for start in range(0, m.shape[0], step):
        block = m[start:start + step].cpu().double()
        parts.append((block.abs() if absolute else block).mv(x))
    return torch.cat(parts)


def checksum_error(torch, a, b, c, seed):
    """Freivalds: max over rows of |(C.x)_i - (A.(B.x))_i| / (|A|.(|B|.x))_i."""
    n = a.shape[0]
    generator = torch.Generator().manual_seed(seed ^ 0xC0FFEE)
    x = 0.5 + torch.rand(n, generator=generator, dtype=torch.float64)
    bx = chunked_matvec(torch, b, x)
    abs_bx = chunked_matvec(torch, b, x, absolute=True)
    expected = chunked_matvec(torch, a, bx)
    scale = chunked_matvec(torch, a, abs_bx, absolute=True)
    actual = chunked_matvec(torch, c, x)
    return float(relative_errors(torch, actual, expected, scale).max())


def time_block(torch, a, b, c, sync, count):
    """Seconds of `count` products, from a synchronized start to a synchronized end."""
    sync()
    start = time.perf_counter()
    for _ in range(count):
        torch.matmul(a, b, out=c)
    sync()
    return time.perf_counter() - start


def fixed_repeats(torch, a, b, c, sync, args, progress):
    times = []
    for i in range(args["repeats"]):
        seconds = time_block(torch, a, b, c, sync, 1)
        times.append(seconds)
        progress("timing", i + 1, args["repeats"], seconds)
    return times, 1


def products_per_block(torch, a, b, c, sync, block_sec):
    """(products that fill a block, the seconds of one product when that is 1 else None).

    Grows the count tenfold until a block is long enough to size from (a tenth of the
    target, well above the clock's resolution), then scales it to the target."""
    count = 1
    while True:
        elapsed = time_block(torch, a, b, c, sync, count)
        if elapsed >= block_sec / 10 or count >= MAX_PRODUCTS_PER_BLOCK:
            break
        count = min(MAX_PRODUCTS_PER_BLOCK, count * 10)
    per_block = int(max(1, min(MAX_PRODUCTS_PER_BLOCK, round(count * block_sec / max(elapsed, 1e-9)))))
    return per_block, (elapsed if count == 1 and per_block == 1 else None)


def autorange(torch, a, b, c, sync, args, budget, progress):
    """Samples of per-product seconds, one per block, until the budget is spent (see the header)."""
    block_sec = min(args["blockSec"], budget / MIN_BLOCKS)
    per_block, first = products_per_block(torch, a, b, c, sync, block_sec)
    samples = [] if first is None else [first]
    spent = 0.0 if first is None else first
    while len(samples) < MAX_BLOCKS and (len(samples) < MIN_BLOCKS or spent < budget):
        seconds = time_block(torch, a, b, c, sync, per_block)
        spent += seconds
        samples.append(seconds / per_block)
        # The number of blocks is known only as they run: the budget over the mean block so far.
        planned = max(len(samples), min(MAX_BLOCKS, max(MIN_BLOCKS, int(math.ceil(budget / (spent / len(samples)))))))
        progress("timing", len(samples), planned, samples[-1])
    return samples, per_block


def time_products(torch, a, b, c, sync, args, budget, progress):
    """(per-product seconds of each sample, products per sample), after the warm-ups; budget None: fixed repeats."""
    for _ in range(args["warmup"]):
        progress("warmup", 0, args["repeats"])
        torch.matmul(a, b, out=c)
        sync()
    if budget is None:
        return fixed_repeats(torch, a, b, c, sync, args, progress)
    return autorange(torch, a, b, c, sync, args, budget, progress)


def median(values):
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def measure(torch, device, sync, dtype_name, n, args, emit):
    def progress(phase, done, repeats, last=None):
        fields = {"dtype": dtype_name, "size": n, "phase": phase, "done": done, "repeats": repeats}
        if last is not None:
            fields["lastSec"] = last
        emit("progress", **fields)

    dtype = getattr(torch, STORAGE_DTYPE.get(dtype_name, dtype_name))
    progress("preparing", 0, args["repeats"])
    torch.manual_seed(args["seed"])
    a = random_matrix(torch, n, dtype, device)
    b = random_matrix(torch, n, dtype, device)
    c = torch.empty(n, n, dtype=dtype, device=device)
    sync()
    budget = args["jobBudgets"].get((dtype_name, n), args["repeatBudgetSec"])
    times, per_sample = time_products(torch, a, b, c, sync, args, budget, progress)
    progress("checking", len(times), len(times))
    if args["corrupt"]:
        c[0, 0] = c[0, 0] * 2 + 1
    positions = sample_positions(n, args["samples"], args["seed"])
    max_rel, worst = check_entries(torch, a, b, c, positions)
    checksum = checksum_error(torch, a, b, c, args["seed"])
    return {
        "status": "ok",
        "timesSec": times,
        "productsPerSample": per_sample,
        "maxRelError": finite_or_none(max_rel),
        "checksumRelError": finite_or_none(checksum),
        "checkedEntries": len(positions),
        "worst": worst,
    }


def release_memory(torch, device):
    import gc

    gc.collect()
    if device.type == "cuda":
        attempt(lambda: torch.cuda.empty_cache())
    elif device.type == "mps":
        attempt(lambda: torch.mps.empty_cache())


def run_one(torch, device, sync, dtype_name, n, args, emit, detail):
    where = {"dtype": dtype_name, "size": n}
    tf32_before = None
    try:
        if dtype_name == "tf32":
            tf32_before = bool(torch.backends.cuda.matmul.allow_tf32)
            torch.backends.cuda.matmul.allow_tf32 = True
            detail = describe_device(torch, device)  # now says "TF32 allowed"
        outcome = measure(torch, device, sync, dtype_name, n, args, emit)
        outcome["detail"] = detail
    except Exception as exc:  # noqa: BLE001 - one failed size is a result, not the end
        if is_out_of_memory(exc):
            outcome = {"status": "oom", "message": error_text(exc)}
        else:
            traceback.print_exc(file=sys.stderr)
            outcome = {"status": "failed", "message": "%s: %s" % (type(exc).__name__, error_text(exc))}
    finally:
        if tf32_before is not None:
            # The next job (and a user of this process) gets the setting it had.
            torch.backends.cuda.matmul.allow_tf32 = tf32_before
        release_memory(torch, device)
    outcome.update(where)
    emit("result", **outcome)
    return outcome


def run_jobs(torch, device, sync, args, emit, detail):
    support = {}
    skipped = set()
    for index, (dtype_name, n) in enumerate(args["jobs"]):
        if dtype_name in skipped:
            continue
        if dtype_name not in support:
            support[dtype_name] = dtype_support(torch, dtype_name, device, sync)
        if support[dtype_name] is not None:
            emit("result", dtype=dtype_name, size=n, status="unsupported", message=support[dtype_name])
            continue
        outcome = run_one(torch, device, sync, dtype_name, n, args, emit, detail)
        budget = args["budgetSec"]
        if outcome["status"] == "ok" and budget is not None and median(outcome["timesSec"]) > budget:
            if any(d == dtype_name for d, _ in args["jobs"][index + 1:]):
                emit("stopped", dtype=dtype_name, size=n, reason="budget")
            skipped.add(dtype_name)


def transfer_buffers(torch, device):
    free = attempt(lambda: torch.cuda.mem_get_info(device)[0]) if device.type == "cuda" else None
    nbytes = TRANSFER_MAX_BYTES if not free else max(1 << 20, min(TRANSFER_MAX_BYTES, free // 4))
    host = torch.empty(nbytes, dtype=torch.uint8)
    host.fill_(1)  # touch every page, so the first copy does not time page faults
    on_device = torch.empty(nbytes, dtype=torch.uint8, device=device)
    return nbytes, host, on_device


def time_copies(torch, copy, sync, repeats=TRANSFER_REPEATS):
    copy()
    sync()
    times = []
    for _ in range(repeats):
        sync()
        start = time.perf_counter()
        copy()
        sync()
        times.append(time.perf_counter() - start)
    return times


def measure_transfer(torch, device, sync, emit):
    """Host-to-device and device-to-host copies from pageable and from pinned host memory."""
    nbytes, pageable, on_device = transfer_buffers(torch, device)
    buffers = [("pageable", pageable, None)]
    try:
        buffers.append(("pinned", pageable.pin_memory(), None))
    except Exception as exc:  # noqa: BLE001 - e.g. MPS, or no pinned memory here
        buffers.append(("pinned", None, error_text(exc)))
    for memory, host, problem in buffers:
        for direction in ("hostToDevice", "deviceToHost"):
            fields = {"direction": direction, "memory": memory, "bytes": nbytes}
            if host is None:
                emit("transfer", status="unsupported", message=problem, **fields)
                continue
            if direction == "hostToDevice":
                copy = lambda h=host: on_device.copy_(h, non_blocking=False)  # noqa: E731
            else:
                copy = lambda h=host: h.copy_(on_device, non_blocking=False)  # noqa: E731
            emit("transfer", status="ok", timesSec=time_copies(torch, copy, sync), **fields)


def available_host_bytes():
    """MemAvailable from /proc/meminfo (Linux), else None."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def memory_copy_bytes(torch, device, cap_given=None):
    """The size of each of the two buffers: a cap, and at most a quarter of what is free."""
    if cap_given is not None:
        return max(1, cap_given)
    if device.type == "cuda":
        free, cap = attempt(lambda: torch.cuda.mem_get_info(device)[0]), MEMORY_COPY_MAX_BYTES
    elif device.type == "cpu":
        free, cap = available_host_bytes(), MEMORY_COPY_HOST_MAX_BYTES
    else:
        free, cap = None, MEMORY_COPY_HOST_MAX_BYTES  # MPS shares host memory and says nothing of it
    nbytes = cap if not free else min(cap, free // 4)
    mib = 1024 * 1024
    return max(mib, nbytes // mib * mib)


def measure_memory_copy(torch, device, sync, emit, cap_given=None):
    """dst.copy_(src) within the device's memory: its bandwidth is 2 x bytes / time (read + write)."""
    fields = {"direction": "deviceToDevice", "memory": "device"}
    try:
        nbytes = memory_copy_bytes(torch, device, cap_given)
        fields["bytes"] = nbytes
        src = torch.empty(nbytes, dtype=torch.uint8, device=device)
        dst = torch.empty(nbytes, dtype=torch.uint8, device=device)
        src.fill_(1)  # touch every page of both (host memory is mapped on first write)
        dst.fill_(0)
        sync()
        times = time_copies(torch, lambda: dst.copy_(src), sync, MEMORY_COPY_REPEATS)
        emit("transfer", status="ok", timesSec=times, **fields)
    except Exception as exc:  # noqa: BLE001 - a failed copy is a result, not the end
        if not is_out_of_memory(exc):
            traceback.print_exc(file=sys.stderr)
        emit("transfer", status="failed", message="%s: %s" % (type(exc).__name__, error_text(exc)), **fields)
    finally:
        release_memory(torch, device)


_TORCH_OWN_THREADS = []  # torch's own thread count, read before any argument set another


def run(argv, emit):
    args = parse_args(argv)
    torch = import_torch()
    if not _TORCH_OWN_THREADS:
        _TORCH_OWN_THREADS.append(torch.get_num_threads())
    # Served arguments share the process: one without "threads" gets torch's own choice back.
    torch.set_num_threads(args["threads"] if args["threads"] is not None else _TORCH_OWN_THREADS[0])
    device = resolve_device(torch, str(args["device"]))
    sync = synchronizer(torch, device)
    detail = describe_device(torch, device)
    emit("ready", torch=attempt(lambda: str(torch.__version__), "?"), device=str(device), detail=detail)
    run_jobs(torch, device, sync, args, emit, detail)
    if args["transfer"] and device.type != "cpu":
        try:
            measure_transfer(torch, device, sync, emit)
        except Exception as exc:  # noqa: BLE001
            traceback.print_exc(file=sys.stderr)
            emit("transfer", status="failed", message=error_text(exc))
        finally:
            release_memory(torch, device)
    if args["memory"] or (args["transfer"] and device.type != "cpu"):
        measure_memory_copy(torch, device, sync, emit, args["memoryCopyBytes"])


def serve_requested(argv):
    """True for the argument {"serve": true}: the probe's report, then arguments from stdin."""
    try:
        given = json.loads(argv[1]) if len(argv) > 1 else {}
    except ValueError:
        return False
    return isinstance(given, dict) and given.get("serve") is True


def run_and_report(argv, emit):
    """One argument's run, ended by its "done" line whatever happened."""
    try:
        run(argv, emit)
    except BenchError as exc:
        emit("error", code=exc.code, message=str(exc))
    except Exception as exc:  # noqa: BLE001 - never a traceback on stdout
        traceback.print_exc(file=sys.stderr)
        code = "oom" if is_out_of_memory(exc) else "failed"
        emit("error", code=code, message="%s: %s" % (type(exc).__name__, error_text(exc)))
    emit("done")


def main():
    exit_with_parent()
    emit = Emitter(claim_stdout())
    if not serve_requested(sys.argv):
        run_and_report(sys.argv, emit)
        return
    try:
        report = probe()
    except Exception as exc:  # noqa: BLE001 - the probe line must come, whatever happened
        traceback.print_exc(file=sys.stderr)
        report = {"error": "%s: %s" % (type(exc).__name__, error_text(exc))}
    emit("probe", report=report)
    while True:
        line = sys.stdin.readline()
        if not line.strip():
            return
        run_and_report([sys.argv[0], line], emit)


if __name__ == "__main__":
    main()
