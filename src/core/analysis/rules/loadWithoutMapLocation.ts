// DD013 load-without-map-location: `torch.load(f)` puts every tensor back on the device it
// was saved from. Three kinds of code meet a checkpoint saved elsewhere:
// - code that picks its device at run time (it checks availability, takes a --device
//   option or a device parameter): a checkpoint a GPU run saved stops it where none is;
// - the same, when it also saves checkpoints: a load of a path it did not write in this
//   run (`--resume`, a pretrained file) still comes from another machine; reading back the
//   very path it saved (`torch.save(m, PATH)` … `torch.load(PATH)`) stays silent;
// - DDP/torchrun code (the device comes from LOCAL_RANK): every process restores the
//   tensors on the GPU that saved them, usually cuda:0, so all of them fill GPU 0.
// A load only a machine with an accelerator runs, or a data file read by a function that names
// no device and restores no model (shared/loadFlow.ts), is none of these.
// `map_location=` says where the tensors go. And with the interpreter's PyTorch at 2.6 or
// later (when the front end knows it), a load whose result is used as a pickled model or
// Namespace (`.eval()`, `ckpt["args"]`) fails under the new weights_only=True default: said
// in the same finding, or alone; weights_only=False is offered only beside map_location,
// never preferred, with the warning that it runs the pickled code.
import type { Node } from '../../python/pyNode';
import { perStatement } from '../../python/statementMemo';
import { callArguments, children, descendants, field, isMainGuard, unparen } from '../../python/syntax';
import { insertAt } from '../fixes';
import type { RuleFrame as Frame } from '../ruleApi';
import type { DeviceChoice, ProgramView, Rule, RuleHost } from '../ruleApi';
import type { Fix } from '../types';
import { shortText } from './shared/describe';
import { lastAssignmentIn } from './shared/moduleCode';
import { canReference } from './shared/deviceText';
import { inGpuOnlyTest } from './shared/gpuOnlyTest';
import { loadedOutsideDeviceFlow } from './shared/loadFlow';
import { torchAtLeast } from './shared/torchVersion';
import { pickledObjectIn } from './shared/weightsOnly';
import { argumentsKeptAs, instanceAttributePath } from './shared/constructorPaths';
import { ACCEL } from '../values';
import { OPTIONS_HOLDER_NAME, hasTensorlessState } from '../torchApi';

/** Library handlers that save a program's checkpoints to paths of their own making. */
const CHECKPOINT_HANDLERS = /^(ignite\.handlers(\.checkpoint)?\.(Checkpoint|ModelCheckpoint|DiskSaver)|(pytorch_)?lightning(\.pytorch)?\.callbacks(\.model_checkpoint)?\.ModelCheckpoint)$/;

/** A path the user gives on the command line or in a config: `args.model`, `opt.netG`, `cfg.weights`. */
function isUserOption(path: Node): boolean {
  const m = /^(\w+)\.\w+$/.exec(path.text);
  return !!m && OPTIONS_HOLDER_NAME.test(m[1]!);
}

const LOADS = new Set(['torch.load', 'torch.serialization.load']);

/**
 * A data cache the program builds from its own data (Hugging Face's `cached_features_file`,
 * `cached_train_...`): preprocessed features, not a checkpoint a GPU run saved.
 */
const DATA_CACHE = /cache/i;
const SAVES = new Set(['torch.save', 'torch.serialization.save']);

/** A file of settings or a vocabulary (`training_args.bin`, `hparams.pt`, `vocab.pth`): pickled Python objects, no tensors. */
const SETTINGS_FILE = /(^|[/\\_.-])(args|arguments|hparams|hyperparams|settings|options|vocab|vocabulary)\.\w+$/i;

/** The device names a fix may write, most specific first; only ones bound to a device value qualify. */
const DEVICE_NAMES = ['device', 'DEVICE', 'dev', 'self.device', 'args.device', 'opt.device', 'cfg.device', 'config.device'];

/** The local rank of a DDP process, as code names it: a fix maps the checkpoint to `f"cuda:{local_rank}"`. */
const LOCAL_RANK_NAMES = ['local_rank', 'args.local_rank', 'self.local_rank', 'opt.local_rank', 'LOCAL_RANK'];

/** A condition that runs its branch in one process only (`if rank == 0:`, `if is_main_process():`). */
const ONE_PROCESS = /\brank\b|local_rank|is_main|main_process|is_master|master_process/i;

