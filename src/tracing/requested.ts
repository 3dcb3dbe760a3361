/**
 * @module Whether the environment asks for traces, without loading the OpenTelemetry SDK: the
 * service imports `sdk.ts` (the SDK, its exporters, gRPC and YAML: about 450 modules, 0.4–0.9 s
 * per process here) only when this says yes.
 */

function listOf(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/**
 * Whether the environment asks for traces: `OTEL_TRACES_EXPORTER` set to an exporter (not
 * `none`), or an OTLP endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT`,
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`); `OTEL_SDK_DISABLED=true` wins.
 * @example
 * tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }); // true
 */
export function tracingRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters = listOf(env.OTEL_TRACES_EXPORTER);
  if (exporters.includes('none')) return false;
  if (exporters.length > 0) return true;
  return (
    listOf(env.OTEL_EXPORTER_OTLP_ENDPOINT).length > 0 ||
    listOf(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT).length > 0
  );
}
