// Text cut to what a label may show, counted in grapheme clusters (what a reader sees as one character)
// rather than code units, so that no character is cut in two. One cluster may carry any number of
// combining marks ("a" and 20,000 accents is one): laying out such a stack holds the page for seconds,
// so a cluster keeps only its first few code points too.

/** The most code points one cluster keeps: the longest emoji sequences (a family of four, each with a skin tone) have 11. */
export const CLUSTER_CODE_POINTS = 12;

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** `text` cut to at most `max` clusters, the last of them "…", and each cluster to CLUSTER_CODE_POINTS code points; `text` itself when it fits. */
export function clipText(text, max) {
  // Nothing past this many code units can be shown, so a long text is never segmented further.
  const room = max * CLUSTER_CODE_POINTS * 2;
  let within = text;
  if (text.length > room) within = text.slice(0, /[\ud800-\udbff]/.test(text[room - 1]) ? room - 1 : room); // no half of a pair
  const clusters = Array.from(segmenter.segment(within), ({ segment }) => segment);
  let cut = within !== text;
  const kept = clusters.map((cluster) => {
    const points = Array.from(cluster);
    if (points.length <= CLUSTER_CODE_POINTS) return cluster;
    cut = true;
    return points.slice(0, CLUSTER_CODE_POINTS).join('');
  });
  if (kept.length > max) cut = true;
  return cut ? `${kept.slice(0, max - 1).join('')}…` : text;
}
