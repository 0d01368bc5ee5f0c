// The --help texts. Kept beside each other so the overview and the details agree.
// Nothing here imports a command's module: `lint` and `help` must not load the benchmark
// code (tfjs and its backends), so the bench and detect texts live here too.
import { DEFAULT_SIZE, JS_EVERYTHING_MAX_SIZE } from '../core/bench/plan';
import { SWEEP_SIZES } from '../core/bench/sweep';

const OVERVIEW = `Device Doctor for PyTorch: finds PyTorch device mistakes in your code, and
measures what your accelerators can do.

Usage: device-doctor <command> [options]

Commands:
  lint [paths...]   Check Python files and notebooks for device mistakes
  doctor            Summarize this machine, its accelerators, PyTorch and the code here
  detect            Detect accelerators and what PyTorch can use (--json for the report)
  bench             Time matrix products on each device and engine; the speedup over the CPU
  rule [code]       Print a rule's documentation (rule DD003), or list the rules
  run script.py     Run a script on the CPU as if it had a GPU; report every device mistake
  server --stdio    The language server, for editors that speak LSP (Neovim, Helix, Zed, JupyterLab)
  help [command]    Show help for a command

Options:
  -h, --help        Show this help
  -V, --version     Show the version

Run 'device-doctor help <command>' for a command's options.
`;

const LINT = `Usage: device-doctor lint [options] [paths...]

Checks Python files (*.py) and Jupyter notebooks (*.ipynb) for PyTorch device
mistakes. Folders are searched recursively; paths default to the current folder.
Hidden folders, virtual environments, node_modules, __pycache__, site-packages,
build and dist folders are skipped, and symbolic links to folders are not followed.
Each file's nearest pyproject.toml with a [tool.device-doctor] table applies.
A statement with a syntax error is skipped and the rest of the file checked; stderr
says where: path:row:col: syntax error; analysis of this statement skipped

Options:
  --format <format>        text (default), json (Ruff's JSON shape) or sarif (SARIF 2.1.0)
  --fix                    Apply each finding's preferred fix, in place, then report what remains.
                           A file is left as it was when a fix would leave a syntax error,
                           when it is read-only or has other hard links, or when it was saved
                           while being fixed; a symbolic link is never written through
  --select <codes>         Rules to run, comma-separated codes or prefixes (DD003, DD00, ALL);
                           replaces the select and ignore of pyproject.toml
  --extend-select <codes>  Rules to run in addition to the selected ones
  --ignore <codes>         Rules to skip
  --ignore-noqa            Report findings on lines marked '# noqa' too
  --exit-zero              Exit with 0 even when findings remain
  --max-bytes <n>          Skip files larger than n bytes (a notebook: its code cells), reported
                           as not checked; default 2097152 (2 MiB), 0 for no limit
  --no-cache               Analyse every file, without reading or writing the cache of analyses
  --cache-dir <dir>        Keep the cache there (default: .device_doctor_cache in the current
                           folder; an entry counts while the file, its imports and the tool
                           are unchanged)
  --torch-version <v>      The PyTorch version the code runs with (2.6, 2.6.0): checks and fixes
                           that depend on it use it; default: pyproject's target-torch, else
                           none is assumed
  --jobs <n>               Files checked at once, each in its own thread (default: one fewer
                           than the CPU cores, at most 8; a thread for every 4 files at most;
                           never with --fix, which checks files one after another)
  -q, --quiet              Print findings only, without the summary line
  -h, --help               Show this help

Exit status:
  0  no findings (or --exit-zero)
  1  findings remain, a file could not be read or was skipped, or a fix could not be
     written (reported on stderr)
  2  usage error: unknown option, format or rule code, missing path, bad configuration

Examples:
  device-doctor lint
  device-doctor lint train.py notebooks/ --format json
  device-doctor lint --select DD003,DD010 src/
  device-doctor lint --fix .
`;

const DOCTOR = `Usage: device-doctor doctor [options]

Prints the Device Doctor version and a summary of this machine (Node.js, platform,
CPU, memory), the accelerators it has and what PyTorch (python3 on PATH, or --python)
can use, the selected device and each problem with its remedy, the interpreters
that have PyTorch (conda environments, python3/python on PATH, /usr/bin/python3;
with --discover, the virtual environments in this folder too), then checks the
Python files and notebooks in the current folder and prints one line per rule that
fired. Always exits with 0: it informs, it does not gate.

Options:
  --python <path>    The Python interpreter to ask about PyTorch and benchmark with
                     (default: python3, then python, on PATH)
  --discover         Also ask the virtual environments in this folder about PyTorch.
                     This runs their python, which is code the folder supplies: not by
                     default, so running doctor in a cloned repository (or in CI on a
                     pull request) runs none of it; without it they are only named
  -h, --help         Show this help

Examples:
  device-doctor doctor
  device-doctor doctor --python /usr/bin/python3
  device-doctor doctor --discover
`;

