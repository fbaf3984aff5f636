// Trains the lesson's poetry model and writes what ships: web/poems/poems.safetensors (F16, the vocabulary
// in its __metadata__) and its model card web/poems/poems.card.json.
//
//   npm run train-model               the corpus (npm run corpus), then the training run below in its two parts
//                                     (about 2 h 50 min on 2 cores), the F16 file and the card
//   npm run train-model -- --resume   goes on from the newest checkpoint in web/poems/build/run/checkpoints (the
//                                     second part's in run/longer/checkpoints): the run stopped by SIGINT or
//                                     SIGTERM, or killed; then ships as above. After a finished run it only ships
//                                     (the F16 file and the card) again
//   npm run train-model -- --fresh    throws away the run folder's checkpoints and starts again
//   node web/poems/build/train.js --reproduce
//                                     the short run the tests repeat: a tiny model on the committed
//                                     reproduction-corpus.txt; rewrites train-reproduction.json, its loss curve
//
// Trying the whole pipeline without touching what ships: --steps N (the first part's steps; the second part, the
// schedules, the learning curve's spacing and the checkpoints shrink with it), --out DIR (the F16 file and the card
// go there, not web/poems/), --run-dir DIR (checkpoints, kept steps, the loss logs), --stop-after N (stops as a
// signal would, at step N of the whole run).
//
// The training itself is c/tools/tool_train_poems.c, built here with gcc. Same machine kind, same bytes: the run
// is seeded, its threads never change the bytes (each output is computed whole by one thread), and
// -std=c11 keeps gcc from fusing multiply-adds. -march=native lets the kernels use the CPU's widest
// vectors, which changes the order of sums, so another CPU family gives a slightly different model (and
// card), not the same bytes.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadAttention } from '../../src/attention.js';
import { BUILD_DIR, scriptOptions } from './corpus.js';
import { writeCardMeasures } from './card-measures.js';
import { evaluationWindows } from '../baselines.js';
import { clauseLengthModel, countingLosses, kneserNey3, poemBootstrap } from './kneser-ney.js';
import { Continuation } from '../runs.js';
import { heldOutLoss, heldOutLossByPoem, windowLosses } from '../evaluate.js';
import { measureHeadRoles, roleQueries, tokenKinds } from '../head-roles.js';
import { HEAD_ROLES } from '../../heads/roles.js';
import { BOUNDARY_ID, buildVocabulary, encodePoems, encoder, UNKNOWN_ID } from '../vocabulary.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..', '..', '..');
export const MODEL_PATH = join(HERE, '..', 'poems.safetensors');
export const CARD_PATH = join(HERE, '..', 'poems.card.json');
export const REPRODUCTION_CORPUS = join(HERE, 'reproduction-corpus.txt');
export const REPRODUCTION_FIXTURE = join(HERE, 'train-reproduction.json');

/**
 * The run's first part: about 2 h 20 min on every core of this 2-core machine (48,000 steps, 49 M tokens, about 14
 * passes over the stream), on the cleaned corpus: four times the run before it (12,000 steps on the corpus before
 * the cleaning), with the same shape, schedule (warmup, then a cosine over the whole run), batch and seed. Its
 * model is the mean of the parameters over its last 4,000 steps (averageFrom), which scores lower than its last
 * step alone; the steps themselves are those of the run without it. LONGER_RUN goes on from that mean.
 * 8 heads of 16 dimensions, not 4 of 32: with 4, after 2,500 steps no head looked
 * at the previous character with more than 0.40 of its weight; with 8, one does with 0.8 by step 1,200. Three
 * layers, not six: at equal tokens six were worse and 1.6× slower, and a run of 3,200 steps was still
 * improving by about 0.2 nats each time its tokens doubled. The threads change the time, never the bytes.
 */
export const MODEL_RUN = { layers: 3, dModel: 128, heads: 8, context: 64, batch: 16, steps: 48000, seed: 1, lr: 0.003, warmup: 200, averageFrom: 44000, threads: cpus().length };
/**
 * The run's second part: MODEL_RUN's model (the mean of its last steps, in F32) trained on with twice its context,
 * 128 characters, so that the rest of a long poem reads its opening. With 64, a window began blind to the poem's
 * start at its 65th character: a quarter of the fresh set's targets, at 4.62 nats against 4.27 over all of them.
 * Positions 65 to 128 start as copies of 1 to 64 (the tool's --init); the batch halves, so that a step reads as
 * many tokens as before. The step size rises to 0.0006, twice where the first part ended, then falls along a
 * cosine to a tenth of it; what ships is the mean of the parameters over the last 2,000 steps. About 25 min.
 */
