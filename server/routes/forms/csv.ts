/**
 * CSV for spreadsheets: RFC 4180 quoting, CRLF rows, a UTF-8 byte-order mark (so spreadsheet programs read
 * the text as UTF-8), and formula injection neutralised: a cell that starts with `=`, `+`, `-`, `@`, a tab or
 * a carriage return gets a leading apostrophe, so a spreadsheet shows it as text instead of evaluating it.
 */

export const BOM = '\uFEFF';

export function neutralise(cell: string): string {
  return /^[=+\-@\t\r]/.test(cell) ? `'${cell}` : cell;
}

export function quote(cell: string): string {
  return `"${cell.replace(/"/g, '""')}"`;
}

export function toCsv(rows: readonly (readonly string[])[]): string {
  return `${BOM + rows.map((r) => r.map((c) => quote(neutralise(c))).join(',')).join('\r\n')}\r\n`;
}
