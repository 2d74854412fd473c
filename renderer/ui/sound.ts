import type { VerdictTone } from './verdict-text.ts';

/** Notes per verdict: [frequency Hz, duration s, wave] played one after another. */
const TUNES: Record<VerdictTone, Array<[number, number, OscillatorType]>> = {
  ok: [
    [880, 0.12, 'sine'],
    [1320, 0.16, 'sine'],
  ],
  warn: [
    [660, 0.15, 'triangle'],
    [660, 0.15, 'triangle'],
    [660, 0.15, 'triangle'],
  ],
  bad: [[196, 0.45, 'square']],
  stale: [
    [440, 0.2, 'sawtooth'],
    [330, 0.3, 'sawtooth'],
  ],
  out: [
    [1320, 0.12, 'sine'],
    [880, 0.16, 'sine'],
  ],
};

/** A sound per verdict with WebAudio: distinct enough to tell apart without looking at the screen. */
export class VerdictSound {
  private ctx: AudioContext | null = null;

  /**
   * Makes the audio context ahead of the first verdict: making one took the page's thread for 0.35-0.5 s in a
   * profile of the kiosk on this project's 2-core machine, which would otherwise fall on the first scan (or the
   * next one, waiting behind it). Where audio may not start without a gesture, it stays suspended until `unlock`.
   */
  prepare(): void {
    try {
      if (this.ctx) return;
      this.ctx = new AudioContext();
      // One silent note through the same nodes a verdict uses: the first verdict's sound otherwise builds them
      // first (6-26 ms of the first scan's time in the bench's page profile, under load).
      const osc = this.ctx.createOscillator();
      const gain = this.ctx.createGain();
      gain.gain.value = 0;
      osc.connect(gain).connect(this.ctx.destination);
      osc.start();
      osc.stop(this.ctx.currentTime + 0.01);
    } catch {
      // No audio device: the screen still says it all.
    }
  }

  /**
   * Browsers start audio only after a user gesture; call this from one (and it is harmless to repeat). It resumes
   * a context made before the gesture, and makes none: making one takes the page's thread for half a second, which
   * fell on staff's confirming tap at pairing. A context made after a gesture (`prepare`, the first verdict) may
   * play at once.
   */
  unlock(): void {
    if (this.ctx?.state === 'suspended') void this.ctx.resume();
  }

  play(tone: VerdictTone): void {
    try {
      this.ctx ??= new AudioContext();
      const ctx = this.ctx;
      let at = ctx.currentTime + 0.01;
      for (const [freq, dur, type] of TUNES[tone]) {
        const osc = ctx.createOscillator();
        const gain = ctx.createGain();
        osc.type = type;
        osc.frequency.value = freq;
        gain.gain.setValueAtTime(0.0001, at);
        gain.gain.exponentialRampToValueAtTime(0.3, at + 0.01);
        gain.gain.exponentialRampToValueAtTime(0.0001, at + dur);
        osc.connect(gain).connect(ctx.destination);
        osc.start(at);
        osc.stop(at + dur + 0.02);
        at += dur + 0.04;
      }
    } catch {
      // No audio device: the screen still says it all.
    }
  }
}
