import { z } from 'zod';
import { string } from '../http/params.ts';
import { defineRoute, translationLanguage, type NamespaceDef, type RouteDef } from '../http/route.ts';

/**
 * `tickets-onboarding`: Event Tickets' onboarding wizard (`tec/tickets/onboarding/wizard`), renamed as the spec
 * names it. `POST /wizard` declares `action_nonce` (required) and, as in the original, checks it before the
 * permission (`manage_options`); the wizard's other fields are read from the body. Added: `GET /wizard` gives a
 * signed-in administrator the nonce and the stored settings. Handlers: server/routes/onboarding/.
 */

export const ONBOARDING_NS = 'tickets-onboarding';
const ns = ONBOARDING_NS;
const tl = { translation_language: translationLanguage };

export const WIZARD_NONCE_ACTION = '_tec_tickets_wizard';

export const WizardState = z.object({
  begun: z.boolean(),
  finished: z.boolean(),
  current_tab: z.number().int(),
  completed_tabs: z.array(z.number().int()),
  skipped_tabs: z.array(z.number().int()),
  payment_option: z.string(),
  last_send: z.record(z.string(), z.unknown()),
});

export const WizardSaved = z.object({ success: z.literal(true), message: z.array(z.string()) });
export const WizardRead = z.object({
  action_nonce: z.string(),
  settings: WizardState,
  currency: z.string().nullable(),
  tickets_commerce_enabled: z.boolean(),
  timezone: z.string(),
  optin: z.boolean(),
  first_event: z.unknown(),
});

export const onboardingRoutes = {
  save: defineRoute({
    id: 'tickets-onboarding.wizard.save',
    namespace: ns,
    route: '/wizard',
    methods: ['POST'],
    permission: 'public',
    args: { action_nonce: string({ description: 'The action nonce for the request.', required: true }), ...tl },
    summary: 'Saves a wizard step: begun, finished, currentTab, completedTabs, skippedTabs, paymentOption, currency, timezone, optin, event',
    doc: {
      responses: {
        '200': { description: 'What was saved', schema: 'WizardSaved' },
        '403': { description: 'The nonce is invalid, or the caller may not manage options.' },
      },
    },
  }),
  read: defineRoute({
    id: 'tickets-onboarding.wizard.read',
    namespace: ns,
    route: '/wizard',
    methods: ['GET'],
    permission: 'manage_options',
    args: { ...tl },
    summary: 'The wizard nonce and the stored wizard settings (an extension of this server)',
    doc: { responses: { '200': { description: 'The nonce and the settings', schema: 'WizardRead' } } },
  }),
};

export const onboardingNamespace: NamespaceDef = {
  name: ns,
  routes: [onboardingRoutes.save, onboardingRoutes.read] as RouteDef[],
  doc: {
    title: 'Tickets onboarding',
    description: 'The onboarding wizard of the ticketing plugin.',
    version: '1.0.0',
    schemas: { WizardState, WizardSaved, WizardRead },
  },
};
