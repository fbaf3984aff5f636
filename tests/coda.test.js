// §13, the coda (heads that share K and V): its sentence about 猫吃鱼 with one shared K/V head, read back
// and checked against the core's numbers over many seeded random states in both languages (as voice.test.js
// checks §3's 停一秒), the K/V conversion, the bill against a hand calculation, and the groups.
import test from 'node:test';
import assert from 'node:assert/strict';
import { loadAttention } from '../web/src/attention.js';
import { createSession } from '../web/shared/session.js';
import { defaultHand } from '../web/hand/limits.js';
import { exampleFacts, meanPooled, billFacts, groupFacts, questionFacts } from '../web/gqa/facts.js';
import { shownPercent } from '../web/draw/index.js';
import { GQA_TEXT, bytesText } from '../web/gqa/strings.js';
import { seededRandom } from './seeded.js';

const mha = await loadAttention();
const session = createSession(mha);
const range = (n) => Array.from({ length: n }, (_, i) => i);

test('the shared K and V are the mean of each group\'s heads, column by column (Ainslie et al. 2023)', () => {
  const hand = defaultHand();
  // 猫's k [1,0,1,0] → [1,0]; 鱼's k [1,1,0,0] → [0.5,0.5]; 鱼's v [2,0,0,2] → [1,1].
  assert.deepEqual(meanPooled(hand.k, { heads: 2, kvHeads: 1, dK: 2 }), [[1, 0], [0, 1], [0.5, 0.5]]);
  assert.deepEqual(meanPooled(hand.v, { heads: 2, kvHeads: 1, dK: 2 }), [[1, 0], [0, 1], [1, 1]]);
  // Four heads of d_k 1 into two groups: heads 0 and 1, heads 2 and 3.
  assert.deepEqual(meanPooled([[1, 3, 5, 9]], { heads: 4, kvHeads: 2, dK: 1 }), [[2, 7]]);
  assert.deepEqual(meanPooled([[1, 3, 5, 9]], { heads: 4, kvHeads: 4, dK: 1 }), [[1, 3, 5, 9]]);
});

test('the lesson\'s numbers: head 1 stops fixing on 鱼, both heads read one K and V and look alike', () => {
  const f = exampleFacts(session, defaultHand());
  assert.deepEqual(f.gqa.groups, [0, 0]);
  assert.equal(f.sameNow, true);
  assert.equal(f.sameBefore, false);
  assert.deepEqual(Array.from(f.gqa.attention[0], shownPercent).slice(0, 3), [33, 33, 33]);
  assert.deepEqual(
    GQA_TEXT.zh.change(f),
    [
      '头 1 变得最多的一格，是“猫”这一行看“鱼”：50% → 33%（−17 个百分点；“吃”看“鱼”45% → 28%，变得一样多）。头 2 变得最多的一格，是“鱼”这一行看“鱼”：20% → 33%（+13 个百分点）。',
      '共用之后，两个头的配比表一模一样：两套眼镜，一种眼光。省下的 K、V 是拿眼光的分化换来的——真实模型转换之后，还要再训练一小会儿（Ainslie 等用了原训练量的 5%），让各头重新分工。',
    ],
  );
  assert.match(GQA_TEXT.en.change(f)[0], /^Head 1 moved most where “猫” looks at “鱼”: 50% → 33% \(−17 points; “吃” looking at “鱼”, 45% → 28%, moved as much\)\. Head 2 moved most where “鱼” looks at “鱼”: 20% → 33% \(\+13 points\)\.$/);
});

// ——— The sentence against the numbers, over many random states ———

const WORDS = ['猫', '吃', '鱼', '狗', 'a', '猫', 'and', '7'];

/** A hand state as a learner could leave §3: words, numbers (whole ones make ties), mask, scaling, h; ties forced. */
function randomHand(random) {
  const pick = (items) => items[Math.floor(random() * items.length)];
  const hand = defaultHand();
  if (random() < 0.08) return hand;
  const L = 1 + Math.floor(random() * 6);
  hand.tokens = range(L).map((i) => (random() < 0.2 ? pick(WORDS) : `w${i}`));
  const value = () => (random() < 0.6 ? Math.round(random() * 6 - 3) : Math.round(random() * 60 - 30) / 10);
  for (const m of ['q', 'k', 'v']) hand[m] = range(L).map(() => range(4).map(value));
  hand.heads = pick([1, 2, 2, 4]);
  hand.causal = random() < 0.3;
  hand.scale = random() >= 0.2;
  // Identical heads: head 2's q slice a copy of head 1's (then sharing K and V makes them one view).
  if (random() < 0.25) for (const row of hand.q) row.splice(2, 2, row[0], row[1]);
  // Identical K/V halves: sharing changes nothing.
  if (random() < 0.15) for (const m of ['k', 'v']) for (const row of hand[m]) row.splice(2, 2, row[0], row[1]);
  if (random() < 0.1) hand.q = hand.q.map((row) => row.map(() => 0));
  return hand;
}

