/**
 * What the adapters in this folder need of a server: its node:http handler. Each adapter fits
 * that handler to one host framework by shape alone, so the framework is never imported and this
 * package does not depend on it.
 */
import type { NodeRequestHandler } from '../node-server.js';

/** A server that can be mounted (`createServer`'s result is one). */
export interface Mountable {
  /** The server as a node:http request handler mounted at `mountPath`. */
  nodeHandler(opts?: { mountPath?: string }): NodeRequestHandler;
}

/** Where the server is mounted, from the root of the host app: `/a2a` (no trailing slash). */
export interface MountOptions {
  /** The path the server answers at, from the root of the app. */
  mountPath: string;
}

/** The path without trailing slashes; `/` and `` are the root. */
export const normalMountPath = (path: string): string => path.replace(/\/+$/, '');

/** Whether a request URL (path and query) is the mount path or under it. */
export function isUnder(url: string, mountPath: string): boolean {
  if (!mountPath) return true;
  if (!url.startsWith(mountPath)) return false;
  const next = url.charCodeAt(mountPath.length);
  // The end, `/` or `?`: `/a2a-admin` is not under `/a2a`.
  return Number.isNaN(next) || next === 0x2f || next === 0x3f;
}