/** What the analysed file's text says about its checkpoints and processes, read once per round. */
interface FileFacts {
  /** It reads LOCAL_RANK and starts a process group or wraps a model in DDP/FSDP. */
  ddp: boolean;
  /** The path texts its own `torch.save` calls write (`"best.pt"`, `PATH`, `os.path.join(out, "last.pt")`). */
  savedPaths: Set<string>;
  /** A save writes where its function's caller says (`def save(model, path)`): which paths is not known here. */
  savesToCallersPath: boolean;
  /** A library's checkpoint handler writes its checkpoints (Ignite's `Checkpoint`, Lightning's `ModelCheckpoint`). */
  savesThroughLibrary: boolean;
  /** How it names the local rank (`local_rank`, `args.local_rank`), for the fix. */
  rankTexts: Set<string>;
  /**
   * Receivers of `.load_state_dict(...)` that every assignment in the file makes a
   * learning-rate scheduler or GradScaler (torchApi.ts hasTensorlessState). Only those: an
   * unrelated assignment typed elsewhere leaves the fact, and the runs that read it, as they were.
   */
  tensorlessReceivers: Set<string>;
  /**
   * String paths that the project's other modules (imported by this file, or importing it)
   * write with torch.save (`EarlyStopping.save_checkpoint` writing "es_checkpoint.pt").
   */
  projectSavedPaths: Set<string>;
  /**
   * The file names (`data_stats.pth`, `splits.pth`) under which this file or the project's
   * other modules save data, not checkpoints (savesData), however the folder is spelled
   * (`data_dir + '/data_stats.pth'` there, `path.join(data_path, 'data_stats.pth')` here; a
   * name followed to its assignment). A checkpoint of the same name may come from another
   * machine (a resumed run), so its name silences nothing.
   */
  savedNames: Set<string>;
}

/** What one statement says, before readFacts keeps only what loads depend on. */
interface StatementFacts extends Omit<FileFacts, 'tensorlessReceivers' | 'projectSavedPaths'> {
  localRank: boolean;
  processGroup: boolean;
  /** `Class.attr` for each save to `self.attr` in a method (constructorPaths.ts). */
  savedSelfAttributes: Set<string>;
  /** Names assigned a tensorless-state constructor, names assigned anything else, and `.load_state_dict` receivers. */
  tensorlessState: Set<string>;
  otherState: Set<string>;
  stateReceivers: Set<string>;
}

export const loadWithoutMapLocation: Rule = (host) => {
  return {
    call: (frame, call, qualified) => {
      if (!qualified || !LOADS.has(qualified)) return;
      if (callArguments(call).hasSplat || inGpuOnlyTest(call)) return; // **kwargs may pass what is missing
      // Read once per program, and noted by every run that loads (a replay after an edit
      // needs the same facts); the PyTorch version is part of the fact's key.
      const facts = host.programFact(`DD013 checkpoints and processes, torch ${host.torchVersion ?? '?'}`, readFacts);
      const device = mapLocationProblem(host, frame, call, facts);
      const weights = weightsOnlyProblem(host, call);
      if (!device && !weights) return;
      const fixes = device ? fixOf(call, `map_location=${device.target}`, frame.unit, true) : [];
      if (device && weights) fixes.push(...fixOf(call, 'weights_only=False', frame.unit, false, ' (only for a file you trust: it runs the pickled code)'));
      host.report({
        unit: frame.unit,
        code: 'DD013',
        node: call,
        startNode: field(call, 'function') ?? call,
        message: device ? `${device.message}${weights ? ` Also: ${weights}` : ''}` : weights!,
        related: [],
        fixes,
      });
    },
  };
};

