// The sections' views, continued from views.test.js: §4's pipeline, §5's notes, §7's figures, §11's cards and
// §12's export, each a pure function from the core's numbers and the words to DOM, against a golden HTML snapshot
// in tests/golden/views/ (UPDATE_GOLDEN=1 rewrites them), in both languages, with the numbers drawn checked
// against the core's. The mounts that wire them to the page are tested in Chromium (page.browser.test.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseHTML } from 'linkedom';
import { loadAttention } from '../web/src/attention.js';
import { TEXT } from '../web/page/text.js';
import { runHand, randomDraws, runRandom } from '../web/page/core.js';
import { defaultHand } from '../web/hand/limits.js';
import { show, vh } from '../web/ui/dom.js';
import { pipelineView, stepWords } from '../web/pipeline/section.js';
import { initialViewPicks, viewsPicks, viewsFigures } from '../web/page/sections/views.js';
import { QUIZ_IDS, quizQuestions, quizCard, quizFinished } from '../web/page/sections/quiz.js';
import { weightColor } from '../web/draw/color.js';
import { openPoems, inputIds, runText, textRoles, Continuation, WRITER } from '../web/poems/runs.js';
import { poemRolesView, lossView, continuationView, tokenLabel, nextLabel } from '../web/poems/views.js';
import { labelRole } from '../web/heads/roles.js';
import { topNext } from '../web/heads/next-tokens.js';
import { headTile, enlargedHead, headSteps, heaviestKey, nextTokens, roleWord, expNumber, rolesTable, timesChance } from '../web/heads/head-figures.js';
import { EXPLAIN_WORDS } from '../web/shared/figure-labels.js';
import { gpt2RolesView, tokensView } from '../web/gpt2/views.js';
import { gpt2Input, gpt2TokenLabel, isByteToken, characterRuns, isPunctuationToken } from '../web/gpt2/tokens.js';
import { GPT2_TOKEN_LIMIT } from '../web/gpt2/source.js';
import { everyHeadAttention, withHeadOff } from '../web/heads/heads.js';
import { gpt2File, randomWeights } from './gpt-reference.js';
import { seededRandom } from './seeded.js';
import { LABEL_TIMES_CHANCE } from '../web/heads/roles.js';
import { formulaShape, formulaNotes } from '../web/page/sections/formula-notes.js';
import { shareFacts, heatmapsFigure } from '../web/page/sections/share.js';
import { defaultState, fromQuery } from '../web/page/state.js';
import { matchGolden } from './golden.js';
import { POEMS_TEXT } from '../web/poems/strings.js';
import { GPT2_TEXT } from '../web/gpt2/strings.js';

const mha = await loadAttention();
const { document } = parseHTML('<!doctype html><html><body></body></html>');

/** A view's virtual nodes shown in a box of linkedom's document, as the page shows them in its own. */
const shown = (view) => show(document.createElement('div'), view);
const cells = (node, selector) => [...node.querySelectorAll(selector)].map((cell) => Number(cell.dataset.value));
const near = (drawn, expected, what) => {
  assert.equal(drawn.length, expected.length, `${what}: as many cells as the core's`);
  drawn.forEach((value, i) => assert.ok(Math.abs(value - expected[i]) < 1e-6, `${what} cell ${i}: ${value} against ${expected[i]}`));
};

const hand = defaultHand();
const result = runHand(mha, hand, { use: 'views-2' });

test('§4 the pipeline at step 4 (the softmax), its caption and counter, in both languages, from the core\'s run', () => {
  for (const lang of ['zh', 'en']) {
    const t = TEXT[lang].pipeline;
    const { caption, counter } = stepWords(t, 4);
    const view = shown([vh('span', { id: 'step-counter' }, [counter]), vh('p', { id: 'step-caption' }, [caption]), pipelineView(t, result, { wo: hand.wo, step: 4, orientation: 'horizontal', enter: true })]);
    matchGolden(`views/pipeline-step-4-${lang}.html`, view);
    assert.equal(view.querySelector('#step-counter').textContent, t.stepOf(4));
    // Each head's weights are coloured as the core's are, and step 4's stage is the one fading in.
    for (let head = 0; head < result.heads; head++) {
      const fills = [...view.querySelectorAll(`g.stage[data-part="weights"][data-head="${head}"] rect[data-row]`)].map((cell) => cell.getAttribute('fill'));
      assert.deepEqual(fills, Array.from(result.attention[head], (w) => weightColor(w)), `head ${head + 1}'s weights`);
    }
    assert.ok(view.querySelector('g.stage.active.enter[data-part="weights"]'), 'the lit stage fades in');
  }
  assert.equal(stepWords(TEXT.en.pipeline, 0).counter, TEXT.en.pipeline.overview);
});

