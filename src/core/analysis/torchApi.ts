// What the analyzer knows about the PyTorch API, as qualified names ("torch.randn").

/** Factories that create a tensor on the CPU unless `device=` says otherwise, and accept `device=`. */
export const DEVICE_FACTORIES = new Set([
  'tensor', 'zeros', 'ones', 'randn', 'rand', 'randint', 'randperm', 'arange', 'range', 'empty',
  'full', 'eye', 'linspace', 'logspace', 'as_tensor', 'empty_strided', 'sparse_coo_tensor',
  'normal', 'tril_indices', 'triu_indices', 'complex', 'scalar_tensor', 'asarray', 'empty_permuted',
  // Signal windows (`torch.stft(x, n, window=torch.hann_window(n))`) and sample frequencies.
  'hann_window', 'hamming_window', 'blackman_window', 'bartlett_window', 'kaiser_window',
  'signal.windows.hann', 'signal.windows.hamming', 'signal.windows.blackman', 'signal.windows.bartlett',
  'signal.windows.kaiser', 'signal.windows.gaussian', 'signal.windows.cosine', 'signal.windows.exponential',
  'signal.windows.general_cosine', 'signal.windows.general_hamming', 'signal.windows.nuttall',
  'fft.fftfreq', 'fft.rfftfreq',
].map((n) => `torch.${n}`));

/**
 * Factories that, given tensors, build their result where those are: `torch.complex(re, im)`,
 * `torch.sparse_coo_tensor(indices, values)`, `torch.normal(mean, std)` (which then refuses a
 * `device=`). With numbers only they are DEVICE_FACTORIES like the others.
 */
export const BUILT_FROM_TENSORS = new Set(['torch.sparse_coo_tensor', 'torch.complex', 'torch.normal']);

/**
 * Where the numbers-only overload takes its `size`: `torch.normal(0.0, 1.0, size=(3,))`.
 * Called without one, an argument is a tensor (`torch.normal(mean, std)`), so the result is
 * built from tensors even when the analysis cannot tell which argument is one.
 */
export const SIZE_OF_NUMBERS_OVERLOAD = new Map([['torch.normal', 2]]);

/** Factories without a `device=` parameter: still CPU tensors. */
/**
 * Wrappers that give back the tensor they are handed, where it is: `Variable(x)` has been
 * `x` itself since PyTorch 0.4 (old code and tutorials still write it).
 */
export const SAME_TENSOR_WRAPPERS = new Set(['torch.autograd.Variable', 'torch.autograd.variable.Variable']);

export const CPU_ONLY_FACTORIES = new Set(['torch.from_numpy', 'torch.frombuffer', 'torch.load_numpy']);

/**
 * Readers that decode a file into tensors on the CPU: where the tensors are in what they
 * return ('tensor': the result itself; a list: which elements of the tuple are tensors, as
 * `waveform, sample_rate = torchaudio.load(path)`).
 */
export const CPU_TENSOR_READERS: ReadonlyMap<string, 'tensor' | readonly boolean[]> = new Map<string, 'tensor' | readonly boolean[]>([
  ['torchaudio.load', [true, false]],
  ['torchaudio.sox_effects.apply_effects_file', [true, false]],
  ['torchvision.io.read_image', 'tensor'],
  ['torchvision.io.image.read_image', 'tensor'],
  ['torchvision.io.read_file', 'tensor'],
  ['torchvision.io.read_video', [true, true, false]],
]);

/**
 * Legacy typed constructors (`torch.Tensor(data)`, `torch.LongTensor(n)`): always on the CPU
 * (they refuse any other `device=`); `torch.cuda.FloatTensor(...)` is on the current GPU.
 */
export function legacyConstructorPlace(qualified: string): 'cpu' | 'accel' | undefined {
  const m = /^torch\.(cuda\.)?(Tensor|(Float|Double|Half|BFloat16|Byte|Char|Short|Int|Long|Bool)Tensor)$/.exec(qualified);
  if (!m || (m[1] && m[2] === 'Tensor')) return undefined;
  return m[1] ? 'accel' : 'cpu';
}

/** `*_like(x)` factories inherit x's place unless `device=` is given. */
export const LIKE_FACTORIES = new Set(
  ['zeros_like', 'ones_like', 'empty_like', 'full_like', 'rand_like', 'randn_like', 'randint_like'].map((n) => `torch.${n}`),
);

/** nn classes without parameters or buffers: calling one never mismatches by itself. */
const PLACELESS_MODULE_PATTERNS: RegExp[] = [
  /Loss$/, /^NLLLoss2d$/, /^(ReLU|ReLU6|GELU|SiLU|Sigmoid|Tanh|Softmax|Softmax2d|LogSoftmax|Softmin|LeakyReLU|ELU|SELU|CELU|Mish|Hardswish|Hardsigmoid|Hardtanh|Softplus|Softsign|Tanhshrink|Threshold|GLU|LogSigmoid|Hardshrink|Softshrink|RReLU)$/,
  /^(Flatten|Unflatten|Identity|Dropout\w*|AlphaDropout|FeatureAlphaDropout|Upsample\w*|PixelShuffle|PixelUnshuffle|ChannelShuffle|ZeroPad\w*|ConstantPad\w*|ReflectionPad\w*|ReplicationPad\w*|CircularPad\w*|Fold|Unfold)$/,
  /^(MaxPool\dd|AvgPool\dd|AdaptiveAvgPool\dd|AdaptiveMaxPool\dd|LPPool\dd|FractionalMaxPool\dd|MaxUnpool\dd|CosineSimilarity|PairwiseDistance)$/,
];