/** Each head's weights as the heatmaps show them (whole percent), from a layer of the core made here. */
function shownWeights(hand, kvHeads) {
  const L = hand.tokens.length;
  const k = kvHeads === 2 ? hand.k : hand.k.map((r) => [(r[0] + r[2]) / 2, (r[1] + r[3]) / 2]);
  const v = kvHeads === 2 ? hand.v : hand.v.map((r) => [(r[0] + r[2]) / 2, (r[1] + r[3]) / 2]);
  const layer = mha.createLayer({ dModel: 4, heads: 2, kvHeads, maxLen: 8 });
  layer.forward({ q: hand.q, k, v, causal: hand.causal, scale: hand.scale });
  const weights = [0, 1].map((head) => Array.from(layer.attention(head), shownPercent));
  layer.dispose();
  return { L, weights };
}

const HEAD_ZH = /头 (\d) (?:的配比一个数都没变。|变得最多的一格，是“(.*?)”这一行看“(.*?)”：(\d+)% → (\d+)%（([+−])(\d+) 个百分点(.*?)）。)/g;
const HEAD_EN = /Head (\d)(?:'s weights did not move at all\.| moved most where “(.*?)” looks at “(.*?)”: (\d+)% → (\d+)% \(([+−])(\d+) points(.*?)\)\.)/g;

/** Checks one language's sentences against the numbers. */
function checkSaid(said, hand, lang) {
  const where = `${lang}: ${JSON.stringify(hand)} → ${said.join(' ')}`;
  const before = shownWeights(hand, 2);
  const after = shownWeights(hand, 1);
  const { L } = before;
  const visible = (r, c) => !hand.causal || c <= r;
  const cells = (head) => range(L * L).filter((i) => visible(Math.floor(i / L), i % L)).map((i) => ({ row: hand.tokens[Math.floor(i / L)], col: hand.tokens[i % L], from: before.weights[head][i], to: after.weights[head][i] }));
  const text = said.join(' ');
  // h as §3 has it, when it is not the lesson's 2.
  assert.equal(hand.heads !== 2, lang === 'zh' ? text.includes(`第三节此刻是 h = ${hand.heads}`) : text.includes(`Section 3 has h = ${hand.heads} now`), where);
  const moves = range(2).map((head) => Math.max(...cells(head).map((c) => Math.abs(c.to - c.from))));
  if (moves.every((m) => m === 0)) {
    assert.match(text, lang === 'zh' ? /两个头的配比表一个数都没变/ : /neither head's weights moved at all/, where);
  } else {
    const matches = [...text.matchAll(lang === 'zh' ? HEAD_ZH : HEAD_EN)];
    assert.deepEqual(matches.map((m) => Number(m[1])), [1, 2], where);
    for (const [head, m] of matches.entries()) {
      if (m[2] === undefined) {
        assert.equal(moves[head], 0, `${where}: head ${head + 1} said unmoved`);
        continue;
      }
      const [row, col, from, to, sign, points, rest] = [m[2], m[3], Number(m[4]), Number(m[5]), m[6], Number(m[7]), m[8]];
      assert.equal(points, moves[head], `${where}: head ${head + 1}'s largest move`);
      assert.equal(Math.abs(to - from), points, where);
      assert.equal(sign === '+', to > from, where);
      const top = cells(head).filter((c) => Math.abs(c.to - c.from) === moves[head]);
      assert.ok(top.some((c) => c.row === row && c.col === col && c.from === from && c.to === to), `${where}: head ${head + 1}'s cell`);
      // The ties: named when one or two (each a real cell that moved as much), counted beyond.
      const counted = rest.match(lang === 'zh' ? /另有 (\d+) 格/ : /; (\d+) other cells/);
      const named = [...rest.matchAll(lang === 'zh' ? /“(.*?)”看“(.*?)”(\d+)% → (\d+)%/g : /“(.*?)” looking at “(.*?)”, (\d+)% → (\d+)%/g)];
      if (counted) assert.equal(Number(counted[1]) + 1, top.length, where);
      else {
        assert.equal(named.length + 1, top.length, where);
        for (const n of named) assert.ok(top.some((c) => c.row === n[1] && c.col === n[2] && c.from === Number(n[3]) && c.to === Number(n[4])), `${where}: a tie named`);
      }
    }
  }
  // One view or two, now and in §3.
  const same = (w) => w.weights[0].every((x, i) => x === w.weights[1][i]);
  const oneNow = lang === 'zh' ? /一模一样|共用 K、V 之后也还一样/ : /identical|they still do with K and V shared/;
  assert.equal(oneNow.test(text), same(after), `${where}: one view now`);
  assert.equal(lang === 'zh' ? text.includes('在第三节里就看法一样') : text.includes('already looked alike in section 3'), same(after) && same(before), where);
}

test('the sentence over 1,000 random states: every move, tie and view it states is the core\'s, in both languages', () => {
  const random = seededRandom(20261205);
  const seen = { unmoved: 0, ties: 0, identicalNow: 0, identicalBefore: 0, twoViews: 0, masked: 0, h4: 0, oneHeadStill: 0 };
  for (let n = 0; n < 1000; n++) {
    const hand = randomHand(random);
    const f = exampleFacts(session, hand);
    for (const lang of ['zh', 'en']) checkSaid(GQA_TEXT[lang].change(f), hand, lang);
    seen.unmoved += f.moved.every((m) => m === null);
    seen.ties += f.moved.some((m) => m?.ties.length);
    seen.identicalNow += f.sameNow && !f.sameBefore;
    seen.identicalBefore += f.sameBefore;
    seen.twoViews += !f.sameNow;
    seen.masked += hand.causal;
    seen.h4 += hand.heads === 4;
    seen.oneHeadStill += f.moved.some((m) => m === null) && !f.moved.every((m) => m === null);
  }
  for (const [kind, count] of Object.entries(seen)) assert.ok(count >= 10, `${kind}: ${count} of 1,000`);
});

// ——— The bill against a hand calculation ———

test('the bill: parameters and KV cache for MHA, GQA and MQA, as worked by hand here', () => {
  const N = 4096;
  const models = Object.fromEntries(billFacts(mha, N).map((model) => [model.key, Object.fromEntries(model.rows.map((row) => [row.kind, row]))]));
  // By hand: W_Q and Wᴼ are d² each; W_K and W_V are d·h_kv·d_k each (d_k = d / h); a word's cache is K and
  // V, 2·h_kv·d_k values, in every layer, at the given bytes a value.
  const hand = (d, h, kv, layers, bytes) => {
    const dK = d / h;
    const perToken = 2 * kv * dK * bytes * layers;
    return { wq: d * d, wk: d * kv * dK, wv: d * kv * dK, wo: d * d, total: 2 * d * d + 2 * d * kv * dK, perToken, forContext: perToken * N };
  };
  const pick = ({ wq, wk, wv, wo, total, perToken, forContext }) => ({ wq, wk, wv, wo, total, perToken, forContext });
  // The modern model: d_k = 128; MHA's cache 2·32·128·2 bytes · 32 layers = 524,288 bytes (512 KiB) a word, 2 GiB for 4,096.
  assert.deepEqual(pick(models.modern.mha), hand(4096, 32, 32, 32, 2));
  assert.equal(models.modern.mha.perToken, 524288);
  assert.equal(models.modern.mha.forContext, 2 * 1024 ** 3);
  assert.deepEqual(pick(models.modern.gqa), hand(4096, 32, 8, 32, 2));
  assert.equal(models.modern.gqa.wk, 4096 * 1024);
  assert.deepEqual(pick(models.modern.mqa), hand(4096, 32, 1, 32, 2));
  // GPT-2 small: 2·12·64·4 bytes · 12 layers = 73,728 bytes (72 KiB) a word; its split bill the lesson's 2,359,296.
  assert.deepEqual(pick(models.gpt2.mha), hand(768, 12, 12, 12, 4));
  assert.equal(models.gpt2.mha.total, 2359296);
  assert.equal(models.gpt2.mha.perToken, 73728);
  assert.deepEqual(pick(models.gpt2.gqa), hand(768, 12, 4, 12, 4));
  assert.deepEqual(pick(models.gpt2.mqa), hand(768, 12, 1, 12, 4));
  // The lesson: 4·d² = 64, and with one K/V head 16 + 8 + 8 + 16 = 48; h = 2 has no GQA.
  assert.deepEqual(pick(models.lesson.mha), hand(4, 2, 2, 1, 4));
  assert.equal(models.lesson.mqa.total, 48);
  assert.equal(models.lesson.gqa.kvHeads, null);
  assert.equal(bytesText(524288), '512 KiB');
  assert.equal(bytesText(2 * 1024 ** 3), '2 GiB');
  assert.equal(bytesText(16), '16 B');
  assert.equal(bytesText(1536), '1.5 KiB');
});

test('the groups: which query heads read which K/V head, and the core\'s error for a h_kv that does not divide h', () => {
  assert.deepEqual(groupFacts(session, { heads: 4, kvHeads: 2 }).groups, [[0, 1], [2, 3]]);
  assert.deepEqual(groupFacts(session, { heads: 6, kvHeads: 3 }).groups, [[0, 1], [2, 3], [4, 5]]);
  assert.deepEqual(groupFacts(session, { heads: 4, kvHeads: 1 }).groups, [[0, 1, 2, 3]]);
  assert.deepEqual(groupFacts(session, { heads: 12, kvHeads: 4 }).divisors, [1, 2, 3, 4, 6, 12]);
  for (const kvHeads of [3, 5, 8]) assert.throws(() => groupFacts(session, { heads: 4, kvHeads }), (error) => error.code === 'KV_HEADS_NOT_DIVISOR');
});

test('the two questions: GPT-2 small with MQA caches 6 KiB a word (by hand), and head 1\'s shared weight is the core\'s', () => {
  const [cache, weight] = questionFacts(mha, session, defaultHand());
  // By hand: one K/V head of d_k = 768 / 12 = 64, K and V, 4 bytes, 12 layers: 2·64·4·12 = 6,144 bytes = 6 KiB.
  assert.equal(cache.answer, (2 * 64 * 4 * 12) / 1024);
  assert.equal(cache.answer, 6);
  // 猫's row with the shared K: q [1,1] against [1,0], [0,1], [0.5,0.5] scores 1 each: a third to 鱼.
  assert.deepEqual(weight.words, ['猫', '鱼']);
  assert.ok(Math.abs(weight.answer - 1 / 3) < 1e-6);
  const random = seededRandom(7);
  for (let n = 0; n < 200; n++) {
    const hand = randomHand(random);
    const [, asked] = questionFacts(mha, session, hand);
    const L = hand.tokens.length;
    const layer = mha.createLayer({ dModel: 4, heads: 2, kvHeads: 1, maxLen: 8 });
    layer.forward({ q: hand.q, k: meanPooled(hand.k, { heads: 2, kvHeads: 1, dK: 2 }), v: meanPooled(hand.v, { heads: 2, kvHeads: 1, dK: 2 }), causal: hand.causal, scale: hand.scale });
    assert.equal(asked.answer, layer.attention(0)[L - 1]);
    assert.deepEqual(asked.words, [hand.tokens[0], hand.tokens[L - 1]]);
    layer.dispose();
  }
});

test('the poetry model made GQA: its sentence counts heads in good grammar, its caption says which heads form a group', () => {
  const row = (kvHeads, loss, kept) => ({ kvHeads, size: 8 / kvHeads, loss, cost: loss - 4.4, kept });
  for (const [half, worst] of [[1, 1], [1, 0], [3, 2], [2, 1]]) {
    const f = { heads: 8, named: 14, rows: [row(8, 4.4, 14), row(4, 5.2, 9), row(2, 6.1, half), row(1, 7.186, worst)] };
    f.rows[1] = row(4, 5.2, half); // the sentence's "half" is the second row
    const en = GQA_TEXT.en.poemsSays(f);
    assert.ok(en.includes(half === 1 ? 'only 1 keeps it;' : `only ${half} keep it;`), en);
    assert.ok(en.includes(worst === 1 ? 'and 1 keeps its.' : `and ${worst} keep theirs.`), en);
    assert.doesNotMatch(en, /\b1 keep\b/);
    // Chinese counts with a measure word, the same for one head or many.
    const zh = GQA_TEXT.zh.poemsSays(f);
    assert.ok(zh.includes(`只剩 ${half} 个还是原来的眼光`) && zh.includes(`剩 ${worst} 个。`), zh);
  }
  // A group is 8 ÷ h_kv adjacent heads (head i reads group ⌊i·h_kv/h⌋), never "the 8 heads of a group".
  assert.match(GQA_TEXT.zh.poemsCaption(8), /相邻分组，每组 8 ÷ h_kv 个（h_kv = 2 时头 1–4 一组、头 5–8 一组）/);
  assert.doesNotMatch(GQA_TEXT.zh.poemsCaption(8), /组内 8 个头/);
  assert.match(GQA_TEXT.en.poemsCaption(8), /8 ÷ h_kv adjacent heads a group \(at h_kv = 2, heads 1–4 and heads 5–8\)/);
  const layer = mha.createLayer({ dModel: 16, heads: 8, maxLen: 2, kvHeads: 2 });
  assert.deepEqual(range(8).map((i) => layer.kvGroup(i)), [0, 0, 0, 0, 1, 1, 1, 1], 'the core groups heads 1–4 and 5–8');
  layer.dispose();
});
