import { h, vh, fill, show } from '../ui/dom.js';
import { numberField, uniqueId, wholeNumbers } from '../ui/controls.js';
import { errorBox, partsNearScreen, keptDrawings, tileCanvases } from '../ui/section.js';
import { legend } from '../draw/index.js';
import { layerHead, offKey, existingOff, offIndices, withHeadOff } from '../heads/heads.js';
import { tilesBox, enlargedBox, roleWord, headTile, enlargedHead, nextTokens, headSteps, heaviestKey, bringIntoView } from '../heads/head-figures.js';
import { cacheView } from '../heads/cache-view.js';
import { EXPLAIN_WORDS } from '../shared/figure-labels.js';
import { UNKNOWN_ID } from './vocabulary.js';
import { loadPoems, inputIds, maxTextLength, modelTextLength, fittingText, runText, textRoles, Continuation, firstLine, firstPosition, WRITER } from './runs.js';
import { labelRole } from '../heads/roles.js';
import { topNext } from '../heads/next-tokens.js';
import { heldOutMeasurer } from './held-out.js';
import { poemRolesView, lossView, continuationView, tokenLabel as tokenLabelOf, nextLabel as nextLabelOf } from './views.js';
import { SEED_MAX } from '../shared/lesson.js';
import { SLICE_MS } from '../ui/slices.js';
const TEMPERATURE = { min: 0, max: 1.5, step: 0.1 };
/**
 * The most of a typed text the section keeps, in characters: past the 63 the model reads and the 256 a link
 * holds, so that both can say what they left out. A pasted megabyte kept whole was gone over by every redraw
 * (its notes, the link, the page's change check), 130–420 ms a step of a continuation.
 */
const TYPED_TEXT_MAX = 1024;
/** A typed text cut to TYPED_TEXT_MAX characters, never reading past twice as many code units. */
const keptText = (value) => Array.from(value.slice(0, 2 * TYPED_TEXT_MAX)).slice(0, TYPED_TEXT_MAX).join('');

/**
 * A paste longer than the box keeps is put in by the page, cut first: the browser's own taking of a pasted
 * megabyte into a text box held the page 80–260 ms before any input event. A shorter one is left to the
 * browser (its undo stack included).
 */
function pasteKept(event) {
  const pasted = event.clipboardData?.getData('text/plain') ?? '';
  if (pasted.length <= TYPED_TEXT_MAX) return;
  event.preventDefault();
  const box = event.target;
  const before = box.value.slice(0, box.selectionStart);
  box.value = keptText(before + pasted.slice(0, 2 * TYPED_TEXT_MAX) + box.value.slice(box.selectionEnd));
  box.dispatchEvent(new Event('input', { bubbles: true }));
}

/** The part's pickers and progress (UI-only state): loading, measuring, generation. */
export const initialPoemPicks = () => ({
  load: null, // { received, total } while downloading, 'building', 'ready' or { failed: code }
  heldOut: null, // { key, done, total } of the held-out pass in progress
  temperature: WRITER.temperature,
  seed: WRITER.seed,
  repetition: true, // the writer's repetition rule (runs.js Continuation's `repetition`)
  continuation: null, // { prompt, added, temperature, seed, repetition, off (offKey), offCount, pastTheEnd, restarted, done, paused, ended, count, run, steps, stepping (asked by 一步) } of the last continuation
  key: null, // { index, row, key }: the key the four steps show for head index at row, else the row's heaviest
});

/**
 * §10's poetry part (web/real-heads/section.js shows it): a small GPT trained on Tang poems, its heads shown,
 * measured, switched off, and made to write. `picks()` and `pick(mutate)` read and change its UI-only state,
 * `redraw()` draws it again.
 */