test('§7 the lines and the grid: the lesson\'s 猫吃鱼, and a random model with one head picked, in both languages', () => {
  const words = 'the cat ate the fish'.split(' ');
  const draws = randomDraws(mha, { seed: 3, length: words.length, dModel: 16 });
  draws.advance(Infinity);
  const random = runRandom(mha, draws, { use: 'views-2-big', tokens: words, heads: 4, weightScale: 0.4, causal: true });
  for (const lang of ['zh', 'en']) {
    const t = TEXT[lang].views;
    for (const [name, run, ui] of [['hand', result, initialViewPicks()], ['random-head-3', random, { ...initialViewPicks(), picked: 2, focus: 1 }]]) {
      const picks = viewsPicks(ui, run);
      const { lines, grid } = viewsFigures(t, run, picks, { width: 600, weightLegend: TEXT[lang].hand.weightLegend });
      const view = shown([lines, grid]);
      matchGolden(`views/views-${name}-${lang}.html`, view);
      // Lines of the visible heads alone, each weighing what the core's weights do; a tile a head drawn.
      const lineList = [...view.querySelectorAll('#lines-figure line[data-head]')];
      assert.deepEqual([...new Set(lineList.map((line) => Number(line.dataset.head)))], picks.visibleHeads);
      for (const line of lineList) {
        const [head, from, to] = ['head', 'from', 'to'].map((key) => Number(line.dataset[key]));
        assert.ok(Math.abs(Number(line.dataset.weight) - run.attention[head][from * run.L + to]) < 0.005, `${name}: line ${head}/${from}/${to}`);
      }
      assert.equal(view.querySelectorAll('#grid-figure g.tile').length, picks.shownHeads.length);
    }
  }
  const picks = viewsPicks({ ...initialViewPicks(), picked: 2, focus: 9, hidden: [1, 7] }, random);
  assert.deepEqual(picks.visibleHeads, [2], 'a picked head shows alone');
  assert.equal(picks.focus, null, 'a word the sentence no longer has is not focused');
  assert.deepEqual(picks.hidden, [1], 'nor a head the model no longer has hidden');
});

test('§11 every question revealed with the core\'s answer, and the finished card, in both languages', () => {
  for (const lang of ['zh', 'en']) {
    const text = TEXT[lang];
    const questions = quizQuestions(mha, text, { hand, result });
    assert.deepEqual(Object.keys(questions), QUIZ_IDS);
    const answers = {};
    const cards = QUIZ_IDS.map((id) => {
      const { answer, why } = questions[id].solve();
      answers[id] = answer;
      return vh('form', { class: 'quiz-card', 'data-question': id }, quizCard(text, questions[id], { outcome: { kind: 'revealed', answer, why }, mayGoOn: true, returning: id === 'mask' }));
    });
    const view = shown([...cards, vh('form', { class: 'quiz-card' }, quizFinished(text.quiz, { total: 10, first: 7 }))]);
    matchGolden(`views/quiz-revealed-${lang}.html`, view);
    // The answers are the core's: GPT-2's two bills, its d_k, head 2's first row, the masked first word's weight.
    const { naive, split } = mha.paramCount({ dModel: 768, heads: 12 });
    assert.equal(answers.bill, String(naive / split));
    assert.equal(answers.dk, '64');
    assert.equal(answers.predict, `[${Array.from(result.attention[1].slice(0, 3), (w) => w.toFixed(2)).join(', ')}]`);
    assert.equal(answers.mask, '1');
    assert.equal(answers.concat, '4');
    const card = (id) => view.querySelector(`form[data-question="${id}"]`);
    assert.equal(card('predict').querySelectorAll('input').length, 3, 'a field a word');
    assert.equal(card('ablation').querySelectorAll('input[type="checkbox"]').length, 4, 'a box a column of the concat');
    assert.equal(card('mask').querySelectorAll('.quiz-returning').length, 1);
    assert.equal(card('bill').querySelector('#quiz-next').hasAttribute('hidden'), false);
  }
});

