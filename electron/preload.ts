// The sandboxed preload: wiring only. Everything it exposes is defined in preload-api.ts.
import { contextBridge, ipcRenderer } from 'electron';
import { exposeDoorstepApi } from './preload-api.ts';

exposeDoorstepApi({ contextBridge, ipcRenderer });
