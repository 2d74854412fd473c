// The Electron entry point: wiring only. Every concern lives in its own setupX(), run by shell.ts.
import electron from 'electron';
import { hostname } from 'node:os';
import path from 'node:path';
import { en } from 'zod/locales';
import * as z from 'zod/mini';
import { startShell } from './shell.ts';

// zod/mini ships no messages; IPC refusals should say what was wrong ("expected boolean, received string").
z.config(en());

const appRoot = electron.app.getAppPath();

startShell(electron, {
  rendererRoot: path.join(appRoot, 'renderer', 'dist'),
  preloadPath: path.join(appRoot, 'dist', 'electron', 'preload.cjs'),
  deviceName: hostname(),
  platform: process.platform,
  arch: process.arch,
  versions: { electron: process.versions.electron, chrome: process.versions.chrome },
  devTools: !electron.app.isPackaged || process.env.DOORSTEP_KIOSK_DEVTOOLS === '1',
  log: (entry) => process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), ...entry })}\n`),
}).catch((error: unknown) => {
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), event: 'shell_start_failed', message: String(error) })}\n`);
  electron.app.quit();
});