test('§11 a check\'s outcomes: the hint, right and wrong, and the core\'s error named as §3 names its entries', () => {
  const text = TEXT.zh;
  const question = quizQuestions(mha, text, { hand, result }).dk;
  const said = (outcome, mayGoOn = false) => shown(quizCard(text, question, { outcome, mayGoOn })).querySelector('#quiz-feedback');
  assert.equal(said({ kind: 'hint' }).className, 'feedback hint');
  assert.equal(said({ kind: 'hint' }).textContent, text.quiz.pickFirst);
  assert.equal(said({ kind: 'wrong' }).textContent, text.quiz.wrong);
  assert.match(said({ kind: 'right', why: question.solve().why }).textContent, /768 ÷ 12 = 64/);
  assert.equal(shown(quizCard(text, question, {})).querySelector('#quiz-next').hasAttribute('hidden'), true, 'no next question before a check');
  // Numbers whose q·k overflows float32: the core refuses them, and the card says so in the page's words.
  const huge = { ...hand, q: hand.q.map((row) => row.map(() => 3e20)), k: hand.k.map((row) => row.map(() => 3e20)) };
  let error = null;
  try {
    runHand(mha, huge, { use: 'views-2-huge' });
  } catch (caught) {
    error = caught;
  }
  assert.ok(error, 'the core refuses the overflowing numbers');
  const failing = quizQuestions(mha, text, { hand: huge, result: null, error }).predict;
  assert.throws(() => failing.solve(), (thrown) => thrown === error);
  const feedback = said({ kind: 'failed', error, cellName: (name, row, col) => `${name}[${row}][${col}]` }, true);
  matchGolden('views/quiz-failed-zh.html', feedback);
  assert.equal(feedback.querySelector('.error').dataset.code, error.code);
  assert.equal(feedback.querySelector('#quiz-cannot-solve').textContent, text.quiz.cannotSolve);
});

