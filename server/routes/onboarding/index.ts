import { z } from 'zod';
import { onboardingRoutes as R, WIZARD_NONCE_ACTION, WizardState } from '../../../shared/routes/onboarding.ts';
import { boolean, custom, idList, integer, string } from '../../../shared/http/params.ts';
import type { Ctx } from '../../kernel/context.ts';
import { can, isAnonymous } from '../../kernel/context.ts';
import { forbidden, invalidParam } from '../../kernel/errors.ts';
import { implement, type Endpoint } from '../../http/registry.ts';
import { ok } from '../../kernel/result.ts';
import { validateArgs } from '../../http/validate.ts';
import { createNonce, verifyNonce } from '../../auth/nonces.ts';
import { getJsonOption, getOption, setJsonOption, setOption } from '../../db/repos/site-options.ts';

/** Site options the wizard writes (WordPress/Event Tickets option names where they exist). */
export const WIZARD_OPTION = 'tec_tickets_onboarding_wizard';
export const CURRENCY_OPTION = 'tickets-commerce-currency-code';
export const COMMERCE_ENABLED_OPTION = 'tickets-commerce-enabled';
export const TIMEZONE_OPTION = 'timezone_string';
export const FIRST_EVENT_OPTION = 'tec_tickets_onboarding_first_event';
export const OPTIN_OPTION = 'tec_tickets_onboarding_optin';

const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));
const ZONES = new Set([...Intl.supportedValuesOf('timeZone'), 'UTC']);
const LOCAL = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/;

const FirstEvent = z
  .object({
    title: z.string().trim().min(1).max(200),
    start: z.string().regex(LOCAL),
    end: z.string().regex(LOCAL),
  })
  .refine((e) => e.end >= e.start && !Number.isNaN(Date.parse(e.start.replace(' ', 'T'))) && !Number.isNaN(Date.parse(e.end.replace(' ', 'T'))));

/** The wizard's fields: not declared on the route (the original declares only the nonce), validated alike. */
const fieldArgs = {
  begun: boolean(),
  finished: boolean(),
  currentTab: integer({ minimum: 0, maximum: 10 }),
  completedTabs: idList(),
  skippedTabs: idList(),
  paymentOption: string({ maxLength: 40 }),
  currency: custom(
    z.string().refine((c) => CURRENCIES.has(c)),
    z.string(),
    { style: 'callback' },
  ),
  timezone: custom(
    z.string().refine((t) => ZONES.has(t)),
    z.string(),
    { style: 'callback' },
  ),
  optin: boolean(),
  event: custom(FirstEvent, z.object({}), { style: 'callback' }),
};

type Fields = { [K in keyof typeof fieldArgs]?: unknown };

async function stored(ctx: Ctx): Promise<z.infer<typeof WizardState>> {
  const r = WizardState.safeParse(await getJsonOption<unknown>(ctx.db, WIZARD_OPTION, null));
  return r.success
    ? r.data
    : { begun: false, finished: false, current_tab: 0, completed_tabs: [], skipped_tabs: [], payment_option: '', last_send: {} };
}

const unique = (tabs: number[]) => [...new Set(tabs)];

const save = implement(R.save, async (input, ctx) => {
  // The original's order: the nonce is a parameter check (400), the capability comes after it (401/403).
  if (!verifyNonce(ctx, input.action_nonce, WIZARD_NONCE_ACTION, 0)) throw invalidParam('action_nonce', 'Invalid nonce.', 'tec_invalid_nonce');
  const f = validateArgs(fieldArgs, ctx.req.params) as Fields;
  if (!can(ctx, 'manage_options')) throw forbidden(isAnonymous(ctx));
  if (f.paymentOption !== undefined && !/^[a-z0-9_-]*$/.test(f.paymentOption as string)) throw invalidParam('paymentOption');

  const state = await stored(ctx);
  const current = (f.currentTab as number | undefined) ?? 0;
  let complete = (f.completedTabs as number[] | undefined) ?? [];
  const skipped = ((f.skippedTabs as number[] | undefined) ?? []).filter((t) => !complete.includes(t));
  let begun = (f.begun as boolean | undefined) ?? false;
  const finished = (f.finished as boolean | undefined) ?? false;
  if (begun) complete = [...complete, 0];
  if (!skipped.includes(current)) complete = [...complete, current];
  if (finished) begun = true;
  const lastSend = Object.fromEntries(
    Object.entries(ctx.req.body).filter(([k]) => !['action_nonce', '_wpnonce', 'timezones', 'countries', 'currencies'].includes(k)),
  );
  await setJsonOption(ctx.db, WIZARD_OPTION, {
    ...state,
    begun,
    finished,
    current_tab: current,
    completed_tabs: unique(complete),
    skipped_tabs: unique(skipped),
    payment_option: (f.paymentOption as string | undefined) ?? '',
    last_send: lastSend,
  });

  const message = ['Onboarding wizard step completed successfully.'];
  if (f.currency !== undefined) {
    await setOption(ctx.db, CURRENCY_OPTION, f.currency as string);
    await setOption(ctx.db, COMMERCE_ENABLED_OPTION, f.paymentOption ? '1' : '0');
    message.push('Successfully saved settings.');
  }
  if (f.timezone !== undefined) {
    await setOption(ctx.db, TIMEZONE_OPTION, f.timezone as string);
    message.push('Successfully saved the time zone.');
  }
  if (f.optin !== undefined) await setOption(ctx.db, OPTIN_OPTION, f.optin ? '1' : '0');
  if (f.event !== undefined) {
    await setJsonOption(ctx.db, FIRST_EVENT_OPTION, f.event);
    message.push('Successfully saved the first event.');
  }
  return ok({ success: true, message });
});

const read = implement(R.read, async (_input, ctx) =>
  ok({
    action_nonce: createNonce(ctx, WIZARD_NONCE_ACTION, 0),
    settings: await stored(ctx),
    currency: (await getOption(ctx.db, CURRENCY_OPTION)) ?? null,
    tickets_commerce_enabled: (await getOption(ctx.db, COMMERCE_ENABLED_OPTION)) === '1',
    timezone: (await getOption(ctx.db, TIMEZONE_OPTION)) ?? ctx.app.config.timezone,
    optin: (await getOption(ctx.db, OPTIN_OPTION)) === '1',
    first_event: await getJsonOption<unknown>(ctx.db, FIRST_EVENT_OPTION, null),
  }),
);

export const onboardingEndpoints: Endpoint[] = [save, read];
