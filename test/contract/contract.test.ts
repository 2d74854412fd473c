import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type Res, type TestServer } from '../helpers/server.ts';
import { insertAttendees, seedTicketsFixture } from '../helpers/tickets-fixture.ts';
import { createForm, seedSubmission } from '../server/forms/fixtures.ts';
import { setProxyDeps } from '../../server/routes/oembed/proxy-deps.ts';
import { FetchRefused } from '../../server/net/guarded-fetch.ts';
import { documentErrors, ResponseChecker, type Doc, type DocOperation } from './openapi-validate.ts';
import { generatedFiles } from './gen-client.ts';
import { checkedInIds, eventTitles, type AttendeeList, type EventList } from './client-types.ts';

/**
 * Issue 13 item 5: the OpenAPI documents describe what the server really answers. On a fresh seeded app, every
 * operation of every namespace document is called by four callers (anonymous, administrator, organizer, door
 * key) with real IDs and the parameters it needs, and every answer (status, media type, body) is checked
 * against the document. An undocumented status, an undocumented media type or a body the schema forbids fails.
 */

type Caller = 'anonymous' | 'administrator' | 'organizer' | 'door key';
const CALLERS: readonly Caller[] = ['anonymous', 'administrator', 'organizer', 'door key'];

interface Op {
  ns: string;
  path: string;
  method: string;
  op: DocOperation;
}

/** What one request sends besides the caller's credentials. */
interface Send {
  path?: Record<string, string | number>;
  query?: Record<string, string>;
  body?: Record<string, unknown>;
  headers?: Record<string, string>;
}

interface Ids {
  event: number;
  ticket: number;
  attendee: number;
  order: number;
  venue: number;
  organizer: number;
  category: number;
  tag: number;
  form: number;
  submission: number;
  file: number;
  issue: number;
  mailLog: number;
  checkinList: number;
  eventSlug: string;
  venueSlug: string;
  organizerSlug: string;
  securityCode: string;
}

