// The streaming bench's client processes and the bench talk over Node's IPC channel: the bench asks
// (open connections, start recording, hand over what you received, close), the child answers with
// a message of a known type. Clients live in their own processes so that neither their work nor
// the bench's shares an event loop with what is measured.
import { fork, type ChildProcess } from 'node:child_process';

export interface Message { type: string; [key: string]: unknown }

/** Parent side: one forked script. */
export class IpcChild {
  private readonly child: ChildProcess;
  private readonly name: string;
  private readonly inbox: Message[] = [];
  private wake: (() => void) | undefined;
  private exited: string | undefined;

  constructor(script: URL, name: string) {
    this.name = name;
    this.child = fork(script.pathname, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.child.on('message', (m) => { this.inbox.push(m as Message); this.wake?.(); });
    this.child.on('exit', (code, signal) => { this.exited = `${this.name} exited (${signal ?? code})`; this.wake?.(); });
  }

  get pid(): number { return this.child.pid!; }

  /** Sends `message` and resolves with the child's next message of type `reply` (its `error` message rejects). */
  async ask<T extends Message>(message: Message, reply: string, timeoutMs = 120_000): Promise<T> {
    if (this.exited) throw new Error(this.exited);
    this.child.send(message);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const i = this.inbox.findIndex((m) => m.type === reply || m.type === 'error');
      if (i >= 0) {
        const [m] = this.inbox.splice(i, 1);
        if (m.type === 'error') throw new Error(`${this.name}: ${String(m.message)}`);
        return m as T;
      }
      if (this.exited) throw new Error(this.exited);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`${this.name} did not answer ${message.type} in ${timeoutMs / 1000} s`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => { clearTimeout(timer); this.wake = undefined; resolve(); };
      });
    }
  }

  /** Asks the child to exit; kills it if it has not within a few seconds. */
  async stop(): Promise<void> {
    if (this.exited) return;
    const gone = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    try { this.child.send({ type: 'exit' }); } catch { /* channel already closed */ }
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await gone;
    clearTimeout(timer);
  }
}

/** Child side: answers each message of the parent with the handler's reply; a failure becomes an `error` message. */
export function serveParent(handler: (m: Message) => Promise<Message | undefined>): void {
  process.on('message', (m: Message) => {
    if (m.type === 'exit') { process.disconnect(); process.exit(0); }
    handler(m).then(
      (reply) => { if (reply) process.send!(reply); },
      (e: unknown) => process.send!({ type: 'error', message: (e as Error).message ?? String(e) }),
    );
  });
}
