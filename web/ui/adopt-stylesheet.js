// Constructed stylesheets: styles that a strict Content-Security-Policy (style-src 'self', no
// 'unsafe-inline') still allows, unlike <style> elements and style attributes. Shared by the widget's
// shadow root and the training section (in the widget and on the lesson page).

const sheets = new WeakMap(); // document → Map(css text → its CSSStyleSheet)

/**
 * Adds `css` to `scope` (a ShadowRoot or a Document) as a constructed stylesheet, one per document and
 * text, adopted at most once per scope. Returns false where the browser cannot construct stylesheets:
 * the caller then falls back to a <style> element.
 */
export function adoptStylesheet(scope, css) {
  const doc = scope.ownerDocument ?? scope; // a Document's ownerDocument is null
  const View = doc.defaultView;
  if (!View?.CSSStyleSheet || !('adoptedStyleSheets' in scope) || !('replaceSync' in View.CSSStyleSheet.prototype)) return false;
  try {
    let byText = sheets.get(doc);
    if (!byText) sheets.set(doc, (byText = new Map()));
    let sheet = byText.get(css);
    if (!sheet) {
      sheet = new View.CSSStyleSheet();
      sheet.replaceSync(css);
      byText.set(css, sheet);
    }
    if (!scope.adoptedStyleSheets.includes(sheet)) scope.adoptedStyleSheets = [...scope.adoptedStyleSheets, sheet];
    return true;
  } catch {
    return false;
  }
}
