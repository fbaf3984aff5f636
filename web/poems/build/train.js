// Trains the lesson's poetry model and writes what ships: web/poems/poems.safetensors (F16, the vocabulary
// in its __metadata__) and its model card web/poems/poems.card.json.
//
//   npm run train-model               the corpus (npm run corpus), then the training run below (≈ 30 min on
//                                     2 cores), the F16 file and the card
//   node web/poems/build/train.js --reproduce
//                                     the short run the tests repeat: a tiny model on the committed
//                                     reproduction-corpus.txt; rewrites train-reproduction.json, its loss curve
//
// The training itself is c/tool_train_poems.c, built here with gcc. Same machine kind, same bytes: the run
// is single-threaded and seeded, and -std=c11 keeps gcc from fusing multiply-adds. -march=native lets the
// kernels use the CPU's widest vectors, which changes the order of sums, so another CPU family gives a
// slightly different model (and card), not the same bytes.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadAttention } from '../../src/attention.js';
import { BUILD_DIR } from './corpus.js';
import { evaluationWindows } from '../baselines.js';
import { heldOutLoss } from '../evaluate.js';
import { HEAD_ROLES, measureHeadRoles, tokenKinds } from '../head-roles.js';
import { toF16Safetensors } from './safetensors.js';
import { buildVocabulary, encodePoems, UNKNOWN_ID } from '../vocabulary.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..', '..', '..');
export const MODEL_PATH = join(HERE, '..', 'poems.safetensors');
export const CARD_PATH = join(HERE, '..', 'poems.card.json');
export const REPRODUCTION_CORPUS = join(HERE, 'reproduction-corpus.txt');
export const REPRODUCTION_FIXTURE = join(HERE, 'train-reproduction.json');

/**
 * The shipped model's run, steps sized to about 30 minutes of this (shared) 2-core machine. 8 heads of 16
 * dimensions, not 4 of 32: with 4, after 2,500 steps no head looked at the previous character with more
 * than 0.40 of its weight (its held-out loss was 5.12); with 8, one does with 0.8 by step 1,200.
 */
export const MODEL_RUN = { layers: 3, dModel: 128, heads: 8, context: 64, batch: 16, steps: 3200, seed: 1, lr: 0.003, warmup: 100 };
/** The short run the tests repeat: seconds, not minutes, on any machine. */
export const REPRODUCTION_RUN = { layers: 2, dModel: 32, heads: 2, context: 32, batch: 4, steps: 40, seed: 1, lr: 0.003, warmup: 10 };

export const COMPILER_FLAGS = ['-std=c11', '-Wall', '-Wextra', '-Werror', '-pedantic', '-O3', '-march=native'];

/** The C library as build.sh defines it (every c/*.c but tests, benchmarks, fuzzers, tools, the wasm exports) and the tool. */
export function trainerSources() {
  const library = readdirSync(join(ROOT, 'c'))
    .filter((name) => name.endsWith('.c') && !/^(test_|bench_|fuzz_|tool_)/.test(name) && name !== 'wasm_exports.c')
    .sort();
  return [...library, 'tool_train_poems.c'].map((name) => join(ROOT, 'c', name));
}

/** Builds c/tool_train_poems.c into dir; returns the executable's path. */
export function buildTrainer(dir) {
  mkdirSync(dir, { recursive: true });
  const tool = join(dir, 'tool_train_poems');
  execFileSync('gcc', [...COMPILER_FLAGS, ...trainerSources(), '-lm', '-o', tool], { stdio: 'inherit' });
  return tool;
}

