import type { AppState } from '../../kernel/context.ts';
import { DEFAULT_POLICY, type FetchPolicy } from '../../net/guarded-fetch.ts';
import { DEFAULT_PROVIDERS, type Provider } from './providers.ts';

declare module '../../kernel/services.ts' {
  interface Services {
    /** What the oEmbed proxy reaches the network with, when replaced (see `setProxyDeps`). */
    oembedProxy?: ProxyDeps;
  }
}

/** What the proxy reaches the network with; tests replace parts of it (a local provider, a fake resolver). */
export interface ProxyDeps {
  providers: readonly Provider[];
  policy: Omit<FetchPolicy, 'isAllowedHost'>;
  /** Size cap of a page fetched for discovery (WordPress reads at most 150 KB of it). */
  discoveryMaxBytes: number;
  now: () => Date;
}

export function proxyDeps(state: AppState): ProxyDeps {
  const d = state.services.oembedProxy;
  return d ?? { providers: DEFAULT_PROVIDERS, policy: DEFAULT_POLICY, discoveryMaxBytes: 150 * 1024, now: () => new Date() };
}

/** Replaces some of the proxy's dependencies on one app (dependency injection for tests and embedders). */
export function setProxyDeps(state: AppState, patch: Partial<Omit<ProxyDeps, 'policy'>> & { policy?: Partial<ProxyDeps['policy']> }): void {
  const cur = proxyDeps(state);
  state.services.oembedProxy = { ...cur, ...patch, policy: { ...cur.policy, ...(patch.policy ?? {}) } };
}
