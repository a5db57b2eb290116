/**
 * A multi-turn form: the agent collects a name and an email address, asking for what is still
 * missing until the form is complete, then completes with the filled form as a data artifact.
 *
 *   npx tsx src/cli/main.ts serve examples/form-agent.ts --store memory
 *
 * Each question is a `requestInput` with two parts: a text for people and a data part for
 * programs, `{ "needed": ["name", "email"], "filled": {…}, "invalid": {…} }`. The task waits in
 * `input-required`; the client answers with a message carrying the same `taskId`, either
 *
 * - as text: a bare value answers the question just asked ("Ada Lovelace"), and lines such as
 *   `email: ada@example.com` set a field by name (also on the first message), or
 * - as a data part: `{ "kind": "data", "data": { "name": "Ada", "email": "ada@example.com" } }`.
 *
 * A value that does not pass its check is refused and asked for again, saying why.
 *
 * The handler keeps no state of its own between turns: every turn rebuilds the form from the
 * task's history. That is what lets the task survive a restart or continue on another replica.
 */
import { defineAgent, type Message, type Part } from '../src/index.js';

const FIELDS = {
  name: {
    question: 'What is your name?',
    problem: (value: string) => (value.length <= 100 ? undefined : 'a name has at most 100 characters'),
  },
  email: {
    question: 'What is your email address?',
    // Deliberately loose (something@something.tld): the only real check of an address is mail to it.
    problem: (value: string) => (/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value) ? undefined : 'that does not look like an email address'),
  },
} as const;

type Field = keyof typeof FIELDS;
const FIELD_NAMES = Object.keys(FIELDS) as Field[];
const isField = (key: string): key is Field => key in FIELDS;

type Values = Partial<Record<Field, string>>;

interface Form {
  filled: Values;
  /** Values the latest message offered that were refused, with the reason. */
  invalid: Partial<Record<Field, { value: string; problem: string }>>;
}

const neededOf = (form: Form): Field[] => FIELD_NAMES.filter((field) => form.filled[field] === undefined);

/** The field values one user message offers; `asked` is the field the previous question asked for. */
function offeredBy(message: Message, asked: Field | undefined): Values {
  const offered: Values = {};
  const bareText: string[] = [];
  for (const part of message.parts) {
    if (part.kind === 'data') {
      for (const [key, value] of Object.entries(part.data)) if (isField(key) && typeof value === 'string') offered[key] = value.trim();
    } else if (part.kind === 'text') {
      for (const line of part.text.split('\n')) {
        const named = /^\s*(\w+)\s*[:=]\s*(.*)$/.exec(line);
        const key = named?.[1]?.toLowerCase();
        if (named && key && isField(key)) offered[key] = (named[2] ?? '').trim();
        else if (line.trim()) bareText.push(line.trim());
      }
    }
  }
  // A bare answer ("Ada Lovelace") answers the question just asked. On the first message there
  // was no question: its text is the request itself ("sign me up"), not a value.
  if (asked && offered[asked] === undefined && bareText.length > 0) offered[asked] = bareText.join(' ');
  return offered;
}

/** Replays the user's messages, oldest first, each checked as it was when it arrived. */
function formOf(history: readonly Message[]): Form {
  let form: Form = { filled: {}, invalid: {} };
  let asked: Field | undefined;
  for (const message of history.filter((m) => m.role === 'user')) {
    const next: Form = { filled: { ...form.filled }, invalid: {} };
    for (const [field, value] of Object.entries(offeredBy(message, asked)) as [Field, string][]) {
      const problem = value ? FIELDS[field].problem(value) : 'it was empty';
      if (problem) next.invalid[field] = { value, problem };
      else next.filled[field] = value;
    }
    form = next;
    asked = neededOf(form)[0];
  }
  return form;
}

function question(form: Form, needed: Field[]): Part[] {
  const refused = Object.entries(form.invalid).map(([field, { value, problem }]) => `The ${field} "${value}" was refused: ${problem}.`);
  const text = [...refused, FIELDS[needed[0]!].question].join(' ');
  return [
    { kind: 'text', text },
    { kind: 'data', data: { needed, filled: form.filled, invalid: form.invalid } },
  ];
}

export default defineAgent({
  card: {
    name: 'Form Agent',
    description: 'Collects a name and an email address over several turns and returns the filled form as data.',
    version: '1.0.0',
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: [
      {
        id: 'signup',
        name: 'Sign-up form',
        description: 'Asks for name and email until both are valid; answer in text or with a data part',
        tags: ['form', 'multi-turn'],
        examples: ['sign me up', 'name: Ada Lovelace\nemail: ada@example.com'],
      },
    ],
  },
  capabilities: { streaming: true, pushNotifications: true, stateTransitionHistory: true },
  handler(ctx) {
    const form = formOf(ctx.history);
    const needed = neededOf(form);
    // Something is missing: pause in input-required. The next message on this task runs the
    // handler again with that message at the end of ctx.history.
    if (needed.length > 0) return ctx.requestInput(question(form, needed));
    ctx.artifact({ artifactId: 'form', name: 'signup-form', parts: [{ kind: 'data', data: form.filled }] });
    ctx.complete();
  },
});
