import { marketingRoutes as R } from '../../../shared/routes/marketing.ts';
import type { Ctx } from '../../kernel/context.ts';
import { HttpError, invalidParam } from '../../kernel/errors.ts';
import { implement, type Endpoint } from '../../http/registry.ts';
import { created, ok } from '../../kernel/result.ts';
import { nowUtc } from '../../db/clock.ts';
import { deleteOption, getJsonOption, setJsonOption } from '../../db/repos/site-options.ts';
import { allMembers, countOptedIn, latestConsents, listMembers, optInAttendee, putMember, putOptIn } from '../../db/repos/marketing.ts';
import { open, seal } from '../../marketing/secret-box.ts';
import { assertMayWriteAttendeesOf, inKeyScope } from '../tickets/attendee-access.ts';

const CONNECTION = 'marketing.connection';
const LAST_SYNC = 'marketing.last_sync';
const PURPOSE = 'marketing-api-key';

interface Stored {
  provider: string;
  list_id: string;
  key_box: string;
  key_last4: string;
  connected_at: string;
}

const stored = (ctx: Ctx) => getJsonOption<Stored | null>(ctx.db, CONNECTION, null);
const lastSync = (ctx: Ctx) => getJsonOption<{ time: string; subscribed: number; unsubscribed: number } | null>(ctx.db, LAST_SYNC, null);

async function present(ctx: Ctx) {
  const c = await stored(ctx);
  return {
    connected: c !== null,
    provider: c?.provider ?? null,
    list_id: c?.list_id ?? null,
    key_last4: c?.key_last4 ?? null,
    connected_at: c?.connected_at ?? null,
    last_sync: (await lastSync(ctx))?.time ?? null,
  };
}

const readConnection = implement(R.readConnection, async (_input, ctx) => ok(await present(ctx)));

const connect = implement(R.connect, async (input, ctx) => {
  const key = input.api_key.trim();
  if (!/^[A-Za-z0-9_-]{20,200}$/.test(key)) throw invalidParam('api_key', 'The API key is not in a valid format.', 'rest_invalid_api_key');
  const listId = input.list_id.trim();
  if (!/^[A-Za-z0-9_-]{1,100}$/.test(listId)) throw invalidParam('list_id');
  await setJsonOption(ctx.db, CONNECTION, {
    provider: input.provider,
    list_id: listId,
    key_box: seal(ctx.app.secret, PURPOSE, key),
    key_last4: key.slice(-4),
    connected_at: nowUtc(),
  } satisfies Stored);
  return ok(await present(ctx));
});

const disconnect = implement(R.disconnect, async (_input, ctx) => {
  const was = (await stored(ctx)) !== null;
  await deleteOption(ctx.db, CONNECTION);
  return ok({ deleted: was, ...(await present(ctx)) });
});

/**
 * `POST /opt-ins`: as the attendee routes, a key bound to an event reaches that event's attendees only (another
 * event's attendee answers as an unknown one), and an organizer only attendees of events it authored (403).
 */
const optIn = implement(R.optIn, async (input, ctx) => {
  const a = await optInAttendee(ctx.db, input.attendee_id);
  if (!a || !inKeyScope(ctx, a.event_id)) throw invalidParam('attendee_id');
  await assertMayWriteAttendeesOf(ctx, a.event_id);
  if (!a.email) throw new HttpError(400, 'marketing_no_email', 'The attendee has no email address.');
  const time = nowUtc();
  await putOptIn(ctx.db, a.post_id, input.consent, input.source ?? '', time);
  return created({ attendee_id: a.post_id, consent: input.consent, source: input.source ?? '', time });
});

const audience = implement(R.audience, async (input, ctx) => {
  const { rows, total } = await listMembers(ctx.db, input.status, input.per_page, (input.page - 1) * input.per_page);
  const pages = Math.max(1, Math.ceil(total / input.per_page));
  if (input.page > pages && total > 0)
    throw new HttpError(400, 'rest_post_invalid_page_number', 'The page number requested is larger than the number of pages available.');
  return ok(rows, { 'X-WP-Total': String(total), 'X-WP-TotalPages': String(pages) });
});

const sync = implement(R.sync, async (_input, ctx) => {
  const c = await stored(ctx);
  if (!c) throw new HttpError(409, 'marketing_not_connected', 'Connect a mailing list first.');
  // The key must still open: a changed site secret would make every later provider call fail.
  if (open(ctx.app.secret, PURPOSE, c.key_box) === null)
    throw new HttpError(409, 'marketing_key_unreadable', 'The stored API key cannot be read; connect again.');
  const time = nowUtc();
  const wanted = new Map((await latestConsents(ctx.db)).map((r) => [r.email, r]));
  const members = new Map((await allMembers(ctx.db)).map((m) => [m.email.toLowerCase(), m]));
  const counts = { added: 0, updated: 0, unsubscribed: 0, unchanged: 0 };
  for (const [email, m] of members) {
    const w = wanted.get(email);
    if ((!w || w.consent === 0) && m.status === 'subscribed') {
      await putMember(ctx.db, { ...m, status: 'unsubscribed', synced: time });
      counts.unsubscribed++;
    }
  }
  for (const [email, w] of wanted) {
    if (w.consent !== 1) continue;
    const cur = members.get(email);
    if (cur && cur.status === 'subscribed' && cur.full_name === w.full_name) {
      counts.unchanged++;
      continue;
    }
    await putMember(ctx.db, { email: cur?.email ?? email, full_name: w.full_name, attendee_id: w.attendee_id, status: 'subscribed', synced: time });
    if (cur) counts.updated++;
    else counts.added++;
  }
  const after = await allMembers(ctx.db);
  const subscribed = after.filter((m) => m.status === 'subscribed').length;
  await setJsonOption(ctx.db, LAST_SYNC, { time, subscribed, unsubscribed: after.length - subscribed });
  return ok({ ...counts, subscribed, synced_at: time, list_id: c.list_id, provider: c.provider });
});

const status = implement(R.status, async (_input, ctx) => {
  const members = await allMembers(ctx.db);
  return ok({
    ...(await present(ctx)),
    opted_in_attendees: await countOptedIn(ctx.db),
    audience: {
      subscribed: members.filter((m) => m.status === 'subscribed').length,
      unsubscribed: members.filter((m) => m.status === 'unsubscribed').length,
    },
  });
});

export const marketingEndpoints: Endpoint[] = [readConnection, connect, disconnect, optIn, audience, sync, status];
