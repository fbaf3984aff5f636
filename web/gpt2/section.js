import { h, fill, show } from '../ui/dom.js';
import { numberField, uniqueId, wholeNumbers } from '../ui/controls.js';
import { tileCanvases } from '../ui/section.js';
import { layerHead, offKey, existingOff, offIndices, withHeadOff, mergedPositions, mergedAttention } from '../heads/heads.js';
import { clearRole } from '../heads/roles.js';
import { tilesBox, enlargedBox, roleWord, headTile, enlargedHead, nextTokens } from '../heads/head-figures.js';
import { gpt2Roles } from './roles.js';
import { gpt2RolesView, tokensView, generationView } from './views.js';
import { openGpt2File, GPT2_TOKEN_LIMIT } from './source.js';
import { GPT2_EXAMPLES, GPT2_FILE_PAGE, GPT2_FILE_URL, GPT2_MIRROR_URL } from './examples.js';
import { headRun, headRunNote } from '../ui/drawn-heads.js';
import { errorSentence } from '../shared/errors.js';
import { SEED_MAX } from '../shared/lesson.js';

/**
 * The tiles drawn at once: whole layers, up to GPT-2 small's 144 heads (so its heads, and distilgpt2's, show
 * whole), so that a file with thousands of heads draws, and switches heads off, in the time GPT-2's take.
 */
const MAX_TILES = 144;
const tilesPerRun = (heads) => (heads >= MAX_TILES ? MAX_TILES : Math.floor(MAX_TILES / heads) * heads);
/** A layer's tiles fill a row, wrapping after this many. */
const MAX_TILE_COLUMNS = 16;
/** Tiles drawn (their roles measured, their pictures painted) per frame: each is a layer the frame hands over. */
const TILES_PER_FRAME = 8;
/** The generation's temperature slider. */
const TEMPERATURE = { min: 0, max: 1.5, step: 0.1 };

/** §10's GPT-2 picks (UI-only: a teacher's file cannot be in the URL, so neither is anything about it). */
export const initialGpt2Picks = () => ({
  text: GPT2_EXAMPLES.find(({ name }) => name === 'nameMover').text,
  head: 0,
  position: null, // null: the last token
  off: [],
  first: 0, // the first head whose tile is drawn (tilesPerRun at a time)
  file: null, // { name, size } of the file opened
  load: null, // { read, size } while reading, 'ready', or { failed: code }
  running: false,
  result: 0, // counts results, so a new one redraws
  hashed: false, // the file's SHA-256 has come (store.sha256), so it redraws
  temperature: 0, // the generation's (0: the likeliest token each step)
  seed: 1,
  count: 20, // tokens to generate
  generated: 0, // counts the generation's steps drawn, so each redraws
});

// Kept across the page's rebuilds (a language switch; ctx.keep): the worker, the model's shape, the file's SHA-256
// (null while it is computed, '' when it could not be), the last result, errors, the generation (generationView's
// `gen`) and how many were asked for. As it is before a file is opened:
const noFile = () => ({ client: null, config: null, sha256: null, result: null, loadError: null, runError: null, sent: '', generation: null, generations: 0 });

const mb = (bytes) => (bytes / 1e6).toFixed(0);

/**
 * §10's GPT-2 part (web/real-heads/section.js shows it): a file picked or dropped, read in a worker; its heads on
 * a typed sentence. `picks()` and `pick(mutate)` read and change its UI-only state.
 */