export function poemsPart(ctx, { picks, pick, redraw }) {
  const t = ctx.text.poems;
  // Kept across the page's rebuilds (a language switch): the model and its twin (see twin()), the held-out
  // results by switched-off set, their measurer (held-out.js) and the set it is measuring; the writer's
  // continuation (`writer`: { settings, continuation }), which 一步 and 写完 go on with.
  const store = ctx.keep('poems', () => ({ loading: null, poems: null, twin: null, error: null, heldOut: new Map(), measurer: null, measuring: null, writer: null }));
  const status = h('div', { id: 'poems-status', 'aria-live': 'polite' });
  const body = h('div', { id: 'poems-body', hidden: true });
  const node = h('div', { id: 'poems-part' }, [h('p', {}, [t.lead]), status, body]);
  let continuing = 0; // the timer of the continuation's next slice
  let analysis = null; // the current text's forwards: { key, run, allOn, roles }, the roles measured when first shown
  let controls = null;
  let tileWords = null; // each tile's role, in words
  let stepsAt = null; // { index, row } of the four steps shown: the key picker's choice belongs to them
  // The figures and numbers below the text are drawn only near the screen: typing redraws what is seen.
  const nearScreen = partsNearScreen(redraw);
  // And only when what they show changed: not for each step of the held-out measure's progress, say.
  const drawing = keptDrawings();

  // The model is fetched once the section comes near the screen, not with the page.
  const approach = new IntersectionObserver((entries) => {
    if (entries.some((entry) => entry.isIntersecting)) startLoading();
  }, { rootMargin: '300px 0px' });
  approach.observe(node);

  function startLoading() {
    approach.disconnect();
    if (store.loading) return;
    pick((p) => (p.load = { received: 0, total: 0 }));
    store.loading = loadPoems(ctx.mha, (received, total) => pick((p) => (p.load = { received, total })))
      .then((poems) => {
        store.poems = poems;
        pick((p) => (p.load = 'ready'));
        // The held-out measure starts once the page is idle, wherever the learner has scrolled meanwhile: the
        // table far below waits for it, and should not wait for the learner to come back first.
        (globalThis.requestIdleCallback ?? setTimeout)(() => scheduleHeldOut(currentOff()));
      }, (error) => {
        store.error = error;
        pick((p) => (p.load = { failed: error.code ?? 'LOAD_FAILED' }));
      });
  }

  /**
   * Each head's role by number, or null (mixed): named by labelRole from the card's scores on the fresh test
   * set, with every head on (the same whatever is switched off now). A card that build/train.js wrote afresh,
   * before build/card-measures.js has added the fresh set's scores, names them by the held-out poems' instead.
   */
  function headLabels() {
    const { headRoles } = store.poems.card;
    const scores = headRoles.fresh ?? headRoles;
    return scores.heads.map((head) => labelRole(head, scores.chance));
  }

  /** The switched-off heads that exist in this model, each once. */
  const currentOff = () => existingOff(ctx.state.poems.off, store.poems.model.config);

  function poemIndex() {
    const count = store.poems.card.heldOut.poems.length;
    return Math.min(ctx.state.poems.poem, count - 1);
  }

  /** The text analysed: the typed one or the chosen poem's lines that fit, at most maxTextLength. */
  function currentText() {
    const { text } = ctx.state.poems;
    const source = text ?? fittingText(store.poems, store.poems.card.heldOut.poems[poemIndex()].body);
    return Array.from(source).slice(0, maxTextLength(store.poems)).join('');
  }

  const tokenLabel = (id) => tokenLabelOf(t, store.poems.vocabulary, id);
  const nextLabel = (id) => nextLabelOf(t, store.poems.vocabulary, id);
  const continuationText = (ids) => ids.map((id) => store.poems.vocabulary[id]).join('');

  /** Measures the held-out poems with every head on, then with the current heads off (off the main thread). */
  function scheduleHeldOut(off) {
    const wanted = [[], off].find((set) => !store.heldOut.has(offKey(set)));
    if (!wanted) return;
    // The measure with every head on is never replaced; one with heads off gives way to the newest set.
    if (store.measuring !== null && (store.measuring === offKey(wanted) || store.measuring === '')) return;
    store.measuring = offKey(wanted);
    store.measurer ??= heldOutMeasurer(store.poems, {
      onProgress: (key, done, total) => key === store.measuring && pick((p) => (p.heldOut = { key, done, total })),
      onResult: (key, result) => {
        store.heldOut.set(key, result);
        if (key === store.measuring) store.measuring = null;
        pick((p) => (p.heldOut = null));
        redraw();
      },
    });
    store.measurer.measure(store.measuring, wanted);
  }

  /**
   * A second instance of the model for the forwards with every head on, beside those with heads off: each
   * instance's forward keeps what the text shares with its own last one, which one instance switching its
   * heads on and off at every keystroke would never do. The model itself until the twin has loaded.
   */
  function twin() {
    store.twin ??= (store.poems.file ? ctx.mha.loadModel(store.poems.file) : ctx.mha.loadPoemModel().then((poems) => poems.model))
      .then((model) => (store.twin = model), () => (store.twin = store.poems.model));
    return store.twin instanceof Promise ? store.poems.model : store.twin;
  }

  /** The forwards of the text, kept while it and the heads stay; with the logits when the predictions are drawn. */
  function analyse(ids, off, { logits }) {
    const key = `${offKey(off)}|${ids.join()}`;
    const enough = (run) => !logits || run?.logits != null;
    if (analysis?.key === key && enough(analysis.run) && enough(analysis.allOn)) return analysis;
    const run = runText(store.poems, ids, off, { logits });
    // With heads off, the predictions are compared with every head on: that forward runs only for them (kept
    // while only the heads change), on the twin.
    const kept = analysis?.allOn?.ids.join() === ids.join() && enough(analysis.allOn) ? analysis.allOn : null;
    const allOn = !off.length ? run : kept ?? (logits ? runText(store.poems, ids, [], { logits, model: twin() }) : null);
    analysis = { key, run, allOn, roles: null };
    return analysis;
  }

  /**
   * Writes the text on as a poem (the writer's verse rules, and its repetition rule if switched on);
   * `pastTheEnd`: on past where the poem would end. A text that is already a whole poem gets nothing added:
   * then a new poem is written from its first line instead, and the page says so (`restarted`). `most`: it pauses
   * after that many characters; `resume` (一步, 写完): it goes on with the paused continuation of the same settings,
   * written past the end or not, if any; and a whole poem is not replaced by a new one: the page says it is
   * whole and offers both ways on.
   */
  function continueText({ pastTheEnd = false, restarted = false, most = Infinity, resume = false } = {}) {
    clearTimeout(continuing);
    const { temperature, seed, repetition } = picks();
    const prompt = currentText();
    const off = currentOff();
    const settings = JSON.stringify([prompt, temperature, seed, repetition, offKey(off)]);
    const kept = resume && store.writer?.settings === settings && !store.writer.continuation.finished ? store.writer : null;
    if (kept) pastTheEnd = kept.continuation.pastTheEnd;
    const continuation = kept?.continuation
      ?? new Continuation(store.poems, ctx.mha, { ids: inputIds(store.poems, prompt), off, temperature, seed, pastTheEnd, verse: true, repetition, rows: true });
    store.writer = { settings, continuation };
    // The same settings again write the same text: `run` counts such runs, so that each is seen to happen.
    const last = picks().continuation;
    const same = last?.done && last.prompt === prompt && last.temperature === temperature && last.seed === seed && last.repetition === repetition
      && last.off === offKey(off) && last.pastTheEnd === pastTheEnd;
    const run = kept ? last?.run ?? 1 : same ? last.run + 1 : 1;
    let left = most;
    const work = () => {
      const before = continuation.added.length;
      const finished = continuation.advance(SLICE_MS, left);
      left -= continuation.added.length - before;
      const paused = !finished && left <= 0;
      if (finished && continuation.ended && !continuation.added.length && !pastTheEnd && !resume && firstLine(prompt) !== prompt) {
        ctx.set((s) => (s.poems.text = firstLine(prompt)));
        return continueText({ restarted: true, most: left });
      }
      const added = continuationText(continuation.added);
      // Said only of what is seen: a run that came out otherwise would count from 1 again.
      const runs = finished && run > 1 && added !== last.added ? 1 : run;
      pick((p) => (p.continuation = { prompt, added, temperature, seed, repetition, off: offKey(off), offCount: off.length, pastTheEnd, restarted, done: finished, paused, ended: continuation.ended,
        count: continuation.added.length, run: runs, steps: continuation.last?.steps ?? 0, stepping: most === 1 }));
      if (!finished && !paused) continuing = setTimeout(work);
    };
    work();
  }

  function buildControls() {
    const { layers, heads } = store.poems.model.config;
    const textId = uniqueId('poem-text');
    const text = h('textarea', { id: textId, rows: 4, spellcheck: 'false', onpaste: pasteKept, oninput: (e) => ctx.set((s) => (s.poems.text = keptText(e.target.value))) });
    const menu = h('select', { id: 'poem-menu', onchange: (e) => ctx.set((s) => Object.assign(s.poems, { poem: Number(e.target.value), text: null })) },
      [...store.poems.card.heldOut.poems.map(({ title, author }, i) => h('option', { value: i }, [t.poemOption(title, author)])),
        h('option', { value: 'own', hidden: true, disabled: true }, [t.ownLines])]); // what it says while the lines are the learner's
    const toggles = [];
    const offBox = h('fieldset', { class: 'choice poem-off', id: 'poem-off', style: { '--heads': heads } }, [
      h('legend', {}, [t.offTitle]),
      ...Array.from({ length: layers * heads }, (_, i) => {
        const [layer, head] = layerHead(i, heads);
        const id = `poem-off-${layer}-${head}`;
        const input = h('input', { type: 'checkbox', id, 'data-layer': layer, 'data-head': head,
          onchange: (e) => ctx.set((s) => (s.poems.off = withHeadOff(s.poems.off, [layer, head], e.target.checked))) });
        toggles.push(input);
        return h('label', { class: 'check', for: id }, [input, h('span', {}, [t.offToggle(layer, head)])]);
      }),
    ]);
    // Every head the card names a role for, by role: one button switches them all off, beside those off already.
    const byRole = new Map();
    headLabels().forEach((role, i) => {
      if (role) byRole.set(role, [...(byRole.get(role) ?? []), layerHead(i, heads)]);
    });
    const allOn = h('button', { type: 'button', id: 'poem-all-on', onclick: () => ctx.set((s) => (s.poems.off = [])) }, [t.allOn]);
    const roleSwitches = h('div', { class: 'controls', id: 'poem-off-roles' }, [...[...byRole].map(([role, found]) => h('button', {
      type: 'button', 'data-role': role, onclick: () => ctx.set((s) => (s.poems.off = found.reduce((off, head) => withHeadOff(off, head, true), s.poems.off))),
    }, [t.offRole(t.roleNames[role], found.length)])), allOn]);
    // The card's guided examples: a poem, a head and a position where one way of looking is plain to see. The
    // head they enlarge is far below the buttons: the page goes to it.
    const guided = h('div', { class: 'controls', id: 'poem-guided', role: 'group', 'aria-label': t.guidedTitle }, [
      h('span', {}, [t.guidedTitle]),
      ...store.poems.card.guided.map(({ role, index, poem, position }) => {
        const { title, body } = store.poems.card.heldOut.poems[poem];
        const char = [...fittingText(store.poems, body)][position - 1];
        return h('button', { type: 'button', 'data-role': role, onclick: () => {
          ctx.set((s) => Object.assign(s.poems, { poem, text: null, off: [], head: index, position }));
          bringIntoView(controls.big);
        } }, [t.guided(t.roleNames[role], title, char)]);
      }),
    ]);
    const position = h('select', { id: 'poem-position', onchange: (e) => ctx.set((s) => (s.poems.position = Number(e.target.value))) });
    const temperatureLabel = h('span');
    const temperatureId = uniqueId('poem-temperature');
    const temperature = h('input', { type: 'range', id: temperatureId, ...TEMPERATURE, value: picks().temperature, oninput: (e) => pick((p) => (p.temperature = Number(e.target.value))) });
    const repetition = h('input', { type: 'checkbox', id: 'poem-repetition', checked: picks().repetition, onchange: (e) => pick((p) => (p.repetition = e.target.checked)) });
    const parts = {
      text, menu, toggles, allOn, position, temperature, temperatureLabel, repetition,
      clipped: h('p', { class: 'muted', id: 'poem-clipped' }),
      unknown: h('p', { class: 'muted', id: 'poem-unknown' }),
      paintTile: tileCanvases(store.poems.model.config.context),
      tiles: tilesBox('poem-tiles', t.tilesTitle, heads),
      big: enlargedBox('poem-big', (position) => ctx.set((s) => (s.poems.position = position))),
      key: h('select', { id: 'poem-key', onchange: (e) => pick((p) => (p.key = { ...stepsAt, key: Number(e.target.value) })) }),
      steps: h('div', { id: 'poem-steps' }),
      roles: h('div', { id: 'poem-roles' }),
      loss: h('div', { id: 'poem-loss' }),
      prediction: h('div', { id: 'poem-prediction' }),
      continuation: h('div', { id: 'poem-continuation', 'aria-live': 'polite' }),
      cache: h('div', { id: 'poem-cache' }),
    };
    // Lesson mode shows these in six screens (data-screen), each at the size a projector needs: the poem and
    // every head; one head enlarged; its four steps; its roles; heads switched off and what that costs; the writer.
    const screen = (n, nodes) => nodes.map((node) => (node.setAttribute('data-screen', String(n)), node));
    fill(body, [
      ...screen(1, [
        // Two groups, so that lesson mode can set the tiles beside the poem they read.
        h('div', { class: 'poem-pick' }, [
          h('div', { class: 'controls' }, [
            h('label', { class: 'field wide', for: 'poem-menu' }, [h('span', {}, [t.poemMenu]), menu]),
            h('label', { class: 'field wide', for: textId }, [h('span', {}, [t.textLabel]), text]),
          ]),
          guided,
          parts.clipped,
          parts.unknown,
        ]),
        h('div', { class: 'poem-tiles-part' }, [
          h('h3', {}, [t.tilesTitle]),
          h('p', { class: 'muted' }, [t.tilesNote]),
          parts.tiles,
          legend(document, { scale: 'weights', id: 'poem-weights', title: ctx.text.hand.weightLegend, steps: 16 }),
        ]),
      ]),
      ...screen(2, [
        h('label', { class: 'field wide', for: 'poem-position' }, [h('span', {}, [t.position]), position]),
        parts.big,
      ]),
      ...screen(3, [
        parts.steps,
        h('label', { class: 'field wide', for: 'poem-key' }, [h('span', {}, [t.stepsKey]), parts.key]),
      ]),
      ...screen(4, [parts.roles]),
      ...screen(5, [
        h('h3', {}, [t.offTitle]),
        offBox,
        roleSwitches,
        parts.loss,
        parts.prediction,
      ]),
      ...screen(6, [
        h('h3', {}, [t.continueTitle]),
        h('p', { class: 'muted' }, [t.continueNote]),
        h('p', { class: 'muted', id: 'poem-form-rules' }, [t.formRules(WRITER.temperature, WRITER.seed)]),
        h('div', { class: 'controls' }, [
          h('label', { class: 'field wide', for: temperatureId }, [temperatureLabel, temperature]),
          numberField({ label: t.seed, value: picks().seed, min: 0, max: SEED_MAX, id: 'poem-seed', notANumber: ctx.text.notANumber,
            refuse: wholeNumbers(0, SEED_MAX, (from, to) => ctx.text.wholeRange(from, to, picks().seed)), onInput: (v) => pick((p) => (p.seed = v)) }),
          h('button', { type: 'button', id: 'poem-continue', onclick: () => continueText() }, [t.continueButton]),
          h('button', { type: 'button', id: 'poem-step', onclick: () => continueText({ most: 1, resume: true }) }, [t.stepButton]),
          h('button', { type: 'button', id: 'poem-to-end', onclick: () => continueText({ resume: true }) }, [t.toEndButton]),
        ]),
        h('p', { class: 'muted' }, [t.stepNote]),
        h('div', { class: 'controls poem-repetition' }, [
          h('label', { class: 'check', for: 'poem-repetition' }, [repetition, h('span', {}, [t.repetitionSwitch])]),
        ]),
        ...(store.poems.card.repetition ? [h('p', { class: 'muted', id: 'poem-repetition-note' }, [t.repetitionNote(store.poems.card.repetition)])] : []),
        parts.continuation,
        h('div', { class: 'poem-cache-part' }, [h('h3', {}, [t.cache.title]), h('p', { class: 'muted' }, [t.cache.note]), parts.cache]),
        h('p', { class: 'muted' }, [t.card(store.poems.card.heldOut.targets, store.poems.card.heldOut.poems.length)]),
      ]),
    ]);
    body.hidden = false;
    nearScreen.watch(parts.tiles, parts.big, parts.steps, parts.roles, parts.prediction);
    return parts;
  }

  function showStatus() {
    const { load, heldOut } = picks();
    if (store.error) return fill(status, errorBox(ctx.text, store.error));
    if (load === null) return fill(status, h('p', { class: 'muted' }, [t.waiting]));
    const progress = (label, value, max) => h('p', { class: 'muted' }, [label, ' ', h('progress', { max, value, 'aria-label': label })]);
    if (typeof load === 'object' && load.received < load.total) {
      const mb = (bytes) => (bytes / 2 ** 20).toFixed(1);
      return fill(status, progress(t.loading(mb(load.received), mb(load.total)), load.received, load.total));
    }
    if (typeof load === 'object' && load.total === 0) return fill(status, progress(t.downloading)); // no size known yet
    if (!store.poems) return fill(status, progress(t.building));
    if (heldOut) return fill(status, progress(t.measuring(heldOut.done, heldOut.total), heldOut.done, heldOut.total));
    // Asked for, but its worker has not reported yet (it is still loading its own core and model).
    if (store.measuring !== null) return fill(status, progress(t.measuringStart));
    return fill(status, []);
  }

  function drawTiles(result, verdicts, selected) {
    const { heads } = store.poems.model.config;
    const off = currentOff();
    const offHeads = offIndices(off, heads);
    show(controls.tiles, drawing('tiles', [result, verdicts, selected, off], () => result.attention.map((weights, i) => headTile(t, {
      index: i, heads, pressed: i === selected, onPick: (head) => ctx.set((s) => (s.poems.head = head)),
      picture: controls.paintTile(i, { weights, length: result.length, off: offHeads.has(i) }),
      role: verdicts ? verdicts[i] : t.measuringShort,
    }))));
  }

  function drawBig(result, labels, selected, row, off) {
    const { heads } = store.poems.model.config;
    show(controls.big, drawing('big', [result, selected, row, off], () => enlargedHead(t, { prefix: 'poem', index: selected, heads, weights: result.attention[selected], labels, row, role: headLabels()[selected], off })));
  }

  /** The four steps of the selected head at `row`, from the core's q and k, to the key picked or the heaviest; `off`: it is switched off. */
  function drawSteps(result, labels, selected, row, off) {
    const { heads, dModel } = store.poems.model.config;
    const weights = result.attention[selected];
    const L = result.length;
    const picked = picks().key;
    const key = picked?.index === selected && picked.row === row && picked.key <= row ? picked.key : heaviestKey(weights, L, row);
    stepsAt = { index: selected, row };
    show(controls.key, drawing('keys', [result, selected, row], () => labels.slice(0, row + 1).map((label, j) => vh('option', { value: j }, [t.keyOption(j, label, weights[row * L + j].toFixed(3))]))));
    controls.key.value = String(key);
    show(controls.steps, drawing('steps', [result, selected, row, key, off], () => headSteps(t, EXPLAIN_WORDS[ctx.lang], {
      prefix: 'poem', index: selected, heads, dModel, labels, row, key, qkv: result.qkv[Math.floor(selected / heads)], weights, off,
    })));
  }

  /**
   * The roles on the text and, once measured, on the held-out poems, which give the verdict; until then the table
   * says it waits for the measure, and how far it has come.
   */
  function drawRoles(roles, heldOut, selected, off) {
    const held = heldOut?.roles;
    const progress = picks().heldOut;
    const measuring = !held && (progress?.key === offKey(off) ? progress : { done: 0, total: 0 });
    const { card } = store.poems;
    show(controls.roles, drawing('roles', [roles, heldOut, selected, measuring], () => poemRolesView(t, {
      index: selected, heads: store.poems.model.config.heads, text: roles, heldOut: held, fresh: card.headRoles.fresh,
      label: headLabels()[selected], ablation: card.ablation,
      waiting: measuring && { text: t.heldOutWaiting(card.heldOut.poems.length, measuring.done, measuring.total), ...measuring },
    })));
  }

  function drawLoss(off) {
    const allOn = store.heldOut.get('') ?? null;
    const now = off.length ? store.heldOut.get(offKey(off)) ?? null : null;
    show(controls.loss, lossView(t, { allOn, now, offCount: off.length, baselines: store.poems.card.baselines }));
  }

  function drawPrediction({ run, allOn }, labels, row, off) {
    const { vocabSize } = store.poems.model.config;
    const top = (result) => topNext(result.logits, row, vocabSize).map(({ id, p }) => ({ id, p, label: nextLabel(id) }));
    show(controls.prediction, drawing('prediction', [run, allOn, row, off], () => nextTokens(t, {
      prefix: 'poem', row, label: labels[row], allOn: top(allOn), now: off.length ? top(run) : null, offCount: off.length,
    })));
  }

  function drawContinuation() {
    const { continuation, temperature } = picks();
    if (controls.temperatureLabel.textContent !== t.temperature(temperature)) controls.temperatureLabel.textContent = t.temperature(temperature);
    if (Number(controls.temperature.value) !== temperature) controls.temperature.value = String(temperature);
    controls.repetition.checked = picks().repetition;
    show(controls.continuation, continuationView(t, continuation, {
      // Asked of a poem 一步 found whole, both ways on go a step at a time too, so the cache grows in view.
      restart: () => {
        ctx.set((s) => (s.poems.text = firstLine(continuation.prompt)));
        continueText({ most: continuation.stepping ? 1 : Infinity });
      },
      pastTheEnd: () => { // on from the poem as it stands, written part and all
        ctx.set((s) => (s.poems.text = continuation.prompt + continuation.added));
        continueText({ pastTheEnd: true, most: continuation.stepping ? 1 : Infinity });
      },
    }));
    drawCache();
  }

  /** The writer's last step for the head picked: its query against the rows the cache holds, and what it cost. */
  function drawCache() {
    const last = store.writer?.continuation.last;
    if (!last?.rows || !picks().continuation) return show(controls.cache, [vh('p', { class: 'muted', id: 'poem-cache-empty' }, [t.cache.empty])]);
    const { layers, heads, dModel, vocabSize } = store.poems.model.config;
    const index = Math.min(ctx.state.poems.head, layers * heads - 1);
    const row = last.rows[index];
    show(controls.cache, [
      ...cacheView(t, { prefix: 'poem', step: last.steps, index, heads, config: { layers, dModel, vocabSize }, reused: last.reused, full: last.full,
        entries: last.ids.map((id, i) => ({ label: tokenLabel(id), weight: row[i] })) }),
      last.slid ? vh('p', { class: 'note outcome', id: 'poem-cache-slid' }, [t.cache.slid]) : null,
    ]);
  }

  return {
    node,
    update() {
      showStatus();
      if (!store.poems) return;
      controls ??= buildControls();
      const text = currentText();
      const typed = ctx.state.poems.text;
      if (typed === null && controls.text.value !== text) controls.text.value = text;
      if (typed !== null && controls.text.value !== typed) controls.text.value = typed;
      controls.menu.value = typed === null ? String(poemIndex()) : 'own';
      // What the page does not analyse is said: a typed text past its length, or a chosen poem's lines that do not fit.
      const max = maxTextLength(store.poems);
      const read = modelTextLength(store.poems);
      const lines = (poem) => poem.split('\n').filter(Boolean).length;
      const body = store.poems.card.heldOut.poems[poemIndex()].body;
      controls.clipped.textContent = typed !== null
        ? (Array.from(typed).length > max ? t.clipped(max, read) : '')
        : (lines(text) < lines(body) ? t.fitted(lines(text), lines(body), max, read) : '');
      const unknown = inputIds(store.poems, text).filter((id) => id === UNKNOWN_ID).length;
      const known = store.poems.vocabulary.length - 2; // less the start and unknown tokens
      controls.unknown.textContent = unknown ? t.unknown(unknown, known) : '';
      const off = currentOff();
      const { layers, heads } = store.poems.model.config;
      const offHeads = offIndices(off, heads);
      controls.toggles.forEach((input, i) => (input.checked = offHeads.has(i)));
      controls.allOn.disabled = !offHeads.size;
      scheduleHeldOut(off);
      showStatus();

      const ids = inputIds(store.poems, text);
      const labels = ids.map(tokenLabel);
      const { head, position } = ctx.state.poems;
      const selected = Math.min(head, layers * heads - 1);
      const row = position === null ? firstPosition(store.poems, ids) : Math.min(position, ids.length - 1);
      show(controls.position, labels.map((label, i) => vh('option', { value: i }, [t.positionOption(i, label)])));
      controls.position.value = String(row);
      const heldOut = store.heldOut.get(offKey(off));
      // The figures and tables away from the screen wait until they come near; the forward runs only when
      // one of them shows it.
      const [tiles, big, steps, roles, prediction] = [controls.tiles, controls.big, controls.steps, controls.roles, controls.prediction].map((part) => nearScreen.draws(part, { anyway: ctx.drawingEverything }));
      if (tiles || big || steps || roles || prediction) {
        const current = analyse(ids, off, { logits: prediction });
        const { run } = current;
        // One array for the part's life: the tiles are drawn again only when what they show changes.
        if (tiles) drawTiles(run, tileWords ??= headLabels().map((role) => roleWord(t, role)), selected);
        const selectedOff = offIndices(off, heads).has(selected); // the enlarged head and its steps say so
        if (big) drawBig(run, labels, selected, row, selectedOff);
        if (steps) drawSteps(run, labels, selected, row, selectedOff);
        if (roles) drawRoles(current.roles ??= textRoles(store.poems, run), heldOut, selected, off);
        if (prediction) drawPrediction(current, labels, row, off);
      }
      drawLoss(off);
      drawContinuation();
    },
    dispose() {
      approach.disconnect();
      nearScreen.disconnect();
      clearTimeout(continuing);
    },
  };
}
