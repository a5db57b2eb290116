/**
 * Counters and histograms whose hot path is a few number writes, rendered in the Prometheus
 * text format (0.0.4) at scrape time. prom-client's own metric objects hash their label values
 * on every `inc`/`observe`, even through a cached `labels()` child, and a task touches a dozen
 * series: metrics must cost a task a few number writes, not a dozen hashes. So our families keep
 * plain numbers in objects the callers hold, and only the scrape walks them (docs/benchmark.md,
 * "Why the protocol layer is shaped as it is"). Label values are bounded sets chosen by our code, never client text.
 */

/** Latency buckets in seconds: sub-millisecond in-process work up to slow agents and webhooks. */
export const SECONDS_BUCKETS: readonly number[] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** One histogram series: counts per bucket (not cumulative), their sum and count. */
export class Buckets {
  readonly counts: number[];
  sum = 0;
  count = 0;

  constructor(readonly bounds: readonly number[] = SECONDS_BUCKETS) {
    this.counts = bounds.map(() => 0);
  }

  observe(value: number): void {
    this.sum += value;
    this.count++;
    const bounds = this.bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= (bounds[i] as number)) {
        (this.counts[i] as number)++;
        return;
      }
    }
    // Above the last bound: only the +Inf bucket (the count) has it.
  }
}

/** One counter series: a number the hot path increments. */
export interface Tally {
  n: number;
}

export type Labels = Readonly<Record<string, string>>;

/** A family as it is rendered: name, help, type and its series. */
export type Family =
  | { name: string; help: string; type: 'counter' | 'gauge'; series: readonly { labels: Labels; value: number }[] }
  | { name: string; help: string; type: 'histogram'; series: readonly { labels: Labels; buckets: Buckets }[] };

const escapeValue = (v: string): string => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
const escapeHelp = (v: string): string => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');

function labelText(labels: Labels, extra?: string): string {
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${escapeValue(v)}"`);
  if (extra) parts.push(extra);
  return parts.length === 0 ? '' : `{${parts.join(',')}}`;
}

/** Prometheus writes numbers as Go does: `+Inf`, `NaN`, else the shortest decimal. */
const num = (v: number): string => (Number.isNaN(v) ? 'NaN' : v === Infinity ? '+Inf' : v === -Infinity ? '-Inf' : String(v));

/** The families in the text exposition format, each with its HELP and TYPE lines. */
export function renderFamilies(families: readonly Family[]): string {
  const out: string[] = [];
  for (const f of families) {
    out.push(`# HELP ${f.name} ${escapeHelp(f.help)}`, `# TYPE ${f.name} ${f.type}`);
    if (f.type !== 'histogram') {
      for (const s of f.series) out.push(`${f.name}${labelText(s.labels)} ${num(s.value)}`);
      continue;
    }
    for (const { labels, buckets } of f.series) {
      let cumulative = 0;
      buckets.bounds.forEach((le, i) => {
        cumulative += buckets.counts[i] as number;
        out.push(`${f.name}_bucket${labelText(labels, `le="${num(le)}"`)} ${cumulative}`);
      });
      out.push(`${f.name}_bucket${labelText(labels, 'le="+Inf"')} ${buckets.count}`);
      out.push(`${f.name}_sum${labelText(labels)} ${num(buckets.sum)}`);
      out.push(`${f.name}_count${labelText(labels)} ${buckets.count}`);
    }
  }
  return out.length === 0 ? '' : `${out.join('\n')}\n`;
}