/** Where the checkpoint's tensors go is not said, and it matters here: the message and the map_location to write. */
function mapLocationProblem(host: RuleHost, frame: Frame, call: Node, facts: FileFacts): { message: string; target: string } | undefined {
  const args = callArguments(call);
  // map_location is the second parameter.
  if (args.keywords.has('map_location') || args.positional.length >= 2 || convertedAtOnce(call)) return undefined;
  if (loadedIntoTensorlessState(call, facts)) return undefined;
  const path = args.positional[0] ?? args.keywords.get('f');
  // The path by name and by what the name holds (`best = folder + '/best.pth'`).
  const shapes = path ? [...new Set([path, ...filesBehind(path), assignedValue(path, call)].map(normalized))] : [];
  // A data cache or a settings file holds no checkpoint's tensors, under DDP or not.
  if (path && DATA_CACHE.test(path.text)) return undefined;
  if (shapes.some((shape) => shape.startsWith('"') && SETTINGS_FILE.test(shape.slice(0, -1)))) return undefined;
  const load = `\`${shortText(call, 30)}\``;
  if (facts.ddp && !inOneProcess(call) && !inTestFunction(call)) {
    const device = deviceVariable(host, frame, DEVICE_NAMES);
    const rank = device ? undefined : LOCAL_RANK_NAMES.find((name) => facts.rankTexts.has(name) && canReference(frame, name));
    const target = device ?? (rank ? `f"cuda:{${rank}}"` : '"cpu"');
    return {
      target,
      message: `${load} puts every DDP process on cuda:0; pass each its own map_location. ` +
        'Without map_location every process restores each tensor on the GPU it was saved from, usually cuda:0, so all ' +
        `of them fill GPU 0 (out of memory, or a model on another process's GPU). Pass map_location=${target} (LOCAL_RANK).`,
    };
  }
  // `try: torch.load(p)` `except: torch.load(p, map_location=...)`: where the saved device is
  // missing the load raises and the handler loads onto one that is there.
  if (retriedWithMapLocation(call)) return undefined;
  const choice = host.deviceChoice();
  // A file that imports this one never runs its script block: there only its own choice counts.
  const why = choice.choiceByImporter && inScriptBlock(call) ? undefined : choice.runTimeChoice;
  // Only a machine with an accelerator runs this load (`if torch.cuda.is_available():`): the
  // GPU the checkpoint names is there. The CPU path is the one to check.
  if (!why || frame.acceleratorOnly) return undefined;
  // That choice is the file's; a function that reads a data file and names no device is not where it applies.
  if (loadedOutsideDeviceFlow(call)) return undefined;
  // A device parameter (`def generate(g, device)`) is a choice its callers make; where the
  // load's own code hard-codes CUDA (`device = "cuda"`), it only runs on a GPU machine.
  const byParameterOnly = !choice.availabilityCheck && !choice.deviceOption && why.startsWith('takes its device as the parameter');
  if (byParameterOnly && hardCodesCuda(frame)) return undefined;
  // `"ae_%s.pt" % device`: each machine reads the file a run on its own device wrote.
  if (path && namesTheDevice(frame, path)) return undefined;
  // The same string path another module of the project saves to: this run wrote it (an early
  // stopper's best checkpoint), on this machine.
  if (shapes.some((shape) => facts.projectSavedPaths.has(shape))) return undefined;
  // A data file the project writes itself under this name (statistics, splits): CPU data.
  const name = path ? fileName(path) : undefined;
  if (name && facts.savedNames.has(name)) return undefined;
  let saves = '';
  // Ignite's or Lightning's handler writes them, to paths not known here: only a path the user names (`args.model`) is another file.
  if (facts.savesThroughLibrary && !(path && isUserOption(path))) return undefined;
  // Saving only through the project's helpers, each of which saves data (a tokenised corpus
  // cached by `get_corpus()`), is no checkpoint this run wrote.
  const savesOnlyData = () => facts.savedPaths.size === 0 && !facts.savesToCallersPath && loadsAModel(call) &&
    host.programFact('DD013 helpers the file calls save only data', helpersSaveOnlyData);
  if (choice.savesCheckpoints && !savesOnlyData()) {
    // Through a helper of the project only: which paths it writes is not known here.
    if (facts.savedPaths.size === 0 || facts.savesToCallersPath || !path || shapes.some((shape) => savedThere(facts.savedPaths, shape))) return undefined;
    saves = ` This program saves checkpoints too (line ${choice.savesCheckpoints.startPosition.row + 1}), ` +
      `but not to \`${shortText(path)}\`: that one may come from another machine.`;
  }
  const target = deviceVariable(host, frame, DEVICE_NAMES) ?? '"cpu"';
  return {
    target,
    message: `${load} has no map_location; pass map_location=${target}. ` +
      `It restores each tensor on the device it was saved from, and this code ${why}, so a checkpoint saved on a GPU ` +
      `fails where none is ("Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False").${saves}`,
  };
}

/**
 * With PyTorch 2.6 or later (the interpreter's, when known), a checkpoint holding a
 * pickled object fails under the weights_only=True default; unknown or older: nothing.
 */
