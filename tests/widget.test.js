// The widget's pure parts in Node: attribute parsing, the figures it draws (linkedom as the DOM),
// and what a page downloads for one widget.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { parseHTML } from 'linkedom';
import { parseState, dataToAttribute, shareKV, MAX_TOKENS, MAX_DIM, MAX_ATTRIBUTE_LENGTH, LABEL_TOKEN_CHARS } from '../web/widget/parse.js';
import { LESSON_EXAMPLE } from '../web/shared/lesson.js';
import { clipText, CLUSTER_CODE_POINTS } from '../web/shared/clip.js';
import { renderViews, renderNotice, renderError, DRAWN_TOKEN_CHARS } from '../web/widget/render.js';
import { buildControls, controlsKey, headChoices, MAX_SLIDER_ENTRIES } from '../web/widget/controls.js';
import { divisors, languageOf } from '../web/widget/strings.js';
import { controlHandlesKey } from '../web/widget/keys.js';
import { Script } from 'node:vm';

const lesson = {
  tokens: '["猫","吃","鱼"]',
  q: '[[1,1,0,0],[0,2,0,2],[0,0,1,1]]',
  k: '[[1,0,1,0],[0,1,0,1],[1,1,0,0]]',
  v: '[[1,0,1,0],[0,1,0,1],[2,0,0,2]]',
  heads: '2',
};
const codeOf = (attrs) => parseState({ ...lesson, ...attrs }).error?.code;

test('the issue snippet parses to the lesson table with the defaults', () => {
  const { state, error } = parseState(lesson);
  assert.equal(error, undefined);
  assert.deepEqual(state.tokens, ['猫', '吃', '鱼']);
  assert.deepEqual(state.q, LESSON_EXAMPLE.q);
  assert.equal(state.heads, 2);
  assert.equal(state.dK, 2);
  assert.equal(state.causal, false, 'causal absent = mask off, as in the lesson table');
  assert.equal(state.scale, true, 'scale on unless scale="off"');
  assert.equal(state.editable, false);
  assert.equal(state.view, 'heatmaps');
  assert.equal(state.lang, 'zh');
});

test('boolean and enumerated attributes', () => {
  const { state } = parseState({ ...lesson, causal: true, editable: true, compact: true, scale: 'off', view: 'Lines', lang: 'en-GB' });
  assert.deepEqual([state.causal, state.editable, state.compact, state.scale, state.view, state.lang], [true, true, true, false, 'lines', 'en']);
  assert.equal(parseState(lesson).state.compact, false);
  for (const value of ['', 'on', 'true']) assert.equal(parseState({ ...lesson, scale: value }).state.scale, true, `scale="${value}"`);
  for (const value of ['off', 'OFF', 'false', '0']) assert.equal(parseState({ ...lesson, scale: value }).state.scale, false, `scale="${value}"`);
  for (const view of ['heatmaps', 'pipeline', 'lines', 'full']) assert.equal(parseState({ ...lesson, view }).state.view, view);
  assert.equal(languageOf('zh-CN'), 'zh');
  assert.equal(languageOf('fr'), 'zh');
  assert.deepEqual(divisors(12), [1, 2, 3, 4, 6, 12]);
});

test('no data attributes: the lesson example; heads defaults to 2 (1 for an odd d_model)', () => {
  const { state } = parseState({});
  assert.deepEqual(state.tokens, ['猫', '吃', '鱼']);
  assert.equal(state.heads, 2);
  const odd = parseState({ q: '[[1,2,3]]', k: '[[1,2,3]]', v: '[[1,2,3]]' }).state;
  assert.equal(odd.heads, 1);
  assert.deepEqual(odd.tokens, ['1'], 'tokens absent: numbered positions');
});

