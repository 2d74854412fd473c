import { implement, type Endpoint } from '../../http/registry.ts';
import { HttpError, invalidParam } from '../../kernel/errors.ts';
import { integer, string } from '../../../shared/http/params.ts';
import { mailLogV1Routes as v1 } from '../../../shared/routes/mail-log.ts';
import { getMailLog } from '../../db/repos/mail-log.ts';
import { resendMail } from '../../mail/service.ts';
import { normalizeAddressList } from '../../mail/message.ts';
import { mailCaller } from './auth.ts';
import { readParams } from './params.ts';
import { fail, jsonError, jsonSuccess, replies } from './reply.ts';

const resendArgs = {
  id: integer({ description: 'Log ID', minimum: 1 }),
  sent_to: string({ description: 'Comma-separated recipients of a copy' }),
};

/**
 * Resends a logged message and answers with the outcome of that delivery, as the original does (it calls
 * wp_mail synchronously). The handler is async: the log updates are short transactions of their own and no
 * transaction is open while the SMTP conversation runs.
 */
const resendEmail = implement(
  v1.resendEmail,
  replies(async (_i, ctx) => {
    await mailCaller(ctx);
    const p = readParams(ctx, resendArgs);
    if (p.id === undefined) throw fail({ error: 'Enter email id.' }, 401);
    if (!(await getMailLog(ctx.db, p.id))) throw fail({ error: 'Invalid email id.' }, 401);
    let to: string[] | undefined;
    if (p.sent_to !== undefined && p.sent_to.trim() !== '') {
      try {
        to = normalizeAddressList(p.sent_to, 'sent_to', true);
      } catch (e) {
        if (e instanceof HttpError) throw invalidParam('sent_to', 'Invalid e-mail address.', 'rest_invalid_email');
        throw e;
      }
    }
    // resendMail records its write in the write's transaction; the dispatcher drops this process's cached
    // answers after the handler (a POST declaring 'mail'), as it does for every write.
    const out = await resendMail(ctx.app, p.id, to);
    if (!out) throw fail({ error: 'Invalid email id.' }, 401);
    const { row, result } = out;
    const data = {
      id: row.id,
      status: row.status,
      resend_count: row.resend_count,
      transport: row.transport,
      ...(row.resent_from ? { resent_from: row.resent_from } : {}),
    };
    if (result?.ok) return jsonSuccess({ message: 'Email successfully resend.', ...data });
    return jsonError({ message: 'Email not send.', error: result?.error ?? row.error ?? 'Not delivered', ...data }, 200);
  }),
  { async: true },
);

export const resendEndpoints: Endpoint[] = [resendEmail];