function weightsOnlyProblem(host: RuleHost, call: Node): string | undefined {
  if (callArguments(call).keywords.has('weights_only') || torchAtLeast(host.torchVersion, 2, 6) !== true) return undefined;
  const held = pickledObjectIn(call);
  if (!held) return undefined;
  const load = `\`${shortText(call, 30)}\``;
  const used = `\`${shortText(held.use, 24)}\``;
  const since = `PyTorch ${host.torchVersion} loads with weights_only=True, which raises "Weights only load failed" for it.`;
  return held.kind === 'model'
    ? `${load} reads a pickled model; load a saved state_dict instead. It is used as one (${used}), and ${since} ` +
      'Save `model.state_dict()` and load that into a built model; or pass weights_only=False, only for a file you trust: ' +
      'it runs the pickled code.'
    : `${load} reads a pickled object; add its class to the safe globals. ${used} is one, and ${since} ` +
      'Allow it with torch.serialization.add_safe_globals([argparse.Namespace]) (its class), or pass weights_only=False, ' +
      'only for a file you trust: it runs the pickled code.';
}

/** A test (`def test_…`, `def _test_…`) loads what it just saved, on whatever device it runs: not the training bug. */
function inTestFunction(call: Node): boolean {
  for (let n = call.parent; n; n = n.parent) if (n.type === 'function_definition' && /^_?test/.test(field(n, 'name')?.text ?? '')) return true;
  return false;
}

/** Under a branch that one process runs (rank 0 loading for everyone): there the saving GPU is its own. */
function inOneProcess(call: Node): boolean {
  for (let n = call.parent; n; n = n.parent) {
    if (n.type === 'function_definition' && ONE_PROCESS.test(field(n, 'name')?.text ?? '')) return true;
    if ((n.type === 'if_statement' || n.type === 'elif_clause') && ONE_PROCESS.test(field(n, 'condition')?.text ?? '')) return true;
  }
  return false;
}

function readFacts(program: ProgramView, deviceChoice: DeviceChoice): FileFacts {
  const facts: FileFacts = {
    ddp: false, savedPaths: new Set(), savesToCallersPath: false, savesThroughLibrary: false, rankTexts: new Set(), tensorlessReceivers: new Set(), projectSavedPaths: new Set(),
    savedNames: new Set(),
  };
  const [tensorless, other, receivers] = [new Set<string>(), new Set<string>(), new Set<string>()];
  let localRank = false;
  let processGroup = !!deviceChoice.distributed;
  const savedSelfAttributes = new Set<string>();
  for (const unit of program.modules[0].units) {
    const imports = program.importsAt(unit.index);
    for (const found of perStatement(unit.root, `DD013 ${imports.signature()}`, (statement) => factsIn(statement, imports))) {
      localRank ||= found.localRank;
      processGroup ||= found.processGroup;
      facts.savesToCallersPath ||= found.savesToCallersPath;
      facts.savesThroughLibrary ||= found.savesThroughLibrary;
      for (const path of found.savedPaths) facts.savedPaths.add(path);
      for (const name of found.savedNames) facts.savedNames.add(name);
      for (const text of found.rankTexts) facts.rankTexts.add(text);
      for (const text of found.tensorlessState) tensorless.add(text);
      for (const text of found.otherState) other.add(text);
      for (const text of found.stateReceivers) receivers.add(text);
      for (const key of found.savedSelfAttributes) savedSelfAttributes.add(key);
    }
  }
  // `Trainer(net, ckpt_file)` whose method saves to `self.ckpt_path`: it saves to `ckpt_file`.
  for (const { argument, call } of argumentsKeptAs(program, savedSelfAttributes)) addSavedPaths(facts.savedPaths, argument, call);
  facts.ddp = localRank && processGroup;
  for (const module of program.modules.slice(1)) {
    for (const unit of module.units) {
      const imports = program.importsAt(unit.index);
      for (const found of perStatement(unit.root, `DD013 ${imports.signature()}`, (statement) => factsIn(statement, imports))) {
        for (const path of found.savedPaths) if (path.startsWith('"')) facts.projectSavedPaths.add(path);
        for (const name of found.savedNames) facts.savedNames.add(name);
      }
    }
  }
  for (const name of receivers) if (tensorless.has(name) && !other.has(name)) facts.tensorlessReceivers.add(name);
  return facts;
}