/** Runs the tool on a Uint16 stream file; { losses (one per step), seconds }. The F32 model goes to outPath. */
export function runTrainer(tool, streamPath, outPath, run, { nice = false, progress = false } = {}) {
  const args = [streamPath, outPath, '--layers', run.layers, '--d-model', run.dModel, '--heads', run.heads,
    '--context', run.context, '--batch', run.batch, '--steps', run.steps, '--seed', run.seed, '--lr', run.lr,
    '--warmup', run.warmup].map(String);
  const [command, commandArgs] = nice ? ['nice', ['-n', '10', tool, ...args]] : [tool, args];
  const begun = performance.now();
  const result = spawnSync(command, commandArgs, { encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', progress ? 'inherit' : 'pipe'] });
  const seconds = (performance.now() - begun) / 1000;
  if (result.status !== 0) throw new Error(`tool_train_poems failed: ${result.stderr ?? ''}${result.error ?? ''}`);
  const losses = result.stdout.trim().split('\n').map((line) => Number(line.split(' ')[1]));
  return { losses, seconds };
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

/** The short run, built and run in dir: its loss curve. */
export function reproduce(dir) {
  const tool = buildTrainer(dir);
  const streamPath = join(dir, 'reproduction.bin');
  writeStream(reproductionStream(), streamPath);
  return runTrainer(tool, streamPath, join(dir, 'reproduction.safetensors'), REPRODUCTION_RUN).losses;
}

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');
const round = (x, digits = 4) => Math.round(x * 10 ** digits) / 10 ** digits;

/**
 * The card: what the model is, what it was trained on and how, and what it measures on the held-out poems
 * (its loss beside the unigram's and the bigram's, and every head's role scores), measured in wasm on the
 * shipped F16 file, as a page loading it computes.
 */
export async function makeCard({ file, vocabulary, heldOut, summary, run, losses, seconds }) {
  const mha = await loadAttention();
  const model = await mha.loadModel(file);
  try {
    const poems = heldOut.map((poem) => poem.ids);
    const { loss, targets } = heldOutLoss(model, poems);
    const windows = poems.flatMap((ids) => evaluationWindows(ids, model.config.context).map(({ input }) => input));
    const roles = measureHeadRoles(model, windows, tokenKinds(vocabulary));
    const best = Object.fromEntries(HEAD_ROLES.map(({ name }) => {
      const top = roles.heads.reduce((a, b) => (b.scores[name] > a.scores[name] ? b : a));
      return [name, { layer: top.layer, head: top.head, score: round(top.scores[name]), chance: round(roles.chance[name]) }];
    }));
    const lastSteps = losses.slice(-100);
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
      },
      // The poems the numbers below are measured on, so a test or a page can measure them again.
      heldOut: { targets, poems: heldOut.map(({ entry, title, author, body }) => ({ entry, title, author, body })) },
      training: {
        tool: 'c/tool_train_poems.c (c/gpt.h: analytic backward, AdamW)', compiler: `gcc ${COMPILER_FLAGS.join(' ')}`,
        seed: run.seed, steps: run.steps, batch: run.batch, sequenceTokens: run.context + 1,
        tokensSeen: run.steps * run.batch * run.context,
        schedule: `AdamW (β 0.9, 0.95; weight decay 0.1; gradient norm clipped at 1), step size rising linearly to ${run.lr} over ${run.warmup} steps, then a cosine down to ${Number((run.lr / 10).toPrecision(6))}`,
        batches: 'windows of context + 1 tokens: half start at a poem’s opening token, half anywhere',
        finalTrainingLoss: round(lastSteps.reduce((a, b) => a + b, 0) / lastSteps.length),
        seconds: Math.round(seconds), cpu: cpus()[0]?.model ?? 'unknown',
      },
      evaluation: 'mean next-character loss in nats over the held-out poems of 唐诗三百首, each poem its own sequence (BOUNDARY, then its characters), in consecutive windows of at most the context (web/poems/baselines.js evaluationWindows)',
      heldOutLoss: round(loss),
      baselines: { unigram: summary.baselines.unigram.lossNats, bigram: summary.baselines.bigram.lossNats },
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

const mapValues = (object, f) => Object.fromEntries(Object.entries(object).map(([key, value]) => [key, value == null ? value : f(value)]));

/** GPT-2's parameter count: embeddings, twelve tensors a block, the final LayerNorm (the read-out is tied). */
export function parameterCount({ layers, dModel: d, context, vocabSize }) {
  return vocabSize * d + context * d + layers * (12 * d * d + 13 * d) + 2 * d;
}

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
  execFileSync('npm', ['run', 'corpus'], { cwd: ROOT, stdio: 'inherit' });
  const tool = buildTrainer(BUILD_DIR);
  const f32Path = join(BUILD_DIR, 'poems-f32.safetensors');
  console.log(`training ${JSON.stringify(MODEL_RUN)} (progress every 50 steps)`);
  const { losses, seconds } = runTrainer(tool, join(BUILD_DIR, 'train.bin'), f32Path, MODEL_RUN, { nice: true, progress: true });
  await shipModel({ f32Path, losses, seconds });
}

/** The F16 file and its card, from the F32 file the run wrote; also writes the run's loss curve into the build folder. */
export async function shipModel({ f32Path, losses, seconds, corpusDir = BUILD_DIR, run = MODEL_RUN }) {
  const vocabulary = JSON.parse(readFileSync(join(corpusDir, 'vocabulary.json'), 'utf8'));
  const heldOut = JSON.parse(readFileSync(join(corpusDir, 'heldout.json'), 'utf8'));
  const summary = JSON.parse(readFileSync(join(corpusDir, 'summary.json'), 'utf8'));
  const file = toF16Safetensors(readFileSync(f32Path), {
    vocabulary: JSON.stringify(vocabulary),
    unknown_id: String(UNKNOWN_ID),
    corpus: `全唐诗 (npm chinese-poetry ${summary.sources.training.version}), stream sha256 ${summary.training.streamSha256}`,
    card: 'poems.card.json',
  });
  writeFileSync(MODEL_PATH, file);
  writeFileSync(join(BUILD_DIR, 'poems-losses.json'), `${JSON.stringify(losses)}\n`);
  const card = await makeCard({ file, vocabulary, heldOut, summary, run, losses, seconds });
  writeFileSync(CARD_PATH, `${JSON.stringify(card, null, 1)}\n`);
  console.log(`model: ${file.length} bytes; held-out loss ${card.heldOutLoss} nats (unigram ${card.baselines.unigram}, bigram ${card.baselines.bigram})`);
  for (const [role, best] of Object.entries(card.headRoles.best)) console.log(`  ${role}: layer ${best.layer} head ${best.head} ${best.score} (chance ${best.chance})`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
