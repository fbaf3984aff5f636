// The poetry model's short training run (`node web/poems/build/train.js --reproduce`): c/tool_train_poems.c built
// with gcc, run on the committed reproduction corpus, and its loss curve against the one recorded beside the
// script; and the tool's checkpoints: a run stopped (at a step, or by SIGTERM) and resumed ends with the bytes of
// an unbroken one. The shipped model itself is checked in poems.test.js.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import {
  buildTrainer, checkpoints, parseLosses, REPRODUCTION_FIXTURE, REPRODUCTION_RUN, reproduce, reproductionStream,
  runTrainer, safetensorsMetadata, STOPPED, writeStream,
} from '../web/poems/build/train.js';

const dir = mkdtempSync(join(tmpdir(), 'poems-reproduce-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));
const tool = buildTrainer(dir);
const streamPath = join(dir, 'reproduction.bin');
writeStream(reproductionStream(), streamPath);

test('the short training run repeats its recorded loss curve', () => {
  const fixture = JSON.parse(readFileSync(REPRODUCTION_FIXTURE, 'utf8'));
  assert.deepEqual(fixture.run, REPRODUCTION_RUN);
  const stream = reproductionStream();
  assert.equal(createHash('sha256').update(new Uint8Array(stream.buffer)).digest('hex'), fixture.streamSha256);
  const losses = reproduce(dir, tool);
  assert.equal(losses.length, fixture.losses.length);
  // Exact on the machine kind that recorded it; other CPUs sum in another order (web/poems/build/train.js).
  losses.forEach((loss, step) => assert.ok(Math.abs(loss - fixture.losses[step]) < 1e-5, `step ${step + 1}: ${loss} vs ${fixture.losses[step]}`));
  assert.ok(losses.at(-1) < losses[0] - 0.5, 'the loss falls');
});

/** A checkpoint's bytes without its "seconds" (the one entry that is time, not the run's state). */
function checkpointState(path) {
  const bytes = readFileSync(path);
  const metadata = safetensorsMetadata(path);
  assert.ok(Number.isFinite(Number(metadata.seconds)));
  return { metadata: { ...metadata, seconds: null }, data: bytes.subarray(8 + Number(bytes.readBigUInt64LE(0))) };
}

function folder(name) {
  const path = join(dir, name);
  mkdirSync(path);
  return path;
}

test('a run stopped at step 17 and resumed from its checkpoint ends with the bytes of an unbroken run', () => {
  const run = { ...REPRODUCTION_RUN, threads: 2 };
  const whole = folder('whole');
  const unbroken = runTrainer(tool, streamPath, join(whole, 'model.safetensors'), run, { checkpointDir: whole, checkpointEvery: 10, dtype: 'F16', metadata: { corpus: 'x' } });
  assert.equal(unbroken.stopped, false);
  assert.deepEqual(checkpoints(whole).map(({ step }) => step), [40], 'each checkpoint replaces the one before');

  const parts = folder('parts');
  const first = runTrainer(tool, streamPath, join(parts, 'model.safetensors'), run, { checkpointDir: parts, checkpointEvery: 10, stopAfter: 17, dtype: 'F16', metadata: { corpus: 'x' } });
  assert.equal(first.stopped, true);
  assert.equal(first.losses.length, 17);
  const [stop] = checkpoints(parts);
  assert.equal(stop.step, 17);
  assert.equal(safetensorsMetadata(stop.path).step, '17');
  const second = runTrainer(tool, streamPath, join(parts, 'model.safetensors'), run, { checkpointDir: parts, checkpointEvery: 10, resume: stop.path, dtype: 'F16', metadata: { corpus: 'x' } });
  assert.equal(second.stopped, false);

  assert.deepEqual([...first.losses, ...second.losses], unbroken.losses);
  assert.ok(readFileSync(join(parts, 'model.safetensors')).equals(readFileSync(join(whole, 'model.safetensors'))), 'the F16 files are the same bytes');
  assert.deepEqual(checkpoints(parts).map(({ step }) => step), [40], 'the checkpoint resumed from is replaced too');
  assert.deepEqual(checkpointState(join(parts, 'checkpoint-40.safetensors')), checkpointState(join(whole, 'checkpoint-40.safetensors')));
  // One thread or two: the same bytes (the threads never change them).
  const one = folder('one');
  runTrainer(tool, streamPath, join(one, 'model.safetensors'), { ...run, threads: 1 }, { dtype: 'F16', metadata: { corpus: 'x' } });
  assert.ok(readFileSync(join(one, 'model.safetensors')).equals(readFileSync(join(whole, 'model.safetensors'))));

  // A finished run's checkpoint resumes to writing the model alone.
  const again = runTrainer(tool, streamPath, join(parts, 'again.safetensors'), run, { checkpointDir: parts, resume: join(parts, 'checkpoint-40.safetensors'), dtype: 'F16', metadata: { corpus: 'x' } });
  assert.deepEqual(again.losses, []);
  assert.ok(readFileSync(join(parts, 'again.safetensors')).equals(readFileSync(join(whole, 'model.safetensors'))));
  // Another run's checkpoint (another schedule, another stream) is refused.
  const last = join(parts, 'checkpoint-40.safetensors');
  assert.throws(() => runTrainer(tool, streamPath, join(parts, 'x.safetensors'), { ...run, steps: 41 }, { resume: last }), /a checkpoint of another run/);
  assert.throws(() => runTrainer(tool, streamPath, join(parts, 'x.safetensors'), { ...run, seed: 2 }, { resume: last }), /a checkpoint of another run/);
  const shorter = join(dir, 'shorter.bin');
  writeStream(reproductionStream().slice(0, -1), shorter);
  assert.throws(() => runTrainer(tool, shorter, join(parts, 'x.safetensors'), run, { resume: last }), /a checkpoint of another run/);
  // Its mean began at step 30: another start, or none, is refused; so is a checkpoint past the start without a mean.
  for (const averageFrom of [20, 0]) {
    assert.throws(() => runTrainer(tool, streamPath, join(parts, 'x.safetensors'), { ...run, averageFrom }, { resume: last }), /its mean began at another --average-from/);
  }
  const plain = folder('plain');
  runTrainer(tool, streamPath, join(plain, 'model.safetensors'), { ...run, averageFrom: 0 }, { checkpointDir: plain, stopAfter: 35 });
  assert.throws(() => runTrainer(tool, streamPath, join(plain, 'x.safetensors'), run, { resume: join(plain, 'checkpoint-35.safetensors') }),
    /past --average-from and holds no mean/);
});

/** A .safetensors file's tensors, back to back, as float32 (the tool's F32 files). */
function floats(path) {
  const bytes = readFileSync(path);
  const data = bytes.subarray(8 + Number(bytes.readBigUInt64LE(0)));
  return new Float32Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.length));
}

