// The redraw model the page and the widget share (web/ui/redraw.js): areas found by their fingerprints, one
// redraw a task with every area the task changed, and a part far from the screen that only remembers what it
// missed, drawn once it comes near. The page and the widget running on it are tested in Chromium.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { areaWatcher, redrawLoop, drawParts } from '../web/ui/redraw.js';

test('areas: those whose fingerprints differ from the last call\'s, in the order they are named', () => {
  const state = { hand: { heads: 2, tokens: ['猫', '吃', '鱼'] }, lang: 'zh' };
  const ui = { selected: null };
  const changes = areaWatcher({
    lang: (s) => s.lang,
    hand: (s) => s.hand,
    structure: (s) => [s.hand.tokens.length, s.hand.heads],
    selected: (s, u) => u.selected,
  }, state, ui);
  assert.deepEqual(changes(state, ui), [], 'nothing changed since it was made');
  state.hand.tokens[0] = '狗';
  assert.deepEqual(changes(state, ui), ['hand'], 'a word renamed: the hand, not its structure');
  state.hand.heads = 4;
  ui.selected = { matrix: 'q', row: 0, col: 1 };
  assert.deepEqual(changes(state, ui), ['hand', 'structure', 'selected']);
  assert.deepEqual(changes(state, ui), [], 'each change is told once');
  // Compared by value, not by object: a state put back as it was is no change.
  const before = structuredClone(state.hand);
  state.hand = { ...before, tokens: [...before.tokens] };
  assert.deepEqual(changes(state, ui), []);
});

test('one redraw a task, at its end, with every area the task named; a later task redraws again', async () => {
  const redraws = [];
  const loop = redrawLoop((areas, options) => redraws.push({ areas: [...areas], options }));
  loop.invalidate('hand');
  loop.invalidate('hand', 'url');
  loop.invalidate('selected');
  assert.equal(loop.queued, true);
  assert.deepEqual(redraws, [], 'nothing is drawn inside the task');
  await null; // the task's microtasks
  assert.deepEqual(redraws, [{ areas: ['hand', 'url', 'selected'], options: undefined }]);
  assert.equal(loop.queued, false);
  await new Promise((resolve) => setTimeout(resolve));
  assert.equal(redraws.length, 1, 'no redraw without a change');
  loop.invalidate('views');
  await new Promise((resolve) => setTimeout(resolve));
  assert.deepEqual(redraws.at(-1).areas, ['views']);
  // flush draws at once (printing), with its options; an area named during a redraw waits for the next one.
  const nested = redrawLoop((areas, options) => {
    redraws.push({ areas: [...areas], options });
    if (areas.has('first')) nested.invalidate('second');
  });
  nested.invalidate('first');
  const flushed = redraws.length;
  nested.flush({ whole: true });
  assert.deepEqual(redraws.slice(flushed), [{ areas: ['first'], options: { whole: true } }]);
  await new Promise((resolve) => setTimeout(resolve));
  const after = redraws.slice(flushed + 1).map((r) => r.areas);
  assert.deepEqual(after[0], ['second']);
  assert.ok(after.slice(1).every((areas) => areas.length === 0), 'and nothing is drawn twice');
});

/** A stand-in for a section: what it reads, whether it is near the screen, and the areas it was drawn with. */
function part(reads, visible) {
  const attributes = new Set();
  return {
    reads,
    visible,
    pending: new Set(),
    drawn: [],
    node: {
      toggleAttribute: (name, on) => (on ? attributes.add(name) : attributes.delete(name)),
      removeAttribute: (name) => attributes.delete(name),
      get pendingMark() {
        return attributes.has('data-pending');
      },
    },
  };
}
const update = (p, areas) => p.drawn.push([...areas].sort());

test('parts: those that read a changed area are drawn; one far away remembers it, marked, and catches up near', () => {
  const hand = part(['hand', 'structure'], true);
  const views = part(['views', 'hand'], false);
  const bill = part(['bill'], true);
  const parts = [hand, views, bill];
  assert.equal(drawParts(parts, new Set(['hand']), { update }), false);
  assert.deepEqual(hand.drawn, [['hand']]);
  assert.deepEqual(bill.drawn, [], 'reads no area that changed');
  assert.deepEqual(views.drawn, [], 'far from the screen');
  assert.deepEqual([...views.pending], ['hand']);
  assert.equal(views.node.pendingMark, true);
  drawParts(parts, new Set(['url']), { update });
  assert.deepEqual(views.drawn, [], 'still far: nothing new to it, and it keeps what it missed');
  // It comes near: the redraw that follows (any area, 'catch-up') draws it with what it missed.
  views.visible = true;
  drawParts(parts, new Set(['catch-up']), { update });
  assert.deepEqual(views.drawn, [['catch-up', 'hand']]);
  assert.equal(views.pending.size, 0);
  assert.equal(views.node.pendingMark, false);
  assert.deepEqual(hand.drawn.length, 1, 'a part with nothing missed is left alone');
});

test('parts: drawn everywhere in the first draw and when fresh; past the slice\'s time, kept for the next', () => {
  const near = part(['hand'], true);
  const far = part(['hand'], false);
  const fresh = Object.assign(part(['poems'], false), { fresh: true });
  fresh.pending.add('poems');
  // The first draw: everywhere, but the slice ends after one part; the rest wait, and say so.
  let budget = 1;
  const left = drawParts([near, far, fresh], new Set(['hand']), { everywhere: true, inTime: () => budget-- > 0, update });
  assert.equal(left, true);
  assert.deepEqual([near.drawn, far.drawn], [[['hand']], []]);
  assert.equal(far.node.pendingMark, true);
  assert.equal(fresh.fresh, false, 'fresh once');
  // The next slice draws what waited, far or not.
  assert.equal(drawParts([near, far, fresh], new Set(['catch-up']), { everywhere: true, update }), false);
  assert.deepEqual(far.drawn, [['catch-up', 'hand']]);
  assert.deepEqual(fresh.drawn, [['catch-up', 'poems']]);
  assert.equal(near.drawn.length, 1);
  // A fresh part far from the screen is drawn where it is, once.
  const arrived = Object.assign(part(['gqa'], false), { fresh: true });
  arrived.pending.add('gqa');
  drawParts([arrived], new Set(['catch-up']), { update });
  assert.deepEqual(arrived.drawn, [['catch-up', 'gqa']]);
  drawParts([arrived], new Set(['gqa']), { update });
  assert.equal(arrived.drawn.length, 1, 'then, far away, it waits as any other');
});
