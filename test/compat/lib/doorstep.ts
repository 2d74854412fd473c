import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { findUserByLogin } from '../../../server/db/repos/users.ts';
import { doorstepSide, type Side } from './side.ts';

/** A fresh Doorstep on a temporary database, in this process, with an administrator and a door key for QR check-in. */
export async function startDoorstep(): Promise<{ server: TestServer; side: Side }> {
  const server = await startTestServer();
  const key = (await server.apiKey('Compat door')).key;
  const adminId = (await findUserByLogin(server.db, 'admin'))!.id;
  return { server, side: doorstepSide(server.base, server.admin, key, adminId) };
}
