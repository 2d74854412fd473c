import path from 'node:path';
import { z } from 'zod';
import { loadConfig, type Config } from './config.ts';
import { openDatabase, type Db } from './db/connection.ts';
import { createApiKey, createAppPassword } from './auth/credentials.ts';
import { findUserByLogin, insertUser } from './db/repos/users.ts';
import { listApiKeys, revokeApiKey } from './db/repos/api-keys.ts';
import { getPost } from './db/repos/posts.ts';
import { Role } from '../shared/auth.ts';
import { runDemo } from './demo/demo.ts';
import { pairingLink, removePairingQr, writePairingQr } from './pairing.ts';
import { appPasswordsOf, deleteAppPassword } from './db/repos/app-passwords.ts';

const USAGE = `Usage: npm run cli -- <command>

  user add <login> --role administrator|organizer|door [--email E] [--name "Display Name"]
  app-password create <login> [--name N]        prints the new application password as its last line
  app-password list <login>                     ID, name, created, last used and last address (never a hash)
  app-password revoke <login> <id>              deletes it: it is refused at once
  api-key create --label "Door 1" [--event N]    prints the pairing link, writes the pairing QR (PNG, SVG),
                                                 and prints the new key as its last line
  api-key list
  api-key revoke <id>                           also deletes the key's pairing images
  demo [--events N] [--attendees M]             fills an empty database with a believable site

Environment: EVT_DB (default data/evt.sqlite), EVT_PUBLIC_URL, PORT, HOST, as for npm start.`;

export class CliError extends Error {}

function parse(argv: string[]): { words: string[]; flags: Record<string, string> } {
  const words: string[] = [];
  const flags: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      if (eq > 0) flags[a.slice(2, eq)] = a.slice(eq + 1);
      else {
        const next = argv[i + 1];
        if (next === undefined || next.startsWith('--')) throw new CliError(`--${a.slice(2)} needs a value`);
        flags[a.slice(2)] = next;
        i++;
      }
    } else words.push(a);
  }
  return { words, flags };
}

function positiveInt(v: string | undefined, name: string, dflt: number): number {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 0) throw new CliError(`--${name} must be a whole number`);
  return n;
}

/** Lines of a plain table: columns padded to their widest cell, separated by two spaces. */
function table(head: string[], rows: string[][]): string[] {
  const width = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  return [head, ...rows].map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(width[i]))).join('  '));
}

/** Runs one command; `out` receives each printed line. Throws CliError for bad usage. */
export async function runCli(argv: string[], env: Record<string, string | undefined>, out: (line: string) => void): Promise<void> {
  const { words, flags } = parse(argv);
  const [group, action, arg] = words;
  if (!group || group === 'help' || flags.help !== undefined) {
    out(USAGE);
    return;
  }
  const config: Config = loadConfig(env);
  const db: Db = openDatabase(config.dbFile);
  try {
    if (group === 'user' && action === 'add') {
      if (!arg) throw new CliError('user add needs a login');
      const role = Role.safeParse(flags.role);
      if (!role.success) throw new CliError('--role must be administrator, organizer or door');
      const email = flags.email ?? '';
      if (email && !z.email().safeParse(email).success) throw new CliError(`--email ${email} is not an e-mail address`);
      if (findUserByLogin(db, arg)) throw new CliError(`a user "${arg}" already exists`);
      const u = insertUser(db, { login: arg, email, displayName: flags.name, role: role.data });
      out(`Created ${u.role} "${u.login}" (user ID ${u.id}).`);
      return;
    }
    if (group === 'app-password' && action === 'create') {
      if (!arg) throw new CliError('app-password create needs a login');
      const u = findUserByLogin(db, arg);
      if (!u) throw new CliError(`no user "${arg}"`);
      const { password } = createAppPassword(db, u.id, flags.name ?? 'cli');
      out(`Application password for "${u.login}" (use it with HTTP Basic auth; it is shown once):`);
      out(password);
      return;
    }
    if (group === 'app-password' && (action === 'list' || action === 'revoke')) {
      if (!arg) throw new CliError(`app-password ${action} needs a login`);
      const u = findUserByLogin(db, arg);
      if (!u) throw new CliError(`no user "${arg}"`);
      if (action === 'list') {
        const rows = appPasswordsOf(db, u.id).map((r) => [String(r.id), r.name, r.created, r.last_used ?? 'never', r.last_ip ?? '-']);
        for (const line of table(['ID', 'NAME', 'CREATED', 'LAST USED', 'LAST IP'], rows)) out(line);
        return;
      }
      const id = positiveInt(words[3], 'id', -1);
      if (id < 0) throw new CliError('app-password revoke needs the login and the password ID (see app-password list)');
      const row = deleteAppPassword(db, u.id, id);
      if (!row) throw new CliError(`no application password ${id} for "${u.login}"`);
      out(`Revoked application password ${id} ("${row.name}") of "${u.login}".`);
      return;
    }
    if (group === 'api-key' && action === 'create') {
      const label = flags.label;
      if (!label) throw new CliError('api-key create needs --label');
      let eventId: number | null = null;
      if (flags.event !== undefined) {
        eventId = positiveInt(flags.event, 'event', 0);
        if (getPost(db, eventId)?.type !== 'event') throw new CliError(`${eventId} is not an event ID`);
      }
      const { key, row } = createApiKey(db, label, eventId, null);
      out(`Created API key ${row.id} "${label}"${eventId ? ` for event ${eventId}` : ''}.`);
      if (eventId) {
        const link = pairingLink(config, key, eventId);
        const files = await writePairingQr(config, row.id, link);
        out(`Pairing link: ${link}`);
        out(`Pairing QR: ${files.png} and ${files.svg}`);
      }
      out(key);
      return;
    }
    if (group === 'api-key' && action === 'list') {
      const keys = listApiKeys(db);
      if (!keys.length) out('No API keys.');
      for (const k of keys) {
        out(`${k.id}\t${k.label}\t${k.event_id ? `event ${k.event_id}` : 'all events'}\tcreated ${k.created}\tlast used ${k.last_used ?? 'never'}\t${k.revoked_at ? `REVOKED ${k.revoked_at}` : 'active'}`);
      }
      return;
    }
    if (group === 'api-key' && action === 'revoke') {
      const id = positiveInt(arg, 'id', -1);
      if (id < 0) throw new CliError('api-key revoke needs the key ID (see api-key list)');
      const revoked = revokeApiKey(db, id);
      // The pairing images hold the key: they go even when the key was revoked before (by an older version).
      const removed = removePairingQr(config, id);
      if (!revoked) throw new CliError(`no active API key with ID ${id}${removed.length ? ` (its pairing images were deleted)` : ''}`);
      out(`Revoked API key ${id}.`);
      if (removed.length) out(`Deleted its pairing images: ${removed.join(', ')}`);
      return;
    }
    if (group === 'demo') {
      await runDemo(db, config, { events: positiveInt(flags.events, 'events', 300), attendees: positiveInt(flags.attendees, 'attendees', 3000) }, out);
      return;
    }
    throw new CliError(`unknown command: ${words.join(' ')}\n\n${USAGE}`);
  } finally {
    db.close();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  runCli(process.argv.slice(2), process.env, (l) => process.stdout.write(`${l}\n`)).catch((e: unknown) => {
    process.stderr.write(`${e instanceof CliError || e instanceof Error ? e.message : String(e)}\n`);
    process.exit(e instanceof CliError ? 2 : 1);
  });
}