export const LONGER_RUN = { ...MODEL_RUN, context: 128, batch: 8, steps: 8000, seed: 2, lr: 0.0006, warmup: 200, averageFrom: 6000 };
/** The short run the tests repeat: seconds, not minutes, on any machine. */
export const REPRODUCTION_RUN = { layers: 2, dModel: 32, heads: 2, context: 32, batch: 4, steps: 40, seed: 1, lr: 0.003, warmup: 10, dropout: 0.1, averageFrom: 30 };

export const COMPILER_FLAGS = ['-std=c11', '-Wall', '-Wextra', '-Werror', '-pedantic', '-O3', '-march=native', '-pthread', '-DMHA_THREADS'];

/** The C library as build.sh defines it (every file of c/lib) and the tool. */
export function trainerSources() {
  const library = readdirSync(join(ROOT, 'c', 'lib')).filter((name) => name.endsWith('.c')).sort().map((name) => join(ROOT, 'c', 'lib', name));
  return [...library, join(ROOT, 'c', 'tools', 'tool_train_poems.c')];
}

/** Builds c/tools/tool_train_poems.c into dir; returns the executable's path. */
export function buildTrainer(dir) {
  mkdirSync(dir, { recursive: true });
  const tool = join(dir, 'tool_train_poems');
  execFileSync('gcc', [...COMPILER_FLAGS, ...trainerSources(), '-lm', '-o', tool], { stdio: 'inherit' });
  return tool;
}

/**
 * The learning curve's steps: the run keeps the model at every KEEP_EVERY-th step (in keepDir). 4,000 for the
 * 48,000-step run: twelve points, as many as the table can show, and the old run's steps 4,000, 8,000 and
 * 12,000 among them; every 2,000 would double the evaluation time and the 5.4 MB files for points 0.05 nats apart.
 */
export const KEEP_EVERY = 4000;
/** The second part's learning-curve steps: four points over its 8,000 steps. */
export const LONGER_KEEP_EVERY = 2000;
/** A checkpoint (16 MB: the weights and AdamW's two moments) every this many steps, about 4 minutes of the run. */
export const CHECKPOINT_EVERY = 1000;
/** The exit status of a run stopped by a signal or --stop-after, its checkpoint written. */
export const STOPPED = 3;

/** The tool's command line for a run, with the options that keep steps, checkpoint, resume, stop and label the file. */
function trainerArgs(streamPath, outPath, run, { keepDir = null, keepEvery = KEEP_EVERY, dtype = 'F32', metadata = {},
  checkpointDir = null, checkpointEvery = CHECKPOINT_EVERY, resume = null, stopAfter = null, init = null } = {}) {
  return [streamPath, outPath, '--layers', run.layers, '--d-model', run.dModel, '--heads', run.heads,
    '--context', run.context, '--batch', run.batch, '--steps', run.steps, '--seed', run.seed, '--lr', run.lr,
    '--warmup', run.warmup, '--dropout', run.dropout ?? 0, '--threads', run.threads ?? 1, ...(keepDir ? ['--keep-every', keepEvery, '--keep-dir', keepDir] : []),
    ...(checkpointDir ? ['--checkpoint-dir', checkpointDir, '--checkpoint-every', checkpointEvery] : []),
    ...(resume ? ['--resume', resume] : []), ...(stopAfter ? ['--stop-after', stopAfter] : []),
    ...(run.averageFrom ? ['--average-from', run.averageFrom] : []), ...(init ? ['--init', init] : []),
    '--dtype', dtype, ...Object.entries(metadata).flatMap(([key, value]) => ['--metadata', `${key}=${value}`])].map(String);
}

/**
 * Runs the tool on a Uint16 stream file; { losses (one per step of this call), seconds, stopped }. The model goes
 * to outPath (F32, or `dtype` with `metadata`'s string entries after n_head), with keepDir an F32 copy every
 * keepEvery steps; with checkpointDir a checkpoint every checkpointEvery steps, `resume` goes on from one, and
 * `stopAfter` stops at that step (stopped: true, as a signal does); `init`, a model file to start from. With
 * lossesPath the step lines are appended to that file instead of returned.
 */