/**
 * Modules of other libraries that hold no parameters or buffers: kornia's augmentations
 * (random crops, flips, color jitter) and einops's layers run on their input's device. A row per library.
 */
const PARAMETER_FREE_LIBRARY_MODULES: RegExp[] = [
  /^kornia\.augmentation\.(?:\w+\.)?[A-Z]\w*$/,
  // einops's layers that only rearrange or reduce (EinMix has weights).
  /^einops\.layers\.torch\.(?:Rearrange|Reduce)$/,
];

export function isParameterFreeLibraryModule(qualified: string): boolean {
  return PARAMETER_FREE_LIBRARY_MODULES.some((re) => re.test(qualified));
}

export function isPlacelessModuleClass(className: string): boolean {
  return PLACELESS_MODULE_PATTERNS.some((re) => re.test(className));
}

/**
 * Normalization layers built without affine weights and without running statistics hold
 * no tensor and behave the same in train and eval mode (`nn.LayerNorm(d,
 * elementwise_affine=False)`, `nn.InstanceNorm2d(c)` by default, `nn.GroupNorm(g, c,
 * affine=False)`, `nn.LocalResponseNorm(k)`). `keyword` gives an argument's text by name,
 * `positional` how many were passed by position (one that could be a flag counts as state).
 */
export function normalizationWithoutState(className: string, keyword: (name: string) => string | undefined, positional: number): boolean {
  const off = (name: string, byDefault: boolean) => {
    const text = keyword(name);
    return text === undefined ? byDefault : text.trim() === 'False';
  };
  if (/^(LocalResponseNorm|CrossMapLRN2d)$/.test(className)) return true;
  if (className === 'LayerNorm') return positional <= 2 && off('elementwise_affine', false);
  if (className === 'GroupNorm') return positional <= 3 && off('affine', false);
  if (/^InstanceNorm[123]d$/.test(className)) return positional <= 3 && off('affine', true) && off('track_running_stats', true);
  if (/^BatchNorm[123]d$/.test(className)) return positional <= 3 && off('affine', false) && off('track_running_stats', false);
  return false;
}

/**
 * torchmetrics metrics that keep their state in tensors made at construction, on the CPU:
 * `Accuracy()(preds, target)` with GPU inputs fails in update ("Expected all tensors to be on
 * the same device"; the maintainers: move the metric, torchmetrics#1047). Not the metrics
 * that only append their inputs to list states (curves, rank correlations, retrieval,
 * `CatMetric`), nor MetricCollection/wrappers, whose members decide.
 */
const TORCHMETRICS_CLASS = /^torchmetrics\.(?:\w+\.)*[A-Z]\w*$/;
const LIST_STATE_METRIC = /(?:ROC|AUROC|AveragePrecision|PrecisionRecallCurve|RecallAtFixedPrecision|PrecisionAtFixedRecall|SensitivityAtSpecificity|SpecificityAtSensitivity|Spearman\w*|Kendall\w*|Retrieval\w*|CatMetric|Collection|Wrapper|Tracker|Bootstrapper|ClasswiseWrapper|MultioutputWrapper|MinMaxMetric|Running|Metric)$/;

export function isMetricConstructor(qualified: string): boolean {
  if (!TORCHMETRICS_CLASS.test(qualified) || /^torchmetrics\.functional\./.test(qualified)) return false;
  return !LIST_STATE_METRIC.test(qualified.slice(qualified.lastIndexOf('.') + 1));
}

/**
 * torchaudio's transforms that keep a tensor built at construction as a buffer (the STFT
 * window, the mel filter bank, the DCT matrix, the resampling kernel, the phase advance):
 * on the CPU until moved, so `MelSpectrogram()(wav)` with a GPU waveform fails ("stft input
 * and window must be on the same device", pytorch#123167, audio#375). The other transforms
 * (AmplitudeToDB, the maskings, Fade, Vol, ...) hold no tensor and run where their input is.
 */
const TORCHAUDIO_STATEFUL_TRANSFORM = /^torchaudio\.transforms\.(?:_transforms\.)?(?:Spectrogram|InverseSpectrogram|GriffinLim|MelScale|InverseMelScale|MelSpectrogram|MFCC|LFCC|Resample|SpectralCentroid|TimeStretch|PitchShift)$/;

/** torchaudio's transforms that keep a tensor: buffers, never parameters (their output needs grad only where their input does). */
export function isBufferOnlyModuleConstructor(qualified: string): boolean {
  return TORCHAUDIO_STATEFUL_TRANSFORM.test(qualified);
}

