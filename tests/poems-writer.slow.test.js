// The card's measures of the shipped poetry model that take long to compute again (30 s and more): the writer's
// repetition over its 200 samples beside real verse, every head's roles on the fresh test set with the names
// the page gives them, and the fresh test set's loss. Written by web/poems/build/card-measures.js; poems.test.js checks the rest of the card.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadAttention } from '../web/src/attention.js';
import { tokenKinds } from '../web/poems/head-roles.js';
import { HEAD_ROLES, labelRole, LABEL_TIMES_CHANCE } from '../web/heads/roles.js';
import { WRITER } from '../web/poems/runs.js';
import { heldOutLoss } from '../web/poems/evaluate.js';
import { headRolesOn, repetitionOn } from '../web/poems/card-measures.js';

const mha = await loadAttention();
const poems = await mha.loadPoemModel();
const { model, card } = poems;
const vocabulary = JSON.parse(model.metadata.vocabulary);
const writer = { ...poems, vocabulary, kinds: tokenKinds(vocabulary) };
const freshBodies = JSON.parse(readFileSync(new URL('../web/poems/fresh-test.json', import.meta.url), 'utf8')).map((poem) => poem.body);

test('the fresh test set\'s loss measured again in wasm: the card\'s, and at most 4.25 nats (#36\'s target)', () => {
  const fresh = heldOutLoss(model, freshBodies.map((body) => Array.from(poems.encode(body))));
  assert.equal(fresh.targets, card.freshTest.targets);
  assert.ok(Math.abs(fresh.loss - card.freshTest.loss.model.mean) < 1e-4, `measured ${fresh.loss}, card ${card.freshTest.loss.model.mean}`);
  assert.ok(fresh.loss <= 4.25, `${fresh.loss}`);
});

test('the writer repeats itself about as much as real verse with its rule on, and the card says how much', () => {
  assert.ok(card.repetition, 'the card has no repetition: run node web/poems/build/card-measures.js');
  const measured = repetitionOn(writer, mha, freshBodies);
  assert.deepEqual(measured, card.repetition, 'the card\'s repetition, measured again');
  const { realVerse, ruleOn, ruleOff } = measured;
  assert.ok(realVerse.poems >= 100, `${realVerse.poems} regular poems in the fresh test set`);
  assert.equal(ruleOn.poems + ruleOn.irregular, WRITER.samples);
  assert.equal(ruleOn.irregular, 0, 'the form rules leave no sample irregular');
  // Within 2× of real verse: repeated characters both ways, a rhyme repeated at most twice as often.
  assert.ok(ruleOn.repeatedCharacters <= 2 * realVerse.repeatedCharacters && ruleOn.repeatedCharacters >= realVerse.repeatedCharacters / 2,
    `repeated characters ${ruleOn.repeatedCharacters} against real verse's ${realVerse.repeatedCharacters}`);
  assert.ok(ruleOn.rhymeRepeated <= 2 * realVerse.rhymeRepeated, `rhyme repeated ${ruleOn.rhymeRepeated} against ${realVerse.rhymeRepeated}`);
  // What the rule is for: without it the writer repeats more.
  assert.ok(ruleOff.repeatedCharacters > ruleOn.repeatedCharacters, `${ruleOff.repeatedCharacters} without the rule`);
});

test('heads named on the fresh test set: the card\'s scores measured again, every name at 3× chance or more, at least 9 heads named', () => {
  const committed = card.headRoles.fresh;
  assert.ok(committed, 'the card has no headRoles.fresh: run node web/poems/build/card-measures.js');
  const fresh = headRolesOn(writer, freshBodies);
  assert.equal(committed.poems, freshBodies.length);
  for (const { name } of HEAD_ROLES) assert.ok(Math.abs(fresh.chance[name] - committed.chance[name]) < 1e-4, name);
  fresh.heads.forEach((scores, i) => {
    for (const { name } of HEAD_ROLES) assert.ok(Math.abs(scores[name] - committed.heads[i][name]) < 1e-4, `head ${i} ${name}: ${scores[name]} vs ${committed.heads[i][name]}`);
  });
  const labels = fresh.heads.map((scores) => labelRole(scores, fresh.chance));
  assert.deepEqual(labels, committed.heads.map((scores) => labelRole(scores, committed.chance)), 'the page\'s names are these');
  labels.forEach((role, i) => {
    if (!role) return;
    const scores = fresh.heads[i];
    assert.ok(scores[role] >= LABEL_TIMES_CHANCE * fresh.chance[role], `head ${i} ${role}`);
    // No other role at 3× chance takes more of the head's weight.
    for (const { name } of HEAD_ROLES) if (scores[name] >= LABEL_TIMES_CHANCE * fresh.chance[name]) assert.ok(scores[name] <= scores[role], `head ${i}: ${name} over ${role}`);
  });
  const named = labels.filter(Boolean).length;
  assert.ok(named >= 9, `${named} heads named: ${labels}`);
  // Whatever else a model learns, a poetry model that reads couplets names 对仗 heads, and one looking one back.
  assert.ok(labels.includes('previous'), `a previous-character head: ${labels}`);
  assert.ok(labels.filter((role) => role?.startsWith('parallel')).length >= 3, `对仗 heads: ${labels}`);
});
