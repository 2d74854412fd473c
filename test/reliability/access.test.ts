import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { call, startTestServer } from '../helpers/server.ts';
import { insertAttendees, seedTicketsFixture } from '../helpers/tickets-fixture.ts';
import { createApiKey } from '../../server/auth/credentials.ts';
import { revokeApiKey } from '../../server/db/repos/api-keys.ts';
import { createForm } from '../../server/db/repos/forms.ts';
import { setProxyDeps } from '../../server/routes/oembed/proxy-deps.ts';
import { FetchRefused } from '../../server/net/guarded-fetch.ts';
import { allowed, CALLERS, ownedWrite, permissionTable, RULES, type Caller } from './access-table.ts';
import { validValue } from './fuzz-gen.ts';
import { loadOperations, type Operation } from './openapi-ops.ts';
import { report } from './profile.ts';

/**
 * Issue 6 item 4: every route of the site index, every method, against every caller, with path IDs of real
 * objects: each answer is one CONTRACT section 3 allows, and no anonymous answer carries attendee e-mails,
 * security codes, password-protected content, drafts or order data.
 */

const SECRET_CONTENT = 'PROTECTED-CONTENT-7f3a';
const DRAFT_TITLE = 'DRAFT-EVENT-TITLE-91c2';
const BUYER = 'order-buyer-5d1e@example.test';

function docPath(route: string): string {
  return route.replace(/\(\?P<(\w+)>[^)]*\)/g, '{$1}');
}

