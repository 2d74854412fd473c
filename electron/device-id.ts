import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as z from 'zod/mini';

const DeviceFile = z.object({ deviceId: z.uuid(), createdAt: z.string() });

export const DEVICE_FILE_NAME = 'doorstep-device.json';

/**
 * The installation's device ID, created on first run and kept in userData. It outlives the renderer's
 * storage (clearing site data must not turn one door device into two in the check-in log). A missing or
 * unreadable file gets a fresh ID; the write is tmp-then-rename so a crash never leaves half a file.
 */
export function loadOrCreateDeviceId(userDataDir: string, newId: () => string = randomUUID): string {
  const file = path.join(userDataDir, DEVICE_FILE_NAME);
  try {
    const parsed = DeviceFile.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    if (parsed.success) return parsed.data.deviceId;
  } catch {
    // Missing or not JSON: fall through and create one.
  }
  const deviceId = newId();
  mkdirSync(userDataDir, { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify({ deviceId, createdAt: new Date().toISOString() }));
  renameSync(tmp, file);
  return deviceId;
}
