import { Worker } from 'node:worker_threads';
import type Mail from 'nodemailer/lib/mailer';

/** A message as the mail thread composed it: its bytes, and the envelope and Message-ID they carry. */
export interface CompiledMessage {
  raw: Buffer;
  envelope: { from: string | false; to: string[] };
  messageId: string | null;
}

export interface MailJob {
  /** QR images to draw: the attachment's index in `msg.attachments`, and the code's text. */
  qr: { index: number; text: string }[];
  /** The message to compose once its images are in (null: draw only, the transport composes it itself). */
  msg: Mail.Options | null;
  /** Line endings of the composed message: `unix` for files, `windows` for SMTP. */
  newline: 'unix' | 'windows';
}

export interface MailJobResult {
  pngs: Map<number, Buffer>;
  compiled: CompiledMessage | null;
}

interface Reply {
  seq: number;
  error?: string;
  pngs?: { index: number; content: Uint8Array }[];
  compiled?: { raw: Uint8Array; envelope: CompiledMessage['envelope']; messageId: string | null } | null;
}

const asBuffer = (u: Uint8Array) => Buffer.from(u.buffer, u.byteOffset, u.byteLength);

/**
 * The mail thread (mail-worker.cjs): a delivery's QR images and MIME message are made there, off the request thread,
 * which only claims the message, hands it over, sends the bytes and records the outcome. Started on first use; a
 * thread that fails or exits fails its jobs (the caller then does the work itself, as before there was a thread)
 * and the next job starts a new one. It keeps the process alive only while a job is out.
 */
export class MailThread {
  private worker: Worker | null = null;
  private seq = 0;
  private readonly waiting = new Map<number, { resolve: (r: MailJobResult) => void; reject: (e: Error) => void }>();
  private stopped = false;
  /** Jobs the thread has done (tests: the work was done there, not by the fallback); a job it failed is not counted. */
  completed = 0;

  /** `onFailure` hears of a thread that failed or exited unasked (the operator's log). */
  constructor(private readonly onFailure: (error: string) => void = () => {}) {}

  run(job: MailJob): Promise<MailJobResult> {
    if (this.stopped) return Promise.reject(new Error('the mail thread is stopped'));
    const worker = this.worker ?? this.start();
    const seq = ++this.seq;
    return new Promise((resolve, reject) => {
      this.waiting.set(seq, { resolve, reject });
      // Kept alive while a job is out (a CLI run waits for its message); unreferenced again when none is.
      if (this.waiting.size === 1) worker.ref();
      try {
        worker.postMessage({ seq, ...job });
      } catch (e) {
        this.waiting.delete(seq);
        reject(e as Error);
      }
    });
  }

  /** Ends the thread; jobs still out fail (their callers do the work themselves). */
  async stop(): Promise<void> {
    this.stopped = true;
    const w = this.worker;
    this.worker = null;
    this.failAll(new Error('the mail thread is stopped'));
    if (w) await w.terminate();
  }

  private start(): Worker {
    const worker = new Worker(new URL('./mail-worker.cjs', import.meta.url), { execArgv: [] });
    worker.on('message', (m: Reply) => {
      const w = this.waiting.get(m.seq);
      if (!w) return;
      this.waiting.delete(m.seq);
      if (this.waiting.size === 0) worker.unref();
      if (m.error !== undefined) return w.reject(new Error(m.error));
      this.completed++;
      const pngs = new Map((m.pngs ?? []).map((p) => [p.index, asBuffer(p.content)] as const));
      const c = m.compiled;
      w.resolve({ pngs, compiled: c ? { raw: asBuffer(c.raw), envelope: c.envelope, messageId: c.messageId } : null });
    });
    const gone = (e: Error) => {
      if (this.worker !== worker) return;
      this.worker = null;
      if (!this.stopped) this.onFailure(e.message);
      this.failAll(e);
    };
    worker.on('error', (e) => gone(e instanceof Error ? e : new Error(String(e))));
    worker.on('exit', (code) => gone(new Error(`the mail thread exited with ${code}`)));
    // Never keeps the process alive (after the listeners: adding one refs it again).
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private failAll(e: Error): void {
    const jobs = [...this.waiting.values()];
    this.waiting.clear();
    for (const j of jobs) j.reject(e);
  }
}