/** Module-returning constructors outside torch.nn (model zoos, torchmetrics metrics, torchaudio's stateful transforms): their tensors are on the CPU. */
export function isModelZooConstructor(qualified: string): boolean {
  return /^torchvision\.models\.[a-z]\w*$/.test(qualified) || /^torchvision\.models\.\w+\.[a-z]\w*$/.test(qualified) ||
    /^torchaudio\.models\.\w+$/.test(qualified) || TORCHAUDIO_STATEFUL_TRANSFORM.test(qualified) || isMetricConstructor(qualified);
}

/** Wrappers that copy their inputs to the wrapped model's devices (so CPU inputs are fine). */
export const INPUT_SCATTERING_WRAPPERS = new Set([
  'torch.nn.DataParallel', 'torch.nn.parallel.DataParallel', 'torch.nn.parallel.DistributedDataParallel',
  'torch.nn.parallel.distributed.DistributedDataParallel',
  'apex.parallel.DistributedDataParallel', 'apex.parallel.distributed.DistributedDataParallel',
]);

export const WRAPPER_MODULES = new Set([
  'torch.nn.parallel.distributed.DistributedDataParallel',
  'torch.nn.DataParallel', 'torch.nn.parallel.DataParallel', 'torch.nn.parallel.DistributedDataParallel',
  'torch.compile', 'torch.jit.script', 'torch.jit.trace',
  'apex.parallel.DistributedDataParallel', 'apex.parallel.distributed.DistributedDataParallel',
]);

/** torch.nn.Module under the names an import may give it. */
export const MODULE_BASE_CLASSES = new Set(['torch.nn.Module', 'torch.nn.modules.module.Module']);

export const DATALOADER_CLASSES = new Set(['torch.utils.data.DataLoader', 'torch.utils.data.dataloader.DataLoader']);

export const DTYPE_NAMES = new Set([
  'float', 'float16', 'float32', 'float64', 'half', 'double', 'bfloat16', 'int', 'int8', 'int16', 'int32',
  'int64', 'long', 'short', 'uint8', 'bool', 'complex64', 'complex128', 'cfloat', 'cdouble', 'float8_e4m3fn',
  'float8_e5m2', 'qint8', 'quint8',
]);

/** Tensor methods whose result is not a tensor (or not on the tensor's device). */
export const NON_TENSOR_METHODS = new Set([
  'item', 'tolist', 'size', 'dim', 'ndimension', 'numel', 'nelement', 'element_size', 'data_ptr', 'stride',
  'storage', 'untyped_storage', 'get_device', 'is_contiguous', 'is_floating_point', 'is_complex', 'equal',
  'backward', 'register_hook', 'retain_grad', 'numpy', 'storage_offset', '__len__', 'is_pinned',
  'is_shared', 'is_set_to', 'dim_order', 'tobytes', 'keys', 'values', 'items', 'get', 'format',
]);

/** Tensor methods whose result keeps the autograd graph of the receiver. */
export const DIFFERENTIABLE_METHODS = new Set([
  'view', 'view_as', 'reshape', 'reshape_as', 'squeeze', 'unsqueeze', 'flatten', 'unflatten', 'permute',
  'transpose', 't', 'contiguous', 'clone', 'float', 'double', 'half', 'bfloat16', 'to', 'cpu', 'cuda', 'sum',
  'mean', 'softmax', 'log_softmax', 'sigmoid', 'tanh', 'relu', 'exp', 'log', 'abs', 'pow', 'sqrt', 'mul',
  'add', 'sub', 'div', 'matmul', 'mm', 'bmm', 'expand', 'expand_as', 'repeat', 'narrow', 'select', 'gather',
  'masked_fill', 'norm', 'std', 'var', 'clamp', 'clip', 'neg', 'reciprocal', 'prod', 'cumsum', 'square',
  'type_as', 'chunk', 'split', 'unbind', 'roll', 'flip', 'index_select', 'masked_select', 'squeeze_',
  'unsqueeze_', 'mul_', 'add_', 'sub_', 'div_', 'requires_grad_',
]);

/** torch.nn's containers: they hold the modules they are given, wherever those are. */
export const MODULE_CONTAINERS = new Set(['Sequential', 'ModuleList', 'ModuleDict']);

/** The methods that put a module into a container (`nn.Sequential().add_module(...)`, `nn.ModuleList().append(...)`). */
export const FILLS_CONTAINER = new Set(['add_module', 'register_module', 'append', 'extend', 'insert', 'update']);

/** nn.Module's own methods that take arguments and put no module in it. */
export const KEEPS_CONTAINER_EMPTY = new Set([
  'to', 'cuda', 'cpu', 'type', 'half', 'float', 'double', 'bfloat16', 'to_empty', 'train', 'eval', 'requires_grad_', 'zero_grad', 'apply',
  'load_state_dict', 'state_dict', 'register_buffer', 'register_parameter', 'register_forward_hook', 'register_forward_pre_hook',
  'register_full_backward_hook', 'named_parameters', 'named_modules', 'named_buffers', 'named_children', 'parameters', 'buffers',
  'modules', 'children', 'get_submodule', 'get_parameter', 'get_buffer', 'share_memory', 'forward', 'pop', 'index', 'count',
]);

