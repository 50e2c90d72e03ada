import { AggregatorRegistry, Registry } from 'prom-client';

/**
 * With several processes (`WORKERS`), the primary answers `METRICS_PORT` for all of them: it asks
 * each worker for its metrics over the cluster channel and sums them (gauges of shared state are
 * declared with another aggregator: the same queue seen by every worker is not summed).
 */
export class ClusterMetrics {
  private readonly aggregator = new AggregatorRegistry();

  get contentType(): string {
    return this.aggregator.contentType;
  }

  render(): Promise<string> {
    return this.aggregator.clusterMetrics();
  }
}

/**
 * In a worker: answers the primary's requests from now on (with nothing until the returned
 * function names the worker's registry), so a worker still starting never holds a scrape.
 */
export function shareWithPrimary(): (registry: Registry) => void {
  // Constructing one installs the worker's message listener.
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([new Registry()]);
  return (registry) => AggregatorRegistry.setRegistries([registry]);
}
