// The --help texts. Kept beside each other so the overview and the details agree.
import { BENCH_HELP } from './commands/bench';
import { DETECT_HELP } from './commands/detect';

const OVERVIEW = `Device Doctor for PyTorch: finds PyTorch device mistakes in your code, and
measures what your accelerators can do.

Usage: device-doctor <command> [options]

Commands:
  lint [paths...]   Check Python files and notebooks for device mistakes
  doctor            Summarize this machine, its accelerators, PyTorch and the code here
  detect            Detect accelerators and what PyTorch can use (--json for the report)
  bench             Time matrix products on each device and engine; the speedup over the CPU
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

Options:
  --format <format>        text (default), json (Ruff's JSON shape) or sarif (SARIF 2.1.0)
  --fix                    Apply each finding's preferred fix, in place, then report what remains.
                           A file is left as it was when a fix would leave a syntax error,
                           and a symbolic link is never written through
  --select <codes>         Rules to run, comma-separated codes or prefixes (DD003, DD00, ALL);
                           replaces the select and ignore of pyproject.toml
  --extend-select <codes>  Rules to run in addition to the selected ones
  --ignore <codes>         Rules to skip
  --ignore-noqa            Report findings on lines marked '# noqa' too
  --exit-zero              Exit with 0 even when findings remain
  --max-bytes <n>          Skip files larger than n bytes (a notebook: its code cells), reported
                           as not checked; default 262144 (256 KiB), 0 for no limit
  -q, --quiet              Print findings only, without the summary line
  -h, --help               Show this help

Exit status:
  0  no findings (or --exit-zero)
  1  findings remain, or a file could not be read or was skipped (reported on stderr)
  2  usage error: unknown option, format or rule code, missing path, bad configuration

Examples:
  device-doctor lint
  device-doctor lint train.py notebooks/ --format json
  device-doctor lint --select DD003,DD010 src/
  device-doctor lint --fix .
`;

const DOCTOR = `Usage: device-doctor doctor

Prints the Device Doctor version and a summary of this machine (Node.js, platform,
CPU, memory), the accelerators it has and what PyTorch (python3 on PATH) can use,
the selected device and each problem with its remedy, then checks the Python files
and notebooks in the current folder and prints one line per rule that fired.
Always exits with 0: it informs, it does not gate.
`;

const TOPICS: Record<string, string> = { lint: LINT, doctor: DOCTOR, detect: DETECT_HELP, bench: BENCH_HELP };

/** The help for `topic`, or the overview when there is no such topic. */
export function helpText(topic?: string): string {
  return (topic && TOPICS[topic]) || OVERVIEW;
}