test('§10 the poetry model\'s heads on 床前明月光: tiles, a head enlarged, its four steps and roles, the next characters, the loss and the writer, in both languages', async () => {
  const poems = await openPoems(mha, null);
  const { card, vocabulary } = poems;
  const { heads, dModel, vocabSize } = poems.model.config;
  const text = '床前明月光，';
  const ids = inputIds(poems, text);
  const off = [[0, 1]];
  const allOn = runText(poems, ids);
  const run = runText(poems, ids, off);
  const roles = textRoles(poems, run);
  const named = card.headRoles.fresh.heads.map((scores) => labelRole(scores, card.headRoles.fresh.chance));
  // The first head the fresh test set names a 对仗 head (reading the first clause's counterpart), beside its
  // neighbours; read at the comma, on the heaviest key.
  const index = named.findIndex((role) => role?.startsWith('parallel'));
  assert.ok(index > 0 && index < named.length - 1, `a 对仗 head with neighbours: ${named}`);
  const row = ids.length - 1;
  const weights = run.attention[index];
  const key = heaviestKey(weights, ids.length, row);
  // The held-out loss with every head on and with layer 1's head 2 off, as the card measured them.
  const loss = { allOn: { loss: card.ablation.allOn.all }, now: { loss: card.ablation.allOn.all + card.ablation.heads[1].all } };
  const writer = new Continuation(poems, mha, { ids, off: [], temperature: 0, seed: WRITER.seed, verse: true, repetition: true });
  while (!writer.advance(1000));
  for (const lang of ['zh', 'en']) {
    const t = POEMS_TEXT[lang];
    const labels = ids.map((id) => tokenLabel(t, vocabulary, id));
    const top = (result) => topNext(result.logits, row, vocabSize).map(({ id, p }) => ({ id, p, label: nextLabel(t, vocabulary, id) }));
    const prompt = labels.slice(1).join('');
    const continuation = { prompt, added: writer.added.map((id) => vocabulary[id]).join(''), temperature: 0, seed: WRITER.seed, repetition: true, pastTheEnd: false, restarted: false, done: true, ended: writer.ended, count: writer.added.length, run: 1 };
    const view = shown([
      vh('div', { class: 'poem-tiles' }, [index - 1, index, index + 1].map((i) => headTile(t, { index: i, heads, picture: vh('canvas', {}), role: roleWord(t, named[i]), pressed: i === index }))),
      vh('div', { id: 'big' }, enlargedHead(t, { prefix: 'poem', index, heads, weights, labels, row, role: named[index] })),
      vh('div', { id: 'steps' }, headSteps(t, EXPLAIN_WORDS[lang], { prefix: 'poem', index, heads, dModel, labels, row, key, qkv: run.qkv[Math.floor(index / heads)], weights })),
      vh('div', { id: 'roles' }, poemRolesView(t, { index, heads, text: roles, heldOut: null, fresh: card.headRoles.fresh, label: named[index], ablation: card.ablation,
        waiting: { text: t.heldOutWaiting(card.heldOut.poems.length, 3, 31), done: 3, total: 31 } })),
      vh('div', { id: 'prediction' }, nextTokens(t, { prefix: 'poem', row, label: labels[row], allOn: top(allOn), now: top(run), offCount: off.length })),
      vh('div', { id: 'loss' }, lossView(t, { ...loss, offCount: off.length, baselines: card.baselines })),
      vh('div', { id: 'continuation' }, continuationView(t, continuation)),
    ]);
    matchGolden(`views/poems-heads-${lang}.html`, view);
    // Every number drawn is the core's or the card's.
    near(cells(view, '#poem-heatmap g.cell'), Array.from(weights), 'the enlarged head');
    const core = view.querySelector('#poem-step-list [data-step="core"]');
    assert.equal(Number(core.dataset.value), weights[row * ids.length + key]);
    assert.equal(core.dataset.agrees, 'true', 'the softmax worked out agrees with the core\'s weight');
    for (const score of view.querySelectorAll('.role-score[data-where="text"]')) {
      const expected = roles.heads[index][score.dataset.role];
      assert.equal(score.dataset.value, expected === null ? '' : String(expected), `the text's ${score.dataset.role}`);
    }
    assert.equal(view.querySelectorAll('.role-score[data-where="held-out"]').length, 0, 'the held-out column waits for its measure');
    assert.equal(Number(view.querySelector('#poem-ablation').dataset.value), card.ablation.heads[index].all);
    near([...view.querySelectorAll('#poem-top-all li')].map((li) => Number(li.dataset.p)), top(allOn).map(({ p }) => p), 'the next characters, all heads on');
    near([...view.querySelectorAll('#poem-top-now li')].map((li) => Number(li.dataset.p)), top(run).map(({ p }) => p), 'with head 0·1 off');
    assert.equal(Number(view.querySelector('#poem-loss-now').dataset.value), loss.now.loss);
    assert.ok(view.querySelector('#poem-verdict').textContent.includes(t.roleNames[named[index]]), 'the verdict is the card\'s name for the head');
    assert.equal(view.querySelector('#poem-added').textContent, continuation.added);
    assert.ok(continuation.added.length > 0, 'the writer adds to the line');
    // The head shown is on; switched off, its caption and its steps say so (its weights are drawn all the same).
    assert.equal(view.querySelector('#poem-steps-off'), null);
    assert.ok(!view.querySelector('#poem-heatmap figcaption').textContent.includes(t.headOff));
    const offView = shown([
      vh('div', { id: 'big' }, enlargedHead(t, { prefix: 'poem', index, heads, weights, labels, row, role: named[index], off: true })),
      vh('div', { id: 'steps' }, headSteps(t, EXPLAIN_WORDS[lang], { prefix: 'poem', index, heads, dModel, labels, row, key, qkv: run.qkv[Math.floor(index / heads)], weights, off: true })),
    ]);
    assert.equal(offView.querySelector('#poem-heatmap figcaption').textContent, `${t.bigTitle(Math.floor(index / heads), index % heads)} · ${t.roleNames[named[index]]} · ${t.headOff}`);
    assert.equal(offView.querySelector('#poem-steps-off').textContent, t.stepsOff);
    near(cells(offView, '#poem-heatmap g.cell'), Array.from(weights), 'the weights of a head switched off');
  }
});