/** What one top-level statement says of the file's facts. */
function factsIn(statement: Node, imports: ReturnType<ProgramView['importsAt']>): StatementFacts {
  const facts: StatementFacts = {
    ddp: false, savedPaths: new Set<string>(), savedNames: new Set<string>(), savesToCallersPath: false, savesThroughLibrary: false, rankTexts: new Set<string>(),
    tensorlessState: new Set<string>(), otherState: new Set<string>(), stateReceivers: new Set<string>(),
    localRank: false, processGroup: false, savedSelfAttributes: new Set<string>(),
  };
  const stack: Node[] = [statement];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.type === 'string' && /\bLOCAL_RANK\b/.test(n.text)) facts.localRank = true;
    else if (n.type === 'identifier' && /^(local_rank|LOCAL_RANK)$/.test(n.text)) {
      facts.localRank = true;
      facts.rankTexts.add(n.parent?.type === 'attribute' && field(n.parent, 'attribute')?.id === n.id ? n.parent.text : n.text);
    }
    else if ((n.type === 'identifier' || n.type === 'attribute') && !isObjectOfAttribute(n) && CHECKPOINT_HANDLERS.test(imports.qualify(n) ?? '')) facts.savesThroughLibrary = true;
    else if (n.type === 'assignment') {
      const [left, right] = [field(n, 'left'), field(n, 'right')];
      const made = right?.type === 'call' ? imports.qualify(field(right, 'function') ?? right) : undefined;
      if (left) (made && hasTensorlessState(made) ? facts.tensorlessState : facts.otherState).add(left.text);
    }
    else if (n.type === 'call') {
      const receiver = stateReceiver(n);
      if (receiver) facts.stateReceivers.add(receiver.text);
      const q = imports.qualify(field(n, 'function') ?? n) ?? '';
      if (/^torch\.distributed(\.distributed_c10d)?\.init_process_group$/.test(q)) facts.processGroup = true;
      if (SAVES.has(q)) {
        const args = callArguments(n);
        const path = args.positional[1] ?? args.keywords.get('f');
        if (path) {
          addSavedPaths(facts.savedPaths, path, n);
          for (const q of [path, ...filesBehind(path)]) {
            const kept = instanceAttributePath(q);
            if (kept) facts.savedSelfAttributes.add(kept);
          }
        }
        const name = path && args.positional[0] && savesData(args.positional[0]) ? fileName(path) : undefined;
        if (name) facts.savedNames.add(name);
        if (path && isParameter(path)) facts.savesToCallersPath = true;
      }
    }
    stack.push(...children(n));
  }
  return facts;
}

/** A save's path argument as compared with loads: its text, the value its name was last given before `call`, and the file each opens. */
function addSavedPaths(into: Set<string>, path: Node, call: Node): void {
  for (const p of [path, assignedValue(path, call)]) for (const q of [p, ...filesBehind(p)]) into.add(normalized(q));
}

/** Callables that open a file by the path they are given first. */
const OPENERS = /^(open|io\.open|gzip\.open|bz2\.open|lzma\.open|fsspec\.open|smart_open\.open|Path|pathlib\.Path)$/;

/**
 * The path a save or load argument stands for, when it is not the path itself: the file
 * `open(ckpt, "wb")` opens, the one a `with open(ckpt) as fh:` around it bound to `fh`, or the
 * one argument of a helper of the program's own (`ensure_dir(path)` hands back what it makes
 * ready). Each is compared beside the argument's own text.
 */
function filesBehind(argument: Node): Node[] {
  const n = unparen(argument);
  if (n.type === 'call') {
    const callee = field(n, 'function');
    const args = callArguments(n);
    const first = args.positional[0];
    if (!callee || !first || args.hasSplat) return [];
    if (OPENERS.test(callee.text) || (callee.type === 'identifier' && args.positional.length === 1 && args.keywords.size === 0)) return [first];
    return [];
  }
  if (n.type !== 'identifier') return [];
  for (let up = n.parent; up && up.type !== 'function_definition' && up.type !== 'module'; up = up.parent) {
    if (up.type !== 'with_statement') continue;
    for (const item of descendants(up, (c) => c.type !== 'block')) {
      if (item.type !== 'as_pattern' || field(item, 'alias')?.text !== n.text) continue;
      const opened = unparen(children(item)[0] ?? item);
      const callee = opened.type === 'call' ? field(opened, 'function') : null;
      const file = callee && OPENERS.test(callee.text) ? callArguments(opened).positional[0] : undefined;
      if (file) return [file];
    }
  }
  return [];
}

