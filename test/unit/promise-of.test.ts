import { describe, expect, it } from 'vitest';
import { promiseOf } from '../../src/promise-of.js';

describe('promiseOf', () => {
  it('hands back the promise a step ends with, not a new one', () => {
    const ended = Promise.resolve(1);
    expect(promiseOf(() => ended)).toBe(ended);
  });

  it('resolves with a plain value', async () => {
    await expect(promiseOf(() => 'done')).resolves.toBe('done');
  });

  it('turns a throw into a rejection, as an async function would', async () => {
    const failure = new Error('refused');
    let returned: Promise<never> | undefined;
    expect(() => {
      returned = promiseOf(() => {
        throw failure;
      });
    }).not.toThrow();
    await expect(returned).rejects.toBe(failure);
  });
});