describe('access by role', { timeout: 15 * 60_000 }, () => {
  test('every route against every caller', { timeout: 10 * 60_000 }, async () => {
    const srv = await startTestServer();
    setProxyDeps(srv.app.state, {
      policy: {
        resolve: async () => [{ address: '127.0.0.1', family: 4 }],
        transport: async () => {
          throw new FetchRefused('no network');
        },
      },
    });
    try {
      const pub = await seedTicketsFixture(srv.db, { attendees: 3, provider: 'tc' });
      const more = await insertAttendees(srv.db, pub.ticketId, 2);
      await srv.db.prepare('UPDATE orders SET purchaser_email = ? WHERE post_id IN (?, ?)').run(BUYER, pub.orderId, more.orderId);
      const prot = await seedTicketsFixture(srv.db, { attendees: 2, provider: 'rsvp', eventPassword: 'sesame', eventTitle: 'Protected gala' });
      await srv.db.prepare('UPDATE posts SET content = ?, excerpt = ? WHERE id = ?').run(`<p>${SECRET_CONTENT}</p>`, SECRET_CONTENT, prot.eventId);
      await srv.db.prepare("UPDATE posts SET slug = 'door-test-event' WHERE id = ?").run(pub.eventId);
      const draft = await seedTicketsFixture(srv.db, { attendees: 1, eventStatus: 'draft', eventTitle: DRAFT_TITLE });
      const now = new Date().toISOString().slice(0, 19).replace('T', ' ');
      const formId = await createForm(srv.db, { title: 'Feedback', author: 1, fields: [], dates: { date: now, date_gmt: now } });
      const auth: Record<Caller, string | null> = {
        anonymous: null,
        'revoked key': await (async () => {
          const k = await createApiKey(srv.db, 'Revoked', null, null);
          await revokeApiKey(srv.db, k.row.id);
          return `Bearer ${k.key}`;
        })(),
        'door key': `Bearer ${(await srv.apiKey('Door')).key}`,
        // Bound to an event with a ticket and no attendees: every attendee of the table belongs to another event.
        'other event key': `Bearer ${(await srv.apiKey('Elsewhere', (await seedTicketsFixture(srv.db, { attendees: 0, eventTitle: 'Elsewhere' })).eventId)).key}`,
        'door user': await srv.userAuth('door', 'door-person'),
        organizer: await srv.userAuth('organizer', 'organizer-person'),
        administrator: srv.admin,
      };
      const made = async (path: string, body: Record<string, unknown>) => {
        const r = await call(`${srv.root}evt/events/v1/${path}`, { method: 'POST', auth: srv.admin, body });
        assert.ok(r.status === 201 || r.status === 200, `${path}: ${r.status} ${r.text.slice(0, 200)}`);
        return r.body as { id: number; slug?: string };
      };
      const venue = await made('venues', { venue: 'Main hall' });
      const organizer = await made('organizers', { organizer: 'Door team' });
      const category = await made('categories', { name: 'Concerts' });
      const tag = await made('tags', { name: 'Jazz' });
      const slugOf = async (id: number) => ((await srv.db.prepare('SELECT slug FROM posts WHERE id = ?').get(id)) as { slug: string }).slug;
      const secrets = [...pub.codes.values(), ...more.codes.values(), ...prot.codes.values(), ...draft.codes.values()];
      const attendeeEmails = ((await srv.db.prepare('SELECT email FROM attendees').all()) as { email: string }[]).map((r) => r.email);
      const privateStrings = [
        SECRET_CONTENT,
        DRAFT_TITLE,
        BUYER,
        ...secrets,
        ...((await srv.db.prepare('SELECT email FROM attendees UNION SELECT email FROM users').all()) as { email: string }[]).map((r) => r.email),
      ];
      // What a key bound to another event must never receive (it reads drafts and protected content, as a door).
      const attendeeStrings = [
        BUYER,
        ...secrets,
        ...attendeeEmails,
        ...((await srv.db.prepare('SELECT full_name FROM attendees').all()) as { full_name: string }[]).map((r) => r.full_name),
      ];

      const idFor = (route: string): number => {
        if (route.includes('/venues/')) return venue.id;
        if (route.includes('/organizers/')) return organizer.id;
        if (route.includes('/categories/')) return category.id;
        if (route.includes('/tags/')) return tag.id;
        if (route.includes('/tickets/v1/tickets/')) return pub.ticketId;
        if (route.includes('/attendees/') || route.includes('/qr/')) return pub.attendeeIds[0]!;
        if (route.includes('/orders/')) return pub.orderId;
        if (route.includes('/forms/')) return formId;
        return pub.eventId;
      };
      const slugFor = (route: string) => slugOf(route.includes('/venues/') ? venue.id : route.includes('/organizers/') ? organizer.id : pub.eventId);

      const { ops } = await loadOperations(srv.root);
      const opBy = new Map<string, Operation>(ops.map((o) => [`${o.method} /${o.ns}${o.path === '/' ? '' : o.path}`, o]));
      const index = (await call(srv.root)).body as { namespaces: string[]; routes: Record<string, { endpoints: { methods: string[] }[] }> };
      const perms = permissionTable(index.namespaces);
      const ids = [pub.eventId, pub.ticketId, ...pub.attendeeIds];

      const cases: { route: string; method: string; url: string; body: Record<string, unknown> | undefined }[] = [];
      for (const [route, r] of Object.entries(index.routes)) {
        for (const method of new Set(r.endpoints.flatMap((e) => e.methods))) {
          const path = route.replace(/\(\?P<slug>[^)]*\)/, await slugFor(route)).replace(/\(\?P<\w+>[^)]*\)/g, String(idFor(route)));
          // Required parameters filled with schema-valid values, so the permission check is what answers.
          const op = opBy.get(`${method} ${docPath(route)}`);
          const required: Record<string, unknown> = {};
          for (const p of op?.params ?? [])
            if (p.required && p.in === 'query') required[p.name] = fc.sample(validValue(p.schema, p.name, ids), { numRuns: 1, seed: 7 })[0];
          for (const name of op?.body?.required ?? [])
            required[name] = fc.sample(validValue(op!.body!.properties[name] ?? {}, name, ids), { numRuns: 1, seed: 7 })[0];
          const hasBody = method !== 'GET' && method !== 'DELETE';
          const q =
            !hasBody && Object.keys(required).length ? `?${new URLSearchParams(Object.entries(required).map(([k, v]) => [k, String(v)]))}` : '';
          cases.push({ route, method, url: `${srv.base}/wp-json${path}${q}`, body: hasBody ? required : undefined });
        }
      }
      // Reads first (the leak checks see the site as seeded), then writes; the administrator last in each.
      cases.sort((a, b) => Number(a.method !== 'GET') - Number(b.method !== 'GET'));

      const failures: string[] = [];
      const leaks: string[] = [];
      let answers = 0;
      // The control: the same strings do reach a door key where the contract shows them (manager view).
      const seenByDoor = new Set<string>();
      const tally = new Map<string, number>();
      for (const c of cases) {
        const permission = perms.get(`${c.method} ${c.route}`);
        if (permission === undefined) failures.push(`${c.method} ${c.route}: not in the route table`);
        for (const caller of CALLERS) {
          const res = await call(c.url, { method: c.method, auth: auth[caller] ?? undefined, body: c.body });
          answers++;
          const code = typeof res.body?.code === 'string' ? res.body.code : null;
          tally.set(`${caller} ${res.status}`, (tally.get(`${caller} ${res.status}`) ?? 0) + 1);
          // Every object here is the administrator's or the fixture's, never the organizer's.
          const why = allowed(caller, permission ?? 'public', { status: res.status, code }, ownedWrite(c.method, c.route));
          if (why) failures.push(`${c.method} ${c.route} (${permission}): ${why}`);
          // Public reads of published objects are public, as in the original: no 401/403 for anyone. (The
          // auxiliary namespaces copy plugins that check inside the handler: signed links, form tokens.)
          const original = /^\/(evt|oembed)\//.test(c.route) || c.route === '/' || c.route.endsWith('/doc');
          if (original && c.method === 'GET' && permission === 'public' && caller !== 'revoked key' && (res.status === 401 || res.status === 403)) {
            failures.push(`GET ${c.route} (public): ${caller} refused with ${res.status} ${code}`);
          }
          if (caller === 'door key' && res.status < 300) for (const s of privateStrings) if (res.text.includes(s)) seenByDoor.add(s);
          if ((caller === 'anonymous' || caller === 'revoked key') && res.status < 300) {
            for (const s of privateStrings) if (s && res.text.includes(s)) leaks.push(`${caller} ${c.method} ${c.route}: ${s}`);
          }
          if (caller === 'other event key')
            for (const s of attendeeStrings) if (s && res.text.includes(s)) leaks.push(`${caller} ${c.method} ${c.route} (${res.status}): ${s}`);
        }
      }
      // Lists an anonymous caller might use to fish for private rows.
      const lists = [
        `evt/events/v1/events?per_page=50&start_date=2000-01-01`,
        `evt/events/v1/events?status=draft`,
        `evt/events/v1/events?search=EVENT-TITLE`,
        `evt/events/v1/events/${prot.eventId}`,
        `evt/events/v1/events/${draft.eventId}`,
        `evt/tickets/v1/tickets?per_page=100`,
        `evt/tickets/v1/tickets?include_post=${prot.eventId},${draft.eventId}`,
        `evt/tickets/v1/attendees?post_id=${pub.eventId}`,
        `evt/tickets/v1/qr/${pub.attendeeIds[0]}`,
        `evt/views/v2/html?view=list`,
        `seo/v1/sitemap`,
        `evt/events/v1/events?include=${draft.eventId}`,
      ];
      for (const l of lists) {
        const res = await call(`${srv.root}${l}`);
        answers++;
        if (res.status >= 500) failures.push(`anonymous GET ${l}: ${res.status}`);
        if (res.status < 300) for (const s of privateStrings) if (s && res.text.includes(s)) leaks.push(`anonymous GET ${l}: ${s}`);
      }
      // Rules that hang on the body or on whose object it is (door field limits, ownership, key scope).
      // A fresh event of the administrator's: the sweep's writes have trashed or changed the others.
      const ruleFx = await seedTicketsFixture(srv.db, { attendees: 2, eventTitle: 'Rules' });
      attendeeStrings.push(...ruleFx.codes.values());
      for (const rule of RULES) {
        for (const caller of CALLERS) {
          const nonce = (await call(`${srv.root}evt/events/v1/events/${ruleFx.eventId}?context=edit`, { auth: auth[caller] ?? undefined })).body
            ?.nonces?.add_ticket_nonce;
          const r = rule.request({
            eventId: ruleFx.eventId,
            ticketId: ruleFx.ticketId,
            attendeeId: ruleFx.attendeeIds[1]!,
            orderId: ruleFx.orderId,
            addTicketNonce: nonce,
          });
          const res = await call(`${srv.root}${r.path}`, { method: r.method, auth: auth[caller] ?? undefined, body: r.body });
          answers++;
          const want = rule.expect(caller);
          const code = typeof res.body?.code === 'string' ? res.body.code : undefined;
          if (res.status !== want.status || (want.code !== undefined && code !== want.code)) {
            failures.push(`rule "${rule.name}": ${caller} got ${res.status} ${code ?? ''}, not ${want.status} ${want.code ?? ''}`);
          }
          if (caller === 'other event key')
            for (const s of attendeeStrings) if (s && res.text.includes(s)) leaks.push(`${caller} rule "${rule.name}": ${s}`);
        }
      }
      const byCaller = CALLERS.map(
        (c) =>
          `${c.replace(' ', '_')}[${[...tally]
            .filter(([k]) => k.startsWith(`${c} `))
            .map(([k, n]) => `${k.split(' ').pop()}:${n}`)
            .join(',')}]`,
      ).join(' ');
      report('access', {
        routes: Object.keys(index.routes).length,
        route_methods: cases.length,
        callers: CALLERS.length,
        answers,
        violations: failures.length,
        leaks: leaks.length,
      });
      process.stdout.write(`  answers by caller: ${byCaller}\n`);
      for (const f of [...failures, ...leaks]) process.stdout.write(`  ${f}\n`);
      assert.deepEqual(failures, [], 'answers the contract does not allow');
      assert.deepEqual(leaks, [], 'private data in anonymous answers');
      assert.ok(cases.length > 100);
      assert.ok(
        secrets.some((c) => seenByDoor.has(c)),
        'a door key sees security codes, so the leak check looks for real values',
      );
      assert.ok(seenByDoor.has('guest1@example.test'), 'a door key sees attendee e-mails');
    } finally {
      await srv.close();
    }
  });
});