test('every bad attribute gives a code and a message naming the problem', () => {
  const cases = [
    [{ q: '[[1,1,0,0],[0,2,0,2]' }, 'BAD_JSON', /q/],
    [{ q: '[[1,1,0,0],[0,2,0],[0,0,1,1]]' }, 'RAGGED_ROWS', /第 2 行有 3 个/],
    [{ q: '[[NaN,1,0,0],[0,2,0,2],[0,0,1,1]]' }, 'NOT_FINITE', /q 第 1 行第 1 列是 NaN/],
    [{ v: '[[1,0,1,0],[0,1,0,-Infinity],[2,0,0,2]]' }, 'NOT_FINITE', /-Infinity/],
    [{ k: '[[1,0,1,0],[0,"x",0,1],[1,1,0,0]]' }, 'NOT_A_NUMBER', /"x"/],
    [{ k: '{"a":1}' }, 'NOT_A_MATRIX', /k/],
    [{ k: '[1,0,1,0]' }, 'NOT_A_MATRIX', /k/],
    [{ v: '[]' }, 'EMPTY', /v/],
    [{ v: '[[1,0],[0,1],[2,0]]' }, 'SHAPE_MISMATCH', /^v 是 3×2，q 却是 3×4；/],
    [{ q: '[[1e300,1,0,0],[0,2,0,2],[0,0,1,1]]' }, 'NOT_FINITE', /q 第 1 行第 1 列是 1e\+300，超出了 float32/],
    [{ k: '[[1,0,1,0],[0,1,0,-3.4028235677973366e38],[1,1,0,0]]' }, 'NOT_FINITE', /float32/],
    [{ k: null }, 'MISSING', /k/],
    [{ tokens: '["猫","吃"]' }, 'TOKEN_COUNT', /2.*3/],
    [{ tokens: '"猫吃鱼"' }, 'BAD_TOKENS', /tokens/],
    [{ tokens: '[{"a":1},"b","c"]' }, 'BAD_TOKENS', /tokens/],
    [{ heads: '3' }, 'HEADS_NOT_DIVISOR', /heads 3.*d_model 4.*1、2、4/],
    [{ heads: '0' }, 'BAD_HEADS', /"0"/],
    [{ heads: '2.5' }, 'BAD_HEADS', /"2.5"/],
    [{ heads: 'two' }, 'BAD_HEADS', /"two"/],
    [{ view: 'table' }, 'BAD_VIEW', /heatmaps、pipeline、lines、full 或 train/],
    [{ wo: '[[1,0],[0,1]]' }, 'WO_SHAPE', /2×2/],
  ];
  for (const [attrs, code, pattern] of cases) {
    const { error, state } = parseState({ ...lesson, ...attrs });
    assert.equal(state, undefined, JSON.stringify(attrs));
    assert.equal(error.code, code, JSON.stringify(attrs));
    assert.match(error.message, pattern, JSON.stringify(attrs));
    assert.ok(error.message.length < 200, 'short');
  }
  const long = JSON.stringify(Array.from({ length: MAX_TOKENS + 1 }, () => [1, 0]));
  assert.equal(parseState({ q: long, k: long, v: long }).error.code, 'TOO_LARGE');
});

test('kv-heads: one K and one V a group of heads, the mean of theirs; a bad value is coded, in the widget\'s language', () => {
  assert.equal(parseState(lesson).state.kvHeads, null, 'absent: every head its own K and V, whatever h a learner picks');
  assert.equal(parseState({ ...lesson, 'kv-heads': ' 1 ' }).state.kvHeads, 1);
  assert.equal(parseState({ ...lesson, 'kv-heads': '' }).state.kvHeads, null);
  assert.equal(parseState({ ...lesson, 'kv-heads': '1', view: 'train' }).state.kvHeads, null, 'not read by view="train"');
  for (const value of ['abc', '0', '-1', '1.5']) assert.equal(codeOf({ 'kv-heads': value }), 'BAD_SIZE', `kv-heads="${value}"`);
  assert.equal(parseState({ ...lesson, 'kv-heads': '0' }).error.message, 'K/V 头数 h_kv 必须是正整数，现在是 0。');
  assert.equal(parseState({ ...lesson, 'kv-heads': 'two', lang: 'en' }).error.message, 'h_kv must be a positive whole number.');
  // The lesson's k with one K/V head for both: each row's two heads averaged, then drawn at both heads' columns.
  const k = shareKV(LESSON_EXAMPLE.k, 2, 1);
  assert.deepEqual(k.core, [[1, 0], [0, 1], [0.5, 0.5]]);
  assert.deepEqual(k.shown, [[1, 0, 1, 0], [0, 1, 0, 1], [0.5, 0.5, 0.5, 0.5]]);
  const v = shareKV([[1, 2, 3, 4, 5, 6, 7, 8]], 4, 2);
  assert.deepEqual(v.core, [[2, 3, 6, 7]], 'heads 0 and 1 pool into group 0, heads 2 and 3 into group 1');
  assert.deepEqual(v.shown, [[2, 3, 2, 3, 6, 7, 6, 7]]);
  assert.equal(shareKV(LESSON_EXAMPLE.v, 2, 2).core, LESSON_EXAMPLE.v, 'kv-heads = heads: the matrix itself');
});