/** Requests that reach the handler's success path, by operationId (the generic fill is used otherwise). */
function successRequests(
  ids: Ids,
  ctx: {
    nonce?: string;
    editNonce?: string;
    removeNonce?: string;
    downloadPath?: string;
    downloadToken?: string;
    wizardNonce?: string;
    eventUrl: string;
  },
): Record<string, Send> {
  const ticketFields = { post_id: ids.event, name: 'Contract ticket', price: '', ticket: { capacity: 10 } };
  return {
    'events.create.post': { body: { title: 'Contract event', start_date: '2031-01-01 10:00:00', end_date: '2031-01-01 12:00:00' } },
    'venues.create.post': { body: { venue: 'Contract hall' } },
    'organizers.create.post': { body: { organizer: 'Contract crew' } },
    'categories.create.post': { body: { name: `Contract category` } },
    'tags.create.post': { body: { name: `Contract tag` } },
    'events.update.post': { body: { title: 'Contract event (renamed)' } },
    'events.update.put': { body: { title: 'Contract event (renamed)' } },
    'events.update.patch': { body: { title: 'Contract event (renamed)' } },
    'tickets.create.post': { body: { ...ticketFields, add_ticket_nonce: ctx.nonce ?? '', provider: 'rsvp' } },
    'tickets.update.post': { body: { ...ticketFields, edit_ticket_nonce: ctx.editNonce ?? '' } },
    'tickets.update.put': { body: { ...ticketFields, edit_ticket_nonce: ctx.editNonce ?? '' } },
    'tickets.update.patch': { body: { ...ticketFields, edit_ticket_nonce: ctx.editNonce ?? '' } },
    'tickets.delete.delete': { query: { post_id: String(ids.event), remove_ticket_nonce: ctx.removeNonce ?? '' } },
    'attendees.create.post': { body: { ticket_id: ids.ticket, full_name: 'Walk In', email: 'walkin@example.test' } },
    'attendees.update.post': { body: { check_in: true, nonce: 'contract-nonce-0000000001' } },
    'attendees.update.put': { body: { check_in: false } },
    'attendees.update.patch': { body: { full_name: 'Renamed Guest' } },
    'cart.update.post': { body: { provider: 'tribe-commerce', tickets: [{ ticket_id: ids.ticket, quantity: 1 }] } },
    'cart.update.put': { body: { provider: 'tribe-commerce', tickets: [{ ticket_id: ids.ticket, quantity: 1 }] } },
    'cart.update.patch': { body: { provider: 'tribe-commerce', tickets: [{ ticket_id: ids.ticket, quantity: 1 }] } },
    'cart.checkout.post': { body: { purchaser_name: 'Buyer', purchaser_email: 'buyer@example.test' } },
    'checkin-lists.create.post': { body: { event_id: ids.event, name: 'Contract gate' } },
    'checkin-lists.update.post': { body: { name: 'Contract gate (renamed)' } },
    'checkin-lists.update.put': { body: { entries_per_day: 2 } },
    'checkin-lists.update.patch': { body: { allow_reentry: false } },
    'orders.update.post': { body: { status: 'completed' } },
    'orders.update.put': { body: { status: 'completed' } },
    'orders.update.patch': { body: { status: 'completed' } },
    'qr.checkin.get': { query: { api_key: '', ticket_id: String(ids.attendee), security_code: ids.securityCode, event_id: String(ids.event) } },
    'forms.submissions.get.get': { query: { form_ids: String(ids.form) } },
    'forms.submissions.delete.post': { body: { submissions: [ids.submission] } },
    'forms.submissions.restore.post': { body: { restore: true, submissions: [ids.submission] } },
    'forms.submissions.update.post': {
      body: { singleSubmission: JSON.stringify({ submissionRecordId: String(ids.submission), submissionFieldCollection: {} }) },
    },
    'forms.submissions.handleExtra.post': {
      body: { singleSubmission: JSON.stringify({ submissionRecordId: String(ids.submission) }), handleExtra: 'star' },
    },
    'forms.submissions.export.post': { body: { form_ids: [ids.form] } },
    'forms.submissions.downloadAll.post': { body: { form_ids: [ids.form] } },
    'forms.submissions.deleteDownloadFile.post': { body: { file_path: ctx.downloadPath ?? 'nothing.csv' } },
    'forms.submissions.setSettings.post': { body: { settingName: 'pageSize', data: { value: 25 }, formID: String(ids.form) } },
    'forms.submissions.emailAction.post': {
      body: { submission: ids.submission, action_settings: { to: 'office@example.test', email_subject: 'Form', email_message: 'Hello' } },
    },
    'forms.submissions.download.get': { query: { token: ctx.downloadToken ?? 'x' } },
    'forms.views.createForm.post': { body: { title: 'Contract form', fields: [{ label: 'Name', type: 'textbox', required: true }] } },
    'forms.views.submit.post': { body: { values: { name: 'Ann', email: 'ann@example.test' } } },
    'forms.views.tokenRefresh.post': { body: { formID: ids.form } },
    'oembed.embed.get': { query: { url: ctx.eventUrl } },
    'oembed.proxy.get': { query: { url: ctx.eventUrl } },
    'evt/views/v2': {},
    'views.html.get': { query: { url: '/events/list/' } },
    'views.html.post': { body: { url: '/events/month/' } },
    'mail.get-log.get': { query: { id: String(ids.mailLog) } },
    'mail.get-details.get': { query: { id: String(ids.mailLog), type: 'show_view' } },
    'mail.v1.resend-email.post': { body: { id: ids.mailLog } },
    'mail.activate-license.post': { body: { license_key: 'not-a-license' } },
    'marketing.connection.update.post': { body: { provider: 'mailchimp', api_key: 'abcdefghij0123456789-key', list_id: 'list1' } },
    'marketing.connection.update.put': { body: { provider: 'brevo', api_key: 'abcdefghij0123456789-key', list_id: 'list1' } },
    'marketing.connection.update.patch': { body: { provider: 'other', api_key: 'abcdefghij0123456789-key', list_id: 'list1' } },
    'marketing.opt-ins.create.post': { body: { attendee_id: ids.attendee, consent: true, source: 'door' } },
    'tickets-onboarding.wizard.save.post': { body: { action_nonce: ctx.wizardNonce ?? 'x', currentTab: 1 } },
    'protected-files.upload.post': { body: { filename: 'notes.txt', content: Buffer.from('hello').toString('base64'), post_id: ids.event } },
    'security.config.update.post': { body: { fields: { maxAdministrators: 5 } } },
    'security.config.update.put': { body: { fields: { maxAdministrators: 5 } } },
    'security.config.update.patch': { body: { fields: { maxAdministrators: 5 } } },
    'security.scan.issue.read.get': { query: { id: String(ids.issue) } },
    'security.scan.issue.update.post': { body: { issue: { id: ids.issue, status: 'ignoreP' } } },
    'security.scan.issue.update.put': { body: { issue: { id: ids.issue, status: 'new' } } },
    'security.scan.issue.update.patch': { body: { issue: { id: ids.issue, status: 'ignoreC' } } },
    'security.authenticate.post': { body: { data: 'x|y', signature: '00' } },
    'security.authenticate-premium.post': { body: { license_key: 'ab'.repeat(40) } },
    'seo.meta.update.post': { body: { title: 'SEO title' } },
    'seo.meta.update.put': { body: { description: 'SEO description' } },
    'seo.meta.update.patch': { body: { noindex: false } },
    'seo.robots.update.post': { body: { crawl_delay: 1 } },
    'seo.robots.update.put': { body: { include_sitemap: true } },
    'seo.robots.update.patch': { body: { block_all: false } },
    'translation.custom-xml-config.update.post': { body: { content: '<wpml-config></wpml-config>' } },
    'translation.custom-xml-config.validate.post': { body: { content: '<wpml-config><a></wpml-config>' } },
  };
}

