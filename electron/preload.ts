// The sandboxed preload: wiring only. Everything it exposes is defined in preload-api.ts.
// Import order matters: zod-jitless must run before shared/ipc.ts builds its schemas.
import './zod-jitless.ts';
import { contextBridge, ipcRenderer } from 'electron';
import { exposeDoorstepApi } from './preload-api.ts';

exposeDoorstepApi({ contextBridge, ipcRenderer });
