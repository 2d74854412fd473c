/** How the fuzzer judges one answer (test/reliability/fuzz.test.ts). */

/** What is wrong with one answer, or null. Every namespace answers errors in the envelope, mail-log included. */
/**
 * The QR check-in route answers its own refusals with the original's bodies (reference 4.5, CONTRACT section 5,
 * documented in /evt/tickets/v1/doc): a 400 echo of the inputs for a key that is not the site's, and 403
 * `{msg, error}`. Those are its answers, not a missing envelope.
 */
function qrOriginalBody(status: number, body: unknown): boolean {
  const b = body as Record<string, unknown> | null;
  if (!b || typeof b !== 'object') return false;
  if (status === 400)
    return typeof b.api_key === 'string' && typeof b.ticket_id === 'string' && typeof b.security_code === 'string' && 'event_id' in b;
  return status === 403 && typeof b.msg === 'string' && typeof b.error === 'string';
}

export function judge(status: number, text: string, o: { batch: boolean; label?: string }): string | null {
  if (status >= 500) return `${status}`;
  if (o.label === 'GET /evt/tickets/v1/qr' && status >= 400) {
    try {
      if (qrOriginalBody(status, JSON.parse(text))) return null;
    } catch {
      // not JSON: judged below
    }
  }
  const envelope = (s: number, body: unknown): string | null => {
    const b = body as { code?: unknown; message?: unknown; data?: { status?: unknown } } | null;
    if (!b || typeof b !== 'object' || typeof b.code !== 'string' || typeof b.message !== 'string' || !b.data || typeof b.data !== 'object') {
      return `${s} without the error envelope: ${JSON.stringify(body)?.slice(0, 160)}`;
    }
    return b.data.status === s ? null : `${s} with data.status ${JSON.stringify(b.data.status)}`;
  };
  if (status >= 400) {
    try {
      return envelope(status, JSON.parse(text));
    } catch {
      return `${status} not JSON: ${text.slice(0, 120)}`;
    }
  }
  if (o.batch && status === 207) {
    const body = JSON.parse(text) as { responses?: ({ status: number; body: unknown } | null)[]; failed?: string };
    if (!Array.isArray(body.responses)) return `207 without responses: ${text.slice(0, 160)}`;
    for (const [i, r] of body.responses.entries()) {
      // require-all-validate answers only the failing items; the others are null, as in WordPress.
      if (r === null && body.failed === 'validation') continue;
      if (!r || typeof r.status !== 'number') return `batch item ${i} is not an answer: ${JSON.stringify(r)}`;
      if (r.status >= 500) return `batch item ${i}: ${r.status}`;
      if (r.status >= 400) {
        const bad = envelope(r.status, r.body);
        if (bad) return `batch item ${i}: ${bad}`;
      }
    }
  }
  return null;
}
