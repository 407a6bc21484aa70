export { familyOf, methodLabel, type Family } from './request-labels.js';
export {
  createServerMetrics,
  counterOnScrape,
  gaugeOnScrape,
  registerStartTime,
  type ServerMetrics,
} from './server-metrics.js';
export { primaryMetrics, workerMetrics, type MetricsMessage } from './cluster-metrics.js';
export { registerPoolGauges, registerQueueGauges } from './queue-gauges.js';
