import type { SqliteDb } from '../../../server/db/engine/sqlite.ts';
import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { runCli, CliError } from '../../../server/cli.ts';
import { openDatabase } from '../../../server/db/connection.ts';
import { cliSandbox } from '../../helpers/cli.ts';

const cli = cliSandbox('doorstep-backup-', (dir) => ({ EVT_DB: path.join(dir, 'live', 'evt.sqlite'), EVT_LOG: 'off' }));
const run = cli.run;

describe('cli backup', () => {
  test('a consistent, checked, private copy of a database in use, including what sits in its WAL', async () => {
    await run('user', 'add', 'first', '--role', 'organizer');
    // A connection that keeps writing and never checkpoints: the rows live in the -wal file only.
    const live = await openDatabase(cli.env.EVT_DB);
    (live as SqliteDb).raw.pragma('wal_autocheckpoint = 0');
    const insert = live.prepare("INSERT INTO options (name, value) VALUES (?, 'x')");
    for (let i = 0; i < 200; i++) await insert.run(`backup-test-${i}`);
    assert.ok(fs.statSync(`${cli.env.EVT_DB}-wal`).size > 0);
    const target = path.join(cli.dir, 'copies', 'nightly.sqlite');
    const out = await run('backup', target);
    assert.match(out[0], /^Backed up .*evt\.sqlite to .*nightly\.sqlite: [\d.]+ MB, \d+ pages, integrity_check ok/);
    assert.equal(fs.statSync(target).mode & 0o777, 0o600);
    assert.deepEqual(fs.readdirSync(path.dirname(target)), ['nightly.sqlite'], 'no temporary, -wal or -shm file left beside it');
    const copy = new Database(target, { readonly: true });
    try {
      assert.equal((copy.prepare("SELECT COUNT(*) AS n FROM options WHERE name LIKE 'backup-test-%'").get() as { n: number }).n, 200);
      assert.equal((copy.prepare("SELECT login FROM users WHERE login = 'first'").get() as { login: string }).login, 'first');
    } finally {
      copy.close();
    }
    await live.close();

    await assert.rejects(run('backup', target), /exists: pass --force/);
    await run('user', 'add', 'second', '--role', 'door');
    await run('backup', target, '--force');
    const again = new Database(target, { readonly: true });
    assert.equal((again.prepare("SELECT COUNT(*) AS n FROM users WHERE login = 'second'").get() as { n: number }).n, 1);
    again.close();
  });

  test('refuses what would lose data: no database, or a target that is the database', async () => {
    await assert.rejects(run('backup', cli.env.EVT_DB), /must not overwrite the database/);
    await assert.rejects(run('backup', `${cli.env.EVT_DB}-wal`, '--force'), /must not overwrite/);
    await assert.rejects(
      runCli(['backup', path.join(cli.dir, 'x.sqlite')], { ...cli.env, EVT_DB: path.join(cli.dir, 'none.sqlite') }, () => {}),
      /no database at/,
    );
    assert.ok(!fs.existsSync(path.join(cli.dir, 'none.sqlite')), 'backup never creates an empty database');
    await assert.rejects(run('backup'), (e: Error) => e instanceof CliError && /backup needs <file>/.test(e.message));
  });

  test('the documented restore: stop, copy the backup over EVT_DB, remove -wal and -shm, start', async () => {
    const target = path.join(cli.dir, 'copies', 'restore.sqlite');
    await run('backup', target);
    await run('user', 'add', 'after-backup', '--role', 'door');
    for (const f of [`${cli.env.EVT_DB}-wal`, `${cli.env.EVT_DB}-shm`]) fs.rmSync(f, { force: true });
    fs.copyFileSync(target, cli.env.EVT_DB);
    const users = await run('user', 'list');
    assert.ok(users.some((l) => /\bsecond\b/.test(l)));
    assert.ok(!users.some((l) => /after-backup/.test(l)), 'the database is as it was at the backup');
  });
});
