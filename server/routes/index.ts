import type { NamespaceDef } from '../../shared/http/route.ts';
import type { AppState } from '../kernel/context.ts';
import { Registry, type Endpoint } from '../http/registry.ts';
import { batch, namespaceEndpoints, siteIndex } from '../http/core-routes.ts';
import { eventsNamespace } from '../../shared/routes/events.ts';
import { eventsEndpoints } from './events/index.ts';
import { ticketsNamespace } from '../../shared/routes/tickets.ts';
import { ticketsEndpoints } from './tickets/index.ts';
import { installTickets } from './tickets/event-hooks.ts';
import { oembedNamespace } from '../../shared/routes/oembed.ts';
import { installOEmbed, oembedEndpoints } from './oembed/index.ts';
import { analyticsNamespace } from '../../shared/routes/analytics.ts';
import { analyticsEndpoints, installAnalytics } from './analytics/index.ts';
import { viewsNamespace } from '../../shared/routes/views.ts';
import { viewsEndpoints } from './views/index.ts';
import { protectedFilesNamespace } from '../../shared/routes/protected-files.ts';
import { protectedFilesEndpoints } from './protected-files/index.ts';
import { translationNamespace } from '../../shared/routes/translation.ts';
import { translationEndpoints } from './translation/index.ts';
import { formsSubmissionsNamespace, formsViewsNamespace } from '../../shared/routes/forms.ts';
import { formsSubmissionsEndpoints, formsViewsEndpoints } from './forms/index.ts';
import { mailLogV1Namespace, mailLogV2Namespace } from '../../shared/routes/mail-log.ts';
import { installMail, mailLogV1Endpoints, mailLogV2Endpoints } from './mail-log/index.ts';
import { securityNamespace } from '../../shared/routes/security.ts';
import { securityEndpoints } from './security/index.ts';
import { onboardingNamespace } from '../../shared/routes/onboarding.ts';
import { onboardingEndpoints } from './onboarding/index.ts';
import { seoNamespace } from '../../shared/routes/seo.ts';
import { seoEndpoints } from './seo/index.ts';
import { marketingNamespace } from '../../shared/routes/marketing.ts';
import { marketingEndpoints } from './marketing/index.ts';

/** Namespaces in index order, each with the endpoints that implement its shared route table. */
export interface NamespaceModule {
  ns: NamespaceDef;
  endpoints: Endpoint[];
  /** Registers the module's hooks and services once per app (see kernel/hooks.ts). */
  install?: (state: AppState) => void | Promise<void>;
}

export const NAMESPACES: NamespaceModule[] = [
  { ns: oembedNamespace, endpoints: oembedEndpoints, install: installOEmbed },
  { ns: eventsNamespace, endpoints: eventsEndpoints },
  { ns: ticketsNamespace, endpoints: ticketsEndpoints, install: installTickets },
  { ns: protectedFilesNamespace, endpoints: protectedFilesEndpoints },
  { ns: mailLogV1Namespace, endpoints: mailLogV1Endpoints, install: installMail },
  { ns: mailLogV2Namespace, endpoints: mailLogV2Endpoints },
  { ns: translationNamespace, endpoints: translationEndpoints },
  { ns: formsSubmissionsNamespace, endpoints: formsSubmissionsEndpoints },
  { ns: formsViewsNamespace, endpoints: formsViewsEndpoints },
  { ns: securityNamespace, endpoints: securityEndpoints },
  { ns: viewsNamespace, endpoints: viewsEndpoints },
  { ns: analyticsNamespace, endpoints: analyticsEndpoints, install: installAnalytics },
  { ns: onboardingNamespace, endpoints: onboardingEndpoints },
  { ns: seoNamespace, endpoints: seoEndpoints },
  { ns: marketingNamespace, endpoints: marketingEndpoints },
];

/** Shared route definitions that no handler implements (test/server/route-table.test.ts requires none). */
export function unboundRoutes(): string[] {
  const out: string[] = [];
  for (const { ns, endpoints } of NAMESPACES) {
    const bound = new Set(endpoints.map((e) => e.def));
    for (const def of ns.routes) if (!bound.has(def)) out.push(`${ns.name} ${def.methods.join(',')} ${def.route} (${def.id})`);
  }
  return out;
}

/**
 * Builds the route table: the site index and batch routes, then each namespace's index, `/doc` and routes
 * in registration order. A route definition without a handler is left out (and reported by `unboundRoutes`).
 */
export function buildRegistry(): Registry {
  const reg = new Registry();
  reg.add(siteIndex);
  reg.add(batch);
  for (const { ns, endpoints } of NAMESPACES) {
    const byId = new Map(endpoints.map((e) => [e.def.id, e]));
    if (byId.size !== endpoints.length) throw new Error(`${ns.name}: two handlers share a route id`);
    reg.namespaces.push(ns);
    for (const e of namespaceEndpoints(ns)) reg.add(e);
    for (const def of ns.routes) {
      const e = byId.get(def.id);
      if (!e) continue;
      if (e.def !== def) throw new Error(`${ns.name}: handler for ${def.id} is bound to another definition`);
      reg.add(e);
      byId.delete(def.id);
    }
    if (byId.size) throw new Error(`${ns.name}: handlers without a route definition: ${[...byId.keys()].join(', ')}`);
  }
  return reg;
}

/** Runs every namespace module's `install` on a new app. */
export async function installModules(state: AppState): Promise<void> {
  for (const m of NAMESPACES) await m.install?.(state);
}