test('numbers up to the largest float32 are taken; from there on they would be infinite in the core', () => {
  const withEntry = (x) => JSON.stringify([[x, 1, 0, 0], [0, 2, 0, 2], [0, 0, 1, 1]]);
  assert.equal(parseState({ ...lesson, q: withEntry(3.4028234663852886e38) }).error, undefined, 'the largest float32');
  assert.equal(parseState({ ...lesson, q: withEntry(3.4028235677973362e38) }).error, undefined, 'rounds down to it');
  assert.equal(Math.fround(3.4028235677973366e38), Infinity);
  const { error } = parseState({ ...lesson, q: withEntry(3.4028235677973366e38), lang: 'en' });
  assert.equal(error.code, 'NOT_FINITE');
  assert.match(error.message, /^q row 1, column 1 is 3\.4028235677973366e\+38, beyond float32/);
});

test('view="train" reads no data attributes, and takes only an h the training offers', () => {
  for (const attrs of [{}, { q: 'garbage' }, { q: '[[1,2]]', k: '[[1]]', wo: '[[1]]' }, { tokens: '[]' }]) {
    const { state, error } = parseState({ view: 'train', ...attrs });
    assert.equal(error, undefined, JSON.stringify(attrs));
    assert.deepEqual([state.view, state.heads], ['train', 2], JSON.stringify(attrs));
  }
  assert.equal(parseState({ view: 'train', heads: '4' }).state.heads, 4);
  for (const heads of ['8', '3', '0', 'two']) {
    const { error } = parseState({ view: 'train', heads });
    assert.equal(error.code, 'BAD_HEADS', heads);
    assert.match(error.message, new RegExp(`^view="train" 的 heads 只能是 1、2、4（训练的模型 d_model = 8），收到 "${heads}"`));
  }
  assert.match(parseState({ view: 'train', heads: '8', lang: 'en' }).error.message, /^with view="train", heads is 1, 2 or 4 \(the model trained has d_model 8\), got "8"/);
});

test('an attribute too long is refused before it is parsed (TOO_LONG), and deep nesting never overflows the stack', () => {
  // The largest matrix allowed, every number as long as JavaScript writes one, still fits.
  const widest = JSON.stringify(Array.from({ length: MAX_TOKENS }, () => Array(MAX_DIM).fill(-1.2345678901234567e-100)));
  assert.ok(widest.length < MAX_ATTRIBUTE_LENGTH / 2, `${widest.length} characters`);
  assert.equal(parseState({ q: widest, k: widest, v: widest }).error, undefined);
  const huge = JSON.stringify(Array.from({ length: 1e6 }, () => [0.123456]));
  const refused = parseState({ ...lesson, q: huge });
  assert.equal(refused.error?.code, 'TOO_LONG');
  assert.match(refused.error.message, new RegExp(`q 有 ${huge.length} 个字符.*最多 ${MAX_ATTRIBUTE_LENGTH} 个`));
  assert.match(parseState({ ...lesson, tokens: JSON.stringify(['x'.repeat(MAX_ATTRIBUTE_LENGTH), 'b', 'c']), lang: 'en' }).error.message, /^tokens is \d+ characters long; an attribute may have at most 131072/);
  for (const name of ['heads', 'view', 'scale', 'wo', 'lang']) assert.equal(codeOf({ [name]: '1'.repeat(MAX_ATTRIBUTE_LENGTH + 1) }), 'TOO_LONG', name);
  // Within the length, brackets inside one another: refused as the wrong shape, before JSON.parse sees them.
  const deep = `${'['.repeat(MAX_ATTRIBUTE_LENGTH / 2)}${']'.repeat(MAX_ATTRIBUTE_LENGTH / 2)}`;
  assert.equal(codeOf({ q: deep }), 'NOT_A_MATRIX');
  assert.equal(codeOf({ tokens: deep }), 'BAD_TOKENS');
  assert.equal(codeOf({ k: '[[1,0,1,0],[0,1,0,"[[[[x"],[1,1,0,0]]' }), 'NOT_A_NUMBER', 'brackets inside a string are text');
  // A matrix given as an array (not text) may nest deeper than JSON.stringify can follow: refused as the text would be, never followed.
  let nested = [];
  for (let i = 0; i < 1e5; i++) nested = [nested];
  const given = parseState({ ...lesson, k: [[1, 0, 1, 0], [0, nested, 0, 1], [1, 1, 0, 0]] });
  assert.equal(given.error?.code, 'NOT_A_MATRIX');
  assert.match(given.error.message, /^k 应是若干行数字组成的数组/);
});

