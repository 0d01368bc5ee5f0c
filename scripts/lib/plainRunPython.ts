// The Python that runs a corpus script plainly, with nothing of the virtual GPU loaded: as
// `python script.py args`, `python -m module args`, or a notebook's code cells in order in one
// namespace (Jupyter's "Run All"; `%magic` and `!shell` lines become blank, as IPython would
// not hand them to Python). It imports nothing of torch itself. Where the run raised is written
// as JSON to the report file named first (the script owns stdout and stderr):
//   {"failed": false}  or  {"failed": true, "type", "message", "frames": [{file, line, function, cell?}]}
// frames outermost first, as Python's traceback lists them; a notebook's cell frames carry the
// notebook's path and the index of the cell among code cells (as the virtual GPU reports them).
export const PLAIN_RUN_PYTHON = `
import json, os, runpy, sys, traceback
report, argv = sys.argv[1], sys.argv[2:]
CELL = "<plain-run cell %d>"
cells_of = {}

def notebook_cells(path):
    with open(path, encoding="utf-8") as f:
        cells = [c for c in json.load(f).get("cells", []) if c.get("cell_type") == "code"]
    for cell in cells:
        source = cell.get("source", "")
        text = "".join(source) if isinstance(source, list) else source
        yield "\\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in text.split("\\n"))

def run(argv):
    if argv[0] == "-m":
        sys.argv = argv[1:]
        sys.path.insert(0, os.getcwd())
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    elif argv[0].endswith(".ipynb"):
        sys.argv = argv
        sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
        scope = {"__name__": "__main__"}
        for index, source in enumerate(notebook_cells(argv[0])):
            cells_of[CELL % index] = (os.path.abspath(argv[0]), index)
            exec(compile(source, CELL % index, "exec"), scope)
    else:
        sys.argv = argv
        sys.path[0] = os.path.dirname(os.path.abspath(argv[0]))
        runpy.run_path(argv[0], run_name="__main__")

def frame(entry):
    name = entry.filename
    place = {"file": name if name.startswith("<") else os.path.abspath(name), "line": entry.lineno, "function": entry.name}
    if entry.filename in cells_of:
        place["file"], place["cell"] = cells_of[entry.filename]
    return place

outcome = {"failed": False}
try:
    run(argv)
except SystemExit as stop:
    if stop.code not in (None, 0):
        outcome = {"failed": True, "type": "SystemExit", "message": str(stop.code), "frames": []}
except BaseException as error:
    frames = [frame(entry) for entry in traceback.extract_tb(error.__traceback__)]
    outcome = {"failed": True, "type": type(error).__name__, "message": str(error), "frames": frames}
with open(report, "w", encoding="utf-8") as f:
    json.dump(outcome, f)
`;
