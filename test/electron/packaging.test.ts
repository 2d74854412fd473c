import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build as viteBuild } from 'vite';
import { buildElectron } from '../../electron/build.ts';
import { tempDir } from './shell-fixture.ts';

/*
 * A packaging dry run with electron-builder itself: the project's electron-builder.yml, an app directory
 * staged from fresh builds, and a stand-in "unpacked Electron" (the real one cannot be downloaded here),
 * packed as the Linux `dir` target. What it proves: the files globs, asar and `main` yield an app.asar
 * holding exactly the two bundles, the renderer build and package.json, and no node_modules.
 * Fuses are left out only because they patch the real Electron binary, which the stand-in is not.
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);

interface Asar {
  listPackage(archive: string, options: object): string[];
  extractFile(archive: string, file: string): Buffer;
}

describe('electron-builder packaging (dry run, Linux dir target)', () => {
  test('app.asar holds the bundles, the renderer build and package.json, and nothing else', async (t) => {
    const work = tempDir(t, 'doorstep-package-');
    const app = path.join(work, 'app');
    mkdirSync(app);
    copyFileSync(path.join(root, 'package.json'), path.join(app, 'package.json'));
    // The project's dependencies are resolvable, as in a real checkout; the config must keep them out.
    symlinkSync(path.join(root, 'node_modules'), path.join(app, 'node_modules'), 'dir');
    await buildElectron(path.join(app, 'dist', 'electron'));
    await viteBuild({
      configFile: path.join(root, 'vite.config.ts'),
      logLevel: 'silent',
      build: { outDir: path.join(app, 'renderer', 'dist'), emptyOutDir: true },
    });
    const electronDist = path.join(work, 'electron-dist');
    mkdirSync(electronDist);
    writeFileSync(path.join(electronDist, 'electron'), '#!/bin/sh\nexit 0\n');
    chmodSync(path.join(electronDist, 'electron'), 0o755);

    const yaml = require('js-yaml') as { load(text: string): Record<string, unknown> };
    const config = yaml.load(readFileSync(path.join(root, 'electron-builder.yml'), 'utf8'));
    delete config.electronFuses;
    const { build, Platform } = await import('electron-builder');
    const output = path.join(work, 'out');
    await build({
      projectDir: app,
      targets: Platform.LINUX.createTarget('dir'),
      config: {
        ...config,
        electronDist,
        electronVersion: '41.7.1',
        directories: { ...(config.directories as object), output, buildResources: path.join(root, 'electron') },
      },
    });

    const asar = require('@electron/asar') as Asar;
    const archive = path.join(output, 'linux-unpacked', 'resources', 'app.asar');
    const files = asar.listPackage(archive, { isPack: false }).map((file) => file.split(path.sep).join('/'));
    assert.deepEqual(
      files.filter((file) => file.includes('node_modules')),
      [],
    );
    for (const file of ['/package.json', '/dist/electron/main.cjs', '/dist/electron/preload.cjs', '/renderer/dist/index.html']) {
      assert.ok(files.includes(file), `${file} in ${files.join(', ')}`);
    }
    const unexpected = files.filter((file) => !/^\/(package\.json|dist(\/electron(\/(main|preload)\.cjs)?)?|renderer(\/dist(\/.*)?)?)$/.test(file));
    assert.deepEqual(unexpected, []);
    const packedPackage = JSON.parse(asar.extractFile(archive, 'package.json').toString()) as { main: string };
    assert.equal(packedPackage.main, 'dist/electron/main.cjs');
  });
});
