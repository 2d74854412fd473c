import assert from 'node:assert/strict';
import { call, type TestServer } from '../../helpers/server.ts';

/** Creates content through the real events API, as an administrator. */
export async function createEvent(s: TestServer, body: Record<string, unknown>): Promise<{ id: number; url: string; slug: string }> {
  const r = await call(`${s.root}evt/events/v1/events`, {
    method: 'POST',
    auth: s.admin,
    body: { start_date: '2030-06-01 19:00:00', end_date: '2030-06-01 22:00:00', ...body },
  });
  assert.equal(r.status, 201, r.text);
  return { id: r.body.id, url: r.body.url, slug: r.body.slug };
}

export async function createLinked(
  s: TestServer,
  kind: 'venue' | 'organizer',
  body: Record<string, unknown>,
): Promise<{ id: number; url: string; slug: string }> {
  const r = await call(`${s.root}evt/events/v1/${kind}s`, { method: 'POST', auth: s.admin, body });
  assert.equal(r.status, 201, r.text);
  return { id: r.body.id, url: r.body.url, slug: r.body.slug };
}

export async function updateEvent(s: TestServer, id: number, body: Record<string, unknown>): Promise<void> {
  const r = await call(`${s.root}evt/events/v1/events/${id}`, { method: 'POST', auth: s.admin, body });
  assert.equal(r.status, 200, r.text);
}

export async function page(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; text: string }> {
  const r = await fetch(url, { headers, redirect: 'manual' });
  return { status: r.status, headers: r.headers, text: await r.text() };
}
