/**
 * A streaming "LLM-like" agent: it answers token by token, the way a language model's streaming
 * API does, and sends each token to the client as a chunk of one artifact. A stand-in model
 * (`fakeModel`) keeps the example self-contained; swap in your model SDK's stream.
 *
 *   TOKEN_DELAY_MS=80 npx tsx src/cli/main.ts serve examples/streaming-llm-agent.ts --store memory
 *   curl -sN localhost:8080/v1/message:stream -H 'content-type: application/json' \
 *     -d '{"message":{"role":"user","parts":[{"kind":"text","text":"tell me a story"}],"messageId":"m-1"}}'
 *
 * What it shows:
 * - artifact chunks: the first has `append: false`, the rest `append: true`, the last `lastChunk: true`;
 *   a streaming client sees them as they come, a plain `message/send` gets the assembled artifact;
 * - cancel: `ctx.signal` is handed to the model call, so a cancel stops the generation at once and
 *   the task ends `canceled` (returning from the handler after a cancel is all it takes).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { defineAgent, type AgentDefinition } from '../src/index.js';

/** What the stand-in model answers to a prompt, in full. */
export function answerFor(prompt: string): string {
  return (
    `You said: "${prompt}". Here is a streamed answer, one token at a time, so that you can watch it arrive ` +
    'the way a language model writes: a word, a short pause, the next word, until the thought is complete.'
  );
}

/**
 * The stand-in for a model SDK's streaming call: yields the answer a token at a time (a word with
 * the space before it, so the tokens joined give the answer back exactly). Like a real SDK it
 * takes an AbortSignal: the pause rejects with an AbortError the moment the signal fires.
 */
export async function* fakeModel(prompt: string, opts: { delayMs: number; signal: AbortSignal }): AsyncGenerator<string> {
  for (const token of answerFor(prompt).match(/\s*\S+/g) ?? []) {
    await sleep(opts.delayMs, undefined, { signal: opts.signal });
    yield token;
  }
}

export interface StreamingLlmOptions {
  /** Pause before each token, in ms (tests use a tiny one). Default: `TOKEN_DELAY_MS` or 40. */
  tokenDelayMs?: number;
}

export function createStreamingLlmAgent(options: StreamingLlmOptions = {}): AgentDefinition {
  const delayMs = options.tokenDelayMs ?? Number(process.env.TOKEN_DELAY_MS ?? 40);

  return defineAgent({
    card: {
      name: 'Streaming LLM Agent',
      description: 'Answers token by token as artifact chunks, like a language model; cancel stops it at once.',
      version: '1.0.0',
      skills: [
        { id: 'chat', name: 'Chat', description: 'Streams an answer to any prompt', tags: ['llm', 'streaming'], examples: ['hello'] },
      ],
    },
    // Without `streaming` the server refuses message/stream; the agent itself needs no other change.
    capabilities: { streaming: true, pushNotifications: true },
    async handler(ctx) {
      const prompt = ctx.text.trim();
      if (!prompt) return ctx.requestInput('Ask me something.');

      // One artifact, built from chunks. A model stream does not say which token is its last
      // until it ends, so each token is held back until the next one arrives: the final one can
      // then go out with `lastChunk: true` (instead of an extra empty chunk to close the artifact).
      let sent = 0;
      const emit = (text: string, lastChunk: boolean) =>
        ctx.artifact({ artifactId: 'answer', name: 'answer', parts: [{ kind: 'text', text }], append: sent++ > 0, lastChunk });

      let held: string | undefined;
      try {
        for await (const token of fakeModel(prompt, { delayMs, signal: ctx.signal })) {
          if (held !== undefined) emit(held, false);
          held = token;
        }
      } catch (err) {
        // A cancel fired the signal and the model call gave up: just return. The server ends the
        // task `canceled`; anything emitted now would be ignored anyway.
        if (ctx.signal.aborted) return;
        throw err; // anything else fails the task (the server logs the stack, the client gets a safe message)
      }
      if (held !== undefined) emit(held, true);
      ctx.complete();
    },
  });
}

export default createStreamingLlmAgent();