const DETECT_HELP = `Usage: device-doctor detect [options]

Detects this machine's accelerators (NVIDIA with nvidia-smi, AMD with amd-smi,
rocm-smi or sysfs, Apple with system_profiler), the CPU and memory, asks your
Python's PyTorch what it can use, selects the device PyTorch code should use and
explains every problem found, with a remedy, and lists the other interpreters that
have PyTorch (text output only; the virtual environments in this folder only with
--discover). Exits with 0 even when there is no GPU or no PyTorch: that is a finding,
not an error.

Options:
  --json             Print the report as JSON (schemaVersion 1; bytes are integers,
                     unknown values null)
  --python <path>    The Python interpreter to ask about PyTorch
                     (default: python3, then python, on PATH)
  --device <device>  Check this device as if pinned (deviceDoctor.device), e.g. cuda:1
  --timeout <s>      Seconds each tool may take before it is killed
                     (default: 15 for nvidia-smi and the AMD tools, 120 for PyTorch)
  --verbose          Log each tool run to stderr
  --discover         Also ask the virtual environments in this folder about PyTorch
                     (text output). This runs their python, code the folder supplies:
                     not by default, so a cloned repository runs none of it
  -h, --help         Show this help

Examples:
  device-doctor detect
  device-doctor detect --discover
  device-doctor detect --json --python .venv/bin/python
`;

const BENCH_HELP = `Usage: device-doctor bench [options]

Times n×n matrix products (warm-up, synchronize, median of repeats, GFLOP/s) and
checks every product against float64, each with its % of the device's peak.
By default the selected device (see 'device-doctor detect') runs with PyTorch
against PyTorch on the CPU (all its physical cores) and the speedup is printed;
without an accelerator, torch on the CPU with all threads is compared with torch
on one thread ("torch cpu 2 threads is 1.9× faster than 1 thread"). Without
PyTorch the bundled wasm engine runs alone. Other engines run when named.

Options:
  --engine <engine>  torch, tfjs-node-gpu, tfjs-node, wasm, js, or all (every
                     engine on every device it has here; js only up to
                     n = ${JS_EVERYTHING_MAX_SIZE} there, as it is too slow to be worth measuring)
  --device <device>  cpu, cuda, cuda:N or mps (default: the selected device)
  --size <n>         Matrix order, 1 to 32768 (default ${DEFAULT_SIZE})
  --sweep            Sizes ${SWEEP_SIZES.join(', ')}, stopping after the first that takes
                     longer than half a second
  --repeats <r>      A fixed number of timed products per size (default: torch
                     adapts its repeats to --repeat-budget; other engines run 10)
  --repeat-budget <s>
                     torch: seconds of timing per size (default 1 s up to n = 1024,
                     2 s up to 4096, 4 s above). A calibration finds how many products
                     fill a block of about 0.2 s, then blocks run until the budget is
                     spent (5 to 100 blocks); each block's time / its products is one
                     sample, and the median and IQR are over the samples
  --dtype <dtypes>   float32 (default), tf32 (float32 with TensorFloat-32 allowed:
                     CUDA only), float16, bfloat16, a comma-separated list, or all
                     (tf32 included only with --device cuda or cuda:N)
  --memory           Also time a memory copy (dst.copy_(src), up to 256 MiB) on the
                     CPU; on an accelerator the device-memory copy (up to 1 GiB, GB/s
                     = 2 × bytes / time, % of the datasheet bandwidth) runs with the
                     host ↔ device copies in every run
  --python <path>    The Python interpreter whose PyTorch to use
                     (default: python3, then python, on PATH)
  --json             Print {"schemaVersion": 1, "results": [...], "speedup": ..., "problems": [...]}
  -h, --help         Show this help

Exit status: 0 measured; 1 a wrong product, a failed engine, or nothing measured;
2 an impossible request (size, dtype, device, engine) or bad usage; 130 Ctrl-C.

Every accelerator (is one of my GPUs slower than the others?):
  --devices all      The torch matmul on each GPU PyTorch sees, one at a time, then
                     all at once; a device more than 10 % below the median of its
                     peers is named, with its temperature and power (--size,
                     --repeats, --dtype apply; needs two GPUs or more)

Collective bandwidth (torch.distributed; one process per rank on this machine):
  --collective <c>   all-reduce, all-gather, broadcast, send-recv, a comma-separated
                     list, or all; time, algorithm and bus bandwidth (nccl-tests)
  --world-size <n>   Ranks (default: one per GPU PyTorch sees; 2 on the CPU)
  --device <device>  cuda (NCCL, rank r on cuda:r) or cpu (gloo)
  --min-size <size>  Smallest size, e.g. 1MiB (default); sizes double up to
  --max-size <size>  the largest (default 1GiB)
  --repeats <r>      Timed iterations per size (default 10, after 2 warm-ups)
  --timeout <s>      Stop every rank after this many seconds (default 1800)
  Exit status: 0 measured and every result right; 1 a rank failed or a result
  was wrong; 2 an impossible request.

Examples:
  device-doctor bench
  device-doctor bench --engine torch --device cpu --size 1024 --json
  device-doctor bench --engine all --sweep
  device-doctor bench --devices all --size 8192 --dtype bfloat16
  device-doctor bench --collective all-reduce --world-size 2 --device cpu --max-size 64MiB
`;

