// The poetry model's short training run (`node web/poems/build/train.js --reproduce`): c/tool_train_poems.c built
// with gcc, run on the committed reproduction corpus, and its loss curve against the one recorded beside the
// script. The shipped model itself is checked in poems.test.js.
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { REPRODUCTION_FIXTURE, REPRODUCTION_RUN, reproduce, reproductionStream } from '../web/poems/build/train.js';

test('the short training run repeats its recorded loss curve', () => {
  const fixture = JSON.parse(readFileSync(REPRODUCTION_FIXTURE, 'utf8'));
  assert.deepEqual(fixture.run, REPRODUCTION_RUN);
  const stream = reproductionStream();
  assert.equal(createHash('sha256').update(new Uint8Array(stream.buffer)).digest('hex'), fixture.streamSha256);
  const dir = mkdtempSync(join(tmpdir(), 'poems-reproduce-'));
  try {
    const losses = reproduce(dir);
    assert.equal(losses.length, fixture.losses.length);
    // Exact on the machine kind that recorded it; other CPUs sum in another order (web/poems/build/train.js).
    losses.forEach((loss, step) => assert.ok(Math.abs(loss - fixture.losses[step]) < 1e-5, `step ${step + 1}: ${loss} vs ${fixture.losses[step]}`));
    assert.ok(losses.at(-1) < losses[0] - 0.5, 'the loss falls');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
