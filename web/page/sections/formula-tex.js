// What §5 typesets, as TeX: the paper's two equations, and the symbols listed under them (web/page/text.js
// gives each symbol's TeX, the same in both languages). web/tools/bundle.js typesets them with KaTeX when the page
// is built, so the browser gets their HTML and never KaTeX's code (web/page/sections/formula.js shows it).
import { TEXT } from '../text.js';

/** A part of the formula that lights its part of the pipeline: formula.js finds it by the class sym-<name>. */
const sym = (name, tex) => `\\htmlClass{sym sym-${name}}{${tex}}`;

/**
 * The two equations, each a display of its own. A narrow screen breaks them after the = or after a comma
 * of an argument list (\allowbreak), never inside a symbol: on a phone they wrap instead of being cut off.
 */
export const EQUATIONS = [
  `${sym('multihead', '\\text{MultiHead}')}(${sym('q', 'Q,K,V')}) = ${sym('concat', '\\text{Concat}')}(${sym('head', '\\text{head}_1')},\\allowbreak\\dots,\\allowbreak ${sym('head', `\\text{head}_{${sym('h', 'h')}}`)})\\,${sym('wo', 'W^O')}`,
  `${sym('head', '\\text{head}_i')} = ${sym('attention', '\\text{Attention}')}(Q${sym('wq', 'W_i^Q')},\\allowbreak\\; K${sym('wk', 'W_i^K')},\\allowbreak\\; V${sym('wv', 'W_i^V')})`,
];

/** Every symbol's TeX, in either language. */
export const SYMBOLS = [...new Set(Object.values(TEXT).flatMap((text) => Object.values(text.formula.symbols).map(([tex]) => tex)))];
