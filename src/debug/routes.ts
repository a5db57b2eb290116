/**
 * The debug page's route. It exists only when debug is on: `setupDebug` adds it then, and
 * otherwise `/chat` is an unknown path like any other (404). It is not in the agent card.
 */
import type { RawRoute } from '../http/exchange.js';
import { buildChatPage } from './chat-page.js';

export const CHAT_PATH = '/chat';

export function chatRoute(): RawRoute {
  const page = buildChatPage();
  return (req) => {
    if (req.path !== CHAT_PATH || req.method !== 'GET') return undefined;
    return { status: 200, contentType: 'text/html; charset=utf-8', body: page.html, headers: page.headers };
  };
}