/**
 * What torch's own module classes put on `self` in their constructors: a subclass's methods
 * read them (`self.encoder` of an `nn.Transformer` subclass, `self.weight` of a
 * weight-standardized `nn.Conv2d`), and they follow the instance as its own layers do. By
 * class, each attribute's kind: `parameter`, or the torch module class it holds.
 */
export const INHERITED_TORCH_ATTRIBUTES: ReadonlyMap<string, ReadonlyMap<string, string>> = new Map(
  Object.entries({
    ...withWeights(['Linear', 'Bilinear', 'Conv1d', 'Conv2d', 'Conv3d', 'ConvTranspose1d', 'ConvTranspose2d', 'ConvTranspose3d', 'LayerNorm', 'GroupNorm', 'BatchNorm1d', 'BatchNorm2d', 'BatchNorm3d'], { weight: 'parameter', bias: 'parameter' }),
    ...withWeights(['Embedding', 'EmbeddingBag'], { weight: 'parameter' }),
    MultiheadAttention: { in_proj_weight: 'parameter', in_proj_bias: 'parameter', out_proj: 'torch.nn.Linear' },
    Transformer: { encoder: 'torch.nn.TransformerEncoder', decoder: 'torch.nn.TransformerDecoder' },
    TransformerEncoder: { layers: 'torch.nn.ModuleList' },
    TransformerDecoder: { layers: 'torch.nn.ModuleList' },
    TransformerEncoderLayer: {
      self_attn: 'torch.nn.MultiheadAttention', linear1: 'torch.nn.Linear', linear2: 'torch.nn.Linear', norm1: 'torch.nn.LayerNorm', norm2: 'torch.nn.LayerNorm',
      dropout: 'torch.nn.Dropout', dropout1: 'torch.nn.Dropout', dropout2: 'torch.nn.Dropout',
    },
    TransformerDecoderLayer: {
      self_attn: 'torch.nn.MultiheadAttention', multihead_attn: 'torch.nn.MultiheadAttention', linear1: 'torch.nn.Linear', linear2: 'torch.nn.Linear',
      norm1: 'torch.nn.LayerNorm', norm2: 'torch.nn.LayerNorm', norm3: 'torch.nn.LayerNorm', dropout: 'torch.nn.Dropout', dropout1: 'torch.nn.Dropout', dropout2: 'torch.nn.Dropout', dropout3: 'torch.nn.Dropout',
    },
  }).map(([cls, attrs]) => [`torch.nn.${cls}`, new Map(Object.entries(attrs))]),
);

function withWeights(classes: readonly string[], attrs: Record<string, string>): Record<string, Record<string, string>> {
  return Object.fromEntries(classes.map((cls) => [cls, attrs]));
}

/** Module methods that return the module itself. */
export const MODULE_SELF_METHODS = new Set([
  'eval', 'train', 'half', 'float', 'double', 'bfloat16', 'requires_grad_', 'apply', 'share_memory',
  'to_empty', 'type', 'zero_grad',
]);

/**
 * Module methods that define an attribute holding state the module moves with itself, and
 * the keyword of the tensor they take: `self.register_buffer("scale", torch.ones(2))`.
 */
export const STATE_REGISTRATIONS = new Map([['register_buffer', 'tensor'], ['register_parameter', 'param']]);

/** A torch.distributions class (`torch.distributions.Categorical`, `torch.distributions.normal.Normal`). */
export function isDistributionClass(qualified: string): boolean {
  return /^torch\.distributions\.([a-z_]+\.)?[A-Z]\w*$/.test(qualified) && !DISTRIBUTION_HELPERS.has(qualified.slice(qualified.lastIndexOf('.') + 1));
}

/** Classes under torch.distributions that are no distribution over tensors of their own. */
const DISTRIBUTION_HELPERS = new Set(['Distribution', 'ExponentialFamily', 'Transform', 'ComposeTransform', 'AffineTransform', 'ExpTransform', 'SigmoidTransform', 'TanhTransform', 'constraints']);

/**
 * Methods of a distribution that give a tensor where its parameters are; the value says
 * whether it keeps their graph (`sample()` does not, `rsample()` and `log_prob()` do).
 */
export const DISTRIBUTION_TENSOR_METHODS = new Map([
  ['sample', false], ['sample_n', false], ['rsample', true], ['log_prob', true], ['entropy', true], ['cdf', true], ['icdf', true], ['perplexity', true],
]);

/**
 * Tensor methods whose result has the receiver's shape (casts, copies, elementwise functions
 * of numbers): a 0-dim tensor stays 0-dim, which PyTorch lets meet tensors on any device
 * when it is on the CPU (`torch.tensor(1e-7).float()`).
 */
/** Factories whose result always has one dimension: one integer index of it is a 0-dim tensor. */
export const ONE_DIM_FACTORIES = new Set(['torch.arange', 'torch.linspace', 'torch.logspace', 'torch.randperm']);

