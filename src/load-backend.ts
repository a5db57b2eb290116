/**
 * A backend's client, loaded only when its store or event log is chosen: `pg` and `ioredis`
 * are optional peer dependencies, so a SQLite user installs neither. `pkg` names the package
 * (or the packages) the feature needs, for the message when one is missing.
 */
export async function loadBackend<T>(load: () => Promise<T>, pkg: string | readonly string[], what: string): Promise<T> {
  const pkgs = typeof pkg === 'string' ? [pkg] : pkg;
  try {
    return await load();
  } catch (err) {
    const message = String((err as Error).message);
    if ((err as { code?: unknown }).code === 'ERR_MODULE_NOT_FOUND' && pkgs.some((p) => message.includes(`'${p}'`))) {
      const names = pkgs.map((p) => `"${p}"`).join(' and ');
      throw new Error(`${what} needs the ${names} package${pkgs.length > 1 ? 's' : ''}: npm install ${pkgs.join(' ')}`, { cause: err });
    }
    throw err;
  }
}