/** The path parameter value of a route, from the objects made for the run. */
function pathValue(ids: Ids, ns: string, path: string, name: string): string | number {
  if (name === 'slug') return path.startsWith('/venues') ? ids.venueSlug : path.startsWith('/organizers') ? ids.organizerSlug : ids.eventSlug;
  if (ns === 'evt/events/v1') {
    if (path.startsWith('/venues')) return ids.venue;
    if (path.startsWith('/organizers')) return ids.organizer;
    if (path.startsWith('/categories')) return ids.category;
    if (path.startsWith('/tags')) return ids.tag;
    return ids.event;
  }
  if (ns === 'evt/tickets/v1') {
    if (path.startsWith('/tickets')) return ids.ticket;
    if (path.startsWith('/orders')) return ids.order;
    if (path.startsWith('/checkin-lists')) return ids.checkinList;
    return ids.attendee;
  }
  if (ns.startsWith('forms')) return ids.form;
  if (ns === 'protected-files/v1') return ids.file;
  return ids.event;
}

/** A value for a required parameter the success table does not give. */
function fillValue(ids: Ids, name: string, schema: Record<string, unknown>): unknown {
  if (/post_id|event/.test(name)) return ids.event;
  if (/ticket_id/.test(name)) return ids.ticket;
  if (/attendee/.test(name)) return ids.attendee;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (schema.type === 'integer' || schema.type === 'number') return (schema.minimum as number | undefined) ?? 1;
  if (schema.type === 'boolean') return true;
  if (schema.type === 'array') return [];
  if (schema.type === 'object') return {};
  if (schema.format === 'email') return 'someone@example.test';
  return 'x';
}

describe('contract: the OpenAPI documents describe the real answers', { timeout: 10 * 60_000 }, () => {
  test('the generated client types are what `npm run gen:client` writes now', async () => {
    for (const [file, text] of Object.entries(await generatedFiles())) {
      assert.ok(existsSync(file), `${file} exists (run npm run gen:client)`);
      assert.ok(readFileSync(file, 'utf8') === text, `${file} is up to date (run npm run gen:client)`);
    }
  });

  test('every operation, four callers, every answer validated', { timeout: 10 * 60_000 }, async () => {
    const s = await startTestServer();
    setProxyDeps(s.app.state, {
      policy: {
        resolve: async () => [{ address: '127.0.0.1', family: 4 }],
        transport: async () => {
          throw new FetchRefused('no network');
        },
      },
    });
    try {
      await run(s);
    } finally {
      await s.close();
    }
  });
});

