import type { Endpoint } from '../../http/registry.ts';
import { connectionEndpoints } from './connection.ts';
import { scanEndpoints } from './scan.ts';

/** Handlers of `security/v1`: the account connection (connection.ts), settings and scans (scan.ts). */
export const securityEndpoints: Endpoint[] = [...connectionEndpoints, ...scanEndpoints];
