import { DbWindowLimiter } from '../security/db-window-limiter.ts';
import type { AppState, Ctx, Lang } from '../kernel/context.ts';
import { pick } from '../content/text.ts';
import { esc } from '../site/html.ts';
import { ticketCodeUrl } from '../../shared/checkin/ticket-code.ts';
import { ensureSigningKey, signAttendeeWith } from '../security/ticket-signing.ts';
import { orderMail, type AttendeeForMail, type OrderForMail } from '../db/repos/order-mail.ts';
import type { RateLimiter } from '../security/window-limiter.ts';
import { appLimiter, nowMs } from '../routes/tickets/clock.ts';
import type { MailMessage } from './message.ts';
import { sendMail } from './service.ts';

/**
 * The ticket e-mail sent to the purchaser when an order completes: one section and one inline QR image per
 * attendee, as plain text and HTML, in the language of the request that completed the order. The QR images
 * are drawn after the commit (see `qrText` in message.ts), so completing an order stays fast.
 */

const MONTHS: Record<Lang, string[]> = {
  en: ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'],
  et: ['jaanuar', 'veebruar', 'märts', 'aprill', 'mai', 'juuni', 'juuli', 'august', 'september', 'oktoober', 'november', 'detsember'],
};

const T = {
  en: {
    subjectOne: (event: string) => `Your tickets for ${event}`,
    subjectMany: (site: string) => `Your tickets from ${site}`,
    hello: (name: string) => `Hello ${name},`,
    intro: (order: number, site: string) => `Thank you for your order #${order} at ${site}. Your tickets are below: show the QR code at the door.`,
    ticket: (n: number, of: number) => `Ticket ${n} of ${of}`,
    event: 'Event',
    when: 'When',
    attendee: 'Attendee',
    ticketId: 'Ticket ID',
    code: 'Security code',
    link: 'Check-in link',
    qrAlt: (id: number) => `QR code of ticket ${id}`,
  },
  et: {
    subjectOne: (event: string) => `Teie piletid: ${event}`,
    subjectMany: (site: string) => `Teie piletid – ${site}`,
    hello: (name: string) => `Tere, ${name}!`,
    intro: (order: number, site: string) => `Täname tellimuse nr ${order} eest (${site}). Teie piletid on allpool: näidake sissepääsul QR-koodi.`,
    ticket: (n: number, of: number) => `Pilet ${n}/${of}`,
    event: 'Üritus',
    when: 'Aeg',
    attendee: 'Osaleja',
    ticketId: 'Pileti ID',
    code: 'Turvakood',
    link: 'Registreerimise link',
    qrAlt: (id: number) => `Pileti ${id} QR-kood`,
  },
} satisfies Record<Lang, unknown>;

/** `2026-12-01 19:00:00` -> `December 1, 2026 7:00 pm` / `1. detsember 2026 19:00`. */
export function formatWhen(local: string | null, allDay: boolean, tz: string, lang: Lang): string {
  const m = local ? /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2})/.exec(local) : null;
  if (!m) return '';
  const [y, mo, d, h, mi] = [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), m[5]];
  const month = MONTHS[lang][mo - 1];
  if (lang === 'et') return allDay ? `${d}. ${month} ${y}` : `${d}. ${month} ${y} ${String(h).padStart(2, '0')}:${mi} (${tz})`;
  const h12 = h % 12 === 0 ? 12 : h % 12;
  return allDay ? `${month} ${d}, ${y}` : `${month} ${d}, ${y} ${h12}:${mi} ${h < 12 ? 'am' : 'pm'} (${tz})`;
}

export interface TicketMailInput {
  order: OrderForMail;
  attendees: AttendeeForMail[];
  lang: Lang;
  siteName: string;
  siteTimezone: string;
  /** Base of the check-in URLs (the public site URL with the language segment). */
  siteBase: string;
  /** Each attendee's ticket signature (CONTRACT section 8), by attendee ID; an attendee without one gets an unsigned URL. */
  signatures?: ReadonlyMap<number, { sig: string; kid: string }>;
}

