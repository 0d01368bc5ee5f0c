// Framework names the program index and the scope scan need (frameworks.ts has the rest).
// No analysis imports here, so program.ts and scopeScan.ts can use it without an import cycle.
import type { Node } from '../python/pyNode';

const LIGHTNING_MODULES = new Set([
  'lightning.LightningModule', 'lightning.pytorch.LightningModule', 'lightning.pytorch.core.LightningModule',
  'lightning.pytorch.core.module.LightningModule', 'pytorch_lightning.LightningModule',
  'pytorch_lightning.core.LightningModule', 'pytorch_lightning.core.module.LightningModule',
  'pytorch_lightning.core.lightning.LightningModule',
]);

/** A base class that makes a class a Lightning `LightningModule` (an nn.Module). */
export function isLightningModuleBase(qualified: string | undefined): boolean {
  return qualified !== undefined && LIGHTNING_MODULES.has(qualified);
}

/** Hooks the Trainer calls with the module, and the batch, on the module's device. */
export const DEVICE_HOOK = /^(?:(?:training|validation|test|predict)_step(?:_end)?|on_\w+|\w+_epoch_end)$/;
/** Hooks the Trainer runs without autograd (the whole evaluation and prediction loops run under no_grad). */
const NO_GRAD_HOOK = /^(?:(?:validation|test|predict)_step(?:_end)?|on_(?:validation|test|predict)_\w+|(?:validation|test|predict)_epoch_end)$/;

/** The parts of the program's class index that Lightning detection reads and marks. */
interface IndexedClass {
  name: string;
  baseNodes: Node[];
  methods: Map<string, { name: string; noGrad: boolean }>;
  lightning?: boolean;
}

/** Marks `LightningModule` subclasses (directly or through the program's own classes); their eval hooks run without grad. */
export function markLightningClasses(classes: Map<string, IndexedClass>, qualify: (n: Node) => string | undefined): void {
  const isLightning = (name: string, seen: Set<string>): boolean => {
    const cls = classes.get(name);
    if (!cls || seen.has(name)) return false;
    seen.add(name);
    return cls.baseNodes.some((b) => isLightningModuleBase(qualify(b)) || isLightning(b.text, seen));
  };
  for (const cls of classes.values()) {
    if (!isLightning(cls.name, new Set())) continue;
    cls.lightning = true;
    for (const m of cls.methods.values()) if (NO_GRAD_HOOK.test(m.name)) m.noGrad = true;
  }
}

/** torch functions whose first argument is a module (saved, exported, sharded, fused, pruned), not a tensor. */
const MODULE_TAKING_TORCH = /^torch\.(?:save|onnx\.\w+|jit\.(?:trace|script|trace_module)|export\.\w+|fx\.symbolic_trace|ao\.quantization\.\w+|quantization\.\w+|distributed\.(?:[\w.]+\.)?(?:parallelize_module|fully_shard|replicate|checkpoint_wrapper|apply_activation_checkpointing)|nn\.utils\.(?:prune\.\w+|parametrize\.\w+|fusion\.\w+|weight_norm|spectral_norm|remove_weight_norm|remove_spectral_norm|parametrizations\.\w+))$/;

export function takesModule(qualified: string): boolean {
  return MODULE_TAKING_TORCH.test(qualified);
}

/**
 * `create_model`, `build_model`, `reparameterize_model`, a private `_load_pickled_model`,
 * `build_net`: a function that returns a module, not a model being called.
 */
const MODEL_FUNCTION_NAME = /^_*(?:[a-z]+_)*(?:create|build|get|make|load|convert|reparameteri[sz]e|fuse|prepare|init|initialize|setup|wrap|unwrap|export|quantize|compile|instantiate|construct|clone|copy|freeze|replace|patch|apply|restore|optimize|prune|deepcopy|to)(?:_[a-z0-9]+)*_(?:model|net|network)$/i;

export function isModelFunctionName(calleeText: string): boolean {
  return MODEL_FUNCTION_NAME.test(calleeText.slice(calleeText.lastIndexOf('.') + 1));
}

/** `train_net(net_id, net)`, `evaluate_model(model, loader)`: a function that does something with a model, not one. */
const MODEL_ACTION_NAME = /^(?:train|test|eval|evaluate|valid|validate|fit|run|save|finetune|fine_tune|pretrain|distill|update|print|show|plot|log|summari[sz]e|count|profile|benchmark)(?:_[a-z0-9]+)*_(?:model|net|network)$/i;

export function isModelActionName(calleeText: string): boolean {
  return MODEL_ACTION_NAME.test(calleeText.slice(calleeText.lastIndexOf('.') + 1));
}

/**
 * Hugging Face pipelines (`StableDiffusionPipeline.from_pretrained(...)`, `transformers.pipeline(...)`):
 * called with raw inputs (prompts, images, audio), they build and move the tensors to their
 * own device themselves, like DataParallel scatters its inputs.
 */
const PIPELINE = /^(?:diffusers|transformers)\.(?:[\w]+\.)*\w*Pipeline(?:\.(?:from_pretrained|from_single_file|from_pipe))?$|^transformers\.pipeline$/;

export function isPipelineConstructor(qualified: string): boolean {
  return PIPELINE.test(qualified);
}

/** A pipeline's component models: `pipe.to(device)` moves each of them, and each takes its inputs where it is. */
export const PIPELINE_COMPONENTS: ReadonlySet<string> = new Set([
  'unet', 'vae', 'text_encoder', 'text_encoder_2', 'text_encoder_3', 'transformer', 'controlnet', 'image_encoder', 'prior', 'decoder', 'vqvae', 'movq',
]);

/**
 * Hugging Face models loaded with `from_pretrained` (`BertModel`, `AutoModelForCausalLM`,
 * `T5ForConditionalGeneration`): a module on the CPU until `.to(device)`, unless the call
 * places it itself (`device_map=`, 8-/4-bit quantization, which load onto the GPU). Not
 * tokenizers, processors or configs.
 */
const PRETRAINED_MODEL = /^transformers\.(?:\w+\.)*(?:AutoModel\w*|(?!Auto)\w*(?:Model|For[A-Z]\w*))\.from_pretrained$/;
const PLACING_KEYWORDS = ['device_map', 'load_in_8bit', 'load_in_4bit', 'quantization_config'];

export function isPretrainedModelLoad(qualified: string): boolean {
  return PRETRAINED_MODEL.test(qualified) && !/(?:Tokenizer|Config|Processor|FeatureExtractor)\w*\.from_pretrained$/.test(qualified);
}

/** `from_pretrained(..., device_map="auto")`: the library places the model (and its inputs). */
export function pretrainedLoadPlaces(keywords: ReadonlyMap<string, unknown>, hasSplat: boolean): boolean {
  return hasSplat || PLACING_KEYWORDS.some((k) => keywords.has(k));
}