export function runTrainer(tool, streamPath, outPath, run, { nice = false, progress = false, lossesPath = null, ...options } = {}) {
  const args = trainerArgs(streamPath, outPath, run, options);
  const [command, commandArgs] = nice ? ['nice', ['-n', '10', tool, ...args]] : [tool, args];
  const out = lossesPath ? openSync(lossesPath, 'a') : 'pipe';
  const begun = performance.now();
  let result;
  try {
    result = spawnSync(command, commandArgs, { encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', out, progress ? 'inherit' : 'pipe'] });
  } finally {
    if (lossesPath) closeSync(out);
  }
  const seconds = (performance.now() - begun) / 1000;
  const stopped = result.status === STOPPED;
  if (result.status !== 0 && !stopped) throw new Error(`tool_train_poems failed (${result.signal ?? result.status}): ${result.stderr ?? ''}${result.error ?? ''}`);
  const losses = lossesPath ? [] : parseLosses(result.stdout);
  return { losses, seconds, stopped };
}

/** The tool's stdout, "step loss" a line: the losses in step order. */
export const parseLosses = (text) => text.split('\n').filter(Boolean).map((line) => Number(line.split(' ')[1]));

/** The __metadata__ of a .safetensors file (its header alone is read). */
export function safetensorsMetadata(path) {
  const bytes = readFileSync(path);
  const length = Number(bytes.readBigUInt64LE(0));
  return JSON.parse(bytes.subarray(8, 8 + length).toString('utf8')).__metadata__ ?? {};
}

/** The checkpoints in dir, newest (most steps) last: [{ path, step }]. */
export function checkpoints(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).map((name) => [name, /^checkpoint-(\d+)\.safetensors$/.exec(name)]).filter(([, m]) => m)
    .map(([name, m]) => ({ path: join(dir, name), step: Number(m[1]) })).sort((a, b) => a.step - b.step);
}

export function writeStream(stream, path) {
  const bytes = new Uint8Array(stream.length * 2);
  const view = new DataView(bytes.buffer);
  stream.forEach((id, i) => view.setUint16(2 * i, id, true));
  writeFileSync(path, bytes);
}

/** The reproduction corpus as a stream: its poems (separated by an empty line), a vocabulary of all its characters. */
export function reproductionStream() {
  const bodies = readFileSync(REPRODUCTION_CORPUS, 'utf8').trim().split('\n\n');
  return encodePoems(bodies, buildVocabulary(bodies, { minCount: 1 }));
}

/** The short run, built (unless `tool` is given) and run in dir: its loss curve. */
export function reproduce(dir, tool = buildTrainer(dir)) {
  const streamPath = join(dir, 'reproduction.bin');
  writeStream(reproductionStream(), streamPath);
  return runTrainer(tool, streamPath, join(dir, 'reproduction.safetensors'), REPRODUCTION_RUN).losses;
}

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');
const round = (x, digits = 4) => Math.round(x * 10 ** digits) / 10 ** digits;
const sum = (values) => values.reduce((a, b) => a + b, 0);

/** How many times the card's intervals resample the poems. */
const RESAMPLES = 2000;

/** Openings whose greedy continuations go on the card: famous first lines, of five and of seven characters. */
export const SAMPLE_OPENINGS = ['床前明月光，', '国破山河在，', '白日依山尽，', '故人西辞黄鹤楼，'];

/**
 * The counting baselines on a set of poems (arrays of ids) beside the model's per-poem losses: each poem's
 * totals for the model, the Kneser-Ney 3-gram and the 3-gram with clause length, and their means with 95 %
 * intervals from resampling whole poems.
 */
function compare(modelByPoem, poems, counting, context, mha) {
  const perPoem = poems.map((ids, i) => {
    const { kn3, withLength } = countingLosses(evaluationWindows(ids, context), counting);
    return { sums: { model: modelByPoem[i].sum, kn3: sum(kn3), kn3ClauseLength: sum(withLength) }, targets: modelByPoem[i].targets };
  });
  const targets = sum(perPoem.map((poem) => poem.targets));
  const names = ['model', 'kn3', 'kn3ClauseLength'];
  const uniforms = mha.randomState(1).randomSample(RESAMPLES * perPoem.length);
  const intervals = poemBootstrap(perPoem, names, { uniforms, ratios: [['model', 'kn3'], ['model', 'kn3ClauseLength']] });
  const mean = (name) => sum(perPoem.map((poem) => poem.sums[name])) / targets;
  return {
    targets,
    loss: Object.fromEntries(names.map((name) => [name, { mean: round(mean(name)), interval95: intervals[name].map((x) => round(x)) }])),
    ratio: {
      modelToKn3: { value: round(mean('model') / mean('kn3')), interval95: intervals['model/kn3'].map((x) => round(x)) },
      modelToKn3ClauseLength: { value: round(mean('model') / mean('kn3ClauseLength')), interval95: intervals['model/kn3ClauseLength'].map((x) => round(x)) },
    },
    perPoem,
  };
}

/** The kinds of target a head's ablation is split by, in the card's order. */
export const TARGET_KINDS = ['separator', 'clauseStart', 'couplet', 'rest'];

/**
 * What each head is used for: the held-out loss with that head switched off, minus the loss with every head
 * on, over all targets and by kind of target (a separator; a clause's first character; a character of a
 * couplet's second clause, where 对仗 can help; any other character). Attention is not use: a head can look
 * somewhere clearly and still change nothing when it is gone.
 */
export function headAblations(model, poems, kinds) {
  const { layers, heads, context } = model.config;
  const windows = poems.flatMap((ids) => evaluationWindows(ids, context));
  const kindOf = windows.map(({ input, target }) => {
    const couplet = new Set(roleQueries([...input, target.at(-1)], kinds).parallel.map(([row]) => row));
    return target.map((w, i) => {
      if (kinds.separator[w]) return 'separator';
      if (kinds.separator[input[i]] || input[i] === BOUNDARY_ID) return 'clauseStart';
      return couplet.has(i + 1) ? 'couplet' : 'rest';
    });
  });
  const losses = (disabled) => windows.map((window) => windowLosses(model, window, disabled));
  const meanBy = (values) => {
    const totals = Object.fromEntries(['all', ...TARGET_KINDS].map((kind) => [kind, [0, 0]]));
    values.forEach((row, k) => row.forEach((value, i) => {
      for (const kind of ['all', kindOf[k][i]]) {
        totals[kind][0] += value;
        totals[kind][1]++;
      }
    }));
    return Object.fromEntries(Object.entries(totals).map(([kind, [total, n]]) => [kind, n ? total / n : null]));
  };
  const allOn = meanBy(losses([]));
  const targets = Object.fromEntries(['all', ...TARGET_KINDS].map((kind) => [kind, 0]));
  for (const kind of kindOf.flat()) {
    targets[kind]++;
    targets.all++;
  }
  return {
    targets,
    allOn: mapValues(allOn, round),
    heads: Array.from({ length: layers * heads }, (_, i) => {
      const [layer, head] = [Math.floor(i / heads), i % heads];
      const off = meanBy(losses([[layer, head]]));
      return { layer, head, ...Object.fromEntries(Object.keys(off).map((kind) => [kind, round(off[kind] - allOn[kind])])) };
    }),
  };
}

/**
 * The card: what the model is, what it was trained on and how, and what it measures on the held-out poems
 * of 唐诗三百首 and on the fresh test set of 全唐诗 (its loss beside counting baselines, with intervals, and every
 * head's role scores), measured in wasm on the shipped F16 file, as a page loading it computes. `curve` is
 * the learning curve measured on the run's saved steps.
 */
export async function makeCard({ file, vocabulary, heldOut, freshTest, stream, summary, parts, losses, seconds, curve = [] }) {
  const mha = await loadAttention();
  const model = await mha.loadModel(file);
  try {
    const kinds = tokenKinds(vocabulary);
    const isSeparator = (id) => kinds.separator[id] === 1;
    const counting = {
      kn: kneserNey3(stream, vocabulary.length), separatorShare: clauseLengthModel(stream, isSeparator),
      separatorIds: vocabulary.flatMap((_, id) => (isSeparator(id) ? [id] : [])), isSeparator,
    };
    const { context } = model.config;
    const poems = heldOut.map((poem) => poem.ids);
    const tang300 = compare(heldOutLossByPoem(model, poems), poems, counting, context, mha);
    const freshPoems = freshTest.map((poem) => poem.ids);
    const fresh = compare(heldOutLossByPoem(model, freshPoems), freshPoems, counting, context, mha);
    const windows = poems.flatMap((ids) => evaluationWindows(ids, context).map(({ input }) => input));
    const roles = measureHeadRoles(model, windows, kinds);
    const ablation = headAblations(model, poems, kinds);
    const best = Object.fromEntries(HEAD_ROLES.map(({ name }) => {
      const top = roles.heads.reduce((a, b) => (b.scores[name] > a.scores[name] ? b : a));
      return [name, { layer: top.layer, head: top.head, score: round(top.scores[name]), chance: round(roles.chance[name]) }];
    }));
    const poemsApi = { model, vocabulary, kinds };
    const samples = SAMPLE_OPENINGS.map((opening) => {
      const ids = [BOUNDARY_ID, ...encoder(vocabulary)(opening)];
      const continuation = new Continuation(poemsApi, mha, { ids, off: [], count: 24, temperature: 0 });
      while (!continuation.advance(1000));
      return { opening, greedy: continuation.added.map((id) => vocabulary[id]).join(''), endedPoem: continuation.ended };
    });
    const lastSteps = losses.slice(-100);
    const perPoemRows = heldOut.map(({ entry, title }, i) => {
      const { sums, targets } = tang300.perPoem[i];
      return { entry, title, targets, model: round(sums.model / targets), kn3: round(sums.kn3 / targets), kn3ClauseLength: round(sums.kn3ClauseLength / targets) };
    });
    return {
      name: 'poems: a small GPT-2 of Tang poetry, one token per character',
      model: {
        file: 'poems.safetensors', bytes: file.length, sha256: sha256(file), dtype: 'F16',
        architecture: 'GPT-2: decoder-only, pre-LayerNorm, GELU MLP 4·d wide, learned positions, read-out tied to the token embedding',
        layers: model.config.layers, heads: model.config.heads, dModel: model.config.dModel,
        context: model.config.context, vocabSize: model.config.vocabSize,
        parameters: parameterCount(model.config),
      },
      corpus: {
        version: { ...summary.sources, streamSha256: summary.training.streamSha256 },
        trainingPoems: summary.training.poems, trainingTokens: summary.training.tokens,
        vocabulary: summary.vocabulary,
        ...(summary.cleaning ? { cleaning: summary.cleaning } : {}),
      },
      // The poems the numbers below are measured on, so a test or a page can measure them again.
      heldOut: { targets: tang300.targets, poems: heldOut.map(({ entry, title, author, body }) => ({ entry, title, author, body })) },
      training: {
        tool: 'c/tools/tool_train_poems.c (c/lib/gpt.h: analytic backward, AdamW)', compiler: `gcc ${COMPILER_FLAGS.join(' ')}`,
        threads: parts[0].threads, steps: sum(parts.map((run) => run.steps)), tokensSeen: sum(parts.map(tokensSeen)),
        optimizer: 'AdamW (β 0.9, 0.95; weight decay 0.1; gradient norm clipped at 1)',
        batches: 'windows of context + 1 tokens: half start at a poem’s opening token, half anywhere',
        // Each part starts from the one before (its mean, when it averages); what ships is the last part's.
        parts: parts.map((run, i) => ({
          context: run.context, seed: run.seed, steps: run.steps, batch: run.batch, sequenceTokens: run.context + 1, tokensSeen: tokensSeen(run),
          schedule: `step size rising linearly to ${run.lr} over ${run.warmup} steps, then a cosine down to ${Number((run.lr / 10).toPrecision(6))}`,
          ...(i ? { init: `part ${i}'s model; position p starts as its row p mod ${parts[i - 1].context}` } : {}),
          ...(run.dropout ? { dropout: `${run.dropout} of the embeddings' sum and of each block's attention and MLP output, in training steps only` } : {}),
          ...(run.averageFrom ? { averagedFrom: run.averageFrom, weights: `the mean of the parameters after each of its steps from ${run.averageFrom + 1} to ${run.steps}` } : {}),
        })),
        finalTrainingLoss: round(sum(lastSteps) / lastSteps.length),
        trainingLossBy500Steps: Array.from({ length: Math.ceil(losses.length / 500) }, (_, k) => round(sum(losses.slice(500 * k, 500 * (k + 1))) / losses.slice(500 * k, 500 * (k + 1)).length)),
        learningCurve: curve, // the steps' own parameters, not their mean; steps and tokens counted over the parts
        seconds: Math.round(seconds), cpu: cpus()[0]?.model ?? 'unknown',
      },
      evaluation: 'mean next-character loss in nats, each poem its own sequence (BOUNDARY, then its characters), in consecutive windows of at most the context (web/poems/baselines.js evaluationWindows); intervals: 2.5 and 97.5 percentiles over 2,000 resamples of whole poems',
      heldOutLoss: tang300.loss.model.mean,
      baselines: {
        unigram: summary.baselines.unigram.lossNats, bigram: summary.baselines.bigram.lossNats,
        kn3: tang300.loss.kn3.mean, kn3ClauseLength: tang300.loss.kn3ClauseLength.mean,
        definitions: {
          kn3: 'interpolated modified Kneser-Ney 3-gram of the training stream (web/poems/build/kneser-ney.js), reading at most the two tokens before each target inside its window',
          kn3ClauseLength: 'the same 3-gram with its separators rescaled to how often the training text puts one after n characters of a clause when the clause before had m',
        },
      },
      tang300: { loss: tang300.loss, ratio: tang300.ratio, perPoem: perPoemRows },
      freshTest: { rule: summary.freshTest.rule, poems: freshTest.length, targets: fresh.targets, loss: fresh.loss, ratio: fresh.ratio },
      samples,
      ablation: { kinds: TARGET_KINDS, ...ablation },
      headRoles: {
        definitions: Object.fromEntries(HEAD_ROLES.map(({ name, explains }) => [name, explains])),
        chance: mapValues(roles.chance, round), rows: roles.rows, best,
        heads: roles.heads.map(({ layer, head, scores }) => ({ layer, head, ...mapValues(scores, round) })),
      },
    };
  } finally {
    model.dispose();
  }
}

/**
 * The held-out losses of a part's saved steps (F32 files in dir named step-N.safetensors), in step order: each
 * point's step and tokens counted from the run's start (the parts before it took stepsBefore and tokensBefore).
 */
export async function learningCurve(dir, { heldOut, freshTest, run, stepsBefore = 0, tokensBefore = 0 }) {
  const mha = await loadAttention();
  const files = readdirSync(dir).map((name) => [name, /^step-(\d+)\.safetensors$/.exec(name)]).filter(([, m]) => m)
    .map(([name, m]) => [name, Number(m[1])]).sort((a, b) => a[1] - b[1]);
  const curve = [];
  for (const [name, step] of files) {
    const model = await mha.loadModel(readFileSync(join(dir, name)));
    try {
      curve.push({
        step: stepsBefore + step, tokensSeen: tokensBefore + step * run.batch * run.context, context: run.context,
        heldOutLoss: round(heldOutLoss(model, heldOut.map((poem) => poem.ids)).loss),
        freshTestLoss: round(heldOutLoss(model, freshTest.map((poem) => poem.ids)).loss),
      });
    } finally {
      model.dispose();
    }
  }
  return curve;
}

const mapValues = (object, f) => Object.fromEntries(Object.entries(object).map(([key, value]) => [key, value == null ? value : f(value)]));

/** The tokens a run's (or part's) steps read as targets. */
const tokensSeen = (run) => run.steps * run.batch * run.context;

/** GPT-2's parameter count: embeddings, twelve tensors a block, the final LayerNorm (the read-out is tied). */
export function parameterCount({ layers, dModel: d, context, vocabSize }) {
  return vocabSize * d + context * d + layers * (12 * d * d + 13 * d) + 2 * d;
}

/** Where the model's run keeps its checkpoints, kept steps, loss log and F16 file: ignored by git (.gitignore). */
export const RUN_DIR = join(HERE, 'run');

async function main() {
  if (process.argv.includes('--reproduce')) {
    const losses = reproduce(join(BUILD_DIR, 'reproduction'));
    const stream = reproductionStream();
    writeFileSync(REPRODUCTION_FIXTURE, `${JSON.stringify({
      made: 'node web/poems/build/train.js --reproduce',
      run: REPRODUCTION_RUN, streamSha256: sha256(new Uint8Array(stream.buffer)), losses,
    }, null, 1)}\n`);
    console.log(`reproduction: ${losses.length} steps, loss ${losses[0]} → ${losses.at(-1)}`);
    return;
  }
  const { values, positive, usageError } = scriptOptions('train.js', {
    resume: { type: 'boolean' }, fresh: { type: 'boolean' }, steps: { type: 'string' }, 'stop-after': { type: 'string' },
    out: { type: 'string' }, 'run-dir': { type: 'string' },
  });
  if (values.resume && values.fresh) usageError('--resume and --fresh exclude each other');
  const steps = values.steps ? positive('steps') : MODEL_RUN.steps;
  // A shorter trial run keeps the real run's proportions: its second part as long against its first, twelve
  // learning-curve points and four, a checkpoint every 1/48 of the first part, the same share of the steps averaged.
  const scale = steps / MODEL_RUN.steps;
  const scaled = (run) => ({ ...run, steps: Math.max(1, Math.round(run.steps * scale)), averageFrom: Math.floor(run.averageFrom * scale) });
  const runDir = resolve(values['run-dir'] ?? RUN_DIR);
  const outDir = resolve(values.out ?? dirname(MODEL_PATH));
  const checkpointEvery = Math.max(1, Math.round(CHECKPOINT_EVERY * scale));
  const parts = [
    { run: scaled(MODEL_RUN), dir: runDir, keepEvery: KEEP_EVERY, out: join(runDir, 'first.safetensors') },
    { run: scaled(LONGER_RUN), dir: join(runDir, 'longer'), keepEvery: LONGER_KEEP_EVERY, out: join(runDir, 'poems.safetensors') },
  ].map((part) => ({ ...part, keepEvery: Math.max(1, Math.round(part.keepEvery * scale)), checkpointDir: join(part.dir, 'checkpoints'),
    keepDir: join(part.dir, 'kept'), lossesPath: join(part.dir, 'losses.txt') }));
  const newest = parts.map((part) => checkpoints(part.checkpointDir).at(-1) ?? null);
  if (values.resume && !newest[0]) usageError(`--resume: no checkpoint in ${parts[0].checkpointDir}; start without --resume`);
  if (!values.resume && newest.some(Boolean) && !values.fresh) {
    const [found] = newest.filter(Boolean);
    usageError(`${runDir} holds a run's checkpoints (the newest at step ${found.step} of its part): --resume goes on with it, --fresh throws it away`);
  }
  if (!values.resume) for (const { checkpointDir, keepDir, lossesPath } of parts) for (const path of [checkpointDir, keepDir, lossesPath]) rmSync(path, { recursive: true, force: true });
  for (const dir of [...parts.flatMap((part) => [part.checkpointDir, part.keepDir]), outDir]) mkdirSync(dir, { recursive: true });
  // The corpus is built the same way every time; a resumed run reads the one it started with (the tool checks the
  // stream's hash against the checkpoint's).
  if (!values.resume || !existsSync(join(BUILD_DIR, 'train.bin'))) execFileSync('npm', ['run', 'corpus'], { cwd: ROOT, stdio: 'inherit' });
  const tool = buildTrainer(BUILD_DIR);
  const again = [values.steps && `--steps ${steps}`, values.out && `--out ${outDir}`, values['run-dir'] && `--run-dir ${runDir}`].filter(Boolean).join(' ');
  const resumeCommand = `npm run train-model -- --resume${again ? ` ${again}` : ''}`;
  console.log(`training in two parts, ${parts.map(({ run }) => JSON.stringify(run)).join(', then ')} (progress every 50 steps)`);
  console.log(`run folder ${runDir} (the second part's in longer/): a checkpoint every ${checkpointEvery} steps in checkpoints/, the learning curve's ` +
    `steps in kept/, the steps' losses in losses.txt. Stopped (SIGINT or SIGTERM to tool_train_poems, whose pid ` +
    `it prints, or to the whole process group), it goes on with: ${resumeCommand}`);
  // --stop-after counts the steps of the whole run: the second part's go on from the first's last.
  const stopAfter = values['stop-after'] ? positive('stop-after') : null;
  const done = [];
  for (const [i, part] of parts.entries()) {
    const before = sum(parts.slice(0, i).map(({ run }) => run.steps));
    const last = i === parts.length - 1;
    const trained = trainPart(tool, part, {
      checkpointEvery, stopAfter: stopAfter > before ? stopAfter - before : null, init: i ? parts[i - 1].out : null,
      ...(last ? { dtype: 'F16', metadata: shippedMetadata() } : { dtype: 'F32' }),
    });
    if (trained.stopped) {
      console.log(`stopped after step ${before + trained.step} (${trained.path}); go on with: ${resumeCommand}`);
      process.exitCode = STOPPED;
      return;
    }
    done.push(trained);
  }
  await shipModel({
    trained: parts.at(-1).out, losses: done.flatMap((part) => part.losses), seconds: sum(done.map((part) => part.seconds)),
    parts: parts.map(({ run, keepDir }) => ({ run, keepDir })), outDir,
  });
}

/**
 * Trains one part of the run (`part`: its run, out file, folders and keepEvery), going on from the newest checkpoint
 * in its folder if there is one (a finished part's only writes its out file again): { losses, seconds } over all
 * its steps, or { stopped, step, path } of the checkpoint a stop left. `init`: the file the part starts from.
 */
function trainPart(tool, { run, out, keepEvery, checkpointDir, keepDir, lossesPath }, { checkpointEvery, stopAfter, init, dtype, metadata }) {
  const from = checkpoints(checkpointDir).at(-1);
  if (from) {
    // The log keeps the steps up to the checkpoint: a run killed outright may have printed a few beyond it.
    const kept = readFileSync(lossesPath, 'utf8').split('\n').filter((line) => line && Number(line.split(' ')[0]) <= from.step);
    if (kept.length !== from.step) throw new Error(`${lossesPath} holds ${kept.length} steps, not the checkpoint's ${from.step}`);
    writeFileSync(lossesPath, kept.map((line) => `${line}\n`).join(''));
  } else rmSync(lossesPath, { force: true }); // steps a killed run printed before its first checkpoint
  if (from?.step !== run.steps) console.log(`part: ${JSON.stringify(run)}${from ? `, from step ${from.step}` : ''}`);
  // A signal to the whole group (Ctrl-C) reaches the tool, which writes its checkpoint; this script stays to say so.
  const ignore = () => {};
  process.on('SIGINT', ignore).on('SIGTERM', ignore);
  const { stopped } = runTrainer(tool, join(BUILD_DIR, 'train.bin'), out, run, {
    nice: true, progress: true, lossesPath, keepDir, keepEvery, checkpointDir, checkpointEvery, resume: from?.path, stopAfter, init, dtype, metadata,
  });
  process.off('SIGINT', ignore).off('SIGTERM', ignore);
  const last = checkpoints(checkpointDir).at(-1);
  if (stopped) return { stopped, step: last.step, path: last.path };
  const losses = parseLosses(readFileSync(lossesPath, 'utf8'));
  if (losses.length !== run.steps || last.step !== run.steps) throw new Error(`${lossesPath} holds ${losses.length} steps and the last checkpoint is at ${last.step}, not ${run.steps}`);
  return { losses, seconds: Number(safetensorsMetadata(last.path).seconds) };
}

/** What the shipped file's __metadata__ holds after n_head: the vocabulary, the unknown token, the corpus, the card. */
export function shippedMetadata(corpusDir = BUILD_DIR) {
  const vocabulary = JSON.parse(readFileSync(join(corpusDir, 'vocabulary.json'), 'utf8'));
  const summary = JSON.parse(readFileSync(join(corpusDir, 'summary.json'), 'utf8'));
  return {
    vocabulary: JSON.stringify(vocabulary),
    unknown_id: String(UNKNOWN_ID),
    corpus: `全唐诗 (npm chinese-poetry ${summary.sources.training.version}), stream sha256 ${summary.training.streamSha256}`,
    card: 'poems.card.json',
  };
}

/**
 * The model that outDir holds before a new one replaces it, measured on the new corpus's held-out poems and fresh
 * test set (encoded with its own vocabulary), so the two cards compare on the same text: the fresh test set of a
 * cleaned corpus is not the one the old card measured. null where outDir holds no model and card.
 */
export async function previousModel(outDir, { heldOut, freshTest }) {
  const [modelPath, cardPath] = ['poems.safetensors', 'poems.card.json'].map((name) => join(outDir, name));
  if (!existsSync(modelPath) || !existsSync(cardPath)) return null;
  const mha = await loadAttention();
  const poems = await mha.loadPoemModel({ model: pathToFileURL(modelPath), card: pathToFileURL(cardPath) });
  try {
    const ids = (set) => set.map((poem) => Array.from(poems.encode(poem.body)));
    const { card } = poems;
    return {
      sha256: card.model.sha256, steps: card.training.steps, tokensSeen: card.training.tokensSeen, vocabSize: card.model.vocabSize,
      corpusStreamSha256: card.corpus.version.streamSha256,
      onItsCard: { heldOutLoss: card.heldOutLoss, freshTestLoss: card.freshTest.loss.model.mean, freshTestPoems: card.freshTest.poems },
      onThisCorpus: { heldOutLoss: round(heldOutLoss(poems.model, ids(heldOut)).loss), freshTestLoss: round(heldOutLoss(poems.model, ids(freshTest)).loss), freshTestPoems: freshTest.length },
    };
  } finally {
    poems.model.dispose();
  }
}

/**
 * Ships the F16 file the run wrote (`trained`) with its card, into outDir (web/poems/ by default, or another
 * folder for a trial run); also writes the run's loss curve beside `trained`. `parts`: [{ run, keepDir }] in
 * order, `losses` and `seconds` over all of them.
 */
export async function shipModel({ trained, losses, seconds, parts, corpusDir = BUILD_DIR, outDir = dirname(MODEL_PATH) }) {
  const vocabulary = JSON.parse(readFileSync(join(corpusDir, 'vocabulary.json'), 'utf8'));
  const heldOut = JSON.parse(readFileSync(join(corpusDir, 'heldout.json'), 'utf8'));
  const freshTest = JSON.parse(readFileSync(join(corpusDir, 'fresh-test.json'), 'utf8'));
  const summary = JSON.parse(readFileSync(join(corpusDir, 'summary.json'), 'utf8'));
  const streamBytes = readFileSync(join(corpusDir, 'train.bin'));
  const stream = new Uint16Array(streamBytes.buffer, streamBytes.byteOffset, streamBytes.length / 2);
  const file = readFileSync(trained);
  const previous = await previousModel(outDir, { heldOut, freshTest });
  writeFileSync(join(outDir, 'poems.safetensors'), file);
  writeFileSync(join(dirname(trained), 'poems-losses.json'), `${JSON.stringify(losses)}\n`);
  const curve = [];
  for (const [i, { run, keepDir }] of parts.entries()) {
    const before = parts.slice(0, i).map((part) => part.run);
    curve.push(...await learningCurve(keepDir, { heldOut, freshTest, run, stepsBefore: sum(before.map((r) => r.steps)), tokensBefore: sum(before.map(tokensSeen)) }));
  }
  const runs = parts.map((part) => part.run);
  const card = { ...await makeCard({ file, vocabulary, heldOut, freshTest, stream, summary, parts: runs, losses, seconds, curve }), ...(previous ? { previousModel: previous } : {}) };
  writeFileSync(join(outDir, 'poems.card.json'), `${JSON.stringify(card, null, 1)}\n`);
  // The heads' roles on the fresh test set and the writer's repetition, which the page reads from the card.
  await writeCardMeasures(outDir, freshTest);
  console.log(`model: ${file.length} bytes; held-out loss ${card.heldOutLoss} nats (Kneser-Ney 3-gram ${card.baselines.kn3}, with clause length ${card.baselines.kn3ClauseLength}); ` +
    `fresh test ${card.freshTest.loss.model.mean} (3-gram ${card.freshTest.loss.kn3.mean}, ratio ${card.freshTest.ratio.modelToKn3.value})`);
  for (const sample of card.samples) console.log(`  ${sample.opening}${sample.greedy}${sample.endedPoem ? ' (the poem ends)' : ''}`);
  for (const [role, best] of Object.entries(card.headRoles.best)) console.log(`  ${role}: layer ${best.layer} head ${best.head} ${best.score} (chance ${best.chance})`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
