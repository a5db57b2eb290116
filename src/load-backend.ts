/**
 * An optional package, loaded only when the feature that needs it is chosen: `pg` and `ioredis`
 * (stores, event logs), the OpenTelemetry SDK (OTEL_TRACES_EXPORTER), the Stately inspector
 * (`--inspect`). They are optional peer dependencies, so a user who chose none installs none.
 * `install` lists what to install when the feature needs several packages (default: `pkg`).
 */
export async function loadBackend<T>(load: () => Promise<T>, pkg: string, what: string, install = pkg): Promise<T> {
  try {
    return await load();
  } catch (err) {
    if ((err as { code?: unknown }).code === 'ERR_MODULE_NOT_FOUND' && String((err as Error).message).includes(`'${pkg}'`)) {
      throw new Error(`${what} needs the "${pkg}" package: npm install ${install}`, { cause: err });
    }
    throw err;
  }
}