test('--average-from 30: the model written is the mean of the parameters after steps 31 to 40', () => {
  const out = folder('mean');
  runTrainer(tool, streamPath, join(out, 'model.safetensors'), REPRODUCTION_RUN, { keepDir: out, keepEvery: 1 });
  const steps = Array.from({ length: 10 }, (_, i) => floats(join(out, `step-${31 + i}.safetensors`)));
  const written = floats(join(out, 'model.safetensors'));
  assert.equal(written.length, steps[0].length);
  let worst = 0;
  for (let i = 0; i < written.length; i++) {
    const mean = steps.reduce((sum, step) => sum + step[i], 0) / steps.length;
    worst = Math.max(worst, Math.abs(written[i] - mean) / Math.max(1, Math.abs(mean)));
  }
  assert.ok(worst < 1e-6, `the mean off by ${worst}`);
  assert.ok(steps.some((step) => step.some((value, i) => Math.abs(value - written[i]) > 1e-4)), 'not any one step\'s parameters');
});

test('SIGTERM: the tool finishes its step, writes a checkpoint and stops with status 3; resumed, it ends as an unbroken run', async () => {
  const run = { ...REPRODUCTION_RUN, steps: 600 };
  const whole = folder('term-whole');
  const unbroken = runTrainer(tool, streamPath, join(whole, 'model.safetensors'), run);
  const parts = folder('term-parts');
  const args = [streamPath, join(parts, 'model.safetensors'), '--layers', run.layers, '--d-model', run.dModel, '--heads', run.heads,
    '--context', run.context, '--batch', run.batch, '--steps', run.steps, '--seed', run.seed, '--lr', run.lr, '--warmup', run.warmup,
    '--dropout', run.dropout, '--average-from', run.averageFrom, '--checkpoint-dir', parts, '--checkpoint-every', 1000].map(String);
  const child = spawn(tool, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
    if (!child.killed) child.kill('SIGTERM'); // after the first 50 steps' lines: mid-run
  });
  child.stderr.on('data', (chunk) => { stderr += chunk; });
  const status = await new Promise((resolve) => child.on('close', (code) => resolve(code)));
  assert.equal(status, STOPPED, stderr);
  const [stop] = checkpoints(parts);
  assert.ok(stop && stop.step < run.steps, `stopped before the end: ${stop?.step}`);
  assert.match(stderr, new RegExp(`stopped after step ${stop.step}; go on with --resume`));
  const first = parseLosses(stdout);
  assert.equal(first.length, stop.step, 'every step up to the checkpoint was printed');
  const second = runTrainer(tool, streamPath, join(parts, 'model.safetensors'), run, { checkpointDir: parts, resume: stop.path });
  assert.deepEqual([...first, ...second.losses], unbroken.losses);
  assert.ok(readFileSync(join(parts, 'model.safetensors')).equals(readFileSync(join(whole, 'model.safetensors'))));
});