/** `array` behind a proxy that counts how many of its entries are read. */
function counted(array) {
  const reads = { count: 0 };
  const proxy = new Proxy(array, {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key)) reads.count++;
      return Reflect.get(target, key, receiver);
    },
  });
  return { proxy, reads };
}

test('an array given through a property is held to its attribute\'s bounds before it is copied or written out', () => {
  let deep = [];
  for (let i = 0; i < 1e6; i++) deep = [deep];
  const wide = counted(Array(1e7));
  const rows = counted(Array.from({ length: 1e6 }, () => [1, 2, 3, 4]));
  const cases = [
    ['q', deep, 'NOT_A_MATRIX'],
    ['q', [wide.proxy], 'TOO_LONG'],
    ['tokens', deep, 'BAD_TOKENS'],
    ['q', rows.proxy, 'TOO_LONG'],
    ['wo', [[1, NaN], [0, 1]], 'NOT_FINITE'],
    ['tokens', ['a', ['b'], 'c'], 'BAD_TOKENS'],
  ];
  for (const [name, value, code] of cases) {
    assert.equal(dataToAttribute(name, value), null, `${name} ${code}: refused`);
    assert.equal(parseState({ ...lesson, [name]: value }).error?.code, code, `${name} ${code}`);
  }
  // The work is bounded by the attribute's length, whatever the array's: a million rows are not all read,
  // and a row of ten million is measured by its length alone.
  assert.equal(wide.reads.count, 0);
  assert.ok(rows.reads.count < MAX_ATTRIBUTE_LENGTH, `${rows.reads.count} rows read of 1,000,000`);
  assert.match(parseState({ ...lesson, q: rows.proxy, lang: 'en' }).error.message, /^q is too long as JSON; an attribute may have at most 131072/);
  assert.match(parseState({ ...lesson, wo: [[1, NaN], [0, 1]] }).error.message, /第 1 行第 2 列是 NaN/);
  // Good values are written out as the attribute's JSON.
  assert.equal(dataToAttribute('q', [new Float32Array([0.5, 1]), [2, 3]]), '[[0.5,1],[2,3]]');
  assert.equal(dataToAttribute('tokens', ['猫', 2]), '["猫","2"]');
});

test('messages follow lang', () => {
  assert.match(parseState({ ...lesson, heads: '3', lang: 'en' }).error.message, /heads 3 does not divide d_model 4 .*; try 1, 2, 4/);
  assert.equal(codeOf({ heads: '3', lang: 'en' }), 'HEADS_NOT_DIVISOR');
});

test('attributes are data: markup in a token stays a string', () => {
  const token = '<img src=x onerror=alert(1)>';
  const { state } = parseState({ ...lesson, tokens: JSON.stringify([token, '吃', '鱼']) });
  assert.equal(state.tokens[0], token);
});

test('arrays are accepted as well as text', () => {
  assert.deepEqual(parseState({ ...lesson, q: JSON.parse(lesson.q) }).state.q, LESSON_EXAMPLE.q);
  assert.deepEqual(parseState({ ...lesson, q: [new Float32Array([1, 1, 0, 0]), [0, 2, 0, 2], [0, 0, 1, 1]] }).state.q, LESSON_EXAMPLE.q);
});

