import type { Context as ActivityContext } from '@temporalio/activity';
import type { ActivityInterceptors } from '@temporalio/worker';
import { Counter, Histogram, type Registry } from 'prom-client';
import type { ConfirmationObserver } from '../integrations/evm/bundlers';

/**
 * What the worker counts besides the Temporal SDK's own metrics (TEMPORAL_METRICS_PORT): every activity execution
 * by type and outcome (`failed` includes attempts Temporal will retry) and how long it took. Chain submissions are the
 * activities named submit* (their duration runs from the first broadcast to the receipt).
 */
export class WorkerMetrics {
  private readonly executions: Counter<'activity' | 'outcome'>;
  private readonly duration: Histogram<'activity' | 'outcome'>;
  private readonly confirmation: Histogram<'network' | 'outcome'>;
  private readonly watchFailures: Counter<'network'>;

  constructor(readonly registry: Registry) {
    this.executions = new Counter({
      name: 'activity_executions_total',
      help: 'Activity attempts by type and outcome (completed, failed)',
      labelNames: ['activity', 'outcome'],
      registers: [registry],
    });
    this.duration = new Histogram({
      name: 'activity_duration_seconds',
      help: 'Activity attempt duration by type and outcome',
      labelNames: ['activity', 'outcome'],
      registers: [registry],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
    });
    this.confirmation = new Histogram({
      name: 'chain_confirmation_seconds',
      help: "From the bundler's acceptance to the receipt (EVM) or from the first send to finality (Solana), per network and outcome (success, reverted)",
      labelNames: ['network', 'outcome'],
      registers: [registry],
      buckets: [0.1, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600],
    });
    this.watchFailures = new Counter({
      name: 'inclusion_watch_failures_total',
      help: "Reads of a network's head or EntryPoint logs by the inclusion watch that failed (waits fall back on their own timers)",
      labelNames: ['network'],
      registers: [registry],
    });
  }

  /** Chain confirmation times, given to the bundlers and the Solana transfer activity (composeWorker). */
  readonly confirmations: ConfirmationObserver = {
    confirmed: (network, seconds, outcome) => this.confirmation.observe({ network, outcome }, seconds),
    inclusionWatchFailed: (network) => this.watchFailures.inc({ network }),
  };

  /** The activity interceptor that counts and times each attempt. */
  readonly interceptor = (ctx: ActivityContext): ActivityInterceptors => ({
    inbound: {
      execute: async (input, next) => {
        const activity = ctx.info.activityType;
        const end = this.duration.startTimer({ activity });
        let outcome = 'failed';
        try {
          const result = await next(input);
          outcome = 'completed';
          return result;
        } finally {
          end({ outcome });
          this.executions.inc({ activity, outcome });
        }
      },
    },
  });
}
