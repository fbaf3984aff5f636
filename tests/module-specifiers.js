// What a JavaScript module names, read from its source, for the tests of the module graph (layers.test.js,
// package.slow.test.js): the modules it imports and the files it names with new URL('…', import.meta.url), the
// form bundlers follow (a worker, a wasm core, a model file). A specifier computed at run time cannot be read.

// A line of a comment (// …, /* … */, JSDoc's * …): its examples are not dependencies.
const COMMENT_LINE = /^\s*(?:\/\/|\/\*|\*).*$/gm;

const IMPORT_FORMS = [
  /^\s*(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]/gm, // import … from '…', export … from '…'
  /^\s*import\s*['"]([^'"]+)['"]/gm, // import '…'
  /\bimport\(\s*(?:\/\*[^]*?\*\/\s*)*['"`]([^'"`$]+)['"`]\s*\)/g, // import('…'), after comments such as /* @vite-ignore */
];
const URL_FORM = /\bnew\s+URL\(\s*['"`]([^'"`$]+)['"`]\s*,\s*import\.meta\.url\s*\)/g;

/** { imports, urls }: the specifiers of a module's imports, and the URLs it resolves against its own. */
export function moduleSpecifiers(source) {
  const code = source.replace(COMMENT_LINE, '');
  const found = (form) => [...code.matchAll(form)].map(([, specifier]) => specifier);
  return { imports: IMPORT_FORMS.flatMap(found), urls: found(URL_FORM) };
}
