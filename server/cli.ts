import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { z } from 'zod';
import { certificateFingerprint, loadConfig, type Config } from './config.ts';
import { openDatabase, type Db } from './db/connection.ts';
import { recordAnyChange } from './db/change-feed.ts';
import { describeDb, isPostgresSpec } from './db/engine/types.ts';
import { backupDatabase } from './ops/backup.ts';
import { migrateToPostgres, MigrationRefused } from './ops/copy-to-postgres.ts';
import { createApiKey, createAppPassword } from './auth/credentials.ts';
import { findUserByLogin, insertUser, listUsers, type UserRow } from './db/repos/users.ts';
import { listApiKeys, revokeApiKey } from './db/repos/api-keys.ts';
import { getPost } from './db/repos/posts.ts';
import { getCheckinList } from './db/repos/checkin-lists.ts';
import { Role } from '../shared/auth.ts';
import { runDemo } from './demo/demo.ts';
import { pairingLink, removePairingQr, writePairingQr } from './pairing.ts';
import { appPasswordsOf, deleteAppPassword } from './db/repos/app-passwords.ts';
import { privateDir, privateFile, writePrivateFile } from './auth/private-files.ts';
import { resolveSiteSecret } from './db/repos/site-options.ts';
import { signingKeysOf } from './db/repos/signing-keys.ts';
import { ensureSigningKey, revokeEventSigningKey, rotateSigningKey } from './security/ticket-signing.ts';
import { SIGNING_KEY_ID } from '../shared/checkin/signature.ts';
import { hubStatusReport } from './hub/status-report.ts';

/**
 * The operators' command line: `npm run cli -- <command>` (the built dist/server/cli.js; `npm run dev:cli` runs
 * the TypeScript). Every command answers `--help`; an unknown command or flag is refused with exit code 2.
 * Commands that create a secret print it as their last line, alone, so scripts can take it with `tail -n1`.
 */

export class CliError extends Error {}

type Options = NonNullable<ParseArgsConfig['options']>;
type Out = (line: string) => void;

interface Command {
  /** `user add <login>`: the words that select it. */
  words: string[];
  usage: string;
  summary: string;
  help?: string;
  options: Options;
  /** Positional arguments after the command's words: required names, then optional ones. */
  args: { required: string[]; optional?: string[] };
  /** Opens the database itself when it needs one (`withDb` creates and migrates it; `backup` needs an existing one). */
  run: (c: {
    config: Config;
    env: Record<string, string | undefined>;
    args: string[];
    flags: Record<string, string | boolean | string[] | undefined>;
    out: Out;
  }) => Promise<void> | void;
}

const ENV_NOTE = 'Environment: EVT_DB (default data/evt.sqlite), EVT_PUBLIC_URL, PORT, HOST, EVT_TLS_CERT and EVT_TLS_KEY, as for npm start.';

function positiveInt(v: string | undefined, name: string, dflt: number): number {
  if (v === undefined) return dflt;
  if (!/^\d{1,15}$/.test(v)) throw new CliError(`${name} must be a whole number`);
  return Number(v);
}

/** Lines of a plain table: a header row, columns padded to their widest cell, separated by two spaces. */
export function table(head: string[], rows: string[][]): string[] {
  const width = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  return [head, ...rows].map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(width[i]))).join('  '));
}

async function withDb<T>(config: Config, f: (db: Db) => T | Promise<T>): Promise<T> {
  const db = await openDatabase(config.dbFile, { poolSize: 2 });
  try {
    return await f(db);
  } finally {
    // Servers sharing state through the database learn of the CLI's writes from the change log only.
    try {
      await recordAnyChange(db);
    } finally {
      await db.close();
    }
  }
}

/** `--event N` of the signing-key commands: an event's ID. */
async function signingEvent(db: Db, flag: unknown): Promise<number> {
  if (typeof flag !== 'string') throw new CliError('--event N is required');
  const eventId = positiveInt(flag, '--event', 0);
  if ((await getPost(db, eventId))?.type !== 'event') throw new CliError(`${eventId} is not an event ID`);
  return eventId;
}

