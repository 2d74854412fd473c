import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import http from 'node:http';
import { startTestServer, call, type TestServer } from '../../helpers/server.ts';

/**
 * `multipart/form-data` bodies (what `FormData` clients send) are taken on every route as WordPress takes them:
 * their fields are form parameters exactly as a urlencoded body's (bracketed names included), file parts reach
 * only routes that take files, and a malformed, oversized or over-crowded multipart body is refused in the error
 * envelope without writing anything.
 */

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s.close();
});

const EVENTS = () => `${s.root}evt/events/v1`;

/** A multipart body built by hand (so the tests control every byte), from [name, value] pairs. */
function multipart(fields: Array<[string, string]>, boundary = 'doorstep-test-boundary'): { body: Buffer; type: string } {
  const parts = fields.map(([n, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${n}"\r\n\r\n${v}\r\n`);
  return { body: Buffer.from(`${parts.join('')}--${boundary}--\r\n`), type: `multipart/form-data; boundary=${boundary}` };
}

/** Sends a raw body with node:http (fetch would not send a truncated or mislabelled body as given). */
function raw(
  method: string,
  url: string,
  headers: Record<string, string>,
  body: Buffer,
): Promise<{ status: number; body: any; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: { ...headers, 'content-length': String(body.length) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = text;
        }
        resolve({ status: res.statusCode ?? 0, body: parsed, headers: res.headers });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function postCount(): Promise<number> {
  return ((await s.db.prepare('SELECT COUNT(*) AS n FROM posts').get()) as { n: number }).n;
}

/** The answer without what differs between two creates of the same thing (IDs, slugs, URLs, times). */
function stable(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(stable);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      // `count` is a term's use count (the second create uses the same terms again); an event's `website`
      // defaults to its own URL, which has the slug in it.
      if (/^(id|global_id|global_id_lineage|slug|url|rest_url|date|date_utc|modified|modified_utc|json_ld|link|permalink|count|website)$/.test(k))
        continue;
      out[k] = stable(x);
    }
    return out;
  }
  return v;
}

const EVENT_FIELDS: Array<[string, string]> = [
  ['title', 'Multipart concert'],
  ['description', 'A body sent as FormData & co.'],
  ['start_date', '2031-05-01 19:00:00'],
  ['end_date', '2031-05-01 21:00:00'],
  ['venue[venue]', 'Kultuurikatel'],
  ['venue[city]', 'Tallinn'],
  ['venue[country]', 'Estonia'],
  ['organizer[0][organizer]', 'Door Org'],
  ['organizer[0][email]', 'org@example.test'],
  ['tags[]', 'jazz'],
  ['tags[]', 'live music'],
  ['categories[]', 'concerts'],
];

test('a multipart create of an event with bracketed fields gives the same event as the urlencoded create', async () => {
  const mp = multipart(EVENT_FIELDS);
  const viaMultipart = await raw('POST', `${EVENTS()}/events`, { authorization: s.admin, 'content-type': mp.type }, mp.body);
  assert.equal(viaMultipart.status, 201, JSON.stringify(viaMultipart.body));
  assert.equal(viaMultipart.body.title, 'Multipart concert');
  assert.equal(viaMultipart.body.venue.venue, 'Kultuurikatel');
  assert.equal(viaMultipart.body.venue.city, 'Tallinn');
  assert.deepEqual(viaMultipart.body.tags.map((t: { name: string }) => t.name).sort(), ['jazz', 'live music']);

  const form = EVENT_FIELDS.map(([n, v]) => `${encodeURIComponent(n)}=${encodeURIComponent(v)}`).join('&');
  const viaForm = await raw(
    'POST',
    `${EVENTS()}/events`,
    { authorization: s.admin, 'content-type': 'application/x-www-form-urlencoded' },
    Buffer.from(form),
  );
  assert.equal(viaForm.status, 201, JSON.stringify(viaForm.body));
  assert.deepEqual(stable(viaMultipart.body), stable(viaForm.body));
});

test('a multipart create of a venue gives the same venue as the urlencoded create', async () => {
  const fields: Array<[string, string]> = [
    ['venue', 'Vaba Lava'],
    ['address', 'Telliskivi 60a/3'],
    ['city', 'Tallinn'],
    ['zip', '10412'],
    ['website', 'https://vabalava.example'],
    ['show_map', 'false'],
  ];
  const mp = multipart(fields);
  const a = await raw('POST', `${EVENTS()}/venues`, { authorization: s.admin, 'content-type': mp.type }, mp.body);
  assert.equal(a.status, 201, JSON.stringify(a.body));
  assert.equal(a.body.venue, 'Vaba Lava');
  assert.equal(a.body.show_map, false);
  const b = await call(`${EVENTS()}/venues`, { method: 'POST', auth: s.admin, form: Object.fromEntries(fields) });
  assert.equal(b.status, 201);
  assert.deepEqual(stable(a.body), stable(b.body));
});

test("a FormData body from Node's own FormData and fetch creates the venue; a file part on a route that takes none is ignored", async () => {
  const fd = new FormData();
  fd.append('venue', 'FormData Hall');
  fd.append('city', 'Tartu');
  fd.append('title', new Blob(['not a field']), 'title.txt');
  const res = await fetch(`${EVENTS()}/venues`, { method: 'POST', headers: { authorization: s.admin }, body: fd });
  const body = (await res.json()) as any;
  assert.equal(res.status, 201, JSON.stringify(body));
  assert.equal(body.venue, 'FormData Hall');
  assert.equal(body.city, 'Tartu');
  // The read back agrees.
  const read = await call(`${EVENTS()}/venues/${body.id}`);
  assert.equal(read.body.city, 'Tartu');

  // A file part does not stand in for a required field (WordPress keeps it in $_FILES): title is missing.
  const fd2 = new FormData();
  fd2.append('title', new Blob(['Sneaky']), 'title.txt');
  fd2.append('start_date', '2031-06-01 10:00:00');
  fd2.append('end_date', '2031-06-01 11:00:00');
  const before = await postCount();
  const r2 = await fetch(`${EVENTS()}/events`, { method: 'POST', headers: { authorization: s.admin }, body: fd2 });
  const b2 = (await r2.json()) as any;
  assert.equal(r2.status, 400);
  assert.equal(b2.code, 'rest_missing_callback_param');
  assert.deepEqual(b2.data.params, ['title']);
  assert.equal(await postCount(), before);
});

test('the upload route receives its file from a multipart body', async () => {
  const bytes = Buffer.from('name,email\nMari,mari@example.test\n');
  const fd = new FormData();
  fd.append('file', new Blob([bytes], { type: 'text/csv' }), 'guests.csv');
  const res = await fetch(`${s.root}protected-files/v1/files`, { method: 'POST', headers: { authorization: s.admin }, body: fd });
  const body = (await res.json()) as any;
  assert.equal(res.status, 201, JSON.stringify(body));
  assert.equal(body.file.name, 'guests.csv');
  assert.equal(body.file.filesize, bytes.length);
  assert.equal(body.file.sha256, crypto.createHash('sha256').update(bytes).digest('hex'));
  const download = await fetch(body.file.url);
  assert.equal(download.status, 200);
  assert.deepEqual(Buffer.from(await download.arrayBuffer()), bytes);

  // A `filename` field names the file; the part's own name is then not used.
  const fd2 = new FormData();
  fd2.append('filename', 'renamed.txt');
  fd2.append('file', new Blob(['plain text']), 'ignored.txt');
  const r2 = await fetch(`${s.root}protected-files/v1/files`, { method: 'POST', headers: { authorization: s.admin }, body: fd2 });
  const b2 = (await r2.json()) as any;
  assert.equal(r2.status, 201, JSON.stringify(b2));
  assert.equal(b2.file.name, 'renamed.txt');

  // A path in the part's file name is dropped; the route's own checks still apply to a file sent this way.
  const fd3 = new FormData();
  fd3.append('file', new Blob(['path']), '../../tmp/escape.txt');
  const r3 = await fetch(`${s.root}protected-files/v1/files`, { method: 'POST', headers: { authorization: s.admin }, body: fd3 });
  const b3 = (await r3.json()) as any;
  assert.equal(r3.status, 201, JSON.stringify(b3));
  assert.equal(b3.file.name, 'escape.txt');
  const fd4 = new FormData();
  fd4.append('file', new Blob([bytes]), 'run.exe');
  const before = await postCount();
  const r4 = await fetch(`${s.root}protected-files/v1/files`, { method: 'POST', headers: { authorization: s.admin }, body: fd4 });
  const b4 = (await r4.json()) as any;
  assert.equal(r4.status, 400);
  assert.equal(b4.code, 'rest_invalid_param');
  assert.equal(b4.data.details.filename.code, 'rest_invalid_file_name');
  // A door user (no edit_events) is refused whatever the body.
  const fd5 = new FormData();
  fd5.append('file', new Blob([bytes]), 'guests.csv');
  const r5 = await fetch(`${s.root}protected-files/v1/files`, { method: 'POST', headers: { authorization: await s.userAuth('door') }, body: fd5 });
  assert.equal(r5.status, 403);
  assert.equal(await postCount(), before);
});

test('hostile multipart bodies are refused in the error envelope and write nothing', async () => {
  const before = await postCount();
  const url = `${EVENTS()}/venues`;
  const boundary = 'b0undary';
  const type = `multipart/form-data; boundary=${boundary}`;

  // 2 MiB of multipart: over the 1 MiB body limit.
  const big = multipart(
    [
      ['venue', 'Big'],
      ['description', 'x'.repeat(2 * 1024 * 1024)],
    ],
    boundary,
  );
  const r1 = await raw('POST', url, { authorization: s.admin, 'content-type': type }, big.body);
  assert.equal(r1.status, 413);
  assert.equal(r1.body.code, 'rest_payload_too_large');

  // 10,000 fields, well under 1 MiB.
  const many = multipart([['venue', 'Crowded'], ...Array.from({ length: 10_000 }, (_, i) => [`f${i}`, '1'] as [string, string])], boundary);
  assert.ok(many.body.length < 1024 * 1024);
  const r2 = await raw('POST', url, { authorization: s.admin, 'content-type': type }, many.body);
  assert.ok(r2.status === 413 || r2.status === 400, String(r2.status));
  assert.equal(r2.body.code, 'rest_too_many_parts');
  assert.equal(typeof r2.body.message, 'string');

  // Truncated: a complete field, then a part cut off before its closing boundary.
  const truncated = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="venue"\r\n\r\nTruncated\r\n--${boundary}\r\nContent-Disposition: form-data; name="city"\r\n\r\nTa`,
  );
  const r3 = await raw('POST', url, { authorization: s.admin, 'content-type': type }, truncated);
  assert.equal(r3.status, 400);
  assert.equal(r3.body.code, 'rest_invalid_multipart');
  assert.equal(r3.body.data.status, 400);

  // No boundary in the content type.
  const whole = multipart([['venue', 'No boundary']], boundary);
  const r4 = await raw('POST', url, { authorization: s.admin, 'content-type': 'multipart/form-data' }, whole.body);
  assert.equal(r4.status, 400);
  assert.equal(r4.body.code, 'rest_invalid_multipart');

  // A boundary the body does not use.
  const r5 = await raw('POST', url, { authorization: s.admin, 'content-type': 'multipart/form-data; boundary=other' }, whole.body);
  assert.equal(r5.status, 400);
  assert.equal(r5.body.code, 'rest_invalid_multipart');

  // Eleven file parts.
  const fd = new FormData();
  fd.append('venue', 'Files');
  for (let i = 0; i < 11; i++) fd.append(`f${i}`, new Blob(['x']), `f${i}.txt`);
  const r6 = await fetch(url, { method: 'POST', headers: { authorization: s.admin }, body: fd });
  assert.equal(r6.status, 413);
  assert.equal(((await r6.json()) as any).code, 'rest_too_many_parts');

  assert.equal(await postCount(), before);
  // The server still answers.
  assert.equal((await call(`${EVENTS()}/venues`)).status, 200);
});