// Results as the core gives them for the lesson (h = 2, mask off), to draw without wasm: a shared/session.js snapshot's fields.
const snap = {
  L: 3,
  dModel: 4,
  heads: 2,
  dK: 2,
  q: LESSON_EXAMPLE.q.flat(),
  scores: [[0.71, 0.71, 1.41, 1.41, 0.71, 0.71, 0, 0, 0], [0, 0, 0, 0, 1.41, 0, 0.71, 0.71, 0]],
  attention: [[0.25, 0.25, 0.5, 0.11, 0.45, 0.45, 0.33, 0.33, 0.33], [0.33, 0.33, 0.33, 0.16, 0.67, 0.16, 0.4, 0.4, 0.2]],
  headOutputs: [[1.26, 0.25, 0.66, 1.11, 1.0, 0.33], [0.33, 1.0, 0.16, 1.0, 0.4, 0.8]],
  concat: [1.26, 0.25, 0.33, 1.0, 0.66, 1.11, 0.16, 1.0, 1.0, 0.33, 0.4, 0.8],
  output: [1.26, 0.25, 0.33, 1.0, 0.66, 1.11, 0.16, 1.0, 1.0, 0.33, 0.4, 0.8],
  wo: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1],
};

test('each view draws its figures; heatmaps has one per head with the lesson numbers', () => {
  const { document } = parseHTML('<!doctype html><html><body></body></html>');
  const state = parseState(lesson).state;
  const heatmaps = renderViews(document, state, snap);
  assert.equal(heatmaps.querySelectorAll('figure.heatmap').length, 2);
  const row = [...heatmaps.querySelectorAll('figure.heatmap[data-head="0"] g.cell')].slice(0, 3).map((g) => g.textContent);
  assert.deepEqual(row, ['0.25', '0.25', '0.50']);
  assert.ok(heatmaps.querySelector('table'), 'a table for screen readers');
  assert.equal(renderViews(document, { ...state, view: 'lines' }, snap).querySelectorAll('svg.mha-lines').length, 1);
  assert.equal(renderViews(document, { ...state, view: 'pipeline' }, snap).querySelectorAll('svg.mha-pipeline').length, 1);
  const full = renderViews(document, { ...state, view: 'full' }, snap);
  for (const cls of ['mha-heatmap', 'mha-lines', 'mha-pipeline', 'mha-matrix']) assert.ok(full.querySelector(`svg.${cls}`), cls);
});

test('a long token is drawn cut short with "…" on every figure, and written up to LABEL_TOKEN_CHARS in the tables; the maps keep readable cells', () => {
  const { document } = parseHTML('<!doctype html><html><body></body></html>');
  const long = 'a-very-long-token-name-that-goes-on';
  const withTokens = (tokens, view = 'full') => parseState({ ...lesson, tokens: JSON.stringify(tokens), view }).state;
  const state = withTokens([long, '吃', '鱼']);
  const views = renderViews(document, state, snap, { width: 320 });
  const cut = `${long.slice(0, DRAWN_TOKEN_CHARS - 1)}…`;
  const svgTexts = [...views.querySelectorAll('svg text')].map((text) => text.textContent);
  assert.ok(!svgTexts.some((text) => text.includes(long)), 'no figure draws it whole');
  for (const cls of ['mha-heatmap', 'mha-lines', 'mha-matrix']) {
    assert.ok([...views.querySelectorAll(`svg.${cls} text`)].some((text) => text.textContent === cut), `${cls} draws "${cut}"`);
  }
  const headers = (tokens) => [...renderViews(document, withTokens(tokens, 'heatmaps'), snap).querySelectorAll('table th')].map((th) => th.textContent);
  assert.ok(headers([long.slice(0, LABEL_TOKEN_CHARS), '吃', '鱼']).includes(long.slice(0, LABEL_TOKEN_CHARS)), 'a table writes LABEL_TOKEN_CHARS whole');
  assert.ok(headers([long, '吃', '鱼']).includes(`${long.slice(0, LABEL_TOKEN_CHARS - 1)}…`), 'and cuts a longer one');
  const cellOf = (tokens) => Number(renderViews(document, withTokens(tokens, 'heatmaps'), snap, { width: 320 }).querySelector('svg.mha-heatmap g.cell rect').getAttribute('width'));
  assert.ok(cellOf([long, '吃', '鱼']) >= 26, `cells of ${cellOf([long, '吃', '鱼'])} px keep their numbers`);
  // Cut by character, never inside one: 13 characters outside the BMP keep 11 whole ones.
  const astral = '𠀀'.repeat(13);
  const drawnAstral = renderViews(document, withTokens([astral, '吃', '鱼'], 'heatmaps'), snap).querySelector('svg.mha-heatmap text').textContent;
  assert.equal(drawnAstral, `${'𠀀'.repeat(DRAWN_TOKEN_CHARS - 1)}…`);
});

