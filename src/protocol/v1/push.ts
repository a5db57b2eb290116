/**
 * A webhook delivery to a config registered over v1.0 (spec §4.3.3): a `StreamResponse` holding
 * the task, in `application/a2a+json`.
 */
import type { PushBody } from '../../push/dispatcher.js';
import { A2A_JSON } from './errors.js';
import { v1Task } from './wire-out.js';

export const V1_PUSH_BODY: PushBody = { contentType: A2A_JSON, encode: (task) => JSON.stringify({ task: v1Task(task) }) };
