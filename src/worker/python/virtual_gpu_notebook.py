"""A notebook run as Jupyter's "Run All" would: code cells in order, in one namespace.

IPython syntax has no kernel here: line magics and shell escapes (`%matplotlib`, `!pip`)
become `pass`, a cell magic (`%%time`) leaves the rest of its cell as plain Python.
Each cell is compiled under a name that maps its frames back to (notebook, cell index),
the index counting code cells only, as lint's notebook results do.
"""
import json
import linecache
import os
import re

from virtual_gpu_record import cell_filename

_MAGIC = re.compile(r"^(\s*)(%|!)")


def code_cells(path):
    with open(path, encoding="utf-8") as f:
        notebook = json.load(f)
    cells = []
    for cell in notebook.get("cells", []):
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        cells.append("".join(source) if isinstance(source, list) else source)
    return cells


def plain_python(source):
    lines = source.split("\n")
    if lines and lines[0].lstrip().startswith("%%"):
        lines[0] = ""
    return "\n".join(_MAGIC.sub(r"\1pass  # ", line) if _MAGIC.match(line) else line for line in lines)


def run_notebook(path):
    path = os.path.abspath(path)
    namespace = {"__name__": "__main__", "__builtins__": __builtins__, "display": print}
    for index, source in enumerate(code_cells(path)):
        name = cell_filename(path, index)
        text = plain_python(source)
        # Registered so tracebacks and the report can quote the cell's lines.
        linecache.cache[name] = (len(text), None, text.splitlines(True), name)
        exec(compile(text, name, "exec"), namespace)
