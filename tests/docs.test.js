// The READMEs stay true. Every command they give (a line of a ```sh block, continuations joined, or an inline
// `npm …`, `npx …`, `node …`, `bash …`, `gzip …`, `cp …`, `clang …` span) has an entry below naming the test that
// runs it and what that test's source holds to run it; a command a README gains without an entry fails here, as
// does an entry whose test no longer holds it. The few that no test can run (an hour of training, the benchmarks)
// say why, and their program must still be there. Every link between the READMEs must land on a file, and on a
// heading of it when it names one.
import test from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** Every README.md of the repository, as paths from its root (installed packages and built files left out). */
function readmes(folder = '') {
  return readdirSync(join(root, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = folder ? `${folder}/${entry.name}` : entry.name;
    if (entry.isDirectory()) return ['node_modules', '.git', 'dist', 'artifacts', 'corpus'].includes(entry.name) ? [] : readmes(path);
    return entry.name === 'README.md' ? [path] : [];
  });
}

const COMMAND_SPAN = /`((?:npm|npx|node|bash|gzip|cp|clang) [^`\n]+)`/g;

/** The commands a README gives: its ```sh blocks' lines (comments dropped, continuations joined) and inline spans. */
export function documentedCommands(markdown) {
  const commands = [];
  for (const [, block] of markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)) {
    for (const line of block.replace(/\\\n\s*/g, ' ').split('\n')) {
      const command = line.replace(/\s+#.*$/, '').trim();
      if (command) commands.push(command);
    }
  }
  const prose = markdown.replace(/^```[\s\S]*?^```$/gm, '');
  for (const [, command] of prose.matchAll(COMMAND_SPAN)) commands.push(command.trim());
  return commands;
}

/**
 * How each command is run: `test` (a file of tests/, or .ci/run, which CI runs) holds `holds`, the form in which it
 * runs the command; or `notRun`, why no test runs it (`program` must exist).
 */
const RUN_BY = [
  { command: /^npm start$/, test: 'tests/start.slow.test.js', holds: "spawn('npm', ['start']" },
  { command: /^npm start: PORT must be/, test: 'tests/serve.test.js', holds: 'PORT must be a whole number' },
  { command: /^npm test$/, test: '.ci/run', holds: 'npm test' },
  { command: /^npm ci$/, test: '.ci/run', holds: 'npm ci' },
  { command: /^bash \.ci\/run$/, test: '.ci/run', holds: 'bash tests/install-tools.sh' },
  { command: /^npm run test:quick$/, test: 'tests/quick.js', holds: "'--test'" },
  { command: /^node --test tests\/$/, test: 'package.json', holds: '"test": "node --test tests/"' },
  { command: /^bash build\.sh( \[?(wasm|native|web|--if-needed)\]?)*$/, test: 'tests/build.slow.test.js', holds: 'build.sh' },
  { command: /^npm run build$/, test: 'package.json', holds: '"build": "bash build.sh"' },
  { command: /^npm pack$/, test: 'tests/package.slow.test.js', holds: "'pack'" },
  { command: /^clang .* -o fuzz_(api|model) /, test: 'tests/fuzzers.slow.test.js', holds: "'c/README.md'" },
  { command: /^npm install \.\/multihead-attention-lesson-[\d.]+\.tgz$/, test: 'tests/clients.js', holds: '`./${basename(tarball)}`' },
  { command: /^python3 -m http\.server$/, test: 'tests/static-sites.browser.test.js', holds: 'servePython(' },
  { command: /^npx vite( build)?$/, test: 'tests/bundlers.browser.test.js', holds: "[viteCli, 'build']" },
  { command: /^npx webpack --mode production$/, test: 'tests/bundlers.browser.test.js', holds: "[webpackCli, '--mode', 'production']" },
  { command: /^gzip -9 -c web\/dist\/widget\.js \| wc -c$/, test: 'tests/widget.test.js', holds: 'gzipSync(readFileSync(widget), { level: 9 })' },
  { command: /^node web\/poems\/build\/train\.js --reproduce$/, test: 'tests/poems-training.slow.test.js', holds: 'reproduce(dir, tool)' },
  { command: /^node web\/poems\/build\/variants\.js$/, notRun: 'reads all of 全唐诗 and Debian\'s Unihan; the table it writes is committed and corpus.test.js checks the corpus built with it', program: 'web/poems/build/variants.js' },
  { command: /^npm ci --prefix web\/poems\/build$/, test: 'package.json', holds: '"precorpus": "npm ci --prefix web/poems/build' },
  { command: /^npm run corpus$/, notRun: 'downloads 全唐诗 (85 MB) into its own install; corpus.test.js checks the summary it committed', program: 'web/poems/build/corpus.js' },
  { command: /^node web\/poems\/build\/card-measures\.js$/, notRun: 'rewrites the committed card; poems.test.js computes the same measures and checks the card holds them', program: 'web/poems/build/card-measures.js' },
  { command: /^npm run train-model$/, notRun: 'trains for hours; poems-training.slow.test.js repeats the short reproduction run', program: 'web/poems/build/train.js' },
  { command: /^(mkdir -p web\/poems\/build\/run && )?nohup npm run train-model( -- --resume)? >>? web\/poems\/build\/run\/train\.log 2>&1 &$/, notRun: 'the 3.3-hour run and its resumption; poems-training.slow.test.js stops the tool (at a step, and by SIGTERM) and resumes it to the same bytes', program: 'web/poems/build/train.js' },
  { command: /^(grep pid web\/poems\/build\/run\/train\.log|kill -TERM N)$/, notRun: 'stops the long run; poems-training.slow.test.js sends the tool SIGTERM' },
  { command: /^npm run bench$/, notRun: 'a benchmark prints figures and is never a timed test', program: 'tests/bench/core.js' },
  { command: /^node tests\/bench\/gpt2\.js$/, test: 'tests/fuzzers.slow.test.js', holds: "'tests/bench/gpt2.js'" },
  { command: /^node tests\/bench\/[\w-]+\.js( \d+)?$/, notRun: 'a benchmark prints figures and is never a timed test' },
];

