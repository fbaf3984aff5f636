// Benchmark (not a test): what the long tasks of the lesson page and the widget are made of, in Chromium. Each
// scenario is traced from before the page loads until it has drawn (and what the scenario then does), and each task
// of the page's main thread over 50 ms is printed with its wall time, the time the main thread ran in it (on a shared
// machine the wall time also holds other processes' turns: the running time is what a quiet machine would take),
// the trace's events that took it (script, style, layout, paint) and, from a CPU profile, the functions that ran
// longest in it. The probe of the browser tests (tests/browser.js) fails any such task over 100 ms, scaled by the
// machine's slowdown. Function names are the bundle's: build it unminified (esbuild's minify off in web/bundle.js)
// to read them.
// Run: node tests/bench/task-causes.js [a word of a scenario's name, to run those alone]
import { writeFile, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { startBrowserAndServer } from '../browser.js';

const served = await startBrowserAndServer();
const web = fileURLToPath(new URL('../../web/', import.meta.url));
const widgetPage = (body) => `<!doctype html><html lang="zh-CN"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><script type="module" src="/dist/widget.js"></script></head><body>${body}</body></html>`;
const LESSON = `tokens='["猫","吃","鱼"]' q='[[1,1,0,0],[0,2,0,2],[0,0,1,1]]' k='[[1,0,1,0],[0,1,0,1],[1,1,0,0]]' v='[[1,0,1,0],[0,1,0,1],[2,0,0,2]]' heads='2'`;
const matrix = (seed) => JSON.stringify(Array.from({ length: 32 }, (_, r) => Array.from({ length: 64 }, (_, c) => ((r * 7 + c * 13 + seed) % 21) / 10 - 1)));
const files = {
  'bench-tasks-many.html': widgetPage(Array(200).fill(`<multi-head-attention ${LESSON}></multi-head-attention>`).join('\n')),
  'bench-tasks-full.html': widgetPage(`<multi-head-attention q='${matrix(1)}' k='${matrix(2)}' v='${matrix(3)}' heads="64" view="full"></multi-head-attention>`),
};
const lessonDrawn = (page) => page.waitForSelector('html[data-lesson]', { timeout: 180000 });
const widgetsDrawn = async (page) => {
  await page.waitForFunction(() => customElements.get('multi-head-attention'));
  await page.evaluate(async () => {
    await Promise.all([...document.querySelectorAll('multi-head-attention')].map((el) => el.updateComplete));
  });
};
const only = process.argv[2]; // a word of the scenarios' names, to run those alone
const scenarios = [
  { name: 'the lesson page, 1280 px', path: '', width: 1280, ready: lessonDrawn },
  { name: 'the lesson page, 375 px', path: '', width: 375, ready: lessonDrawn },
  { name: 'the lesson page, 1280 px, English, then Chinese with §7 on the screen', path: '?lang=en', width: 1280, ready: lessonDrawn, then: async (page) => {
    await page.locator('#views-section').scrollIntoViewIfNeeded();
    await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 500)));
    await page.click('#lang-switch');
    await page.waitForFunction(() => document.documentElement.lang === 'zh-CN' && document.documentElement.dataset.lesson === 'drawn');
  } },
  { name: 'the lesson page, 1280 px, narrowed to 375 px and back', path: '', width: 1280, ready: lessonDrawn, then: async (page) => {
    for (const width of [375, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 300))));
    }
  } },
  { name: '§10, 1280 px: the poetry model scrolled to, then two lines continued', path: `?pt=${encodeURIComponent('白日依山尽，黄河入海流。\n')}`, width: 1280, ready: lessonDrawn, then: async (page) => {
    await page.locator('#poems-section').scrollIntoViewIfNeeded();
    await page.waitForSelector('#poem-loss-all[data-value]:not([data-value=""])', { timeout: 180000 });
    await page.locator('#poem-continue').scrollIntoViewIfNeeded();
    await page.click('#poem-continue');
    await page.waitForSelector('#poem-added', { timeout: 60000 });
  } },
  { name: '§10 with two heads off: English, then 375 px and back', path: '?phead=5&ppos=8&poff=1.1,1.4', width: 1280, ready: lessonDrawn, then: async (page) => {
    const settle = () => page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 300))));
    await page.locator('#poems-section').scrollIntoViewIfNeeded();
    await page.waitForSelector('#poem-loss-all[data-value]:not([data-value=""])', { timeout: 180000 });
    await settle();
    await page.click('#lang-switch');
    await page.waitForSelector('#poem-loss-all[data-value]:not([data-value=""])', { timeout: 180000 });
    for (const width of [375, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await page.locator('#poem-roles').scrollIntoViewIfNeeded();
      await settle();
    }
  } },
  { name: '200 widgets', path: 'bench-tasks-many.html', width: 1100, ready: widgetsDrawn },
  { name: 'the widget at its largest, view="full", then heads 9-16', path: 'bench-tasks-full.html', width: 1100, ready: widgetsDrawn, then: (page) => page.evaluate(async () => {
    const el = document.querySelector('multi-head-attention');
    el.shadowRoot.querySelector('.head-run button[data-move="next"]').click();
    await el.updateComplete;
  }) },
];

