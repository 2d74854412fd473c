import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { CliError } from '../../server/cli.ts';
import { call } from '../helpers/server.ts';
import { createApp } from '../../server/app.ts';
import { loadConfig } from '../../server/config.ts';
import { openDatabase } from '../../server/db/connection.ts';
import { cliSandbox } from '../helpers/cli.ts';

const cli = cliSandbox('doorstep-cli-', (dir) => ({
  EVT_DB: path.join(dir, 'evt.sqlite'),
  EVT_LOG: 'off',
  EVT_PUBLIC_URL: 'http://door.example:8080',
}));
const run = cli.run;

describe('operator CLI', () => {
  test('user add validates role and e-mail and refuses duplicates', async () => {
    assert.match((await run('user', 'add', 'alice', '--role', 'organizer', '--email', 'alice@example.org'))[0], /Created organizer "alice"/);
    await assert.rejects(run('user', 'add', 'alice', '--role', 'organizer'), CliError);
    await assert.rejects(run('user', 'add', 'bob', '--role', 'king'), /--role must be/);
    await assert.rejects(run('user', 'add', 'bob', '--role', 'door', '--email', 'nope'), /not an e-mail/);
  });

  test('app-password create prints a password that signs in over HTTP Basic', async () => {
    const lines = await run('app-password', 'create', 'alice', '--name', 'laptop');
    const password = lines[lines.length - 1];
    assert.match(password, /^([A-Za-z0-9]{4} ){5}[A-Za-z0-9]{4}$/);
    await assert.rejects(run('app-password', 'create', 'nobody'), /no user/);
    // Serve the CLI's database and sign in with the printed password.
    const db = await openDatabase(cli.env.EVT_DB);
    const app = await createApp({ config: loadConfig({ ...cli.env, PORT: '0' }), db });
    const srv = app.express.listen(0, '127.0.0.1');
    await new Promise((r) => srv.once('listening', r));
    const port = (srv.address() as { port: number }).port;
    const r = await call(`http://127.0.0.1:${port}/wp-json/evt/events/v1/events`, {
      method: 'POST',
      auth: `Basic ${Buffer.from(`alice:${password}`).toString('base64')}`,
      body: { title: 'By Alice', start_date: '2031-01-01', end_date: '2031-01-01' },
    });
    assert.equal(r.status, 201);
    await new Promise((r) => srv.close(r));
    await db.close();
  });

  test('api-key create/list/revoke; with --event it prints the pairing link and writes the pairing QR', async () => {
    const plain = await run('api-key', 'create', '--label', 'Door 1');
    assert.match(plain[plain.length - 1], /^dsk_\d+_[A-Za-z0-9]{32}$/);
    await assert.rejects(run('api-key', 'create', '--label', 'X', '--event', '999999'), /not an event/);
    const db = await openDatabase(cli.env.EVT_DB);
    const eventId = ((await db.prepare("SELECT id FROM posts WHERE type = 'event' ORDER BY id LIMIT 1").get()) as { id: number }).id;
    await db.close();
    const paired = await run('api-key', 'create', '--label', 'Door 2', '--event', String(eventId));
    const link = paired.find((l) => l.startsWith('Pairing link: '))!.slice('Pairing link: '.length);
    const payload = JSON.parse(Buffer.from(link.split('#pair=')[1], 'base64url').toString());
    // With the event's signing key (CONTRACT section 8) for the kiosk to pin.
    assert.deepEqual(Object.keys(payload), ['url', 'api_key', 'event_id', 'signing_key', 'signing_key_id']);
    assert.deepEqual(
      { ...payload, signing_key: undefined, signing_key_id: undefined },
      {
        url: 'http://door.example:8080/en/wp-json/',
        api_key: paired[paired.length - 1],
        event_id: eventId,
        signing_key: undefined,
        signing_key_id: undefined,
      },
    );
    const keyDb = await openDatabase(cli.env.EVT_DB);
    const stored = await keyDb.prepare('SELECT kid, public_key FROM evt_signing_keys WHERE event_id = ? AND retired_ms IS NULL').get(eventId);
    await keyDb.close();
    assert.deepEqual({ ...(stored as object) }, { kid: payload.signing_key_id, public_key: payload.signing_key });
    const files = /Pairing QR: (\S+) and (\S+)/.exec(paired.join('\n'))!;
    assert.ok(fs.readFileSync(files[1]).subarray(1, 4).toString() === 'PNG');
    assert.match(fs.readFileSync(files[2], 'utf8'), /<svg/);
    const list = await run('api-key', 'list');
    assert.match(list[0], /^ID\s+LABEL\s+EVENT\s+CREATED\s+LAST USED\s+STATE$/);
    assert.equal(list.length, 3);
    assert.match(list[1], /^1\s+Door 1\s+all\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\s+never\s+active$/);
    assert.match(list[2], new RegExp(`^2\\s+Door 2\\s+${eventId}\\s`));
    assert.match((await run('api-key', 'revoke', '1'))[0], /Revoked API key 1/);
    assert.match((await run('api-key', 'list'))[1], /REVOKED/);
    await assert.rejects(run('api-key', 'revoke', '1'), /no active API key/);
  });

  test("api-key revoke deletes the key's pairing images", async () => {
    const db = await openDatabase(cli.env.EVT_DB);
    const eventId = ((await db.prepare("SELECT id FROM posts WHERE type = 'event' ORDER BY id LIMIT 1").get()) as { id: number }).id;
    await db.close();
    const paired = await run('api-key', 'create', '--label', 'Door 3', '--event', String(eventId));
    const id = /Created API key (\d+)/.exec(paired[0])![1];
    const [, png, svg] = /Pairing QR: (\S+) and (\S+)/.exec(paired.join('\n'))!;
    assert.ok(fs.existsSync(png) && fs.existsSync(svg));
    const out = await run('api-key', 'revoke', id);
    assert.match(out[0], new RegExp(`Revoked API key ${id}`));
    assert.ok(!fs.existsSync(png), 'the PNG is gone');
    assert.ok(!fs.existsSync(svg), 'the SVG is gone');
    // Images left behind by an earlier revoke (before this rule) go on the next attempt, which still reports
    // that the key was not active.
    fs.writeFileSync(png, 'old');
    await assert.rejects(run('api-key', 'revoke', id), /no active API key/);
    assert.ok(!fs.existsSync(png));
  });

  test('app-password list shows id, name, created, last use and address, never a hash; revoke refuses the password at once', async () => {
    await run('user', 'add', 'bob', '--role', 'organizer');
    const created = await run('app-password', 'create', 'bob', '--name', 'phone');
    const password = created[created.length - 1];
    await run('app-password', 'create', 'bob', '--name', 'tablet');
    const db = await openDatabase(cli.env.EVT_DB);
    const app = await createApp({ config: loadConfig({ ...cli.env, PORT: '0' }), db });
    const srv = app.express.listen(0, '127.0.0.1');
    await new Promise((r) => srv.once('listening', r));
    try {
      const port = (srv.address() as { port: number }).port;
      const auth = `Basic ${Buffer.from(`bob:${password}`).toString('base64')}`;
      const url = `http://127.0.0.1:${port}/wp-json/evt/events/v1/events?status=draft`;
      assert.equal((await call(url, { auth })).status, 200);
      assert.equal((await call(url, { auth })).status, 200, 'the second sign-in is answered from the verified cache');

      const list = await run('app-password', 'list', 'bob');
      assert.match(list[0], /^ID\s+NAME\s+CREATED\s+LAST USED\s+LAST IP$/);
      assert.equal(list.length, 3);
      const phone = list.find((l) => /\bphone\b/.test(l))!;
      assert.match(phone, /^\d+\s+phone\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\s+127\.0\.0\.1$/);
      assert.match(list.find((l) => /\btablet\b/.test(l))!, /\snever\s+-$/);
      const hashes = (await db.prepare('SELECT hash FROM app_passwords').all()) as { hash: string }[];
      for (const { hash } of hashes) assert.ok(!list.join('\n').includes(hash.split('$')[5]));
      assert.ok(!list.join('\n').includes('scrypt'));

      const id = phone.split(/\s+/)[0];
      await assert.rejects(run('app-password', 'revoke', 'alice', id), /no application password/);
      assert.match((await run('app-password', 'revoke', 'bob', id))[0], new RegExp(`Revoked application password ${id} \\("phone"\\) of "bob"`));
      const refused = await call(url, { auth });
      assert.equal(refused.status, 401);
      assert.equal(refused.body.code, 'incorrect_password');
      assert.equal((await run('app-password', 'list', 'bob')).length, 2);
      await assert.rejects(run('app-password', 'revoke', 'bob', id), /no application password/);
      await assert.rejects(run('app-password', 'list', 'nobody'), /no user/);
      await assert.rejects(run('app-password', 'revoke', 'bob'), /needs/);
    } finally {
      await new Promise((r) => srv.close(r));
      await db.close();
    }
  });

  test('demo fills an empty database with events, tickets, attendees and a door key; only an empty one', async () => {
    cli.env = { ...cli.env, EVT_DB: path.join(cli.dir, 'demo.sqlite') };
    const out = await run('demo', '--events', '20', '--attendees', '60');
    assert.match(out[0], /Created 8 venues, 6 organizers, 7 categories, 10 tags and 20 events/);
    assert.ok(out.some((l) => /Created \d+ tickets and 60 attendees/.test(l)));
    assert.ok(out.some((l) => l.startsWith('Pair a kiosk by opening http://door.example:8080/kiosk/#pair=')));
    const db = await openDatabase(cli.env.EVT_DB);
    assert.equal(((await db.prepare("SELECT COUNT(*) AS n FROM posts WHERE type = 'event'").get()) as { n: number }).n, 20);
    assert.equal(((await db.prepare('SELECT COUNT(*) AS n FROM attendees').get()) as { n: number }).n, 60);
    await db.close();
    await assert.rejects(run('demo', '--events', '2'), /only fills an empty one/);
    await assert.rejects(run('frobnicate'), /unknown command/);
    assert.match((await run('help'))[0], /Usage/);
  });

  test('--help on the command line and on every command; unknown flags and commands are refused (exit code 2)', async () => {
    const top = await run('--help');
    assert.match(top[0], /^Usage: npm run cli -- <command>/);
    for (const c of [
      'user add',
      'user list',
      'app-password create',
      'app-password list',
      'app-password revoke',
      'api-key create',
      'api-key list',
      'api-key revoke',
      'demo',
      'backup',
      'tls-selfsigned',
    ]) {
      assert.match(top[0], new RegExp(`\\n  ${c}\\b`), c);
      const help = await run(...c.split(' '), '--help');
      assert.match(help[0], new RegExp(`^Usage: npm run cli -- ${c}\\b`), c);
      assert.deepEqual(await run('help', ...c.split(' ')), help);
    }
    assert.match((await run('backup', '-h'))[0], /Restore: stop the server/);
    await assert.rejects(
      run('user', 'add', 'carol', '--role', 'door', '--colour', 'red'),
      (e: Error) => e instanceof CliError && /Unknown option '--colour'/.test(e.message),
    );
    await assert.rejects(run('api-key', 'list', 'extra'), (e: Error) => e instanceof CliError && /unexpected argument extra/.test(e.message));
    await assert.rejects(run('--frobnicate'), CliError);
    await assert.rejects(run('user', 'add'), /user add needs <login>/);
    const { spawnSync } = await import('node:child_process');
    const proc = spawnSync(process.execPath, ['--import', 'tsx', 'server/cli.ts', 'api-key', 'list', '--bogus'], {
      env: { ...process.env, ...cli.env },
      encoding: 'utf8',
    });
    assert.equal(proc.status, 2);
    assert.match(proc.stderr, /Unknown option '--bogus'/);
    assert.equal(proc.stdout, '');
  });

  test('user list is a table with a header', async () => {
    // (on the demo database of the test above)
    const list = await run('user', 'list');
    assert.match(list[0], /^ID\s+LOGIN\s+ROLE\s+EMAIL\s+REGISTERED$/);
    assert.ok(
      list.some((l) => /^\d+\s+demo-admin\s+administrator\s+admin@doorstep\.example\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/.test(l)),
      list.join('\n'),
    );
  });
});
