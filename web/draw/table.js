import { formatNumber, matrixGetter } from './svg.js';

/**
 * The numbers of a heatmap or matrix as an HTML table, for screen readers (the page hides it visually).
 * Row and column headers use scope so each number is read with its labels.
 */
export function tableFor(doc, { values, rows, cols, rowLabels = [], colLabels = [], caption = '', corner = '', digits = 2, className = 'sr-only' }) {
  const get = matrixGetter(values, cols);
  const table = doc.createElement('table');
  if (className) table.setAttribute('class', className);
  if (caption) {
    const cap = doc.createElement('caption');
    cap.textContent = caption;
    table.appendChild(cap);
  }
  const head = doc.createElement('thead');
  const headRow = doc.createElement('tr');
  const cornerCell = doc.createElement('th');
  cornerCell.setAttribute('scope', 'col');
  cornerCell.textContent = corner;
  headRow.appendChild(cornerCell);
  for (let c = 0; c < cols; c++) {
    const th = doc.createElement('th');
    th.setAttribute('scope', 'col');
    th.textContent = String(colLabels[c] ?? c + 1);
    headRow.appendChild(th);
  }
  head.appendChild(headRow);
  table.appendChild(head);
  const body = doc.createElement('tbody');
  for (let r = 0; r < rows; r++) {
    const tr = doc.createElement('tr');
    const th = doc.createElement('th');
    th.setAttribute('scope', 'row');
    th.textContent = String(rowLabels[r] ?? r + 1);
    tr.appendChild(th);
    for (let c = 0; c < cols; c++) {
      const td = doc.createElement('td');
      td.textContent = formatNumber(get(r, c), digits);
      tr.appendChild(td);
    }
    body.appendChild(tr);
  }
  table.appendChild(body);
  return table;
}
