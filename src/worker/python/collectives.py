"""Times torch.distributed collectives as one rank of a process group, checking every result.

This is the script one rank runs. Device Doctor's launcher starts one process per rank on
this machine; on a cluster you start it the way training runs, under torchrun (Debian's
torch ships it as `python3 -m torch.distributed.run`) or srun:

    python3 -m torch.distributed.run --nproc_per_node 2 collectives.py --collective all-reduce --max-bytes 4194304

(`--nproc_per_node` with underscores: torchrun accepts it in every version; torch 1.13's
refuses the hyphenated spelling. Debian's torch 1.13 also needs `--redirects 1 --tee 2`.)

torchrun sets RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR and MASTER_PORT, which is all it
reads of the environment (init_method "env://", unless --store-file is given); under srun,
which sets only SLURM_PROCID, SLURM_NTASKS and SLURM_LOCALID, those stand in for the first
three and MASTER_ADDR and MASTER_PORT are exported by the job script. The backend is NCCL on CUDA/ROCm devices (one device
per rank: cuda:LOCAL_RANK) and gloo on the CPU.

Options: --collective all-reduce|all-gather|broadcast|send-recv|all (comma-separated list
allowed), --device cpu|cuda (default: cuda when torch sees one), --min-bytes / --max-bytes
(sizes double from min to max; default 1 MiB ... 1 GiB), --warmup (2), --iters (10),
--timeout seconds for the group's collectives and its start (120), --output PATH (rank 0
also writes its JSON there: for launchers that merge or prefix the ranks' stdout, as srun
and torchrun's --tee do), --store-file PATH (every rank on one machine: meet through a file
store at PATH instead of env://, so that no rank listens for the rendezvous; Device Doctor
gives its own ranks one in a private temporary folder).

Method, as nccl-tests does it: float32 buffers; for every size, warm-up iterations, then
timed ones; each iteration starts after a barrier, with the device synchronized before the
clock is read on both sides; an iteration's time is that of the slowest rank (an all-reduce
MAX of the ranks' times), and the median of the iterations is reported. Sizes: all-reduce and
broadcast move `bytes` per rank, all-gather gathers `bytes` in all (bytes / ranks from each),
send-recv sends `bytes` from every rank to the next one in a ring while receiving from the
previous one.

Checks, every iteration (warm-ups too): inputs are a small-integer pattern plus the rank, so
float32 sums are exact and the result is known in advance: all-reduce gives ranks x pattern +
the sum of the ranks, all-gather gives block r = pattern + r, broadcast gives rank 0's buffer
everywhere, send-recv gives pattern + the previous rank. A rank whose buffer differs is
named in "wrongRanks".

Output: rank 0 prints one JSON object on stdout (other ranks print nothing there):

    {"schemaVersion": 1, "torch", "backend", "device", "deviceName", "worldSize", "launcher",
     "dtype": "float32", "warmup", "iters",
     "results": [{"collective", "bytes", "timesSec", "medianSec", "algBwGBps", "busBwGBps",
                  "correct", "wrongRanks"}]}

With --p2p on CUDA, when rank 0 sees two GPUs or more, it then times a copy between every
ordered pair of them (the largest size, at most 256 MiB; torch's device-to-device copy) and
adds "p2p": {"bytes", "iters", "devices": [{"index", "name", "uuid", "pciBusId"}],
"gbps": [[from i to j, null on the diagonal]], "peerAccess": [[can_device_access_peer]]}.

algBwGBps and busBwGBps are nccl-tests' algorithm and bus bandwidths in GB/s (1e9 bytes):
algbw = bytes / median; busbw = algbw x 2(n-1)/n for all-reduce, x (n-1)/n for all-gather,
x 1 for broadcast and send-recv. They are here for people reading this script's output
directly; Device Doctor recomputes them from medianSec with its own copy of the formulas.

Stderr: "rank R/N ready (<backend> on <device>)" once the group has formed, "measured
<collective> <bytes>" from rank 0 after each size (and "measured p2p <bytes>"), and on failure
"collectives.py rank R/N: <why>" followed by the traceback; such a rank exits 1.

Test hook: --corrupt-rank R changes one element of rank R's result before each check, so
tests can prove that a wrong result is reported.
"""

import argparse
import datetime
import json
import os
import statistics
import sys
import time
import traceback

from probe import attempt, claim_stdout, describe_device, error_text, exit_with_parent