test('text is clipped by grapheme clusters, and a cluster to its first code points', () => {
  assert.equal(clipText('猫吃鱼', 12), '猫吃鱼');
  const family = '👨‍👩‍👧‍👦'; // 7 code points, one character on screen
  assert.equal(clipText(family.repeat(12), 12), family.repeat(12), 'twelve whole emoji fit in 12');
  assert.equal(clipText(family.repeat(13), 12), `${family.repeat(11)}…`, 'none is cut in two');
  assert.equal(clipText('e\u0301'.repeat(13), 12), `${'e\u0301'.repeat(11)}…`, 'a letter keeps its accent');
  // One letter under 20,000 accents is one cluster: it keeps CLUSTER_CODE_POINTS code points, and says it was cut.
  const stacked = `a${'\u0301'.repeat(20000)}`;
  assert.equal(clipText(stacked, 32), `a${'\u0301'.repeat(CLUSTER_CODE_POINTS - 1)}…`);
  assert.equal(clipText(`${'𝄞'.repeat(100)}`, 3), '𝄞𝄞…', 'never half of a surrogate pair');
  for (const text of [stacked, 'x'.repeat(MAX_ATTRIBUTE_LENGTH), '😀'.repeat(MAX_ATTRIBUTE_LENGTH / 2), `${'\u0301'.repeat(5000)}b`.repeat(20)]) {
    const shown = clipText(text, LABEL_TOKEN_CHARS);
    assert.ok(Array.from(shown).length <= LABEL_TOKEN_CHARS * CLUSTER_CODE_POINTS, `${Array.from(shown).length} code points`);
    assert.ok(shown.endsWith('…'));
  }
});

test('a token too long to show whole: its labels are clipped everywhere, and a notice says which, in the widget\'s language', () => {
  const { document } = parseHTML('<!doctype html><html><body></body></html>');
  const stacked = `a${'\u0301'.repeat(20000)}`;
  const state = parseState({ ...lesson, tokens: JSON.stringify([stacked, '吃', 'x'.repeat(40)]), view: 'full', editable: true }).state;
  assert.equal(state.tokens[0], stacked, 'the tokens themselves are kept whole');
  assert.deepEqual(state.clipped, [0, 2]);
  const views = renderViews(document, state, snap);
  // Every character written, seen or not (text, aria-labels, titles), in every figure, table, slider and button;
  // not the figures' geometry, which a wider label moves by a few digits.
  const geometry = new Set(['x', 'y', 'x1', 'x2', 'y1', 'y2', 'dx', 'dy', 'cx', 'cy', 'r', 'width', 'height', 'd', 'points', 'transform', 'viewBox', 'font-size', 'stroke-width']);
  const written = (s) => [renderViews(document, s, snap), buildControls(document, s, { matrix() {}, heads() {}, causal() {}, scale() {} }).element]
    .reduce((sum, root) => sum + root.textContent.length + [...root.querySelectorAll('*')]
      .reduce((n, el) => n + [...el.attributes].filter((a) => !geometry.has(a.name)).reduce((m, a) => m + a.value.length, 0), 0), 0);
  const plain = parseState({ ...lesson, tokens: '["a","吃","x"]', view: 'full', editable: true }).state;
  // One copy of the token would add 20,000 characters; the clipped labels add a few hundred.
  assert.ok(written(state) - written(plain) < 2000, `${written(state) - written(plain)} characters more than with short tokens`);
  assert.ok([...views.querySelectorAll('table th')].some((th) => th.textContent === clipText(stacked, LABEL_TOKEN_CHARS)));
  const notice = renderNotice(document, state);
  assert.equal(notice.getAttribute('data-code'), 'TOKEN_CLIPPED');
  assert.match(notice.textContent, /^第 1、3 个词太长，显示时截短了/);
  assert.match(renderNotice(document, { ...state, lang: 'en' }).textContent, /^Too long, shortened for display: token 1, 3$/);
  assert.equal(renderNotice(document, parseState(lesson).state), null, 'no notice when every token fits');
});

