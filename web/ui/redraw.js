// How the page and the widget redraw (README.md here, "The redraw model"): what changed is named as areas, every
// change of one task is drawn once at its end, and a part far from the screen only remembers what it missed.

/**
 * The areas of a state, each a function of it (`watched`: { area: (...state) => value }), compared by fingerprint
 * (JSON): `changes(...state)` returns the areas whose values differ from the last call's (the first from `state`
 * here), in `watched`'s order, and keeps the new ones.
 */
export function areaWatcher(watched, ...state) {
  const fingerprint = (values) => Object.fromEntries(Object.entries(watched).map(([area, read]) => [area, JSON.stringify(read(...values))]));
  let seen = fingerprint(state);
  return function changes(...now) {
    const fingerprints = fingerprint(now);
    const changed = Object.keys(fingerprints).filter((area) => fingerprints[area] !== seen[area]);
    seen = fingerprints;
    return changed;
  };
}

/**
 * One redraw a task: `invalidate(...areas)` gathers areas and, the first time in a task, queues `redraw(areas)` in
 * a microtask, at the end of the task, so that the effect of every event of that task is drawn once, in the very
 * next frame. `flush(options)` redraws now, `redraw(areas, options)` (a microtask already queued still runs, with
 * what is gathered by then); `queued`, to be read only, says whether a redraw waits.
 */
export function redrawLoop(redraw) {
  let dirty = new Set();
  const loop = {
    queued: false,
    invalidate(...areas) {
      areas.forEach(dirty.add, dirty);
      if (!loop.queued) {
        loop.queued = true;
        queueMicrotask(loop.flush);
      }
    },
    flush(options) {
      const areas = dirty;
      dirty = new Set();
      loop.queued = false;
      redraw(areas, options);
    },
  };
  return loop;
}

/**
 * Updates the parts that read any of `areas`, each with them and the areas it missed. A part is { node, reads,
 * pending (a Set), visible, fresh }: one not `visible` (far from the screen) only adds the areas to `pending`,
 * marked `data-pending` on its node, and is drawn once visible and asked again; `everywhere` draws it wherever it
 * is, as does its `fresh` (just made, its first draw). `inTime()` false leaves the rest for a later task (the first
 * draw's slices). `update(part, areas)` draws one. Returns whether a part to be drawn everywhere still waits.
 */
export function drawParts(parts, areas, { everywhere = false, inTime = () => true, update }) {
  let left = false;
  for (const part of parts) {
    const touched = part.reads.filter((area) => areas.has(area));
    const anywhere = everywhere || Boolean(part.fresh);
    part.fresh = false;
    if (!touched.length && !((part.visible || anywhere) && part.pending.size)) continue;
    if ((!part.visible && !anywhere) || !inTime()) {
      for (const area of touched) part.pending.add(area);
      part.node.toggleAttribute('data-pending', true);
      left ||= anywhere;
      continue;
    }
    update(part, new Set([...areas, ...part.pending]));
    part.pending.clear();
    part.node.removeAttribute('data-pending');
  }
  return left;
}
