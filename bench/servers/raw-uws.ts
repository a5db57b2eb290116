/**
 * The ceiling: uWebSockets.js answering every request with one fixed JSON body, nothing else.
 * It reads a POST body before answering, as a real server must, so POST and GET ceilings are
 * both honest. Imported by the name `uWebSockets.js`, as src/http/uws-server.ts does.
 */
import uws from 'uWebSockets.js';
import type { HttpRequest, HttpResponse, us_listen_socket } from 'uWebSockets.js';
import { serve } from './child.js';

const BODY = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { ok: true, kind: 'fixed' } });

await serve(async () => {
  const app = uws.App();
  app.any('/*', (res: HttpResponse, req: HttpRequest) => {
    const method = req.getMethod();
    let aborted = false;
    res.onAborted(() => {
      aborted = true;
    });
    const answer = (): void => {
      if (aborted) return;
      res.cork(() => {
        res.writeStatus('200 OK').writeHeader('Content-Type', 'application/json').end(BODY);
      });
    };
    if (method === 'get' || method === 'head') {
      answer();
      return;
    }
    // The body is read to its end and dropped: the ceiling of a server that accepts a request.
    res.onData((_chunk, isLast) => {
      if (isLast) answer();
    });
  });
  const socket = await new Promise<us_listen_socket>((resolve, reject) => {
    app.listen('127.0.0.1', 0, (listen: us_listen_socket | false) =>
      listen ? resolve(listen) : reject(new Error('raw uWS cannot listen')),
    );
  });
  const port = uws.us_socket_local_port(socket as unknown as uws.us_socket);
  return {
    url: `http://127.0.0.1:${port}`,
    description: 'uWebSockets.js, fixed JSON body',
    close: () => uws.us_listen_socket_close(socket),
  };
});
