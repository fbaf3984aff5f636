// §10's views of the poetry model (web/ui/README.md, rule 5): pure functions of its numbers (a forward's, the
// card's, the held-out measure's) and the words `t` (POEMS_TEXT[lang]) to virtual nodes; section.js shows them.
// The views any model's heads share (tiles, the head enlarged, its four steps, the roles table, the next
// characters) are ../heads/head-figures.js's.
import { vh } from '../ui/dom.js';
import { rolesTable } from '../heads/head-figures.js';
import { HEAD_ROLES } from '../heads/roles.js';
import { firstLine } from './runs.js';

/** A head whose switching off changes the held-out loss by less than this is not used, whatever it looks at. */
const NOT_USED_NATS = 0.01;

const signed = (value) => `${value >= 0 ? '+' : '−'}${Math.abs(value).toFixed(3)}`;

/** How token `id` of `vocabulary` is shown: the poem's opening token named, the line break as ↵, a rare character as □. */
export const tokenLabel = (t, vocabulary, id) => (id === 0 ? t.startToken : vocabulary[id] === '\n' ? '↵' : id === 1 ? '□' : vocabulary[id]);

/** A predicted token: the opening token there means the poem ends. */
export const nextLabel = (t, vocabulary, id) => (id === 0 ? t.endToken : tokenLabel(t, vocabulary, id));

/**
 * Head `index`'s roles: on the text (`text`, runs.js's textRoles), on the held-out poems (`heldOut`'s roles, null
 * while measured: `waiting` says how far it has come) and on the fresh test set (`fresh`, the card's), with its
 * name (`label`, a role or null: mixed); then what switching it off costs on the held-out poems by kind of target
 * (the card's `ablation`) and, for a head that looks somewhere clearly yet costs nothing, that attention is not use.
 */
export function poemRolesView(t, { index, heads, text, heldOut, fresh, label, ablation, waiting = null }) {
  const delta = ablation.heads[index];
  return [
    ...rolesTable(t, {
      prefix: 'poem', index, heads, roles: HEAD_ROLES.map(({ name }) => name),
      columns: [
        { title: t.textColumn, where: 'text', measured: { scores: text.heads[index], chance: text.chance, rows: text.rows } },
        { title: t.heldOutColumn, where: 'held-out', measured: heldOut && { scores: heldOut.heads[index], chance: heldOut.chance } },
        fresh && { title: t.freshColumn(fresh.poems), where: 'fresh', measured: { scores: fresh.heads[index], chance: fresh.chance } },
      ].filter(Boolean),
      verdict: { role: label },
      waiting,
    }),
    vh('p', { id: 'poem-ablation', 'data-value': String(delta.all) }, [t.ablation(signed(delta.all), Object.fromEntries(ablation.kinds.map((kind) => [kind, signed(delta[kind])])))]),
    label && Math.abs(delta.all) < NOT_USED_NATS ? vh('p', { id: 'poem-not-use', class: 'note outcome' }, [t.notUse(t.roleNames[label])]) : null,
  ];
}

/**
 * The held-out loss with every head on (`allOn`) and with the `offCount` heads off (`now`), each { loss } or null
 * while measured, beside the card's baselines.
 */
export function lossView(t, { allOn, now, offCount, baselines }) {
  const value = (id, result) => vh('strong', { id, 'data-value': result ? String(result.loss) : '' }, [result ? result.loss.toFixed(3) : t.lossPending]);
  const delta = allOn && now ? now.loss - allOn.loss : null;
  return [
    vh('p', { class: 'poem-loss' }, [
      t.lossAllOn, ' ', value('poem-loss-all', allOn), ` ${t.lossUnit}`,
      ...(offCount ? [' · ', vh('span', { class: 'poem-loss-off' }, [t.lossNow(offCount), ' ', value('poem-loss-now', now), delta === null ? '' : ` (${signed(delta)})`])] : []),
    ]),
    vh('p', { class: 'muted' }, [t.lossBaselines(baselines.bigram.toFixed(3), baselines.kn3.toFixed(3), baselines.kn3ClauseLength.toFixed(3))]),
  ];
}

/** A poem's lines (句): each ends at a ，。？！ or ；. */
export const clauses = (text) => [...text].filter((char) => '，。？！；'.includes(char)).length;

/**
 * The writer's poem (`continuation`: its prompt, what it added, how; null before it writes): written, or being
 * written (or paused after 一步), and where the model ended the poem, what a teacher may want next: a new poem from the text's first
 * line (`on.restart`), or the text written on regardless of the end (`on.pastTheEnd`).
 */
export function continuationView(t, continuation, on = {}) {
  if (!continuation) return [];
  const { done, ended, prompt } = continuation;
  const afterTheEnd = () => [
    vh('p', { id: 'poem-ended', class: 'muted' }, [continuation.count ? t.poemEnded(clauses(prompt + continuation.added)) : t.poemComplete]),
    vh('div', { class: 'controls', id: 'poem-after-end' }, [
      firstLine(prompt) !== prompt ? vh('button', { type: 'button', id: 'poem-restart', onclick: on.restart }, [t.restartFromFirstLine]) : null,
      vh('button', { type: 'button', id: 'poem-past-end', onclick: on.pastTheEnd }, [t.continuePastEnd]),
    ]),
  ];
  return [
    continuation.restarted ? vh('p', { id: 'poem-restarted', class: 'note outcome' }, [t.restarted]) : null,
    vh('p', { class: 'muted' }, [done ? t.continued(continuation.temperature, continuation.seed, continuation.pastTheEnd, continuation.repetition, continuation.offCount)
      : continuation.paused ? t.paused(continuation.count) : t.continuing(continuation.count)]),
    vh('p', { class: 'poem-output' }, [prompt, vh('mark', { id: 'poem-added' }, [continuation.added])]),
    ...(done && ended ? afterTheEnd() : []),
    // Only what was written can be the same again: a poem already whole gets nothing added, however often asked.
    done && continuation.run > 1 && continuation.added ? vh('p', { id: 'poem-again', class: 'muted' }, [t.continuedAgain(continuation.run, continuation.temperature)]) : null,
  ];
}