async function userOf(db: Db, login: string): Promise<UserRow> {
  const u = await findUserByLogin(db, login);
  if (!u) throw new CliError(`no user "${login}"`);
  return u;
}

const COMMANDS: Command[] = [
  {
    words: ['user', 'add'],
    usage: 'user add <login> --role administrator|organizer|door [--email E] [--name "Display Name"]',
    summary: 'adds a user (no password: give it an application password)',
    options: { role: { type: 'string' }, email: { type: 'string' }, name: { type: 'string' } },
    args: { required: ['login'] },
    run: ({ config, args: [login], flags, out }) =>
      withDb(config, async (db) => {
        const role = Role.safeParse(flags.role);
        if (!role.success) throw new CliError('--role must be administrator, organizer or door');
        const email = (flags.email as string | undefined) ?? '';
        if (email && !z.email().safeParse(email).success) throw new CliError(`--email ${email} is not an e-mail address`);
        if (await findUserByLogin(db, login)) throw new CliError(`a user "${login}" already exists`);
        const u = await insertUser(db, { login, email, displayName: flags.name as string | undefined, role: role.data });
        out(`Created ${u.role} "${u.login}" (user ID ${u.id}).`);
      }),
  },
  {
    words: ['user', 'list'],
    usage: 'user list',
    summary: 'users: ID, login, role, e-mail, registered',
    options: {},
    args: { required: [] },
    run: ({ config, out }) =>
      withDb(config, async (db) => {
        const users = await listUsers(db);
        if (!users.length) return out('No users.');
        for (const line of table(
          ['ID', 'LOGIN', 'ROLE', 'EMAIL', 'REGISTERED'],
          users.map((u) => [String(u.id), u.login, u.role, u.email || '-', u.registered]),
        ))
          out(line);
      }),
  },
  {
    words: ['app-password', 'create'],
    usage: 'app-password create <login> [--name N]',
    summary: 'prints a new application password (HTTP Basic) as its last line',
    options: { name: { type: 'string' } },
    args: { required: ['login'] },
    run: ({ config, args: [login], flags, out }) =>
      withDb(config, async (db) => {
        const u = await userOf(db, login);
        const { password } = await createAppPassword(db, u.id, (flags.name as string | undefined) ?? 'cli');
        out(`Application password for "${u.login}" (use it with HTTP Basic auth; it is shown once):`);
        out(password);
      }),
  },
  {
    words: ['app-password', 'list'],
    usage: 'app-password list <login>',
    summary: 'ID, name, created, last used and last address (never a hash)',
    options: {},
    args: { required: ['login'] },
    run: ({ config, args: [login], out }) =>
      withDb(config, async (db) => {
        const u = await userOf(db, login);
        const rows = (await appPasswordsOf(db, u.id)).map((r) => [String(r.id), r.name, r.created, r.last_used ?? 'never', r.last_ip ?? '-']);
        for (const line of table(['ID', 'NAME', 'CREATED', 'LAST USED', 'LAST IP'], rows)) out(line);
      }),
  },
  {
    words: ['app-password', 'revoke'],
    usage: 'app-password revoke <login> <id>',
    summary: 'deletes an application password: it is refused at once',
    options: {},
    args: { required: ['login', 'id'] },
    run: ({ config, args: [login, idText], out }) =>
      withDb(config, async (db) => {
        const u = await userOf(db, login);
        const id = positiveInt(idText, 'the password ID', -1);
        const row = await deleteAppPassword(db, u.id, id);
        if (!row) throw new CliError(`no application password ${id} for "${u.login}"`);
        out(`Revoked application password ${id} ("${row.name}") of "${u.login}".`);
      }),
  },
  {
    words: ['api-key', 'create'],
    usage: 'api-key create --label "Door 1" [--event N | --list ID]',
    summary: 'a door key; with --event or --list also the pairing link and QR (PNG, SVG); the key is the last line',
    help: "With --list, the key is bound to that check-in list (its event is the list's): it reads that list only, and scans through it. With HTTPS configured (EVT_TLS_CERT), the pairing link carries the certificate's fingerprint for the kiosk to pin.",
    options: { label: { type: 'string' }, event: { type: 'string' }, list: { type: 'string' } },
    args: { required: [] },
    run: ({ config, flags, out }) =>
      withDb(config, async (db) => {
        const label = flags.label as string | undefined;
        if (!label) throw new CliError('api-key create needs --label');
        if (flags.event !== undefined && flags.list !== undefined)
          throw new CliError("--event and --list go alone: a list's key is for the list's event");
        let eventId: number | null = null;
        let listId: number | null = null;
        if (flags.event !== undefined) {
          eventId = positiveInt(flags.event as string, '--event', 0);
          if ((await getPost(db, eventId))?.type !== 'event') throw new CliError(`${eventId} is not an event ID`);
        }
        if (flags.list !== undefined) {
          listId = positiveInt(flags.list as string, '--list', 0);
          const list = await getCheckinList(db, listId);
          if (!list) throw new CliError(`${listId} is not a check-in list ID`);
          eventId = list.event_id;
        }
        const { key, row } = await createApiKey(db, label, eventId, null, listId);
        out(
          `Created API key ${row.id} "${label}"${listId ? ` for check-in list ${listId} of event ${eventId}` : eventId ? ` for event ${eventId}` : ''}.`,
        );
        if (eventId) {
          // The event's signing key goes into the pairing code, for the kiosk to pin (CONTRACT section 8).
          const signing = await ensureSigningKey(db, await resolveSiteSecret(db, config.secret), eventId);
          const link = pairingLink(config, key, eventId, { kid: signing.kid, key: signing.public_key });
          const files = await writePairingQr(config, row.id, link);
          out(`Pairing link: ${link}`);
          out(`Pairing QR: ${files.png} and ${files.svg}`);
        }
        out(key);
      }),
  },
  {
    words: ['signing-key', 'rotate'],
    usage: 'signing-key rotate --event N',
    summary: "makes a new signing key for the event's tickets; the old one stays valid for tickets it signed",
    help:
      'Tickets (QR codes, e-mails) are signed with the new key from now on. The old key keeps verifying the tickets it ' +
      'signed until revoked (signing-key revoke); kiosks learn of the new key at their next download.',
    options: { event: { type: 'string' } },
    args: { required: [] },
    run: ({ config, flags, out }) =>
      withDb(config, async (db) => {
        const eventId = await signingEvent(db, flags.event);
        const { retired, current } = await rotateSigningKey(db, await resolveSiteSecret(db, config.secret), eventId);
        if (retired) out(`Retired signing key ${retired.kid} of event ${eventId} (valid for the tickets it signed until revoked).`);
        out(`Signing key of event ${eventId}: ${current.public_key}`);
        out(current.kid);
      }),
  },
  {
    words: ['signing-key', 'revoke'],
    usage: 'signing-key revoke --event N --kid K',
    summary: 'revokes a signing key: kiosks stop admitting tickets signed with it offline after their next download',
    options: { event: { type: 'string' }, kid: { type: 'string' } },
    args: { required: [] },
    run: ({ config, flags, out }) =>
      withDb(config, async (db) => {
        const eventId = await signingEvent(db, flags.event);
        const kid = flags.kid;
        if (typeof kid !== 'string' || !SIGNING_KEY_ID.test(kid))
          throw new CliError('signing-key revoke needs --kid (a key ID from signing-key list)');
        if (!(await revokeEventSigningKey(db, eventId, kid))) throw new CliError(`event ${eventId} has no signing key ${kid} that is not revoked`);
        out(`Revoked signing key ${kid} of event ${eventId}.`);
      }),
  },
  {
    words: ['signing-key', 'list'],
    usage: 'signing-key list --event N',
    summary: "the event's signing keys: ID, public key, created, state",
    options: { event: { type: 'string' } },
    args: { required: [] },
    run: ({ config, flags, out }) =>
      withDb(config, async (db) => {
        const eventId = await signingEvent(db, flags.event);
        const keys = await signingKeysOf(db, eventId);
        if (!keys.length) return out(`Event ${eventId} has no signing key yet (one is made when first needed).`);
        for (const line of table(
          ['KID', 'PUBLIC KEY', 'CREATED', 'STATE'],
          keys.map((k) => [
            k.kid,
            k.public_key,
            new Date(k.created_ms).toISOString(),
            k.revoked_ms !== null ? 'revoked' : k.retired_ms !== null ? 'retired (valid)' : 'current',
          ]),
        ))
          out(line);
      }),
  },
  {
    words: ['hub', 'status'],
    usage: 'hub status',
    summary: 'a venue hub: the site reachable or not, pending uploads, last contact, conflicts (exit 1 while uploads wait)',
    options: {},
    args: { required: [] },
    run: ({ config, out }) =>
      withDb(config, async (db) => {
        const report = await hubStatusReport(db);
        for (const line of report.lines) out(line);
        if (!report.isHub) throw new CliError('not a venue hub');
        // Scripts that end the night (`cli hub status && systemctl stop doorstep`) stop only once all is up.
        if (report.pending > 0) process.exitCode = 1;
      }),
  },
  {
    words: ['api-key', 'list'],
    usage: 'api-key list',
    summary: 'door keys: ID, label, event, created, last used, state',
    options: {},
    args: { required: [] },
    run: ({ config, out }) =>
      withDb(config, async (db) => {
        const keys = await listApiKeys(db);
        if (!keys.length) return out('No API keys.');
        const rows = keys.map((k) => [
          String(k.id),
          k.label,
          k.event_id ? `${k.event_id}${k.list_id ? ` list ${k.list_id}` : ''}` : 'all',
          k.created,
          k.last_used ?? 'never',
          k.revoked_at ? `REVOKED ${k.revoked_at}` : 'active',
        ]);
        for (const line of table(['ID', 'LABEL', 'EVENT', 'CREATED', 'LAST USED', 'STATE'], rows)) out(line);
      }),
  },
  {
    words: ['api-key', 'revoke'],
    usage: 'api-key revoke <id>',
    summary: 'revokes a door key, and deletes its pairing images',
    options: {},
    args: { required: ['id'] },
    run: ({ config, args: [idText], out }) =>
      withDb(config, async (db) => {
        const id = positiveInt(idText, 'the key ID', -1);
        const revoked = await revokeApiKey(db, id);
        // The pairing images hold the key: they go even when the key was revoked before (by an older version).
        const removed = removePairingQr(config, id);
        if (!revoked) throw new CliError(`no active API key with ID ${id}${removed.length ? ` (its pairing images were deleted)` : ''}`);
        out(`Revoked API key ${id}.`);
        if (removed.length) out(`Deleted its pairing images: ${removed.join(', ')}`);
      }),
  },
  {
    words: ['demo'],
    usage: 'demo [--events N] [--attendees M]',
    summary: 'fills an empty database with a believable site',
    options: { events: { type: 'string' }, attendees: { type: 'string' } },
    args: { required: [] },
    run: ({ config, flags, out }) =>
      withDb(config, (db) =>
        runDemo(
          db,
          config,
          {
            events: positiveInt(flags.events as string | undefined, '--events', 300),
            attendees: positiveInt(flags.attendees as string | undefined, '--attendees', 3000),
          },
          out,
        ),
      ),
  },
  {
    words: ['backup'],
    usage: 'backup <file> [--force]',
    summary: 'a consistent copy of the live database (SQLite online backup), checked with integrity_check',
    help: [
      'Safe while the server runs. The copy is written beside <file> under a temporary name, checked, made 0600,',
      'then renamed to <file>: a failed backup never leaves a partial file under that name. --force replaces an',
      'existing <file>. Restore: stop the server, copy the backup over EVT_DB, delete EVT_DB-wal and EVT_DB-shm if',
      'present, start the server.',
    ].join('\n'),
    options: { force: { type: 'boolean' } },
    args: { required: ['file'] },
    run: ({ config, args: [file], flags, out }) => backup(config, file, flags.force === true, out),
  },
  {
    words: ['migrate-to-postgres'],
    usage: 'migrate-to-postgres --to postgres://... [--from <sqlite file>]',
    summary: 'copies a SQLite site into an empty PostgreSQL database, IDs kept, and verifies every table',
    help: [
      '--from defaults to EVT_DB when it is a file. Stop the server first (it holds the file; the copy refuses',
      'while it runs) and take a `backup`. The target must be empty (or hold only an empty Doorstep schema of this',
      "version) and be created UTF8 with LC_COLLATE and LC_CTYPE 'C'. The schema is migrated, every table copied in",
      'one transaction (per-process state and caches are skipped, with the reason printed), each identity set to',
      'continue after the highest ID, then each table read back: rows and a SHA-256 of its content in key order must',
      'match the SQLite side, or everything is rolled back (exit code 1). Exit code 2: refused, nothing changed.',
      'Afterwards start the server with EVT_DB set to the URL and EVT_DATA_DIR to the folder the files lived in.',
    ].join('\n'),
    options: { from: { type: 'string' }, to: { type: 'string' } },
    args: { required: [] },
    run: ({ config, env, flags, out }) => migrateCommand(config, env, flags.from as string | undefined, flags.to as string | undefined, out),
  },
  {
    words: ['tls-selfsigned'],
    usage: 'tls-selfsigned [--host H ...] [--out DIR] [--days N] [--force]',
    summary: 'a self-signed HTTPS certificate and key; prints its SHA-256 fingerprint as the last line',
    help: [
      'Names in the certificate: every --host given (names or IP addresses), or by default localhost, 127.0.0.1,',
      "::1, this machine's name and its LAN addresses. Writes DIR/cert.pem and DIR/key.pem (0600; DIR defaults",
      'to <data dir>/tls). Serve with EVT_TLS_CERT=DIR/cert.pem EVT_TLS_KEY=DIR/key.pem; door keys created then',
      'carry the fingerprint in their pairing link, for the kiosk to pin.',
    ].join('\n'),
    options: { host: { type: 'string', multiple: true }, out: { type: 'string' }, days: { type: 'string' }, force: { type: 'boolean' } },
    args: { required: [] },
    run: ({ config, flags, out }) => tlsSelfSigned(config, flags, out),
  },
];

