// The training section's loss curve: held-out loss (log scale) against steps, one line per run.
import { el, svgRoot, px } from './svg.js';
import { HEAD_COLORS } from './color.js';

const WIDTH = 420;
const HEIGHT = 220;
const MARGIN = { left: 46, right: 18, top: 26, bottom: 30 }; // right: half the widest step label ("1500") fits
const HIGH = 5;
/** The axis reaches down to 0.001, or to the decade below the smallest loss drawn, but not past FLOOR. */
const LOW = 1e-3;
const FLOOR = 1e-8;
/** A gridline's label: 0.001 and above as written, smaller decades as powers of ten. */
const decadeLabel = (loss) => (loss >= 1e-3 ? String(loss) : `1e${Math.round(Math.log10(loss))}`);
const INK = '#5b5b63';
/** A run's colour by its head count, from the heads' palette: h = 2 is blue like the lesson's first head. */
const RUN_COLORS = { 1: HEAD_COLORS[1], 2: HEAD_COLORS[0], 4: HEAD_COLORS[2] };
export const runColor = (heads) => RUN_COLORS[heads] ?? HEAD_COLORS[3];

/**
 * lossCurve(doc, { runs, maxSteps, title, lossAxis, stepsAxis }): runs are
 * { heads, points: [[step, loss], …], current, label, color? }; the current run is solid, earlier ones dashed;
 * a run is drawn in its h's colour unless it brings its own.
 * Each line is a path.current or path.past with data-heads; the log axis runs from 5 down to 0.001, or lower to
 * hold the smallest loss (to 1e-8, below which a loss is drawn on the axis), a gridline at each power of ten.
 */
export function lossCurve(doc, { runs = [], maxSteps, title = '', lossAxis = '', stepsAxis = '' }) {
  const { left, right, top, bottom } = MARGIN;
  const least = Math.min(LOW, ...runs.flatMap((run) => run.points.map(([, loss]) => loss)).filter((loss) => loss > 0));
  const lo = Math.max(Math.log10(FLOOR), Math.floor(Math.log10(least)));
  const low = Number(`1e${lo}`);
  const hi = Math.log10(HIGH);
  const x = (step) => left + (step / maxSteps) * (WIDTH - left - right);
  const y = (loss) => top + ((hi - Math.log10(Math.min(HIGH, Math.max(low, loss)))) / (hi - lo)) * (HEIGHT - top - bottom);
  const svg = svgRoot(doc, { width: WIDTH, height: HEIGHT, title, className: 'loss-curve' });
  const text = (attrs, content) => el(doc, 'text', { 'font-size': 11, fill: INK, ...attrs }, [content]);
  for (let power = lo; power <= 0; power++) {
    const loss = Number(`1e${power}`);
    svg.appendChild(el(doc, 'line', { x1: left, x2: WIDTH - right, y1: y(loss), y2: y(loss), stroke: '#e3e3e8' }));
    svg.appendChild(text({ x: left - 6, y: y(loss) + 4, 'text-anchor': 'end' }, decadeLabel(loss)));
  }
  svg.appendChild(el(doc, 'line', { x1: left, x2: WIDTH - right, y1: HEIGHT - bottom, y2: HEIGHT - bottom, stroke: '#999' }));
  for (let step = 0; step <= maxSteps; step += maxSteps / 5) {
    svg.appendChild(text({ x: x(step), y: HEIGHT - bottom + 16, 'text-anchor': 'middle' }, String(Math.round(step))));
  }
  svg.appendChild(text({ x: WIDTH - right, y: HEIGHT - 2, 'text-anchor': 'end' }, stepsAxis));
  svg.appendChild(text({ x: 4, y: 14 }, lossAxis));
  const path = (points) => points.map(([step, loss], i) => `${i ? 'L' : 'M'}${px(x(step))},${px(y(loss))}`).join('');
  let legendY = top - 10;
  // Earlier runs first, so the current one is drawn on top.
  for (const run of [...runs.filter((r) => !r.current), ...runs.filter((r) => r.current)]) {
    const color = run.color ?? runColor(run.heads);
    const dash = run.current ? {} : { 'stroke-dasharray': '4 3', opacity: 0.7 };
    svg.appendChild(el(doc, 'path', { d: path(run.points), fill: 'none', stroke: color, 'stroke-width': run.current ? 2.2 : 1.5, ...dash, 'data-heads': run.heads, class: run.current ? 'current' : 'past' }));
    svg.appendChild(el(doc, 'line', { x1: WIDTH - 150, x2: WIDTH - 130, y1: legendY, y2: legendY, stroke: color, 'stroke-width': 2, 'stroke-dasharray': run.current ? 'none' : '4 3' }));
    svg.appendChild(el(doc, 'text', { x: WIDTH - 126, y: legendY + 4, 'font-size': 11, fill: '#333' }, [run.label ?? `h = ${run.heads}`]));
    legendY += 14;
  }
  return svg;
}
