// A counter and a histogram for the per-request path. prom-client hashes the labels on every inc/observe, even
// on a bound child; here each label set's child is a few plain numbers found once and kept by the caller, so
// counting a request is an addition. They register in a prom-client Registry, which formats them when scraped.
import type { Metric, Registry } from "prom-client";

type Labels = Record<string, string>;
interface Sample {
  metricName?: string;
  labels: Labels;
  value: number;
}

abstract class HotMetric<C> {
  readonly name: string;
  readonly help: string;
  readonly aggregator = "sum";
  abstract readonly type: "counter" | "histogram";
  protected readonly children: Array<{ labels: Labels; child: C }> = [];
  private readonly byKey = new Map<string, C>();

  constructor(name: string, help: string, registry: Registry) {
    this.name = name;
    this.help = help;
    registry.registerMetric(this as unknown as Metric);
  }

  /** A new child for one label set; the caller keeps it (a second call makes a second series). */
  child(labels: Labels): C {
    const child = this.create();
    this.children.push({ labels, child });
    return child;
  }

  /** The child of the label set named `key` (made from `labels()` the first time). */
  for(key: string, labels: () => Labels): C {
    let child = this.byKey.get(key);
    if (!child) {
      child = this.child(labels());
      this.byKey.set(key, child);
    }
    return child;
  }

  protected abstract create(): C;
  protected abstract samples(labels: Labels, child: C): Sample[];

  async get() {
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: this.aggregator,
      values: this.children.flatMap(({ labels, child }) => this.samples(labels, child)),
    };
  }

  /** Counters only ever grow between process starts. */
  reset(): void {}
}

export class HotCounter extends HotMetric<{ value: number }> {
  readonly type = "counter";
  protected create() {
    return { value: 0 };
  }
  protected samples(labels: Labels, child: { value: number }): Sample[] {
    return [{ labels, value: child.value }];
  }
}

export interface HistogramChild {
  /** Observations per bucket (not cumulative), the last one above every bound. */
  counts: number[];
  sum: number;
}

export class HotHistogram extends HotMetric<HistogramChild> {
  readonly type = "histogram";
  private readonly bounds: number[];

  constructor(name: string, help: string, bounds: number[], registry: Registry) {
    super(name, help, registry);
    this.bounds = bounds;
  }

  observe(child: HistogramChild, value: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > (bounds[i] as number)) i++;
    (child.counts[i] as number)++;
    child.sum += value;
  }

  protected create(): HistogramChild {
    return { counts: new Array<number>(this.bounds.length + 1).fill(0), sum: 0 };
  }

  protected samples(labels: Labels, child: HistogramChild): Sample[] {
    const samples: Sample[] = [];
    let cumulative = 0;
    for (const [i, count] of child.counts.entries()) {
      cumulative += count;
      const le = i < this.bounds.length ? String(this.bounds[i]) : "+Inf";
      samples.push({ metricName: `${this.name}_bucket`, labels: { ...labels, le }, value: cumulative });
    }
    samples.push({ metricName: `${this.name}_sum`, labels, value: child.sum });
    samples.push({ metricName: `${this.name}_count`, labels, value: cumulative });
    return samples;
  }
}
