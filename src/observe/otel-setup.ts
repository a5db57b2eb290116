/**
 * The OpenTelemetry SDK for `a2actor serve`, set up from the standard OTEL_* variables so a
 * deployment exports traces without code. Nothing happens unless OTEL_TRACES_EXPORTER names an
 * exporter; the SDK is imported only then. Embedders skip this and register their own provider.
 * The SDK and the exporters are optional peer dependencies: a server that exports no traces
 * installs only `@opentelemetry/api`.
 *
 *   OTEL_TRACES_EXPORTER         otlp | console | none (a comma-separated list)
 *   OTEL_EXPORTER_OTLP_PROTOCOL  http/protobuf (default) | http/json (OTEL_EXPORTER_OTLP_TRACES_PROTOCOL wins)
 *   OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, OTEL_EXPORTER_OTLP_HEADERS:
 *                                read by the exporter itself
 *   OTEL_SERVICE_NAME            default `a2actor`; OTEL_RESOURCE_ATTRIBUTES is honoured too
 *   OTEL_BSP_*, OTEL_TRACES_SAMPLER: read by the SDK
 */
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { loadBackend } from '../load-backend.js';

export interface TracingSetup {
  /** Exporters in use, for the start-up line. */
  readonly exporters: readonly string[];
  /** Exports what is still batched, then stops the provider. */
  shutdown(): Promise<void>;
}

const SDK = ['@opentelemetry/sdk-trace-node', '@opentelemetry/resources'] as const;
const PROTO = '@opentelemetry/exporter-trace-otlp-proto';
const JSON_EXPORTER = '@opentelemetry/exporter-trace-otlp-http';

/** The setting that asked for the SDK, and every package it needs (named all at once when one is missing). */
interface Need {
  what: string;
  packages: readonly string[];
}

const sdkPackage = <T>(load: () => Promise<T>, need: Need): Promise<T> => loadBackend(load, need.packages, need.what);

const list = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);

function otlpProtocol(env: NodeJS.ProcessEnv): string {
  return (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf').trim();
}

async function otlpExporter(env: NodeJS.ProcessEnv, wanted: Need): Promise<SpanExporter> {
  const protocol = otlpProtocol(env);
  if (protocol === 'http/protobuf') {
    return new (await sdkPackage(() => import('@opentelemetry/exporter-trace-otlp-proto'), wanted)).OTLPTraceExporter();
  }
  if (protocol === 'http/json') {
    return new (await sdkPackage(() => import('@opentelemetry/exporter-trace-otlp-http'), wanted)).OTLPTraceExporter();
  }
  throw new Error(`OTEL_EXPORTER_OTLP_PROTOCOL=${protocol} is not supported: use http/protobuf or http/json`);
}

/** Registers a global tracer provider when the environment asks for one; undefined otherwise. */
export async function setupTracingFromEnv(env: NodeJS.ProcessEnv = process.env, version = 'unknown'): Promise<TracingSetup | undefined> {
  const names = list(env.OTEL_TRACES_EXPORTER).filter((n) => n !== 'none');
  if (names.length === 0 || env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const otlpPackage = names.includes('otlp') ? [otlpProtocol(env) === 'http/json' ? JSON_EXPORTER : PROTO] : [];
  const wanted: Need = { what: `OTEL_TRACES_EXPORTER=${names.join(',')}`, packages: [...SDK, ...otlpPackage] };
  const sdk = await sdkPackage(() => import('@opentelemetry/sdk-trace-node'), wanted);
  const exporters: SpanExporter[] = [];
  for (const name of names) {
    if (name === 'otlp') exporters.push(await otlpExporter(env, wanted));
    else if (name === 'console') exporters.push(new sdk.ConsoleSpanExporter());
    else throw new Error(`OTEL_TRACES_EXPORTER=${name} is not supported: use otlp, console or none`);
  }
  const { defaultResource, detectResources, envDetector, resourceFromAttributes } = await sdkPackage(
    () => import('@opentelemetry/resources'),
    wanted,
  );
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (the env detector) win over our defaults.
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': 'a2actor', 'service.version': version }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new sdk.NodeTracerProvider({
    resource,
    spanProcessors: exporters.map((e) => new sdk.BatchSpanProcessor(e)),
  });
  // Global provider, AsyncLocalStorage context manager and W3C propagator: what instrumentations
  // inside the agent's handler need to nest their spans under the turn.
  provider.register();
  return { exporters: names, shutdown: () => provider.shutdown() };
}