test('§10 GPT-2\'s tokens and a head\'s roles, on a small random model in GPT-2\'s layout, in both languages', async () => {
  const config = { layers: 2, heads: 2, dModel: 16, context: 80, vocab: 50257 };
  const model = await mha.loadModel(gpt2File(config, randomWeights(config, seededRandom(31), { spread: 0.5 })));
  // As the worker posts a run (web/gpt2/gpt2-worker.js): English, a comma, and 猫 as three byte tokens.
  const ids = gpt2Input('Mr and Mrs 猫, Mr and Mrs', GPT2_TOKEN_LIMIT);
  model.forward(ids);
  const result = { ids, total: ids.length, labels: ids.map(gpt2TokenLabel), byteTokens: ids.map(isByteToken), characters: characterRuns(ids), punctuation: ids.map(isPunctuationToken), attention: everyHeadAttention(model) };
  const index = 2; // layer 2's head 1
  const weights = result.attention[index];
  const L = ids.length;
  for (const lang of ['zh', 'en']) {
    const words = { ...POEMS_TEXT[lang], ...GPT2_TEXT[lang] };
    const view = shown([
      vh('div', { id: 'tokens' }, tokensView(words, result)),
      vh('div', { id: 'roles' }, gpt2RolesView(words, { index, heads: config.heads, ids, punctuation: result.punctuation, weights })),
    ]);
    matchGolden(`views/gpt2-tokens-roles-${lang}.html`, view);
    assert.deepEqual([...view.querySelectorAll('.gpt2-token')].map((token) => Number(token.dataset.id)), ids);
    assert.match(view.querySelector('#gpt2-bytes').textContent, /⟨e7⟩ ⟨8c⟩ ⟨ab⟩ = +猫/);
    // The previous-token score is the mean weight on the token before, from the second token on; the first token's likewise.
    const mean = (pick) => Array.from({ length: L - 1 }, (_, r) => pick(r + 1)).reduce((sum, w) => sum + w, 0) / (L - 1);
    const score = (role) => Number(view.querySelector(`.role-score[data-role="${role}"]`).dataset.value);
    assert.ok(Math.abs(score('previous') - mean((r) => weights[r * L + r - 1])) < 1e-6);
    assert.ok(Math.abs(score('first') - mean((r) => weights[r * L])) < 1e-6);
    assert.deepEqual([...view.querySelectorAll('#roles tbody tr')].map((row) => row.dataset.role), ['previous', 'first', 'copying', 'punctuation']);
  }
  model.dispose();
});

test('§10 GPT-2\'s token count says how many tokens the whole text makes and how many the page reads, in both languages', () => {
  // Texts of 1 to 1,100 words ("cat cat …", a token a word): under, at and past the tokens the page reads.
  for (const words of [0, 1, 20, 62, 63, 64, 100, 1100]) {
    const whole = gpt2Input(Array(words).fill('cat').join(' '), Infinity);
    const ids = whole.slice(0, GPT2_TOKEN_LIMIT);
    const result = { ids, total: whole.length, labels: ids.map(gpt2TokenLabel), byteTokens: ids.map(isByteToken), characters: characterRuns(ids) };
    assert.equal(whole.length, words + 1, 'a word a token, after <|endoftext|>');
    for (const lang of ['zh', 'en']) {
      const said = shown(vh('div', {}, tokensView({ ...POEMS_TEXT[lang], ...GPT2_TEXT[lang] }, result))).querySelector('#gpt2-tokens-count').textContent;
      const numbers = (said.replace(/GPT-2/g, '').match(/\d+/g) ?? []).map(Number);
      const clipped = whole.length > GPT2_TOKEN_LIMIT;
      assert.deepEqual(numbers.slice(0, clipped ? 3 : 1), clipped ? [whole.length, GPT2_TOKEN_LIMIT, whole.length - GPT2_TOKEN_LIMIT] : [whole.length], `${lang}, ${words} words: ${said}`);
      assert.equal(/只读前|reads the first/.test(said), clipped, said);
      assert.equal(shown(vh('div', {}, tokensView({ ...POEMS_TEXT[lang], ...GPT2_TEXT[lang] }, result))).querySelectorAll('.gpt2-token').length, ids.length);
    }
  }
});

