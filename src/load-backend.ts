/**
 * A backend's client, loaded only when its store or event log is chosen: `pg` and `ioredis`
 * are optional peer dependencies, so a SQLite user installs neither.
 */
export async function loadBackend<T>(load: () => Promise<T>, pkg: string, what: string): Promise<T> {
  try {
    return await load();
  } catch (err) {
    if ((err as { code?: unknown }).code === 'ERR_MODULE_NOT_FOUND' && String((err as Error).message).includes(`'${pkg}'`)) {
      throw new Error(`${what} needs the "${pkg}" package: npm install ${pkg}`, { cause: err });
    }
    throw err;
  }
}