const RULE_HELP = `Usage: device-doctor rule [code]

Prints the documentation of a rule (its page in docs/rules, Markdown), as 'ruff rule'
does; it is read from the installed package, so it works offline. Without a code, lists
every rule: code, name, default severity (or 'planned'), and what it finds.

Options:
  -h, --help   Show this help

Exit status:
  0  printed
  2  unknown rule code

Examples:
  device-doctor rule DD003
  device-doctor rule DD003 | less
`;

const RUN_HELP = `Usage: device-doctor run [options] script.py [args...]
       device-doctor run [options] -m module [args...]
       device-doctor run [options] notebook.ipynb

Runs your code with your Python on the CPU while PyTorch believes an accelerator is
there (a virtual GPU), and reports every device mistake it makes: tensors on two
devices in one operation, .numpy() of a GPU tensor, torch.load without map_location of
a GPU checkpoint, a move whose result is thrown away, host syncs in every step. Each is
recorded with PyTorch's message and your stack, and the run goes on, so one run finds
them all. It runs your code: use it on code you trust.

Options:
  --virtual <device>  cuda (default), cuda:N (the current device) or mps
  --devices <n>       How many CUDA devices the machine has (default 1)
  --steps <n>         Stop after n optimizer steps (or n batches when there is no optimizer)
  --time <seconds>    Stop after this many seconds
  --format <format>   text (default), json or sarif: the shapes of lint's output
  --python <path>     The interpreter to run with (default: python3, then python, on PATH)
  -h, --help          Show this help

Exit status:
  0  no device mistake (notes on host syncs do not count)
  1  a device mistake was found, or the script failed
  2  usage error, or the run could not be made (no PyTorch, the interpreter missing)

Examples:
  device-doctor run train.py --epochs 1
  device-doctor run --steps 20 --format sarif train.py > run.sarif
  device-doctor run --virtual cuda --devices 2 -m mypackage.train
`;

const SERVER_HELP = `Usage: device-doctor server [--stdio]

Runs the Device Doctor language server (the one the VS Code extension uses) over
stdin and stdout, for any editor that speaks the Language Server Protocol: Neovim,
Helix, Zed, JupyterLab with jupyterlab-lsp. It publishes lint's findings as
diagnostics for Python files and notebook cells, and offers their quick fixes as code
actions. Configure your editor to start 'device-doctor server --stdio' for Python.
stdio is the only transport; --stdio is accepted because editors pass it.

Options:
  --stdio     Talk LSP over stdin and stdout (the default)
  -h, --help  Show this help

Exit status:
  0  the client sent shutdown, then exit
  1  the client went away without shutdown, or sent a message that cannot be read
  2  usage error, or the server bundle is missing
`;

const TOPICS: Record<string, string> = { lint: LINT, doctor: DOCTOR, detect: DETECT_HELP, bench: BENCH_HELP, rule: RULE_HELP, run: RUN_HELP, server: SERVER_HELP };

/** The help for `topic`, or the overview when there is no such topic. */
export function helpText(topic?: string): string {
  return (topic && TOPICS[topic]) || OVERVIEW;
}
