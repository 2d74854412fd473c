import fs from 'node:fs/promises';
import path from 'node:path';
import { format } from 'node:util';
import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer';
import type { CompiledMessage } from './mail-thread.ts';

/** The outcome of one delivery attempt, as the log records it. */
export interface DeliveryResult {
  ok: boolean;
  /** `smtp://host:port` (credentials never shown) or `file`. */
  transport: string;
  messageId: string | null;
  /** The .eml file name (relative to `<dataDir>/mail/`) for the file transport. */
  emlFile: string | null;
  transcript: string;
  error: string | null;
}

/**
 * Sends one message. `meta.compiled` is the same message as bytes, when the mail thread composed it (mail-thread.ts)
 * with the line endings this transport asked for; a transport sends those rather than compose them again. Tests may
 * install their own (see `setMailTransport`).
 */
export type Deliver = (msg: Mail.Options, meta: { id: number; attempt: number; compiled?: CompiledMessage }) => Promise<DeliveryResult>;

const TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000, dnsTimeout: 10_000 };

/** `smtp://user:pass@host:port/?x` -> `smtp://host:port`. */
export function describeSmtpUrl(url: string): string {
  try {
    const u = new URL(url);
    const port = u.port || (u.protocol === 'smtps:' ? '465' : '587');
    return `${u.protocol}//${u.hostname}:${port}`;
  } catch {
    return 'smtp://(invalid url)';
  }
}

function transcriptLogger(lines: string[]) {
  const push =
    (level: string) =>
    (_entry: unknown, message: unknown, ...args: unknown[]) => {
      // Never keep the AUTH exchange: nodemailer logs credentials there only when asked to, but be sure.
      const text = format(String(message ?? ''), ...args).replace(/(AUTH \w+)\s+\S+/gi, '$1 ***');
      for (const l of text.split(/\r?\n/)) if (l.trim()) lines.push(`${level.toUpperCase()} ${l}`);
    };
  return { trace: push('trace'), debug: push('debug'), info: push('info'), warn: push('warn'), error: push('error'), fatal: push('fatal') };
}

/** SMTP delivery: a fresh connection per message, with its conversation kept as the transcript. */
export function smtpDeliver(url: string): Deliver {
  const label = describeSmtpUrl(url);
  return async (msg, meta) => {
    const lines: string[] = [];
    const started = new Date().toISOString();
    try {
      const t = nodemailer.createTransport({ url, ...TIMEOUTS, logger: transcriptLogger(lines), debug: true } as never);
      try {
        // Composed already: its bytes go as they are, to the recipients its envelope names (Bcc among them).
        const c = meta.compiled;
        const info = (await t.sendMail(c ? { envelope: c.envelope, raw: c.raw } : msg)) as {
          messageId?: string;
          response?: string;
          accepted?: unknown[];
          rejected?: unknown[];
        };
        const rejected = (info.rejected ?? []).map(String);
        lines.push(`RESULT ${info.response ?? ''} accepted=${(info.accepted ?? []).map(String).join(',')} rejected=${rejected.join(',')}`);
        const error = rejected.length ? `Rejected recipients: ${rejected.join(', ')}` : null;
        return {
          ok: !error,
          transport: label,
          messageId: (c ? c.messageId : info.messageId) ?? null,
          emlFile: null,
          transcript: `[${started}] ${label}\n${lines.join('\n')}\n`,
          error,
        };
      } finally {
        t.close();
      }
    } catch (e) {
      const err = e as Error & { code?: string; response?: string };
      const error = [err.code, err.response ?? err.message].filter(Boolean).join(': ') || 'Delivery failed';
      lines.push(`FAILED ${error}`);
      return { ok: false, transport: label, messageId: null, emlFile: null, transcript: `[${started}] ${label}\n${lines.join('\n')}\n`, error };
    }
  };
}

/** No SMTP server configured: each message becomes an .eml file under `dir`, written atomically. */
export function fileDeliver(dir: string): Deliver {
  const t = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  /** The folder made (0700) once; made again if it went away since. */
  let made: Promise<void> | null = null;
  const ready = () => {
    made ??= (async () => {
      await fs.mkdir(dir, { recursive: true, mode: 0o700 });
      await fs.chmod(dir, 0o700); // a folder made earlier with a looser mode: the messages hold ticket codes
    })().catch((e: unknown) => {
      made = null;
      throw e;
    });
    return made;
  };
  return async (msg, meta) => {
    const started = new Date().toISOString();
    const name = `${String(meta.id).padStart(6, '0')}-${meta.attempt}.eml`;
    try {
      const info = meta.compiled
        ? { message: meta.compiled.raw, messageId: meta.compiled.messageId }
        : ((await t.sendMail(msg)) as { message: Buffer; messageId?: string | null });
      const tmp = path.join(dir, `.${name}.${process.pid}.tmp`);
      const write = async () => {
        await ready();
        await fs.writeFile(tmp, info.message, { mode: 0o600 });
      };
      try {
        await write();
      } catch (e) {
        // The folder went away since it was made: made again, once.
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        made = null;
        await write();
      }
      await fs.rename(tmp, path.join(dir, name));
      return {
        ok: true,
        transport: 'file',
        messageId: info.messageId ?? null,
        emlFile: name,
        transcript: `[${started}] file\nWROTE ${name} (${info.message.length} bytes)\n`,
        error: null,
      };
    } catch (e) {
      const error = (e as Error).message || 'Could not write the message file';
      return { ok: false, transport: 'file', messageId: null, emlFile: null, transcript: `[${started}] file\nFAILED ${error}\n`, error };
    }
  };
}