test('heads 9 to 16 share the first 8 colours: their lines and their swatches in the key are dashed', () => {
  const { document } = parseHTML('<!doctype html><html><body></body></html>');
  const row = JSON.stringify(Array.from({ length: 16 }, (_, i) => i % 3));
  const state = parseState({ q: `[${row},${row}]`, k: `[${row},${row}]`, v: `[${row},${row}]`, heads: '16', view: 'lines' }).state;
  const lines = renderViews(document, state, { attention: Array.from({ length: 16 }, () => [0.5, 0.5, 0.5, 0.5]) });
  const swatches = [...lines.querySelectorAll('p.key .swatch')].map((swatch) => swatch.classList.contains('dashed'));
  assert.deepEqual(swatches, Array.from({ length: 16 }, (_, head) => head >= 8));
});

test('a token that looks like HTML is drawn as text, never parsed', () => {
  const { document } = parseHTML('<!doctype html><html><body></body></html>');
  const token = '<img src=x onerror=alert(1)>';
  const state = { ...parseState({ ...lesson, tokens: JSON.stringify([token, '吃', '鱼']), view: 'full', editable: true }).state };
  const views = renderViews(document, state, snap);
  const controls = buildControls(document, state, { matrix() {}, heads() {}, causal() {}, scale() {} }).element;
  for (const root of [views, controls]) {
    assert.equal(root.querySelectorAll('img').length, 0);
    assert.ok(root.textContent.includes(token));
  }
  const error = renderError(document, 'zh', { code: 'BAD_JSON', message: token });
  assert.equal(error.querySelectorAll('img').length, 0);
  assert.ok(error.textContent.includes(token));
});

test('an inline error shows its title and sentence; its code is in data-code, not in the text', () => {
  const { document } = parseHTML('<!doctype html><html><body></body></html>');
  for (const lang of ['zh', 'en']) {
    const { error } = parseState({ ...lesson, heads: '3', lang });
    const box = renderError(document, lang, error);
    assert.equal(box.getAttribute('data-code'), 'HEADS_NOT_DIVISOR');
    assert.equal(box.getAttribute('part'), 'error');
    assert.ok(box.textContent.endsWith(error.message), box.textContent);
    assert.ok(!box.textContent.includes('HEADS_NOT_DIVISOR'), box.textContent);
  }
});

test('the editable panel has one labelled slider per q/k/v entry and a head menu of divisors', () => {
  const { document } = parseHTML('<!doctype html><html><body></body></html>');
  const state = parseState({ ...lesson, editable: true }).state;
  const { element } = buildControls(document, state, { matrix() {}, heads() {}, causal() {}, scale() {} });
  const sliders = element.querySelectorAll('input[type="range"]');
  assert.equal(sliders.length, 3 * 3 * 4);
  assert.equal(sliders[0].getAttribute('aria-label'), 'q · 猫 · 维 0（头 1）');
  assert.equal(sliders[3].getAttribute('aria-label'), 'q · 猫 · 维 3（头 2）');
  assert.deepEqual([...element.querySelectorAll('option')].map((o) => o.value), ['1', '2', '4']);
});

test('with kv-heads the head menu offers only the counts it divides, and is rebuilt when kv-heads changes', () => {
  const { document } = parseHTML('<!doctype html><html><body></body></html>');
  const menu = (attrs) => {
    const state = parseState({ ...lesson, editable: true, ...attrs }).state;
    return [...buildControls(document, state, { matrix() {}, heads() {}, causal() {}, scale() {} }).element.querySelectorAll('option')].map((o) => Number(o.value));
  };
  assert.deepEqual(menu({ 'kv-heads': '1' }), [1, 2, 4], 'one K/V head: every divisor of d_model');
  assert.deepEqual(menu({ 'kv-heads': '2' }), [2, 4], 'h = 1 cannot share 2 K/V heads');
  assert.deepEqual(menu({ heads: '4', 'kv-heads': '4' }), [4]);
  assert.deepEqual(headChoices(12, 3), [3, 6, 12]);
  const state = parseState({ ...lesson, editable: true }).state;
  assert.notEqual(controlsKey(state), controlsKey({ ...state, kvHeads: 2 }), 'a new kv-heads rebuilds the menu');
});

const widget = new URL('../web/dist/widget.js', import.meta.url);
const wasm = new URL('../web/dist/mha-core.wasm', import.meta.url);

