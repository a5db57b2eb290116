/**
 * How the CLI imports a TypeScript agent module without requiring tsx. tsx, when installed,
 * compiles all of TypeScript and resolves `./x.js` to `./x.ts` as tsc's NodeNext layout writes
 * imports, so it goes first; else Node's own type stripping (22.18+, 23.6+), which takes
 * erasable syntax only and `.ts` import paths; else the user is told to install tsx.
 */
import { pathToFileURL } from 'node:url';

/** TypeScript agent modules (`.ts`, `.mts`, `.cts`, `.tsx`). */
const TYPESCRIPT = /\.[cm]?tsx?$/;

/** The loader in use, for the error a failed import gets. */
export type AgentLoader = 'javascript' | 'tsx' | 'node';

/** Registers tsx's hooks when tsx is installed; false when it is not. */
async function registerTsx(): Promise<boolean> {
  let apis;
  try {
    apis = await Promise.all([import('tsx/esm/api'), import('tsx/cjs/api')]);
  } catch (err) {
    if ((err as { code?: unknown }).code === 'ERR_MODULE_NOT_FOUND') return false;
    throw err;
  }
  // A second registration under `--import tsx` is harmless.
  for (const api of apis) api.register();
  return true;
}

/** Whether this Node strips TypeScript types itself (`process.features.typescript`, Node 22.10+). */
function nodeStripsTypes(path: string): boolean {
  const features = process.features as { typescript?: string | false };
  // Type stripping does not do JSX.
  return !path.endsWith('.tsx') && (features.typescript === 'strip' || features.typescript === 'transform');
}

/** Imports the agent module at `path` (absolute), through whatever this Node needs for it. */
export async function importAgentModule(path: string): Promise<{ module: Record<string, unknown>; loader: AgentLoader }> {
  let loader: AgentLoader = 'javascript';
  if (TYPESCRIPT.test(path)) {
    if (await registerTsx()) loader = 'tsx';
    else if (nodeStripsTypes(path)) loader = 'node';
    else {
      throw new Error(
        `${path} is TypeScript, which Node ${process.versions.node} cannot load by itself: npm install tsx ` +
          '(or use Node 22.18+, which strips types; .tsx needs tsx)',
      );
    }
  }
  try {
    return { module: (await import(pathToFileURL(path).href)) as Record<string, unknown>, loader };
  } catch (err) {
    if (loader === 'node' && err instanceof Error) {
      // Node's stripping refuses enums, namespaces and parameter properties: tsx compiles them.
      if ((err as { code?: unknown }).code === 'ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX') {
        err.message = `${err.message} (Node strips types only; npm install tsx to compile the rest)`;
      } else if (err instanceof SyntaxError && /import statement outside a module/.test(err.message)) {
        // Node reads a .ts file as its package.json's "type" says, as it does a .js file.
        err.message = `${err.message} (in a "type": "commonjs" project, Node reads .ts as CommonJS: name it .mts, or npm install tsx)`;
      }
    }
    throw err;
  }
}