test('§5 the symbols\' notes with the hand example\'s shapes, GPT-2\'s and head 1\'s first row from the core, in both languages', () => {
  const gpt2 = defaultState().bill;
  for (const lang of ['zh', 'en']) {
    const t = TEXT[lang].formula;
    const look = (name) => vh('button', { type: 'button', class: 'symbol', 'data-symbol': name }, [t.symbols[name][0]]);
    const shape = formulaShape({ hand: result, bill: gpt2 });
    const view = show(document.createElement('ol'), formulaNotes(t, shape, { focused: 'wq', look }));
    matchGolden(`views/formula-notes-${lang}.html`, view);
    assert.deepEqual([...view.querySelectorAll('li[data-symbol]')].map((li) => li.dataset.symbol), Object.keys(t.symbols), 'the lesson\'s reading order');
    assert.equal(view.querySelector('li.lit').dataset.symbol, 'wq');
    assert.match(view.querySelector('li[data-symbol="wq"]').textContent, /4×2.*768×64/);
    // Head 1's first row, as the core computed it.
    const row = Array.from(result.headOutputs[0].subarray(0, result.dK), (x) => String(Number(x.toFixed(2))));
    assert.deepEqual(row, ['1.26', '0.25']);
    assert.ok(view.querySelector('li[data-symbol="head"]').textContent.includes(`[${row.join(', ')}]`));
    // A bill the page refuses, and §3's numbers the core refuses, leave their parts out.
    const refused = formulaShape({ hand: result, handError: new Error('refused'), bill: { dModel: 768, heads: 7 } });
    assert.equal(refused.bill, null);
    assert.equal(refused.firstRow, null);
    const plain = show(document.createElement('ol'), formulaNotes(t, refused, { look }));
    assert.doesNotMatch(plain.textContent, /768×64|1\.26/);
    assert.equal(plain.querySelectorAll('li.lit').length, 0);
  }
});

test('§12 the link built from the state, what it leaves out of a long poem, and the heatmaps export, in both languages', () => {
  const state = defaultState();
  state.poems.text = '床前明月光'.repeat(60);
  state.hand.heads = 1;
  for (const lang of ['zh', 'en']) {
    const text = TEXT[lang];
    const facts = shareFacts(text.share, state, 'https://example.org/lesson/?x=1#quiz-section');
    assert.ok(!facts.link.includes('#'), 'no section in the link');
    assert.equal(facts.leftOut, text.share.leftOut['poems.text'](256));
    const back = fromQuery(new URL(facts.link).searchParams);
    assert.equal(Array.from(back.poems.text).length, 256, 'the link opens with the poem\'s first 256 characters');
    assert.equal(back.hand.heads, 1);
    assert.equal(shareFacts(text.share, defaultState(), 'https://example.org/lesson/').leftOut, '', 'nothing left out of the lesson\'s own state');
    const figure = shown([vh('p', { id: 'share-left-out' }, [facts.leftOut]), heatmapsFigure(document, text, result)]);
    matchGolden(`views/share-heatmaps-${lang}.html`, figure);
    near(cells(figure, 'g.cell'), result.attention.flatMap((weights) => Array.from(weights)), 'the exported heatmaps');
  }
});

test('the softmax step writes e^s and its sum so that their quotient reads true: three figures and ×10ⁿ past 9,999', () => {
  assert.equal(expNumber(99700), '9.97×10⁴');
  assert.equal(expNumber(123.456), '123.46');
  assert.equal(expNumber(2.5e26), '2.50×10²⁶');
  const read = (text) => {
    const [mantissa, power] = text.split('×10');
    return Number(mantissa) * 10 ** Number([...(power ?? '')].map((digit) => '⁰¹²³⁴⁵⁶⁷⁸⁹'.indexOf(digit)).join('') || 0);
  };
  const random = seededRandom(5);
  for (let trial = 0; trial < 500; trial++) {
    const sum = 10 ** (4 + random() * 20), exp = sum * (0.5 + random() / 2);
    // The written numbers divide to the weight shown, to its last place but one (each has three figures).
    assert.ok(Math.abs(read(expNumber(exp)) / read(expNumber(sum)) - exp / sum) < 0.01, `${expNumber(exp)} ÷ ${expNumber(sum)}`);
  }
});

