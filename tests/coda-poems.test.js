// The coda's poetry model made grouped-query by averaging K and V in groups (web/gqa/poem-groups.js): the file
// rewritten is the grouped model (its layer-1 K and V are the means of the original's, computed here from the
// original model's own q/k/v), the held-out loss for each h_kv is the card's measure of that model, and h_kv = 8
// is the card's model itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadAttention } from '../web/src/attention.js';
import { tokenKinds } from '../web/poems/head-roles.js';
import { heldOutLoss } from '../web/poems/evaluate.js';
import { groupSizes, groupedModelBytes, groupedMeasure, poolKV } from '../web/gqa/poem-groups.js';
import { poemGroupFacts } from '../web/gqa/facts.js';
import { poemGroupsView } from '../web/gqa/views.js';
import { GQA_TEXT } from '../web/gqa/strings.js';
import { parseHTML } from 'linkedom';
import { show } from '../web/ui/dom.js';

const mha = await loadAttention({ threads: 1 });
const shipped = await mha.loadPoemModel();
const poems = { ...shipped, kinds: tokenKinds(JSON.parse(shipped.model.metadata.vocabulary)) };
const bytes = new Uint8Array(readFileSync(new URL('../web/poems/poems.safetensors', import.meta.url)));
const { heads, dModel } = poems.model.config;
const dK = dModel / heads;
const heldOutPoems = poems.card.heldOut.poems.map(({ body }) => Array.from(poems.encode(body)));

test('the h_kv measured: every divisor of the model\'s 8 heads', () => {
  assert.equal(heads, 8);
  assert.deepEqual(groupSizes(8), [8, 4, 2, 1]);
  assert.deepEqual(groupSizes(12), [12, 6, 4, 3, 2, 1]);
});

test('poolKV: Q kept, each K and V column the mean of its group\'s heads, as a small hand example says', () => {
  // d_model 4, 2 heads of d_k 2, one row: Q 1 2 3 4 | K 10 20 30 40 | V 5 6 7 8; one K/V head.
  const pooled = poolKV(Float32Array.from([1, 2, 3, 4, 10, 20, 30, 40, 5, 6, 7, 8]), { width: 12, heads: 2, kvHeads: 1 });
  assert.deepEqual(Array.from(pooled), [1, 2, 3, 4, 20, 30, 20, 30, 6, 7, 6, 7]);
});

test('the rewritten file is the grouped model: its first layer\'s K and V are the group means of the original\'s', async () => {
  const ids = Int32Array.from(heldOutPoems[0].slice(0, 24));
  poems.model.forward(ids);
  const original = poems.model.qkv(0).slice(); // L × 3·d_model
  for (const kvHeads of [4, 1]) {
    const model = await mha.loadModel(groupedModelBytes(bytes, { heads, kvHeads }));
    try {
      model.forward(ids);
      const grouped = model.qkv(0);
      const size = heads / kvHeads;
      let worst = 0;
      for (let r = 0; r < ids.length; r++) {
        for (let c = 0; c < 3 * dModel; c++) {
          const part = Math.floor(c / dModel);
          let want = original[r * 3 * dModel + c];
          if (part > 0) {
            // Linear in the weights: the mean of the heads' K (or V) is the K of the mean weights.
            const head = Math.floor((c % dModel) / dK);
            const first = Math.floor(head / size) * size;
            want = 0;
            for (let m = 0; m < size; m++) want += original[r * 3 * dModel + part * dModel + (first + m) * dK + (c % dK)] / size;
          }
          worst = Math.max(worst, Math.abs(grouped[r * 3 * dModel + c] - want));
        }
      }
      assert.ok(worst < 1e-4, `kvHeads ${kvHeads}: worst difference ${worst}`);
    } finally {
      model.dispose();
    }
  }
});

test('the held-out loss of each h_kv, measured in slices, is the card\'s measure of that model', async (t) => {
  const results = [];
  for (const kvHeads of groupSizes(heads)) {
    const measure = await groupedMeasure(mha, poems, bytes, kvHeads);
    let slices = 0;
    while (!measure.advance(25)) slices++;
    const result = measure.result();
    results.push(result);
    const model = kvHeads === heads ? poems.model : await mha.loadModel(groupedModelBytes(bytes, { heads, kvHeads }));
    const reference = heldOutLoss(model, heldOutPoems);
    if (model !== poems.model) model.dispose();
    assert.ok(Math.abs(result.loss - reference.loss) < 1e-9 && result.targets === reference.targets, `kvHeads ${kvHeads}`);
    assert.equal(result.roles.length, poems.model.config.layers * heads);
    t.diagnostic(`h_kv ${kvHeads}: held-out loss ${result.loss.toFixed(3)} over ${result.targets} targets, ${slices + 1} slices; roles ${result.roles.map((r) => r ?? '-').join(' ')}`);
  }
  // h_kv = 8 is the shipped model: the card's own number.
  assert.ok(Math.abs(results[0].loss - poems.card.heldOutLoss) < 5e-4, `${results[0].loss}`);
  // Averaging throws information away: each coarser grouping costs more than the model's own.
  for (const r of results.slice(1)) assert.ok(r.loss > results[0].loss, `h_kv ${r.kvHeads}: ${r.loss}`);
  // The coda's table and sentence write these numbers, and count the heads keeping their named view.
  const facts = poemGroupFacts(results, heads);
  assert.equal(facts.named, results[0].roles.filter(Boolean).length);
  assert.deepEqual(facts.rows.map((r) => r.kept), results.map((r) => r.roles.filter((role, i) => role && role === results[0].roles[i]).length));
  const { document } = parseHTML('<!doctype html><html><body></body></html>');
  for (const lang of ['zh', 'en']) {
    const box = show(document.createElement('div'), poemGroupsView(GQA_TEXT[lang], facts));
    const cells = [...box.querySelectorAll('tbody tr')].map((row) => row.querySelector('td:nth-of-type(2)').textContent);
    assert.deepEqual(cells, results.map((r) => r.loss.toFixed(3)));
    const says = box.querySelector('#gqa-poems-says').textContent;
    for (const r of [results[0], results[1], results.at(-1)]) assert.ok(says.includes(r.loss.toFixed(3)), `${lang}: ${says}`);
    t.diagnostic(says);
  }
});
