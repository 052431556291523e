// Types of the prom-client modules metrics.ts requires one by one (see there): each is the class or
// function prom-client's index exports under that name.
declare module 'prom-client/lib/registry.js' {
  import { Registry } from 'prom-client';
  export default Registry;
}
declare module 'prom-client/lib/counter.js' {
  import { Counter } from 'prom-client';
  export default Counter;
}
declare module 'prom-client/lib/gauge.js' {
  import { Gauge } from 'prom-client';
  export default Gauge;
}
declare module 'prom-client/lib/defaultMetrics.js' {
  import { collectDefaultMetrics } from 'prom-client';
  export default collectDefaultMetrics;
}