/** Builds the message (pure). */
export function composeTicketMail(i: TicketMailInput): MailMessage {
  const t = T[i.lang];
  const events = [...new Set(i.attendees.map((a) => a.event_id))];
  const first = i.attendees[0];
  const subject = events.length === 1 ? t.subjectOne(pick(i.lang, first.event_title, first.event_title_et)) : t.subjectMany(i.siteName);
  const text: string[] = [t.hello(i.order.purchaser_name), '', t.intro(i.order.id, i.siteName), ''];
  const html: string[] = [
    `<!DOCTYPE html><html lang="${i.lang}"><head><meta charset="utf-8"><title>${esc(subject)}</title></head><body style="font-family:sans-serif">`,
    `<p>${esc(t.hello(i.order.purchaser_name))}</p>`,
    `<p>${esc(t.intro(i.order.id, i.siteName))}</p>`,
  ];
  const attachments: NonNullable<MailMessage['attachments']> = [];
  i.attendees.forEach((a, n) => {
    const signature = i.signatures?.get(a.id);
    const url = ticketCodeUrl(i.siteBase, {
      attendeeId: a.id,
      eventId: a.event_id,
      securityCode: a.security_code,
      ...(signature ? { signature } : {}),
    });
    const cid = `ticket-${a.id}@doorstep`;
    attachments.push({ filename: `ticket-${a.id}.png`, qrText: url, cid });
    const rows: [string, string][] = [
      [t.event, pick(i.lang, a.event_title, a.event_title_et)],
      [t.when, formatWhen(a.start_local, a.all_day === 1, a.timezone || i.siteTimezone, i.lang)],
      [t.attendee, a.full_name],
      [t.ticketId, String(a.id)],
      [t.code, a.security_code],
    ];
    const heading = `${t.ticket(n + 1, i.attendees.length)}: ${pick(i.lang, a.ticket_title, a.ticket_title_et)}`;
    text.push(heading, ...rows.filter(([, v]) => v).map(([k, v]) => `${k}: ${v}`), `${t.link}: ${url}`, '');
    html.push(
      `<div style="border:1px solid #ccc;padding:12px;margin:12px 0">`,
      `<h2 style="font-size:18px">${esc(heading)}</h2>`,
      `<img src="cid:${cid}" alt="${esc(t.qrAlt(a.id))}" width="264" height="264">`,
      `<table>${rows
        .filter(([, v]) => v)
        .map(([k, v]) => `<tr><th align="left">${esc(k)}</th><td>${esc(v)}</td></tr>`)
        .join('')}</table>`,
      `<p><a href="${esc(url)}">${esc(t.link)}</a></p>`,
      `</div>`,
    );
  });
  text.push('-- ', i.siteName);
  html.push(`<p>${esc(i.siteName)}</p></body></html>`);
  return {
    to: `"${i.order.purchaser_name.replace(/["\\\r\n]/g, ' ')}" <${i.order.purchaser_email}>`,
    subject,
    text: text.join('\n'),
    html: html.join('\n'),
    attachments,
    source: 'tickets',
    relatedId: i.order.id,
  };
}

/**
 * Ticket e-mails per recipient address in a sliding window: free checkouts are anonymous, so without it
 * anyone could make the server mail a stranger again and again.
 */
export const TICKET_MAIL_LIMIT = { max: 10, windowMs: 60 * 60_000 };

export function ticketMailLimiter(app: AppState): RateLimiter {
  return appLimiter(app, 'ticketMailLimiter', { ...TICKET_MAIL_LIMIT, maxKeys: 20_000 });
}

/**
 * `orderCompleted` listener: runs inside the transaction that completes the order, so it only logs the
 * message (delivery follows the commit). A failure to compose is logged and never blocks the order.
 * Bounded: one message per order (completing it again sends nothing; staff resend from the mail log), at
 * most `maxTicketsPerOrder` tickets in it, and at most `TICKET_MAIL_LIMIT` messages per address; what is not
 * sent is logged, and the order completes all the same (its answer carries the tickets).
 */
export async function ticketMailOnOrderCompleted(ctx: Ctx, orderId: number): Promise<void> {
  try {
    // The order, its attendees and their events' signing keys in one read.
    const found = await orderMail(ctx.db, orderId);
    if (!found || found.logged) return;
    const { order, keys: signingKeys } = found;
    let attendees = found.attendees;
    const max = ctx.app.config.maxTicketsPerOrder;
    if (attendees.length > max) {
      ctx.app.log({ level: 'warn', msg: 'ticket e-mail holds the first tickets only', order_id: orderId, attendees: attendees.length, max });
      attendees = attendees.slice(0, max);
    }
    const limiter = ticketMailLimiter(ctx.app);
    const keys = [`to:${order.purchaser_email.trim().toLowerCase()}`];
    // Checked and counted in one statement when the limiter is the database's.
    if ((limiter instanceof DbWindowLimiter ? await limiter.take(keys) : await limiter.retryAfter(keys)) > 0) {
      ctx.app.log({ level: 'warn', msg: 'ticket e-mail not sent: too many to this address', order_id: orderId });
      return;
    }
    if (!(limiter instanceof DbWindowLimiter)) await limiter.record(keys);
    const { siteName, timezone } = ctx.app.config;
    // The order completes in this transaction: its attendees are admissible as of now.
    const signatures = new Map<number, { sig: string; kid: string }>();
    for (const a of attendees) {
      const signable = { ...a, status: 'publish', order_status: order.status };
      // An event that has no key yet gets one now (ensureSigningKey), and the next attendee of it uses it.
      let key = signingKeys.get(a.event_id);
      if (!key) signingKeys.set(a.event_id, (key = await ensureSigningKey(ctx.db, ctx.app.secret, a.event_id, nowMs(ctx))));
      const s = signAttendeeWith(ctx.app.secret, key, signable);
      if (s) signatures.set(a.id, s);
    }
    const message = composeTicketMail({
      order,
      attendees,
      lang: ctx.lang,
      siteName,
      siteTimezone: timezone,
      siteBase: ctx.urls.site(''),
      signatures,
    });
    await sendMail(ctx.app, message);
  } catch (e) {
    ctx.app.log({ level: 'error', msg: 'ticket e-mail not composed', order_id: orderId, error: String((e as Error)?.stack ?? e) });
  }
}
