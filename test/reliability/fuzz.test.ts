import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startTestServer } from '../helpers/server.ts';
import { seedTicketsFixture } from '../helpers/tickets-fixture.ts';
import { setProxyDeps } from '../../server/routes/oembed/proxy-deps.ts';
import { FetchRefused } from '../../server/net/guarded-fetch.ts';
import { loadOperations } from './openapi-ops.ts';
import { batchArb, requestArb, type FuzzRequest, type Role } from './fuzz-gen.ts';
import { judge } from './fuzz-judge.ts';
import { profile, report } from './profile.ts';
import { integrityCheck } from './seed.ts';

/**
 * Issue 6 item 3: requests generated with fast-check from the server's own OpenAPI documents, valid and
 * hostile, for every documented path and method (plus `POST /batch/v1`), as anonymous, a door key and an
 * administrator. No 5xx, every error in the envelope with `data.status` equal to the HTTP status (batch
 * items too), and the database intact afterwards.
 */

const P = profile();
const WORKERS = 8;

describe('hostile input from the OpenAPI documents', { timeout: 20 * 60_000 }, () => {
  test(`${P.fuzzRequests} generated requests`, { timeout: 15 * 60_000 }, async () => {
    const srv = await startTestServer();
    // The oEmbed proxy must never reach out: every name resolves to loopback, which the policy refuses.
    setProxyDeps(srv.app.state, {
      policy: {
        resolve: async () => [{ address: '127.0.0.1', family: 4 }],
        transport: async () => {
          throw new FetchRefused('no network in the fuzzer');
        },
      },
    });
    try {
      await seedTicketsFixture(srv.db, { attendees: 4, provider: 'tc' });
      await seedTicketsFixture(srv.db, { attendees: 3, provider: 'rsvp', eventPassword: 'secret' });
      await seedTicketsFixture(srv.db, { attendees: 2, eventStatus: 'draft' });
      const auth: Record<Role, string | null> = { anonymous: null, door: `Bearer ${(await srv.apiKey('Fuzz door')).key}`, admin: srv.admin };
      const ids = ((await srv.db.prepare('SELECT id FROM posts ORDER BY id').all()) as { id: number }[]).map((r) => r.id);
      const unknownIds = [999_999, 2 ** 31, 2 ** 53 + 2, 0];
      const { namespaces, ops } = await loadOperations(srv.root);
      assert.ok(ops.length > 50, `the documents list the operations (${ops.length})`);

      const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
      const arbs = ops.map((op) => requestArb(op, ids, unknownIds));
      // Batches get 5% of the requests; the rest go round-robin over the operations, each its share.
      const batches = Math.ceil(P.fuzzRequests / 20);
      const per = Math.ceil((P.fuzzRequests - batches) / arbs.length);
      const samples = arbs.map((a, i) => fc.sample(a, { numRuns: per, seed: seed + i }));
      const batchSamples = fc.sample(batchArb(ops, ids, unknownIds), { numRuns: batches, seed: seed - 1 });
      const queue: FuzzRequest[] = [];
      for (let n = 0; n < per; n++) for (const s of samples) queue.push(s[n]!);
      batchSamples.forEach((b, i) => queue.splice(Math.floor((i * queue.length) / batches), 0, b));

      const problems = new Map<string, string[]>();
      const statuses = new Map<number, number>();
      let sent = 0;
      let fivexx = 0;
      let resets = 0;
      const resetLabels = new Set<string>();
      const worker = async () => {
        for (let r = queue.shift(); r; r = queue.shift()) {
          const headers: Record<string, string> = {};
          const a = auth[r.role];
          if (a) headers.authorization = a;
          if (r.contentType) headers['content-type'] = r.contentType;
          let res: Response;
          let text: string;
          const send = async () => {
            res = await fetch(`${srv.root}${r.url}`, { method: r.method, headers, body: r.body ?? undefined, signal: AbortSignal.timeout(60_000) });
            text = await res.text();
          };
          try {
            try {
              await send();
            } catch {
              // A pooled keep-alive connection can be closed by the server just as it is reused; the same
              // request again on a fresh connection tells that race from a request that kills its socket.
              resets++;
              resetLabels.add(r.label);
              await send();
            }
          } catch (e) {
            // No answer at all (the connection dropped) is as bad as a 5xx.
            sent++;
            fivexx++;
            const cause = (e as { cause?: { message?: string } }).cause?.message ?? (e as Error).message;
            const list = problems.get(r.label) ?? [];
            if (list.length < 3)
              list.push(`no answer (${cause}) <- ${r.role} ${r.kind} ${r.method} /${r.url.slice(0, 200)} ${r.body?.slice(0, 200) ?? ''}`);
            problems.set(r.label, list);
            continue;
          }
          sent++;
          res = res!;
          text = text!;
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          const bad = judge(res.status, text, { batch: r.url === 'batch/v1', label: r.label });
          if (bad) {
            if (res.status >= 500 || bad.includes(': 5')) fivexx++;
            const list = problems.get(r.label) ?? [];
            if (list.length < 3) list.push(`${bad} <- ${r.role} ${r.kind} ${r.method} /${r.url.slice(0, 200)} ${r.body?.slice(0, 200) ?? ''}`);
            problems.set(r.label, list);
          }
        }
      };
      await Promise.all(Array.from({ length: WORKERS }, worker));
      const integrity = await integrityCheck(srv.db);
      report('fuzz', {
        requests_fuzzed: sent,
        operations: ops.length + 1,
        namespaces: namespaces.length,
        seed,
        '5xx': fivexx,
        connection_resets_retried: resets,
        bad_routes: problems.size,
        statuses: [...statuses]
          .sort((x, y) => x[0] - y[0])
          .map(([s, n]) => `${s}:${n}`)
          .join(','),
        integrity,
      });
      if (resets) process.stdout.write(`  connections reset then answered on retry: ${[...resetLabels].join(', ')}\n`);
      for (const [label, list] of problems) process.stdout.write(`  ${label}\n    ${list.join('\n    ')}\n`);
      assert.ok(sent >= P.fuzzRequests);
      assert.deepEqual([...problems.keys()], [], 'routes with a 5xx or an error outside the envelope');
      assert.equal(integrity, 'ok');
    } finally {
      await srv.close();
    }
  });
});