export const SHAPE_KEEPING_METHODS = new Set([
  'float', 'double', 'half', 'bfloat16', 'int', 'long', 'short', 'bool', 'byte', 'char', 'clone', 'contiguous', 'requires_grad_',
  'abs', 'neg', 'exp', 'log', 'log1p', 'sqrt', 'rsqrt', 'reciprocal', 'sign', 'round', 'floor', 'ceil', 'sigmoid', 'tanh', 'relu',
  'clamp', 'clamp_min', 'clamp_max', 'clip', 'pow', 'add', 'sub', 'mul', 'div',
]);

/** Calls on a receiver that are evidence it is a module rather than a tensor. */
export const MODULE_EVIDENCE_METHODS = new Set([
  'parameters', 'named_parameters', 'state_dict', 'load_state_dict', 'eval', 'train', 'modules',
  'named_modules', 'children', 'named_children', 'zero_grad', 'apply', 'buffers', 'named_buffers',
  'register_buffer', 'register_forward_hook', 'forward',
]);

/** Calls on a receiver that are evidence it is a tensor. */
export const TENSOR_EVIDENCE_METHODS = new Set([
  'numpy', 'item', 'tolist', 'backward', 'size', 'dim', 'numel', 'view', 'reshape', 'permute', 'unsqueeze',
  'squeeze', 'detach', 'argmax', 'sum', 'mean', 'transpose', 'contiguous', 'masked_fill', 'clamp',
]);

/** Contexts and decorators under which model calls do not record gradients. */
export const NO_GRAD_CONTEXTS = new Set(['torch.no_grad', 'torch.inference_mode', 'torch.autograd.no_grad', 'torch.autograd.grad_mode.no_grad']);

/** Device strings that name an accelerator. */
export function isAcceleratorDeviceString(s: string): boolean | undefined {
  const name = s.trim().toLowerCase();
  if (name === 'cpu' || name.startsWith('cpu:')) return false;
  if (/^(cuda|mps|xpu|hip|npu|xla|hpu|mtia|privateuseone|ipu|vulkan|mkldnn)(:\d+)?$/.test(name)) return true;
  return undefined;
}

/** Callee names that say "a model" or "a loss", for values the analysis cannot see. */
export const MODEL_LIKE_NAME = /(^|[._])(model|net|network|encoder|decoder|classifier|backbone|head|generator|discriminator|critic|actor)$/;
/**
 * Names that say "a data loader" when nothing better is known: `train_loader`,
 * `self.dataloader`, and the `train_dl` / `valid_dl` / `dl` of fastai-style code.
 */
/** A program's options object (argparse's `args`, a config): its attributes are settings the user chose, not tensors. */
export const OPTIONS_HOLDER_NAME = /^(args|opts?|options|config|conf|cfg|hparams|hps?|params|flags|FLAGS|settings|arguments)$/i;
export const LOADER_LIKE_NAME = /(loader|(^|[._])(\w+_)?dl)$/i;
export const LOSS_LIKE_NAME = /(loss|criterion)(_fn|_func|_function)?$/i;

/**
 * A torch.nn loss that reduces what it compares to one number, a 0-dim tensor: every
 * `*Loss` class by default (reduction 'mean'), or with reduction 'mean' / 'sum'; not with
 * 'none', one not written as a literal, or the legacy `reduce=False` (elementwise losses).
 * AdaptiveLogSoftmaxWithLoss returns a named tuple.
 */
export function lossReturnsScalar(className: string, reduction: string | undefined, reduce: string | undefined): boolean {
  if (!/Loss$/.test(className) || className === 'AdaptiveLogSoftmaxWithLoss' || reduce === 'False') return false;
  return reduction === undefined || reduction === 'mean' || reduction === 'sum';
}

/** torch.nn.functional's losses: with their default reduction (mean) they return a 0-dim tensor, as the loss modules do. */
const FUNCTIONAL_LOSSES = new Set([
  'mse_loss', 'l1_loss', 'smooth_l1_loss', 'huber_loss', 'cross_entropy', 'nll_loss', 'binary_cross_entropy',
  'binary_cross_entropy_with_logits', 'kl_div', 'poisson_nll_loss', 'gaussian_nll_loss', 'hinge_embedding_loss',
  'margin_ranking_loss', 'multilabel_margin_loss', 'multilabel_soft_margin_loss', 'multi_margin_loss', 'soft_margin_loss',
  'triplet_margin_loss', 'triplet_margin_with_distance_loss', 'cosine_embedding_loss', 'ctc_loss',
]);

/** `F.mse_loss(a, b)` returns 0-dim unless `reduction="none"` (or the old `reduce=False`). */
export function functionalLossReturnsScalar(qualified: string, reduction: string | undefined, reduce: string | undefined): boolean {
  const m = /^torch\.nn\.functional\.(\w+)$/.exec(qualified);
  if (!m || !FUNCTIONAL_LOSSES.has(m[1]!) || reduce === 'False') return false;
  return reduction === undefined || reduction === 'mean' || reduction === 'sum';
}

