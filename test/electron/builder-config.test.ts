import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);

type Config = Record<string, unknown> & {
  linux: { target: string[]; maintainer: string; category: string };
  win: { target: string[] };
  mac: { target: string[]; extendInfo: Record<string, string> };
  files: string[];
  extraMetadata: { main: string };
};

function load(): Config {
  const yaml = require('js-yaml') as { load(text: string): unknown };
  return yaml.load(readFileSync(path.join(root, 'electron-builder.yml'), 'utf8')) as Config;
}

describe('electron-builder.yml', () => {
  test("validates against electron-builder's own configuration schema", () => {
    const Ajv = require('ajv') as new (options: object) => { compile(schema: object): ((data: unknown) => boolean) & { errors?: unknown } };
    const schema = JSON.parse(readFileSync(require.resolve('app-builder-lib/scheme.json'), 'utf8')) as object;
    const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
    assert.equal(validate(load()), true, JSON.stringify(validate.errors, null, 2));
  });

  test('packages Linux AppImage and deb, Windows NSIS and a macOS dmg with a camera usage string', () => {
    const config = load();
    assert.equal(config.productName, 'Doorstep Kiosk');
    assert.equal(config.asar, true);
    assert.deepEqual(config.linux.target, ['AppImage', 'deb']);
    assert.match(config.linux.maintainer, /<.+@.+>/);
    assert.ok(config.linux.category);
    assert.deepEqual(config.win.target, ['nsis']);
    assert.deepEqual(config.mac.target, ['dmg']);
    assert.match(config.mac.extendInfo.NSCameraUsageDescription, /camera/i);
    for (const entry of ['dist/electron/**/*', 'renderer/dist/**/*', 'package.json']) assert.ok(config.files.includes(entry), entry);
  });

  test('the packaged main is the built main, and package.json agrees', () => {
    const config = load();
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { main: string };
    assert.equal(pkg.main, 'dist/electron/main.cjs');
    assert.equal(config.extraMetadata.main, pkg.main);
  });
});