/** The npm script or file a command needs, when it names one. */
function programOf(command) {
  const script = command.match(/^npm (?:run )?([\w:-]*\w)/)?.[1];
  if (script && !['install', 'ci', 'pack'].includes(script)) return { script };
  const file = command.match(/^(?:node|bash) ((?:[\w.-]+\/)*[\w.-]+\.(?:js|sh))/)?.[1] ?? command.match(/^bash (\.ci\/run)/)?.[1];
  return file ? { file } : null;
}

const documented = readmes().flatMap((file) => documentedCommands(readFileSync(join(root, file), 'utf8')).map((command) => ({ file, command })));

test('the READMEs give commands, and each has a way it is run', () => {
  assert.ok(documented.length >= 20, `${documented.length} commands found`);
  for (const { file, command } of documented) {
    const entry = RUN_BY.find((e) => e.command.test(command));
    assert.ok(entry, `${file}: no test is named for \`${command}\` (add it to RUN_BY in tests/docs.test.js, with the test that runs it)`);
    if (entry.test) {
      const source = readFileSync(join(root, entry.test), 'utf8');
      assert.ok(source.includes(entry.holds), `${file}: \`${command}\` is said to run in ${entry.test}, which no longer holds ${entry.holds}`);
    }
    const program = programOf(command);
    if (program?.script) assert.ok(program.script in manifest.scripts, `${file}: \`${command}\` needs the npm script ${program.script}`);
    if (program?.file) assert.ok(existsSync(join(root, program.file)), `${file}: \`${command}\` needs ${program.file}`);
    if (entry.program) assert.ok(existsSync(join(root, entry.program)), `${entry.program} is there`);
  }
});

test('every entry of RUN_BY is still a command some README gives', () => {
  for (const entry of RUN_BY) assert.ok(documented.some(({ command }) => entry.command.test(command)), `no README gives ${entry.command}`);
});

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
const anchorOf = (heading) => heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');

test('every link between the READMEs lands on a file, and on a heading when it names one', () => {
  for (const file of readmes()) {
    const text = readFileSync(join(root, file), 'utf8').replace(/^```[\s\S]*?^```$/gm, '');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target)) continue; // a web address
      const [path, anchor] = target.split('#');
      const landing = path ? join(dirname(join(root, file)), path) : join(root, file);
      assert.ok(existsSync(landing), `${file} links to ${target}: no such file`);
      if (!anchor) continue;
      const headings = [...readFileSync(landing, 'utf8').matchAll(/^#{1,6} (.+)$/gm)].map(([, heading]) => anchorOf(heading));
      assert.ok(headings.includes(anchor), `${file} links to ${target}: ${relative(root, landing)} has no heading #${anchor}`);
    }
  }
});
