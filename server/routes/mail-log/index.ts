import type { Endpoint } from '../../http/registry.ts';
import type { AppState } from '../../kernel/context.ts';
import { hooks } from '../../kernel/hooks.ts';
import { resumeQueuedMail } from '../../mail/service.ts';
import { ticketMailOnOrderCompleted } from '../../mail/ticket-mail.ts';
import { connectEndpointsV1, connectEndpointsV2 } from './connect.ts';
import { logEndpointsV1, logEndpointsV2 } from './logs.ts';
import { resendEndpoints } from './resend.ts';

/** Handlers of `mail-log/v1` and `mail-log/v2` (shared/routes/mail-log.ts). */
export const mailLogV1Endpoints: Endpoint[] = [...connectEndpointsV1, ...logEndpointsV1, ...resendEndpoints];
export const mailLogV2Endpoints: Endpoint[] = [...logEndpointsV2, ...connectEndpointsV2];

/** Ticket e-mails on completed orders, and delivery of anything a previous run left queued. */
export function installMail(state: AppState): void {
  hooks(state).orderCompleted.push(ticketMailOnOrderCompleted);
  resumeQueuedMail(state);
}
