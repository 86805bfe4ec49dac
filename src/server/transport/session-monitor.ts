/**
 * Watches one HTTP/2 connection:
 *  - keepalive: after `keepaliveTimeMillis` in which no call started, the
 *    server pings; no ack within `keepaliveTimeoutMillis` destroys the
 *    connection (its calls see cancellation);
 *  - idle limit: a connection with no call in progress for
 *    `maxConnectionIdleMillis` is closed gracefully (GOAWAY; clients reconnect
 *    transparently);
 *  - shutdown: goAway() sends GOAWAY and closes the connection once its calls
 *    are done; destroy() cancels them.
 *
 * Calls are counted with streamOpened()/streamClosed(). Neither arms a timer:
 * each timer re-checks the state when it fires, so a busy connection costs no
 * timer work per call.
 */

/** The connection a monitor watches (an H2Connection). */
export interface MonitoredSession {
  /** Sends a PING; the callback hears null on its ACK, an error if the connection closes first. False if it cannot be sent. */
  ping(callback: (err: Error | null) => void): boolean;
  /** GOAWAY; the connection closes once its calls are done. */
  close(): void;
  /** Closes at once, cancelling its calls. */
  destroy(): void;
  readonly closed: boolean;
  readonly destroyed: boolean;
}

export interface SessionMonitorOptions {
  readonly keepaliveTimeMillis: number;
  readonly keepaliveTimeoutMillis: number;
  readonly maxConnectionIdleMillis: number;
}

/** setTimeout's largest delay; larger settings mean "never". */
const MAX_DELAY = 2 ** 31 - 1;

export class SessionMonitor {
  private active = 0;
  private idleFrom = performance.now();
  private startedSinceTick = false;
  private keepaliveTimer: NodeJS.Timeout | undefined;
  private pingTimer: NodeJS.Timeout | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private disposed = false;

  constructor(
    private readonly session: MonitoredSession,
    private readonly opts: SessionMonitorOptions,
  ) {
    if (opts.keepaliveTimeMillis > 0 && opts.keepaliveTimeMillis <= MAX_DELAY)
      this.keepaliveTimer = unref(setTimeout(this.keepaliveTick, opts.keepaliveTimeMillis));
    if (opts.maxConnectionIdleMillis > 0 && opts.maxConnectionIdleMillis <= MAX_DELAY)
      this.idleTimer = unref(setTimeout(this.idleTick, opts.maxConnectionIdleMillis));
  }

  /** When (performance.now()) the connection last had no call left, or undefined while it has calls. */
  get idleSince(): number | undefined {
    return this.active === 0 ? this.idleFrom : undefined;
  }

  streamOpened(): void {
    this.active++;
    this.startedSinceTick = true;
  }

  readonly streamClosed = (): void => {
    if (--this.active === 0) this.idleFrom = performance.now();
  };

  private readonly keepaliveTick = (): void => {
    this.keepaliveTimer = undefined;
    if (this.disposed) return;
    if (this.startedSinceTick) {
      this.startedSinceTick = false;
      this.keepaliveTimer = unref(setTimeout(this.keepaliveTick, this.opts.keepaliveTimeMillis));
      return;
    }
    const sent = this.session.ping((err) => {
      clearTimeout(this.pingTimer);
      this.pingTimer = undefined;
      if (this.disposed) return;
      if (err !== null) {
        this.session.destroy();
        return;
      }
      this.keepaliveTimer = unref(setTimeout(this.keepaliveTick, this.opts.keepaliveTimeMillis));
    });
    if (!sent) {
      this.session.destroy();
      return;
    }
    this.pingTimer = unref(setTimeout(() => this.session.destroy(), this.opts.keepaliveTimeoutMillis));
  };

  private readonly idleTick = (): void => {
    this.idleTimer = undefined;
    if (this.disposed) return;
    const limit = this.opts.maxConnectionIdleMillis;
    const idleFor = performance.now() - this.idleFrom;
    if (this.active === 0 && idleFor >= limit) {
      this.goAway();
      return;
    }
    const wait = this.active === 0 ? limit - idleFor : limit;
    this.idleTimer = unref(setTimeout(this.idleTick, Math.max(1, Math.ceil(wait))));
  };

  /** GOAWAY now; the connection closes once its calls are done. */
  goAway(): void {
    if (!this.session.closed && !this.session.destroyed) this.session.close();
  }

  /** Closes the connection at once, cancelling its calls. */
  destroy(): void {
    if (!this.session.destroyed) this.session.destroy();
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.keepaliveTimer);
    clearTimeout(this.pingTimer);
    clearTimeout(this.idleTimer);
  }
}

function unref(t: NodeJS.Timeout): NodeJS.Timeout {
  t.unref();
  return t;
}
