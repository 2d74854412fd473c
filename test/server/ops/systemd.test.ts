import { test } from 'vitest';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const unit = path.resolve(import.meta.dirname, '../../../deploy/doorstep.service');
const analyze = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' });

test('deploy/doorstep.service passes systemd-analyze verify and keeps its hardening', {
  skip: Boolean(analyze.error ? `systemd-analyze is not installed (${analyze.error.message}); .ci/run installs it` : false),
}, () => {
  const text = fs.readFileSync(unit, 'utf8');
  for (const line of [
    'NoNewPrivileges=yes',
    'ProtectSystem=strict',
    'ReadWritePaths=/var/lib/doorstep',
    'ProtectHome=yes',
    'PrivateTmp=yes',
    'CapabilityBoundingSet=',
    'RestartPreventExitStatus=2 3',
    'KillSignal=SIGTERM',
  ]) {
    assert.ok(text.split('\n').includes(line), line);
  }
  assert.match(text, /^ExecStart=\/usr\/bin\/node \/opt\/doorstep\/dist\/server\/main\.js$/m, 'plain node on the build, no npm in between');
  // verify checks that ExecStart's program exists: point it at this machine's node when that is elsewhere.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-unit-'));
  try {
    const copy = path.join(dir, 'doorstep.service');
    fs.writeFileSync(copy, fs.existsSync('/usr/bin/node') ? text : text.replace('ExecStart=/usr/bin/node', `ExecStart=${process.execPath}`));
    const good = spawnSync('systemd-analyze', ['verify', copy], { encoding: 'utf8' });
    assert.equal(good.status, 0, good.stderr);
    assert.equal(`${good.stdout}${good.stderr}`.trim(), '', 'no warnings');
    // A broken unit is caught (the check can fail).
    fs.writeFileSync(copy, text.replace('[Service]', '[Service]\nProtectSystem=bogus'));
    const bad = spawnSync('systemd-analyze', ['verify', copy], { encoding: 'utf8' });
    assert.match(`${bad.stdout}${bad.stderr}`, /protect ?system/i);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
