import { HttpError } from '../../kernel/errors.ts';

/** Event Tickets' archive headers (exact casing as the original registers them). */
export function etTotalHeaders(total: number, totalPages: number): Record<string, string> {
  return { 'X-ET-TOTAL': String(total), 'X-ET-TOTAL-PAGES': String(totalPages) };
}

/** ET archives answer a page past the end with 400 (TEC's with 404). */
export const invalidPage = () => new HttpError(400, 'invalid-page-number', 'The page number requested is larger than the number of pages available.');