/** A bare name that its enclosing function takes as a parameter. */
function isParameter(node: Node): boolean {
  if (node.type !== 'identifier') return false;
  let fn = node.parent;
  while (fn && fn.type !== 'function_definition') fn = fn.parent;
  const params = fn ? field(fn, 'parameters') : null;
  return !!params && children(params).some((p) => (p.type === 'identifier' ? p : field(p, 'name') ?? children(p)[0])?.text === node.text);
}

/**
 * A path's shape: the text of its string parts with what they interpolate left out, so
 * `"gen_%d.pth" % opt.epoch` and `"gen_%d.pth" % epoch`, or `f"{out}/e{i}.pt"` and
 * `f"{out}/e{n}.pt"`, are one family of files; a path without any string (`args.resume`,
 * `PATH`) is its text.
 */
/**
 * `best = folder + '/best.pth'` then `torch.load(best)`: the path is what the name was last
 * given before the load in the same scope (a path is compared by what it is, not by the
 * name that holds it). Anything else is itself.
 */
function assignedValue(path: Node, call: Node): Node {
  if (path.type !== 'identifier') return path;
  let scope: Node | null = call.parent;
  while (scope && scope.type !== 'function_definition' && scope.type !== 'module') scope = scope.parent;
  if (!scope) return path;
  let found: Node | undefined;
  for (const n of descendants(scope, (c) => c.type !== 'function_definition' && c.type !== 'class_definition')) {
    if (n.type !== 'assignment' || n.endIndex > call.startIndex || field(n, 'left')?.text !== path.text) continue;
    const right = field(n, 'right');
    if (right && (!found || n.startIndex > found.startIndex)) found = right;
  }
  return found ?? path;
}

function normalized(path: Node): string {
  const parts: string[] = [];
  const stack: Node[] = [path];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.type === 'string') parts.push(children(n).filter((c) => c.type === 'string_content').map((c) => c.text).join('{}'));
    else stack.push(...[...children(n)].reverse());
  }
  return parts.length ? `"${parts.join('|')}"` : path.text.replace(/\s+/g, '');
}

/**
 * Whether a save wrote the loaded path: the same text, or a save path with fields filled in
 * at run time (`"net-{}-{}.pt".format(epoch, step)`, `f"net-{epoch}.pt"`, `"net-%d.pt" % epoch`)
 * that the loaded literal (`"net-2-2000.pt"`) is one filling of.
 */
function savedThere(saved: ReadonlySet<string>, loaded: string): boolean {
  if (saved.has(loaded)) return true;
  const literal = /^"([^"]*)"$/.exec(loaded)?.[1];
  if (literal === undefined || /\{|%/.test(literal)) return false;
  const text = literal.split('|').join('/');
  for (const path of saved) {
    const parts = /^"([^"]*)"$/.exec(path)?.[1]?.split('|');
    if (!parts || !parts.some((part) => FIELD.test(part))) continue;
    // A file name that is all fields but its extension (`f"{name}.pt"`) could be any file.
    if (parts[parts.length - 1].split(FIELD).join('').replace(/\.\w+$/, '').length < 2) continue;
    const pattern = parts.map((part) => part.split(FIELD).map(escapeRegExp).join('.*')).join('.*');
    if (new RegExp(`(^|/)${pattern}$`).test(text)) return true;
  }
  return false;
}

