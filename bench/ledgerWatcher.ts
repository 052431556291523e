// Follows the latest ledger so that thousands of waiting payments can sleep on one shared promise
// instead of each polling the server (which would spend the server's CPU on the bench itself).
import { RpcClient } from './rpcClient.ts';

const POLL_MS = 10;

export class LedgerWatcher {
  latest = 0;
  private readonly rpc: RpcClient;
  private timer: NodeJS.Timeout | undefined;
  private changed!: Promise<void>;
  private signal!: () => void;
  private stopped = false;

  constructor(url: string) {
    // its own connection: queued behind thousands of payment calls it would notice closes late
    this.rpc = new RpcClient(url, 1);
    this.arm();
  }

  private arm(): void { this.changed = new Promise((r) => { this.signal = r; }); }

  async start(): Promise<void> {
    await this.poll();
    const tick = async () => {
      if (this.stopped) return;
      try { await this.poll(); } catch { /* a missed poll only delays the next */ }
      if (!this.stopped) this.timer = setTimeout(tick, POLL_MS);
    };
    this.timer = setTimeout(tick, POLL_MS);
  }

  private async poll(): Promise<void> {
    // getHealth, not getLatestLedger: the latter carries the whole LedgerCloseMeta of the latest ledger
    const { latestLedger: sequence } = await this.rpc.call<{ latestLedger: number }>('getHealth');
    if (sequence > this.latest) {
      this.latest = sequence;
      const signal = this.signal;
      this.arm();
      signal();
    }
  }

  /** Resolves once a ledger later than `seq` has closed (immediately if one already has). */
  async after(seq: number, deadline: number): Promise<void> {
    while (this.latest <= seq) {
      if (Date.now() > deadline) throw new Error(`no ledger after ${seq} before the deadline`);
      await Promise.race([this.changed, new Promise((r) => setTimeout(r, 1000))]);
    }
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.rpc.close();
  }
}
