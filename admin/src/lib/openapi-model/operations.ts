/** Progress of long-running work (an Operation, or an AI run) as a screen shows it. */
export interface OperationLike {
  name?: string;
  done?: boolean;
  error?: { status?: string; message?: string };
  metadata?: { type?: string; step?: string; progress_percent?: number; cancel_requested?: boolean };
  response?: Record<string, unknown>;
}

export interface Progress {
  done: boolean;
  failed: boolean;
  cancelled: boolean;
  /** 0..100 where the work is counted; undefined: indeterminate. */
  percent?: number;
  /** What is happening, for a live region: `Provision website: default pages`. */
  label: string;
}

const words = (code: string | undefined) => (code ? code.toLowerCase().replace(/_/g, ' ') : '');
const sentence = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

export function operationProgress(op: OperationLike): Progress {
  const failed = !!op.done && !!op.error;
  const cancelled = failed && op.error?.status === 'CANCELLED';
  const what = sentence(words(op.metadata?.type) || 'work');
  let label: string;
  if (cancelled) label = `${what}: cancelled.`;
  else if (failed) label = `${what} failed: ${op.error?.message ?? 'unknown error'}`;
  else if (op.done) label = `${what}: done.`;
  else label = `${what}: ${words(op.metadata?.step) || 'in progress'}${op.metadata?.cancel_requested ? ' (cancelling)' : ''}…`;
  return {
    done: !!op.done,
    failed,
    cancelled,
    ...(typeof op.metadata?.progress_percent === 'number' && { percent: op.metadata.progress_percent }),
    ...(op.done && !failed && { percent: 100 }),
    label,
  };
}

/** Wait before the n-th poll (0-based): 250 ms growing by half each time, at most 5 s. */
export const pollDelayMs = (attempt: number): number => Math.min(5000, Math.round(250 * 1.5 ** attempt));

/** `websites/W/operations/O` → its path params; undefined when the name is not an Operation's. */
export function operationParams(name: string | undefined): { website_id: string; operation_id: string } | undefined {
  const match = /^websites\/([^/]+)\/operations\/([^/]+)$/.exec(name ?? '');
  return match ? { website_id: match[1]!, operation_id: match[2]! } : undefined;
}

/** AI runs are resources with a `state`; finished states end the polling. */
export const AI_RUN_FINAL_STATES = new Set(['SUCCEEDED', 'FAILED', 'CANCELLED', 'EXPIRED']);