test('a head switched off twice is listed once; switched on, it is gone, the others kept in order', () => {
  const off = withHeadOff(withHeadOff([[0, 1], [2, 3]], [0, 1], true), [1, 0], true);
  assert.deepEqual(off, [[2, 3], [0, 1], [1, 0]]);
  assert.deepEqual(withHeadOff(off, [2, 3], false), [[0, 1], [1, 0]]);
  assert.deepEqual(withHeadOff([], [0, 0], false), []);
});

test('a role\'s score against chance: the ratio written is the written numbers\' own away from 3×, over many random scores', () => {
  const random = seededRandom(36);
  for (let i = 0; i < 400; i++) {
    const value = i % 7 ? random() : Math.round(random() * 100) / 1000; // every 7th on a round thousandth: ties
    const chance = i % 5 ? 0.0004 + random() * 0.3 : [0.0004, 0.0005, 0.069][i % 3];
    for (const lang of ['zh', 'en']) {
      const words = POEMS_TEXT[lang];
      const node = shown(rolesTable(words, { prefix: 'x', index: 0, heads: 1, roles: ['previous'], verdict: null,
        columns: [{ title: 'fresh', measured: { scores: { previous: value }, chance: { previous: chance } } }] }));
      const written = node.querySelector('.role-score').textContent;
      const [shownChance] = node.querySelector('td small').textContent.match(/\d+\.\d{3}/);
      const ratio = Number(shownChance) ? (Number(written) / Number(shownChance)).toFixed(1) : null;
      // Where the written numbers' ratio and the scores' fall on two sides of 3×, the test below says what is written.
      if (ratio !== null && (Number(ratio) >= LABEL_TIMES_CHANCE) !== (value / chance >= LABEL_TIMES_CHANCE)) continue;
      assert.equal(node.querySelector('td small').textContent, words.chance(chance.toFixed(3), ratio), `${value} against ${chance}`);
    }
  }
});

test('the roles table\'s "N times chance" never puts a score on the wrong side of the 3× a name needs, over 5,000 seeded pairs', () => {
  const random = seededRandom(36);
  const side = (ratio) => ratio >= LABEL_TIMES_CHANCE;
  // 层 3 头 2 of the shipped model: 0.183 / 0.062 as written is 2.95, "3.0", where the scores give 2.94.
  assert.equal(timesChance(0.18299, 0.0622, '0.183', '0.062'), '2.94');
  const table = shown(rolesTable(POEMS_TEXT.zh, { prefix: 'x', index: 0, heads: 1, roles: ['previous'], verdict: null,
    columns: [{ title: 'fresh', measured: { scores: { previous: 0.18299 }, chance: { previous: 0.0622 } } }] }));
  assert.equal(table.querySelector('td small').textContent, '均匀 0.062，是均匀的 2.94 倍');
  assert.equal(timesChance(0.059, 0.069, '0.059', '0.069'), '0.9', 'away from the line, the ratio of the numbers as written');
  let crossings = 0;
  for (let i = 0; i < 5000; i++) {
    const chance = 0.01 + random() * 0.2;
    const score = Math.min(1, chance * (2.8 + random() * 0.4)); // near the line, where rounding can cross it
    const [shownScore, shownChance] = [score.toFixed(3), chance.toFixed(3)];
    const said = timesChance(score, chance, shownScore, shownChance);
    assert.equal(side(Number(said)), side(score / chance), `${score} / ${chance}: said ${said}`);
    if (side((Number(shownScore) / Number(shownChance)).toFixed(1)) !== side(score / chance)) crossings++;
  }
  assert.ok(crossings > 10, `rounding crossed the line ${crossings} times: the test reaches the case it is for`);
});
