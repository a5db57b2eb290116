/**
 * The friendly default agent that `npm start` serves: it echoes what you say, streaming the
 * answer word by word when the client streams.
 */
import { defineAgent } from '../src/index.js';

export default defineAgent({
  card: {
    name: 'Echo Agent',
    description: 'Repeats what you say. A starting point for your own agent.',
    version: '1.0.0',
    skills: [{ id: 'echo', name: 'Echo', description: 'Echoes the text it receives', tags: ['echo'], examples: ['hello'] }],
  },
  capabilities: { streaming: true, pushNotifications: true, stateTransitionHistory: true },
  async handler(ctx) {
    ctx.status('Thinking about what you said…');
    const words = ctx.text.trim().split(/\s+/).filter(Boolean);
    if (words.length === 0) return ctx.requestInput('Say something and I will repeat it.');
    words.forEach((word, i) =>
      ctx.artifact({
        artifactId: 'echo',
        name: 'echo',
        parts: [{ kind: 'text', text: i === 0 ? word : ` ${word}` }],
        append: i > 0,
        lastChunk: i === words.length - 1,
      }),
    );
    ctx.complete();
  },
});