test('one widget downloads under 100 KB gzipped (widget.js + mha-core.wasm)', { skip: !existsSync(widget) && 'run bash build.sh first' }, (t) => {
  const js = gzipSync(readFileSync(widget), { level: 9 }).length;
  const core = gzipSync(readFileSync(wasm), { level: 9 }).length;
  t.diagnostic(`widget.js ${js} B + mha-core.wasm ${core} B gzipped = ${js + core} B`);
  assert.ok(js + core < 100_000, `${js + core} bytes`);
  const source = readFileSync(widget, 'utf8');
  assert.ok(!/katex/i.test(source), 'no KaTeX in the widget bundle');
  assert.ok(!source.includes('loadModel takes a .safetensors file'), 'no model loader in the widget bundle (shared-core.js)');
  assert.ok(!/new Function|\beval\(/.test(source), 'no eval / new Function (strict CSP)');
});

test('the keys a focused control acts on are kept from the page; Tab, Escape and shortcuts are not', () => {
  const control = (localName, type) => ({ localName, type });
  const keeps = (target, key, modifiers = {}) => controlHandlesKey(target, { key, ...modifiers });
  const slider = control('input', 'range');
  for (const key of ['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', 'Home', 'End', 'PageUp', 'PageDown']) assert.ok(keeps(slider, key), key);
  for (const key of [' ', 'Tab', 'Escape', 'f']) assert.ok(!keeps(slider, key), `a slider does nothing with ${JSON.stringify(key)}`);
  assert.ok(keeps(control('input', 'checkbox'), ' '));
  assert.ok(!keeps(control('input', 'checkbox'), 'ArrowRight'));
  assert.ok(keeps(control('input', 'radio'), 'ArrowDown'));
  assert.ok(keeps(control('button', 'button'), 'Enter') && keeps(control('button', 'button'), ' '));
  assert.ok(keeps(control('select'), 'ArrowDown') && keeps(control('select'), '4'), 'a menu moves and jumps to a typed letter');
  assert.ok(keeps(control('input', 'text'), 'b') && !keeps(control('input', 'text'), 'Tab'));
  assert.ok(!keeps(slider, 'ArrowRight', { ctrlKey: true }) && !keeps(slider, 'ArrowRight', { altKey: true }), 'shortcuts go to the page');
  assert.ok(!keeps(control('div'), 'ArrowRight') && !keeps(control('svg'), ' '));
});

const classic = new URL('../web/dist/widget.classic.js', import.meta.url);

test('widget.classic.js is a classic script: no import, export or import.meta', { skip: !existsSync(classic) && 'run bash build.sh first' }, () => {
  const source = readFileSync(classic, 'utf8');
  assert.doesNotThrow(() => new Script(source, { filename: 'widget.classic.js' }), 'parses as a classic script');
  assert.doesNotMatch(source, /import\.meta/);
});

test('a large matrix keeps the switches but not one slider per entry', () => {
  const { document } = parseHTML('<!doctype html><html><body></body></html>');
  const rows = JSON.stringify(Array.from({ length: 16 }, () => Array(16).fill(0.5)));
  const state = parseState({ q: rows, k: rows, v: rows, editable: true, heads: '4' }).state;
  assert.ok(state.L * state.d > MAX_SLIDER_ENTRIES);
  const { element } = buildControls(document, state, { matrix() {}, heads() {}, causal() {}, scale() {} });
  assert.equal(element.querySelectorAll('input[type="range"]').length, 0);
  assert.equal(element.querySelectorAll('input[type="checkbox"]').length, 2);
  assert.match(element.textContent, /16 个词 × 16 维/);
});

test('every sample page, the README recipes\' included, has the viewport tag a phone needs to show it at its width', () => {
  const readme = readFileSync(new URL('../web/widget/README.md', import.meta.url), 'utf8');
  const recipes = [...readme.matchAll(/^```html\n(<!doctype html>[\s\S]*?)^```$/gm)].map(([, page]) => page);
  assert.ok(recipes.length >= 4, `${recipes.length} whole pages in web/widget/README.md`);
  const pages = ['course-example.html', 'widget/example.html'].map((name) => readFileSync(new URL(`../web/${name}`, import.meta.url), 'utf8'));
  for (const page of [...recipes, ...pages]) {
    assert.match(page, /<meta name="viewport" content="width=device-width, initial-scale=1">/, page.slice(0, 300));
  }
});
