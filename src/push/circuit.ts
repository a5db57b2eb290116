/**
 * A circuit breaker per webhook origin (scheme, host and port). After `failures` attempts in a
 * row that timed out or failed to connect (or got a 5xx or 429), the origin's circuit opens:
 * for `cooldownMs` no attempt is sent to it, so a receiver that never answers stops holding
 * delivery slots. Attempts that come meanwhile wait. Then the circuit is half-open: one attempt
 * goes as a probe while the others wait for its verdict. If the probe is delivered, the circuit
 * closes and they all go; if it fails, the circuit opens again and each waiter counts one failed
 * attempt (its retries and backoff go on as usual, so a delivery to a dead origin still ends).
 */

/** What an attempt may do: be sent, be sent as the half-open probe, or count as failed unsent. */
export type Admission = 'go' | 'probe' | 'refused';

/** How an attempt sent through the circuit ended, as far as the origin's health goes. */
export type Verdict = 'ok' | 'failed' | 'none';

type Phase = { name: 'closed'; failuresInRow: number } | { name: 'open'; timer: NodeJS.Timeout } | { name: 'half-open'; probing: boolean };

interface Circuit {
  phase: Phase;
  /** Attempts waiting for the circuit to half-open or for the probe's verdict. */
  waiters: Set<(admission: Admission | 'retry') => void>;
}

export interface CircuitOptions {
  /** Failed attempts in a row that open the circuit. */
  failures: number;
  cooldownMs: number;
  /** The circuit of an origin opened (true) or closed again (false). */
  onChange?: (origin: string, open: boolean) => void;
}

export class Circuits {
  private readonly circuits = new Map<string, Circuit>();

  constructor(private readonly opts: CircuitOptions) {}

  /** Origins whose circuit is not closed (open or half-open). */
  get openCount(): number {
    let n = 0;
    for (const c of this.circuits.values()) if (c.phase.name !== 'closed') n++;
    return n;
  }

  /** Whether attempts to `origin` are held back now (a backlog for it may be squeezed). */
  isOpen(origin: string): boolean {
    const phase = this.circuits.get(origin)?.phase.name;
    return phase === 'open' || phase === 'half-open';
  }

  /** Asks to send an attempt to `origin`; waits while the circuit is open. Aborted: 'refused'. */
  async admit(origin: string, signal: AbortSignal): Promise<Admission> {
    for (;;) {
      if (signal.aborted) return 'refused';
      const circuit = this.circuits.get(origin);
      if (!circuit || circuit.phase.name === 'closed') return 'go';
      if (circuit.phase.name === 'half-open' && !circuit.phase.probing) {
        circuit.phase.probing = true;
        return 'probe';
      }
      const answer = await this.waitOn(circuit, signal);
      if (answer !== 'retry') return answer;
    }
  }

  /** The result of an attempt `admit` let through. */
  record(origin: string, admission: Admission, verdict: Verdict): void {
    const circuit = this.circuits.get(origin);
    if (verdict === 'ok') {
      // Any delivery shows the origin answers, probe or not.
      if (circuit) this.close(origin, circuit);
      return;
    }
    if (!circuit) {
      if (verdict === 'failed') this.circuitOf(origin, 1);
      return;
    }
    const phase = circuit.phase;
    if (admission === 'probe' && phase.name === 'half-open') {
      if (verdict === 'failed') this.open(origin, circuit, 'refused');
      else {
        // No verdict (the attempt was not really made): the next waiter probes instead.
        phase.probing = false;
        this.wake(circuit, 'retry');
      }
      return;
    }
    if (phase.name === 'closed' && verdict === 'failed') {
      phase.failuresInRow++;
      if (phase.failuresInRow >= this.opts.failures) this.open(origin, circuit, 'retry');
    }
  }

  /** Stops every timer; waiters are released by their abort signals. */
  stop(): void {
    for (const c of this.circuits.values()) if (c.phase.name === 'open') clearTimeout(c.phase.timer);
    this.circuits.clear();
  }

  private circuitOf(origin: string, failuresInRow: number): void {
    const circuit: Circuit = { phase: { name: 'closed', failuresInRow }, waiters: new Set() };
    this.circuits.set(origin, circuit);
    if (failuresInRow >= this.opts.failures) this.open(origin, circuit, 'retry');
  }

  private open(origin: string, circuit: Circuit, toWaiters: 'refused' | 'retry'): void {
    const wasClosed = circuit.phase.name === 'closed';
    const timer = setTimeout(() => {
      if (this.circuits.get(origin) !== circuit) return;
      circuit.phase = { name: 'half-open', probing: false };
      this.wake(circuit, 'retry');
    }, this.opts.cooldownMs);
    // A cooling circuit must not keep the process alive on its own.
    timer.unref();
    circuit.phase = { name: 'open', timer };
    if (wasClosed) this.opts.onChange?.(origin, true);
    this.wake(circuit, toWaiters);
  }

  private close(origin: string, circuit: Circuit): void {
    const phase = circuit.phase;
    if (phase.name === 'open') clearTimeout(phase.timer);
    this.circuits.delete(origin);
    if (phase.name !== 'closed') this.opts.onChange?.(origin, false);
    this.wake(circuit, 'go');
  }

  private wake(circuit: Circuit, answer: Admission | 'retry'): void {
    const waiters = [...circuit.waiters];
    circuit.waiters.clear();
    for (const resolve of waiters) resolve(answer);
  }

  private waitOn(circuit: Circuit, signal: AbortSignal): Promise<Admission | 'retry'> {
    return new Promise((resolve) => {
      const onAbort = () => {
        circuit.waiters.delete(done);
        resolve('refused');
      };
      const done = (answer: Admission | 'retry') => {
        signal.removeEventListener('abort', onAbort);
        resolve(answer);
      };
      circuit.waiters.add(done);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}
