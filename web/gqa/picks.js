// The coda's picks when the page starts (ctx.ui.gqa: the learner's own, never in the link). Apart from
// section.js so that the page's first module can start with them without pulling in the coda's code.
export const initialGqaPicks = () => ({ heads: 4, kvHeads: 2, context: 1024 });
