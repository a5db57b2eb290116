/**
 * Instruction counts from callgrind, for costs too small for CPU time on a shared machine to
 * resolve (bench/feature-cost.ts). A micro run at two sizes gives its instructions per request as
 * the difference over the difference in requests: start-up, imports and the first compilations
 * are in both runs and cancel out.
 */
import { FEATURE_VARIANTS, type FeatureVariant } from './types.js';

export interface CallgrindRun {
  /** Requests the micro served (its warm-up included). */
  requests: number;
  /** Instructions callgrind counted over the whole process. */
  instructions: number;
}

/** The total callgrind prints at exit (`==pid== Collected : N`); undefined if it is not there. */
export function collectedInstructions(stderr: string): number | undefined {
  const m = /==\d+== Collected : (\d+)/.exec(stderr);
  return m ? Number(m[1]) : undefined;
}

export function instructionsPerRequest(small: CallgrindRun, large: CallgrindRun): number {
  const requests = large.requests - small.requests;
  if (!(requests > 0)) throw new Error('instruction cost: the large run must serve more requests than the small one');
  return (large.instructions - small.instructions) / requests;
}

export interface FeatureCostLine {
  variant: FeatureVariant;
  instructionsPerRequest: number;
  /** Over `plain`. */
  addedInstructions: number;
  addedPercent: number;
  /** The added instructions at the plain path's native speed (its CPU µs over its instructions). */
  addedMicros: number;
}

/** Each variant against `plain`, in µs at the native CPU µs per request `plainMicros` of the plain path. */
export function featureCostLines(perRequest: Readonly<Record<FeatureVariant, number>>, plainMicros: number): FeatureCostLine[] {
  const plain = perRequest.plain;
  return FEATURE_VARIANTS.map((variant) => {
    const added = perRequest[variant] - plain;
    return {
      variant,
      instructionsPerRequest: Math.round(perRequest[variant]),
      addedInstructions: Math.round(added),
      addedPercent: Math.round((1000 * added) / plain) / 10,
      addedMicros: Math.round((10 * added * plainMicros) / plain) / 10,
    };
  });
}