export function gpt2Part(ctx, { picks, pick }) {
  const t = ctx.text.gpt2;
  const store = ctx.keep('gpt2', noFile);
  // The views' words: the poetry model's, with GPT-2's own where they differ (its roles, its sentence).
  const words = { ...ctx.text.poems, ...t };
  const inputId = uniqueId('gpt2-file');
  const fileInput = h('input', { type: 'file', id: inputId, accept: '.safetensors', onchange: (e) => e.target.files[0] && open(e.target.files[0]) });
  const link = (href) => h('a', { href, target: '_blank', rel: 'noopener' }, [href]); // the lesson stays open
  const get = t.getFile;
  const drop = h('div', { class: 'gpt2-drop', id: 'gpt2-drop' }, [
    h('p', { class: 'muted' }, [t.lead]),
    h('details', { id: 'gpt2-get' }, [
      h('summary', {}, [get.title]),
      h('ol', {}, [
        h('li', {}, [get.hub, ' ', link(GPT2_FILE_PAGE), ' ', get.direct, ' ', link(GPT2_FILE_URL)]),
        h('li', {}, [get.mirror, ' ', link(GPT2_MIRROR_URL), ' ', get.usb]),
        h('li', {}, [get.check]),
      ]),
      h('p', {}, [get.others]),
    ]),
    h('p', { id: 'gpt2-privacy' }, [t.privacy]),
    h('p', {}, [h('label', { for: inputId, class: 'field' }, [h('span', {}, [t.pick]), fileInput]), ' ', t.drop]),
  ]);
  // The whole box takes a dropped file; dragover must be cancelled for the drop to arrive.
  drop.addEventListener('dragover', (event) => {
    event.preventDefault();
    drop.classList.add('dragging');
  });
  drop.addEventListener('dragleave', () => drop.classList.remove('dragging'));
  drop.addEventListener('drop', (event) => {
    event.preventDefault();
    drop.classList.remove('dragging');
    const file = event.dataTransfer?.files?.[0];
    if (file) open(file);
  });
  const status = h('div', { id: 'gpt2-status', 'aria-live': 'polite' });
  const body = h('div', { id: 'gpt2-body', hidden: true });
  const node = h('div', { id: 'gpt2-part' }, [drop, status, body]);
  let controls = null;
  let tilesFrame = 0; // the frame that draws the next slice of tiles
  let generationFrame = 0; // the frame that draws the generation's latest step: one redraw a frame, however fast the steps come
  const errorsShown = new WeakMap(); // box → the error it shows (showError)

  function open(file) {
    cancelAnimationFrame(tilesFrame);
    store.client?.close();
    Object.assign(store, noFile());
    controls = null;
    fill(body, []);
    body.hidden = true;
    pick((p) => Object.assign(p, { file: { name: file.name, size: file.size }, load: { read: 0, size: file.size }, off: [], first: 0, head: 0, position: null, running: false, hashed: false }));
    const client = openGpt2File(file, (message) => {
      if (store.client !== client) return; // a newer file replaced this one
      if (message.type === 'progress') pick((p) => (p.load = { read: message.read, size: message.size }));
      else if (message.type === 'ready') {
        Object.assign(store, { config: message.config });
        pick((p) => (p.load = 'ready'));
      } else if (message.type === 'sha256') {
        store.sha256 = message.sha256;
        pick((p) => (p.hashed = true));
      } else if (message.type === 'result') {
        store.result = message;
        store.runError = null;
        pick((p) => Object.assign(p, { running: false, result: p.result + 1 }));
      } else if (message.type === 'step' || message.type === 'generated') {
        took(message);
      } else if (message.type === 'error' && message.during === 'load') {
        client.close();
        store.client = null;
        store.loadError = message;
        pick((p) => (p.load = { failed: message.code }));
      } else if (message.type === 'error') {
        if (message.during === 'generate' && store.generation) store.generation.done = true;
        store.runError = message;
        pick((p) => Object.assign(p, { running: false, result: p.result + 1 }));
      }
    });
    store.client = client;
  }

  /** A step of the generation asked for last, or its end, gathered into store.generation and drawn at the next frame. */
  function took(message) {
    const gen = store.generation;
    if (message.key !== gen?.key) return;
    if (message.type === 'generated') Object.assign(gen, { done: true, stopped: message.stopped, total: message.total });
    else Object.assign(gen, { prompt: message.prompt, ids: message.ids, tokens: message.tokens, rows: message.rows, steps: gen.steps + 1, ms: gen.ms + message.ms, forwardMs: message.forwardMs, reused: message.reused });
    generationFrame ||= requestAnimationFrame(() => {
      generationFrame = 0;
      pick((p) => (p.generated += 1));
    });
  }

  /** GPT-2 writes on from the sentence, in its worker, with the heads switched off; a generation under way stops for it. */
  function generate() {
    const { text, temperature, seed, count } = picks();
    const key = String((store.generations += 1));
    const off = currentOff();
    store.generation = { key, prompt: 0, ids: [], tokens: [], rows: null, steps: 0, ms: 0, forwardMs: 0, reused: 0, done: false, stopped: false, temperature, seed, offCount: off.length, count, total: null };
    store.client.generate({ key, text, count, temperature, seed, off });
    pick((p) => (p.generated += 1));
  }

  /** The switched-off heads that exist in this model, each once. */
  const currentOff = () => existingOff(picks().off, store.config);

  /** Asks the worker for the current text and heads off, unless that is what it last computed or is computing. */
  function request() {
    const off = currentOff();
    const key = `${offKey(off)}|${picks().text}`;
    if (store.sent === key) return;
    store.sent = key;
    store.client.run({ key, text: picks().text, off });
    if (!picks().running) pick((p) => (p.running = true));
  }

  /** The tokens this page reads: GPT2_TOKEN_LIMIT, or the model's context when that is shorter. */
  const readLimit = () => Math.min(GPT2_TOKEN_LIMIT, store.config.context);

  /** How many tokens the sentence in the box makes, once the worker has read it (null until then). */
  function sentenceTokens() {
    const { result } = store;
    return result && result.key.slice(result.key.indexOf('|') + 1) === picks().text ? result.total : null;
  }

  /** The most tokens generate may write now: what the sentence leaves of readLimit() (0: none), or all but one. */
  function room() {
    const total = sentenceTokens();
    return total === null ? readLimit() - 1 : Math.max(0, readLimit() - total);
  }

  /** 'gpt2' or 'distilgpt2' when the file has one of their shapes (the GPT-2s that fit here), else null. */
  function knownModel() {
    const { layers, heads, dModel, vocabSize } = store.config;
    return (heads === 12 && dModel === 768 && vocabSize === 50257 && { 12: 'gpt2', 6: 'distilgpt2' }[layers]) || null;
  }

  function modelName() {
    const known = knownModel();
    return known ? `${t.known[known]} · ${picks().file.name}` : picks().file.name;
  }

  /** An example's sentence, read from its last token, with its head enlarged when the file is GPT-2 small. */
  function pickExample({ text, head }) {
    const inSmall = head && knownModel() === 'gpt2';
    pick((p) => Object.assign(p, { text, position: null }, inSmall ? { head: head[0] * store.config.heads + head[1], first: 0 } : {}));
  }

  function buildControls() {
    const { layers, heads } = store.config;
    const textId = uniqueId('gpt2-text');
    const text = h('textarea', { id: textId, rows: 3, spellcheck: 'false', oninput: (e) => pick((p) => (p.text = e.target.value)) });
    const position = h('select', { id: 'gpt2-position', onchange: (e) => pick((p) => (p.position = Number(e.target.value))) });
    const parts = {
      text, position,
      toggles: [], // the run's switches (buildRun)
      tileNodes: [], // the tiles shown, as virtual nodes, and the first head of their run (drawTiles)
      tilesRun: null,
      model: h('p', { id: 'gpt2-model' }),
      sha256: h('p', { id: 'gpt2-sha256' }),
      examples: GPT2_EXAMPLES.map((example) => h('button', { type: 'button', 'data-example': example.name, onclick: () => pickExample(example) }, [t.examples[example.name].label])),
      exampleNote: h('p', { class: 'muted', id: 'gpt2-example-note', 'aria-live': 'polite' }),
      tokens: h('div', { id: 'gpt2-tokens' }),
      mergedNote: h('p', { class: 'muted', id: 'gpt2-merged-tiles' }),
      took: h('p', { class: 'muted', id: 'gpt2-took', 'aria-live': 'polite' }),
      runError: h('div', { id: 'gpt2-run-error' }),
      run: h('div', { class: 'controls', id: 'gpt2-run' }),
      paintTile: tileCanvases(GPT2_TOKEN_LIMIT),
      tiles: tilesBox('gpt2-tiles', t.tilesTitle(layers * heads), Math.min(heads, MAX_TILE_COLUMNS)),
      big: enlargedBox('gpt2-big', (position) => pick((p) => (p.position = position))),
      roles: h('div', { id: 'gpt2-roles' }),
      off: h('fieldset', { class: 'choice gpt2-off', id: 'gpt2-off' }),
      prediction: h('div', { id: 'gpt2-prediction' }),
      temperatureLabel: h('span', {}),
      temperature: h('input', { type: 'range', id: uniqueId('gpt2-temperature'), ...TEMPERATURE, value: picks().temperature, oninput: (e) => pick((p) => (p.temperature = Number(e.target.value))) }),
      generate: h('button', { type: 'button', id: 'gpt2-generate', onclick: generate }, [t.generateButton]),
      stop: h('button', { type: 'button', id: 'gpt2-stop', onclick: () => store.client.stop() }, [t.stopButton]),
      room: h('p', { class: 'muted', id: 'gpt2-room', 'aria-live': 'polite' }),
      generation: h('div', { id: 'gpt2-generation' }),
    };
    const refused = (key) => (from, to) => ctx.text.wholeRange(from, to, picks()[key]);
    // Lesson mode shows these in five screens (data-screen), as the poetry part's four: the sentence as GPT-2
    // reads it; every head; one head enlarged; its roles and heads switched off; the writer beside its cache.
    const screen = (n, nodes) => nodes.map((node) => (node.setAttribute('data-screen', String(n)), node));
    fill(body, [
      ...screen(1, [
        parts.model,
        parts.sha256,
        h('div', { class: 'controls', id: 'gpt2-examples', role: 'group', 'aria-label': t.examplesTitle }, [h('span', {}, [t.examplesTitle]), ...parts.examples]),
        parts.exampleNote,
        h('label', { class: 'field wide', for: textId }, [h('span', {}, [t.textLabel]), text]),
        parts.tokens,
        parts.took,
      ]),
      parts.runError,
      ...screen(5, [
        h('h3', {}, [t.generateTitle]),
        h('p', { class: 'muted' }, [t.generateNote]),
        h('div', { class: 'controls', id: 'gpt2-generate-controls' }, [
          h('label', { class: 'field wide', for: parts.temperature.id }, [parts.temperatureLabel, parts.temperature]),
          numberField({ label: words.seed, value: picks().seed, min: 0, max: SEED_MAX, id: 'gpt2-seed', notANumber: ctx.text.notANumber,
            refuse: wholeNumbers(0, SEED_MAX, refused('seed')), onInput: (v) => pick((p) => (p.seed = v)) }),
          // Up to the room the sentence leaves; with none, up to what an empty one would (the note says to shorten it).
          numberField({ label: t.countLabel, value: picks().count, min: 1, max: readLimit() - 1, id: 'gpt2-count', notANumber: ctx.text.notANumber,
            refuse: wholeNumbers(1, () => room() || readLimit() - 1, refused('count')), onInput: (v) => pick((p) => (p.count = v)) }),
          parts.generate,
          parts.stop,
        ]),
        parts.room,
        parts.generation,
      ]),
      ...screen(2, [
        h('h3', {}, [t.tilesTitle(layers * heads)]),
        h('p', { class: 'muted' }, [t.tilesNote]),
        parts.mergedNote,
        parts.run,
        parts.tiles,
      ]),
      ...screen(3, [
        h('label', { class: 'field wide', for: 'gpt2-position' }, [h('span', {}, [words.position]), position]),
        parts.big,
      ]),
      ...screen(4, [
        parts.roles,
        parts.off,
        parts.prediction,
      ]),
    ]);
    body.hidden = false;
    return parts;
  }

  /** The note naming the heads drawn, with buttons to the runs beside, and the run's switches, one line per layer. */
  function buildRun(shown) {
    const { layers, heads } = store.config;
    const total = layers * heads;
    const count = tilesPerRun(heads);
    const name = (i) => words.offToggle(...layerHead(i, heads));
    fill(controls.run, headRunNote(document, {
      heads: total, shown, count, words: ctx.text.views.drawnHeads,
      note: (from, to) => t.tilesRun(total, count, name(from - 1), name(to - 1)),
      onMove: (first) => pick((p) => Object.assign(p, { first, head: first })),
      ids: { back: 'gpt2-heads-back', next: 'gpt2-heads-next' },
    }) ?? []);
    controls.toggles = shown.map((i) => h('input', { type: 'checkbox', id: `gpt2-off-${layerHead(i, heads).join('-')}`, 'data-index': i,
      onchange: (e) => pick((p) => (p.off = withHeadOff(p.off, layerHead(i, heads), e.target.checked))) }));
    const line = (layer) => h('div', { class: 'gpt2-off-layer' }, controls.toggles.filter((input) => Math.floor(Number(input.dataset.index) / heads) === layer)
      .map((input) => h('label', { class: 'check', for: input.id }, [input, h('span', {}, [name(Number(input.dataset.index))])])));
    const shownLayers = [...new Set(shown.map((i) => Math.floor(i / heads)))];
    fill(controls.off, [h('legend', {}, [words.offTitle]), h('p', { class: 'muted' }, [t.offNote]), ...shownLayers.map(line)]);
  }

  /**
   * `error` in `box` as the learner's `sentence`, the core's own words (English) folded away under it for a
   * developer; or nothing, with `error` null. Left alone while the error stays, so an opened fold stays open.
   */
  function showError(box, error, sentence, id) {
    if (errorsShown.get(box) === error) return;
    errorsShown.set(box, error);
    fill(box, error ? h('div', { class: 'error', role: 'alert', 'data-code': error.code }, [
      h('p', { id }, [sentence]),
      h('details', { class: 'technical' }, [h('summary', {}, [t.technical]), h('code', { lang: 'en', class: 'error-message' }, [`${error.code}: ${error.message}`])]),
    ]) : []);
  }

  function showStatus() {
    const { load, file } = picks();
    if (store.loadError) {
      const { code } = store.loadError;
      return showError(status, store.loadError, `${(t.badFile[code] ?? t.badFile.other)(file.name)} ${t.pageWorks}`, 'gpt2-error-sentence');
    }
    errorsShown.delete(status);
    if (load && typeof load === 'object') {
      const label = load.read ? t.reading(mb(load.read), mb(load.size)) : t.starting;
      return fill(status, h('p', { class: 'muted' }, [label, ' ', h('progress', { max: load.size || 1, value: load.read, 'aria-label': label })]));
    }
    return fill(status, []);
  }

  /**
   * The tiles of the heads `shown`, TILES_PER_FRAME a frame, each slice's roles measured as it is drawn; until
   * a tile is drawn again it shows what it showed. The picked head is result.drawnHead.
   */
  function drawTiles(result, shown) {
    cancelAnimationFrame(tilesFrame);
    const { heads } = store.config;
    const { tiles: box, paintTile } = controls;
    const offHeads = offIndices(currentOff(), heads);
    const { groups } = result.merged;
    // The same heads' tiles stay until redrawn; another run's go at once.
    if (controls.tilesRun !== shown[0]) Object.assign(controls, { tilesRun: shown[0], tileNodes: [] });
    const tiles = controls.tileNodes;
    const slice = (from) => {
      const part = shown.slice(from, from + TILES_PER_FRAME);
      const roles = gpt2Roles(result.ids, result.punctuation, part.map((i) => result.attention[i]));
      part.forEach((i, n) => {
        tiles[from + n] = headTile(words, {
          index: i, heads, pressed: i === result.drawnHead, onPick: (head) => pick((p) => (p.head = head)),
          picture: paintTile(from + n, { weights: mergedAttention(result.attention[i], result.ids.length, groups), length: groups.length, off: offHeads.has(i) }),
          role: roleWord(words, clearRole(roles.heads[n], roles.chance)),
        });
      });
      show(box, tiles);
      box.dataset.drawn = String(from + part.length);
      if (from + part.length < shown.length) tilesFrame = requestAnimationFrame(() => slice(from + part.length));
    };
    slice(0);
  }

  return {
    node,
    update() {
      showStatus();
      if (!store.config || !store.client) return;
      controls ??= buildControls();
      const { text, running } = picks();
      if (controls.text.value !== text) controls.text.value = text;
      controls.model.textContent = t.model(modelName(), mb(picks().file.size), store.config, readLimit());
      const digest = store.sha256 ?? 'computing';
      if (controls.sha256.dataset.value !== digest) {
        controls.sha256.dataset.value = digest;
        fill(controls.sha256, store.sha256 === null ? [h('span', { class: 'muted' }, [t.sha256Computing])]
          : store.sha256 ? [t.sha256, ' ', h('code', {}, [store.sha256]), ' ', h('small', { class: 'muted' }, [t.sha256Note])]
          : []);
      }
      const example = GPT2_EXAMPLES.find((candidate) => candidate.text === text);
      controls.examples.forEach((button) => button.setAttribute('aria-pressed', String(button.dataset.example === example?.name)));
      controls.exampleNote.textContent = example ? t.examples[example.name].note : '';
      const off = currentOff();
      const { layers, heads } = store.config;
      const shown = headRun(layers * heads, tilesPerRun(heads), picks().first);
      if (controls.run.dataset.key !== String(shown[0])) {
        controls.run.dataset.key = String(shown[0]);
        buildRun(shown);
      }
      const offHeads = offIndices(off, heads);
      controls.toggles.forEach((input) => (input.checked = offHeads.has(Number(input.dataset.index))));
      request();
      showError(controls.runError, store.runError, store.runError && errorSentence(ctx.text, store.runError), 'gpt2-run-error-sentence');
      const result = store.result;
      // The rows kept are those of the forward drawn: with heads off, theirs.
      controls.took.textContent = running ? t.running : result ? t.took(Math.round(result.ms), result.reused[result.top.now ? 'now' : 'all']) : '';
      if (result) Object.assign(controls.took.dataset, { reusedNow: result.reused.now ?? '', reusedAll: result.reused.all ?? '' });
      const { temperature } = picks();
      controls.temperatureLabel.textContent = t.temperature(temperature);
      if (Number(controls.temperature.value) !== temperature) controls.temperature.value = String(temperature);
      const generation = store.generation;
      controls.stop.disabled = !generation || generation.done;
      // Said before Generate is pressed: how much room the sentence leaves; with none, the button waits for a shorter one.
      const total = sentenceTokens();
      controls.room.textContent = total === null ? '' : t.room(total, readLimit(), picks().count);
      Object.assign(controls.room.dataset, { total: total ?? '', room: total === null ? '' : room() });
      controls.generate.disabled = total !== null && room() === 0;
      const picked = shown.includes(picks().head) ? picks().head : shown[0];
      show(controls.generation, generation ? generationView(words, generation, { index: picked, heads, config: store.config, limit: readLimit() }) : []);
      if (!result) return;
      // The tiles and the enlarged head read a character's byte tokens as one position (mergedAttention).
      result.merged ??= mergedPositions(result.labels, result.characters);
      controls.mergedNote.textContent = result.characters.length ? t.mergedTiles : '';
      if (controls.tokens.dataset.key !== result.key) {
        controls.tokens.dataset.key = result.key;
        show(controls.tokens, tokensView(words, result));
      }
      // The head picked, or the run's first when it is not among the heads drawn.
      const selected = picked;
      if (controls.tiles.dataset.key !== `${result.key}|${shown[0]}`) {
        controls.tiles.dataset.key = `${result.key}|${shown[0]}`;
        result.drawnHead = selected;
        drawTiles(result, shown);
      }
      const labels = result.labels;
      const row = picks().position === null ? labels.length - 1 : Math.min(picks().position, labels.length - 1);
      if (result.drawnHead !== selected) {
        result.drawnHead = selected;
        controls.tiles.querySelectorAll('.poem-tile').forEach((tile) => tile.setAttribute('aria-pressed', String(Number(tile.dataset.index) === selected)));
      }
      if (controls.position.dataset.key !== labels.join('\u0001')) {
        controls.position.dataset.key = labels.join('\u0001');
        fill(controls.position, labels.map((label, i) => h('option', { value: i }, [words.positionOption(i, label)])));
      }
      controls.position.value = String(row);
      // Drawn again only when what they show changed: not for each step of a generation, say.
      const shownKey = `${result.key}|${selected}|${row}|${off.length}|${ctx.lang}`;
      if (controls.big.dataset.key === shownKey) return;
      controls.big.dataset.key = shownKey;
      const { groups, labels: mergedLabels, of } = result.merged;
      show(controls.big, enlargedHead(words, { prefix: 'gpt2', index: selected, heads, weights: mergedAttention(result.attention[selected], labels.length, groups), labels: mergedLabels, row: of[row], off: offHeads.has(selected) }));
      show(controls.roles, gpt2RolesView(words, { index: selected, heads, ids: result.ids, punctuation: result.punctuation, weights: result.attention[selected] }));
      show(controls.prediction, nextTokens(words, { prefix: 'gpt2', row, label: labels[row], allOn: result.top.all[row], now: result.top.now?.[row], offCount: off.length }));
    },
  };
}