test('the tool refuses a dropout of 1 or more, below 0 or not a number, and an --average-from not below --steps, before it trains', () => {
  const out = join(folder('bad-dropout'), 'model.safetensors');
  for (const dropout of ['1', '-0.1', 'nan', '0.1x']) {
    assert.throws(() => runTrainer(tool, streamPath, out, { ...REPRODUCTION_RUN, dropout }), /--dropout: value out of range/, dropout);
  }
  assert.throws(() => runTrainer(tool, streamPath, out, { ...REPRODUCTION_RUN, averageFrom: 40 }), /--average-from: must be below --steps/);
  assert.throws(() => runTrainer(tool, streamPath, out, { ...REPRODUCTION_RUN, averageFrom: -1 }), /--average-from: value out of range/);
  assert.equal(existsSync(out), false, 'no model written');
});

/** A .safetensors file's tensors by name, as float32 (the tool's F32 files). */
function tensors(path) {
  const bytes = readFileSync(path);
  const length = Number(bytes.readBigUInt64LE(0));
  const header = JSON.parse(bytes.subarray(8, 8 + length).toString('utf8'));
  const data = bytes.subarray(8 + length);
  return Object.fromEntries(Object.entries(header).filter(([name]) => name !== '__metadata__').map(([name, { data_offsets: [begin, end] }]) =>
    [name, new Float32Array(data.buffer.slice(data.byteOffset + begin, data.byteOffset + end))]));
}

test('--init: a model of context 32 starts a run of context 48, its position rows repeated; another shape is refused', () => {
  const out = folder('init');
  const short = join(out, 'short.safetensors');
  runTrainer(tool, streamPath, short, REPRODUCTION_RUN);
  // One step at a vanishing step size: the parameters are the ones it started from.
  const longer = { ...REPRODUCTION_RUN, context: 48, steps: 1, lr: 1e-30, warmup: 1000, averageFrom: 0 };
  runTrainer(tool, streamPath, join(out, 'longer.safetensors'), longer, { init: short });
  const [from, to] = [short, join(out, 'longer.safetensors')].map(tensors);
  assert.deepEqual(Object.keys(to), Object.keys(from));
  const d = REPRODUCTION_RUN.dModel;
  assert.equal(to['wpe.weight'].length, 48 * d);
  for (const [name, values] of Object.entries(to)) {
    const expected = name === 'wpe.weight' ? Float32Array.from(values, (_, i) => from[name][(Math.floor(i / d) % 32) * d + (i % d)]) : from[name];
    assert.equal(values.length, expected.length, name);
    const worst = values.reduce((most, value, i) => Math.max(most, Math.abs(value - expected[i]) / Math.max(1, Math.abs(expected[i]))), 0);
    assert.ok(worst < 1e-6, `${name}: off by ${worst}`);
  }
  // The file is part of the run: a checkpoint of a run from it resumes only from it.
  const parts = folder('init-parts');
  runTrainer(tool, streamPath, join(parts, 'model.safetensors'), { ...longer, steps: 2 }, { init: short, checkpointDir: parts, stopAfter: 1 });
  assert.throws(() => runTrainer(tool, streamPath, join(parts, 'model.safetensors'), { ...longer, steps: 2 }, { resume: join(parts, 'checkpoint-1.safetensors') }),
    /a checkpoint of another run/);
  const refused = join(out, 'refused.safetensors');
  assert.throws(() => runTrainer(tool, streamPath, refused, { ...longer, context: 16 }, { init: short }), /not a model of the run's shape/);
  assert.throws(() => runTrainer(tool, streamPath, refused, { ...longer, heads: 4 }, { init: short }), /not a model of the run's shape/);
  assert.throws(() => runTrainer(tool, streamPath, refused, longer, { init: join(out, 'missing.safetensors') }), /cannot read the file/);
  assert.equal(existsSync(refused), false, 'no model written');
});
