"""What a virtual-GPU run found: each mistake once per place, with the user's stack.

A mistake is kept with the message PyTorch would have raised and the rule it matches;
the same mistake at the same place (a loop) is counted, not repeated. Host syncs are
counted per site and judged against the optimizer steps at the end (DD007).
Only frames in the user's files make a stack: torch's, the standard library's and ours
would bury the line the person has to change.
"""
import ast
import linecache
import os
import sys
import sysconfig

_HERE = os.path.dirname(os.path.abspath(__file__))
_CELL_MARK = "#cell="


def cell_filename(notebook, index):
    """The file name a notebook cell is compiled under; frames in it map back to (notebook, cell)."""
    return "%s%s%d" % (notebook, _CELL_MARK, index)


class UserFiles:
    """Which code files are the user's: under the project root, outside installed packages and ours."""

    def __init__(self, root):
        self.root = os.path.join(os.path.abspath(root), "")
        paths = sysconfig.get_paths()
        self.outside = tuple(
            os.path.join(os.path.abspath(p), "") for p in {paths.get("stdlib"), paths.get("purelib"), paths.get("platlib")} if p
        )
        self.cache = {}

    def __call__(self, filename):
        known = self.cache.get(filename)
        if known is not None:
            return known
        self.cache[filename] = mine = self._judge(filename)
        return mine

    def _judge(self, filename):
        if _CELL_MARK in filename:
            return True
        if filename.startswith("<"):
            return False
        full = os.path.abspath(filename)
        if os.path.dirname(full) == _HERE or "site-packages" in full or "dist-packages" in full:
            return False
        if any(full.startswith(p) for p in self.outside) and not full.startswith(self.root):
            return False
        return full.startswith(self.root)


def _frame_record(frame):
    return place_record((frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name))


_statements = {}


def statement_start(filename, line):
    """The first line of the statement that holds `line`: the layers of `D = nn.Sequential(`
    made on the lines below it are one place, the statement's. A compound statement (a for
    loop) counts only its header. The line itself where the source cannot be read or parsed."""
    starts = _statements.get(filename)
    if starts is None:
        starts = _statements[filename] = {}
        try:
            tree = ast.parse("".join(linecache.getlines(filename)))
        except (SyntaxError, ValueError):
            tree = None
        for node in ast.walk(tree) if tree is not None else ():
            if isinstance(node, ast.stmt):
                body = getattr(node, "body", None)
                last = body[0].lineno - 1 if isinstance(body, list) and body and isinstance(body[0], ast.stmt) else node.end_lineno
                for number in range(node.lineno, max(last, node.lineno) + 1):
                    # ast.walk goes outside in: an inner statement's lines overwrite its parent's
                    starts[number] = node.lineno
    return starts.get(line, line)


def place_of(frame):
    """A frame as a place: kept on tensors, so it holds no reference to the frame itself."""
    return (frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name, id(frame))


def place_record(place, note=None):
    """A report frame for a place (code file name, line, function), as user_place returns it."""
    filename, line, function = place[:3]
    record = {"file": filename, "line": line, "function": function}
    if _CELL_MARK in filename:
        notebook, cell = filename.rsplit(_CELL_MARK, 1)
        record["file"], record["cell"] = notebook, int(cell)
    else:
        record["file"] = os.path.abspath(filename)
    if note:
        record["note"] = note
    return record


class Recorder:
    def __init__(self, user_files, max_frames=12):
        self.user_files = user_files
        self.max_frames = max_frames
        self.mistakes = {}
        self.syncs = {}
        self.steps = 0
        self.batches = 0
        self.untracked = 0  # inside a DataLoader's __next__ or an optimizer's step: no places kept
        self.notes = []

    def user_stack(self, skip=1):
        """The user's frames, innermost first, starting above our own frames."""
        frames = []
        frame = sys._getframe(skip)
        while frame is not None and len(frames) < self.max_frames:
            if self.user_files(frame.f_code.co_filename):
                frames.append(_frame_record(frame))
            frame = frame.f_back
        return frames

    def user_frame(self, frame):
        """The innermost user frame from `frame` outwards, or None."""
        known = self.user_files.cache
        while frame is not None:
            filename = frame.f_code.co_filename
            mine = known.get(filename)
            if mine is None:
                mine = self.user_files(filename)
            if mine:
                return frame
            frame = frame.f_back
        return None

    def user_place(self, frame):
        """(file, line, function, frame id) of the innermost user frame from `frame` outwards, or
        None. Cheap enough to run for every tensor the script makes: a tuple, no record."""
        frame = self.user_frame(frame)
        return None if frame is None else place_of(frame)

    @staticmethod
    def calls_out_of(place, frame):
        """True when the frame that made `place` is still running further out than `frame`: the
        code at `frame` was called (directly or not) by the code that made it."""
        frame = frame.f_back
        while frame is not None:
            if id(frame) == place[3] and frame.f_code.co_name == place[2]:
                return True
            frame = frame.f_back
        return False

    def mistake(self, code, message, fatal=True, stack=None):
        """Records a mistake (once per code, place and message); the run goes on."""
        stack = self.user_stack(2) if stack is None else stack
        top = stack[0] if stack else {}
        key = (code, top.get("file"), top.get("cell"), top.get("line"), message)
        found = self.mistakes.get(key)
        if found is None:
            self.mistakes[key] = {"code": code, "message": message, "fatal": fatal, "count": 1, "stack": stack, "step": self.steps}
        else:
            found["count"] += 1

    def sync(self, what):
        """A host synchronization on a virtual-device tensor, counted at its innermost user line."""
        stack = self.user_stack(2)
        if not stack:
            return
        top = stack[0]
        key = (top["file"], top.get("cell"), top["line"])
        entry = self.syncs.get(key)
        if entry is None:
            self.syncs[key] = entry = {"what": what, "count": 0, "steps": set(), "stack": stack}
        entry["count"] += 1
        entry["steps"].add(self.steps)

    def sync_findings(self):
        """DD007 for each site that synchronized in every step of a loop of at least two steps."""
        found = []
        if self.steps < 2:
            return found
        for entry in self.syncs.values():
            if len(entry["steps"]) >= self.steps:
                per_step = entry["count"] / float(self.steps)
                message = "%s waits for the device in every training step (%.1f per step over %d steps): the GPU idles while the host reads" % (
                    entry["what"], per_step, self.steps)
                found.append({"code": "DD007", "message": message, "fatal": False, "count": entry["count"], "stack": entry["stack"], "step": 0})
        return found

    def findings(self):
        return sorted(list(self.mistakes.values()) + self.sync_findings(), key=_reading_order)


def _reading_order(finding):
    top = finding["stack"][0] if finding["stack"] else {}
    return (top.get("file", ""), top.get("cell", -1), top.get("line", 0), finding["code"])
