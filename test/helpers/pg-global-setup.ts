import { startPrivateCluster, testDbWanted } from './pg-cluster.ts';

/**
 * vitest globalSetup: with EVT_TEST_DB=postgres and no EVT_TEST_PG_URL, starts one private PostgreSQL cluster for
 * the run (the test workers inherit its URL) and stops it at the end. Nothing otherwise.
 */
export default async function setup(): Promise<(() => void) | undefined> {
  if (!testDbWanted() || process.env.EVT_TEST_PG_URL) return undefined;
  const cluster = await startPrivateCluster();
  process.env.EVT_TEST_PG_URL = cluster.url;
  return () => cluster.stop();
}