async function run(s: TestServer): Promise<void> {
  // ---- the site, seeded ----
  const paid = await seedTicketsFixture(s.db, { attendees: 3, provider: 'tc', priceMinor: 1500, currency: 'EUR' });
  await insertAttendees(s.db, paid.ticketId, 1, { orderStatus: 'pending' });
  const free = await seedTicketsFixture(s.db, { attendees: 2, provider: 'rsvp', eventTitle: 'Free talk' });
  await s.db.prepare("UPDATE posts SET slug = 'contract-event' WHERE id = ?").run(paid.eventId);
  const admin = s.admin;
  const organizer = await s.userAuth('organizer', 'contract-organizer');
  const doorKey = `Bearer ${(await s.apiKey('Door')).key}`;
  const auth: Record<Caller, string | undefined> = { anonymous: undefined, administrator: admin, organizer, 'door key': doorKey };
  const made = async (path: string, body: Record<string, unknown>, who = admin) => {
    const r = await call(`${s.root}${path}`, { method: 'POST', auth: who, body });
    assert.ok(r.status === 201 || r.status === 200, `${path}: ${r.status} ${r.text.slice(0, 300)}`);
    return r.body;
  };
  const venue = await made('evt/events/v1/venues', { venue: 'Main hall', city: 'Tallinn' });
  const org = await made('evt/events/v1/organizers', { organizer: 'Door team', email: 'team@example.test' });
  const category = await made('evt/events/v1/categories', { name: 'Concerts' });
  const tag = await made('evt/events/v1/tags', { name: 'Jazz' });
  await made(`evt/events/v1/events/${paid.eventId}`, { venue: venue.id, organizer: [org.id], categories: [category.id], tags: [tag.id] });
  const form = await createForm(s);
  const submission = await seedSubmission(s, form.id, { name: 'Ann', email: 'ann@example.test' });
  const file = await made('protected-files/v1/files', { filename: 'map.txt', content: Buffer.from('map').toString('base64'), post_id: paid.eventId });
  await call(`${s.root}security/v1/scan`, { method: 'POST', auth: admin });
  const issues = (await call(`${s.root}security/v1/scan/issues`, { auth: admin })).body;
  // A checkout sends the ticket mail: the mail log has a row.
  await call(`${s.root}evt/tickets/v1/cart`, {
    method: 'POST',
    body: { provider: 'rsvp', tickets: [{ ticket_id: free.ticketId, quantity: 1 }] },
    headers: { cookie: 'contract=1' },
  });
  const slugOf = async (id: number) => ((await s.db.prepare('SELECT slug FROM posts WHERE id = ?').get(id)) as { slug: string }).slug;
  const mailRow = (await s.db.prepare('SELECT id FROM mail_log ORDER BY id DESC LIMIT 1').get()) as { id: number } | undefined;
  const ids: Ids = {
    event: paid.eventId,
    ticket: paid.ticketId,
    attendee: paid.attendeeIds[0]!,
    order: paid.orderId,
    venue: venue.id,
    organizer: org.id,
    category: category.id,
    tag: tag.id,
    form: form.id,
    submission,
    file: file.file.id,
    issue: issues?.issues?.[0]?.id ?? 1,
    mailLog: mailRow?.id ?? 1,
    checkinList: (await made('evt/tickets/v1/checkin-lists', { event_id: paid.eventId, name: 'Main gate' })).id,
    eventSlug: await slugOf(paid.eventId),
    venueSlug: await slugOf(venue.id),
    organizerSlug: await slugOf(org.id),
    securityCode: paid.codes.get(paid.attendeeIds[0]!)!,
  };

  // ---- the documents ----
  const index = (await call(s.root)).body as { namespaces: string[] };
  const docs: Record<string, Doc> = {};
  const docProblems: string[] = [];
  for (const ns of index.namespaces) {
    const r = await call(`${s.root}${ns}/doc`);
    assert.equal(r.status, 200, ns);
    docs[ns] = r.body;
    for (const e of await documentErrors(r.body)) docProblems.push(`${ns}: ${JSON.stringify(e).slice(0, 300)}`);
  }
  assert.deepEqual(docProblems, [], 'the documents are valid OpenAPI 3.0');
  const ops: Op[] = [];
  for (const [ns, doc] of Object.entries(docs)) {
    for (const [path, item] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(item)) ops.push({ ns, path, method: method.toUpperCase(), op });
  }
  const checker = new ResponseChecker(docs);

  // ---- nonces the editor routes need ----
  const eventEdit = (await call(`${s.root}evt/events/v1/events/${ids.event}?context=edit`, { auth: admin })).body;
  const ticketEdit = (await call(`${s.root}evt/tickets/v1/tickets/${ids.ticket}`, { auth: admin })).body;
  const wizard = (await call(`${s.root}tickets-onboarding/wizard`, { auth: admin })).body;
  const ctx = {
    nonce: eventEdit?.nonces?.add_ticket_nonce,
    editNonce: ticketEdit?.nonces?.edit_ticket_nonce,
    removeNonce: ticketEdit?.nonces?.remove_ticket_nonce,
    wizardNonce: wizard?.nonce ?? wizard?.action_nonce,
    eventUrl: eventEdit?.url ?? `${s.base}/`,
    downloadPath: undefined as string | undefined,
    downloadToken: undefined as string | undefined,
  };
  const dl = (await call(`${s.root}forms-submissions/download-all`, { method: 'POST', auth: admin, body: { form_ids: [ids.form] } })).body;
  ctx.downloadPath = dl?.filePath;
  ctx.downloadToken = dl?.downloadUrl ? (new URL(dl.downloadUrl).searchParams.get('token') ?? undefined) : undefined;

  // ---- the requests: reads first, then writes, deletes last (so the objects are there for the others) ----
  const rank = (m: string) => (m === 'GET' ? 0 : m === 'DELETE' ? 2 : 1);
  ops.sort((a, b) => rank(a.method) - rank(b.method));
  const failures: string[] = [];
  const covered = new Set<string>();
  const succeeded = new Set<string>();
  const statusTally = new Map<number, number>();
  let validated = 0;
  const table = successRequests(ids, ctx);
  for (const o of ops) {
    const send = table[o.op.operationId] ?? {};
    let path = o.path;
    for (const p of o.op.parameters ?? []) {
      if (p.in !== 'path') continue;
      path = path.replace(`{${p.name}}`, encodeURIComponent(String(send.path?.[p.name] ?? pathValue(ids, o.ns, o.path, p.name))));
    }
    const query: Record<string, string> = { ...(send.query ?? {}) };
    const hasBody = o.method !== 'GET' && o.method !== 'DELETE';
    for (const p of o.op.parameters ?? []) {
      if (p.in === 'query' && p.required && query[p.name] === undefined) query[p.name] = String(fillValue(ids, p.name, p.schema));
    }
    const body: Record<string, unknown> = { ...(send.body ?? {}) };
    const bodySchema = o.op.requestBody?.content['application/json']?.schema;
    for (const name of bodySchema?.required ?? []) {
      if (body[name] === undefined) body[name] = fillValue(ids, name, (bodySchema?.properties?.[name] ?? {}) as Record<string, unknown>);
    }
    // The administrator goes last: the others' refusals leave the objects as they were for it.
    for (const caller of [...CALLERS].reverse().sort((a) => (a === 'administrator' ? 1 : -1))) {
      const q = { ...query };
      if (o.op.operationId === 'qr.checkin.get')
        q.api_key = caller === 'door key' ? doorKey.slice('Bearer '.length) : caller === 'anonymous' ? 'dsk_0_nothing' : '';
      const qs = new URLSearchParams(q).toString();
      const url = `${s.root}${o.ns}${o.path === '/' ? '' : path}${qs ? `?${qs}` : ''}`;
      const res: Res = await call(url, { method: o.method, auth: auth[caller], body: hasBody ? body : undefined, headers: send.headers });
      validated++;
      covered.add(`${o.method} /${o.ns}${o.path}`);
      statusTally.set(res.status, (statusTally.get(res.status) ?? 0) + 1);
      if (res.status < 300) succeeded.add(`${o.method} /${o.ns}${o.path}`);
      const contentType = res.headers.get('content-type');
      const isJson = (contentType ?? '').startsWith('application/json');
      if (process.env.CONTRACT_DUMP)
        appendFileSync(
          process.env.CONTRACT_DUMP,
          JSON.stringify({ caller, op: o.op.operationId, status: res.status, type: contentType, body: isJson ? res.body : res.text.slice(0, 200) }) +
            '\n',
        );
      const errs = checker.check(o.ns, o.path, o.method, res.status, contentType, isJson ? res.body : res.text);
      if (errs.length) failures.push(`${caller} ${o.method} /${o.ns}${o.path} -> ${res.status}: ${errs.join('; ')} :: ${res.text.slice(0, 300)}`);
    }
  }
  // The generated client's types, used on real answers.
  const events = (await call(`${s.root}evt/events/v1/events?start_date=2000-01-01`)).body as EventList;
  const titles = eventTitles(events);
  assert.ok(
    titles.length > 0 && titles.every((e) => typeof e.id === 'number' && typeof e.title === 'string'),
    'a typed client reads the events list',
  );
  const attendees = (await call(`${s.root}evt/tickets/v1/attendees?per_page=100&post_id=${free.eventId}`, { auth: admin })).body as AttendeeList;
  assert.ok(checkedInIds(attendees).length >= 0 && attendees.attendees.length > 0, 'a typed client reads the attendees list');
  const notSucceeded = ops.map((o) => `${o.method} /${o.ns}${o.path}`).filter((k) => !succeeded.has(k));
  console.log(
    `contract: ${Object.keys(docs).length} namespace documents, ${ops.length} operations covered (${covered.size} called, ${succeeded.size} with a 2xx answer), ${validated} requests validated; statuses ${[
      ...statusTally,
    ]
      .sort(([a], [b]) => a - b)
      .map(([k, n]) => `${k}:${n}`)
      .join(' ')}`,
  );
  for (const f of failures) console.log(`  ${f}`);
  if (notSucceeded.length) console.log(`  no 2xx answer: ${notSucceeded.join(', ')}`);
  assert.deepEqual(failures, [], 'answers the documents do not allow');
  assert.equal(covered.size, ops.length, 'every documented operation was called');
  assert.ok(validated >= 200, `at least 200 answers validated (${validated})`);
}