/** A field of a format string, filled in when it runs: `{}`, `{epoch:03d}`, `%d`, `%.2f`. */
const FIELD = /\{[^}]*\}|%[-#0 +]*\d*(?:\.\d+)?[sdifgexr]/;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** What a checkpoint holds: weights, a model, an optimizer, the epoch to resume from. */
const CHECKPOINT_CONTENT = /state_dict|model|net\b|optimi[sz]er|checkpoint|ckpt|epoch|weight|params/i;

/**
 * The saved object is data (`{'mean': m, 'std': s}`, index splits), not a checkpoint: a
 * GPU run saves its checkpoints with GPU tensors in them, but statistics and splits the
 * project computes from its data files are CPU data. A name is followed to its assignment.
 */
/**
 * The project functions the analysed file calls that save with torch.save: there is one, and
 * every save in them writes data (savesData), none a model, state or checkpoint.
 */
function helpersSaveOnlyData(program: ProgramView): boolean {
  let saving = false;
  for (const unit of program.modules[0]!.units) {
    const imports = program.importsAt(unit.index);
    for (const n of descendants(unit.root)) {
      const callee = n.type === 'call' ? field(n, 'function') : null;
      const q = callee ? imports.qualify(callee) : undefined;
      const member = q && !q.startsWith('torch.') ? program.member(unit.index, q) : undefined;
      if (member?.kind !== 'function') continue;
      const helperImports = program.importsAt(member.fn.unit);
      for (const c of descendants(member.fn.body)) {
        const saved = c.type === 'call' && SAVES.has(helperImports.qualify(field(c, 'function') ?? c) ?? '') ? callArguments(c).positional[0] : undefined;
        if (!saved) continue;
        if (!savesData(saved)) return false;
        saving = true;
      }
    }
  }
  return saving;
}

/**
 * The load reads a model or its state, not the data a helper may have cached: its result is
 * bound to such a name (`model = torch.load(f)`) or handed to `.load_state_dict(...)`.
 */
function loadsAModel(call: Node): boolean {
  const up = call.parent?.type === 'argument_list' ? call.parent.parent : call.parent;
  if (up?.type === 'call' && stateReceiver(up)) return true;
  const left = up?.type === 'assignment' && field(up, 'right')?.id === call.id ? field(up, 'left') : undefined;
  return !!left && left.type === 'identifier' && CHECKPOINT_CONTENT.test(left.text);
}

function savesData(saved: Node): boolean {
  let n = unparen(saved);
  if (n.type === 'identifier') {
    if (CHECKPOINT_CONTENT.test(n.text)) return false;
    const assigned = assignmentBefore(n);
    if (!assigned) return false;
    n = unparen(assigned);
  }
  return !CHECKPOINT_CONTENT.test(n.text);
}

/**
 * The file name a path ends with, when the code spells it (`'/data_stats.pth'`,
 * `os.path.join(out, "best.pt")`, `f"{out}/gen_{epoch}.pth"` as `gen_{}.pth`); a bare name is
 * followed to its last assignment before it in the same function. No name without an extension.
 */
function fileName(path: Node): string | undefined {
  let n = unparen(path);
  if (n.type === 'identifier') {
    const assigned = assignmentBefore(n);
    if (!assigned) return undefined;
    n = unparen(assigned);
  }
  let last: Node | undefined;
  const stack: Node[] = [n];
  while (stack.length) {
    const c = stack.pop()!;
    if (c.type === 'string') last = last && last.startIndex > c.startIndex ? last : c;
    else stack.push(...children(c));
  }
  if (!last) return undefined;
  const text = children(last).filter((c) => c.type === 'string_content' || c.type === 'interpolation').map((c) => (c.type === 'interpolation' ? '{}' : c.text)).join('');
  const name = text.slice(Math.max(text.lastIndexOf('/'), text.lastIndexOf('\\')) + 1);
  return /^[^/\\]*[^{}/\\]\.[A-Za-z0-9]{1,8}$/.test(name) && name.replace(/\{\}/g, '').length > 4 ? name : undefined;
}

/** The right side of the last `name = ...` before `use` in its function (or module code). */
function assignmentBefore(use: Node): Node | undefined {
  let scope: Node | null = use.parent;
  while (scope && scope.type !== 'function_definition' && scope.type !== 'module') scope = scope.parent;
  const body = scope?.type === 'function_definition' ? field(scope, 'body') : scope;
  const assignment = body ? lastAssignmentIn(body, use.text, use) : undefined;
  return assignment ? field(assignment, 'right') ?? undefined : undefined;
}

/** A path built from the run's device (`f"ckpt_{device}.pt"`, `"%s.pt" % args.device`). */
function namesTheDevice(frame: Frame, path: Node): boolean {
  const stack: Node[] = [path];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.type === 'attribute' && DEVICE_NAMES.includes(n.text)) return true;
    if (n.type === 'identifier' && (frame.env.get(n.text) ?? frame.outer?.get(n.text))?.kind === 'device') return true;
    stack.push(...children(n));
  }
  return false;
}

/** The scope's device variable (`device = torch.device(...)`), when one is bound and can be written here. */
function deviceVariable(host: RuleHost, frame: Frame, names: readonly string[]): string | undefined {
  for (const name of names) {
    const own = frame.env.get(name);
    const v = own ?? frame.outer?.get(name);
    if (v?.kind !== 'device' || !canReference(frame, name)) continue;
    // A global a function reads must be bound when the function runs: one assigned only in
    // the `__main__` block after the call (`net = build(); dev = ...`) is not yet. Only a
    // name the module binds at its top level before anything runs is written into a fix.
    if (!own && frame.fn && !host.programFact('DD013 names bound at top level', topLevelNames).has(name.split('.')[0]!)) continue;
    return name;
  }
  return undefined;
}