/** torch functions returning (values, indices): the indices never require grad. */
export const VALUES_INDICES_FUNCTIONS = new Set(['max', 'min', 'sort', 'topk', 'kthvalue', 'mode', 'median', 'nanmedian', 'cummax', 'cummin', 'aminmax']);
/** torch functions returning integer tensors, which never require grad. */
/**
 * torch functions that work element by element: given only 0-dim tensors (and numbers), the
 * result is 0-dim too (`torch.pow(2, k)` with `k` from `for k in torch.arange(n)`), which
 * PyTorch lets meet tensors on any device while it is on the CPU.
 */
export const POINTWISE_FUNCTIONS = new Set([
  'pow', 'exp', 'exp2', 'expm1', 'log', 'log2', 'log10', 'log1p', 'sqrt', 'rsqrt', 'square', 'abs', 'neg', 'reciprocal',
  'sin', 'cos', 'tan', 'tanh', 'sigmoid', 'add', 'sub', 'mul', 'div', 'true_divide', 'floor_divide', 'remainder', 'fmod',
  'clamp', 'clip', 'floor', 'ceil', 'round', 'trunc', 'sign', 'maximum', 'minimum',
]);

/** Functions returning the total gradient norm of the parameters given: a 0-dim tensor where they are, without grad. */
export const GRADIENT_NORM_FUNCTIONS = new Set([
  'torch.nn.utils.clip_grad_norm_', 'torch.nn.utils.clip_grad.clip_grad_norm_', 'torch.nn.utils.clip_grad_norm',
  'torch.nn.utils.get_total_norm', 'torch.nn.utils.clip_grad.get_total_norm',
]);

/** Functions whose result is an integer or boolean tensor (indices, samples, tests): it never requires grad. */
export const INTEGER_RESULT_FUNCTIONS = new Set([
  'argmax', 'argmin', 'argsort', 'argwhere', 'nonzero', 'bucketize', 'searchsorted', 'eq', 'ne', 'lt', 'gt', 'le', 'ge', 'isnan', 'isinf',
  'isfinite', 'bincount', 'unique', 'multinomial', 'count_nonzero', 'isin', 'isclose', 'logical_and', 'logical_or', 'logical_not', 'logical_xor',
]);

/** numpy functions that turn their tensor argument (or each tensor of a list) into an array first. */
export const NUMPY_CONVERTERS = new Set([
  'numpy.array', 'numpy.asarray', 'numpy.asanyarray', 'numpy.ascontiguousarray',
  'numpy.mean', 'numpy.sum', 'numpy.std', 'numpy.var', 'numpy.median', 'numpy.max', 'numpy.min', 'numpy.average',
  'numpy.stack', 'numpy.concatenate', 'numpy.vstack', 'numpy.hstack', 'numpy.dstack', 'numpy.column_stack',
  // Ufuncs and reductions call `__array__` on a tensor too (`np.exp(total_loss / n)`).
  'numpy.exp', 'numpy.log', 'numpy.log2', 'numpy.log10', 'numpy.sqrt', 'numpy.square', 'numpy.abs', 'numpy.absolute',
  'numpy.sin', 'numpy.cos', 'numpy.tanh', 'numpy.floor', 'numpy.ceil', 'numpy.round', 'numpy.clip',
  'numpy.cumsum', 'numpy.cumprod', 'numpy.prod', 'numpy.argmax', 'numpy.argmin', 'numpy.argsort', 'numpy.sort',
  'numpy.percentile', 'numpy.quantile', 'numpy.nanmean', 'numpy.nansum', 'numpy.unique', 'numpy.histogram',
  'numpy.isnan', 'numpy.isfinite', 'numpy.count_nonzero', 'numpy.transpose', 'numpy.reshape',
]);

/**
 * Functions of other libraries whose tensor arguments must be on one device, as torch's own:
 * torchvision's box and region operators (`nms(boxes, scores, 0.5)` with the scores left on
 * the CPU fails in the CUDA kernel, "scores must be a CUDA tensor"). A row per library.
 */
export const LIBRARY_TENSOR_FUNCTIONS = /^torchvision\.ops\.(?:boxes\.|roi_align\.|poolers\.)?(?:nms|batched_nms|box_iou|generalized_box_iou|distance_box_iou|complete_box_iou|box_area|clip_boxes_to_image|roi_align|roi_pool|ps_roi_align|ps_roi_pool|deform_conv2d|sigmoid_focal_loss)$/;

/**
 * Functions of other libraries that give a tensor argument back where it is, converting
 * nothing; the value: whether the result keeps the autograd graph, and whether it has a new
 * shape (what was known of the argument's shape no longer holds; given a list, not one tensor,
 * they stack it, which the analysis does not follow).
 * - numpy functions that call the same-named method of an argument that has one (`np.squeeze(t)`
 *   is `t.squeeze()`). Checked with torch 1.13 and numpy 1.24 on a tensor numpy cannot read
 *   (device "meta"): these return a Tensor; `np.transpose`, `np.reshape`, `np.argmax`,
 *   `np.clip` and the ufuncs fall back to `np.asarray` and fail.
 * - einops's `rearrange(x, "b c h w -> b (h w) c")`, `repeat`, `reduce` and `einsum`: the
 *   backend's own operations on x.
 */