COLLECTIVES = ("all-reduce", "all-gather", "broadcast", "send-recv")
MIB = 1024 * 1024
# Small integers: every sum of patterns over a few thousand ranks stays exact in float32.
PATTERN_PERIOD = 251
ELEMENT_BYTES = 4
# A peer copy this large runs at the link's speed; larger only takes longer.
P2P_MAX_BYTES = 256 * MIB


def bus_factor(collective, world):
    if collective == "all-reduce":
        return 2.0 * (world - 1) / world
    if collective == "all-gather":
        return float(world - 1) / world
    return 1.0


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="collectives.py", description="torch.distributed collective bandwidth, one rank")
    parser.add_argument("--collective", default="all")
    parser.add_argument("--device", choices=("cpu", "cuda"), default=None)
    parser.add_argument("--min-bytes", type=int, default=MIB)
    parser.add_argument("--max-bytes", type=int, default=1024 * MIB)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--iters", type=int, default=10)
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--output", default=None)
    parser.add_argument("--p2p", action="store_true")
    parser.add_argument("--store-file", default=None)
    parser.add_argument("--corrupt-rank", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    names = COLLECTIVES if args.collective == "all" else tuple(n.strip() for n in args.collective.split(","))
    unknown = [n for n in names if n not in COLLECTIVES]
    if unknown:
        parser.error("unknown collective %r (choose %s or all)" % (unknown[0], ", ".join(COLLECTIVES)))
    args.collectives = names
    if args.min_bytes < ELEMENT_BYTES or args.max_bytes < args.min_bytes:
        parser.error("need %d <= --min-bytes <= --max-bytes" % ELEMENT_BYTES)
    if args.iters < 1 or args.warmup < 0 or args.timeout <= 0:
        parser.error("need --iters >= 1, --warmup >= 0 and --timeout > 0")
    return args


def sweep_sizes(low, high):
    sizes = []
    size = low
    while size <= high:
        sizes.append(size)
        size *= 2
    return sizes


# Where each launcher puts a process's place in the group: torchrun and Device Doctor set
# torch's own names; srun sets only Slurm's (MASTER_ADDR and MASTER_PORT are then the user's).
RANK_VARIABLES = (("RANK", "WORLD_SIZE", "LOCAL_RANK"), ("SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"))


def rank_environment(environ=os.environ):
    for rank, world, local in RANK_VARIABLES:
        if rank in environ and world in environ:
            try:
                return int(environ[rank]), int(environ[world]), int(environ.get(local, "0"))
            except ValueError:
                raise SystemExit("collectives.py: %s=%r and %s=%r must be whole numbers" % (rank, environ[rank], world, environ[world]))
    raise SystemExit("collectives.py: RANK and WORLD_SIZE (or Slurm's SLURM_PROCID and SLURM_NTASKS) must be set (run it under torchrun or srun, or let Device Doctor start the ranks)")


def launcher_name(environ=os.environ):
    # torchrun (torch.distributed.elastic) names its run; srun gives only Slurm's variables.
    if environ.get("TORCHELASTIC_RUN_ID"):
        return "torchrun"
    if "RANK" not in environ and "SLURM_PROCID" in environ:
        return "srun"
    return "device-doctor"


class Group:
    """The process group and what every measurement needs from it."""

    def __init__(self, torch, dist, device, rank, world):
        self.torch, self.dist, self.device, self.rank, self.world = torch, dist, device, rank, world
        self.sync = (lambda: torch.cuda.synchronize(device)) if device.type == "cuda" else (lambda: None)

    def pattern(self, elements):
        block = self.torch.arange(PATTERN_PERIOD, dtype=self.torch.float32, device=self.device)
        repeats = -(-elements // PATTERN_PERIOD)
        return block.repeat(repeats)[:elements].contiguous()

    def slowest(self, seconds):
        """Each iteration's time on the slowest rank."""
        times = self.torch.tensor(seconds, dtype=self.torch.float64, device=self.device)
        self.dist.all_reduce(times, op=self.dist.ReduceOp.MAX)
        return times.tolist()

    def wrong_ranks(self, wrong):
        flags = self.torch.zeros(self.world, dtype=self.torch.float64, device=self.device)
        flags[self.rank] = 1.0 if wrong else 0.0
        self.dist.all_reduce(flags)
        return [r for r, flag in enumerate(flags.tolist()) if flag > 0]


def make_case(group, collective, size_bytes):
    """(bytes reported, prepare(), run(), check() -> bool, output) for one collective and size."""
    torch, dist, rank, world = group.torch, group.dist, group.rank, group.world
    elements = max(1, size_bytes // ELEMENT_BYTES)
    if collective == "all-gather":
        per_rank = max(1, elements // world)
        base = group.pattern(per_rank)
        mine = base + rank
        out = [torch.empty_like(base) for _ in range(world)]
        prepare = lambda: [o.fill_(-1) for o in out]
        run = lambda: dist.all_gather(out, mine)
        check = lambda: all(torch.equal(out[r] - r, base) for r in range(world))
        return per_rank * world * ELEMENT_BYTES, prepare, run, check, out[0]
    base = group.pattern(elements)
    buf = torch.empty_like(base)
    if collective == "all-reduce":
        source = base + rank
        expected = base * world + world * (world - 1) // 2
        prepare = lambda: buf.copy_(source)
        run = lambda: dist.all_reduce(buf)
        check = lambda: torch.equal(buf, expected)
    elif collective == "broadcast":
        expected = base + 1
        prepare = lambda: buf.copy_(expected) if rank == 0 else buf.fill_(-1)
        run = lambda: dist.broadcast(buf, 0)
        check = lambda: torch.equal(buf, expected)
    else:
        send = base + rank
        previous, following = (rank - 1) % world, (rank + 1) % world
        expected = base + previous
        ops = lambda: [dist.P2POp(dist.isend, send, following), dist.P2POp(dist.irecv, buf, previous)]
        prepare = lambda: buf.fill_(-1)
        run = lambda: [request.wait() for request in dist.batch_isend_irecv(ops())]
        check = lambda: torch.equal(buf, expected)
    return elements * ELEMENT_BYTES, prepare, run, check, buf


def measure(group, collective, size_bytes, args):
    reported, prepare, run, check, output = make_case(group, collective, size_bytes)
    seconds, wrong = [], False
    for iteration in range(args.warmup + args.iters):
        prepare()
        group.sync()
        group.dist.barrier()
        group.sync()
        started = time.perf_counter()
        run()
        group.sync()
        elapsed = time.perf_counter() - started
        if args.corrupt_rank == group.rank:
            output.view(-1)[0] += 1
        wrong = (not check()) or wrong
        if iteration >= args.warmup:
            seconds.append(elapsed)
    times = group.slowest(seconds)
    wrong_ranks = group.wrong_ranks(wrong)
    median = statistics.median(times)
    algbw = reported / median / 1e9 if median > 0 else None
    return {
        "collective": collective,
        "bytes": reported,
        "timesSec": times,
        "medianSec": median,
        "algBwGBps": algbw,
        "busBwGBps": algbw * bus_factor(collective, group.world) if algbw is not None else None,
        "correct": not wrong_ranks,
        "wrongRanks": wrong_ranks,
    }


def p2p_matrix(torch, size_bytes, warmup, iters):
    """Copy bandwidth from every GPU rank 0 sees to every other one, in GB/s (1e9 B/s).

    torch's own device-to-device copy (cudaMemcpyPeer, or through host memory where the pair
    has no peer access), timed with both devices synchronized; the median of `iters` copies
    after `warmup`. The diagonal is None: a copy within one GPU is not a link.
    """
    count = torch.cuda.device_count()
    gbps = [[None] * count for _ in range(count)]
    peer = [[None] * count for _ in range(count)]
    for i in range(count):
        for j in range(count):
            if i == j:
                continue
            peer[i][j] = attempt(lambda: bool(torch.cuda.can_device_access_peer(i, j)))
            source = torch.ones(size_bytes, dtype=torch.uint8, device="cuda:%d" % i)
            target = torch.empty(size_bytes, dtype=torch.uint8, device="cuda:%d" % j)
            seconds = []
            for iteration in range(warmup + iters):
                torch.cuda.synchronize(i)
                torch.cuda.synchronize(j)
                started = time.perf_counter()
                target.copy_(source, non_blocking=True)
                torch.cuda.synchronize(i)
                torch.cuda.synchronize(j)
                if iteration >= warmup:
                    seconds.append(time.perf_counter() - started)
            if not bool(target[-1].item() == 1):
                raise RuntimeError("the copy from cuda:%d to cuda:%d did not arrive" % (i, j))
            median = statistics.median(seconds)
            gbps[i][j] = size_bytes / median / 1e9 if median > 0 else None
            del source, target
    devices = [{key: described[key] for key in ("index", "name", "uuid", "pciBusId")} for described in (describe_device(torch, k) for k in range(count))]
    return {"bytes": size_bytes, "iters": iters, "devices": devices, "gbps": gbps, "peerAccess": peer}


def choose_device(torch, name, local_rank):
    name = name or ("cuda" if attempt(lambda: torch.cuda.is_available(), False) else "cpu")
    if name == "cpu":
        return torch.device("cpu"), "gloo"
    count = attempt(lambda: torch.cuda.device_count(), 0)
    if count <= local_rank:
        raise RuntimeError("this rank's device cuda:%d does not exist: torch sees %d CUDA device(s) (one rank per device)" % (local_rank, count))
    torch.cuda.set_device(local_rank)
    return torch.device("cuda", local_rank), "nccl"


def join_group(dist, backend, args, rank, world):
    """The rendezvous: a file every rank on this machine can reach, or torch's env://.

    With --store-file the ranks meet through a FileStore at that path (Device Doctor's own
    ranks: a private folder, no listening socket); what init_method="file://" builds, minus
    the URL, so that no character of the path needs quoting. Else env://, as torchrun and srun
    expect: rank 0's TCPStore at MASTER_ADDR:MASTER_PORT.
    """
    timeout = datetime.timedelta(seconds=args.timeout)
    if args.store_file is None:
        dist.init_process_group(backend, init_method="env://", rank=rank, world_size=world, timeout=timeout)
        return
    store = dist.FileStore(args.store_file, world)
    store.set_timeout(timeout)
    dist.init_process_group(backend, store=store, rank=rank, world_size=world, timeout=timeout)


def run(args, out, rank, world, local_rank):
    import torch
    import torch.distributed as dist

    device, backend = choose_device(torch, args.device, local_rank)
    join_group(dist, backend, args, rank, world)
    try:
        sys.stderr.write("rank %d/%d ready (%s on %s)\n" % (rank, world, backend, device))
        sys.stderr.flush()
        group = Group(torch, dist, device, rank, world)
        results = []
        for collective in args.collectives:
            for size in sweep_sizes(args.min_bytes, args.max_bytes):
                results.append(measure(group, collective, size, args))
                if rank == 0:
                    sys.stderr.write("measured %s %d\n" % (collective, results[-1]["bytes"]))
                    sys.stderr.flush()
        # Rank 0 alone, while the others wait at the barrier below: one process sees every
        # GPU of its node (a node's links, not the cluster's).
        p2p = None
        if args.p2p and rank == 0 and device.type == "cuda" and torch.cuda.device_count() >= 2:
            p2p = p2p_matrix(torch, min(args.max_bytes, P2P_MAX_BYTES), args.warmup, args.iters)
            sys.stderr.write("measured p2p %d\n" % p2p["bytes"])
            sys.stderr.flush()
        if rank == 0:
            name = attempt(lambda: torch.cuda.get_device_name(device), None) if device.type == "cuda" else "CPU"
            report = {
                "schemaVersion": 1,
                "torch": str(torch.__version__),
                "backend": backend,
                "device": device.type,
                "deviceName": name,
                "worldSize": world,
                "launcher": launcher_name(),
                "dtype": "float32",
                "warmup": args.warmup,
                "iters": args.iters,
                "results": results,
            }
            if p2p is not None:
                report["p2p"] = p2p
            text = json.dumps(report, ensure_ascii=True, allow_nan=False) + "\n"
            out.write(text)
            out.flush()
            if args.output:
                with open(args.output, "w") as file:
                    file.write(text)
        dist.barrier()
    finally:
        attempt(dist.destroy_process_group)


def main(argv):
    exit_with_parent()
    args = parse_args(argv)
    rank, world, local_rank = rank_environment()
    out = claim_stdout()
    try:
        run(args, out, rank, world, local_rank)
    except Exception as exc:  # noqa: BLE001 - the rank says why, then the launcher stops the others
        sys.stderr.write("collectives.py rank %d/%d: %s\n" % (rank, world, error_text(exc)))
        traceback.print_exc(file=sys.stderr)
        sys.stderr.flush()
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