function usage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.usage.length));
  return [
    'Usage: npm run cli -- <command> [options]',
    '',
    ...COMMANDS.map((c) => `  ${c.usage.padEnd(width)}  ${c.summary}`),
    '',
    'Every command answers --help.',
    ENV_NOTE,
  ].join('\n');
}

function commandHelp(c: Command): string {
  return [
    `Usage: npm run cli -- ${c.usage}`,
    '',
    `${c.summary[0].toUpperCase()}${c.summary.slice(1)}.`,
    ...(c.help ? ['', c.help] : []),
    '',
    ENV_NOTE,
  ].join('\n');
}

/** Runs one command; `out` receives each printed line. Throws CliError for bad usage (exit code 2). */
export async function runCli(argv: string[], env: Record<string, string | undefined>, out: Out): Promise<void> {
  const words: string[] = [];
  for (const a of argv) {
    if (a.startsWith('-')) break;
    words.push(a);
  }
  if (!words.length || words[0] === 'help') {
    if (!words.length && argv.length && !['--help', '-h'].includes(argv[0])) throw new CliError(`unknown option ${argv[0]}\n\n${usage()}`);
    const topic = words.length > 1 ? COMMANDS.find((c) => c.words.every((w, i) => words[i + 1] === w)) : undefined;
    out(topic ? commandHelp(topic) : usage());
    return;
  }
  const command = COMMANDS.find((c) => c.words.every((w, i) => words[i] === w));
  if (!command) throw new CliError(`unknown command: ${words.join(' ')}\n\n${usage()}`);
  let parsed;
  try {
    parsed = parseArgs({
      args: argv.slice(command.words.length),
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (e) {
    throw new CliError(
      `${(e as Error).message.replace(/\. To specify a positional argument starting with a '-'.*$/s, '')}\n\n${commandHelp(command)}`,
    );
  }
  if (parsed.values.help) {
    out(commandHelp(command));
    return;
  }
  const { required, optional = [] } = command.args;
  const name = command.words.join(' ');
  if (parsed.positionals.length < required.length)
    throw new CliError(
      `${name} needs ${required
        .slice(parsed.positionals.length)
        .map((a) => `<${a}>`)
        .join(' ')}\n\n${commandHelp(command)}`,
    );
  if (parsed.positionals.length > required.length + optional.length)
    throw new CliError(`${name}: unexpected argument ${parsed.positionals[required.length + optional.length]}\n\n${commandHelp(command)}`);
  let config: Config;
  try {
    config = loadConfig(env);
  } catch (e) {
    throw new CliError((e as Error).message);
  }
  await command.run({ config, env, args: parsed.positionals, flags: parsed.values, out });
}

/** `backup <file>`: SQLite's online backup of the configured database, verified, 0600, renamed into place. */
async function backup(config: Config, file: string, force: boolean, out: Out): Promise<void> {
  if (config.dbFile === ':memory:' || config.dbFile.startsWith('file:')) throw new CliError('backup needs EVT_DB to be a database file');
  if (isPostgresSpec(config.dbFile)) throw new CliError('backup copies a SQLite file; back a PostgreSQL database up with pg_dump');
  const source = path.resolve(config.dbFile);
  const target = path.resolve(file);
  if (!fs.existsSync(source)) throw new CliError(`no database at ${source} (set EVT_DB)`);
  if ([source, `${source}-wal`, `${source}-shm`, `${source}.lock`].includes(target))
    throw new CliError('the backup must not overwrite the database or its files');
  if (fs.existsSync(target) && !force) throw new CliError(`${target} exists: pass --force to replace it`);
  privateDir(path.dirname(target), { existing: false });
  const tmp = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.partial`);
  fs.rmSync(tmp, { force: true });
  // Created 0600 before SQLite writes a byte into it.
  fs.closeSync(fs.openSync(tmp, 'wx', 0o600));
  privateFile(tmp);
  try {
    const started = Date.now();
    const { check, pages } = await backupDatabase(source, tmp);
    if (check.length !== 1 || check[0] !== 'ok') throw new Error(`the copy failed integrity_check: ${check.slice(0, 5).join('; ')}`);
    for (const f of [`${tmp}-wal`, `${tmp}-shm`]) fs.rmSync(f, { force: true });
    privateFile(tmp);
    fs.renameSync(tmp, target);
    const size = fs.statSync(target).size;
    out(
      `Backed up ${source} to ${target}: ${(size / 1024 / 1024).toFixed(1)} MB, ${pages} pages, integrity_check ok, in ${Date.now() - started} ms.`,
    );
  } catch (e) {
    for (const f of [tmp, `${tmp}-wal`, `${tmp}-shm`]) fs.rmSync(f, { force: true });
    throw e;
  }
}

/** `migrate-to-postgres`: the copy (server/ops/copy-to-postgres.ts), its verification table, what to do next. */
async function migrateCommand(
  config: Config,
  env: Record<string, string | undefined>,
  fromFlag: string | undefined,
  to: string | undefined,
  out: Out,
): Promise<void> {
  if (!to) throw new CliError('migrate-to-postgres needs --to postgres://user@host:port/database');
  const fileDb = !isPostgresSpec(config.dbFile) && config.dbFile !== ':memory:' && !config.dbFile.startsWith('file:');
  const from = fromFlag ?? (fileDb ? config.dbFile : undefined);
  if (!from) throw new CliError('migrate-to-postgres needs --from <sqlite file> (EVT_DB is not a file)');
  const source = path.resolve(from);
  out(`Copying ${source} into ${describeDb(to)} ...`);
  const started = Date.now();
  let report;
  try {
    report = await migrateToPostgres(source, to, out);
  } catch (e) {
    if (e instanceof MigrationRefused) throw new CliError(`migrate-to-postgres refused: ${e.message}`);
    throw new Error(`migrate-to-postgres failed, nothing was committed: ${(e as Error).message}`);
  }
  const rows = report.checks.map((c) => [
    c.table,
    String(c.sqliteRows),
    String(c.pgRows),
    c.nextId === null ? '-' : String(c.nextId),
    c.ok ? 'ok' : 'DIFFERENT',
  ]);
  for (const line of table(['TABLE', 'ROWS IN SQLITE', 'ROWS IN POSTGRESQL', 'NEXT ID', 'CHECK'], rows)) out(line);
  if (!report.committed) {
    const bad = report.checks.filter((c) => !c.ok).map((c) => c.table);
    throw new Error(`migrate-to-postgres: ${bad.join(', ')} read back different from SQLite; rolled back, nothing was committed`);
  }
  const total = report.checks.reduce((n, c) => n + c.pgRows, 0);
  out(`Copied ${total} rows in ${report.checks.length} tables, every table verified, in ${Date.now() - started} ms.`);
  // The files beside the SQLite database (uploads, mail, TLS, pairing images) stay where they are.
  const dataDir = env.EVT_DATA_DIR ? config.dataDir : path.dirname(source);
  out(`Next: start the server with EVT_DB=<that URL> and EVT_DATA_DIR=${dataDir}.`);
}

/** The names a certificate made for this machine should carry when none are given. */
function defaultHosts(): string[] {
  const hosts = new Set(['localhost', '127.0.0.1', '::1', os.hostname()]);
  for (const list of Object.values(os.networkInterfaces())) for (const a of list ?? []) if (!a.internal) hosts.add(a.address);
  return [...hosts].filter(Boolean);
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/;
const HOSTNAME = /^(?=.{1,253}$)([A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9])?)(\.[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9])?)*\.?$/;

async function tlsSelfSigned(config: Config, flags: Record<string, string | boolean | string[] | undefined>, out: Out): Promise<void> {
  const hosts =
    (flags.host as string[] | undefined)
      ?.flatMap((h) => h.split(','))
      .map((h) => h.trim())
      .filter(Boolean) ?? defaultHosts();
  const altNames: { type: 2 | 7; value?: string; ip?: string }[] = [];
  for (const h of hosts) {
    const ip = h.replace(/^\[|\]$/g, '');
    if (IPV4.test(ip) || (ip.includes(':') && /^[0-9a-fA-F:.]+$/.test(ip))) altNames.push({ type: 7, ip });
    else if (HOSTNAME.test(h)) altNames.push({ type: 2, value: h.toLowerCase() });
    else throw new CliError(`--host ${h} is neither a host name nor an IP address`);
  }
  const days = positiveInt(flags.days as string | undefined, '--days', 365);
  if (days < 1 || days > 3650) throw new CliError('--days must be between 1 and 3650');
  const dir = path.resolve((flags.out as string | undefined) ?? path.join(config.dataDir, 'tls'));
  const certFile = path.join(dir, 'cert.pem');
  const keyFile = path.join(dir, 'key.pem');
  if (!flags.force && (fs.existsSync(certFile) || fs.existsSync(keyFile)))
    throw new CliError(`${certFile} or ${keyFile} exists: pass --force to replace them`);
  const { generate } = await import('selfsigned');
  const notBeforeDate = new Date(Date.now() - 60_000);
  const pems = await generate(
    [
      { name: 'commonName', value: hosts.find((h) => !IPV4.test(h) && !h.includes(':')) ?? hosts[0] ?? 'doorstep' },
      { name: 'organizationName', value: 'Doorstep (self-signed)' },
    ],
    {
      keyType: 'ec',
      curve: 'P-256',
      algorithm: 'sha256',
      notBeforeDate,
      notAfterDate: new Date(notBeforeDate.getTime() + days * 86_400_000),
      extensions: [
        { name: 'basicConstraints', cA: false, critical: true },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
        { name: 'extKeyUsage', serverAuth: true },
        { name: 'subjectAltName', altNames },
      ],
    },
  );
  privateDir(dir, { existing: false });
  writePrivateFile(keyFile, pems.private);
  writePrivateFile(certFile, pems.cert);
  const fingerprint = certificateFingerprint(pems.cert);
  out(`Wrote ${certFile} and ${keyFile} (valid ${days} days, for ${hosts.join(', ')}).`);
  out(`Serve HTTPS with: EVT_TLS_CERT=${certFile} EVT_TLS_KEY=${keyFile} npm start`);
  out('Door keys created while it is configured carry this SHA-256 fingerprint in their pairing link:');
  out(fingerprint);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  runCli(process.argv.slice(2), process.env, (l) => process.stdout.write(`${l}\n`)).catch((e: unknown) => {
    process.stderr.write(`${e instanceof CliError || e instanceof Error ? e.message : String(e)}\n`);
    process.exit(e instanceof CliError ? 2 : 1);
  });
}