export const TENSOR_KEEPING_FUNCTIONS = new Map<string, { keepsGraph: boolean; reshapes: boolean }>([
  ['numpy.squeeze', { keepsGraph: true, reshapes: false }], ['numpy.swapaxes', { keepsGraph: true, reshapes: false }],
  ['numpy.nonzero', { keepsGraph: false, reshapes: false }],
  ...['rearrange', 'repeat', 'reduce', 'einsum'].map((n): [string, { keepsGraph: boolean; reshapes: boolean }] => [`einops.${n}`, { keepsGraph: true, reshapes: true }]),
]);

/**
 * Other libraries' functions that turn every array argument into a NumPy array
 * (`np.asarray`), so a GPU tensor or one that requires grad fails there as `.numpy()` does:
 * scikit-learn's metrics (`roc_curve(y, scores)`, `accuracy_score(y, preds)`), matplotlib's
 * and seaborn's plotting calls (`plt.plot(losses)`, `plt.imshow(img)`), NumPy's savers
 * (`np.save(path, t)`), pandas' constructors (`pd.DataFrame(t)`) and SciPy's statistics,
 * distances and signal processing (`scipy.stats.pearsonr(a, b)`). Not the scorer factories,
 * which take no arrays; not OpenCV or PIL, which refuse a tensor on any device.
 */
const ARRAY_ARGUMENT_CONVERTERS = [
  /^sklearn\.metrics\.(?:\w+\.)*(?!make_scorer$|get_scorer\w*$|check_scoring$)[a-z]\w*$/,
  /^matplotlib\.pyplot\.(?:plot|scatter|imshow|matshow|hist|hist2d|bar|barh|fill_between|errorbar|stem|step|stairs|contour|contourf|pcolormesh|pcolor|boxplot|violinplot|semilogy|semilogx|loglog|Rectangle|Circle|Polygon)$/,
  /^seaborn\.(?:lineplot|scatterplot|relplot|histplot|kdeplot|ecdfplot|displot|heatmap|clustermap|barplot|boxplot|violinplot|stripplot|swarmplot|pointplot|regplot|lmplot|jointplot|pairplot)$/,
  /^numpy\.(?:save|savetxt|savez|savez_compressed)$/,
  /^pandas\.(?:DataFrame|Series)$/,
  /^scipy\.(?:stats|spatial\.distance|signal)\.[a-z]\w*$/,
];

export function convertsArrayArguments(qualified: string): boolean {
  return ARRAY_ARGUMENT_CONVERTERS.some((re) => re.test(qualified));
}

/**
 * torchsummary's `summary(model, input_size, batch_size=-1, device="cuda")` runs the model on
 * a probe input it makes on `device` (CUDA when available, by default) and moves nothing, so a
 * model left on the CPU fails there (sksq96/pytorch-summary#16). torchinfo's summary is not
 * here: it moves the model to its device itself (TylerYep/torchinfo#227).
 */
export const PROBING_SUMMARIES = new Set(['torchsummary.summary', 'torchsummary.torchsummary.summary']);

/**
 * Tensor arguments an API accepts on any device because it moves them to the CPU itself, by
 * position and keyword: CTC's lengths (ATen's ctc_loss reads them with `.to(kCPU)`), so a
 * CPU lengths tensor beside GPU log-probabilities is how it is meant to be called. Keyed by
 * the function's qualified name, or the module class's (`torch.nn.CTCLoss`).
 */
export const ANY_DEVICE_ARGUMENTS: ReadonlyMap<string, { positions: readonly number[]; keywords: readonly string[] }> = new Map([
  // Targets too: cuDNN's CTC wants int32 targets on the CPU, the native CUDA kernel wants them
  // on the GPU (pytorch/pytorch#22234, #21680), and which runs depends on dtypes and shapes.
  ['torch.nn.CTCLoss', { positions: [1, 2, 3], keywords: ['targets', 'input_lengths', 'target_lengths'] }],
  ['torch.nn.functional.ctc_loss', { positions: [1, 2, 3], keywords: ['targets', 'input_lengths', 'target_lengths'] }],
]);

/**
 * Tensor arguments an API demands on the CPU, by position and keyword: pack_padded_sequence's
 * lengths ("'lengths' argument should be a 1D CPU int64 tensor, but got 1D cuda:0 Long
 * tensor", checked with torch 1.13; the input itself may be anywhere).
 */
export const CPU_ARGUMENTS: ReadonlyMap<string, { positions: readonly number[]; keywords: readonly string[] }> = new Map([
  ['torch.nn.utils.rnn.pack_padded_sequence', { positions: [1], keywords: ['lengths'] }],
]);

/** The arguments of `qualified` whose device need not match its other tensors: on any device, or on the CPU by demand. */
export function argumentsOnAnyDevice(qualified: string): { positions: readonly number[]; keywords: readonly string[] } | undefined {
  return ANY_DEVICE_ARGUMENTS.get(qualified) ?? CPU_ARGUMENTS.get(qualified);
}