/** Names that a top-level statement of the analysed file assigns (not inside `if`, `for`, `with`, `try`). */
function topLevelNames(program: ProgramView): Set<string> {
  const names = new Set<string>();
  for (const unit of program.modules[0].units) {
    for (const stmt of children(unit.root)) {
      const assignment = stmt.type === 'expression_statement' ? children(stmt)[0] : undefined;
      const left = assignment?.type === 'assignment' ? field(assignment, 'left') : undefined;
      if (left?.type === 'identifier') names.add(left.text);
    }
  }
  return names;
}

/**
 * The load's scope names its device as a CUDA string, on every path (`device = "cuda"`). A
 * parameter is not: it holds what this program's callers pass, and other callers may pass the CPU.
 */
/** `node` is inside a top-level `if __name__ == "__main__":` block. */
function inScriptBlock(node: Node): boolean {
  let n: Node | null = node;
  while (n?.parent && n.parent.type !== 'module') n = n.parent;
  const condition = n?.type === 'if_statement' ? field(n, 'condition') : null;
  const block = isMainGuard(condition) ? field(n!, 'consequence') : null;
  return !!block && node.startIndex >= block.startIndex && node.endIndex <= block.endIndex;
}

function hardCodesCuda(frame: Frame): boolean {
  return DEVICE_NAMES.some((name) => {
    if (frame.fn?.params.some((p) => p.name === name)) return false;
    const v = frame.env.get(name) ?? frame.outer?.get(name);
    return v?.kind === 'device' && v.place === ACCEL && /^["']cuda(:\d+)?["']$/.test(v.deviceText ?? '');
  });
}

/** `torch.load(path)` → `torch.load(path, map_location=device)` (`keyword` is `map_location=device`). */
function fixOf(call: Node, keyword: string, unit: number, preferred: boolean, why = ''): Fix[] {
  const list = field(call, 'arguments');
  if (!list || list.type !== 'argument_list') return [];
  const items = children(list);
  const last = items[items.length - 1];
  if (!last) return [];
  const at = { line: last.endPosition.row, character: last.endPosition.column };
  return [{ title: `Add ${keyword}${why}`, edits: [insertAt(at, `, ${keyword}`, unit)], preferred }];
}

/** `a.b` inside `a.b.c`: only the whole dotted name is qualified (once, not once per part of a long chain). */
function isObjectOfAttribute(node: Node): boolean {
  return node.parent?.type === 'attribute' && field(node.parent, 'object')?.id === node.id;
}

/**
 * `torch.load(f).numpy()`: the code converts what it loads at once, which only a CPU tensor
 * allows, so the file holds CPU tensors (data saved from the CPU), not a GPU checkpoint.
 */
/**
 * `scheduler.load_state_dict(torch.load(path))` where every assignment of `scheduler` in the
 * file builds a learning-rate scheduler or a GradScaler (FileFacts): its state holds no tensors.
 */
function loadedIntoTensorlessState(call: Node, facts: FileFacts): boolean {
  const outer = call.parent?.type === 'argument_list' ? call.parent.parent : undefined;
  const receiver = outer?.type === 'call' ? stateReceiver(outer) : undefined;
  return !!receiver && facts.tensorlessReceivers.has(receiver.text);
}

/** `x` of `x.load_state_dict(...)`. */
function stateReceiver(call: Node): Node | undefined {
  const callee = field(call, 'function');
  return callee?.type === 'attribute' && field(callee, 'attribute')?.text === 'load_state_dict' ? field(callee, 'object') ?? undefined : undefined;
}

function retriedWithMapLocation(call: Node): boolean {
  for (let n: Node | null = call; n?.parent; n = n.parent) {
    const parent = n.parent;
    if (parent.type === 'function_definition' || parent.type === 'class_definition') return false;
    if (parent.type !== 'try_statement' || field(parent, 'body')?.id !== n.id) continue;
    if (children(parent).some((c) => c.type === 'except_clause' && /\bload\s*\([^]*\bmap_location\s*=/.test(c.text))) return true;
  }
  return false;
}

function convertedAtOnce(call: Node): boolean {
  const parent = call.parent;
  return parent?.type === 'attribute' && field(parent, 'object')?.id === call.id && field(parent, 'attribute')?.text === 'numpy';
}
