import type { NamespaceDef } from '../../shared/http/route.ts';
import { Registry, type Endpoint } from '../http/registry.ts';
import { batch, namespaceEndpoints, siteIndex } from './core.ts';
import { eventsNamespace } from '../../shared/routes/events.ts';
import { eventsEndpoints } from './events/index.ts';

/** Namespaces in index order, each with the endpoints that implement its shared route table. */
const NAMESPACES: { ns: NamespaceDef; endpoints: Endpoint[] }[] = [{ ns: eventsNamespace, endpoints: eventsEndpoints }];

/**
 * Builds the route table: the site index and batch routes, then each namespace's index, `/doc` and routes
 * in registration order. Every shared route definition must have exactly one handler.
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
      if (!e) throw new Error(`${ns.name}: route ${def.id} has no handler`);
      if (e.def !== def) throw new Error(`${ns.name}: handler for ${def.id} is bound to another definition`);
      reg.add(e);
      byId.delete(def.id);
    }
    if (byId.size) throw new Error(`${ns.name}: handlers without a route definition: ${[...byId.keys()].join(', ')}`);
  }
  return reg;
}
