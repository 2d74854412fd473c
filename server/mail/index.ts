/**
 * The mail service for other modules: `sendMail(state, message)` logs a message (inside the caller's
 * transaction) and delivers it after commit: over SMTP when EVT_SMTP_URL is set, else as an .eml file
 * under `<dataDir>/mail/`. Invalid addresses throw `HttpError(400, 'evt_mail_invalid')`.
 */
export { sendMail, resendMail, mailIdle, mailDir, setMailTransport } from './service.ts';
export type { MailMessage, MailAttachment } from './message.ts';
export type { Deliver, DeliveryResult } from './transport.ts';
