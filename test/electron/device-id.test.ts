import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DEVICE_FILE_NAME, loadOrCreateDeviceId } from '../../electron/device-id.ts';
import { tempDir } from './shell-fixture.ts';

describe('device ID', () => {
  test('is created once, written to userData, and read back unchanged', (t) => {
    const dir = path.join(tempDir(t), 'not-yet-created');
    const id = loadOrCreateDeviceId(dir);
    const stored = JSON.parse(readFileSync(path.join(dir, DEVICE_FILE_NAME), 'utf8')) as { deviceId: string };
    assert.equal(stored.deviceId, id);
    assert.equal(
      loadOrCreateDeviceId(dir, () => 'never-used'),
      id,
    );
    assert.deepEqual(readdirSync(dir), [DEVICE_FILE_NAME], 'no temp file left behind');
  });

  test('a corrupt or foreign file is replaced by a fresh ID', (t) => {
    const dir = tempDir(t);
    const fresh = '0f9b6c52-3c57-4c4e-9d55-1d2b0c3c7a11';
    writeFileSync(path.join(dir, DEVICE_FILE_NAME), '{"deviceId": "not-a-uuid"');
    assert.equal(
      loadOrCreateDeviceId(dir, () => fresh),
      fresh,
    );
    writeFileSync(path.join(dir, DEVICE_FILE_NAME), JSON.stringify({ deviceId: 'x', createdAt: 'y' }));
    const second = loadOrCreateDeviceId(dir);
    assert.notEqual(second, 'x');
    assert.equal(loadOrCreateDeviceId(dir), second);
  });
});