/** Integer and boolean dtypes, as `torch.<name>`: a tensor cast to one never requires grad. */
const INTEGER_DTYPES = new Set(['uint8', 'int8', 'int16', 'int32', 'int64', 'int', 'long', 'short', 'bool', 'qint8', 'quint8']);
/** Tensor methods that cast to an integer or boolean dtype. */
const INTEGER_CAST_METHODS = new Set(['long', 'int', 'short', 'char', 'byte', 'bool']);
const INTEGER_TENSOR_TYPE = /^torch\.(cuda\.)?(Byte|Char|Short|Int|Long|Bool)Tensor$/;

/**
 * Whether a tensor method call casts to an integer or boolean dtype (`.long()`,
 * `.to(torch.uint8)`, `.to(device, dtype=torch.int64)`, `.type(torch.LongTensor)`): integer
 * tensors cannot require grad, so the result has left the autograd graph (torch 1.13:
 * `requires_grad` is False after each of these). `dtypes` are the qualified names of the
 * call's positional arguments and its `dtype=` keyword, in that order.
 */
export function isIntegerCast(method: string, dtypes: ReadonlyArray<string | undefined>): boolean {
  if (INTEGER_CAST_METHODS.has(method)) return true;
  if (method !== 'to' && method !== 'type') return false;
  return dtypes.some((q) => q !== undefined && ((q.startsWith('torch.') && INTEGER_DTYPES.has(q.slice(6))) || INTEGER_TENSOR_TYPE.test(q)));
}

/** Datasets whose items are rows of the tensors they are built from, where those are. */
export const TENSOR_DATASETS = new Set(['torch.utils.data.TensorDataset', 'torch.utils.data.dataset.TensorDataset']);

/**
 * torch.distributed's collectives and point-to-point calls. With NCCL, the backend of GPU
 * training, every tensor they get must be on CUDA (DD001); a CUDA hard-code beside one is what
 * NCCL requires, not a portability slip (DD005).
 */
export const DISTRIBUTED_COLLECTIVES: ReadonlySet<string> = new Set([
  'broadcast', 'all_reduce', 'all_gather', 'all_gather_into_tensor', 'reduce', 'reduce_scatter', 'reduce_scatter_tensor',
  'gather', 'scatter', 'all_to_all', 'all_to_all_single', 'send', 'recv', 'isend', 'irecv',
].map((name) => `torch.distributed.${name}`));

/**
 * Classes whose state_dict holds only numbers (learning-rate schedulers; GradScaler keeps its
 * scale as a float): `torch.load` of one restores nothing on a device.
 */
export function hasTensorlessState(qualified: string): boolean {
  return /^torch\.optim\.lr_scheduler\.\w+$/.test(qualified) || /^torch\.(cuda\.)?amp(\.grad_scaler)?\.GradScaler$/.test(qualified) ||
    // `get_linear_schedule_with_warmup(...)`, `get_scheduler(...)`: a LambdaLR made by Hugging Face's helpers.
    /^(transformers|diffusers)(\.optimization)?\.get_\w*schedule\w*$/.test(qualified);
}

/** Wrappers that yield what they wrap (progress bars, `iter`): a loop over one is a loop over its loader. */
export const PROGRESS_WRAPPERS: ReadonlySet<string> = new Set(['tqdm', 'tqdm.tqdm', 'tqdm.auto.tqdm', 'tqdm.notebook.tqdm', 'tqdm.rich.tqdm', 'rich.progress.track', 'track', 'iter']);

/**
 * Other libraries' batch iterators that build each batch on the `device=` they are given
 * (torchtext's legacy `BucketIterator(ds, batch_size, device=d)`), yielding their own batch
 * objects: no loader of CPU tensors.
 */
export const LIBRARY_BATCH_ITERATORS = /^torchtext\.(legacy\.)?data\.(iterator\.)?(Iterator|BucketIterator|BPTTIterator)$/;

/** torch_geometric's loaders: each batch is a graph (Data/Batch) on the CPU, moved with `batch.to(device)` in place. */
export const GRAPH_LOADER = /^torch_geometric\.(loader|data)\.(\w+)?(DataLoader|Loader)$/;

/**
 * Libraries whose data objects move themselves in place and return themselves: a
 * torch_geometric `Data`, `HeteroData` or `Batch` (`to()` applies the move to each of its
 * stores), a DeepSNAP graph batch. In a program that imports one, a value whose `.to()` is a
 * statement of its own may be such an object (inPlaceMoves.ts).
 */
export const LIBRARIES_MOVING_DATA_IN_PLACE = /^(torch_geometric|deepsnap)(\.|$)/;

/** Attributes of a torch_geometric graph that are counts or names, not tensors. */
export const GRAPH_NON_TENSOR_ATTRIBUTES = new Set([
  'num_nodes', 'num_edges', 'num_graphs', 'batch_size', 'num_node_features', 'num_features', 'num_edge_features',
  'num_node_types', 'num_edge_types', 'keys', 'node_types', 'edge_types', 'metadata', 'stores', 'node_stores',
  'edge_stores', 'node_attrs', 'edge_attrs', 'is_directed', 'is_undirected', 'has_isolated_nodes', 'has_self_loops',
]);