const ms = (microseconds) => `${Math.round(microseconds / 1000)} ms`;
try {
  for (const [name, html] of Object.entries(files)) await writeFile(`${web}${name}`, html);
  for (const scenario of scenarios.filter((s) => !only || s.name.includes(only))) await run(scenario);
} finally {
  for (const name of Object.keys(files)) await rm(`${web}${name}`, { force: true });
  await served.close();
}

async function run({ name, path, width, ready, then }) {
  const context = await served.browser.newContext({ viewport: { width, height: 900 }, hasTouch: width < 500 });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  await served.browser.startTracing(page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline'] });
  await cdp.send('Profiler.start');
  await page.goto(served.baseUrl + path);
  await ready(page);
  await then?.(page);
  await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 1000)));
  const { profile } = await cdp.send('Profiler.stop');
  const { traceEvents } = JSON.parse(await served.browser.stopTracing());
  await context.close();

  const mains = new Set(traceEvents.filter((e) => e.name === 'thread_name' && e.args.name === 'CrRendererMain').map((e) => `${e.pid}/${e.tid}`));
  const onMain = traceEvents.filter((e) => mains.has(`${e.pid}/${e.tid}`) && e.ph === 'X' && e.dur);
  const tasks = onMain.filter((e) => e.name === 'RunTask' && e.dur > 50000);
  // The profile's samples, each with the functions on its stack.
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node);
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  let at = profile.startTime;
  const samples = profile.samples.map((id, i) => ({ node: nodes.get(id), at: (at += profile.timeDeltas[i]) }));
  const label = ({ callFrame: { functionName, url, lineNumber } }) => `${functionName || '(anonymous)'} ${url.split('/').pop()}:${lineNumber + 1}`;
  console.log(`\n${name}: ${tasks.length} tasks over 50 ms, the longest running ${ms(Math.max(0, ...tasks.map((t) => t.tdur ?? 0)))}`);
  for (const task of tasks) {
    const inside = onMain.filter((e) => e !== task && e.ts >= task.ts && e.ts + e.dur <= task.ts + task.dur);
    const events = {};
    for (const e of inside) {
      if (!['FunctionCall', 'TimerFire', 'EvaluateScript', 'v8.evaluateModule', 'UpdateLayoutTree', 'Layout', 'Paint', 'PrePaint', 'MajorGC', 'MinorGC'].includes(e.name)) continue;
      const key = e.name === 'FunctionCall' ? `FunctionCall ${e.args?.data?.functionName || ''}` : e.name;
      events[key] = (events[key] ?? 0) + e.dur;
    }
    const functions = new Map();
    const taken = samples.filter((s) => s.at >= task.ts && s.at <= task.ts + task.dur);
    for (const { node } of taken) {
      const seen = new Set();
      for (let n = node; n; n = parent.get(n)) if (n.callFrame.url && !seen.has(label(n))) seen.add(label(n));
      for (const f of seen) functions.set(f, (functions.get(f) ?? 0) + 1);
    }
    const share = (count) => `${Math.round((100 * count) / Math.max(1, taken.length))} %`;
    console.log(`  a task of ${ms(task.dur)}, running ${ms(task.tdur ?? 0)}: ${Object.entries(events).sort((a, b) => b[1] - a[1]).slice(0, 5).map(([k, v]) => `${k} ${ms(v)}`).join(', ')}`);
    const top = [...functions].sort((a, b) => b[1] - a[1]).slice(0, 6);
    if (top.length) console.log(`    samples in: ${top.map(([f, count]) => `${f} ${share(count)}`).join(', ')}`);
  }
}
