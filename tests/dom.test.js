// show() (web/ui/dom.js) patches the real DOM from virtual nodes: by place, skipping a virtual node it
// is handed again, and by key for children keyed with keyBy(), under linkedom.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseHTML } from 'linkedom';
import { vh, show, keyBy, elementCount } from '../web/ui/dom.js';

const { document } = parseHTML('<!doctype html><html><body></body></html>');

/** A grid of rows × cols cells, each <span data-row data-col> holding its value. */
const grid = (rows, cols, value = (r, c) => `${r}${c}`) => vh('div', { class: 'grid' }, Array.from({ length: rows * cols }, (_, i) => {
  const [r, c] = [Math.floor(i / cols), i % cols];
  return vh('span', { 'data-row': r, 'data-col': c }, [value(r, c)]);
}));

const cellsOf = (box) => [...box.querySelectorAll('span')];
const cellAt = (box, r, c) => box.querySelector(`span[data-row="${r}"][data-col="${c}"]`);

test('show() patches in place: a changed number is the same element with new text', () => {
  const box = document.createElement('div');
  show(box, grid(2, 2));
  const before = cellsOf(box);
  show(box, grid(2, 2, (r, c) => (r === 1 && c === 0 ? 'new' : `${r}${c}`)));
  assert.deepEqual(cellsOf(box), before, 'no element was replaced');
  assert.equal(cellAt(box, 1, 0).textContent, 'new');
});

test('a virtual node handed to show() again is skipped: the real one is left as it is', () => {
  const box = document.createElement('div');
  const kept = grid(2, 2);
  show(box, kept);
  cellAt(box, 0, 0).setAttribute('data-mark', 'left alone');
  show(box, kept);
  assert.equal(cellAt(box, 0, 0).getAttribute('data-mark'), 'left alone');
});

test('keyed children: a row and column added keep every other cell\'s element, and removing them takes only theirs', () => {
  const box = document.createElement('div');
  show(box, keyBy(grid(2, 2), ['data-row', 'data-col']));
  const original = new Map(cellsOf(box).map((cell) => [`${cell.dataset.row},${cell.dataset.col}`, cell]));
  show(box, keyBy(grid(3, 3), ['data-row', 'data-col']));
  assert.equal(cellsOf(box).length, 9);
  for (const [place, cell] of original) assert.equal(cellAt(box, ...place.split(',')), cell, `cell ${place} kept`);
  assert.deepEqual(cellsOf(box).map((cell) => cell.textContent), ['00', '01', '02', '10', '11', '12', '20', '21', '22'], 'in reading order');
  show(box, keyBy(grid(2, 2), ['data-row', 'data-col']));
  assert.deepEqual(cellsOf(box), [...original.values()]);
  // Without keys the same growth would have moved the cells: the one at place 2 is now (0, 2).
  show(box, grid(3, 3));
  assert.notEqual(cellAt(box, 1, 0), original.get('1,0'));
});

test('keyed children move with their key, and duplicate keys fall back to patching by place', () => {
  const box = document.createElement('div');
  const list = (keys) => keyBy(vh('ul', {}, keys.map((key) => vh('li', { 'data-key': key }, [key]))), ['data-key']);
  show(box, list(['a', 'b', 'c']));
  const [a, b, c] = box.querySelectorAll('li');
  show(box, list(['c', 'a', 'b']));
  assert.deepEqual([...box.querySelectorAll('li')], [c, a, b]);
  show(box, list(['a', 'a']));
  assert.deepEqual([...box.querySelectorAll('li')].map((li) => li.textContent), ['a', 'a']);
  assert.equal(box.querySelectorAll('li')[0], c, 'patched by place');
});

test('elementCount says how many elements a virtual node makes when shown, before it is', () => {
  const node = grid(3, 4);
  assert.equal(elementCount(node), 13);
  const box = document.createElement('div');
  show(box, node);
  assert.equal(box.querySelectorAll('*').length, 13);
  assert.equal(elementCount('text'), 0);
});
